//! Access rules as code: what `export --access` reads and writes
//! (`[[access]]`, see `file::access`), how `plan` compares the file's
//! rules with the server's (a rule added, its level changed, or with
//! `--prune` removed; a rule Terraform manages under its project's lock
//! left alone, with the reason), the steps `apply` makes of them (after
//! the roles and memberships they name, each checked against the rule as
//! it is just before), and the preview under the plan of who gains and
//! who loses access (`access::preview`).
//!
//! Rules are read per project (`read`): the project's own and its
//! resource-wide rules (with the Terraform lock) through
//! `access::preview::world`, and
//! the object rules of each subject (everyone, each role, each member)
//! through the settings endpoints, a few requests at a time. A step
//! (`run`) reads its rule again just before it is sent. A write is
//! an upsert (posthog.md 16.2): sent twice, it leaves the same rule, so an
//! apply killed at any moment and run again finds the rules it made
//! "already as planned" and sends nothing twice.

mod read;
mod run;

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::diff::{Action, Change, FieldChange, Live, Plan, Prune};
use super::file::access::{RuleEntry, RuleKey, RuleSubject};
use super::file::{CodeFile, Problem};
use super::steps::{RoleRef, Step};
use crate::access::preview::{Change as AccessChange, Effect, World};
use crate::api::access::Subject;
use crate::api::access::levels::{AccessLevel, PROJECT};

pub use read::{read_for_preview, read_into};
pub(super) use run::run_step;

/// The kind a rule's change has in a plan.
pub const KIND: &str = "access rule";

/// The server's rules, and the names a file's rules are matched by.
#[derive(Debug, Clone, Default)]
pub struct LiveAccess {
    /// Every rule, as the file writes it.
    pub rules: Vec<RuleEntry>,
    /// Projects whose Terraform lock is on.
    pub locked: HashSet<i64>,
    pub projects: HashSet<i64>,
    /// Role ids by lower-case name; membership ids by lower-case address.
    pub roles: HashMap<String, String>,
    pub people: HashMap<String, String>,
    /// What a preview is computed from.
    pub world: Option<World>,
    /// Notebooks' short ids (their addresses) by (project, uuid), as the
    /// object rules said them.
    pub short_ids: HashMap<(i64, String), String>,
    /// What could not be read, in words.
    pub notes: Vec<String>,
}

/// Whom a step's rule is for: what the plan read of them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum RuleTarget {
    Everyone,
    Member { email: String, membership: String },
    Role { name: String, role: RoleRef },
}

impl LiveAccess {
    /// Whether Terraform manages the rule under its project's lock.
    fn is_locked(&self, rule: &RuleEntry) -> bool {
        rule.managed.is_some() && self.locked.contains(&rule.project)
    }
}

/// The file's rules compared with the server's, into `plan`: every
/// problem with the file's rules (a project, role or member the server
/// does not have), or none.
pub fn plan_into(wanted: &CodeFile, live: &Live, prune: Option<Prune>, plan: &mut Plan) -> Vec<Problem> {
    let Some(rules) = &wanted.access else {
        return Vec::new();
    };
    let access = &live.access;
    let mut problems = Vec::new();
    let file_roles: HashSet<String> = wanted
        .roles
        .iter()
        .flatten()
        .map(|role| role.name.to_lowercase())
        .collect();
    for rule in rules {
        let problem = |message: String| Problem { at: rule.at, message };
        if !access.projects.contains(&rule.project) {
            problems.push(problem(format!(
                "there is no project {} in the organization (or the key cannot see it)",
                rule.project
            )));
        }
        match &rule.subject {
            RuleSubject::Role(name)
                if !access.roles.contains_key(&name.to_lowercase())
                    && !file_roles.contains(&name.to_lowercase()) =>
            {
                problems.push(problem(format!(
                    "there is no role \"{name}\", on the server or in the file"
                )));
            }
            RuleSubject::Member(email) if !access.people.contains_key(&email.to_lowercase()) => {
                problems.push(problem(format!("{email} is not a member of the organization")));
            }
            _ => {}
        }
    }
    if !problems.is_empty() {
        return problems;
    }
    let current: HashMap<RuleKey, &RuleEntry> = access.rules.iter().map(|rule| (rule.key(), rule)).collect();
    let in_file: HashSet<RuleKey> = rules.iter().map(RuleEntry::key).collect();
    let level_field = |old: Option<&AccessLevel>, new: Option<&AccessLevel>| FieldChange {
        field: "level".into(),
        old: old.map_or(serde_json::Value::Null, |level| serde_json::json!(level.as_str())),
        new: new.map_or(serde_json::Value::Null, |level| serde_json::json!(level.as_str())),
    };
    for (index, rule) in rules.iter().enumerate() {
        let change = |action, fields| Change {
            action,
            kind: KIND.into(),
            id: None,
            name: rule.describe(),
            fields,
            members_added: Vec::new(),
            members_removed: Vec::new(),
            line: rule.at.map(|at| at.line),
            index: Some(index),
        };
        match current.get(&rule.key()) {
            Some(now) if now.level == rule.level => {}
            Some(now) if access.is_locked(now) => plan.left_alone.push(format!(
                "{} (the file says {}, the server {}): {}, and the project locks it; change it in Terraform",
                rule.describe(),
                rule.level,
                now.level,
                now.managed.as_deref().unwrap_or("managed by Terraform")
            )),
            Some(now) => plan.changes.push(change(
                Action::Change,
                vec![level_field(Some(&now.level), Some(&rule.level))],
            )),
            None => plan
                .changes
                .push(change(Action::Create, vec![level_field(None, Some(&rule.level))])),
        }
    }
    for rule in access.rules.iter().filter(|rule| !in_file.contains(&rule.key())) {
        if prune.is_none() {
            plan.rules_kept += 1;
        } else if access.is_locked(rule) {
            plan.left_alone.push(format!(
                "{} ({}, not in the file): {}, and the project locks it; remove it in Terraform",
                rule.describe(),
                rule.level,
                rule.managed.as_deref().unwrap_or("managed by Terraform")
            ));
        } else {
            plan.changes.push(Change {
                action: Action::Remove,
                kind: KIND.into(),
                id: None,
                name: rule.describe(),
                fields: vec![level_field(Some(&rule.level), None)],
                members_added: Vec::new(),
                members_removed: Vec::new(),
                line: None,
                index: None,
            });
        }
    }
    Vec::new()
}

/// What the plan keeps of the server's rules and leaves alone, in words.
pub fn kept_text(plan: &Plan) -> String {
    let mut out = String::new();
    if plan.rules_kept > 0 {
        out.push_str(&format!(
            "\n{} on the server and not in the file {} kept (--prune removes them).\n",
            crate::text::counted(plan.rules_kept, "access rule"),
            if plan.rules_kept == 1 { "is" } else { "are" },
        ));
    }
    if !plan.left_alone.is_empty() {
        out.push_str("\nLeft alone:\n");
        for why in &plan.left_alone {
            out.push_str(&format!("  = {}\n", crate::text::printable(why)));
        }
    }
    out
}

/// The steps of the plan's rule changes: each with the level the plan read
/// and the level it sets.
pub fn steps(plan: &Plan, wanted: &CodeFile, live: &Live) -> Vec<Step> {
    let access = &live.access;
    let rules = wanted.access.as_deref().unwrap_or_default();
    let file_roles: Vec<&str> = wanted
        .roles
        .iter()
        .flatten()
        .map(|role| role.name.as_str())
        .collect();
    let current: HashMap<String, &RuleEntry> =
        access.rules.iter().map(|rule| (rule.describe(), rule)).collect();
    let created_roles: HashMap<String, usize> = plan
        .changes
        .iter()
        .filter(|change| change.kind == "role" && change.action == Action::Create)
        .filter_map(|change| change.index.map(|index| (change.name.to_lowercase(), index)))
        .collect();
    let target = |subject: &RuleSubject| -> RuleTarget {
        match subject {
            RuleSubject::Everyone => RuleTarget::Everyone,
            RuleSubject::Member(email) => RuleTarget::Member {
                email: email.clone(),
                membership: access
                    .people
                    .get(&email.to_lowercase())
                    .cloned()
                    .unwrap_or_default(),
            },
            RuleSubject::Role(name) => {
                let lower = name.to_lowercase();
                let role = match (access.roles.get(&lower), created_roles.get(&lower)) {
                    (Some(id), _) => RoleRef::Existing(id.clone()),
                    (None, Some(index)) => RoleRef::Created(*index),
                    // Named by the file and not planned: the plan refused it.
                    (None, None) => RoleRef::Existing(String::new()),
                };
                let name = file_roles
                    .iter()
                    .find(|known| known.eq_ignore_ascii_case(name))
                    .map_or_else(|| name.clone(), |known| known.to_string());
                RuleTarget::Role { name, role }
            }
        }
    };
    plan.changes
        .iter()
        .filter(|change| change.kind == KIND)
        .filter_map(|change| {
            let was = current.get(&change.name);
            let (rule, level) = match change.action {
                Action::Remove => (*was?, None),
                _ => {
                    let rule = rules.get(change.index?)?;
                    (rule, Some(rule.level.clone()))
                }
            };
            Some(Step::SetRule {
                project: rule.project,
                resource: rule.resource.clone(),
                object: rule.object.clone(),
                subject: target(&rule.subject),
                label: change.name.clone(),
                before: was.map(|was| was.level.clone()),
                level,
            })
        })
        .collect()
}

/// The plan's changes as one change of access, for the preview: role
/// memberships added and removed, roles deleted, project and resource
/// rules set and removed; `None` when the rules were not read or nothing
/// in the plan moves access.
pub fn preview(wanted: &CodeFile, live: &Live, plan: &Plan) -> Option<Effect> {
    let world = live.access.world.as_ref()?;
    let mut world = world.clone();
    let mut changes = Vec::new();
    let membership = |world: &World, email: &str| {
        world
            .people
            .iter()
            .find(|person| person.email.eq_ignore_ascii_case(email))
            .map(|person| person.membership_id.clone())
    };
    let role_id = |world: &World, name: &str| {
        world
            .roles
            .iter()
            .find(|role| role.name.eq_ignore_ascii_case(name))
            .map(|role| role.id.clone())
    };
    for change in plan.changes.iter().filter(|change| change.kind == "role") {
        let id = match (&change.id, change.action) {
            (Some(id), _) => id.clone(),
            (None, Action::Create) => {
                // A role the plan creates: in the preview's world by a name
                // no server id can have.
                let id = format!("new role {}", change.name.to_lowercase());
                world.roles.push(crate::access::directory::RoleInfo {
                    id: id.clone(),
                    name: change.name.clone(),
                    members: Vec::new(),
                });
                id
            }
            _ => continue,
        };
        if change.action == Action::Remove {
            changes.push(AccessChange::DeleteRole { role_id: id });
            continue;
        }
        for email in &change.members_added {
            if let Some(membership_id) = membership(&world, email) {
                changes.push(AccessChange::Join {
                    role_id: id.clone(),
                    membership_id,
                });
            }
        }
        for email in &change.members_removed {
            if let Some(membership_id) = membership(&world, email) {
                changes.push(AccessChange::Leave {
                    role_id: id.clone(),
                    membership_id,
                });
            }
        }
    }
    for (change, rule) in changed_rules(live, wanted, plan) {
        let level = (change.action != Action::Remove).then(|| rule.level.clone());
        let subject = match &rule.subject {
            RuleSubject::Everyone => Subject::Everyone,
            RuleSubject::Role(name) => match role_id(&world, name) {
                Some(id) => Subject::Role(id),
                None => continue,
            },
            RuleSubject::Member(email) => match membership(&world, email) {
                Some(id) => Subject::Member(id),
                None => continue,
            },
        };
        changes.push(AccessChange::Rule {
            project: rule.project,
            resource: rule.resource.clone(),
            // A project's own rule is on the project as an object.
            resource_id: if rule.resource == PROJECT {
                Some(rule.project.to_string())
            } else {
                rule.object.clone()
            },
            subject,
            level,
        });
    }
    if changes.is_empty() {
        return None;
    }
    Some(crate::access::preview::preview(
        &world,
        &AccessChange::Batch(changes),
    ))
}

/// The plan's text with the preview of who gains and who loses access
/// put before its closing count ("Plan: 1 to add, …"), when anyone does.
pub fn with_preview(plan: String, effect: Option<&Effect>) -> String {
    // A plan that moves nobody's access says nothing more.
    let Some(effect) = effect.filter(|effect| !effect.lines.is_empty()) else {
        return plan;
    };
    let preview = crate::cli::preview::text(effect, "Who gains and who loses access with this plan:");
    match plan.rfind("\nPlan: ") {
        Some(at) => format!("{}\n{preview}{}", &plan[..at], &plan[at..]),
        None => format!("{plan}\n{preview}"),
    }
}

/// Each rule change of a plan with its rule: a removed rule as the server
/// holds it, any other as the file says it.
pub(super) fn changed_rules<'a>(
    live: &'a Live,
    wanted: &'a CodeFile,
    plan: &'a Plan,
) -> Vec<(&'a Change, &'a RuleEntry)> {
    let rules = wanted.access.as_deref().unwrap_or_default();
    let current: HashMap<String, &RuleEntry> = live
        .access
        .rules
        .iter()
        .map(|rule| (rule.describe(), rule))
        .collect();
    plan.changes
        .iter()
        .filter(|change| change.kind == KIND)
        .filter_map(|change| {
            let rule = match change.action {
                Action::Remove => current.get(&change.name).copied(),
                _ => change.index.and_then(|index| rules.get(index)),
            };
            rule.map(|rule| (change, rule))
        })
        .collect()
}
