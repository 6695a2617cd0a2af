//! What the Roles screen asks the server to change: a role created, saved
//! or deleted (one at a time, or marked and deleted in bulk, each behind
//! its question), each sent over the one client, the news a write gives
//! every screen, and how its answer lands.
//!
//! The console's `Write` holds these as its `Role` variant; the answer
//! lands on the Roles table (its rows, its cursor).

use crate::access::preview::{Change as AccessChange, Proposed};
use crate::api::{self, Client, Role, RoleInput};
use crate::console::kit::scope::Scope;
use crate::console::screens::Change;
use crate::console::screens::bulk::{Bulk, Item, Verb};
use crate::console::screens::write::{self, Confirm, Landed, Written};

/// A change to the organization's roles.
#[derive(Debug, Clone, PartialEq)]
pub enum Write {
    Create {
        organization: String,
        input: RoleInput,
    },
    /// Only the fields that changed.
    Update {
        organization: String,
        id: String,
        input: RoleInput,
    },
    /// The role and its memberships; its name, for the notice.
    Delete {
        organization: String,
        id: String,
        name: String,
    },
}

impl Write {
    /// The change it makes to who reaches what, to preview before it is
    /// sent: a role deleted takes its memberships and its rules with it,
    /// so everyone's access is read. Making or saving a role moves none.
    pub fn access_change(&self) -> Option<Proposed> {
        match self {
            Write::Delete { id, .. } => Some(Proposed {
                change: AccessChange::DeleteRole {
                    role_id: id.to_lowercase(),
                },
                people: crate::access::directory::People::Everyone,
                project: None,
                object: None,
            }),
            Write::Create { .. } | Write::Update { .. } => None,
        }
    }

    /// What the write does, in words, for a question.
    pub fn summary(&self) -> String {
        match self {
            Write::Create { input, .. } => format!(
                "Create the role \"{}\"",
                input.name.as_deref().unwrap_or_default()
            ),
            Write::Update { .. } => "Save the role".into(),
            Write::Delete { .. } => "Delete the role".into(),
        }
    }

    /// Sends it: one request.
    pub async fn send(&self, client: &Client) -> Result<Written, api::Error> {
        let saved = |role: api::Raw<Role>| Written::Role(Box::new(role.into_typed()));
        match self {
            Write::Create { organization, input } => client.create_role(organization, input).await.map(saved),
            Write::Update {
                organization,
                id,
                input,
            } => client.update_role(organization, id, input).await.map(saved),
            Write::Delete { organization, id, .. } => client
                .delete_role(organization, id)
                .await
                .map(|()| Written::Deleted),
        }
    }

    /// The role it changes; `None` for one not yet made.
    pub fn role(&self) -> Option<&str> {
        match self {
            Write::Create { .. } => None,
            Write::Update { id, .. } | Write::Delete { id, .. } => Some(id),
        }
    }

    /// The news its success is for every screen: a role made, saved or
    /// deleted (Roles' rows change as they hear it; a deleted role closes
    /// whatever shows its members).
    pub fn changes(&self, written: &Written) -> Vec<Change> {
        match (self, written) {
            (Write::Create { .. }, Written::Role(role)) => vec![Change::RoleMade(role.clone())],
            (Write::Update { .. }, Written::Role(role)) => vec![Change::RoleSaved(role.clone())],
            (Write::Delete { id, .. }, Written::Deleted) => vec![Change::RoleDeleted { role: id.clone() }],
            _ => Vec::new(),
        }
    }

    /// What its answer does: its news, the notice, and the form that
    /// made or saved the role closing.
    pub fn land(&self, written: Written) -> Landed {
        let changes = self.changes(&written);
        match (self, &written) {
            (Write::Create { .. }, Written::Role(role)) => {
                Landed::done(format!("created the role {}", role.name)).closing()
            }
            (Write::Update { .. }, Written::Role(role)) => {
                Landed::done(format!("saved the role {}", role.name)).closing()
            }
            (Write::Delete { name, .. }, Written::Deleted) => {
                Landed::done(format!("deleted the role {name}").trim_end().to_string())
            }
            _ => return Landed::unfit(self, &written),
        }
        .with(changes)
    }
}

/// How many memberships a role has, as far as its row says.
pub fn members(role: &Role) -> usize {
    role.members.as_ref().and_then(|m| m.len()).unwrap_or(0)
}

/// `d` on a role: the question before deleting it and its memberships.
pub fn ask_delete(role: &Role, scope: Scope) -> Confirm {
    let members = members(role);
    let question = format!(
        "Delete the role {} and its {members} membership{}?",
        role.name,
        if members == 1 { "" } else { "s" }
    );
    Confirm::write(question, write::Write::Role(delete(role, scope)), true)
}

/// `d` on marked roles deletes them all, with their memberships; `None`
/// for the other bulk keys.
pub fn bulk(verb: Verb, rows: &[&Role], scope: Scope) -> Option<Result<Bulk, String>> {
    if verb != Verb::Delete {
        return None;
    }
    let items: Vec<Item> = rows
        .iter()
        .map(|role| Item {
            id: role.id.clone(),
            label: role.name.clone(),
            write: write::Write::Role(delete(role, scope)),
            done: "deleted",
        })
        .collect();
    let memberships: usize = rows.iter().map(|role| members(role)).sum();
    let title = format!("Delete {}", crate::text::counted(items.len(), "role"));
    let more = [format!(
        "Their {} go with them.",
        crate::text::counted(memberships, "membership")
    )];
    Some(Ok(Bulk::new(title, &more, true, items, Vec::new())))
}

fn delete(role: &Role, scope: Scope) -> Write {
    Write::Delete {
        organization: scope.organization.to_string(),
        id: role.id.clone(),
        name: role.name.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_write_is_news_and_a_deletion_names_the_role() {
        let delete = Write::Delete {
            organization: "o".into(),
            id: "r1".into(),
            name: "Data".into(),
        };
        let landed = delete.land(Written::Deleted);
        assert!(matches!(&landed.changes[..], [Change::RoleDeleted { role }] if role == "r1"));
        assert_eq!(landed.said, Some(Ok("deleted the role Data".into())));
        assert!(!landed.closes);
        let update = Write::Update {
            organization: "o".into(),
            id: "r1".into(),
            input: RoleInput::default(),
        };
        let saved = Role {
            name: "Finance".into(),
            ..Role::default()
        };
        let landed = update.land(Written::Role(Box::new(saved)));
        assert!(matches!(&landed.changes[..], [Change::RoleSaved(role)] if role.name == "Finance"));
        assert!(landed.closes);
        assert_eq!(delete.summary(), "Delete the role");
    }
}
