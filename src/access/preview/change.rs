//! What a change does to the world a preview is computed from: the world
//! after it ([`World::after`]), the Terraform-locked rules it would drop,
//! and the people it can move.

use std::collections::HashSet;

use super::{Change, Roster, World};
use crate::access::directory::{Person, RoleInfo, RoleMember};
use crate::api::access::levels::{self, AccessLevel, PROJECT};
use crate::api::access::{AccessControl, Mode, Subject};

impl World {
    /// The mode to compute in.
    pub fn mode(&self) -> Mode {
        self.mode.unwrap_or_default()
    }

    /// The member with this membership id.
    pub fn person(&self, membership_id: &str) -> Option<&Person> {
        self.people
            .iter()
            .find(|person| person.membership_id.eq_ignore_ascii_case(membership_id))
    }

    /// The world once `change` is made.
    pub fn after(&self, change: &Change) -> World {
        let mut world = self.clone();
        world.apply(change);
        world
    }

    /// Makes `change` in this world (a batch one change after the other,
    /// in place: no copy of the world per change).
    fn apply(&mut self, change: &Change) {
        let world = self;
        match change {
            Change::Rule {
                project,
                resource,
                resource_id,
                subject,
                level,
            } => {
                if let Some(found) = world
                    .projects
                    .iter_mut()
                    .find(|known| known.project.id == *project)
                {
                    found
                        .rules
                        .retain(|rule| !same_target(rule, resource, resource_id.as_deref(), subject));
                    if let Some(level) = level {
                        let mut rule = crate::api::access::RuleInput::new(subject, Some(level.clone()));
                        rule = rule.on(resource, resource_id.as_deref());
                        found.rules.push(AccessControl {
                            access_level: rule.access_level,
                            resource: resource.clone(),
                            resource_id: rule.resource_id,
                            organization_member: rule.organization_member,
                            role: rule.role,
                            ..AccessControl::default()
                        });
                    }
                }
            }
            Change::Join {
                role_id,
                membership_id,
            } => {
                let person = world.person(membership_id).cloned();
                if let (Some(role), Some(person)) = (
                    world
                        .roles
                        .iter_mut()
                        .find(|role| role.id.eq_ignore_ascii_case(role_id)),
                    person,
                ) && !role.holds(&person)
                {
                    role.members.push(RoleMember {
                        membership_id: Some(person.membership_id.clone()),
                        user_uuid: Some(person.user_uuid.clone()),
                        email: person.email.clone(),
                        name: person.name.clone(),
                    });
                }
            }
            Change::Leave {
                role_id,
                membership_id,
            } => {
                if let Some(person) = world.person(membership_id).cloned()
                    && let Some(role) = world
                        .roles
                        .iter_mut()
                        .find(|role| role.id.eq_ignore_ascii_case(role_id))
                {
                    leave(role, &person);
                }
            }
            Change::Level { membership_id, level } => {
                if let Some(person) = world
                    .people
                    .iter_mut()
                    .find(|person| person.membership_id.eq_ignore_ascii_case(membership_id))
                {
                    person.level = *level;
                }
            }
            Change::DeleteRole { role_id } => {
                world.roles.retain(|role| !role.id.eq_ignore_ascii_case(role_id));
                for project in &mut world.projects {
                    project.rules.retain(|rule| {
                        !rule
                            .role
                            .as_deref()
                            .is_some_and(|role| role.eq_ignore_ascii_case(role_id))
                    });
                }
            }
            Change::Offboard { membership_id, .. } => {
                if let Some(person) = world.person(membership_id).cloned() {
                    for role in &mut world.roles {
                        leave(role, &person);
                    }
                }
            }
            Change::Batch(changes) => {
                for change in changes {
                    world.apply(change);
                }
            }
        }
    }

    /// The rules Terraform manages under a lock that the change would
    /// remove or rewrite (what the server refuses), in words.
    pub fn locked_by(&self, change: &Change) -> Vec<String> {
        if let Change::Batch(changes) = change {
            return changes.iter().flat_map(|change| self.locked_by(change)).collect();
        }
        let mut found = Vec::new();
        for project in self.projects.iter().filter(|project| project.locked) {
            for rule in project.rules.iter().filter(|rule| rule.is_managed()) {
                let hit = match change {
                    Change::Rule {
                        project: id,
                        resource,
                        resource_id,
                        subject,
                        ..
                    } => {
                        *id == project.project.id
                            && same_target(rule, resource, resource_id.as_deref(), subject)
                    }
                    Change::DeleteRole { role_id } => rule
                        .role
                        .as_deref()
                        .is_some_and(|role| role.eq_ignore_ascii_case(role_id)),
                    _ => false,
                };
                if hit {
                    found.push(format!(
                        "{} in {}",
                        self.rule_words(rule),
                        project.project.label()
                    ));
                }
            }
        }
        found
    }

    /// "role Finance's rule on dashboard 12 (viewer)".
    pub fn rule_words(&self, rule: &AccessControl) -> String {
        let subject = match rule.subject() {
            Some(Subject::Role(id)) => format!("role {}'s rule", self.role_name(&id)),
            Some(Subject::Member(id)) => match self.person(&id) {
                Some(person) => format!("{}'s own rule", person.email),
                None => format!("member {id}'s own rule"),
            },
            Some(Subject::Everyone) => "everyone's rule".to_string(),
            None => "a rule naming both a member and a role".to_string(),
        };
        let on = match (&rule.resource_id, rule.resource.as_str()) {
            (_, PROJECT) => "the project".to_string(),
            (Some(id), resource) => match self
                .objects
                .iter()
                .find(|(_, object)| object.resource == resource && object.id == *id)
            {
                Some((_, object)) => format!(
                    "{} \"{}\"",
                    levels::display_name(resource).trim_end_matches('s'),
                    object.name
                ),
                None => format!("{} {id}", levels::display_name(resource).trim_end_matches('s')),
            },
            (None, resource) => levels::display_name(resource),
        };
        let level = rule.access_level.as_ref().map_or("-", AccessLevel::as_str);
        let managed = if rule.is_managed() {
            ", managed by Terraform"
        } else {
            ""
        };
        format!("{subject} on {on} ({level}{managed})")
    }

    pub(super) fn role_name(&self, id: &str) -> String {
        self.roles
            .iter()
            .find(|role| role.id.eq_ignore_ascii_case(id))
            .map_or_else(|| format!("{id} (unknown)"), |role| role.name.clone())
    }
}

/// Takes someone out of a role.
fn leave(role: &mut RoleInfo, person: &Person) {
    role.members.retain(|member| {
        !(member.membership_id.as_deref() == Some(person.membership_id.as_str())
            || member.user_uuid.as_deref() == Some(person.user_uuid.as_str()))
    });
}

/// Whether a stored rule is the one a write to (resource, object, subject)
/// would replace.
fn same_target(rule: &AccessControl, resource: &str, resource_id: Option<&str>, subject: &Subject) -> bool {
    rule.resource == resource
        && rule.resource_id.as_deref() == resource_id
        && rule.subject().is_some_and(|known| match (&known, subject) {
            (Subject::Member(a), Subject::Member(b)) | (Subject::Role(a), Subject::Role(b)) => {
                a.eq_ignore_ascii_case(b)
            }
            (Subject::Everyone, Subject::Everyone) => true,
            _ => false,
        })
}

/// The people a change can move, by membership id; `None` for everyone.
pub(super) fn affected(before: &World, change: &Change) -> Option<HashSet<String>> {
    let one = |id: &str| Some(HashSet::from([id.to_lowercase()]));
    match change {
        Change::Rule { subject, .. } => match subject {
            Subject::Member(id) => one(id),
            Subject::Role(id) => Some(role_members(before, id)),
            Subject::Everyone => None,
        },
        Change::Join { membership_id, .. }
        | Change::Leave { membership_id, .. }
        | Change::Level { membership_id, .. }
        | Change::Offboard { membership_id, .. } => one(membership_id),
        Change::DeleteRole { role_id } => Some(role_members(before, role_id)),
        Change::Batch(changes) => {
            let mut all = HashSet::new();
            for change in changes {
                all.extend(affected(before, change)?);
            }
            Some(all)
        }
    }
}

/// The project a change is confined to, if it is.
pub(super) fn only_project(change: &Change) -> Option<i64> {
    match change {
        Change::Rule { project, .. } => Some(*project),
        _ => None,
    }
}

/// Who leaves the organization with the change.
pub(super) fn removed(change: &Change) -> Option<String> {
    match change {
        Change::Offboard {
            membership_id,
            remove_from_organization: true,
        } => Some(membership_id.to_lowercase()),
        _ => None,
    }
}

fn role_members(world: &World, role_id: &str) -> HashSet<String> {
    let Some(at) = world
        .roles
        .iter()
        .position(|role| role.id.eq_ignore_ascii_case(role_id))
    else {
        return HashSet::new();
    };
    let roster = Roster::of(world);
    world
        .people
        .iter()
        .filter(|person| roster.holds(person, at))
        .map(|person| person.membership_id.clone())
        .collect()
}

impl Change {
    /// The change with each person named by their user UUID (how the
    /// console knows them) named by their membership id, what the rules
    /// and the roster hold, once `people` are read; an id that is a
    /// membership id already, or that names nobody read, stays.
    pub fn by_membership(&self, people: &[Person]) -> Change {
        let id = |named: &str| {
            people
                .iter()
                .find(|person| person.user_uuid.eq_ignore_ascii_case(named))
                .map_or_else(|| named.to_lowercase(), |person| person.membership_id.clone())
        };
        match self {
            Change::Join {
                role_id,
                membership_id,
            } => Change::Join {
                role_id: role_id.to_lowercase(),
                membership_id: id(membership_id),
            },
            Change::Leave {
                role_id,
                membership_id,
            } => Change::Leave {
                role_id: role_id.to_lowercase(),
                membership_id: id(membership_id),
            },
            Change::Level { membership_id, level } => Change::Level {
                membership_id: id(membership_id),
                level: *level,
            },
            Change::Offboard {
                membership_id,
                remove_from_organization,
            } => Change::Offboard {
                membership_id: id(membership_id),
                remove_from_organization: *remove_from_organization,
            },
            Change::DeleteRole { role_id } => Change::DeleteRole {
                role_id: role_id.to_lowercase(),
            },
            Change::Batch(changes) => Change::Batch(
                changes
                    .iter()
                    .map(|change| change.by_membership(people))
                    .collect(),
            ),
            Change::Rule { .. } => self.clone(),
        }
    }
}
