//! What editing access asks the server to change (`e` on a rule, see
//! `edit.rs`): one rule set or removed, sent as the CLI's `access set`
//! sends it ([`crate::access::rule::send`]), its words for a question and
//! a notice ("Set: …", "Removed: …"), the change it proposes for the
//! preview of who gains and who loses ([`Write::access_change`]), and the
//! news its success is for the other screens (`Change::AccessChanged`).

use super::edit::Target;
use crate::access::directory::People;
use crate::access::preview::{Change as Proposal, Proposed};
use crate::access::rule;
use crate::api::access::levels::{AccessLevel, PROJECT};
use crate::api::{self, Client};
use crate::console::screens::Change;
use crate::console::screens::write::{Landed, Written};

/// A change to access.
#[derive(Debug, Clone, PartialEq)]
pub enum Write {
    /// A subject's rule on the project or one of its resources set
    /// (`Some`) or removed (`None`).
    Rule {
        /// Whose rule, on what, in which project, in words.
        target: Target,
        level: Option<AccessLevel>,
        /// The rule's level when it was read.
        was: Option<AccessLevel>,
    },
}

impl Write {
    /// "Contractors' rule on dashboards in Hedgebox Web (1)".
    fn words(&self) -> String {
        match self {
            Write::Rule { target, .. } => target.words(),
        }
    }

    /// What the write does, in words, for a question.
    pub fn summary(&self) -> String {
        match self {
            Write::Rule {
                level: Some(level), ..
            } => format!("Set {} to {level}", self.words()),
            Write::Rule { level: None, .. } => format!("Remove {}", self.words()),
        }
    }

    /// Sends it, as `orgdeck access set|unset` does.
    pub async fn send(&self, client: &Client) -> Result<Written, api::Error> {
        match self {
            Write::Rule { target, level, .. } => rule::send(
                client,
                &target.project.id.to_string(),
                &target.on(),
                &target.subject,
                level.clone(),
            )
            .await
            .map(|rule| Written::Rule(rule.map(Box::new))),
        }
    }

    /// What it proposes, for the preview of who gains and who loses
    /// before it is sent: the rule, about everyone, in its project.
    pub fn access_change(&self) -> Option<Proposed> {
        match self {
            Write::Rule { target, level, .. } => Some(Proposed {
                change: Proposal::Rule {
                    project: target.project.id,
                    resource: target.resource.clone(),
                    resource_id: (target.resource == PROJECT).then(|| target.project.id.to_string()),
                    subject: target.subject.clone(),
                    level: level.clone(),
                },
                people: People::Everyone,
                project: Some(target.project.id),
                object: None,
            }),
        }
    }

    /// The news its success is for every screen: none of its own; the
    /// shell tells every screen that access changed after any write that
    /// moves it (`shell/preview.rs`), this one too.
    pub fn changes(&self, _written: &Written) -> Vec<Change> {
        Vec::new()
    }

    /// Its answer lands: the notice says what the rule is now.
    pub fn land(&self, written: Written) -> Landed {
        let changes = self.changes(&written);
        let said = match &written {
            Written::Rule(Some(rule)) => format!(
                "Set: {} is now {}.",
                self.words(),
                rule.access_level.as_ref().map_or("-", AccessLevel::as_str)
            ),
            Written::Rule(None) => format!("Removed: {}.", self.words()),
            _ => return Landed::unfit(self, &written),
        };
        Landed::done(said).with(changes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::directory::ProjectRef;
    use crate::api::access::Subject;

    #[test]
    fn a_rule_proposes_its_change_about_everyone_in_its_project() {
        let write = Write::Rule {
            target: Target {
                project: ProjectRef {
                    id: 2,
                    name: "Mobile".into(),
                },
                resource: "dashboard".into(),
                subject: Subject::Role("r1".into()),
                whom: "Contractors".into(),
                preselect: None,
            },
            level: Some(AccessLevel::Viewer),
            was: None,
        };
        let proposed = write.access_change().unwrap();
        assert_eq!(proposed.project, Some(2));
        assert_eq!(proposed.people, People::Everyone);
        assert!(matches!(
            proposed.change,
            Proposal::Rule {
                project: 2,
                resource_id: None,
                ..
            }
        ));
        assert_eq!(
            write.summary(),
            "Set Contractors' rule on dashboards in Mobile (2) to viewer"
        );
    }
}
