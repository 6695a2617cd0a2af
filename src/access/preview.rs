//! A change's effect on people, before it is made: who gains and who loses
//! what, per project and resource ("Ada: dashboards editor → viewer in
//! Hedgebox Web, because the rule of Contractors is more specific than
//! everyone's"), and what switching the organization to the other
//! resolution mode would change (`switch`).
//!
//! The one place orgdeck computes access rather than read it (posthog.md
//! 16, "a preview of a change is the one place a client computes"): the
//! rules read from the server ([`World`], see `world`) go through the one
//! resolver the reference server answers with (`api::access::resolve`),
//! before and after the change, in the organization's mode and in the
//! other one, so that a line on which the two disagree shows both. After
//! the change, [`check`](world::check) compares the preview with what the
//! server then resolves. Pure here: no I/O; the CLI prints what this
//! returns, and the console and `plan` can use it too.

pub mod switch;
pub mod world;

pub use switch::{Switch, Switched, switch};

use std::collections::HashSet;

use serde::Serialize;

use super::directory::{Person, ProjectRef, RoleInfo, RoleMember};
use crate::api::access::levels::{self, AccessLevel, PROJECT, RESOURCES};
use crate::api::access::{
    AccessControl, Member, Mode, Plan, Principal, Resolved, Resolver, Rule, RuleSet, Source, Subject,
    SubjectKind, Target,
};

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
    /// The object a change is about, in its project.
    pub object: Option<(i64, ObjectRef)>,
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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

    /// The person as the resolver sees them.
    fn member(&self, person: &Person) -> Member {
        Member {
            membership_id: person.membership_id.clone(),
            user_id: person.user_uuid.clone(),
            organization_level: person.level,
            role_ids: self
                .roles
                .iter()
                .filter(|role| role.holds(person))
                .map(|role| role.id.clone())
                .collect(),
        }
    }

    /// The world once `change` is made.
    pub fn after(&self, change: &Change) -> World {
        let mut world = self.clone();
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
                    world = world.after(change);
                }
            }
        }
        world
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
            (Some(id), resource) => match &self.object {
                Some((_, object)) if object.resource == resource && object.id == *id => format!(
                    "{} \"{}\"",
                    levels::display_name(resource).trim_end_matches('s'),
                    object.name
                ),
                _ => format!("{} {id}", levels::display_name(resource).trim_end_matches('s')),
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

    fn role_name(&self, id: &str) -> String {
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

/// A project's rules as the resolver reads them (ids lowercased, as the
/// directory has them).
fn rule_set(project: &ProjectWorld) -> RuleSet {
    RuleSet::new(project.rules.iter().filter_map(|rule| {
        let mut rule = rule.rule()?;
        rule.subject = match rule.subject {
            Subject::Member(id) => Subject::Member(id.to_lowercase()),
            Subject::Role(id) => Subject::Role(id.to_lowercase()),
            Subject::Everyone => Subject::Everyone,
        };
        Some(rule)
    }))
}

/// The people a change can move, by membership id; `None` for everyone.
fn affected(before: &World, change: &Change) -> Option<HashSet<String>> {
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
fn only_project(change: &Change) -> Option<i64> {
    match change {
        Change::Rule { project, .. } => Some(*project),
        _ => None,
    }
}

/// Who leaves the organization with the change.
fn removed(change: &Change) -> Option<String> {
    match change {
        Change::Offboard {
            membership_id,
            remove_from_organization: true,
        } => Some(membership_id.to_lowercase()),
        _ => None,
    }
}

fn role_members(world: &World, role_id: &str) -> HashSet<String> {
    let Some(role) = world
        .roles
        .iter()
        .find(|role| role.id.eq_ignore_ascii_case(role_id))
    else {
        return HashSet::new();
    };
    world
        .people
        .iter()
        .filter(|person| role.holds(person))
        .map(|person| person.membership_id.clone())
        .collect()
}

/// The levels of one person in one project, cell by cell, in one mode.
struct Levels<'w> {
    world: &'w World,
    rules: RuleSet,
    project: &'w ProjectWorld,
}

impl<'w> Levels<'w> {
    fn new(world: &'w World, project: &'w ProjectWorld) -> Levels<'w> {
        Levels {
            world,
            rules: rule_set(project),
            project,
        }
    }

    fn resolve(&self, mode: Mode, member: &Member, cell: Cell) -> Resolved {
        let resolver = Resolver::new(&self.rules, self.world.plan, mode);
        let who = Principal::Member(member);
        let project_id = self.project.project.id.to_string();
        match cell {
            Cell::Project => resolver
                .object(who, Target::project(&project_id))
                .unwrap_or_else(|| nothing(PROJECT)),
            Cell::Resource(resource) => resolver.resource(who, resource),
            Cell::Object(object) => resolver
                .object(
                    who,
                    Target {
                        resource: &object.resource,
                        id: &object.id,
                        creator: object.creator.as_deref(),
                    },
                )
                .unwrap_or_else(|| nothing(&object.resource)),
        }
    }

    /// Why `resolved` is what it is for `member`, in words.
    fn because(&self, mode: Mode, member: &Member, resolved: &Resolved) -> String {
        let decider = match resolved.source {
            Source::OrgAdmin => return "they are an organization admin, who bypasses every rule".into(),
            Source::Creator => return "they created it".into(),
            Source::OrgMembership => return "their organization membership decides".into(),
            Source::SystemDefault if !self.world.plan.access_control => {
                return "the plan reads no rule: the built-in default".into();
            }
            Source::SystemDefault => return "no rule applies to them: the built-in default".into(),
            _ => match &resolved.subject {
                Some(kind) => kind.clone(),
                None => return "no rule decides".into(),
            },
        };
        let applying: Vec<&Rule> = self
            .rules
            .iter()
            .filter(|rule| {
                rule.resource == resolved.resource
                    && rule.resource_id == resolved.resource_id
                    && applies(rule, member, self.world.plan)
            })
            .collect();
        let name = |kind: &SubjectKind, level: &AccessLevel| -> String {
            match kind {
                SubjectKind::Member => "their own rule".to_string(),
                SubjectKind::Role => {
                    let names: Vec<String> = applying
                        .iter()
                        .filter(|rule| rule.subject.kind() == SubjectKind::Role && &rule.level == level)
                        .filter_map(|rule| match &rule.subject {
                            Subject::Role(id) => Some(self.world.role_name(id)),
                            _ => None,
                        })
                        .collect();
                    match names.as_slice() {
                        [] => "a role's rule".to_string(),
                        [one] => format!("the rule of {one}"),
                        several => format!("the rules of {}", several.join(", ")),
                    }
                }
                SubjectKind::Default => "everyone's rule".to_string(),
                SubjectKind::Other(other) => format!("a rule ({other})"),
            }
        };
        let mut words = format!("{} ({})", name(&decider, &resolved.level), resolved.level);
        let rank = |level: &AccessLevel| levels::rank(&resolved.resource, level);
        let specificity = |kind: &SubjectKind| match kind {
            SubjectKind::Member => 2,
            SubjectKind::Role => 1,
            _ => 0,
        };
        let whose = |kind: &SubjectKind| match kind {
            SubjectKind::Member => "their own".to_string(),
            SubjectKind::Role => "their roles'".to_string(),
            _ => "everyone's".to_string(),
        };
        match mode {
            Mode::MostSpecific => {
                // A higher rule of a less specific subject that lost.
                if let Some(lost) = applying.iter().find(|rule| {
                    specificity(&rule.subject.kind()) < specificity(&decider)
                        && rank(&rule.level) > rank(&resolved.level)
                }) {
                    words.push_str(&format!(
                        " is more specific than {} ({})",
                        whose(&lost.subject.kind()),
                        lost.level
                    ));
                }
            }
            Mode::HighestWins => {
                if let Some(lost) = applying.iter().find(|rule| {
                    specificity(&rule.subject.kind()) > specificity(&decider)
                        && rank(&rule.level) < rank(&resolved.level)
                }) {
                    words.push_str(&format!(
                        " is higher than {} ({}), and the highest rule wins",
                        whose(&lost.subject.kind()),
                        lost.level
                    ));
                }
            }
        }
        words
    }
}

fn nothing(resource: &str) -> Resolved {
    Resolved {
        level: AccessLevel::None,
        source: Source::SystemDefault,
        subject: None,
        resource: resource.to_string(),
        resource_id: None,
    }
}

/// Whether a rule is about this member.
fn applies(rule: &Rule, member: &Member, plan: Plan) -> bool {
    match &rule.subject {
        Subject::Everyone => true,
        Subject::Member(id) => member.membership_id.eq_ignore_ascii_case(id),
        Subject::Role(id) => {
            plan.role_based_access && member.role_ids.iter().any(|role| role.eq_ignore_ascii_case(id))
        }
    }
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
    let mut lines = Vec::new();
    for (at, project) in before.projects.iter().enumerate() {
        if only_project.is_some_and(|only| only != project.project.id) {
            continue;
        }
        let Some(project_after) = after.projects.get(at) else {
            continue;
        };
        let (old, new) = (Levels::new(before, project), Levels::new(&after, project_after));
        let object = before
            .object
            .as_ref()
            .filter(|(id, _)| *id == project.project.id)
            .map(|(_, object)| object);
        let cells = cells(change, object);
        for person in &before.people {
            if people
                .as_ref()
                .is_some_and(|people| !people.contains(&person.membership_id))
            {
                continue;
            }
            let member_before = before.member(person);
            let gone = removed.as_deref() == Some(person.membership_id.as_str());
            let person_after = after.person(&person.membership_id).unwrap_or(person);
            let member_after = after.member(person_after);
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

/// The cells a change can move: one resource (or the project, or the
/// object) for a rule, every one for a change of people.
fn cells<'o>(change: &'o Change, object: Option<&'o ObjectRef>) -> Vec<Cell<'o>> {
    match change {
        Change::Rule {
            resource,
            resource_id,
            ..
        } => match (resource.as_str(), resource_id, object) {
            (PROJECT, _, _) => vec![Cell::Project],
            (_, Some(_), Some(object)) => vec![Cell::Object(object)],
            (_, Some(_), None) => Vec::new(),
            (resource, None, object) => {
                let mut cells = vec![Cell::Resource(resource)];
                // An object falls back on its resource's rules.
                if let Some(object) = object.filter(|object| object.resource == resource) {
                    cells.push(Cell::Object(object));
                }
                cells
            }
        },
        _ => all_cells(object),
    }
}

fn all_cells(object: Option<&ObjectRef>) -> Vec<Cell<'_>> {
    let mut cells = vec![Cell::Project];
    cells.extend(RESOURCES.iter().map(|resource| Cell::Resource(resource)));
    cells.extend(object.map(Cell::Object));
    cells
}

#[cfg(test)]
mod tests;
