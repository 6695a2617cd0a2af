//! What switching the organization to the other resolution mode would
//! change (posthog.md 16.6; PostHog moves organizations to "the most
//! specific rule wins" from 1 October 2026): every member, project and
//! resource whose level differs between the modes, the rule that decides
//! in the new one, and a fix that keeps today's level.

use std::collections::HashSet;

use serde::Serialize;

use super::{Cell, Levels, Roster, World, all_cells, other};
use crate::access::directory::ProjectRef;
use crate::api::access::levels::{self, AccessLevel, PROJECT};
use crate::api::access::{Mode, Subject, SubjectKind};

/// One person, project and resource whose level the other mode changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Switched {
    pub email: String,
    pub name: String,
    pub membership_id: String,
    pub project: ProjectRef,
    pub resource: String,
    /// In the organization's mode today.
    pub today: AccessLevel,
    /// Once it switches.
    pub after_switch: AccessLevel,
    /// The rule that makes the difference, and why, in the new mode.
    pub because: String,
    /// What would keep today's level after the switch.
    pub fix: String,
}

/// What switching the organization to the other mode changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Switch {
    pub from: &'static str,
    pub to: &'static str,
    /// Whether the organization said its mode (else highest-wins is assumed).
    pub mode_known: bool,
    pub lines: Vec<Switched>,
    pub people: usize,
}

/// Every member, project and resource whose level differs between the
/// organization's mode and the other one, with the rule that makes the
/// difference and a fix that keeps today's level.
pub fn switch(world: &World) -> Switch {
    let from = world.mode();
    let to = other(from);
    let roster = Roster::of(world);
    let mut lines = Vec::new();
    for project in &world.projects {
        let levels = Levels::new(world, project);
        let cells = all_cells(&[]);
        for person in &world.people {
            if person.is_organization_admin() {
                continue;
            }
            let member = roster.member(person);
            for cell in &cells {
                let today = levels.resolve(from, &member, *cell);
                let switched = levels.resolve(to, &member, *cell);
                if today.level == switched.level {
                    continue;
                }
                let resource = match cell {
                    Cell::Project => PROJECT,
                    Cell::Resource(resource) => resource,
                    Cell::Object(object) => object.resource.as_str(),
                };
                let thing = if resource == PROJECT {
                    "the project".to_string()
                } else {
                    levels::display_name(resource)
                };
                let mut fix = format!("give {} their own rule: {thing} {}", person.email, today.level);
                if switched.subject == Some(SubjectKind::Role) && to == Mode::MostSpecific {
                    let role_rules: Vec<String> = levels
                        .rules
                        .iter()
                        .filter(|rule| {
                            rule.resource == switched.resource
                                && rule.resource_id == switched.resource_id
                                && rule.level == switched.level
                                && matches!(&rule.subject, Subject::Role(id) if member.role_ids.iter().any(|held| held.eq_ignore_ascii_case(id)))
                        })
                        .filter_map(|rule| match &rule.subject {
                            Subject::Role(id) => Some(world.role_name(id)),
                            _ => None,
                        })
                        .collect();
                    if !role_rules.is_empty() {
                        fix.push_str(&format!(
                            "; or raise the rule of {} on {thing} to {} (for all its members)",
                            role_rules.join(", "),
                            today.level
                        ));
                    }
                }
                lines.push(Switched {
                    email: person.email.clone(),
                    name: person.name.clone(),
                    membership_id: person.membership_id.clone(),
                    project: project.project.clone(),
                    resource: resource.to_string(),
                    today: today.level,
                    after_switch: switched.level.clone(),
                    because: levels.because(to, &member, &switched),
                    fix,
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
    let people = lines
        .iter()
        .map(|line| line.membership_id.as_str())
        .collect::<HashSet<_>>()
        .len();
    Switch {
        from: from.as_str(),
        to: to.as_str(),
        mode_known: world.mode.is_some(),
        lines,
        people,
    }
}
