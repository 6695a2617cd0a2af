//! The health of one subscription, in one word, from its fields and its
//! newest deliveries: the same in every face (the CLI's `subs health`, the
//! console's Health view), and what on-call reads first: whether it is
//! reaching people, since when, who it fails for and what fixes it.
//!
//! Pure: no I/O, no clock of its own. The look that fetches the deliveries
//! and keeps what it learnt is `crate::health`.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use super::deliveries::Delivery;
use super::enums::{DeliveryStatus, RecipientStatus, TargetType};
use super::models::Subscription;

/// A subscription is overdue when its next delivery is this far past with
/// no delivery since (PostHog schedules 15 minutes ahead, posthog.md 8.5).
pub const OVERDUE_AFTER: Duration = Duration::minutes(15);

/// How many failed recipients an assessment names.
pub const NAMED_RECIPIENTS: usize = 3;

/// One word for a subscription's health, worst first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Health {
    /// The newest finished delivery failed for every recipient.
    Failing,
    /// It reached some recipients and failed others.
    Partial,
    /// Paused by the server after failing.
    AutoDisabled,
    /// A target type the server no longer delivers (webhook).
    Unsupported,
    /// Enabled, its next delivery more than 15 minutes past, none since.
    Overdue,
    /// Paused by a person.
    Paused,
    /// No delivery left in its schedule.
    Ended,
    /// Not looked at yet, or the server keeps no history.
    Unknown,
    /// Never delivered yet.
    New,
    Ok,
}

impl Health {
    pub const ALL: [Health; 10] = [
        Health::Failing,
        Health::Partial,
        Health::AutoDisabled,
        Health::Unsupported,
        Health::Overdue,
        Health::Paused,
        Health::Ended,
        Health::Unknown,
        Health::New,
        Health::Ok,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Health::Failing => "failing",
            Health::Partial => "partial",
            Health::AutoDisabled => "auto-disabled",
            Health::Unsupported => "unsupported",
            Health::Overdue => "overdue",
            Health::Paused => "paused",
            Health::Ended => "ended",
            Health::Unknown => "unknown",
            Health::New => "new",
            Health::Ok => "ok",
        }
    }

    /// Not reaching people: what pages on-call (`subs health --check`).
    pub fn pages(self) -> bool {
        matches!(self, Health::Failing | Health::Partial | Health::AutoDisabled)
    }

    /// Worth looking at again at every look, whatever else changed.
    pub fn is_unhealthy(self) -> bool {
        matches!(
            self,
            Health::Failing | Health::Partial | Health::AutoDisabled | Health::Overdue | Health::Unknown
        )
    }
}

impl std::fmt::Display for Health {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Health {
    type Err = String;

    fn from_str(text: &str) -> Result<Health, String> {
        let wanted = text.trim().to_ascii_lowercase().replace('_', "-");
        Health::ALL
            .into_iter()
            .find(|health| {
                health.as_str() == wanted || (wanted == "autodisabled" && *health == Health::AutoDisabled)
            })
            .ok_or_else(|| {
                format!(
                    "\"{text}\" is not a health: {}",
                    Health::ALL.map(Health::as_str).join(", ")
                )
            })
    }
}

/// A recipient a delivery did not reach, and why in the server's words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailedRecipient {
    pub recipient: String,
    pub error: String,
}

/// A subscription's health and what goes with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Assessment {
    pub health: Health,
    /// Since when it has been so: the first delivery of the streak, the
    /// missed delivery of an overdue one.
    pub since: Option<DateTime<Utc>>,
    /// Deliveries in a row with the same outcome.
    pub streak: u32,
    /// The newest finished delivery.
    pub last_delivery: Option<DateTime<Utc>>,
    /// The first few recipients the newest delivery failed for.
    pub failed_recipients: Vec<FailedRecipient>,
    /// What fixes it, in words and keys.
    pub fix: Option<String>,
}

/// How one finished delivery went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Reached,
    Partly,
    Failed,
}

fn outcome(delivery: &Delivery) -> Option<Outcome> {
    match delivery.status {
        Some(DeliveryStatus::Completed) | Some(DeliveryStatus::Failed) => {}
        _ => return None,
    }
    let results = &delivery.recipient_results;
    let failed = results.iter().filter(|result| recipient_failed(result)).count();
    let partly = results
        .iter()
        .filter(|result| result.status == Some(RecipientStatus::Partial))
        .count();
    if delivery.status == Some(DeliveryStatus::Failed) || (!results.is_empty() && failed == results.len()) {
        Some(Outcome::Failed)
    } else if failed + partly > 0 {
        Some(Outcome::Partly)
    } else {
        Some(Outcome::Reached)
    }
}

fn recipient_failed(result: &super::deliveries::RecipientResult) -> bool {
    result.status == Some(RecipientStatus::Failed) || (result.status.is_none() && result.error.is_some())
}

/// The recipients a delivery did not reach (failed or partly), with the
/// error's message; the delivery's own error when it names none.
fn failed_recipients(delivery: &Delivery) -> Vec<FailedRecipient> {
    let mut named: Vec<FailedRecipient> = delivery
        .recipient_results
        .iter()
        .filter(|result| recipient_failed(result) || result.status == Some(RecipientStatus::Partial))
        .take(NAMED_RECIPIENTS)
        .map(|result| FailedRecipient {
            recipient: result.recipient.clone(),
            error: result
                .error
                .as_ref()
                .and_then(|error| error.message.clone().or_else(|| error.kind.clone()))
                .unwrap_or_else(|| "failed (no reason given)".into()),
        })
        .collect();
    if named.is_empty()
        && let Some(message) = delivery
            .error
            .as_ref()
            .and_then(|error| error.get("message"))
            .and_then(|message| message.as_str())
    {
        named.push(FailedRecipient {
            recipient: delivery.target_value.clone().unwrap_or_default(),
            error: message.to_string(),
        });
    }
    named
}

/// The kinds and messages of a delivery's errors, lower-cased, for
/// finding the fix.
fn error_words(delivery: &Delivery) -> String {
    let mut words = String::new();
    for result in &delivery.recipient_results {
        if let Some(error) = &result.error {
            words.push_str(&error.kind.clone().unwrap_or_default());
            words.push(' ');
            words.push_str(&error.message.clone().unwrap_or_default());
            words.push(' ');
        }
    }
    if let Some(error) = &delivery.error {
        words.push_str(&error.to_string());
    }
    words.to_lowercase()
}

/// What fixes a delivery's failure, from its errors' kinds and words.
pub fn fix_for(delivery: &Delivery, target: Option<&TargetType>) -> String {
    let words = error_words(delivery);
    let has = |needle: &str| words.contains(needle);
    if has("slackintegrationinactive")
        || has("slack_integration_inactive")
        || has("no longer active")
        || has("revoked")
    {
        "Slack integration revoked: e edits the target (another integration), or reconnect Slack in PostHog"
            .into()
    } else if has("slackintegrationmissing") || has("no slack integration") {
        "no Slack integration: e chooses one".into()
    } else if has("not_in_channel") || has("not in channel") {
        "the PostHog app is not in the channel: invite it, or e picks another channel".into()
    } else if has("channel_not_found") || has("is_archived") || has("archived") {
        "the channel is archived or gone: e picks another channel".into()
    } else if has("does not exist") || has("recipientsrefused") || has("no such user") || has("mailbox") {
        "address does not exist: remove it from the recipients (e)".into()
    } else if matches!(target, Some(TargetType::Slack)) {
        "Slack refused the delivery: check the channel and the integration (e)".into()
    } else {
        "the delivery failed: read the error, then e edits the target or t tests again".into()
    }
}

/// The state of the Slack integration a subscription posts through, as the
/// project's integrations list tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Connection {
    /// Listed and without errors.
    Working,
    /// Listed with errors: revoked or uninstalled.
    Revoked,
    /// None set, or one the list does not hold.
    Missing,
    /// The list could not be read (the key may lack `integration:read`):
    /// only its deliveries can tell.
    Unknown,
}

/// How many recipients a target names: each address of an e-mail target,
/// one channel for Slack.
pub fn recipients(target_type: Option<&TargetType>, target_value: Option<&str>) -> u32 {
    match target_type {
        Some(TargetType::Email) => {
            let count = target_value
                .unwrap_or_default()
                .split(',')
                .filter(|address| !address.trim().is_empty())
                .count();
            u32::try_from(count).unwrap_or(u32::MAX)
        }
        _ => 1,
    }
}

/// What a subscription's fields, and the project's integrations, settle
/// of its health without any delivery read: a channel PostHog no longer
/// delivers to, a Slack target whose integration is revoked or missing
/// (auto-disabled once paused, failing while it is still enabled, since
/// its next delivery cannot reach anyone), paused by a person, a schedule
/// that has ended, a delivery missed. `None`: only its deliveries can tell
/// (whether the last ones reached people, or whether it was ever
/// delivered).
pub fn from_fields(
    subscription: &Subscription,
    connection: Connection,
    now: DateTime<Utc>,
) -> Option<Assessment> {
    let settled = |health: Health, since: Option<DateTime<Utc>>, fix: Option<String>| Assessment {
        health,
        since,
        streak: 0,
        last_delivery: None,
        failed_recipients: Vec::new(),
        fix,
    };
    let supported = matches!(
        subscription.target_type,
        Some(TargetType::Email) | Some(TargetType::Slack) | None
    );
    if !supported {
        return Some(settled(
            Health::Unsupported,
            None,
            Some(unsupported_fix(subscription)),
        ));
    }
    let enabled = subscription.enabled != Some(false);
    let slack = subscription.target_type == Some(TargetType::Slack);
    if slack && matches!(connection, Connection::Revoked | Connection::Missing) {
        let fix = match connection {
            Connection::Revoked => {
                "Slack integration revoked: e edits the target (another integration), or reconnect Slack in PostHog"
            }
            _ => "no Slack integration: e chooses one",
        };
        return Some(if enabled {
            settled(
                Health::Failing,
                None,
                Some(format!("{fix}; its next delivery cannot reach anyone")),
            )
        } else {
            settled(
                Health::AutoDisabled,
                None,
                Some(format!("{fix}; then p resumes it")),
            )
        });
    }
    if !enabled {
        // A Slack one whose integration is not known may have been paused
        // by the server: its deliveries tell.
        if slack && connection == Connection::Unknown {
            return None;
        }
        return Some(settled(
            Health::Paused,
            None,
            Some("paused by a person: p resumes it".into()),
        ));
    }
    match subscription.next_delivery_date {
        None => Some(settled(
            Health::Ended,
            None,
            Some("its schedule has ended: e gives it a later until date, or no count".into()),
        )),
        Some(next) if next + OVERDUE_AFTER < now => Some(Assessment {
            streak: 1,
            ..settled(
                Health::Overdue,
                Some(next),
                Some("PostHog has not delivered it since it was due: t sends a test to check".into()),
            )
        }),
        Some(_) => None,
    }
}

fn unsupported_fix(subscription: &Subscription) -> String {
    format!(
        "PostHog no longer delivers to {}: make an e-mail or Slack subscription in its place",
        subscription
            .target_type
            .as_ref()
            .map_or("this target", |kind| kind.as_str())
    )
}

/// The subscription's health from its fields and its newest deliveries
/// (newest first), or from its fields alone when `deliveries` is `None`
/// (not looked at, or the server keeps no history).
pub fn assess(
    subscription: &Subscription,
    deliveries: Option<&[Delivery]>,
    now: DateTime<Utc>,
) -> Assessment {
    let mut assessment = Assessment {
        health: Health::Unknown,
        since: None,
        streak: 0,
        last_delivery: None,
        failed_recipients: Vec::new(),
        fix: None,
    };
    let finished: Vec<(&Delivery, Outcome)> = deliveries
        .unwrap_or_default()
        .iter()
        .filter_map(|delivery| outcome(delivery).map(|outcome| (delivery, outcome)))
        .collect();
    if let Some(&(newest, newest_outcome)) = finished.first() {
        let streak: Vec<&(&Delivery, Outcome)> = finished
            .iter()
            .take_while(|(_, outcome)| *outcome == newest_outcome)
            .collect();
        assessment.streak = u32::try_from(streak.len()).unwrap_or(u32::MAX);
        assessment.since = streak.last().and_then(|(delivery, _)| delivery.created_at);
        assessment.last_delivery = newest.created_at;
        if newest_outcome != Outcome::Reached {
            assessment.failed_recipients = failed_recipients(newest);
            assessment.fix = Some(fix_for(newest, subscription.target_type.as_ref()));
        }
    }
    let newest_outcome = finished.first().map(|(_, outcome)| *outcome);
    let supported = matches!(
        subscription.target_type,
        Some(TargetType::Email) | Some(TargetType::Slack) | None
    );
    let enabled = subscription.enabled != Some(false);
    let next = subscription.next_delivery_date;
    assessment.health = if !supported {
        assessment.fix = Some(unsupported_fix(subscription));
        Health::Unsupported
    } else if !enabled {
        if newest_outcome == Some(Outcome::Failed) {
            let fix = assessment.fix.take().unwrap_or_default();
            assessment.fix = Some(format!("{fix}; then p resumes it"));
            Health::AutoDisabled
        } else {
            assessment.fix = Some("paused by a person: p resumes it".into());
            Health::Paused
        }
    } else if deliveries.is_none() {
        if next.is_none() {
            Health::Ended
        } else {
            Health::Unknown
        }
    } else if newest_outcome == Some(Outcome::Failed) {
        Health::Failing
    } else if newest_outcome == Some(Outcome::Partly) {
        Health::Partial
    } else if let Some(next) = next.filter(|next| *next + OVERDUE_AFTER < now)
        && deliveries
            .unwrap_or_default()
            .iter()
            .all(|delivery| delivery.created_at.is_none_or(|at| at < next))
    {
        assessment.since = Some(next);
        assessment.streak = 1;
        assessment.fix =
            Some("PostHog has not delivered it since it was due: t sends a test to check".into());
        Health::Overdue
    } else if next.is_none() {
        assessment.fix = Some("its schedule has ended: e gives it a later until date, or no count".into());
        Health::Ended
    } else if finished.is_empty() {
        assessment.since = subscription.created_at;
        Health::New
    } else {
        Health::Ok
    };
    assessment
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::deliveries::{DeliveryError, RecipientResult};

    fn at(hours_ago: i64) -> DateTime<Utc> {
        now() - Duration::hours(hours_ago)
    }

    fn now() -> DateTime<Utc> {
        crate::api::time::parse_datetime("2026-11-25T12:00:00Z").unwrap()
    }

    fn subscription(target: TargetType, enabled: bool, next: Option<DateTime<Utc>>) -> Subscription {
        Subscription {
            id: 7,
            target_type: Some(target),
            target_value: Some("a@x.dev,b@gone.invalid".into()),
            enabled: Some(enabled),
            next_delivery_date: next,
            created_at: Some(at(24 * 30)),
            ..Subscription::default()
        }
    }

    fn result(recipient: &str, status: RecipientStatus, error: Option<(&str, &str)>) -> RecipientResult {
        RecipientResult {
            recipient: recipient.into(),
            status: Some(status),
            error: error.map(|(kind, message)| DeliveryError {
                message: Some(message.into()),
                kind: Some(kind.into()),
            }),
        }
    }

    fn delivery(hours_ago: i64, status: DeliveryStatus, results: Vec<RecipientResult>) -> Delivery {
        Delivery {
            id: format!("d{hours_ago}"),
            status: Some(status),
            created_at: Some(at(hours_ago)),
            recipient_results: results,
            ..Delivery::default()
        }
    }

    fn ok(hours_ago: i64) -> Delivery {
        delivery(
            hours_ago,
            DeliveryStatus::Completed,
            vec![result("a@x.dev", RecipientStatus::Success, None)],
        )
    }

    fn gone(hours_ago: i64) -> Delivery {
        delivery(
            hours_ago,
            DeliveryStatus::Completed,
            vec![
                result("a@x.dev", RecipientStatus::Success, None),
                result(
                    "b@gone.invalid",
                    RecipientStatus::Failed,
                    Some(("SMTPRecipientsRefused", "Domain gone.invalid does not exist")),
                ),
            ],
        )
    }

    fn revoked(hours_ago: i64) -> Delivery {
        delivery(
            hours_ago,
            DeliveryStatus::Failed,
            vec![result(
                "C1|#ops",
                RecipientStatus::Failed,
                Some((
                    "SlackIntegrationInactive",
                    "Your Slack connection is no longer active.",
                )),
            )],
        )
    }

    #[test]
    fn each_health_from_a_history_made_for_it() {
        let later = Some(now() + Duration::hours(20));
        let email = subscription(TargetType::Email, true, later);
        let partial = assess(&email, Some(&[gone(4), gone(28), ok(52)]), now());
        assert_eq!(partial.health, Health::Partial);
        assert_eq!((partial.streak, partial.since), (2, Some(at(28))));
        assert_eq!(partial.failed_recipients[0].recipient, "b@gone.invalid");
        assert!(
            partial
                .fix
                .as_deref()
                .unwrap()
                .starts_with("address does not exist")
        );

        let slack = subscription(TargetType::Slack, true, later);
        let failing = assess(&slack, Some(&[revoked(1), ok(25)]), now());
        assert_eq!((failing.health, failing.streak), (Health::Failing, 1));
        assert!(
            failing
                .fix
                .as_deref()
                .unwrap()
                .starts_with("Slack integration revoked")
        );

        let disabled = subscription(TargetType::Slack, false, later);
        let auto = assess(&disabled, Some(&[revoked(1)]), now());
        assert_eq!(auto.health, Health::AutoDisabled);
        assert!(auto.fix.as_deref().unwrap().ends_with("p resumes it"));
        assert_eq!(assess(&disabled, Some(&[ok(1)]), now()).health, Health::Paused);

        let webhook = subscription(TargetType::Other("webhook".into()), true, later);
        assert_eq!(assess(&webhook, Some(&[]), now()).health, Health::Unsupported);

        let late = subscription(TargetType::Email, true, Some(at(2)));
        let overdue = assess(&late, Some(&[ok(26)]), now());
        assert_eq!((overdue.health, overdue.since), (Health::Overdue, Some(at(2))));
        // Not overdue within the 15 minutes, nor once a delivery came.
        let just = subscription(TargetType::Email, true, Some(now() - Duration::minutes(10)));
        assert_eq!(assess(&just, Some(&[ok(26)]), now()).health, Health::Ok);
        assert_eq!(assess(&late, Some(&[ok(1)]), now()).health, Health::Ok);

        let ended = subscription(TargetType::Email, true, None);
        assert_eq!(assess(&ended, Some(&[ok(30)]), now()).health, Health::Ended);
        assert_eq!(assess(&email, Some(&[]), now()).health, Health::New);
        assert_eq!(assess(&email, None, now()).health, Health::Unknown);
        let fine = assess(&email, Some(&[ok(4), ok(28), gone(52)]), now());
        assert_eq!(
            (fine.health, fine.streak, fine.since),
            (Health::Ok, 2, Some(at(28)))
        );
        assert!(fine.failed_recipients.is_empty() && fine.fix.is_none());
    }

    #[test]
    fn a_partial_recipient_is_partial_and_skipped_deliveries_do_not_count() {
        let email = subscription(TargetType::Email, true, Some(now() + Duration::hours(3)));
        let partly = delivery(
            2,
            DeliveryStatus::Completed,
            vec![result("team@x.dev", RecipientStatus::Partial, None)],
        );
        let skipped = delivery(1, DeliveryStatus::Skipped, Vec::new());
        let assessed = assess(&email, Some(&[skipped, partly, ok(26)]), now());
        assert_eq!(assessed.health, Health::Partial);
        assert_eq!(assessed.last_delivery, Some(at(2)));
    }

    #[test]
    fn the_fields_settle_what_they_can_and_leave_the_rest_to_the_deliveries() {
        let later = Some(now() + Duration::hours(20));
        let settled = |subscription: &Subscription, connection: Connection| {
            from_fields(subscription, connection, now()).map(|assessment| assessment.health)
        };
        let email = subscription(TargetType::Email, true, later);
        assert_eq!(settled(&email, Connection::Working), None, "its deliveries tell");
        let slack = subscription(TargetType::Slack, true, later);
        assert_eq!(settled(&slack, Connection::Working), None);
        assert_eq!(settled(&slack, Connection::Unknown), None);
        // Through a revoked or missing integration: it cannot reach anyone.
        assert_eq!(settled(&slack, Connection::Revoked), Some(Health::Failing));
        assert_eq!(settled(&slack, Connection::Missing), Some(Health::Failing));
        let paused_slack = subscription(TargetType::Slack, false, later);
        let auto = from_fields(&paused_slack, Connection::Revoked, now()).unwrap();
        assert_eq!(auto.health, Health::AutoDisabled);
        assert!(auto.fix.unwrap().ends_with("then p resumes it"));
        assert_eq!(settled(&paused_slack, Connection::Working), Some(Health::Paused));
        // Paused by the server or by a person: only its deliveries can tell.
        assert_eq!(settled(&paused_slack, Connection::Unknown), None);
        let paused = subscription(TargetType::Email, false, later);
        assert_eq!(settled(&paused, Connection::Working), Some(Health::Paused));
        let webhook = subscription(TargetType::Other("webhook".into()), true, later);
        assert_eq!(settled(&webhook, Connection::Working), Some(Health::Unsupported));
        let ended = subscription(TargetType::Email, true, None);
        assert_eq!(settled(&ended, Connection::Working), Some(Health::Ended));
        let late = subscription(TargetType::Email, true, Some(at(2)));
        let overdue = from_fields(&late, Connection::Working, now()).unwrap();
        assert_eq!((overdue.health, overdue.since), (Health::Overdue, Some(at(2))));
        let just = subscription(TargetType::Email, true, Some(now() - Duration::minutes(10)));
        assert_eq!(settled(&just, Connection::Working), None, "within the 15 minutes");
        assert_eq!(
            recipients(Some(&TargetType::Email), Some("a@x.dev, b@x.dev,, ")),
            2
        );
        assert_eq!(recipients(Some(&TargetType::Slack), Some("C1|#ops")), 1);
    }

    #[test]
    fn healths_read_back_and_sort_worst_first() {
        for health in Health::ALL {
            assert_eq!(health.as_str().parse::<Health>(), Ok(health));
        }
        let mut shuffled = [Health::Ok, Health::Paused, Health::Failing, Health::Overdue];
        shuffled.sort();
        assert_eq!(
            shuffled,
            [Health::Failing, Health::Overdue, Health::Paused, Health::Ok]
        );
        assert!("broken".parse::<Health>().is_err());
        assert_eq!(
            serde_json::to_string(&Health::AutoDisabled).unwrap(),
            "\"auto-disabled\""
        );
    }
}
