//! The plan: what the file asks of the live server, in Terraform's words
//! (`+` create, `~` change with `field: old → new`, `-` remove), checked
//! against what the server holds (unknown insights, people who are not
//! members) with every problem at its line.

mod roles;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::file::{CodeFile, InsightRef, Problem, SubscriptionEntry};
use super::members_aside::LiveMembers;
use super::spill::Spilled;
use crate::text::printable;
use roles::{cannot_read_members, role_change, strangers, written};

/// What `--prune` removes: members and subscriptions not in the file, and
/// roles too when it names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Prune {
    /// Members not in the file and subscriptions not in it (soft delete).
    Members,
    /// The same, and roles not in the file.
    Roles,
}

/// The server as exported, with what the check needs beside it.
#[derive(Debug, Clone, Default)]
pub struct Live {
    /// The header and roles (its subscriptions are in `subscriptions`).
    pub file: CodeFile,
    /// The project's subscriptions, set aside as they were read and read
    /// back one at a time; `None` when the file has none to compare.
    pub subscriptions: Option<std::sync::Arc<Spilled>>,
    /// Insights by short id, and short ids by id.
    pub insights: HashMap<String, i64>,
    pub insight_short: HashMap<i64, String>,
    pub dashboards: HashSet<i64>,
    /// The organization's members (each one's user UUID by address) and,
    /// per role id, its memberships, set aside in order of address (lower
    /// case) and read back as they are compared; the roles' entries in
    /// `file` hold no members.
    pub members: Arc<LiveMembers>,
    /// The access rules, when the file has them (see `access_rules`).
    pub access: super::access_rules::LiveAccess,
}

impl Live {
    /// How many subscriptions the server listed (0 when none were read).
    pub fn listed(&self) -> u64 {
        self.subscriptions.as_ref().map_or(0, |held| held.len() as u64)
    }

    /// The server's entry of the subscription `id`, if it listed it.
    pub fn subscription(&self, id: i64) -> anyhow::Result<Option<SubscriptionEntry>> {
        match &self.subscriptions {
            Some(held) => held.get(id),
            None => Ok(None),
        }
    }

    /// The server's entries of the subscriptions `plan` changes or
    /// removes, by id: what its steps start from.
    pub fn subscriptions_of(&self, plan: &Plan) -> anyhow::Result<HashMap<i64, SubscriptionEntry>> {
        let mut found = HashMap::new();
        for change in plan.changes.iter().filter(|change| change.kind == "subscription") {
            if let Some(id) = change.id.as_ref().and_then(|id| id.parse::<i64>().ok())
                && let Some(entry) = self.subscription(id)?
            {
                found.insert(id, entry);
            }
        }
        Ok(found)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Create,
    Change,
    Remove,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldChange {
    pub field: String,
    pub old: Value,
    pub new: Value,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    pub action: Action,
    /// `role` or `subscription`.
    pub kind: String,
    pub id: Option<String>,
    pub name: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldChange>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members_added: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members_removed: Vec<String>,
    /// The entry's line in the file, when it has one there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The entry's place among the file's roles or subscriptions.
    #[serde(skip)]
    pub index: Option<usize>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub changes: Vec<Change>,
    /// Members on the server and not in the file, kept without --prune.
    pub members_kept: usize,
    /// Roles and subscriptions on the server and not in the file, kept.
    pub roles_kept: usize,
    pub subscriptions_kept: usize,
    /// Access rules on the server and not in the file, kept; and those
    /// the plan leaves alone, with the reason (see `access_rules`).
    #[serde(default)]
    pub rules_kept: usize,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left_alone: Vec<String>,
}

impl Plan {
    pub fn count(&self, action: Action) -> usize {
        self.changes
            .iter()
            .filter(|change| change.action == action)
            .count()
    }

    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    pub fn to_json(&self) -> Value {
        serde_json::json!({
            "changes": self.changes,
            "add": self.count(Action::Create),
            "change": self.count(Action::Change),
            "remove": self.count(Action::Remove),
            "kept": {
                "members": self.members_kept,
                "roles": self.roles_kept,
                "subscriptions": self.subscriptions_kept,
                "access_rules": self.rules_kept,
            },
            "left_alone": self.left_alone,
        })
    }

    /// The plan as reviewers read it.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        if self.changes.is_empty() {
            out.push_str("No changes: the server matches the file.\n");
        }
        for change in &self.changes {
            let sign = match change.action {
                Action::Create => '+',
                Action::Change => '~',
                Action::Remove => '-',
            };
            let id = change
                .id
                .as_ref()
                .map(|id| format!(" ({})", printable(id)))
                .unwrap_or_default();
            let soft = if change.action == Action::Remove && change.kind == "subscription" {
                " (soft delete)"
            } else {
                ""
            };
            out.push_str(&format!(
                "{sign} {} \"{}\"{id}{soft}\n",
                change.kind,
                printable(&change.name)
            ));
            for field in &change.fields {
                if change.action == Action::Create {
                    out.push_str(&format!("    {} = {}\n", field.field, shown(&field.new)));
                    continue;
                }
                out.push_str(&format!(
                    "    {}: {} → {}\n",
                    field.field,
                    shown(&field.old),
                    shown(&field.new)
                ));
            }
            for member in &change.members_added {
                out.push_str(&format!("    + member {}\n", printable(member)));
            }
            for member in &change.members_removed {
                out.push_str(&format!("    - member {}\n", printable(member)));
            }
        }
        let kept = [
            (self.roles_kept, "role", "roles"),
            (self.members_kept, "role member", "role members"),
            (self.subscriptions_kept, "subscription", "subscriptions"),
        ];
        for (count, one, many) in kept {
            if count > 0 {
                out.push_str(&format!(
                    "\n{count} {} on the server and not in the file {} kept (--prune{} removes them).",
                    if count == 1 { one } else { many },
                    if count == 1 { "is" } else { "are" },
                    if one == "role" { "=roles" } else { "" },
                ));
            }
        }
        if self.roles_kept + self.members_kept + self.subscriptions_kept > 0 {
            out.push('\n');
        }
        out.push_str(&super::access_rules::kept_text(self));
        out.push_str(&format!(
            "\nPlan: {} to add, {} to change, {} to remove.\n",
            self.count(Action::Create),
            self.count(Action::Change),
            self.count(Action::Remove)
        ));
        out
    }
}

/// A value in a plan line: strings quoted, nothing as `(none)`.
fn shown(value: &Value) -> String {
    match value {
        Value::Null => "(none)".into(),
        other => printable(&other.to_string()).into_owned(),
    }
}

/// Compares the file with the server: the plan, or every problem that
/// keeps it from being one.
pub fn plan(file: &CodeFile, live: &Live, prune: Option<Prune>) -> Result<Plan, Vec<Problem>> {
    let mut problems = Vec::new();
    let mut problem = |at, message: String| problems.push(Problem { at, message });
    if file.header.organization != live.file.header.organization {
        problem(
            None,
            format!(
                "the file is of organization {}, and the connection is to {}: pass --org, or export again",
                file.header.organization, live.file.header.organization
            ),
        );
    }
    if file.header.project != live.file.header.project {
        problem(
            None,
            format!(
                "the file is of project {}, and the connection is to {}: pass --project, or export again",
                file.header.project, live.file.header.project
            ),
        );
    }
    let mut plan = Plan::default();
    if let Some(roles) = &file.roles {
        let live_roles = live.file.roles.as_deref().unwrap_or_default();
        let mut matched = HashSet::new();
        let strangers = match strangers(&file.members, &live.members) {
            Ok(strangers) => strangers,
            Err(error) => {
                problem(None, cannot_read_members(&error));
                BTreeMap::new()
            }
        };
        for (role_index, role) in roles.iter().enumerate() {
            let from = (role_index, 0);
            for (email, at) in strangers.range(from..(role_index + 1, 0)).map(|(_, found)| found) {
                problem(*at, format!("{email} is not a member of the organization"));
            }
            let found = match &role.id {
                Some(id) => {
                    let found = live_roles.iter().position(|live| live.id.as_ref() == Some(id));
                    if found.is_none() {
                        problem(
                            role.at,
                            format!("there is no role with id {id}: leave the id out to create the role"),
                        );
                        continue;
                    }
                    found
                }
                None => live_roles
                    .iter()
                    .enumerate()
                    .position(|(index, live)| !matched.contains(&index) && live.name == role.name),
            };
            match found {
                Some(index) => {
                    matched.insert(index);
                    let current = &live_roles[index];
                    if current.default != role.default {
                        problem(
                            role.at,
                            format!(
                                "default: the organization's settings choose the default role; the server has {} for \"{}\"",
                                current.default, role.name
                            ),
                        );
                    }
                    match role_change(
                        role,
                        &file.members,
                        role_index,
                        current,
                        &live.members,
                        prune,
                        &mut plan.members_kept,
                    ) {
                        Ok(Some(mut change)) => {
                            change.index = Some(role_index);
                            plan.changes.push(change);
                        }
                        Ok(None) => {}
                        Err(error) => problem(role.at, cannot_read_members(&error)),
                    }
                }
                None => plan.changes.push(Change {
                    members_added: match written(&file.members, role_index) {
                        Ok(written) => written,
                        Err(error) => {
                            problem(role.at, cannot_read_members(&error));
                            Vec::new()
                        }
                    },
                    action: Action::Create,
                    kind: "role".into(),
                    id: None,
                    name: role.name.clone(),
                    fields: role
                        .feature_flags_access_level
                        .map(|level| FieldChange {
                            field: "feature_flags_access_level".into(),
                            old: Value::Null,
                            new: Value::from(level),
                        })
                        .into_iter()
                        .collect(),
                    members_removed: Vec::new(),
                    line: role.at.map(|at| at.line),
                    index: Some(role_index),
                }),
            }
        }
        for (index, current) in live_roles.iter().enumerate() {
            if matched.contains(&index) {
                continue;
            }
            if prune == Some(Prune::Roles) {
                plan.changes.push(Change {
                    action: Action::Remove,
                    kind: "role".into(),
                    id: current.id.clone(),
                    name: current.name.clone(),
                    fields: Vec::new(),
                    members_added: Vec::new(),
                    members_removed: Vec::new(),
                    line: None,
                    index: None,
                });
            } else {
                plan.roles_kept += 1;
            }
        }
    }
    if let Some(subscriptions) = &file.subscriptions {
        // The server's entries, read back one at a time as the file's name
        // them (by id, where they are set aside in id order): the file's
        // order gives the changes' order, the server's the removals'.
        let live_subscriptions = live.subscriptions.as_deref();
        let mut matched = vec![false; live_subscriptions.map_or(0, Spilled::len)];
        for (sub_index, entry) in subscriptions.iter().enumerate() {
            let entry = resolve(entry, live, &mut problem);
            match entry.id {
                Some(id) => {
                    let Some((held, place)) =
                        live_subscriptions.and_then(|held| held.place(id).map(|place| (held, place)))
                    else {
                        problem(
                            entry.at,
                            format!(
                                "there is no subscription {id} (deleted?): leave the id out to create it again"
                            ),
                        );
                        continue;
                    };
                    let current = match held.entry(place) {
                        Ok(current) => current,
                        Err(error) => {
                            problem(entry.at, cannot_read_back(id, &error));
                            continue;
                        }
                    };
                    matched[place] = true;
                    let fields = field_changes(&current, &entry);
                    if !fields.is_empty() {
                        plan.changes.push(Change {
                            action: Action::Change,
                            kind: "subscription".into(),
                            id: Some(id.to_string()),
                            name: entry.label(),
                            fields,
                            members_added: Vec::new(),
                            members_removed: Vec::new(),
                            line: entry.at.map(|at| at.line),
                            index: Some(sub_index),
                        });
                    }
                }
                None => plan.changes.push(Change {
                    action: Action::Create,
                    kind: "subscription".into(),
                    id: None,
                    name: entry.label(),
                    fields: field_changes(&SubscriptionEntry::default(), &entry),
                    members_added: Vec::new(),
                    members_removed: Vec::new(),
                    line: entry.at.map(|at| at.line),
                    index: Some(sub_index),
                }),
            }
        }
        let unmatched = matched.iter().enumerate().filter(|(_, matched)| !**matched);
        match live_subscriptions {
            Some(held) if prune.is_some() => {
                for (place, _) in unmatched {
                    let id = held.id(place);
                    let current = match held.entry(place) {
                        Ok(current) => current,
                        Err(error) => {
                            problem(None, cannot_read_back(id, &error));
                            continue;
                        }
                    };
                    plan.changes.push(Change {
                        action: Action::Remove,
                        kind: "subscription".into(),
                        id: Some(id.to_string()),
                        name: current.label(),
                        fields: Vec::new(),
                        members_added: Vec::new(),
                        members_removed: Vec::new(),
                        line: None,
                        index: None,
                    });
                }
            }
            _ => plan.subscriptions_kept += unmatched.count(),
        }
    }
    if problems.is_empty() {
        Ok(plan)
    } else {
        Err(problems)
    }
}

/// The problem of a subscription set aside and not read back (the
/// temporary file failed under the command).
fn cannot_read_back(id: i64, error: &anyhow::Error) -> String {
    format!("cannot read back the server's subscription {id}, set aside as it was read: {error:#}")
}

/// The entry with its insights named as the server names them (short ids
/// where it has them), each unknown one a problem.
pub fn resolve(
    entry: &SubscriptionEntry,
    live: &Live,
    problem: &mut impl FnMut(Option<super::file::Pos>, String),
) -> SubscriptionEntry {
    let mut entry = entry.clone();
    let at = entry.at;
    let mut known = |reference: &InsightRef, key: &str| -> InsightRef {
        match reference {
            InsightRef::Short(short) => {
                if !live.insights.contains_key(short) {
                    problem(
                        at,
                        format!("{key}: there is no insight with the short id {short}"),
                    );
                }
                reference.clone()
            }
            InsightRef::Id(id) => match live.insight_short.get(id) {
                Some(short) => InsightRef::Short(short.clone()),
                None => {
                    problem(at, format!("{key}: there is no insight {id}"));
                    reference.clone()
                }
            },
        }
    };
    entry.insight = entry
        .insight
        .as_ref()
        .map(|reference| known(reference, "insight"));
    entry.export_insights = entry
        .export_insights
        .iter()
        .map(|reference| known(reference, "export_insights"))
        .collect();
    if let Some(dashboard) = entry.dashboard
        && !live.dashboards.contains(&dashboard)
    {
        problem(entry.at, format!("dashboard: there is no dashboard {dashboard}"));
    }
    entry
}

fn field_changes(current: &SubscriptionEntry, wanted: &SubscriptionEntry) -> Vec<FieldChange> {
    current
        .fields()
        .into_iter()
        .zip(wanted.fields())
        .filter(|((_, old), (_, new))| old != new)
        .map(|((field, old), (_, new))| FieldChange {
            field: field.into(),
            old,
            new,
        })
        .collect()
}
