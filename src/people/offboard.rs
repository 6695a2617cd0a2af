//! Offboarding in one reviewed step: a plan made from a person's
//! [`Profile`], every step saying what it will do; then the steps run
//! (`steps`) a few at a time, each reading what it changes afresh just
//! before, so that a step already done (by an earlier run, or by someone
//! else) changes nothing, and a failed step leaves the others to finish.
//! Running it again finishes what failed. No edit sends a delivery to
//! anyone.
//!
//! Order: the roles, the subscriptions that mail them, those they created,
//! their keys (listed, nothing done), and last, when asked, the membership:
//! an owner is first made admin, since no owner can be removed.

use serde::Serialize;
use serde_json::Value;

use super::profile::{Found, Keys, Person, Profile, ProjectRef, recipients};
use crate::api::models::level;
use crate::text::plural;

pub use super::journal::{Journal, Outcome, Record, RecordAt, default_record_path};
pub use super::session::Session;
pub use super::steps::run;

/// Steps run at once.
pub const STEPS_AT_ONCE: usize = 4;

/// What the user chose beyond the plain plan.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Options {
    /// Pause what they created (else kept running, and said so).
    pub pause_created: bool,
    /// Soft-delete what mails them alone (else paused).
    pub delete_sole: bool,
    /// Finally remove them from the organization.
    pub remove_from_organization: bool,
}

/// What a step does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Action {
    /// Take them out of a role.
    LeaveRole {
        role_id: String,
        role: String,
        membership_id: String,
    },
    /// Change a subscription: drop their address, pause it, or soft-delete it.
    EditSubscription {
        project: i64,
        subscription: i64,
        /// Drop their address from the recipients.
        drop_recipient: bool,
        pause: bool,
        delete: bool,
        /// An AI report: the key needs `query:read` to change it.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        ai_prompt: bool,
    },
    /// Nothing to do but say so (a subscription kept, their keys).
    Note,
    /// Make an owner admin, so that they can be removed (PostHog never
    /// removes an owner); only another owner may.
    MakeAdmin { user_uuid: String },
    /// Remove them from the organization.
    RemoveMember { user_uuid: String },
}

/// Where a step stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Planned,
    Done,
    /// Already as the step would leave it: nothing sent.
    Unchanged,
    /// Nothing to do: the step only tells.
    Noted,
    Failed,
}

/// One step of the plan, and once run, its outcome.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Step {
    #[serde(flatten)]
    pub action: Action,
    /// What it does, in words.
    pub description: String,
    pub status: Status,
    /// The part of the object it changes, as it was and as it became.
    pub before: Option<Value>,
    pub after: Option<Value>,
    pub error: Option<String>,
}

impl Step {
    fn new(action: Action, description: String) -> Step {
        let status = if action == Action::Note {
            Status::Noted
        } else {
            Status::Planned
        };
        Step {
            action,
            description,
            status,
            before: None,
            after: None,
            error: None,
        }
    }

    /// Whether running it changes something on the server.
    pub fn writes(&self) -> bool {
        !matches!(self.action, Action::Note)
    }
}

/// A whole plan: who, with which options, and the steps.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    pub person: Person,
    pub options: Options,
    pub steps: Vec<Step>,
    /// What the plan could not see (a project not read).
    pub warnings: Vec<String>,
}

impl Plan {
    /// Steps that would change something.
    pub fn changes(&self) -> usize {
        self.steps.iter().filter(|step| step.writes()).count()
    }

    pub fn failed(&self) -> usize {
        self.count(Status::Failed)
    }

    pub fn count(&self, status: Status) -> usize {
        self.steps.iter().filter(|step| step.status == status).count()
    }
}

/// The plan for a person's profile.
pub fn plan(profile: &Profile, options: Options) -> Plan {
    let mut steps = Vec::new();
    for role in &profile.roles {
        steps.push(Step::new(
            Action::LeaveRole {
                role_id: role.id.clone(),
                role: role.name.clone(),
                membership_id: role.membership_id.clone(),
            },
            format!("remove from role \"{}\"", role.name),
        ));
    }
    let created = |found: &Found| {
        profile
            .created_subscriptions
            .iter()
            .any(|made| made.project.id == found.project.id && made.subscription.id == found.subscription.id)
    };
    for found in &profile.receiving_subscriptions {
        steps.push(received(found, created(found), options));
    }
    for found in &profile.created_subscriptions {
        let also_received = profile
            .receiving_subscriptions
            .iter()
            .any(|got| got.project.id == found.project.id && got.subscription.id == found.subscription.id);
        if !also_received {
            steps.push(made(found, options));
        }
    }
    if let Keys::Known(keys) = &profile.keys
        && keys.has_keys
    {
        let names: Vec<String> = keys
            .keys
            .iter()
            .map(|key| {
                let used = key
                    .last_used_at
                    .map(|at| format!("last used {}", at.format("%Y-%m-%d")))
                    .unwrap_or_else(|| "never used".into());
                format!("\"{}\" ({used})", key.label.as_deref().unwrap_or("unlabelled"))
            })
            .collect();
        let depends = profile
            .created_subscriptions
            .iter()
            .filter(|found| found.is_ai_report())
            .map(Found::label)
            .collect::<Vec<_>>();
        steps.push(Step::new(
            Action::Note,
            format!(
                "{} personal API key{}: {}; nothing is done to them here — {}{}",
                keys.keys.len(),
                plural(keys.keys.len()),
                names.join(", "),
                if options.remove_from_organization {
                    "they stop reaching this organization when the membership goes"
                } else {
                    "they keep working while they are a member"
                },
                if depends.is_empty() {
                    String::new()
                } else {
                    format!("; depend on them: {}", depends.join(", "))
                }
            ),
        ));
    }
    if let Keys::Unlisted { .. } = &profile.keys {
        steps.push(Step::new(
            Action::Note,
            format!(
                "{}, so orgdeck cannot tell whether they have any; nothing is done to keys here — {}",
                crate::people::profile::UNLISTED,
                if options.remove_from_organization {
                    "any they have stop reaching this organization when the membership goes"
                } else {
                    "any they have keep working while they are a member (--remove-from-organization ends that)"
                }
            ),
        ));
    }
    match (&profile.member, options.remove_from_organization) {
        (Some(member), true) if member.level >= level::OWNER => {
            steps.push(Step::new(
                Action::MakeAdmin {
                    user_uuid: member.user.uuid.clone(),
                },
                "make them admin: an owner cannot be removed, and only another owner may do this".into(),
            ));
            steps.push(Step::new(
                Action::RemoveMember {
                    user_uuid: member.user.uuid.clone(),
                },
                "then remove them from the organization (their role memberships go with it; what they created stays)"
                    .into(),
            ));
        }
        (Some(member), true) => steps.push(Step::new(
            Action::RemoveMember {
                user_uuid: member.user.uuid.clone(),
            },
            "remove from the organization (their role memberships go with it; what they created stays)"
                .into(),
        )),
        (Some(_), false) => steps.push(Step::new(
            Action::Note,
            "stay a member of the organization (--remove-from-organization removes them)".into(),
        )),
        (None, _) => steps.push(Step::new(
            Action::Note,
            "not a member of the organization (already removed)".into(),
        )),
    }
    Plan {
        person: profile.person.clone(),
        options,
        steps,
        warnings: profile.warnings.clone(),
    }
}

fn edit(found: &Found, drop_recipient: bool, pause: bool, delete: bool) -> Action {
    Action::EditSubscription {
        project: found.project.id,
        subscription: found.subscription.id,
        drop_recipient,
        pause,
        delete,
        ai_prompt: found.is_ai_report(),
    }
}

/// A subscription that mails them.
fn received(found: &Found, they_created: bool, options: Options) -> Step {
    let name = format!("{} ({})", found.label(), project_name(&found.project));
    let note = if they_created {
        if options.pause_created {
            "; they created it"
        } else {
            "; they created it, and it stays theirs"
        }
    } else {
        ""
    };
    let paused = found.subscription.enabled == Some(false);
    if found.sole_recipient {
        if paused && !options.delete_sole {
            return Step::new(
                Action::Note,
                format!("leave {name} paused: they are its only recipient, and it is paused already{note}"),
            );
        }
        if options.delete_sole {
            return Step::new(
                edit(found, false, false, true),
                format!("soft-delete {name}: they are its only recipient{note}"),
            );
        }
        return Step::new(
            edit(found, false, true, false),
            format!("pause {name}: they are its only recipient (--delete-sole deletes it){note}"),
        );
    }
    let pause = they_created && options.pause_created;
    let others = recipients(&found.subscription).count().saturating_sub(1);
    Step::new(
        edit(found, true, pause, false),
        format!(
            "take their address out of {name}, leaving {others} recipient{}{}{note}",
            plural(others),
            if pause { ", and pause it" } else { "" }
        ),
    )
}

/// A subscription they created that does not mail them.
fn made(found: &Found, options: Options) -> Step {
    let name = format!("{} ({})", found.label(), project_name(&found.project));
    let ai = if found.is_ai_report() {
        " — an AI report: once they leave it cannot be re-enabled"
    } else {
        ""
    };
    if options.pause_created && found.subscription.enabled == Some(false) {
        Step::new(
            Action::Note,
            format!("leave {name}, which they created, paused as it is{ai}"),
        )
    } else if options.pause_created {
        Step::new(
            edit(found, false, true, false),
            format!("pause {name}, which they created{ai}"),
        )
    } else {
        Step::new(
            Action::Note,
            format!("keep {name}, which they created: it goes on delivering (--pause-created pauses it){ai}"),
        )
    }
}

fn project_name(project: &ProjectRef) -> String {
    format!("project \"{}\"", project.name)
}
