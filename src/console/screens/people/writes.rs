//! What the People screen and a person's page ask the server to change:
//! people added to roles (the marked people of People's `a`, or the
//! person on their page), and a member's level, each over the one client,
//! and the news each is for the other screens.

use crate::access::preview::{Change as AccessChange, Proposed};
use crate::api::{self, Client};
use crate::console::kit::person::Person;
use crate::console::kit::person::{level_word, named};
use crate::console::screens::Change;
use crate::console::screens::members::writes::{joined, sorted};
use crate::console::screens::write::{self, Landed, Written, add_each};
use crate::people::RoleRef;

/// A change to people's roles or level.
#[derive(Debug, Clone, PartialEq)]
pub enum Write {
    /// People into roles: one request per person and role, each with its
    /// own result (`Written::Assigned`).
    AddToRoles {
        organization: String,
        people: Vec<Person>,
        roles: Vec<RoleRef>,
    },
    /// A member's level (1 member, 8 admin, 15 owner).
    SetLevel {
        organization: String,
        person: Person,
        level: i64,
    },
}

impl Write {
    /// The change it makes to who reaches what, to preview before it is
    /// sent: each person into each role, or a member's level (people named
    /// by their user UUID until the preview reads them).
    pub fn access_change(&self) -> Option<Proposed> {
        match self {
            Write::AddToRoles { people, roles, .. } => Some(write::proposed(
                AccessChange::Batch(
                    people
                        .iter()
                        .flat_map(|person| {
                            roles.iter().map(|role| AccessChange::Join {
                                role_id: role.id.to_lowercase(),
                                membership_id: person.uuid.to_lowercase(),
                            })
                        })
                        .collect(),
                ),
                people.iter().map(|person| person.uuid.as_str()),
            )),
            Write::SetLevel { person, level, .. } => Some(write::proposed(
                AccessChange::Level {
                    membership_id: person.uuid.to_lowercase(),
                    level: *level,
                },
                [person.uuid.as_str()],
            )),
        }
    }

    /// What the write does, in words, for a question.
    pub fn summary(&self) -> String {
        match self {
            Write::AddToRoles { people, roles, .. } => format!(
                "Add {} {} to {} role{}",
                people.len(),
                if people.len() == 1 { "person" } else { "people" },
                roles.len(),
                crate::text::plural(roles.len())
            ),
            Write::SetLevel { person, level, .. } => format!(
                "Make {} {}",
                person.label,
                crate::api::models::level::name(*level)
            ),
        }
    }

    /// Sends it: one request per person and role, or one.
    pub async fn send(&self, client: &Client) -> Result<Written, api::Error> {
        match self {
            Write::AddToRoles {
                organization,
                people,
                roles,
            } => {
                let adds = people
                    .iter()
                    .flat_map(|person| {
                        roles.iter().map(move |role| {
                            (
                                format!("{} to {}", person.label, role.name),
                                role.id.clone(),
                                person.uuid.clone(),
                            )
                        })
                    })
                    .collect();
                Ok(add_each(client, organization, adds).await)
            }
            Write::SetLevel {
                organization,
                person,
                level,
            } => client
                .set_member_level(organization, &person.uuid, *level)
                .await
                .map(|member| Written::Member(Box::new(member.into_typed()))),
        }
    }

    /// The news its success is for every screen: each membership made, or
    /// the member as they are now.
    pub fn changes(&self, written: &Written) -> Vec<Change> {
        match (self, written) {
            (Write::AddToRoles { .. }, Written::Assigned(results)) => joined(results),
            (Write::SetLevel { .. }, Written::Member(member)) => vec![Change::MemberChanged(member.clone())],
            _ => Vec::new(),
        }
    }

    /// What its answer does: its news and the notice; those refused are
    /// named in a notice that stays.
    pub fn land(&self, written: Written) -> Landed {
        let changes = self.changes(&written);
        match (self, &written) {
            (Write::AddToRoles { .. }, Written::Assigned(results)) => {
                let (added, failed) = sorted(results);
                let mut text = format!("added {}", added.len());
                if !added.is_empty() {
                    text.push_str(&format!(": {}", added.join("; ")));
                }
                match failed.is_empty() {
                    true => Landed::done(text),
                    false => Landed::failed(format!("{text}; not added: {}", failed.join("; "))),
                }
            }
            (Write::SetLevel { .. }, Written::Member(member)) => Landed::done(format!(
                "{} is now {}",
                named(member).label,
                level_word(member.level)
            )),
            _ => return Landed::unfit(self, &written),
        }
        .with(changes)
    }
}
