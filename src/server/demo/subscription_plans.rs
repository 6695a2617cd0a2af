//! The demo's subscriptions, planned to cover every target type, frequency,
//! weekday and position; and synthetic ones in bulk for load tests.

use chrono::{DateTime, Duration, DurationRound, Utc};
use rusqlite::{OptionalExtension, Transaction};

use super::{Catalog, DemoData, People, Sequence};
use crate::api::{Frequency, TargetType, Weekday};
use crate::schedule::Rules;
use crate::server::error::ApiResult;
use crate::server::store::subscriptions::{self, Computed, SubscriptionValues, TodayFields};

/// Every planned subscription in the first project, and every 40th again in
/// each other project; a dashboard or an insight for most; a few overdue.
pub(super) fn seed_subscriptions(
    tx: &Transaction,
    data: &DemoData,
    sequence: &mut Sequence,
    catalogs: &[Catalog],
    people: &People,
    now: DateTime<Utc>,
    rules: Rules,
) -> ApiResult<()> {
    let today = now.duration_trunc(Duration::days(1)).unwrap_or(now);
    let emails: Vec<&str> = data
        .users
        .iter()
        .filter(|user| user.level > 0)
        .map(|user| user.email.as_str())
        .collect();
    let plans = demo_subscriptions(data, &emails, today, sequence);
    let elsewhere: Vec<&Plan> = plans.iter().step_by(40).collect();
    let placements: Vec<(&Catalog, &Plan)> = plans
        .iter()
        .map(|plan| (&catalogs[0], plan))
        .chain(
            catalogs
                .iter()
                .skip(1)
                .flat_map(|catalog| elsewhere.iter().map(move |plan| (catalog, *plan))),
        )
        .collect();
    let total = placements.len();
    for (index, (catalog, plan)) in placements.into_iter().enumerate() {
        let mut values = plan.values.clone();
        match index % 13 {
            0 => {}
            n if n % 2 == 0 => {
                values.dashboard = catalog
                    .dashboards
                    .get(index % catalog.dashboards.len().max(1))
                    .copied()
            }
            _ => {
                values.insight = catalog
                    .insights
                    .get(index % catalog.insights.len().max(1))
                    .copied()
            }
        }
        let mut computed = Computed::of(&values, now, rules);
        if plan.overdue {
            // A delivery that was due but never went out: what on-call looks for.
            let missed = values
                .schedule(rules)
                .occurrences_after(now - Duration::days(8), 1);
            if let Some(missed) = missed.into_iter().find(|at| *at < now) {
                computed.next_delivery_date = Some(missed);
            }
        }
        let created_at = today - Duration::days(180)
            + Duration::minutes((index * 397 % (180 * 24 * 60)) as i64)
            - Duration::seconds((total - index) as i64);
        let author = people.authors[index % people.authors.len()];
        subscriptions::insert(tx, catalog.project_id, author, created_at, &values, &computed)?;
    }
    Ok(())
}

struct Plan {
    values: SubscriptionValues,
    overdue: bool,
}

/// Every combination of target type, frequency, weekday and position, plus
/// schedules without weekdays and on working days; some counted, some with
/// an end, some ended, about a tenth soft-deleted, a few overdue.
fn demo_subscriptions(
    data: &DemoData,
    emails: &[&str],
    today: DateTime<Utc>,
    sequence: &mut Sequence,
) -> Vec<Plan> {
    const POSITIONS: [Option<i64>; 6] = [None, Some(1), Some(2), Some(3), Some(4), Some(-1)];
    let mut shapes: Vec<(Frequency, Option<Vec<Weekday>>, Option<i64>)> = Vec::new();
    for frequency in Frequency::ALL {
        for day in Weekday::ALL {
            for position in POSITIONS {
                shapes.push((frequency.clone(), Some(vec![day.clone()]), position));
            }
        }
        shapes.push((frequency.clone(), None, None));
        let workdays = Weekday::ALL[..5].to_vec();
        for position in POSITIONS {
            shapes.push((frequency.clone(), Some(workdays.clone()), position));
        }
        shapes.push((
            frequency.clone(),
            Some(vec![Weekday::Saturday, Weekday::Sunday]),
            Some(1),
        ));
    }

    let mut plans = Vec::new();
    for target_type in TargetType::ALL {
        for (frequency, byweekday, bysetpos) in &shapes {
            let index = plans.len();
            let target_value = match target_type {
                TargetType::Email => {
                    let first = sequence.pick(emails);
                    if index % 3 == 0 {
                        format!("{first}, {}", sequence.pick(emails))
                    } else {
                        first.to_string()
                    }
                }
                TargetType::Slack => sequence.pick(&data.slack_channels).clone(),
                _ => sequence.pick(&data.webhooks).clone(),
            };
            let start_date = today - Duration::days(sequence.below(120) as i64)
                + Duration::hours(6 + sequence.below(12) as i64)
                + Duration::minutes(15 * sequence.below(4) as i64);
            let interval = match index % 9 {
                4 => 2,
                7 => 3,
                _ => 1,
            };
            let (count, until_date) = match index % 37 {
                // Ended: the schedule has delivered its last.
                5 => (None, Some(start_date + Duration::days(1))),
                11 => (Some(1), None),
                n if n % 7 == 0 => (Some(500 + (index as i64 % 50)), None),
                n if n % 11 == 0 => (None, Some(today + Duration::days(200 + index as i64 % 90))),
                _ => (None, None),
            };
            let title = match index % 17 {
                3 => None,
                9 => Some(String::new()),
                _ => Some(format!("{} ({})", sequence.pick(&data.titles), index % 50 + 1)),
            };
            let invite_message = (index % 5 == 0).then(|| sequence.pick(&data.invite_messages).clone());
            let overdue = index % 23 == 6;
            // An overdue e-mail report also goes to someone who has left,
            // whose address no longer exists: its history shows the failure
            // on-call looks for.
            let target_value = if overdue && *target_type == TargetType::Email {
                format!("{target_value}, former.analyst@hedgebox.invalid")
            } else {
                target_value
            };
            plans.push(Plan {
                values: SubscriptionValues {
                    dashboard: None,
                    insight: None,
                    target_type: target_type.clone(),
                    target_value,
                    frequency: frequency.clone(),
                    interval,
                    byweekday: byweekday.clone(),
                    bysetpos: *bysetpos,
                    count,
                    start_date,
                    until_date,
                    deleted: index % 10 == 3,
                    title,
                    invite_message,
                    today: TodayFields::default(),
                },
                overdue,
            });
        }
    }
    plans
}

/// Adds `count` synthetic subscriptions to a project in one transaction.
/// Each delivers one of the project's insights (none, when it has none) by
/// e-mail or through its working Slack integration, so that they are valid
/// in both flavors. Their schedules start within the last two weeks, so
/// computing the next delivery of each stays cheap.
pub fn generate_subscriptions(
    tx: &Transaction,
    project_id: i64,
    count: u64,
    now: DateTime<Utc>,
    rules: Rules,
) -> ApiResult<()> {
    let mut sequence = Sequence(0x5EED_0000 ^ count);
    let author: i64 = tx.query_row(
        "SELECT m.user_id FROM organization_members m JOIN projects p ON p.organization_id = m.organization_id
         WHERE p.id = ?1 ORDER BY m.level DESC, m.joined_at LIMIT 1",
        [project_id],
        |row| row.get(0),
    )?;
    let insights: Vec<i64> = tx
        .prepare("SELECT id FROM insights WHERE project_id = ?1 ORDER BY id")?
        .query_map([project_id], |row| row.get(0))?
        .collect::<Result<_, _>>()?;
    let slack: Option<i64> = tx
        .query_row(
            "SELECT id FROM integrations WHERE project_id = ?1 AND kind = 'slack' AND errors = ''
             ORDER BY created_at, id LIMIT 1",
            [project_id],
            |row| row.get(0),
        )
        .optional()?;
    let today = now.duration_trunc(Duration::days(1)).unwrap_or(now);
    let first_created = now - Duration::seconds(count as i64);
    // Values and schedules are made on another thread while this one
    // inserts, handed over a thousand at a time (one hand-over a row would
    // cost more in wake-ups than it saves).
    const BATCH: usize = 1024;
    let (sender, receiver) = std::sync::mpsc::sync_channel::<Vec<(SubscriptionValues, Computed)>>(4);
    std::thread::scope(|scope| {
        scope.spawn(move || {
            let mut batch = Vec::with_capacity(BATCH);
            for index in 0..count {
                let frequency = Frequency::ALL[(index % 4) as usize].clone();
                let byweekday = (index % 3 == 1).then(|| vec![Weekday::ALL[(index % 7) as usize].clone()]);
                let bysetpos =
                    (byweekday.is_some() && index % 2 == 0).then_some(if index % 4 == 0 { -1 } else { 1 });
                let by_slack = index % 2 == 1;
                let (target_type, target_value) = if by_slack {
                    (TargetType::Slack, format!("#reports-{}", index % 31))
                } else {
                    (TargetType::Email, format!("oncall+{}@example.com", index % 997))
                };
                let values = SubscriptionValues {
                    dashboard: None,
                    insight: (!insights.is_empty())
                        .then(|| insights[(index % insights.len() as u64) as usize]),
                    target_type,
                    target_value,
                    frequency,
                    interval: 1 + (index % 5 == 0) as i64,
                    byweekday,
                    bysetpos,
                    count: None,
                    start_date: today - Duration::days(sequence.below(14) as i64)
                        + Duration::hours(sequence.below(24) as i64),
                    until_date: None,
                    deleted: index % 10 == 9,
                    title: Some(format!("Synthetic report {}", index + 1)),
                    invite_message: None,
                    today: TodayFields {
                        integration_id: slack.filter(|_| by_slack),
                        ..TodayFields::default()
                    },
                };
                let computed = Computed::of(&values, now, rules);
                batch.push((values, computed));
                if batch.len() == BATCH && sender.send(std::mem::take(&mut batch)).is_err() {
                    return; // the inserting side stopped on an error
                }
            }
            let _ = sender.send(batch);
        });
        subscriptions::bulk_load(tx, || {
            for (index, (values, computed)) in receiver.iter().flatten().enumerate() {
                let created_at = first_created + Duration::seconds(index as i64);
                subscriptions::insert(tx, project_id, author, created_at, &values, &computed)?;
            }
            Ok(())
        })
    })
}
