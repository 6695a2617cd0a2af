//! What the demo holds of today's PostHog: insights' short ids, dashboards'
//! tiles, a working and a revoked Slack integration per project with
//! channels, subscriptions that go through them, export the insights of
//! their dashboard, ask an AI prompt or are paused, and 30 days of delivery
//! history. The seed flavor shows none of it.

use chrono::{DateTime, Duration, Utc};
use rusqlite::{Transaction, params};

use super::{Catalog, DemoData, People};
use crate::api::TriggerType;
use crate::schedule::Rules;
use crate::server::error::ApiResult;
use crate::server::store::deliveries;
use crate::server::store::integrations::REVOKED;
use crate::server::store::rows::stamp;

/// Channels every demo workspace has besides the ones subscriptions name.
const MORE_CHANNELS: [&str; 6] = [
    "#general",
    "#random",
    "#data-team",
    "#design",
    "#sales",
    "#incidents",
];

/// Prompts of the demo's AI reports.
const PROMPTS: [&str; 3] = [
    "Summarise last week's signups and activation, and flag anything unusual.",
    "Which features gained or lost the most usage this week, and why might that be?",
    "Write a short digest of support load and response times for the on-call handover.",
];

pub(super) fn seed_today(
    tx: &Transaction,
    data: &DemoData,
    catalogs: &[Catalog],
    people: &People,
    now: DateTime<Utc>,
    rules: Rules,
) -> ApiResult<()> {
    seed_people_today(tx, now)?;
    tx.execute(
        "UPDATE insights SET short_id = lower(printf('%08X', (id * 2654435761) % 4294967296))",
        [],
    )?;
    for catalog in catalogs {
        seed_tiles(tx, catalog)?;
        let (working, _revoked) = seed_integrations(tx, data, catalog.project_id, people.owner, now)?;
        seed_subscription_fields(tx, catalog.project_id, working)?;
    }
    seed_history(tx, now, rules)
}

/// What people said their role is (two in three said), and when the
/// active ones last logged in (within the last three days).
fn seed_people_today(tx: &Transaction, now: DateTime<Utc>) -> ApiResult<()> {
    const ROLES: [&str; 8] = [
        "engineering",
        "product",
        "data",
        "leadership",
        "marketing",
        "sales",
        "founder",
        "other",
    ];
    let people: Vec<(i64, bool)> = tx
        .prepare("SELECT id, is_active FROM users ORDER BY id")?
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<Result<_, _>>()?;
    for (id, active) in people {
        let role = (id % 3 != 0).then(|| ROLES[(id as usize) % ROLES.len()]);
        let last_login = active.then(|| stamp(&(now - Duration::minutes((id * 431) % (72 * 60)))));
        tx.execute(
            "UPDATE users SET role_at_organization = ?2, last_login = ?3 WHERE id = ?1",
            params![id, role, last_login],
        )?;
    }
    Ok(())
}

/// Three insights of the project on each dashboard, and a text tile on the first.
fn seed_tiles(tx: &Transaction, catalog: &Catalog) -> ApiResult<()> {
    if catalog.insights.is_empty() {
        return Ok(());
    }
    for (index, &dashboard) in catalog.dashboards.iter().enumerate() {
        for slot in 0..3 {
            let insight = catalog.insights[(index * 3 + slot) % catalog.insights.len()];
            tx.execute(
                "INSERT INTO dashboard_tiles (dashboard_id, insight_id, y, x) VALUES (?1, ?2, ?3, ?4)",
                params![dashboard, insight, (slot / 2) as i64 * 5, (slot % 2) as i64 * 6],
            )?;
        }
        if index == 0 {
            tx.execute(
                "INSERT INTO dashboard_tiles (dashboard_id, insight_id, y, x) VALUES (?1, NULL, 10, 0)",
                [dashboard],
            )?;
        }
    }
    Ok(())
}

/// A working Slack integration with channels, and an older revoked one.
fn seed_integrations(
    tx: &Transaction,
    data: &DemoData,
    project: i64,
    owner: i64,
    now: DateTime<Utc>,
) -> ApiResult<(i64, i64)> {
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
    let channels = data
        .slack_channels
        .iter()
        .map(String::as_str)
        .chain(MORE_CHANNELS);
    for (index, name) in channels.enumerate() {
        tx.execute(
            "INSERT OR IGNORE INTO slack_channels (integration_id, id, name, is_private, is_member)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                working,
                format!("C0{:07}", 1_000 + index * 37),
                name.trim_start_matches('#'),
                index % 7 == 3,
                index % 5 != 4,
            ],
        )?;
    }
    tx.execute(
        "INSERT INTO slack_channels (integration_id, id, name) VALUES (?1, 'C0OLD0001', 'metrics')",
        [revoked],
    )?;
    Ok((working, revoked))
}

/// Slack subscriptions go through the working integration, one in ten
/// through the revoked one (they fail, and are disabled); dashboard ones
/// export the first two insights of their dashboard; subscriptions with
/// neither insight nor dashboard ask a prompt; a few are paused.
fn seed_subscription_fields(tx: &Transaction, project: i64, working: i64) -> ApiResult<()> {
    tx.execute(
        "UPDATE subscriptions SET integration_id = CASE WHEN id % 10 = 7
             THEN (SELECT id FROM integrations WHERE project_id = ?1 AND errors != '' LIMIT 1) ELSE ?2 END
         WHERE project_id = ?1 AND target_type = 'slack'",
        params![project, working],
    )?;
    tx.execute(
        "UPDATE subscriptions SET dashboard_export_insights = (
             SELECT json_group_array(insight_id) FROM (
                 SELECT insight_id FROM dashboard_tiles
                 WHERE dashboard_id = subscriptions.dashboard_id AND insight_id IS NOT NULL
                 ORDER BY y, x, id LIMIT 2))
         WHERE project_id = ?1 AND dashboard_id IS NOT NULL",
        [project],
    )?;
    for (index, prompt) in PROMPTS.iter().enumerate() {
        tx.execute(
            "UPDATE subscriptions SET prompt = ?2
             WHERE project_id = ?1 AND insight_id IS NULL AND dashboard_id IS NULL AND id % 3 = ?3",
            params![project, prompt, index as i64],
        )?;
    }
    tx.execute(
        "UPDATE subscriptions SET enabled = 0 WHERE project_id = ?1 AND id % 31 = 5",
        [project],
    )?;
    Ok(())
}

/// Every enabled, undeleted subscription's deliveries of the last 30 days,
/// each with the outcome its target has, up to the one that paused it.
fn seed_history(tx: &Transaction, now: DateTime<Utc>, rules: Rules) -> ApiResult<()> {
    let since = now - Duration::days(30);
    let mut statement = tx.prepare(
        "SELECT s.id, s.frequency, s.interval, s.byweekday, s.bysetpos, s.count, s.start_date, s.until_date,
                s.next_delivery_date
         FROM subscriptions s WHERE s.enabled = 1 AND s.deleted = 0 ORDER BY s.id",
    )?;
    let due: Vec<(i64, crate::schedule::Schedule, Option<DateTime<Utc>>)> = statement
        .query_map([], |row| {
            let schedule = crate::schedule::Schedule {
                frequency: crate::api::Frequency::from_wire(&row.get::<_, String>(1)?),
                interval: row.get(2)?,
                byweekday: row
                    .get::<_, Option<String>>(3)?
                    .and_then(|text| serde_json::from_str(&text).ok())
                    .unwrap_or_default(),
                bysetpos: row.get(4)?,
                count: row.get(5)?,
                start: crate::server::store::rows::parse_stamp(row.get(6)?).unwrap_or(now),
                until: crate::server::store::rows::parse_stamp(row.get(7)?),
                rules,
            };
            let next = crate::server::store::rows::parse_stamp(row.get(8)?);
            Ok((row.get(0)?, schedule, next))
        })?
        .collect::<Result<_, _>>()?;
    drop(statement);
    let mut enabled = tx.prepare("SELECT enabled FROM subscriptions WHERE id = ?1")?;
    for (id, schedule, next) in due {
        // An overdue one went quiet at the delivery it missed.
        let until = next.filter(|next| *next < now).unwrap_or(now);
        for at in schedule.occurrences_after(since, 40) {
            if at >= until {
                break;
            }
            deliveries::record(tx, id, TriggerType::Scheduled, Some(at), at)?;
            // A delivery that paused its subscription (Slack through a
            // revoked integration) was its last.
            if !enabled.query_row([id], |row| row.get::<_, bool>(0))? {
                break;
            }
        }
    }
    Ok(())
}
