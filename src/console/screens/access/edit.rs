//! `e`: a rule edited from wherever a rule shows (issue 32 req 1): a cell
//! of the Access tab (the row's own rule on the project or the resource),
//! a line of a person's Access section (their own rule, the role's rule
//! that gives the line, or everyone's), a line of a role's page (the
//! role's rule), and a line of `:switch-preview` (the fix's rule, its
//! level chosen already). The rule is read first ([`crate::access::rule::current`]:
//! its level, Terraform's hold on it, the plan), then a small chooser
//! offers the levels within the resource's bounds (posthog.md 16.1-16.2)
//! and "remove the rule", the current one marked; a rule Terraform
//! manages under the project's lock is refused before anything is
//! chosen, a role's rule without role-based access in the plan too. What
//! is chosen is asked about and sent as a [`super::writes::Write`].

use crate::access::directory::ProjectRef;
use crate::access::rule::{self, Current, On};
use crate::api::access::Subject;
use crate::api::access::levels::{self, AccessLevel, PROJECT};
use crate::console::kit::notice::Notice;
use crate::console::screens::heard::{Heard, Step};
use crate::console::screens::people::choose::Choosing;
use crate::console::screens::write::{Confirm, Write as AnyWrite};
use crate::console::screens::{Ctx, ScreenId, Screens};
use crate::console::widgets::chooser::{Choice, Chooser};

use super::Ask;
use super::writes::Write;

/// The choice that removes the rule.
pub const UNSET: &str = "unset";

/// Said of a rule Terraform manages under the project's lock.
pub const LOCKED: &str = "managed by Terraform: change it in your Terraform configuration, or turn off the lock in project settings";

/// A rule to edit: whose, on what, in which project, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub project: ProjectRef,
    /// `project`, or a resource of it.
    pub resource: String,
    pub subject: Subject,
    /// Whom the rule is for, in words: a person, a role, "everyone".
    pub whom: String,
    /// The level the chooser starts on (a fix's), else the current one.
    pub preselect: Option<AccessLevel>,
}

impl Target {
    /// What the rule is on.
    pub fn on(&self) -> On {
        if self.resource == PROJECT {
            On::Project
        } else {
            On::Resource(self.resource.clone())
        }
    }

    /// "dashboards", or "the project".
    pub fn thing(&self) -> String {
        if self.resource == PROJECT {
            "the project".into()
        } else {
            levels::display_name(&self.resource)
        }
    }

    /// "Contractors' rule on dashboards in Hedgebox Web (1)".
    pub fn words(&self) -> String {
        format!(
            "{} rule on {} in {}",
            possessive(&self.whom),
            self.thing(),
            self.project.label()
        )
    }
}

/// "Contractors'", "Ada Okafor's", "everyone's".
fn possessive(whom: &str) -> String {
    if whom.ends_with('s') {
        format!("{whom}'")
    } else {
        format!("{whom}'s")
    }
}

/// What the chooser chooses for: the target, and the rule as read.
#[derive(Debug, Clone, PartialEq)]
pub struct Editing {
    pub target: Target,
    pub current: Current,
}

/// The chooser of levels for a rule as read; `Err` says why it is not
/// offered (Terraform's lock, the plan).
pub fn chooser(target: &Target, current: &Current) -> Result<Chooser, String> {
    if current.refused_by_lock() {
        return Err(format!("{}: {LOCKED}", target.words()));
    }
    if matches!(target.subject, Subject::Role(_)) && !current.role_based_access {
        return Err(
            "Role-based access controls require the Role-based access feature (the organization's plan lacks it). Nothing was sent."
                .into(),
        );
    }
    let now = |level: Option<&AccessLevel>| {
        if current.level.as_ref() == level {
            "now".to_string()
        } else {
            String::new()
        }
    };
    let offered = rule::offered(&target.resource);
    let mut choices: Vec<Choice> = offered
        .iter()
        .map(|level| Choice {
            id: level.as_str().to_string(),
            label: level.as_str().to_string(),
            note: now(Some(level)),
        })
        .collect();
    choices.push(Choice {
        id: UNSET.into(),
        label: "remove the rule (unset)".into(),
        note: if current.level.is_none() {
            "no rule now".into()
        } else {
            String::new()
        },
    });
    let mut intro = format!(
        "{}: {}",
        target.words(),
        current.level.as_ref().map_or("no rule", AccessLevel::as_str)
    );
    if current.managed {
        intro.push_str(
            "\nWarning: Terraform manages this rule and the project's lock is off: the next terraform apply puts it back unless its configuration changes too.",
        );
    }
    let mut chooser = Chooser::new("edit access".into(), intro, choices, false);
    let start = target.preselect.as_ref().or(current.level.as_ref());
    chooser.cursor = match start {
        Some(level) => offered.iter().position(|known| known == level).unwrap_or(0),
        None => offered.len(),
    };
    Ok(chooser)
}

/// The question before the write chosen, and whether Enter says no (the
/// rule lowered or removed); `Err` when nothing changes.
pub fn question(editing: &Editing, level: Option<&AccessLevel>) -> Result<(String, bool), String> {
    let target = &editing.target;
    let was = editing.current.level.as_ref();
    if was == level {
        return Err(format!(
            "{}: {} already, nothing to change",
            target.words(),
            was.map_or("no rule", AccessLevel::as_str)
        ));
    }
    let now = match was {
        Some(was) => format!("It is {was} now."),
        None => "There is no rule now.".to_string(),
    };
    let resource = &target.resource;
    let lowers = match (was, level) {
        (_, None) => true,
        (None, Some(level)) => {
            levels::rank(resource, level) < levels::rank(resource, &levels::default_level(resource))
        }
        (Some(was), Some(level)) => levels::rank(resource, level) < levels::rank(resource, was),
    };
    let question = match level {
        Some(level) => format!("Set {} to {level}? {now}", target.words()),
        None => format!("Remove {}? {now}", target.words()),
    };
    Ok((question, lowers))
}

impl super::state::Access {
    /// The rule `e` edits on the cell under the cursor: the row's own (a
    /// person's, a role's) on the column's project or resource.
    pub fn edit_target(&self) -> Result<Target, String> {
        let (Some((_, row)), Some(column)) = (self.selected(), self.selected_column()) else {
            return Err(String::new());
        };
        let project = self
            .projects()
            .get(column.project)
            .cloned()
            .ok_or_else(String::new)?;
        let resource = crate::access::grid::columns()
            .nth(column.column)
            .ok_or_else(String::new)?;
        let subject = match self.kind {
            crate::access::grid::Kind::People => Subject::Member(row.id.clone()),
            crate::access::grid::Kind::Roles => Subject::Role(row.id.clone()),
        };
        Ok(Target {
            project,
            resource: resource.to_string(),
            subject,
            whom: row.name.clone(),
            preselect: None,
        })
    }
}

impl crate::console::screens::person::page::Person {
    /// The rule `e` edits on the line under the cursor: the one a row of
    /// the Access section names.
    pub fn edit_target(&self) -> Result<Target, String> {
        use crate::console::screens::person::page::Item;
        match self.lines.selected() {
            Some(Item::Access(said)) if let Some(target) = &said.edit => Ok((**target).clone()),
            _ => Err("e edits a rule: on a project's or a resource's row of their Access section".into()),
        }
    }
}

impl Screens {
    /// `e` on the screen shown: the rule under the cursor edited, where
    /// one is.
    pub fn edit_rule_here(&mut self, ctx: &mut Ctx) -> Heard {
        let target = match ctx.shown {
            ScreenId::Access => self.access.edit_target(),
            ScreenId::Person => self.person.edit_target(),
            ScreenId::Grants => self.grants.edit_target(),
            ScreenId::Switch => self.switch.edit_target(),
            _ => Err(String::new()),
        };
        match target {
            Ok(target) => self.edit_rule(target, ctx),
            Err(why) if why.is_empty() => Heard::default(),
            Err(why) => Heard::step(Step::Say(Notice::done(why))),
        }
    }

    /// A rule to edit: read first, then the chooser.
    pub fn edit_rule(&mut self, target: Target, ctx: &mut Ctx) -> Heard {
        *ctx.notice = Some(Notice::working(format!("reading {}…", target.words())));
        let ticket = self.access.edits.issue();
        Heard::ask(Ask::Rule {
            ticket,
            organization: ctx.scope.organization.to_owned(),
            target: Box::new(target),
        })
    }

    /// The rule was read: the chooser, or why not.
    pub fn rule_read(&mut self, target: Target, result: Result<Current, String>, ctx: &mut Ctx) -> Heard {
        *ctx.dirty = true;
        let current = match result {
            Ok(current) => current,
            Err(error) => {
                *ctx.notice = Some(Notice::error(format!(
                    "{} could not be read, so nothing can be changed: {error}",
                    target.words()
                )));
                return Heard::default();
            }
        };
        *ctx.notice = None;
        match chooser(&target, &current) {
            Ok(chooser) => Heard::step(Step::Chooser(
                Box::new(chooser),
                Choosing::Rule(Box::new(Editing { target, current })),
            )),
            Err(why) => {
                *ctx.notice = Some(Notice::error(why));
                Heard::default()
            }
        }
    }

    /// A level chosen: the question before the write.
    pub fn rule_chosen(&mut self, editing: Editing, chosen: Option<&Choice>, ctx: &mut Ctx) -> Heard {
        let Some(choice) = chosen else {
            return Heard::default();
        };
        let level = (choice.id != UNSET).then(|| AccessLevel::from_wire(&choice.id));
        match question(&editing, level.as_ref()) {
            Err(said) => {
                *ctx.notice = Some(Notice::done(said));
                Heard::default()
            }
            Ok((question, lowers)) => {
                let write = Write::Rule {
                    target: editing.target,
                    level,
                    was: editing.current.level,
                };
                Heard::step(Step::Confirm(Confirm::write(
                    question,
                    AnyWrite::Access(write),
                    lowers,
                )))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(resource: &str, subject: Subject) -> Target {
        Target {
            project: ProjectRef {
                id: 1,
                name: "Hedgebox Web".into(),
            },
            resource: resource.into(),
            subject,
            whom: "Contractors".into(),
            preselect: None,
        }
    }

    #[test]
    fn the_chooser_offers_levels_within_bounds_and_marks_the_current_one() {
        let current = Current {
            level: Some(AccessLevel::Viewer),
            role_based_access: true,
            ..Current::default()
        };
        let chooser = chooser(&target("toolbar", Subject::Role("r".into())), &current).unwrap();
        let ids: Vec<&str> = chooser.choices.iter().map(|choice| choice.id.as_str()).collect();
        assert_eq!(ids, ["none", "viewer", UNSET]);
        assert_eq!(chooser.cursor, 1);
        assert_eq!(chooser.choices[1].note, "now");
        assert!(
            chooser
                .intro
                .starts_with("Contractors' rule on toolbar in Hedgebox Web (1): viewer")
        );
    }

    #[test]
    fn a_locked_managed_rule_and_a_plan_without_roles_are_refused() {
        let locked = Current {
            level: Some(AccessLevel::Viewer),
            managed: true,
            locked: true,
            role_based_access: true,
        };
        let refused = chooser(&target("dashboard", Subject::Everyone), &locked).unwrap_err();
        assert!(refused.ends_with(LOCKED));
        let no_roles = Current::default();
        assert!(chooser(&target("dashboard", Subject::Role("r".into())), &no_roles).is_err());
        let warned = Current {
            locked: false,
            ..locked
        };
        let chooser = chooser(&target("dashboard", Subject::Everyone), &warned).unwrap();
        assert!(chooser.intro.contains("Terraform manages this rule"));
    }

    #[test]
    fn lowering_or_removing_asks_with_enter_meaning_no() {
        let editing = Editing {
            target: target("dashboard", Subject::Everyone),
            current: Current {
                level: Some(AccessLevel::Editor),
                ..Current::default()
            },
        };
        assert!(question(&editing, Some(&AccessLevel::Editor)).is_err());
        assert!(question(&editing, Some(&AccessLevel::Viewer)).unwrap().1);
        assert!(question(&editing, None).unwrap().1);
        let (words, lowers) = question(&editing, Some(&AccessLevel::Manager)).unwrap();
        assert!(!lowers);
        assert_eq!(
            words,
            "Set Contractors' rule on dashboards in Hedgebox Web (1) to manager? It is editor now."
        );
    }
}
