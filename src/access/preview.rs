//! A change's effect on people, before it is made: who gains and who loses
//! what, per project and resource ("Ada: dashboards editor → viewer in
//! Hedgebox Web, because the rule of Contractors is more specific than
//! everyone's"), and what switching the organization to the other
//! resolution mode would change (`switch`, said in words by
//! `switch_told` for the CLI and the console alike).
//!
//! The one place orgdeck computes access rather than read it (posthog.md
//! 16, "a preview of a change is the one place a client computes"): the
//! rules read from the server ([`World`], see `world`) go through the one
//! resolver the reference server answers with (`api::access::resolve`),
//! before and after the change, in the organization's mode and in the
//! other one, so that a line on which the two disagree shows both. After
//! the change, [`check`](world::check) compares the preview with what the
//! server then resolves. Pure here: no I/O; the CLI prints what this
//! returns, in the words of `told`, and the console shows the same.

mod change;
mod resolving;
mod roster;
pub mod switch;
pub mod switch_told;
pub mod told;
pub mod world;

pub use switch::{Switch, Switched, switch};

use std::collections::HashSet;

use serde::Serialize;

use super::directory::{Person, ProjectRef, RoleInfo};
use crate::api::access::levels::{self, AccessLevel, PROJECT, RESOURCES};
use crate::api::access::{AccessControl, Mode, Plan, Subject};
use change::{affected, only_project, removed};
use resolving::{Levels, nothing};
use roster::Roster;

/// One project's rules as read: on the project itself, on its resources,
/// and on the one object a change is about (if any).
#[derive(Debug, Clone)]
pub struct ProjectWorld {
    pub project: ProjectRef,
    pub rules: Vec<AccessControl>,
    /// Whether the project's Terraform lock is on (posthog.md 16.7).
    pub locked: bool,
}

/// An object a change is about: a dashboard or an insight.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ObjectRef {
    pub resource: String,
    /// Its primary key, what rules store.
    pub id: String,
    pub name: String,
    /// Its creator's user uuid: they keep the highest level on it.
    pub creator: Option<String>,
}

/// Everything a preview is computed from.
#[derive(Debug, Clone)]
pub struct World {
    pub people: Vec<Person>,
    pub roles: Vec<RoleInfo>,
    pub projects: Vec<ProjectWorld>,
    pub plan: Plan,
    /// The organization's mode; `None` when the server does not say.
    pub mode: Option<Mode>,
    /// The objects changes are about, each in its project (one for
    /// `access set --dashboard`, each object a plan's rules change).
    pub objects: Vec<(i64, ObjectRef)>,
    /// What could not be read, in words, to say with the preview.
    pub notes: Vec<String>,
}

/// A change that can move access.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// A rule set (`Some`) or removed (`None`).
    Rule {
        project: i64,
        resource: String,
        resource_id: Option<String>,
        subject: Subject,
        level: Option<AccessLevel>,
    },
    /// Someone added to a role.
    Join { role_id: String, membership_id: String },
    /// Someone taken out of a role.
    Leave { role_id: String, membership_id: String },
    /// A member's organization level changed (1, 8, 15).
    Level { membership_id: String, level: i64 },
    /// A role deleted, its memberships and its rules with it.
    DeleteRole { role_id: String },
    /// Someone taken out of every role, and perhaps out of the organization.
    Offboard {
        membership_id: String,
        remove_from_organization: bool,
    },
    /// Several changes made one after the other (several people added).
    Batch(Vec<Change>),
}

/// A change proposed by a screen or a command, with what must be read to
/// preview it: whose access it can move (only they are kept of the
/// members), the one project it is about (a rule) or every project, and
/// the object a rule on one dashboard or insight is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proposed {
    pub change: Change,
    pub people: super::directory::People,
    /// The project's id; `None`: every project the key sees.
    pub project: Option<i64>,
    pub object: Option<ObjectRef>,
}

/// What a cell is about: the project, a resource of it, or one object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cell<'a> {
    Project,
    Resource(&'a str),
    Object(&'a ObjectRef),
}

/// One person's level on one thing, before and after.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Line {
    pub email: String,
    pub name: String,
    pub membership_id: String,
    pub project: ProjectRef,
    /// `project`, a resource, or the object's resource.
    pub resource: String,
    /// The object, when the line is about one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// In the mode the preview is computed in.
    pub before: AccessLevel,
    pub after: AccessLevel,
    /// Why the level after is what it is, in words.
    pub because: String,
    /// The other mode's before and after, when they differ from these.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub other_mode: Option<OtherMode>,
    /// Whether the line takes access away.
    pub loses: bool,
}

/// A line in the other mode.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct OtherMode {
    pub mode: &'static str,
    pub before: AccessLevel,
    pub after: AccessLevel,
    /// Why the level after is what it is in that mode.
    pub because: String,
}

impl Line {
    /// "dashboards editor → viewer in Hedgebox Web (1)".
    pub fn what(&self) -> String {
        let thing = match &self.object {
            Some(name) => format!(
                "{} \"{}\"",
                levels::display_name(&self.resource).trim_end_matches('s'),
                name
            ),
            None if self.resource == PROJECT => "project".to_string(),
            None => levels::display_name(&self.resource),
        };
        format!(
            "{thing} {} → {} in {}",
            self.before,
            self.after,
            self.project.label()
        )
    }
}

/// A change's effect.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Effect {
    /// The mode the lines are in: the organization's, or highest-wins (what
    /// PostHog enforces) when the server does not say.
    pub mode: &'static str,
    /// Whether the organization said its mode.
    pub mode_known: bool,
    /// By person (e-mail address), project, then resource in PostHog's order.
    pub lines: Vec<Line>,
    /// How many people the lines are about.
    pub people: usize,
    /// How many people lose something.
    pub losing: usize,
    /// How many people gain something (and lose nothing).
    pub gaining: usize,
    /// Rules the change removes that Terraform manages under a lock.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub locked: Vec<String>,
}

/// The other mode.
pub fn other(mode: Mode) -> Mode {
    match mode {
        Mode::HighestWins => Mode::MostSpecific,
        Mode::MostSpecific => Mode::HighestWins,
    }
}

/// Whether `to` is lower than `from` on `resource`.
fn lower(resource: &str, from: &AccessLevel, to: &AccessLevel) -> bool {
    levels::rank(resource, to) < levels::rank(resource, from)
}

/// Who gains and who loses what if `change` is made to `before`.
pub fn preview(before: &World, change: &Change) -> Effect {
    let after = before.after(change);
    let mode = before.mode();
    let people = affected(before, change);
    let removed = removed(change);
    let only_project = only_project(change);
    let (roster_before, roster_after) = (Roster::of(before), Roster::of(&after));
    let mut lines = Vec::new();
    for (at, project) in before.projects.iter().enumerate() {
        if only_project.is_some_and(|only| only != project.project.id) {
            continue;
        }
        let Some(project_after) = after.projects.get(at) else {
            continue;
        };
        let (old, new) = (Levels::new(before, project), Levels::new(&after, project_after));
        let objects: Vec<&ObjectRef> = before
            .objects
            .iter()
            .filter(|(id, _)| *id == project.project.id)
            .map(|(_, object)| object)
            .collect();
        let cells = cells(change, &objects);
        for person in &before.people {
            if people
                .as_ref()
                .is_some_and(|people| !people.contains(&person.membership_id))
            {
                continue;
            }
            let member_before = roster_before.member(person);
            let gone = removed.as_deref() == Some(person.membership_id.as_str());
            let person_after = roster_after.person(&person.membership_id).unwrap_or(person);
            let member_after = roster_after.member(person_after);
            for cell in &cells {
                let resource = match cell {
                    Cell::Project => PROJECT,
                    Cell::Resource(resource) => resource,
                    Cell::Object(object) => object.resource.as_str(),
                };
                let levels_in = |mode: Mode| {
                    let was = old.resolve(mode, &member_before, *cell);
                    let will = if gone {
                        nothing(resource)
                    } else {
                        new.resolve(mode, &member_after, *cell)
                    };
                    (was, will)
                };
                let (was, will) = levels_in(mode);
                let (other_was, other_will) = levels_in(other(mode));
                let moved = was.level != will.level;
                let other_moved = other_was.level != other_will.level;
                if !moved && !other_moved {
                    continue;
                }
                let because = if gone {
                    "they leave the organization".to_string()
                } else {
                    new.because(mode, &member_after, &will)
                };
                let other_mode =
                    (other_was.level != was.level || other_will.level != will.level).then(|| OtherMode {
                        mode: other(mode).as_str(),
                        before: other_was.level.clone(),
                        after: other_will.level.clone(),
                        because: if gone {
                            "they leave the organization".to_string()
                        } else {
                            new.because(other(mode), &member_after, &other_will)
                        },
                    });
                let loses = lower(resource, &was.level, &will.level)
                    || (before.mode.is_none() && lower(resource, &other_was.level, &other_will.level));
                lines.push(Line {
                    email: person.email.clone(),
                    name: person.name.clone(),
                    membership_id: person.membership_id.clone(),
                    project: project.project.clone(),
                    resource: resource.to_string(),
                    object: match cell {
                        Cell::Object(object) => Some(object.name.clone()),
                        _ => None,
                    },
                    before: was.level,
                    after: will.level,
                    because,
                    other_mode,
                    loses,
                });
            }
        }
    }
    lines.sort_by(|a, b| {
        a.email
            .to_lowercase()
            .cmp(&b.email.to_lowercase())
            .then(a.project.id.cmp(&b.project.id))
    });
    let count = |pick: &dyn Fn(&Line) -> bool| {
        lines
            .iter()
            .filter(|line| pick(line))
            .map(|line| line.membership_id.as_str())
            .collect::<HashSet<_>>()
            .len()
    };
    let losing: HashSet<&str> = lines
        .iter()
        .filter(|line| line.loses)
        .map(|line| line.membership_id.as_str())
        .collect();
    let gaining = lines
        .iter()
        .filter(|line| !losing.contains(line.membership_id.as_str()))
        .filter(|line| lower(&line.resource, &line.after, &line.before))
        .map(|line| line.membership_id.as_str())
        .collect::<HashSet<_>>()
        .len();
    Effect {
        mode: mode.as_str(),
        mode_known: before.mode.is_some(),
        people: count(&|_| true),
        losing: losing.len(),
        gaining,
        locked: before.locked_by(change),
        lines,
    }
}

/// The cells a change can move: one resource (or the project, or an
/// object) for a rule, every one for a change of people or several
/// changes.
fn cells<'o>(change: &'o Change, objects: &[&'o ObjectRef]) -> Vec<Cell<'o>> {
    match change {
        Change::Rule {
            resource,
            resource_id,
            ..
        } => match (resource.as_str(), resource_id) {
            (PROJECT, _) => vec![Cell::Project],
            (resource, Some(id)) => objects
                .iter()
                .filter(|object| object.resource == resource && object.id == *id)
                .map(|object| Cell::Object(object))
                .collect(),
            (resource, None) => {
                let mut cells = vec![Cell::Resource(resource)];
                // An object falls back on its resource's rules.
                cells.extend(
                    objects
                        .iter()
                        .filter(|object| object.resource == resource)
                        .map(|object| Cell::Object(object)),
                );
                cells
            }
        },
        _ => all_cells(objects),
    }
}

fn all_cells<'o>(objects: &[&'o ObjectRef]) -> Vec<Cell<'o>> {
    let mut cells = vec![Cell::Project];
    cells.extend(RESOURCES.iter().map(|resource| Cell::Resource(resource)));
    cells.extend(objects.iter().map(|object| Cell::Object(object)));
    cells
}

#[cfg(test)]
mod tests;
