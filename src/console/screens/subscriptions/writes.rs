//! What the Subscriptions screen asks the server to change, from its list,
//! its form, a subscription's deliveries or Health's board: a subscription
//! created or saved (a dashboard's exports filled in as PostHog's own form
//! does), soft-deleted or restored, tested, paused or resumed, each over the
//! one client; its words for a question and for a refusal; and the news its
//! success is for the other screens.

use crate::api::{self, Client, Raw, Subscription, SubscriptionInput};
use crate::console::kit::scope::Scope;
use crate::console::screens::Change;
use crate::console::screens::ScreenId;
use crate::console::screens::write::{self, Confirm, Landed, Landing, Then, Written};

/// A change to one subscription.
#[derive(Debug, Clone, PartialEq)]
pub enum Write {
    /// A new subscription from a form's body.
    Create {
        project: String,
        body: Box<SubscriptionInput>,
    },
    /// The changed fields of a subscription.
    Update {
        project: String,
        id: i64,
        body: Box<SubscriptionInput>,
    },
    /// `PATCH {"deleted": true}`: subscriptions are never hard-deleted.
    SoftDelete {
        project: String,
        id: i64,
    },
    Restore {
        project: String,
        id: i64,
    },
    /// `POST …/test-delivery/`: a delivery now (202, no body).
    TestDelivery {
        project: String,
        id: i64,
    },
    /// `PATCH {"enabled": …}`: pause, or resume.
    SetEnabled {
        project: String,
        id: i64,
        enabled: bool,
    },
}

impl Write {
    /// What the write does, in words, for a question.
    pub fn summary(&self) -> String {
        match self {
            Write::Create { .. } => "Create the subscription".into(),
            Write::Update { id, .. } => format!("Save subscription #{id}"),
            Write::SoftDelete { id, .. } => format!("Soft-delete subscription #{id}"),
            Write::Restore { id, .. } => format!("Restore subscription #{id}"),
            Write::TestDelivery { id, .. } => format!("Send a test delivery of #{id} to its recipients"),
            Write::SetEnabled {
                id, enabled: true, ..
            } => format!("Resume subscription #{id}"),
            Write::SetEnabled {
                id, enabled: false, ..
            } => format!("Pause subscription #{id}"),
        }
    }

    /// Sends it: one request (a dashboard's tiles read first where a body
    /// sets a dashboard without its exports).
    pub async fn send(&self, client: &Client) -> Result<Written, api::Error> {
        let subscription =
            |subscription: Raw<Subscription>| Written::Subscription(Box::new(subscription.into_typed()));
        match self {
            Write::Create { project, body } => {
                let body = with_exports(client, project, body).await?;
                client.create_subscription(project, &body).await.map(subscription)
            }
            Write::Update { project, id, body } => {
                let body = with_exports(client, project, body).await?;
                client
                    .update_subscription(project, *id, &body)
                    .await
                    .map(subscription)
            }
            Write::SoftDelete { project, id } => client
                .soft_delete_subscription(project, *id)
                .await
                .map(subscription),
            Write::Restore { project, id } => {
                client.restore_subscription(project, *id).await.map(subscription)
            }
            Write::TestDelivery { project, id } => client
                .test_delivery(project, *id)
                .await
                .map(|()| Written::Accepted),
            Write::SetEnabled { project, id, enabled } => {
                client.set_enabled(project, *id, *enabled).await.map(subscription)
            }
        }
    }

    /// The news its success is for every screen: the subscription made, or
    /// as the server now holds it.
    pub fn changes(&self, written: &Written) -> Vec<Change> {
        match (self, written) {
            (Write::Create { .. }, Written::Subscription(subscription)) => {
                vec![Change::SubscriptionMade(subscription.clone())]
            }
            (_, Written::Subscription(subscription)) => {
                vec![Change::SubscriptionChanged(subscription.clone())]
            }
            _ => Vec::new(),
        }
    }

    /// What its answer does: its news, the notice, and what only the
    /// shell starts (the undo offered, a delivery watched for, the
    /// subscription read again).
    pub fn land(&self, written: Written, at: &Landing) -> Landed {
        let changes = self.changes(&written);
        let landed = match (self, &written) {
            (Write::Create { .. }, Written::Subscription(subscription)) => {
                Landed::done(made(subscription)).closing()
            }
            (Write::Update { id, .. }, Written::Subscription(_)) => {
                Landed::done(format!("saved subscription #{id}")).then(Then::ForgetResumed)
            }
            (Write::SoftDelete { id, .. }, Written::Subscription(_)) => {
                Landed::done(format!("soft-deleted subscription #{id}: u to undo")).then(Then::OfferUndo(*id))
            }
            (Write::Restore { id, .. }, Written::Subscription(_)) => {
                Landed::done(format!("restored subscription #{id}"))
                    .then(Then::ForgetUndo)
                    .then(Then::Restored(*id))
            }
            (Write::TestDelivery { id, .. }, Written::Accepted) => Landed::done(format!(
                "test delivery of #{id} on its way: the console says how it went when it lands"
            ))
            .then(Then::Watch {
                id: *id,
                trigger: Some(api::TriggerType::Manual),
            })
            .then(Then::ReadAgain {
                id: *id,
                why: "tested",
            }),
            (Write::SetEnabled { id, .. }, Written::Subscription(subscription))
                if subscription.enabled.is_none() =>
            {
                // An older PostHog keeps no `enabled`: it took the body and ignored it.
                let delete = match at.shown {
                    ScreenId::Subscriptions => "d soft-deletes it instead",
                    _ => "d on its row of Subscriptions soft-deletes it instead",
                };
                Landed::failed(format!(
                    "#{id} was not paused: this server keeps no paused state (an older PostHog); {delete}"
                ))
                .then(Then::Still)
            }
            (Write::SetEnabled { id, enabled, .. }, Written::Subscription(subscription)) => {
                let next = subscription
                    .next_delivery_date
                    .map(|next| crate::display::next_delivery(Some(next), at.now, at.zone))
                    .unwrap_or_else(|| "none left".into());
                if *enabled {
                    // Resuming sends a confirmation delivery (posthog.md 8.4),
                    // which may pause it again: it is read again.
                    Landed::done(format!("resumed #{id}: next delivery {next}"))
                        .then(Then::Watch {
                            id: *id,
                            trigger: None,
                        })
                        .then(Then::ReadAgain {
                            id: *id,
                            why: "resumed",
                        })
                } else {
                    Landed::done(format!("paused #{id}: nothing is delivered until p resumes it"))
                }
            }
            _ => return Landed::unfit(self, &written),
        };
        landed.with(changes)
    }

    /// A refusal of a test, a pause or a resume in words that say what to
    /// do next (the on-call's keys); `None` for the others, whose error is
    /// shown as it is.
    pub fn refusal(&self, error: &api::Error) -> Option<String> {
        let detail = error
            .refusal()
            .map(|refusal| refusal.detail.clone())
            .filter(|detail| !detail.is_empty())
            .unwrap_or_else(|| error.to_string());
        match self {
            Write::TestDelivery { id, .. } => Some(match error.status() {
                Some(409) if detail.contains("disabled") => {
                    format!("no test delivery: #{id} is paused ({detail}) p resumes it")
                }
                Some(409) if detail.contains("in progress") => format!(
                    "no test delivery: one of #{id} is already in progress; its result shows in the deliveries (Enter)"
                ),
                Some(404) => format!(
                    "no test delivery: #{id} is soft-deleted or gone, or this server has no test deliveries (404)"
                ),
                Some(429) => format!(
                    "no test delivery: PostHog takes at most 10 a minute per project; try again shortly ({error})"
                ),
                _ => format!("test delivery of #{id} failed: {error}"),
            }),
            Write::SetEnabled {
                id, enabled: true, ..
            } => {
                let hint = if detail.contains("Slack") {
                    " e edits its target: choose a working Slack integration, or e-mail"
                } else if detail.contains("end date") {
                    " e edits it: a later until date, or no count"
                } else {
                    ""
                };
                Some(format!("cannot resume #{id}: {detail}{hint}"))
            }
            Write::SetEnabled {
                id, enabled: false, ..
            } => Some(format!("cannot pause #{id}: {error}")),
            Write::Create { .. }
            | Write::Update { .. }
            | Write::SoftDelete { .. }
            | Write::Restore { .. } => None,
        }
    }
}

/// `d` on a subscription: the question before it is soft-deleted (`None`
/// for one that is already).
pub fn ask_soft_delete(subscription: &Subscription, scope: Scope) -> Option<Confirm> {
    if subscription.deleted {
        return None;
    }
    let name = match (
        super::words::title(subscription),
        super::words::delivered(subscription),
    ) {
        (Some(title), _) => title.to_string(),
        (None, Some(delivered)) => format!("(untitled: {delivered})"),
        (None, None) => "(untitled)".into(),
    };
    let question = format!(
        "Soft-delete subscription #{} {name}? (u restores it)",
        subscription.id
    );
    let write = write::Write::Subscription(Write::SoftDelete {
        project: scope.project.to_string(),
        id: subscription.id,
    });
    Some(Confirm::write(question, write, true))
}

/// A new subscription in words: its id, its summary, the dashboard's
/// insights it exports.
fn made(subscription: &Subscription) -> String {
    let exports = match subscription.dashboard_export_insights.as_deref() {
        Some([one]) => format!(", exporting insight {one} of the dashboard"),
        Some(exports) if !exports.is_empty() => {
            format!(", exporting {} insights of the dashboard", exports.len())
        }
        _ => String::new(),
    };
    format!(
        "created subscription #{}: {}{exports}",
        subscription.id,
        subscription.summary.clone().unwrap_or_default()
    )
}

/// A body that sets a dashboard without saying which of its insights to
/// export exports every one on it, as PostHog's own form starts with (the
/// cap is the server's to say: its refusal lands on the form); on a server
/// that shows no tiles (an older PostHog) the body goes as it is.
pub async fn with_exports(
    client: &Client,
    project: &str,
    body: &SubscriptionInput,
) -> Result<SubscriptionInput, api::Error> {
    let mut body = body.clone();
    if let Some(Some(dashboard)) = body.dashboard
        && body.dashboard_export_insights.is_none()
        && let Some(found) = client.dashboard_tiles(project, dashboard).await?
    {
        let chosen: Vec<i64> = found.default_exports().iter().map(|insight| insight.id).collect();
        body.dashboard_export_insights = Some(chosen);
    }
    Ok(body)
}
