//! The reference server's deliveries: one task that sleeps until the
//! earliest `next_delivery_date` of an enabled, undeleted subscription
//! (never on a polling tick), records the delivery, and moves the
//! subscription to its next date. A write that changes schedules wakes it
//! to look again. Time comes from the server's [`Clock`], so tests move a
//! manual clock instead of sleeping.
//!
//! As PostHog's scheduler, it delivers what came due within the last hour;
//! a delivery missed for longer (the server was down) is not sent late and
//! stays overdue until the schedule moves on.

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use tokio::sync::{Notify, oneshot};
use tokio::task::JoinHandle;

use super::store::Db;
use super::store::deliveries;
use super::store::rows::{parse_stamp, stamp};
use super::store::subscriptions;
use crate::api::TriggerType;
use crate::clock::Clock;
use crate::server::error::ApiResult;

/// How late a delivery may still go out.
pub const GRACE: Duration = Duration::hours(1);
/// At most this many deliveries are recorded in one write.
const BATCH: usize = 500;

/// Starts the task; it ends when `stop` fires or is dropped.
pub fn spawn(db: Db, clock: Clock, wake: Arc<Notify>, mut stop: oneshot::Receiver<()>) -> JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            let now = clock.now();
            let due = match db
                .read(move |connection| earliest_due(connection, now - GRACE))
                .await
            {
                Ok(due) => due,
                Err(error) => {
                    tracing::error!(?error.body, "the delivery task cannot read the schedule");
                    None
                }
            };
            if let Some(at) = due
                && at <= now
            {
                let delivered = db.write(move |tx| deliver_due(tx, now)).await;
                match delivered {
                    Ok(count) => tracing::info!(count, "deliveries recorded"),
                    Err(error) => {
                        tracing::error!(?error.body, "the delivery task cannot record deliveries");
                        // Wait to be woken rather than spin on a failing write.
                        tokio::select! {
                            _ = wake.notified() => {}
                            _ = &mut stop => return,
                        }
                    }
                }
                continue;
            }
            let sleep = async {
                match due {
                    Some(at) => clock.sleep_until(at).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = sleep => {}
                _ = wake.notified() => {}
                _ = &mut stop => return,
            }
        }
    })
}

/// The earliest delivery at or after `since` that is to go out.
fn earliest_due(connection: &rusqlite::Connection, since: DateTime<Utc>) -> ApiResult<Option<DateTime<Utc>>> {
    let earliest: Option<String> = connection
        .prepare_cached(
            "SELECT MIN(next_delivery_date) FROM subscriptions
             WHERE enabled = 1 AND deleted = 0 AND next_delivery_date >= ?1",
        )?
        .query_row([stamp(&since)], |row| row.get(0))?;
    Ok(earliest.and_then(|text| parse_stamp(Some(text))))
}

/// Records every delivery due at `now` (within the grace period) and moves
/// each subscription to its next date; returns how many.
fn deliver_due(tx: &rusqlite::Connection, now: DateTime<Utc>) -> ApiResult<usize> {
    let due: Vec<(i64, i64, String)> = tx
        .prepare_cached(
            "SELECT id, project_id, next_delivery_date FROM subscriptions
             WHERE enabled = 1 AND deleted = 0 AND next_delivery_date >= ?1 AND next_delivery_date <= ?2
             ORDER BY next_delivery_date, id LIMIT ?3",
        )?
        .query_map(
            rusqlite::params![stamp(&(now - GRACE)), stamp(&now), BATCH as i64],
            |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
        )?
        .collect::<Result<_, _>>()?;
    for (id, project, scheduled) in &due {
        let scheduled = parse_stamp(Some(scheduled.clone()));
        deliveries::record(tx, *id, TriggerType::Scheduled, scheduled, now)?;
        let values = subscriptions::stored_values(tx, *project, *id)?;
        let after = scheduled.map_or(now, |at| at.max(now));
        let next = values.schedule().next_delivery(after);
        tx.execute(
            "UPDATE subscriptions SET next_delivery_date = ?2 WHERE id = ?1",
            rusqlite::params![id, next.as_ref().map(stamp)],
        )?;
    }
    Ok(due.len())
}
