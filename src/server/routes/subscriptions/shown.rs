//! A subscription as the server's flavor shows it, serialised straight
//! from the row: today's PostHog has every field of posthog.md 8.1, in its
//! serializer's order (null where unset, the invite message never read
//! back); the older docs have none of today's fields.

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::api::time::flexible_datetime;
use crate::api::{Frequency, ResourceType, Subscription, SubscriptionContext, TargetType, User, Weekday};
use crate::server::Flavor;

/// `None`: the flavor has no such field (left out); `Some(None)`: null.
type Today<T> = Option<Option<T>>;

#[derive(Debug, Serialize)]
pub struct Shown {
    id: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    resource_type: Today<ResourceType>,
    dashboard: Option<i64>,
    insight: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    insight_short_id: Today<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    resource_name: Today<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dashboard_export_insights: Today<Vec<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt: Today<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ai_prompt_config: Option<serde_json::Value>,
    target_type: Option<TargetType>,
    target_value: Option<String>,
    frequency: Option<Frequency>,
    interval: Option<i64>,
    byweekday: Option<Vec<Weekday>>,
    bysetpos: Option<i64>,
    count: Option<i64>,
    #[serde(with = "flexible_datetime")]
    start_date: Option<DateTime<Utc>>,
    #[serde(with = "flexible_datetime")]
    until_date: Option<DateTime<Utc>>,
    #[serde(with = "flexible_datetime")]
    created_at: Option<DateTime<Utc>>,
    created_by: Option<User>,
    deleted: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    enabled: Today<bool>,
    title: Option<String>,
    summary: Option<String>,
    #[serde(with = "flexible_datetime")]
    next_delivery_date: Option<DateTime<Utc>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    integration_id: Today<i64>,
    invite_message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary_enabled: Today<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary_prompt_guide: Today<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    contexts: Option<Vec<SubscriptionContext>>,
}

impl Shown {
    pub fn new(row: Subscription, flavor: Flavor) -> Shown {
        let today = flavor == Flavor::Current;
        Shown {
            id: row.id,
            resource_type: today.then_some(row.resource_type),
            dashboard: row.dashboard,
            insight: row.insight,
            insight_short_id: today.then_some(row.insight_short_id),
            resource_name: today.then_some(row.resource_name),
            dashboard_export_insights: today.then_some(row.dashboard_export_insights),
            prompt: today.then_some(row.prompt),
            ai_prompt_config: row.ai_prompt_config.filter(|_| today),
            target_type: row.target_type,
            target_value: row.target_value,
            frequency: row.frequency,
            interval: row.interval,
            byweekday: row.byweekday,
            bysetpos: row.bysetpos,
            count: row.count,
            start_date: row.start_date,
            until_date: row.until_date,
            created_at: row.created_at,
            created_by: row.created_by,
            deleted: row.deleted,
            enabled: today.then_some(row.enabled),
            title: row.title,
            summary: row.summary,
            next_delivery_date: row.next_delivery_date,
            integration_id: today.then_some(row.integration_id),
            // Today's serializer takes an invite message to send, and
            // never reads one back.
            invite_message: if today { None } else { row.invite_message },
            summary_enabled: today.then_some(row.summary_enabled),
            summary_prompt_guide: today.then_some(row.summary_prompt_guide),
            contexts: row.contexts.filter(|_| today),
        }
    }
}
