//! What on-call runs against one subscription: its deliveries, a test
//! delivery, pause and resume.

use super::super::output::{self, Format, fixed, flexible};
use super::super::{Exit, UsageError, date};
use crate::api::health::assess;
use crate::api::{Client, Delivery, DeliveryStatus, Raw, RecipientCounts, RecipientStatus};
use crate::display::{Zone, when};

/// What `subs deliveries` says on a server without the endpoint.
pub const NO_HISTORY: &str = "this server keeps no delivery history";

/// What `subs test` says on a server without the endpoint (an older
/// PostHog answers a bare `404 Endpoint not found`).
pub const NO_TEST: &str = "this server has no test delivery (an older PostHog)";

/// `subs deliveries ID [--status S] [--limit N]`.
pub async fn list(
    client: &Client,
    project: &str,
    id: i64,
    status: Option<&str>,
    limit: usize,
    format: Format,
) -> anyhow::Result<()> {
    let status = status.map(DeliveryStatus::from_wire);
    // Kept as the server sent them, for `-o json`.
    let deliveries: Vec<Raw<Delivery>> =
        match client.all_deliveries(project, id, status.as_ref(), limit).await {
            Ok(deliveries) => deliveries,
            Err(error) if error.keeps_no_history() => {
                // The subscription itself may be what is missing: ask, to say which.
                client.subscription(project, id).await?;
                return Err(anyhow::anyhow!("{NO_HISTORY} (subscription {id} exists)"));
            }
            Err(error) => return Err(error.into()),
        };
    match format {
        Format::Json => output::print_json(&deliveries),
        Format::Table if deliveries.is_empty() => output::print(&format!(
            "no deliveries{} for subscription {id}\n",
            status.map(|s| format!(" with status {s}")).unwrap_or_default()
        )),
        Format::Table => {
            let typed: Vec<Delivery> = deliveries.into_iter().map(Raw::into_typed).collect();
            output::print(&table(&typed))
        }
    }
}

fn table(deliveries: &[Delivery]) -> String {
    let rows: Vec<Vec<String>> = deliveries
        .iter()
        .map(|delivery| {
            let counts = delivery.recipient_counts();
            vec![
                when(delivery.scheduled_at.or(delivery.created_at), Zone::Utc),
                delivery
                    .trigger_type
                    .as_ref()
                    .map(|trigger| trigger.as_str().replace('_', " "))
                    .unwrap_or_default(),
                delivery.status.as_ref().map(status_text).unwrap_or_default(),
                delivered(&counts),
                failures(delivery),
            ]
        })
        .collect();
    let columns = [
        fixed("TIME (UTC)"),
        fixed("TRIGGER"),
        fixed("STATUS"),
        fixed("DELIVERED"),
        flexible("FAILED RECIPIENTS AND ERRORS"),
    ];
    output::table(&columns, &rows, output::output_width())
}

/// "2/2", or "1/2, 1 partial" when a recipient was reached in part.
fn delivered(counts: &RecipientCounts) -> String {
    let shown = format!("{}/{}", counts.ok, counts.total());
    match counts.partial {
        0 => shown,
        partial => format!("{shown}, {partial} partial"),
    }
}

/// Failed recipients with their errors, and the delivery's own error.
fn failures(delivery: &Delivery) -> String {
    let mut parts: Vec<String> = delivery
        .recipient_results
        .iter()
        .filter(|result| result.status != Some(RecipientStatus::Success))
        .map(|result| {
            let error = result
                .error
                .as_ref()
                .and_then(|error| error.message.clone())
                .unwrap_or_else(|| result.status.as_ref().map(|s| s.to_string()).unwrap_or_default());
            format!("{}: {error}", result.recipient)
        })
        .collect();
    if parts.is_empty()
        && let Some(error) = delivery.error_text()
    {
        parts.push(error);
    }
    parts.join("; ")
}

/// A failed delivery stands out in a table of completed ones.
fn status_text(status: &DeliveryStatus) -> String {
    match status {
        DeliveryStatus::Failed => "FAILED".into(),
        other => other.to_string(),
    }
}

/// `subs test ID`: asks for a delivery now, then reads the subscription
/// again: a delivery that fails may make the server pause it, and that is
/// said.
pub async fn test(client: &Client, project: &str, id: i64, format: Format) -> anyhow::Result<()> {
    match client.test_delivery(project, id).await {
        Ok(()) => {}
        Err(error) if error.status() == Some(404) => {
            // The subscription itself may be what is missing: ask, to say which.
            client.subscription(project, id).await?;
            return Err(anyhow::anyhow!(
                "{NO_TEST}: subscription {id} exists, and nothing was sent; its next delivery comes on its schedule"
            ));
        }
        Err(error) => return Err(error.into()),
    }
    match format {
        Format::Json => output::print_json(&serde_json::json!({"id": id, "test_delivery": "scheduled"}))?,
        Format::Table => output::print(&format!(
            "test delivery of subscription {id} scheduled; see how it went with: orgdeck subs deliveries {id}\n"
        ))?,
    }
    if let Some(why) = paused_by_the_server(client, project, id).await? {
        eprintln!("orgdeck: the server paused subscription {id} after the test: {why}");
    }
    Ok(())
}

/// Why the server paused a subscription, read from its newest deliveries,
/// when it is paused (`None` when it is not).
async fn paused_by_the_server(client: &Client, project: &str, id: i64) -> anyhow::Result<Option<String>> {
    let subscription = client.subscription(project, id).await?.into_typed();
    if subscription.enabled != Some(false) {
        return Ok(None);
    }
    let deliveries: Vec<Delivery> = match client.deliveries(project, id, None).await {
        Ok(page) => page.results,
        Err(error) if error.keeps_no_history() => Vec::new(),
        Err(error) => return Err(error.into()),
    };
    let assessed = assess(&subscription, Some(&deliveries), crate::clock::system_now());
    let failure = assessed
        .failed_recipients
        .first()
        .map(|first| format!("{}: {}", first.recipient, first.error));
    let why = [failure, assessed.fix]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join("; ");
    Ok(Some(if why.is_empty() {
        "it gave no reason".into()
    } else {
        crate::text::printable(&why).into_owned()
    }))
}

/// `subs pause ID` and `subs resume ID`.
pub async fn set_enabled(
    client: &Client,
    project: &str,
    id: i64,
    enabled: bool,
    format: Format,
) -> anyhow::Result<()> {
    if !enabled && let Some(warning) = client.subscription(project, id).await?.pause_warning() {
        // Paused, it can never come back: said before it goes.
        eprintln!("orgdeck: warning: {}", crate::text::printable(&warning));
    }
    let subscription = client.set_enabled(project, id, enabled).await?;
    if subscription.enabled.is_none() {
        return Err(UsageError(format!(
            "this server's subscriptions cannot be {}: it has no `enabled` (an older PostHog)",
            if enabled { "resumed" } else { "paused" }
        ))
        .into());
    }
    // The server may pause it again at once (PostHog: moments later),
    // when what it delivers through is broken: read it again to know.
    let again = if enabled {
        paused_by_the_server(client, project, id).await?
    } else {
        None
    };
    match format {
        Format::Json => output::print_json(&subscription)?,
        Format::Table => output::print(&format!(
            "{} subscription {id}{}\n",
            if enabled { "resumed" } else { "paused" },
            match &again {
                Some(_) => ", but the server paused it again".to_string(),
                None if enabled => format!("; next delivery {}", date(subscription.next_delivery_date)),
                None => String::new(),
            }
        ))?,
    }
    match again {
        Some(why) => Err(Exit {
            code: 1,
            message: format!("subscription {id} was resumed, but the server paused it again: {why}"),
        }
        .into()),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_delivery_names_who_and_why() {
        let delivery: Delivery = serde_json::from_value(serde_json::json!({
            "status": "failed", "trigger_type": "target_change",
            "scheduled_at": "2026-11-20T09:00:00Z",
            "recipient_results": [
                {"recipient": "a@example.com", "status": "success"},
                {"recipient": "b@x.invalid", "status": "failed", "error": {"message": "Domain not found\u{1b}[2J"}}
            ]
        }))
        .unwrap();
        let shown = table(&[delivery]);
        assert!(shown.contains("FAILED"), "{shown}");
        assert!(shown.contains("target change"), "{shown}");
        assert!(shown.contains("1/2"), "{shown}");
        assert!(
            shown.contains("b@x.invalid: Domain not found\\u{1b}[2J"),
            "{shown}"
        );
    }
}
