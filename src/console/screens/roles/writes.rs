//! What the Roles screen asks the server to change: a role created, saved
//! or deleted (one at a time, or marked and deleted in bulk), each sent
//! over the one client, and the news a write gives the other screens.
//!
//! The console's `Write` holds these as its `Role` variant; the answer
//! lands on the Roles table (its rows, its cursor) where the table lives
//! until the list moves into this folder.

use crate::api::{self, Client, Role, RoleInput};
use crate::console::screens::Change;
use crate::console::screens::write::{Landed, Written};

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
