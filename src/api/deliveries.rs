//! A subscription's deliveries (posthog.md §9) and the actions on-call takes
//! on a subscription: a test delivery, pause and resume.
//!
//! Deliveries are cursor-paged, newest first, 50 a page and without a
//! count. A server without the endpoint (older self-hosted PostHog, the
//! reference server's `seed` flavor) answers 404: [`Error::keeps_no_history`]
//! tells the faces to say "this server keeps no delivery history".

use chrono::{DateTime, Utc};
use reqwest::Method;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::client::Client;
use super::enums::{DeliveryStatus, RecipientStatus, TargetType, TriggerType};
use super::error::{Error, Result};
use super::models::Subscription;
use super::time::flexible_datetime;

/// One delivery of a subscription, or one attempt at it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Delivery {
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub subscription: Option<i64>,
    #[serde(default)]
    pub trigger_type: Option<TriggerType>,
    #[serde(default)]
    pub status: Option<DeliveryStatus>,
    #[serde(default, with = "flexible_datetime")]
    pub scheduled_at: Option<DateTime<Utc>>,
    #[serde(default, with = "flexible_datetime")]
    pub created_at: Option<DateTime<Utc>>,
    #[serde(default, with = "flexible_datetime")]
    pub last_updated_at: Option<DateTime<Utc>>,
    #[serde(default, with = "flexible_datetime")]
    pub finished_at: Option<DateTime<Utc>>,
    #[serde(default)]
    pub target_type: Option<TargetType>,
    #[serde(default)]
    pub target_value: Option<String>,
    #[serde(default)]
    pub recipient_results: Vec<RecipientResult>,
    /// The delivery's own error, when it failed as a whole.
    #[serde(default)]
    pub error: Option<Value>,
    #[serde(default)]
    pub exported_asset_ids: Option<Vec<i64>>,
    #[serde(default)]
    pub content_snapshot: Option<Value>,
    #[serde(default)]
    pub temporal_workflow_id: Option<String>,
    #[serde(default)]
    pub idempotency_key: Option<String>,
    #[serde(default)]
    pub change_summary: Option<String>,
    #[serde(default)]
    pub ai_report: Option<String>,
    #[serde(default)]
    pub ai_report_diagnostics: Option<Value>,
    #[serde(default)]
    pub ai_report_prompt: Option<String>,
    /// An AI report's charts: `[{export_asset_id, title, step_index}]`,
    /// null for other deliveries (posthog.md 15-6).
    #[serde(default)]
    pub ai_report_charts: Option<Value>,
}

/// How a delivery went for one recipient.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RecipientResult {
    #[serde(default)]
    pub recipient: String,
    #[serde(default)]
    pub status: Option<RecipientStatus>,
    /// Present only when delivering to this recipient failed (posthog.md
    /// 15-6).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<DeliveryError>,
}

/// An error PostHog recorded: a message and its kind.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct DeliveryError {
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
}

/// How a delivery went, recipient by recipient: reached, reached in part
/// (`partial`: some of what was sent arrived), and not reached (failed, or
/// a status this version does not know).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RecipientCounts {
    pub ok: usize,
    pub partial: usize,
    pub failed: usize,
}

impl RecipientCounts {
    pub fn total(&self) -> usize {
        self.ok + self.partial + self.failed
    }

    /// Whether any recipient was not fully reached.
    pub fn any_short(&self) -> bool {
        self.partial + self.failed > 0
    }

    /// "2 ok", "1 ok, 1 partial", "1 ok, 2 failed", "-" for none recorded.
    pub fn words(&self) -> String {
        if self.total() == 0 {
            return "-".into();
        }
        let mut words = vec![format!("{} ok", self.ok)];
        if self.partial > 0 {
            words.push(format!("{} partial", self.partial));
        }
        if self.failed > 0 {
            words.push(format!("{} failed", self.failed));
        }
        words.join(", ")
    }
}

impl Delivery {
    /// How many recipients it reached, reached in part, and failed.
    pub fn recipient_counts(&self) -> RecipientCounts {
        let mut counts = RecipientCounts::default();
        for result in &self.recipient_results {
            match result.status {
                Some(RecipientStatus::Success) => counts.ok += 1,
                Some(RecipientStatus::Partial) => counts.partial += 1,
                _ => counts.failed += 1,
            }
        }
        counts
    }

    pub fn has_failed(&self) -> bool {
        self.status == Some(DeliveryStatus::Failed)
    }

    /// The delivery's own error in words: its `message`, or the JSON as sent.
    pub fn error_text(&self) -> Option<String> {
        match self.error.as_ref()? {
            Value::Null => None,
            Value::Object(fields) => Some(
                fields
                    .get("message")
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .unwrap_or_else(|| Value::Object(fields.clone()).to_string()),
            ),
            Value::String(text) => Some(text.clone()),
            other => Some(other.to_string()),
        }
    }
}

/// A page of a cursor-paged list: no count, links to the next and the
/// previous page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound(deserialize = "T: Deserialize<'de>"))]
pub struct CursorPage<T> {
    #[serde(default)]
    pub next: Option<String>,
    #[serde(default)]
    pub previous: Option<String>,
    #[serde(default = "Vec::new")]
    pub results: Vec<T>,
}

/// The most delivery pages one whole-history fetch follows: 2,000 pages of
/// 50, far beyond a year of hourly deliveries, and a bound on a server that
/// never stops.
pub const MAX_DELIVERY_PAGES: usize = 2_000;

/// The most of the server's pages one window of [`Client::deliveries_window`]
/// follows (a server with pages far smaller than PostHog's 50).
pub const MAX_WINDOW_PAGES: usize = 10;

impl Error {
    /// Whether this is the 404 of a server that has no deliveries endpoint.
    pub fn keeps_no_history(&self) -> bool {
        self.status() == Some(404)
    }
}

impl Client {
    /// The newest deliveries of a subscription, optionally of one status:
    /// typed (`Delivery`), or as the server sent them (`Raw<Delivery>`).
    pub async fn deliveries<T: DeserializeOwned>(
        &self,
        project: &str,
        subscription: i64,
        status: Option<&DeliveryStatus>,
    ) -> Result<CursorPage<T>> {
        let mut url = self.url(&[
            "api",
            "projects",
            project,
            "subscriptions",
            &subscription.to_string(),
            "deliveries",
        ]);
        if let Some(status) = status {
            url.query_pairs_mut().append_pair("status", status.as_str());
        }
        self.call(Method::GET, url, None::<&()>).await
    }

    /// The page a cursor link of [`Client::deliveries`] points at.
    pub async fn deliveries_after<T: DeserializeOwned>(&self, link: &str) -> Result<CursorPage<T>> {
        self.call(Method::GET, self.rebase(link)?, None::<&()>).await
    }

    /// Every delivery of a subscription, newest first, following the
    /// cursor; at most `limit` rows, and never more than
    /// [`MAX_DELIVERY_PAGES`] pages or a link already followed.
    pub async fn all_deliveries<T: DeserializeOwned>(
        &self,
        project: &str,
        subscription: i64,
        status: Option<&DeliveryStatus>,
        limit: usize,
    ) -> Result<Vec<T>> {
        let mut page = self.deliveries(project, subscription, status).await?;
        let mut rows = Vec::new();
        let mut followed = std::collections::HashSet::new();
        loop {
            rows.extend(page.results);
            if rows.len() >= limit {
                rows.truncate(limit);
                return Ok(rows);
            }
            let Some(next) = page.next else {
                return Ok(rows);
            };
            if !followed.insert(next.clone()) || followed.len() > MAX_DELIVERY_PAGES {
                return Err(Error::EndlessList {
                    request: super::error::RequestLabel {
                        method: "GET".into(),
                        path: format!("/api/projects/{project}/subscriptions/{subscription}/deliveries/"),
                    },
                    reason: "the server's cursor links repeat or never end".into(),
                });
            }
            page = self.deliveries_after(&next).await?;
        }
    }

    /// Up to `limit` deliveries from the first page (`after` None) or a
    /// cursor's link, with the link to what follows them in `next`: whole
    /// pages of the server's only, as long as they fit, so that no row is
    /// ever cut from a page (its cursor would skip it). PostHog's 50 fill a
    /// window of 100 exactly; a page that does not fit ends the window short
    /// with no `next` (its cursor would leave a gap), and a first page larger
    /// than the window gives its newest `limit`. At most
    /// [`MAX_WINDOW_PAGES`] pages are followed.
    pub async fn deliveries_window(
        &self,
        project: &str,
        subscription: i64,
        status: Option<&DeliveryStatus>,
        after: Option<&str>,
        limit: usize,
    ) -> Result<CursorPage<Delivery>> {
        let mut page = match after {
            None => self.deliveries(project, subscription, status).await?,
            Some(link) => self.deliveries_after(link).await?,
        };
        let mut rows = Vec::new();
        let mut next = None;
        for followed in 1..=MAX_WINDOW_PAGES {
            let room = limit.saturating_sub(rows.len());
            if rows.is_empty() && page.results.len() > room {
                page.results.truncate(room);
                rows.append(&mut page.results);
                break;
            }
            if page.results.len() > room {
                tracing::warn!(
                    subscription,
                    "a page of deliveries does not fit a window of {limit}: the list ends here"
                );
                break;
            }
            rows.append(&mut page.results);
            next = page.next.take();
            match &next {
                Some(link) if rows.len() < limit && followed < MAX_WINDOW_PAGES => {
                    page = self.deliveries_after(link).await?;
                }
                _ => break,
            }
        }
        if rows.len() < limit {
            next = None;
        }
        Ok(CursorPage {
            next,
            previous: None,
            results: rows,
        })
    }

    /// Asks for a delivery now. 202 when it is scheduled; 409 while the
    /// subscription is disabled or a delivery is already running.
    pub async fn test_delivery(&self, project: &str, subscription: i64) -> Result<()> {
        let url = self.url(&[
            "api",
            "projects",
            project,
            "subscriptions",
            &subscription.to_string(),
            "test-delivery",
        ]);
        self.call_empty(Method::POST, url).await
    }

    /// Pauses (`enabled: false`) or resumes (`enabled: true`) a subscription.
    /// Resuming may be refused, with the reason on `enabled` (no Slack
    /// integration any more, a schedule that has ended).
    pub async fn set_enabled(
        &self,
        project: &str,
        subscription: i64,
        enabled: bool,
    ) -> Result<super::Raw<Subscription>> {
        self.update_subscription(project, subscription, &serde_json::json!({ "enabled": enabled }))
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_delivery_reads_as_posthog_sends_it() {
        let delivery: Delivery = serde_json::from_value(serde_json::json!({
            "id": "0190c2a4-0000-7000-8000-000000000001",
            "subscription": 7,
            "temporal_workflow_id": "w",
            "idempotency_key": "k",
            "trigger_type": "scheduled",
            "scheduled_at": "2026-11-20T09:00:00Z",
            "target_type": "email",
            "target_value": "a@example.com,b@example.invalid",
            "exported_asset_ids": [1],
            "content_snapshot": {},
            "recipient_results": [
                {"recipient": "a@example.com", "status": "success", "error": null},
                {"recipient": "b@example.invalid", "status": "failed",
                 "error": {"message": "Domain does not exist", "type": "SMTPRecipientsRefused"}},
                {"recipient": "c@example.com", "status": "partial"}
            ],
            "status": "failed",
            "error": {"message": "1 of 3 recipients failed", "type": "PartialFailure"},
            "created_at": "2026-11-20T09:00:01Z",
            "last_updated_at": "2026-11-20T09:00:03Z",
            "finished_at": "2026-11-20T09:00:03Z",
            "change_summary": null,
            "ai_report": null,
            "ai_report_diagnostics": null,
            "ai_report_prompt": null,
            "some_new_field": 1
        }))
        .unwrap();
        let counts = delivery.recipient_counts();
        assert_eq!((counts.ok, counts.partial, counts.failed), (1, 1, 1));
        assert_eq!(counts.words(), "1 ok, 1 partial, 1 failed");
        assert!(delivery.has_failed());
        assert_eq!(delivery.error_text().as_deref(), Some("1 of 3 recipients failed"));
        assert_eq!(
            delivery.recipient_results[1]
                .error
                .as_ref()
                .unwrap()
                .kind
                .as_deref(),
            Some("SMTPRecipientsRefused")
        );
        let unknown: Delivery = serde_json::from_value(serde_json::json!({"status": "queued"})).unwrap();
        assert_eq!(unknown.status, Some(DeliveryStatus::Other("queued".into())));
    }
}
