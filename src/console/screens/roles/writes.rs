//! What the Roles screen asks the server to change: a role created, saved
//! or deleted (one at a time, or marked and deleted in bulk), each sent
//! over the one client, and the news a write gives the other screens.
//!
//! The console's `Write` holds these as its `Role` variant; the answer
//! lands on the Roles table (its rows, its cursor) where the table lives
//! until the list moves into this folder.

use crate::api::{self, Client, Role, RoleInput};
use crate::console::screens::Change;

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
    /// The role and its memberships.
    Delete {
        organization: String,
        id: String,
    },
}

/// What the server answered a role write.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// The role as the server now holds it (created or saved).
    Saved(Box<Role>),
    Deleted,
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
    pub async fn send(&self, client: &Client) -> Result<Answer, api::Error> {
        let saved = |role: api::Raw<Role>| Answer::Saved(Box::new(role.into_typed()));
        match self {
            Write::Create { organization, input } => client.create_role(organization, input).await.map(saved),
            Write::Update {
                organization,
                id,
                input,
            } => client.update_role(organization, id, input).await.map(saved),
            Write::Delete { organization, id } => client
                .delete_role(organization, id)
                .await
                .map(|()| Answer::Deleted),
        }
    }

    /// The role it changes; `None` for one not yet made.
    pub fn role(&self) -> Option<&str> {
        match self {
            Write::Create { .. } => None,
            Write::Update { id, .. } | Write::Delete { id, .. } => Some(id),
        }
    }

    /// The news its success is for the other screens: a deleted role
    /// closes whatever shows its members.
    pub fn change(&self) -> Option<Change> {
        match self {
            Write::Delete { id, .. } => Some(Change::RoleDeleted { role: id.clone() }),
            Write::Create { .. } | Write::Update { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_deletion_is_news() {
        let delete = Write::Delete {
            organization: "o".into(),
            id: "r1".into(),
        };
        assert!(matches!(delete.change(), Some(Change::RoleDeleted { role }) if role == "r1"));
        let update = Write::Update {
            organization: "o".into(),
            id: "r1".into(),
            input: RoleInput::default(),
        };
        assert!(update.change().is_none());
        assert_eq!(delete.summary(), "Delete the role");
    }
}
