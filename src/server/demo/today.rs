//! What the demo holds of today's PostHog: a working and a revoked Slack
//! integration per project with channels, and 30 days of delivery history
//! that follows each subscription's schedule, occurrence by occurrence,
//! recorded through the server's own delivery code so that every outcome
//! is the one a delivery would have today. The seed flavor shows none of
//! the history.
//!
//! The stories the history tells (their subscriptions are in the data file):
//! an e-mail target changed to an address at `.invalid` two weeks ago, failing
//! since; three recipients of which one always fails (partial deliveries);
//! the old Slack workspace's integration, revoked three days ago, whose
//! subscriptions failed once and were disabled; one overdue, one whose
//! schedule has ended, one with a test delivery sent by hand yesterday, and
//! legacy webhook rows whose deliveries were skipped until someone paused
//! them.

use chrono::{DateTime, Duration, DurationRound, Utc};
use rusqlite::{Transaction, params};

use super::subscription_plans::Seeded;
use super::{Catalog, DemoData};
use crate::api::TriggerType;
use crate::server::error::ApiResult;
use crate::server::store::deliveries;
use crate::server::store::integrations::REVOKED;
use crate::server::store::rows::stamp;

/// How many days ago the old workspace's Slack integration was revoked.
pub const REVOKED_DAYS_AGO: i64 = 3;

/// The days of history the demo holds.
pub const HISTORY_DAYS: i64 = 30;

/// Channels only their members see.
const PRIVATE_CHANNELS: [&str; 2] = ["#exec", "#sales"];

/// Channels the Slack app was never added to.
const UNJOINED_CHANNELS: [&str; 2] = ["#design", "#announcements"];

/// A project's Slack integrations.
pub(super) struct Integrations {
    pub working: i64,
    pub revoked: i64,
}

/// A revoked Slack integration (the old workspace, created first) and a
/// working one with channels, for each project.
pub(super) fn seed_integrations(
    tx: &Transaction,
    data: &DemoData,
    catalogs: &[Catalog],
    owner: i64,
    now: DateTime<Utc>,
) -> ApiResult<Vec<Integrations>> {
    let mut seeded = Vec::new();
    for catalog in catalogs {
        seeded.push(seed_project_integrations(
            tx,
            data,
            catalog.project_id,
            owner,
            now,
        )?);
    }
    Ok(seeded)
}

fn seed_project_integrations(
    tx: &Transaction,
    data: &DemoData,
    project: i64,
    owner: i64,
    now: DateTime<Utc>,
) -> ApiResult<Integrations> {
    let insert = |name: &str, team: &str, errors: &str, days_ago: i64| -> ApiResult<i64> {
        let config = serde_json::json!({
            "team": {"id": format!("T{team}"), "name": name},
            "authed_user": {"id": "U0HEDGE01"},
            "scope": "channels:read,chat:write,files:write",
        });
        tx.execute(
            "INSERT INTO integrations (project_id, kind, display_name, config, errors, created_at, created_by)
             VALUES (?1, 'slack', ?2, ?3, ?4, ?5, ?6)",
            params![project, name, config.to_string(), errors, stamp(&(now - Duration::days(days_ago))), owner],
        )?;
        Ok(tx.last_insert_rowid())
    };
    let revoked = insert("Hedgebox (old workspace)", "0OLD", REVOKED, 400)?;
    let working = insert("Hedgebox", "0HEDGE", "", 200)?;
    for (index, name) in data.slack_channels.iter().enumerate() {
        tx.execute(
            "INSERT INTO slack_channels (integration_id, id, name, is_private, is_member)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                working,
                format!("C0{:07}", 1_000 + index * 37),
                name.trim_start_matches('#'),
                PRIVATE_CHANNELS.contains(&name.as_str()),
                !UNJOINED_CHANNELS.contains(&name.as_str()),
            ],
        )?;
    }
    for (id, name) in [("C0OLD0001", "metrics"), ("C0OLD0002", "incidents")] {
        tx.execute(
            "INSERT INTO slack_channels (integration_id, id, name) VALUES (?1, ?2, ?3)",
            params![revoked, id, name],
        )?;
    }
    Ok(Integrations { working, revoked })
}

/// Each subscription's deliveries of the last [`HISTORY_DAYS`]: one for
/// every occurrence of its schedule before now, until it was paused,
/// deleted or (overdue) missed one. The old workspace's integration
/// worked until [`REVOKED_DAYS_AGO`]; the first delivery through it after
/// that failed and disabled its subscription.
pub(super) fn seed_history(
    tx: &Transaction,
    seeded: &[Seeded],
    integrations: &[Integrations],
    now: DateTime<Utc>,
) -> ApiResult<()> {
    let today = now.duration_trunc(Duration::days(1)).unwrap_or(now);
    let since = now - Duration::days(HISTORY_DAYS);
    let revoked_at = today - Duration::days(REVOKED_DAYS_AGO) + Duration::hours(5) + Duration::minutes(12);
    let set_errors = |errors: &str| -> ApiResult<()> {
        for integration in integrations {
            tx.execute(
                "UPDATE integrations SET errors = ?2 WHERE id = ?1",
                params![integration.revoked, errors],
            )?;
        }
        Ok(())
    };
    let set_target = |id: i64, target: &str| -> ApiResult<()> {
        tx.execute(
            "UPDATE subscriptions SET target_value = ?2 WHERE id = ?1",
            params![id, target],
        )?;
        Ok(())
    };
    for subscription in seeded {
        let until = subscription.quiet_from.unwrap_or(now).min(now);
        if subscription.through_revoked {
            set_errors("")?;
        }
        if let Some((before, _, _)) = &subscription.changed {
            set_target(subscription.id, before)?;
        }
        let mut revoked = false;
        let mut changed = false;
        for at in subscription.schedule.occurrences_after(since, 64) {
            if at >= until {
                break;
            }
            if let Some((_, after, when)) = &subscription.changed
                && !changed
                && at >= *when
            {
                set_target(subscription.id, after)?;
                changed = true;
            }
            if subscription.through_revoked && !revoked && at >= revoked_at {
                set_errors(REVOKED)?;
                revoked = true;
            }
            deliveries::record(tx, subscription.id, TriggerType::Scheduled, Some(at), at)?;
            // The first delivery through a revoked integration disabled it.
            if revoked {
                break;
            }
        }
        if let Some((_, after, _)) = &subscription.changed {
            set_target(subscription.id, after)?;
        }
        if subscription.through_revoked {
            set_errors(REVOKED)?;
        }
        if let Some(at) = subscription.test_delivery {
            deliveries::record(tx, subscription.id, TriggerType::Manual, None, at)?;
        }
    }
    Ok(())
}
