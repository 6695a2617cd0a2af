//! Offboarding in one reviewed step: a plan made from a person's
//! [`Profile`], every step saying what it will do; then the steps run a
//! few at a time, each reading what it changes afresh just before, so that
//! a step already done (by an earlier run, or by someone else) changes
//! nothing, and a failed step leaves the others to finish. Running it
//! again finishes what failed. No edit sends a delivery to anyone.
//!
//! Order: the roles, the subscriptions that mail them, those they created,
//! their keys (listed, nothing done), and last, when asked, the membership.

use futures_util::StreamExt;
use serde::Serialize;
use serde_json::{Value, json};

use super::profile::{Found, Keys, Person, Profile, ProjectRef, recipients};
use crate::api::{Client, Subscription};
use crate::text::plural;

pub use super::record::{Record, Session, default_record_path, write_owner_only};

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
    },
    /// Nothing to do but say so (a subscription kept, their keys).
    Note,
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

/// Runs every step that writes, `STEPS_AT_ONCE` at a time (the removal
/// from the organization last, after the others), telling `report` of each
/// as it ends. `today` says whether the server is today's PostHog, which
/// takes `send_test_now: false` so that no edit delivers.
pub async fn run(
    client: &Client,
    organization: &str,
    plan: &mut Plan,
    today: bool,
    report: &mut (dyn FnMut(usize, &Step) + Send),
) {
    let email = plan.person.email.clone();
    let (last, first): (Vec<usize>, Vec<usize>) = (0..plan.steps.len())
        .filter(|&at| plan.steps[at].writes())
        .partition(|&at| matches!(plan.steps[at].action, Action::RemoveMember { .. }));
    for batch in [first, last] {
        let actions: Vec<(usize, Action)> = batch
            .into_iter()
            .map(|at| (at, plan.steps[at].action.clone()))
            .collect();
        let jobs = actions.into_iter().map(|(at, action)| {
            let email = email.clone();
            async move { (at, perform(client, organization, &action, &email, today).await) }
        });
        let mut running = futures_util::stream::iter(jobs).buffer_unordered(STEPS_AT_ONCE);
        while let Some((at, outcome)) = running.next().await {
            let step = &mut plan.steps[at];
            match outcome {
                Ok(Outcome {
                    changed,
                    before,
                    after,
                }) => {
                    step.status = if changed { Status::Done } else { Status::Unchanged };
                    step.before = before;
                    step.after = after;
                }
                Err(error) => {
                    step.status = Status::Failed;
                    step.error = Some(error);
                }
            }
            report(at, step);
        }
    }
}

struct Outcome {
    changed: bool,
    before: Option<Value>,
    after: Option<Value>,
}

async fn perform(
    client: &Client,
    organization: &str,
    action: &Action,
    email: &str,
    today: bool,
) -> Result<Outcome, String> {
    match action {
        Action::LeaveRole {
            role_id,
            role,
            membership_id,
        } => {
            client
                .remove_member(organization, role_id, membership_id)
                .await
                .map_err(|error| error.to_string())?;
            Ok(Outcome {
                changed: true,
                before: Some(json!({"role_id": role_id, "role": role, "membership_id": membership_id})),
                after: None,
            })
        }
        Action::EditSubscription {
            project,
            subscription,
            drop_recipient,
            pause,
            delete,
        } => {
            let project = project.to_string();
            let now = client
                .subscription(&project, *subscription)
                .await
                .map_err(|error| error.to_string())?;
            let Some(body) = change(&now, email, *drop_recipient, *pause, *delete, today)? else {
                return Ok(Outcome {
                    changed: false,
                    before: Some(shown(&now)),
                    after: Some(shown(&now)),
                });
            };
            let after = client
                .update_subscription(&project, *subscription, &body)
                .await
                .map_err(|error| error.to_string())?;
            Ok(Outcome {
                changed: true,
                before: Some(shown(&now)),
                after: Some(shown(&after)),
            })
        }
        Action::RemoveMember { user_uuid } => {
            client
                .remove_from_organization(organization, user_uuid)
                .await
                .map_err(|error| error.to_string())?;
            Ok(Outcome {
                changed: true,
                before: Some(json!({"member": email})),
                after: None,
            })
        }
        Action::Note => Ok(Outcome {
            changed: false,
            before: None,
            after: None,
        }),
    }
}

/// The fields a step may change, as they stand.
fn shown(subscription: &Subscription) -> Value {
    json!({
        "target_value": subscription.target_value,
        "enabled": subscription.enabled,
        "deleted": subscription.deleted,
    })
}

/// The PATCH that takes a subscription from how it is now to how the step
/// leaves it, or `None` when it is there already.
fn change(
    now: &Subscription,
    email: &str,
    drop_recipient: bool,
    pause: bool,
    delete: bool,
    today: bool,
) -> Result<Option<Value>, String> {
    let mut body = serde_json::Map::new();
    if drop_recipient {
        let kept: Vec<&str> = recipients(now)
            .filter(|address| !address.eq_ignore_ascii_case(email))
            .collect();
        let listed = recipients(now).count();
        if kept.len() < listed {
            if kept.is_empty() {
                // Someone else took the others out meanwhile: pause instead
                // of sending an empty list the server would refuse.
                if now.enabled != Some(false) {
                    body.insert("enabled".into(), json!(false));
                }
            } else {
                body.insert("target_value".into(), json!(kept.join(",")));
            }
        }
    }
    if delete && !now.deleted {
        body.insert("deleted".into(), json!(true));
    }
    if pause && !now.deleted {
        match now.enabled {
            Some(true) => {
                body.insert("enabled".into(), json!(false));
            }
            Some(false) => {}
            None => {
                return Err(
                    "this server's subscriptions cannot be paused (an older PostHog, no `enabled`): \
                     --delete-sole soft-deletes instead"
                        .into(),
                );
            }
        }
    }
    if body.is_empty() {
        return Ok(None);
    }
    if today {
        body.insert("send_test_now".into(), json!(false));
    }
    Ok(Some(Value::Object(body)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::enums::TargetType;

    fn mailing(to: &str, enabled: Option<bool>) -> Subscription {
        Subscription {
            id: 7,
            target_type: Some(TargetType::Email),
            target_value: Some(to.into()),
            enabled,
            ..Subscription::default()
        }
    }

    #[test]
    fn a_change_is_what_is_left_to_do_and_nothing_once_done() {
        let now = mailing("a@x.io, Leaver@x.io,b@x.io", Some(true));
        let body = change(&now, "leaver@x.io", true, false, false, true)
            .unwrap()
            .unwrap();
        assert_eq!(
            body,
            json!({"target_value": "a@x.io,b@x.io", "send_test_now": false})
        );
        let done = mailing("a@x.io,b@x.io", Some(true));
        assert_eq!(
            change(&done, "leaver@x.io", true, false, false, true).unwrap(),
            None
        );
        // The sole recipient's subscription is paused, once.
        let sole = mailing("leaver@x.io", Some(true));
        let body = change(&sole, "leaver@x.io", false, true, false, false)
            .unwrap()
            .unwrap();
        assert_eq!(body, json!({"enabled": false}));
        let paused = mailing("leaver@x.io", Some(false));
        assert_eq!(
            change(&paused, "leaver@x.io", false, true, false, true).unwrap(),
            None
        );
        // An older server cannot pause: said, not guessed.
        assert!(
            change(
                &mailing("leaver@x.io", None),
                "leaver@x.io",
                false,
                true,
                false,
                false
            )
            .is_err()
        );
        // Emptied meanwhile by someone else: paused rather than emptied.
        let body = change(
            &mailing("leaver@x.io", Some(true)),
            "leaver@x.io",
            true,
            false,
            false,
            false,
        )
        .unwrap()
        .unwrap();
        assert_eq!(body, json!({"enabled": false}));
    }
}
