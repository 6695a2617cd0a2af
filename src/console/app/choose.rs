//! What is done to people, one or several (the People list's row, or
//! the person of a page): `a` adds them to roles, `L` changes a level, each
//! through a small chooser and a question; and what the role index and the
//! page learn from a membership made or deleted, or a level changed, is
//! theirs (`screens/people/news.rs`).

use ratatui::crossterm::event::KeyEvent;

use super::{App, Confirm, Effect, Mode, Notice, ScreenId, Write};
use crate::api::models::level;
pub(super) use crate::console::kit::person::{level_word, named};
use crate::console::lists::AnyTable;
use crate::console::lists::picker::Person;
use crate::console::screens::bulk::{Bulk, Item};
use crate::console::screens::people::Write as PeopleWrite;
use crate::console::widgets::chooser::{Choice, Chooser, Outcome};
use crate::people::RoleRef;

/// What a [`super::Mode::Chooser`] chooses for.
#[derive(Debug, Clone, PartialEq)]
pub enum Choosing {
    /// Roles to add these people to (the choices' ids are role ids).
    Roles { people: Vec<Person> },
    /// A member's level (the choices' ids are levels).
    Level { person: Person, level: i64 },
}

/// "Data", "Data and On-call", "Data, Finance and On-call".
fn listed(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

impl App {
    /// The people `a`, `L` and `O` act on: the row under the cursor on
    /// People, the person on their page.
    fn acted_on_people(&self) -> Vec<(Person, Option<i64>)> {
        match self.shown() {
            // The marked people, else the one under the cursor.
            ScreenId::People if self.screens.people.marked() > 0 => self
                .screens
                .people
                .marked_rows()
                .into_iter()
                .map(|member| (named(member), Some(member.level)))
                .collect(),
            ScreenId::People => self
                .screens
                .people
                .selected()
                .map(|member| vec![(named(member), Some(member.level))])
                .unwrap_or_default(),
            ScreenId::Person | ScreenId::Offboard => {
                let page = &self.screens.person;
                let level = page
                    .resource
                    .profile
                    .as_ref()
                    .and_then(|profile| profile.member.as_ref().map(|member| member.level));
                match (page.person(), &page.resource.profile) {
                    (Some((uuid, _, _)), Some(profile)) if let Some(member) = &profile.member => {
                        vec![(
                            Person {
                                uuid,
                                ..named(member)
                            },
                            level,
                        )]
                    }
                    (Some((uuid, name, email)), _) => vec![(
                        Person {
                            label: format!("{name} <{email}>"),
                            uuid,
                        },
                        level,
                    )],
                    (None, _) => Vec::new(),
                }
            }
            _ => Vec::new(),
        }
    }

    /// `a`: the roles to add the people under the cursor to.
    pub(super) fn choose_roles_here(&mut self) -> Vec<Effect> {
        let people: Vec<Person> = self
            .acted_on_people()
            .into_iter()
            .map(|(person, _)| person)
            .collect();
        self.choose_roles(people)
    }

    /// `a` for some people: a multi-select of the roles not all of them hold.
    pub(super) fn choose_roles(&mut self, people: Vec<Person>) -> Vec<Effect> {
        if people.is_empty() {
            return Vec::new();
        }
        let Some(index) = self.screens.people.resource.index.clone() else {
            self.notice = Some(Notice::done(
                "who holds which role is still being read: a works once it is in".into(),
            ));
            return Vec::new();
        };
        let choices: Vec<Choice> = index
            .roles
            .iter()
            .filter(|role| {
                !people
                    .iter()
                    .all(|person| index.of(&person.uuid).iter().any(|held| held.id == role.id))
            })
            .map(|role| Choice {
                id: role.id.clone(),
                label: role.name.clone(),
                note: format!(
                    "{} {}",
                    index.size(&role.id),
                    if index.size(&role.id) == 1 {
                        "person"
                    } else {
                        "people"
                    }
                ),
            })
            .collect();
        let who = match people.as_slice() {
            [one] => one.label.clone(),
            many => format!("{} people", many.len()),
        };
        if choices.is_empty() {
            self.notice = Some(Notice::done(format!("{who}: in every role already")));
            return Vec::new();
        }
        let chooser = Chooser::new(
            "add to roles".into(),
            format!("Add {who} to the roles marked:"),
            choices,
            true,
        );
        self.mode = Mode::Chooser(Box::new(chooser), Choosing::Roles { people });
        Vec::new()
    }

    /// `L`: the level of the person under the cursor.
    pub(super) fn choose_level_here(&mut self) -> Vec<Effect> {
        let Some((person, level)) = self.acted_on_people().into_iter().next() else {
            return Vec::new();
        };
        let Some(level) = level else {
            self.notice = Some(Notice::error(format!(
                "{} is not a member of the organization",
                person.label
            )));
            return Vec::new();
        };
        self.choose_level(person, level)
    }

    /// A one-of chooser of the levels, the current one said.
    pub(super) fn choose_level(&mut self, person: Person, current: i64) -> Vec<Effect> {
        let choices: Vec<Choice> = [level::MEMBER, level::ADMIN, level::OWNER]
            .into_iter()
            .map(|choice| Choice {
                id: choice.to_string(),
                label: level::name(choice).into(),
                note: if choice == current {
                    "now".into()
                } else {
                    String::new()
                },
            })
            .collect();
        let mut chooser = Chooser::new(
            "level".into(),
            format!("{}'s level in the organization:", person.label),
            choices,
            false,
        );
        chooser.cursor = [level::MEMBER, level::ADMIN, level::OWNER]
            .iter()
            .position(|choice| *choice == current)
            .unwrap_or(0);
        self.mode = Mode::Chooser(
            Box::new(chooser),
            Choosing::Level {
                person,
                level: current,
            },
        );
        Vec::new()
    }

    pub(super) fn chooser_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let Mode::Chooser(chooser, _) = &mut self.mode else {
            return Vec::new();
        };
        let chosen = match chooser.key(key) {
            Outcome::Choosing => return Vec::new(),
            Outcome::Cancel => {
                self.mode = Mode::Normal;
                return Vec::new();
            }
            Outcome::Chosen(chosen) => chosen,
        };
        let Mode::Chooser(chooser, purpose) = std::mem::replace(&mut self.mode, Mode::Normal) else {
            return Vec::new();
        };
        let picked: Vec<&Choice> = chosen.iter().filter_map(|at| chooser.choices.get(*at)).collect();
        let organization = self.context.organization.clone();
        match purpose {
            Choosing::Roles { people } => {
                let roles: Vec<RoleRef> = picked
                    .iter()
                    .map(|choice| RoleRef {
                        id: choice.id.clone(),
                        name: choice.label.clone(),
                    })
                    .collect();
                let names: Vec<String> = roles.iter().map(|role| role.name.clone()).collect();
                if self.shown() == ScreenId::People && self.screens.people.marked() > 0 {
                    // Marked people: a bulk action, one write a person, each
                    // reported; those refused stay marked.
                    let items = people
                        .into_iter()
                        .map(|person| Item {
                            id: person.uuid.clone(),
                            label: person.label.clone(),
                            write: Write::People(PeopleWrite::AddToRoles {
                                organization: organization.clone(),
                                people: vec![person],
                                roles: roles.clone(),
                            }),
                            done: "added",
                        })
                        .collect::<Vec<_>>();
                    let title = format!(
                        "Add {} to {} {}",
                        if items.len() == 1 {
                            "1 person".to_string()
                        } else {
                            format!("{} people", crate::text::thousands(items.len() as u64))
                        },
                        if roles.len() == 1 { "the role" } else { "the roles" },
                        listed(&names)
                    );
                    let bulk = Bulk {
                        question: format!("{title}?\nEach person is added to each role, each reported."),
                        title,
                        harmful: false,
                        items,
                        skipped: Vec::new(),
                    };
                    self.ask_bulk(bulk);
                    return Vec::new();
                }
                let who: Vec<String> = people.iter().map(|person| person.label.clone()).collect();
                let adds = people.len() * roles.len();
                self.mode = Mode::Confirm(Confirm::write(
                    format!(
                        "Add {} to {} {}?\n{adds} membership{} will be made, each reported.",
                        listed(&who),
                        if roles.len() == 1 { "the role" } else { "the roles" },
                        listed(&names),
                        crate::text::plural(adds)
                    ),
                    Write::People(PeopleWrite::AddToRoles {
                        organization,
                        people,
                        roles,
                    }),
                    false,
                ));
            }
            Choosing::Level { person, level } => {
                let Some(wanted) = picked.first().and_then(|choice| choice.id.parse::<i64>().ok()) else {
                    return Vec::new();
                };
                if wanted == level {
                    self.notice = Some(Notice::done(format!(
                        "{} is {} already",
                        person.label,
                        level_word(level)
                    )));
                    return Vec::new();
                }
                self.mode = Mode::Confirm(Confirm::write(
                    format!(
                        "Make {} {}? They are {} now.",
                        person.label,
                        level_word(wanted),
                        level_word(level)
                    ),
                    Write::People(PeopleWrite::SetLevel {
                        organization,
                        person,
                        level: wanted,
                    }),
                    true,
                ));
            }
        }
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_levels_read_as_words() {
        assert_eq!(listed(&["Data".into()]), "Data");
        assert_eq!(listed(&["A".into(), "B".into(), "C".into()]), "A, B and C");
        assert_eq!(level_word(level::ADMIN), "an admin");
        assert_eq!(level_word(level::OWNER), "an owner");
        assert_eq!(level_word(level::MEMBER), "a member");
    }
}
