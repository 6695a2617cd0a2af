//! What the Members screen asks the server to change: people assigned to
//! the role it shows (from the member picker), and a membership removed
//! (one at a time, from a person's page too, or marked and removed in
//! bulk), each over the one client, and the news each is for the other
//! screens.

use crate::api::{self, Client};
use crate::console::kit::person::Person;
use crate::console::screens::Change;
use crate::console::screens::write::{Landed, Written, add_each};

/// A change to a role's memberships.
#[derive(Debug, Clone, PartialEq)]
pub enum Write {
    /// A membership (by id) of a role deleted.
    Remove {
        organization: String,
        role: String,
        id: String,
    },
    /// People into the role: one request per person, each with its own
    /// result (`Written::Assigned`).
    Assign {
        organization: String,
        role: String,
        people: Vec<Person>,
    },
}

impl Write {
    /// What the write does, in words, for a question.
    pub fn summary(&self) -> String {
        match self {
            Write::Remove { .. } => "Remove the member from the role".into(),
            Write::Assign { people, .. } => format!(
                "Assign {} {} to the role",
                people.len(),
                if people.len() == 1 { "person" } else { "people" }
            ),
        }
    }

    /// Sends it: one request, or one per person.
    pub async fn send(&self, client: &Client) -> Result<Written, api::Error> {
        match self {
            Write::Remove {
                organization,
                role,
                id,
            } => client
                .remove_member(organization, role, id)
                .await
                .map(|()| Written::Deleted),
            Write::Assign {
                organization,
                role,
                people,
            } => {
                let adds = people
                    .iter()
                    .map(|person| (person.label.clone(), role.clone(), person.uuid.clone()))
                    .collect();
                Ok(add_each(client, organization, adds).await)
            }
        }
    }

    /// The news its success is for every screen: a membership gone, or
    /// each one made.
    pub fn changes(&self, written: &Written) -> Vec<Change> {
        match (self, written) {
            (Write::Remove { role, id, .. }, Written::Deleted) => vec![Change::Left {
                role: role.clone(),
                membership: id.clone(),
            }],
            (Write::Assign { .. }, Written::Assigned(results)) => joined(results),
            _ => Vec::new(),
        }
    }
}

impl Write {
    /// What its answer does: its news and the notice; the picker that
    /// assigned people closes. Those refused are named in a notice that
    /// stays.
    pub fn land(&self, written: Written) -> Landed {
        let changes = self.changes(&written);
        match (self, &written) {
            (Write::Remove { .. }, Written::Deleted) => Landed::done("removed from the role"),
            (Write::Assign { .. }, Written::Assigned(results)) => {
                let (added, failed) = sorted(results);
                let mut text = format!("assigned {}", added.len());
                if !added.is_empty() {
                    text.push_str(&format!(" ({})", added.join(", ")));
                }
                match failed.is_empty() {
                    true => Landed::done(text),
                    false => Landed::failed(format!("{text}; not assigned: {}", failed.join("; "))),
                }
                .closing()
            }
            _ => return Landed::unfit(self, &written),
        }
        .with(changes)
    }
}

/// The rows of a write of several requests: what was done, and what was
/// not with why.
pub(crate) fn sorted(
    results: &[(String, Result<api::RoleMembership, String>)],
) -> (Vec<String>, Vec<String>) {
    let mut done = Vec::new();
    let mut failed = Vec::new();
    for (what, result) in results {
        match result {
            Ok(_) => done.push(what.clone()),
            Err(reason) => failed.push(format!("{what}: {reason}")),
        }
    }
    (done, failed)
}

/// The memberships a write of several requests made.
pub(crate) fn joined(results: &[(String, Result<api::RoleMembership, String>)]) -> Vec<Change> {
    results
        .iter()
        .filter_map(|(_, result)| result.as_ref().ok())
        .map(|membership| Change::Joined(Box::new(membership.clone())))
        .collect()
}
