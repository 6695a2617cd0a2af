//! What the Members screen asks the server to change: people assigned to
//! the role it shows (from the member picker), and a membership removed
//! (one at a time, from a person's page too, or marked and removed in
//! bulk), each over the one client, and the news each is for the other
//! screens.

use crate::access::preview::{Change as AccessChange, Proposed};
use crate::api::{self, Client};
use crate::console::kit::person::Person;
use crate::console::kit::scope::Scope;
use crate::console::screens::Change;
use crate::console::screens::bulk::{Bulk, Item, Verb};
use crate::console::screens::write::{self, Confirm, Landed, Written, add_each};

/// A change to a role's memberships.
#[derive(Debug, Clone, PartialEq)]
pub enum Write {
    /// A membership (by id) of a role deleted; whose it is (their user
    /// UUID, empty when unknown), for the preview of who loses access.
    Remove {
        organization: String,
        role: String,
        id: String,
        user: String,
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
                ..
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
    /// The change it makes to who reaches what, to preview before it is
    /// sent: someone leaving the role, or each person joining it (people
    /// named by their user UUID until the preview reads them).
    pub fn access_change(&self) -> Option<Proposed> {
        let change = |user: &str, role: &str, join: bool| {
            let (role_id, membership_id) = (role.to_lowercase(), user.to_lowercase());
            match join {
                true => AccessChange::Join {
                    role_id,
                    membership_id,
                },
                false => AccessChange::Leave {
                    role_id,
                    membership_id,
                },
            }
        };
        match self {
            Write::Remove { role, user, .. } if !user.is_empty() => {
                Some(write::proposed(change(user, role, false), [user.as_str()]))
            }
            Write::Remove { .. } => None,
            Write::Assign { role, people, .. } => Some(write::proposed(
                AccessChange::Batch(
                    people
                        .iter()
                        .map(|person| change(&person.uuid, role, true))
                        .collect(),
                ),
                people.iter().map(|person| person.uuid.as_str()),
            )),
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

/// `Ada Okafor <ada@hedgebox.dev>`: a member of a role in questions and
/// results.
pub fn person(membership: &api::RoleMembership) -> String {
    let user = membership.user.clone().unwrap_or_default();
    format!("{} <{}>", user.display_name(), user.email)
}

/// The role a membership is of: its id, and its name for the question.
#[derive(Debug, Clone, Copy)]
pub struct OfRole<'a> {
    pub id: &'a str,
    pub name: &'a str,
}

/// `d` on a membership (on Members, or a role on a person's page): the
/// question before `who` leaves the role.
pub fn ask_remove(who: &str, role: OfRole<'_>, membership: &str, user: &str, scope: Scope) -> Confirm {
    let question = format!("Remove {who} from the role {}?", role.name);
    Confirm::write(
        question,
        write::Write::Member(remove(role, membership, user, scope)),
        true,
    )
}

/// `d` on marked members removes them all from the role (`None` for the
/// other bulk keys; nothing to do with no role open).
pub fn bulk(
    verb: Verb,
    role: Option<OfRole<'_>>,
    rows: &[&api::RoleMembership],
    scope: Scope,
) -> Option<Result<Bulk, String>> {
    if verb != Verb::Delete {
        return None;
    }
    let Some(role) = role else {
        return Some(Err("open a role's members first".into()));
    };
    let items: Vec<Item> = rows
        .iter()
        .map(|membership| Item {
            id: membership.id.clone(),
            label: person(membership),
            write: write::Write::Member(remove(role, &membership.id, user_uuid(membership), scope)),
            done: "removed from the role",
        })
        .collect();
    let title = format!(
        "Remove {} from the role {}",
        crate::text::counted(items.len(), "member"),
        role.name
    );
    let more = ["They keep their other roles and stay in the organization.".to_string()];
    Some(Ok(Bulk::new(title, &more, true, items, Vec::new())))
}

fn remove(role: OfRole<'_>, membership: &str, user: &str, scope: Scope) -> Write {
    Write::Remove {
        organization: scope.organization.to_string(),
        role: role.id.to_string(),
        id: membership.to_string(),
        user: user.to_string(),
    }
}

/// The user UUID of a membership's member, empty when the server did not
/// say it.
pub fn user_uuid(membership: &api::RoleMembership) -> &str {
    membership
        .user
        .as_ref()
        .map(|user| user.uuid.as_str())
        .or(membership.user_uuid.as_deref())
        .unwrap_or_default()
}
