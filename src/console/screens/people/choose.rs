//! What is done to people, one or several (People's marked rows or the
//! row under the cursor, or the person of a page or an offboarding): `a`
//! adds them to roles, `L` changes a level, each through a small chooser
//! (the shell's overlay, `Mode::Chooser`) and a question. What is chosen
//! and asked is People's, lent a [`Ctx`]; the shell draws the chooser,
//! takes its keys and hands back what was chosen ([`Screens::chosen`]).

use super::Write as PeopleWrite;
use crate::api::models::level;
use crate::console::kit::notice::Notice;
use crate::console::kit::person::{Person, level_word, named};
use crate::console::screens::bulk::{Bulk, Item};
use crate::console::screens::heard::{Heard, Step};
use crate::console::screens::list::List;
use crate::console::screens::write::{Confirm, Write};
use crate::console::screens::{Ctx, ScreenId, Screens};
use crate::console::widgets::chooser::{Choice, Chooser};
use crate::people::RoleRef;

/// What a chooser (`Mode::Chooser`) chooses for.
#[derive(Debug, Clone, PartialEq)]
pub enum Choosing {
    /// Roles to add these people to (the choices' ids are role ids).
    Roles { people: Vec<Person> },
    /// A member's level (the choices' ids are levels).
    Level { person: Person, level: i64 },
    /// A rule's level (`e` on a rule: `access/edit.rs`; the choices' ids
    /// are levels, or `unset`).
    Rule(Box<crate::console::screens::access::edit::Editing>),
}

/// "Data", "Data and On-call", "Data, Finance and On-call".
fn listed(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

impl Screens {
    /// The people `a`, `L` and `O` act on: the row under the cursor on
    /// People, the person on their page.
    fn acted_on_people(&self, shown: ScreenId) -> Vec<(Person, Option<i64>)> {
        match shown {
            // The marked people, else the one under the cursor.
            ScreenId::People if self.people.marked() > 0 => self
                .people
                .marked_rows()
                .into_iter()
                .map(|member| (named(member), Some(member.level)))
                .collect(),
            ScreenId::People => self
                .people
                .selected()
                .map(|member| vec![(named(member), Some(member.level))])
                .unwrap_or_default(),
            ScreenId::Person | ScreenId::Offboard => {
                let page = &self.person;
                let level = page
                    .profile
                    .as_ref()
                    .and_then(|profile| profile.member.as_ref().map(|member| member.level));
                match (page.person(), &page.profile) {
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
    pub fn choose_roles_here(&mut self, ctx: &mut Ctx) -> Heard {
        let people: Vec<Person> = self
            .acted_on_people(ctx.shown)
            .into_iter()
            .map(|(person, _)| person)
            .collect();
        self.choose_roles(people, ctx)
    }

    /// `a` for some people: a multi-select of the roles not all of them hold.
    fn choose_roles(&mut self, people: Vec<Person>, ctx: &mut Ctx) -> Heard {
        if people.is_empty() {
            return Heard::default();
        }
        let Some(index) = self.people.role_index() else {
            *ctx.notice = Some(Notice::done(
                "who holds which role is still being read: a works once it is in".into(),
            ));
            return Heard::default();
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
            *ctx.notice = Some(Notice::done(format!("{who}: in every role already")));
            return Heard::default();
        }
        let chooser = Chooser::new(
            "add to roles".into(),
            format!("Add {who} to the roles marked:"),
            choices,
            true,
        );
        Heard::step(Step::Chooser(Box::new(chooser), Choosing::Roles { people }))
    }

    /// `L`: the level of the person under the cursor.
    pub fn choose_level_here(&mut self, ctx: &mut Ctx) -> Heard {
        let Some((person, level)) = self.acted_on_people(ctx.shown).into_iter().next() else {
            return Heard::default();
        };
        let Some(level) = level else {
            *ctx.notice = Some(Notice::error(format!(
                "{} is not a member of the organization",
                person.label
            )));
            return Heard::default();
        };
        choose_level(person, level)
    }

    /// What was chosen: the question before the writes (one bulk action
    /// for People's marked rows).
    pub fn chosen(&mut self, chooser: &Chooser, chosen: &[usize], purpose: Choosing, ctx: &mut Ctx) -> Heard {
        let picked: Vec<&Choice> = chosen.iter().filter_map(|at| chooser.choices.get(*at)).collect();
        let organization = ctx.scope.organization.to_owned();
        match purpose {
            Choosing::Roles { people } => {
                let roles: Vec<RoleRef> = picked
                    .iter()
                    .map(|choice| RoleRef {
                        id: choice.id.clone(),
                        name: choice.label.clone(),
                    })
                    .collect();
                if ctx.shown == ScreenId::People && self.people.marked() > 0 {
                    return add_marked_to_roles(people, roles, organization);
                }
                add_to_roles(people, roles, organization)
            }
            Choosing::Rule(editing) => self.rule_chosen(*editing, picked.first().copied(), ctx),
            Choosing::Level { person, level } => {
                let Some(wanted) = picked.first().and_then(|choice| choice.id.parse::<i64>().ok()) else {
                    return Heard::default();
                };
                if wanted == level {
                    *ctx.notice = Some(Notice::done(format!(
                        "{} is {} already",
                        person.label,
                        level_word(level)
                    )));
                    return Heard::default();
                }
                Heard::step(Step::Confirm(Confirm::write(
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
                )))
            }
        }
    }
}

/// Marked people to add to roles: a bulk action, one write a person,
/// each reported; those refused stay marked.
fn add_marked_to_roles(people: Vec<Person>, roles: Vec<RoleRef>, organization: String) -> Heard {
    let names: Vec<String> = roles.iter().map(|role| role.name.clone()).collect();
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
    Heard::step(Step::Bulk(bulk))
}

/// People to add to roles (the one on a row or a page): one question,
/// one write.
fn add_to_roles(people: Vec<Person>, roles: Vec<RoleRef>, organization: String) -> Heard {
    let names: Vec<String> = roles.iter().map(|role| role.name.clone()).collect();
    let who: Vec<String> = people.iter().map(|person| person.label.clone()).collect();
    let adds = people.len() * roles.len();
    Heard::step(Step::Confirm(Confirm::write(
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
    )))
}

/// A one-of chooser of the levels, the current one said.
fn choose_level(person: Person, current: i64) -> Heard {
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
    Heard::step(Step::Chooser(
        Box::new(chooser),
        Choosing::Level {
            person,
            level: current,
        },
    ))
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
