//! Deliveries of subscriptions (posthog.md §9), recorded by the reference
//! server. Nothing is sent anywhere: each recipient's outcome is fixed in
//! advance so that tests can rely on it. An e-mail address at a domain
//! ending in `.invalid` fails; a Slack delivery through a revoked (or
//! missing) integration fails and disables the subscription; a target type
//! that is no longer delivered is skipped; the rest succeed.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, Row, params};
use serde_json::{Value, json};

use super::rows::{parse_stamp, stamp};
use crate::api::{
    Delivery, DeliveryError, DeliveryStatus, RecipientResult, RecipientStatus, TargetType, TriggerType,
};
use crate::server::error::{ApiError, ApiResult};

/// Deliveries a page holds (posthog.md §4: not settable by the client).
pub const PAGE_SIZE: usize = 50;

/// What a subscription delivers to, read at the moment of delivery.
struct Target {
    target_type: TargetType,
    target_value: String,
    integration_revoked: Option<bool>,
}

fn target(connection: &Connection, subscription: i64) -> ApiResult<Target> {
    let mut statement = connection.prepare_cached(
        "SELECT s.target_type, s.target_value, i.errors
         FROM subscriptions s LEFT JOIN integrations i ON i.id = s.integration_id
         WHERE s.id = ?1",
    )?;
    statement
        .query_row([subscription], |row| {
            let errors: Option<String> = row.get(2)?;
            Ok(Target {
                target_type: TargetType::from_wire(&row.get::<_, String>(0)?),
                target_value: row.get(1)?,
                integration_revoked: errors.map(|errors| !errors.is_empty()),
            })
        })
        .optional()?
        .ok_or_else(ApiError::not_found)
}

fn failed(recipient: &str, message: &str, kind: &str) -> RecipientResult {
    RecipientResult {
        recipient: recipient.to_string(),
        status: Some(RecipientStatus::Failed),
        error: Some(DeliveryError {
            message: Some(message.to_string()),
            kind: Some(kind.to_string()),
        }),
    }
}

fn delivered(recipient: &str) -> RecipientResult {
    RecipientResult {
        recipient: recipient.to_string(),
        status: Some(RecipientStatus::Success),
        error: None,
    }
}

/// The outcome for each recipient of a target, decided in advance.
fn outcomes(target: &Target) -> Option<Vec<RecipientResult>> {
    match target.target_type {
        TargetType::Email => Some(
            target
                .target_value
                .split(',')
                .map(str::trim)
                .filter(|address| !address.is_empty())
                .map(|address| {
                    let domain = address.rsplit('@').next().unwrap_or("").to_ascii_lowercase();
                    if domain.ends_with(".invalid") {
                        failed(
                            address,
                            &format!("Domain {domain} does not exist"),
                            "SMTPRecipientsRefused",
                        )
                    } else {
                        delivered(address)
                    }
                })
                .collect(),
        ),
        TargetType::Slack => {
            let channel = target.target_value.trim();
            Some(vec![match target.integration_revoked {
                Some(false) => delivered(channel),
                Some(true) => failed(
                    channel,
                    "Your Slack connection is no longer active. Reconnect Slack to deliver to this channel.",
                    "SlackIntegrationInactive",
                ),
                None => failed(
                    channel,
                    "No Slack integration is configured.",
                    "SlackIntegrationMissing",
                ),
            }])
        }
        _ => None,
    }
}

/// Records a delivery of `subscription` at `now` and returns it. A Slack
/// delivery that fails for its integration disables the subscription.
pub fn record(
    connection: &Connection,
    subscription: i64,
    trigger: TriggerType,
    scheduled_at: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> ApiResult<Delivery> {
    let target = target(connection, subscription)?;
    let (status, recipients, error) = match outcomes(&target) {
        None => (
            DeliveryStatus::Skipped,
            Vec::new(),
            Some(json!({
                "message": format!("{} deliveries are no longer supported.", target.target_type.as_str()),
                "type": "UnsupportedTarget",
            })),
        ),
        Some(recipients) => {
            let failures = recipients
                .iter()
                .filter(|result| result.status != Some(RecipientStatus::Success))
                .count();
            let status = if failures > 0 && failures == recipients.len() {
                DeliveryStatus::Failed
            } else {
                DeliveryStatus::Completed
            };
            let error = (failures > 0).then(|| {
                json!({
                    "message": format!("{failures} of {} recipients failed", recipients.len()),
                    "type": if status == DeliveryStatus::Failed { "DeliveryFailed" } else { "PartialFailure" },
                })
            });
            (status, recipients, error)
        }
    };
    let id = uuid::Uuid::now_v7().to_string();
    connection.execute(
        "INSERT INTO deliveries (id, subscription_id, trigger_type, scheduled_at, target_type, target_value,
                                 recipient_results, status, error, created_at, finished_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10)",
        params![
            id,
            subscription,
            trigger.as_str(),
            scheduled_at.as_ref().map(stamp),
            target.target_type.as_str(),
            target.target_value,
            serde_json::to_string(&recipients).map_err(ApiError::internal)?,
            status.as_str(),
            error.as_ref().map(Value::to_string),
            stamp(&now),
        ],
    )?;
    if target.target_type == TargetType::Slack && target.integration_revoked != Some(false) {
        connection.execute(
            "UPDATE subscriptions SET enabled = 0 WHERE id = ?1",
            [subscription],
        )?;
    }
    get(connection, subscription, &id)
}

const COLUMNS: &str = "id, subscription_id, trigger_type, scheduled_at, target_type, target_value,
                       exported_asset_ids, recipient_results, status, error, created_at, finished_at, change_summary";

fn delivery_at(row: &Row) -> rusqlite::Result<Delivery> {
    let json = |text: Option<String>| text.and_then(|text| serde_json::from_str::<Value>(&text).ok());
    let created_at = parse_stamp(row.get(10)?);
    let finished_at = parse_stamp(row.get(11)?);
    let id: String = row.get(0)?;
    Ok(Delivery {
        temporal_workflow_id: Some(format!("subscription-delivery-{id}")),
        idempotency_key: Some(id.clone()),
        id,
        subscription: row.get(1)?,
        trigger_type: Some(TriggerType::from_wire(&row.get::<_, String>(2)?)),
        scheduled_at: parse_stamp(row.get(3)?),
        target_type: Some(TargetType::from_wire(&row.get::<_, String>(4)?)),
        target_value: row.get(5)?,
        exported_asset_ids: json(row.get(6)?).and_then(|value| serde_json::from_value(value).ok()),
        recipient_results: json(row.get(7)?)
            .and_then(|value| serde_json::from_value(value).ok())
            .unwrap_or_default(),
        status: Some(DeliveryStatus::from_wire(&row.get::<_, String>(8)?)),
        error: json(row.get(9)?),
        created_at,
        last_updated_at: finished_at.or(created_at),
        finished_at,
        change_summary: row.get(12)?,
        content_snapshot: Some(json!({})),
        ..Delivery::default()
    })
}

/// One delivery of the subscription; 404 when it has none with this id.
pub fn get(connection: &Connection, subscription: i64, id: &str) -> ApiResult<Delivery> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM deliveries WHERE subscription_id = ?1 AND id = ?2"
    ))?;
    statement
        .query_row(params![subscription, id], delivery_at)
        .optional()?
        .ok_or_else(ApiError::not_found)
}

/// Where a page of deliveries starts: after the row at this position of
/// the newest-first order, or (`reverse`) before it, for a `previous` link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cursor {
    pub created_at: String,
    pub id: String,
    pub reverse: bool,
}

impl Cursor {
    fn at(delivery: &Delivery, reverse: bool) -> Cursor {
        Cursor {
            created_at: delivery.created_at.as_ref().map(stamp).unwrap_or_default(),
            id: delivery.id.clone(),
            reverse,
        }
    }
}

/// A page of deliveries, newest first, with where the pages beside it start.
#[derive(Debug, Default)]
pub struct DeliveryPage {
    pub rows: Vec<Delivery>,
    pub next: Option<Cursor>,
    pub previous: Option<Cursor>,
}

/// A page of the subscription's deliveries, newest first: the first page
/// without a cursor, else the page after (or, reversed, before) it. As
/// DRF's cursor paging: the first page has no `previous`; a page reached
/// going forward always has one, a page reached going back always a `next`.
pub fn page(
    connection: &Connection,
    subscription: i64,
    status: Option<&DeliveryStatus>,
    cursor: Option<&Cursor>,
) -> ApiResult<DeliveryPage> {
    let reverse = cursor.is_some_and(|cursor| cursor.reverse);
    let (after, order) = if reverse {
        ("created_at > ?3 OR (created_at = ?3 AND id > ?4)", "ASC")
    } else {
        ("created_at < ?3 OR (created_at = ?3 AND id < ?4)", "DESC")
    };
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM deliveries
         WHERE subscription_id = ?1
           AND (?2 IS NULL OR status = ?2)
           AND (?3 IS NULL OR {after})
         ORDER BY created_at {order}, id {order} LIMIT ?5"
    ))?;
    let mut rows: Vec<Delivery> = statement
        .query_map(
            params![
                subscription,
                status.map(DeliveryStatus::as_str),
                cursor.map(|cursor| cursor.created_at.as_str()),
                cursor.map(|cursor| cursor.id.as_str()),
                i64::try_from(PAGE_SIZE + 1).unwrap_or(i64::MAX),
            ],
            delivery_at,
        )?
        .collect::<Result<_, _>>()?;
    let more = rows.len() > PAGE_SIZE;
    rows.truncate(PAGE_SIZE);
    if reverse {
        rows.reverse();
        let previous = more
            .then(|| rows.first().map(|first| Cursor::at(first, true)))
            .flatten();
        let next = rows.last().map(|last| Cursor::at(last, false));
        return Ok(DeliveryPage { rows, next, previous });
    }
    let next = more
        .then(|| rows.last().map(|last| Cursor::at(last, false)))
        .flatten();
    let previous = cursor.and_then(|_| rows.first().map(|first| Cursor::at(first, true)));
    Ok(DeliveryPage { rows, next, previous })
}
