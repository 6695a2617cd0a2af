//! The steps of a plan: one request each, in a safe order (roles, then
//! their members, then removed roles; subscriptions, then soft deletes),
//! each with what the plan read of the object it changes, so that `apply`
//! can read the object again just before and refuse a step whose object
//! changed since the plan. A saved plan is these steps, written down.
//!
//! Entries are matched to the file by their place in it (`index`); roles
//! without an id by their name, memberships by role and address.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::access_rules::RuleTarget;
use super::diff::{self, Action, Live, Plan};
use super::file::{CodeFile, InsightRef, SubscriptionEntry};
use crate::api::access::levels::AccessLevel;
use crate::api::{Frequency, RoleInput, SubscriptionInput, TargetType, Weekday};

/// A subscription's fields as the file names them, insights by number:
/// what the plan read, and what a step checks again.
pub type Fields = serde_json::Map<String, Value>;

/// A role as the plan read it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoleRead {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feature_flags_access_level: Option<i64>,
    /// Its members' addresses (lower case), each with its membership's id.
    pub members: BTreeMap<String, String>,
}

/// A role a step is about: one on the server, or one a step creates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoleRef {
    Existing(String),
    /// Created by the step for the file's role at this place.
    Created(usize),
}

/// One request of a plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum Step {
    CreateRole {
        index: usize,
        body: RoleInput,
    },
    UpdateRole {
        id: String,
        before: RoleRead,
        body: RoleInput,
    },
    AddMember {
        role: RoleRef,
        role_name: String,
        email: String,
        /// The user's UUID, as the plan read it.
        user: String,
    },
    RemoveMember {
        role: String,
        role_name: String,
        email: String,
        membership: String,
    },
    DeleteRole {
        id: String,
        before: RoleRead,
    },
    CreateSubscription {
        index: usize,
        label: String,
        /// The entry as the file holds it, to find it again.
        entry: Fields,
        body: Value,
    },
    UpdateSubscription {
        id: i64,
        label: String,
        before: Fields,
        /// The fields the step changes, as they will be.
        after: Fields,
        body: Value,
    },
    SoftDeleteSubscription {
        id: i64,
        label: String,
        before: Fields,
    },
    /// An access rule set, or removed (`level` none), see `access_rules`.
    SetRule {
        project: i64,
        resource: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        object: Option<String>,
        subject: RuleTarget,
        label: String,
        /// The level the plan read; none: no rule.
        before: Option<AccessLevel>,
        level: Option<AccessLevel>,
    },
}

impl Step {
    /// The phase the step runs in: roles, members, removed roles and
    /// access rules (after the roles and memberships they name),
    /// subscriptions, soft deletes.
    pub fn phase(&self) -> usize {
        match self {
            Step::CreateRole { .. } | Step::UpdateRole { .. } => 0,
            Step::AddMember { .. } | Step::RemoveMember { .. } => 1,
            Step::DeleteRole { .. } | Step::SetRule { .. } => 2,
            Step::CreateSubscription { .. } | Step::UpdateSubscription { .. } => 3,
            Step::SoftDeleteSubscription { .. } => 4,
        }
    }

    /// What the step does, as its line says it.
    pub fn describe(&self) -> String {
        match self {
            Step::CreateRole { body, .. } => {
                format!("create role \"{}\"", body.name.as_deref().unwrap_or_default())
            }
            Step::UpdateRole { body, before, .. } => {
                let name = body.name.as_deref().unwrap_or(&before.name);
                if body.feature_flags_access_level.is_some() {
                    format!("change role \"{name}\"")
                } else {
                    format!("rename role \"{name}\"")
                }
            }
            Step::AddMember { email, role_name, .. } => format!("add {email} to role \"{role_name}\""),
            Step::RemoveMember { email, role_name, .. } => {
                format!("remove {email} from role \"{role_name}\"")
            }
            Step::DeleteRole { before, .. } => format!("delete role \"{}\"", before.name),
            Step::CreateSubscription { label, .. } => format!("create subscription \"{label}\""),
            Step::UpdateSubscription { id, label, .. } => format!("change subscription \"{label}\" ({id})"),
            Step::SoftDeleteSubscription { id, label, .. } => {
                format!("soft-delete subscription \"{label}\" ({id})")
            }
            Step::SetRule { label, level, .. } => match level {
                Some(level) => format!("set the access rule of {label} to {level}"),
                None => format!("remove the access rule of {label}"),
            },
        }
    }

    /// Whether the step reads the object it changes again just before.
    pub fn rereads_subscription(&self) -> bool {
        matches!(
            self,
            Step::UpdateSubscription { .. } | Step::SoftDeleteSubscription { .. }
        )
    }
}

/// Whether any step writes a subscription (and so needs to know whether
/// the server is today's PostHog, for `send_test_now`).
pub fn writes_subscriptions(plan: &Plan) -> bool {
    plan.changes
        .iter()
        .any(|change| change.kind == "subscription" && change.action != Action::Remove)
}

/// A role as the server has it, from the plan's reading.
pub(super) fn role_read(live: &Live, id: &str) -> std::io::Result<RoleRead> {
    Ok(RoleRead {
        members: live.members.role(id)?,
        ..role_read_bare(live, id)
    })
}

/// The memberships the steps need of each role: all of a role a step
/// deletes or changes (compared whole, or told when it is refused), and
/// of the others those of the addresses (lower case) a step adds or
/// removes.
#[derive(Debug, Default)]
pub(super) struct RoleNeeds<'a> {
    pub whole: std::collections::HashSet<&'a str>,
    pub named: std::collections::HashMap<&'a str, std::collections::HashSet<String>>,
}

impl<'a> RoleNeeds<'a> {
    pub(super) fn of(steps: impl IntoIterator<Item = &'a Step>) -> RoleNeeds<'a> {
        let mut needs = RoleNeeds::default();
        for step in steps {
            match step {
                Step::DeleteRole { id, .. } | Step::UpdateRole { id, .. } => {
                    needs.whole.insert(id);
                }
                Step::AddMember {
                    role: RoleRef::Existing(id),
                    email,
                    ..
                }
                | Step::RemoveMember { role: id, email, .. } => {
                    needs.named.entry(id).or_default().insert(email.to_lowercase());
                }
                _ => {}
            }
        }
        needs
    }

    /// What the steps need of the role `id`: none of its memberships,
    /// all of them (`Some(None)`), or those of these addresses.
    pub(super) fn of_role(&self, id: &str) -> Option<Option<&std::collections::HashSet<String>>> {
        match (self.whole.contains(id), self.named.get(id)) {
            (true, _) => Some(None),
            (false, Some(emails)) => Some(Some(emails)),
            (false, None) => None,
        }
    }
}

/// A role as the server has it, without its members.
pub(super) fn role_read_bare(live: &Live, id: &str) -> RoleRead {
    let entry = live
        .file
        .roles
        .iter()
        .flatten()
        .find(|role| role.id.as_deref() == Some(id));
    RoleRead {
        name: entry.map(|role| role.name.clone()).unwrap_or_default(),
        feature_flags_access_level: entry.and_then(|role| role.feature_flags_access_level),
        members: BTreeMap::new(),
    }
}

/// A subscription's fields with its insights by number.
pub fn numeric(entry: &SubscriptionEntry, insights: &HashMap<String, i64>) -> Fields {
    as_written(&numeric_entry(entry, insights))
}

/// The entry with its insights by numeric id where `insights` knows them:
/// what [`numeric`] writes out as fields, kept compact until compared.
pub fn numeric_entry(entry: &SubscriptionEntry, insights: &HashMap<String, i64>) -> SubscriptionEntry {
    let id = |reference: &InsightRef| match reference {
        InsightRef::Short(short) => insights
            .get(short)
            .map_or_else(|| reference.clone(), |id| InsightRef::Id(*id)),
        InsightRef::Id(_) => reference.clone(),
    };
    let mut entry = entry.clone();
    entry.insight = entry.insight.as_ref().map(id);
    entry.export_insights = entry.export_insights.iter().map(id).collect();
    entry
}

/// A subscription as read from the server, in the plan's terms.
pub fn fields_of(subscription: &crate::api::Subscription) -> Fields {
    as_written(&entry_of(subscription))
}

/// A subscription as read from the server, as the entry [`fields_of`]
/// writes out (its insights by numeric id): what a read of the whole list
/// keeps of each, compact.
pub fn entry_of(subscription: &crate::api::Subscription) -> SubscriptionEntry {
    super::subscription_entry(subscription, &HashMap::new())
}

/// The file's fields of an entry, as written.
pub fn as_written(entry: &SubscriptionEntry) -> Fields {
    entry
        .fields()
        .into_iter()
        .map(|(field, value)| (field.to_string(), value))
        .collect()
}

/// The steps of a plan, in their order; `current` holds the server's
/// entries of the subscriptions it changes or removes
/// ([`Live::subscriptions_of`]).
pub fn build(
    plan: &Plan,
    wanted: &CodeFile,
    live: &Live,
    current: &HashMap<i64, SubscriptionEntry>,
    today: bool,
) -> std::io::Result<Vec<Step>> {
    let mut steps = Vec::new();
    let roles = wanted.roles.as_deref().unwrap_or_default();
    // The user of each member a step adds, found in one reading.
    let added: std::collections::BTreeSet<String> = plan
        .changes
        .iter()
        .filter(|change| change.kind == "role")
        .flat_map(|change| &change.members_added)
        .map(|email| email.to_lowercase())
        .collect();
    let users = live.members.uuids(&added)?;
    for change in plan.changes.iter().filter(|change| change.kind == "role") {
        let entry = change.index.and_then(|index| roles.get(index));
        let level = entry.and_then(|role| role.feature_flags_access_level);
        let user = |email: &str| users.get(&email.to_lowercase()).cloned().unwrap_or_default();
        match (change.action, &change.id, change.index) {
            (Action::Create, _, Some(index)) => {
                steps.push(Step::CreateRole {
                    index,
                    body: RoleInput {
                        name: Some(change.name.clone()),
                        feature_flags_access_level: level,
                    },
                });
                for email in &change.members_added {
                    steps.push(Step::AddMember {
                        role: RoleRef::Created(index),
                        role_name: change.name.clone(),
                        email: email.clone(),
                        user: user(email),
                    });
                }
            }
            (Action::Change, Some(id), _) => {
                let before = role_read(live, id)?;
                let changed = |field: &str| change.fields.iter().any(|found| found.field == field);
                if changed("name") || changed("feature_flags_access_level") {
                    steps.push(Step::UpdateRole {
                        id: id.clone(),
                        before: before.clone(),
                        body: RoleInput {
                            name: changed("name").then(|| change.name.clone()),
                            feature_flags_access_level: level
                                .filter(|_| changed("feature_flags_access_level")),
                        },
                    });
                }
                for email in &change.members_added {
                    steps.push(Step::AddMember {
                        role: RoleRef::Existing(id.clone()),
                        role_name: change.name.clone(),
                        email: email.clone(),
                        user: user(email),
                    });
                }
                for email in &change.members_removed {
                    steps.push(Step::RemoveMember {
                        role: id.clone(),
                        role_name: change.name.clone(),
                        email: email.clone(),
                        membership: before
                            .members
                            .get(&email.to_lowercase())
                            .cloned()
                            .unwrap_or_default(),
                    });
                }
            }
            (Action::Remove, Some(id), _) => steps.push(Step::DeleteRole {
                id: id.clone(),
                before: role_read(live, id)?,
            }),
            _ => {}
        }
    }
    let entries = wanted.subscriptions.as_deref().unwrap_or_default();
    for change in plan.changes.iter().filter(|change| change.kind == "subscription") {
        let id = change.id.as_ref().and_then(|id| id.parse::<i64>().ok());
        if change.action == Action::Remove {
            if let Some((id, entry)) = id.and_then(|id| current.get(&id).map(|entry| (id, entry))) {
                steps.push(Step::SoftDeleteSubscription {
                    id,
                    label: change.name.clone(),
                    before: numeric(entry, &live.insights),
                });
            }
            continue;
        }
        let Some((index, entry)) = change
            .index
            .and_then(|index| entries.get(index).map(|entry| (index, entry)))
        else {
            continue;
        };
        let resolved = diff::resolve(entry, live, &mut |_, _| {});
        let mut body = input(&resolved, &live.insights);
        body.send_test_now = today.then_some(false);
        match (
            change.action,
            id.and_then(|id| current.get(&id).map(|entry| (id, entry))),
        ) {
            (Action::Change, Some((id, was))) => {
                let mut names: Vec<&str> = change.fields.iter().map(|field| api_name(&field.field)).collect();
                if today {
                    names.push("send_test_now");
                }
                let will = numeric(&resolved, &live.insights);
                let after = change
                    .fields
                    .iter()
                    .filter_map(|field| {
                        will.get(&field.field)
                            .map(|value| (field.field.clone(), value.clone()))
                    })
                    .collect();
                steps.push(Step::UpdateSubscription {
                    id,
                    label: change.name.clone(),
                    before: numeric(was, &live.insights),
                    after,
                    body: serde_json::to_value(body.only(&names)).unwrap_or_default(),
                });
            }
            _ => steps.push(Step::CreateSubscription {
                index,
                label: change.name.clone(),
                entry: as_written(entry),
                body: serde_json::to_value(&body).unwrap_or_default(),
            }),
        }
    }
    steps.extend(super::access_rules::steps(plan, wanted, live));
    steps.sort_by_key(Step::phase);
    Ok(steps)
}

/// The API's name of a field of the file.
fn api_name(field: &str) -> &str {
    match field {
        "export_insights" => "dashboard_export_insights",
        "integration" => "integration_id",
        other => other,
    }
}

/// The write body of a subscription entry, every field set.
fn input(entry: &SubscriptionEntry, insights: &HashMap<String, i64>) -> SubscriptionInput {
    let id_of = |reference: &InsightRef| match reference {
        InsightRef::Short(short) => insights.get(short).copied(),
        InsightRef::Id(id) => Some(*id),
    };
    let date = |text: &str| {
        chrono::DateTime::parse_from_rfc3339(text)
            .ok()
            .map(|at| at.with_timezone(&chrono::Utc))
    };
    SubscriptionInput {
        dashboard: Some(entry.dashboard),
        insight: Some(entry.insight.as_ref().and_then(id_of)),
        target_type: Some(TargetType::from_wire(&entry.target_type)),
        target_value: Some(entry.target_value.clone()),
        frequency: Some(Frequency::from_wire(&entry.frequency)),
        interval: Some(entry.interval),
        byweekday: Some(Some(
            entry
                .byweekday
                .iter()
                .map(|day| Weekday::from_wire(day))
                .collect(),
        )),
        bysetpos: Some(entry.bysetpos),
        count: Some(entry.count),
        start_date: date(&entry.start_date),
        until_date: Some(entry.until_date.as_deref().and_then(date)),
        title: Some(entry.title.clone()),
        invite_message: Some(entry.invite_message.clone()),
        dashboard_export_insights: entry
            .dashboard
            .map(|_| entry.export_insights.iter().filter_map(id_of).collect()),
        prompt: entry.prompt.clone().map(Some),
        enabled: Some(entry.enabled),
        integration_id: Some(entry.integration),
        ..SubscriptionInput::default()
    }
}
