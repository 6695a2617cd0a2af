//! The demo's subscriptions as the data file writes them out, one a line:
//! what each delivers, to whom, on which schedule, who made it and since
//! when, and the story it is part of.

use chrono::{DateTime, Duration, DurationRound, Utc};
use rusqlite::Transaction;
use serde::Deserialize;

use super::today::Integrations;
use super::{Catalog, DemoData, People};
use crate::api::{Frequency, TargetType, Weekday};
use crate::schedule::{Rules, Schedule};
use crate::server::error::{ApiError, ApiResult};
use crate::server::store::subscriptions::{self, Computed, SubscriptionValues, TodayFields};

/// Where a bare name (`ada.okafor`) in a target is delivered.
pub(super) const DOMAIN: &str = "hedgebox.dev";

/// An overdue subscription missed a delivery at least this long ago, so
/// that the delivery task (which sends what came due within the last hour)
/// leaves it overdue.
const MISSED_AT_LEAST: Duration = Duration::hours(2);

/// One subscription of the data file. Days count back from the day of
/// seeding (a negative `since` starts in the future); times are UTC.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct DemoSubscription {
    /// Index into the data's projects.
    #[serde(default)]
    project: usize,
    /// Absent for none; blank is allowed too.
    #[serde(default)]
    title: Option<String>,
    /// What it delivers: exactly one of an insight's or a dashboard's name,
    /// or an AI prompt.
    #[serde(default)]
    insight: Option<String>,
    #[serde(default)]
    dashboard: Option<String>,
    #[serde(default)]
    prompt: Option<String>,
    /// `#channel` (Slack), `https://…` (a legacy webhook), or e-mail
    /// addresses separated by commas; a bare name is at [`DOMAIN`].
    to: String,
    /// `[N] day|week|weekdays|month [first|second|third|fourth|last] [mon,…] HH:MM`.
    every: String,
    /// The creator's address up to the `@`.
    by: String,
    /// Days since the schedule started.
    since: i64,
    /// Days since it was created, when not a few hours before it started.
    #[serde(default)]
    created: Option<i64>,
    #[serde(default)]
    count: Option<i64>,
    /// The day the schedule ends (negative: that many days ago).
    #[serde(default)]
    ends: Option<i64>,
    /// Paused that many days ago.
    #[serde(default)]
    paused: Option<i64>,
    /// Soft-deleted that many days ago.
    #[serde(default)]
    deleted: Option<i64>,
    /// `revoked`: through the Slack integration revoked three days ago.
    #[serde(default)]
    slack: Option<String>,
    /// The target before someone changed it to `to`, `changed` days ago.
    #[serde(default)]
    was: Option<String>,
    #[serde(default)]
    changed: Option<i64>,
    /// `overdue`: its last delivery was missed; `test`: someone sent a test
    /// delivery by hand yesterday.
    #[serde(default)]
    story: Option<String>,
    #[serde(default)]
    invite: Option<String>,
}

/// What the history needs of a seeded subscription.
pub(super) struct Seeded {
    pub id: i64,
    pub schedule: Schedule,
    /// Deliveries stop here: paused, deleted, or the missed delivery of an
    /// overdue one.
    pub quiet_from: Option<DateTime<Utc>>,
    pub through_revoked: bool,
    /// The target before it was changed, and when it was.
    pub changed: Option<(String, String, DateTime<Utc>)>,
    pub test_delivery: Option<DateTime<Utc>>,
}

/// Inserts every subscription of the data file, in the order they were
/// created (so that ids grow with `created_at`, as in PostHog).
pub(super) fn seed_subscriptions(
    tx: &Transaction,
    data: &DemoData,
    catalogs: &[Catalog],
    integrations: &[Integrations],
    people: &People,
    now: DateTime<Utc>,
    rules: Rules,
) -> ApiResult<Vec<Seeded>> {
    let today = now.duration_trunc(Duration::days(1)).unwrap_or(now);
    let mut planned = Vec::new();
    for entry in &data.subscriptions {
        let catalog = catalogs
            .get(entry.project)
            .ok_or_else(|| ApiError::internal(format!("demo: no project {}", entry.project)))?;
        let slack = integrations
            .get(entry.project)
            .ok_or_else(|| ApiError::internal("demo: a project has no Slack integrations"))?;
        let values = values(entry, catalog, slack, today)?;
        let author = people.user(&entry.by)?;
        let created_at = match entry.created {
            Some(days) => today - Duration::days(days) + Duration::hours(15) + Duration::minutes(10),
            None => values.start_date - Duration::hours(3) - Duration::minutes(entry.since.rem_euclid(50)),
        }
        .min(now - Duration::minutes(5));
        planned.push((created_at, catalog.project_id, author, entry, values));
    }
    planned.sort_by_key(|(created_at, ..)| *created_at);

    let at_day = |days: i64, hours: i64, minutes: i64| {
        today - Duration::days(days) + Duration::hours(hours) + Duration::minutes(minutes)
    };
    let mut seeded = Vec::new();
    for (created_at, project_id, author, entry, values) in planned {
        let schedule = values.schedule(rules);
        let mut computed = Computed::of(&values, now, rules);
        let mut quiet_from = None;
        if entry.story.as_deref() == Some("overdue") {
            // A delivery that was due but never went out: what on-call looks for.
            let missed = schedule
                .occurrences_after(now - Duration::days(3), 100)
                .into_iter()
                .take_while(|at| *at <= now - MISSED_AT_LEAST)
                .last();
            computed.next_delivery_date = missed;
            quiet_from = missed;
        }
        let stopped = [
            entry.paused.map(|days| at_day(days, 11, 20)),
            entry.deleted.map(|days| at_day(days, 14, 5)),
            quiet_from,
        ];
        let id = subscriptions::insert(tx, project_id, author, created_at, &values, &computed)?;
        let changed = match (&entry.was, entry.changed) {
            (Some(was), Some(days)) => Some((target(was), values.target_value.clone(), at_day(days, 16, 20))),
            _ => None,
        };
        seeded.push(Seeded {
            id,
            schedule,
            quiet_from: stopped.into_iter().flatten().min(),
            through_revoked: entry.slack.as_deref() == Some("revoked"),
            changed,
            test_delivery: (entry.story.as_deref() == Some("test")).then(|| at_day(1, 15, 42)),
        });
    }
    Ok(seeded)
}

/// A target as stored: bare names completed with [`DOMAIN`].
fn target(to: &str) -> String {
    if to.starts_with('#') || to.starts_with("http") {
        return to.to_string();
    }
    to.split(',')
        .map(str::trim)
        .filter(|address| !address.is_empty())
        .map(|address| match address.contains('@') {
            true => address.to_string(),
            false => format!("{address}@{DOMAIN}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn values(
    entry: &DemoSubscription,
    catalog: &Catalog,
    slack: &Integrations,
    today: DateTime<Utc>,
) -> ApiResult<SubscriptionValues> {
    let every = Every::parse(&entry.every)?;
    let start_date = today - Duration::days(entry.since) + every.time;
    let target_type = if entry.to.starts_with('#') {
        TargetType::Slack
    } else if entry.to.starts_with("http") {
        TargetType::Webhook
    } else {
        TargetType::Email
    };
    let integration_id = (target_type == TargetType::Slack).then_some(match entry.slack.as_deref() {
        Some("revoked") => slack.revoked,
        _ => slack.working,
    });
    let insight = entry
        .insight
        .as_deref()
        .map(|name| catalog.insight(name))
        .transpose()?;
    let dashboard = entry
        .dashboard
        .as_deref()
        .map(|name| catalog.dashboard(name))
        .transpose()?;
    let resources = [insight.is_some(), dashboard.is_some(), entry.prompt.is_some()];
    if resources.iter().filter(|set| **set).count() != 1 {
        return Err(ApiError::internal(format!(
            "demo: {:?} must deliver exactly one of an insight, a dashboard or a prompt",
            entry.title
        )));
    }
    // PostHog's form preselects the first insights of a dashboard.
    let dashboard_export_insights = dashboard
        .map(|dashboard| catalog.on_tiles(dashboard).iter().take(2).copied().collect())
        .unwrap_or_default();
    Ok(SubscriptionValues {
        dashboard,
        insight,
        target_type,
        target_value: target(&entry.to),
        frequency: every.frequency,
        interval: every.interval,
        byweekday: every.byweekday,
        bysetpos: every.bysetpos,
        count: entry.count,
        start_date,
        until_date: entry
            .ends
            .map(|days| today + Duration::days(days) + Duration::hours(12)),
        deleted: entry.deleted.is_some(),
        title: entry.title.clone(),
        invite_message: entry.invite.clone(),
        today: TodayFields {
            enabled: entry.paused.is_none(),
            integration_id,
            dashboard_export_insights,
            prompt: entry.prompt.clone(),
            ..TodayFields::default()
        },
    })
}

/// A schedule as the data file writes it.
#[derive(Debug, PartialEq)]
struct Every {
    frequency: Frequency,
    interval: i64,
    byweekday: Option<Vec<Weekday>>,
    bysetpos: Option<i64>,
    /// The time of day deliveries go out.
    time: Duration,
}

impl Every {
    fn parse(text: &str) -> ApiResult<Every> {
        let wrong = || ApiError::internal(format!("demo: cannot read the schedule {text:?}"));
        let mut words: Vec<&str> = text.split_whitespace().collect();
        let time = words.pop().ok_or_else(wrong)?;
        let (hours, minutes) = time.split_once(':').ok_or_else(wrong)?;
        let time = Duration::hours(hours.parse().map_err(|_| wrong())?)
            + Duration::minutes(minutes.parse().map_err(|_| wrong())?);
        let mut words = words.into_iter().peekable();
        let interval = match words.peek().and_then(|word| word.parse::<i64>().ok()) {
            Some(interval) => {
                words.next();
                interval
            }
            None => 1,
        };
        let (frequency, mut byweekday) = match words.next().ok_or_else(wrong)? {
            "day" => (Frequency::Daily, None),
            "week" => (Frequency::Weekly, None),
            "weekdays" => (Frequency::Weekly, Some(Weekday::ALL[..5].to_vec())),
            "month" => (Frequency::Monthly, None),
            _ => return Err(wrong()),
        };
        let mut bysetpos = None;
        for word in words {
            let position = ["first", "second", "third", "fourth"]
                .iter()
                .position(|name| *name == word)
                .map(|index| index as i64 + 1)
                .or((word == "last").then_some(-1));
            if let Some(position) = position {
                bysetpos = Some(position);
                continue;
            }
            let days = word
                .split(',')
                .map(|day| {
                    Weekday::ALL
                        .iter()
                        .find(|weekday| weekday.as_str().starts_with(day) && day.len() >= 3)
                        .cloned()
                        .ok_or_else(wrong)
                })
                .collect::<ApiResult<Vec<_>>>()?;
            byweekday = Some(days);
        }
        Ok(Every {
            frequency,
            interval,
            byweekday,
            bysetpos,
            time,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules_read_as_written() {
        let every = Every::parse("2 week mon,thu 09:30").unwrap();
        assert_eq!(every.frequency, Frequency::Weekly);
        assert_eq!(every.interval, 2);
        assert_eq!(every.byweekday, Some(vec![Weekday::Monday, Weekday::Thursday]));
        assert_eq!(every.bysetpos, None);
        assert_eq!(every.time, Duration::minutes(9 * 60 + 30));
        let monthly = Every::parse("month last fri 15:00").unwrap();
        assert_eq!(
            (monthly.frequency, monthly.bysetpos, monthly.byweekday),
            (Frequency::Monthly, Some(-1), Some(vec![Weekday::Friday]))
        );
        let weekdays = Every::parse("weekdays 07:30").unwrap();
        assert_eq!(weekdays.byweekday.unwrap().len(), 5);
        for wrong in ["", "day", "fortnight 09:00", "week mo 09:00", "day 9"] {
            assert!(Every::parse(wrong).is_err(), "{wrong}");
        }
    }

    #[test]
    fn bare_names_are_at_the_company_s_domain() {
        assert_eq!(
            target("ada.okafor, x@partner.example"),
            "ada.okafor@hedgebox.dev, x@partner.example"
        );
        assert_eq!(target("#growth"), "#growth");
    }
}
