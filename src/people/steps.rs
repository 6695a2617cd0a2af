//! Running an offboarding's steps: every step that writes, a few at a time,
//! each reading what it changes afresh just before (a step already done
//! changes nothing), a failed step leaving the others to finish. A stop
//! (Ctrl-C, a record that can no longer be written) lets the steps under
//! way end and starts no more.

use std::sync::atomic::{AtomicBool, Ordering};

use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use serde_json::{Value, json};

use super::offboard::{Action, Plan, STEPS_AT_ONCE, Status, Step};
use super::profile::recipients;
use crate::api::models::level;
use crate::api::{Client, Subscription};

/// Runs every step that writes, `STEPS_AT_ONCE` at a time (making an
/// owner admin, then removing them from the organization, last, after the
/// others), telling `report` of each as it ends. Once `stop` is set (by
/// Ctrl-C, or by `report` when the record cannot be written) no step
/// starts: those under way end and are reported, the rest stay planned.
/// `today` says whether the server is today's PostHog, which takes
/// `send_test_now: false` so that no edit delivers.
pub async fn run(
    client: &Client,
    organization: &str,
    plan: &mut Plan,
    today: bool,
    stop: &AtomicBool,
    report: &mut (dyn FnMut(usize, &Step) + Send),
) {
    let email = plan.person.email.clone();
    let phase = |action: &Action| match action {
        Action::MakeAdmin { .. } => 1,
        Action::RemoveMember { .. } => 2,
        _ => 0,
    };
    for current in 0..3 {
        let waiting: Vec<usize> = (0..plan.steps.len())
            .filter(|&at| plan.steps[at].writes() && phase(&plan.steps[at].action) == current)
            .collect();
        let mut waiting = waiting.into_iter();
        let mut running = FuturesUnordered::new();
        loop {
            while running.len() < STEPS_AT_ONCE && !stop.load(Ordering::SeqCst) {
                let Some(at) = waiting.next() else { break };
                if let Some(reason) = blocked(plan, at) {
                    let step = &mut plan.steps[at];
                    step.status = Status::Failed;
                    step.error = Some(reason);
                    report(at, step);
                    continue;
                }
                let (action, email) = (plan.steps[at].action.clone(), email.clone());
                running
                    .push(async move { (at, perform(client, organization, &action, &email, today).await) });
            }
            let Some((at, outcome)) = running.next().await else {
                break;
            };
            let step = &mut plan.steps[at];
            match outcome {
                Ok(Ended {
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
        if stop.load(Ordering::SeqCst) {
            return;
        }
    }
}

/// Why the step at `at` cannot be tried: removing an owner whose step to
/// admin did not succeed (the server would refuse it).
fn blocked(plan: &Plan, at: usize) -> Option<String> {
    if !matches!(plan.steps[at].action, Action::RemoveMember { .. }) {
        return None;
    }
    plan.steps
        .iter()
        .enumerate()
        .find(|(_, step)| {
            matches!(step.action, Action::MakeAdmin { .. })
                && !matches!(step.status, Status::Done | Status::Unchanged)
        })
        .map(|(number, _)| {
            format!(
                "not tried: they are still an owner (step {} did not make them admin)",
                number + 1
            )
        })
}

/// How a step that ran ended.
struct Ended {
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
) -> Result<Ended, String> {
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
            Ok(Ended {
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
            ..
        } => {
            let project = project.to_string();
            let now = client
                .subscription(&project, *subscription)
                .await
                .map_err(|error| error.to_string())?;
            let Some(body) = change(&now, email, *drop_recipient, *pause, *delete, today)? else {
                return Ok(Ended {
                    changed: false,
                    before: Some(shown(&now)),
                    after: Some(shown(&now)),
                });
            };
            let after = client
                .update_subscription(&project, *subscription, &body)
                .await
                .map_err(|error| error.to_string())?;
            Ok(Ended {
                changed: true,
                before: Some(shown(&now)),
                after: Some(shown(&after)),
            })
        }
        Action::MakeAdmin { user_uuid } => {
            let now = client
                .set_member_level(organization, user_uuid, level::ADMIN)
                .await
                .map_err(|error| error.to_string())?;
            Ok(Ended {
                changed: true,
                before: Some(json!({"member": email, "level": level::name(level::OWNER)})),
                after: Some(json!({"member": email, "level": level::name(now.level)})),
            })
        }
        Action::RemoveMember { user_uuid } => {
            client
                .remove_from_organization(organization, user_uuid)
                .await
                .map_err(|error| error.to_string())?;
            Ok(Ended {
                changed: true,
                before: Some(json!({"member": email})),
                after: None,
            })
        }
        Action::Note => Ok(Ended {
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
