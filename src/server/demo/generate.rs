//! Synthetic data in bulk, for benchmarks and load tests: subscriptions in
//! a project (`serve --generate-subscriptions N`) and active members in an
//! organization (`serve --generate-members N`). Kept apart from the demo,
//! whose company stays the same size whatever is generated beside it.

use chrono::{DateTime, Duration, DurationRound, Utc};
use rusqlite::{OptionalExtension, Transaction, params};

use super::Sequence;
use crate::api::models::level;
use crate::api::{Frequency, TargetType, TriggerType, Weekday};
use crate::schedule::Rules;
use crate::server::error::ApiResult;
use crate::server::store::deliveries;
use crate::server::store::rows::stamp;
use crate::server::store::subscriptions::{self, Computed, SubscriptionValues, TodayFields};

/// Adds `count` synthetic subscriptions to a project in one transaction.
/// Each delivers one of the project's insights (none, when it has none) by
/// e-mail or through its working Slack integration, so that they are valid
/// in both flavors. Their schedules start within the last two weeks, so
/// computing the next delivery of each stays cheap.
///
/// Each has a history: the delivery sent when it was created (as
/// PostHog's create does), recorded through the server's own delivery
/// code. Most reach their one recipient; one in 400 mails four people of
/// which one address no longer exists (partial), one in 400 mails three
/// addresses that all no longer exist (failing), and one in 400 mails
/// three that all work, so that many recipients make a subscription
/// likelier to fail without settling it ([`recipients`]).
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
                    (TargetType::Email, recipients(index))
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
                let id = subscriptions::insert(tx, project_id, author, created_at, &values, &computed)?;
                deliveries::record(tx, id, TriggerType::TargetChange, None, created_at)?;
            }
            Ok(())
        })
    })
}

/// The e-mail recipients of the generated subscription at `index` (an
/// even one): one address mostly; every 400th from the 10th four, one of
/// them at a domain that does not exist; every 400th from the 210th three
/// that all fail; every 400th from the 110th three that all work. (The
/// first ten all reach their one recipient: a small project with nothing
/// failing.)
pub fn recipients(index: u64) -> String {
    match index % 400 {
        10 => format!(
            "oncall+{index}@example.com, team+{index}@example.com, data+{index}@example.com, left+{index}@gone.invalid"
        ),
        210 => format!("left+{index}@gone.invalid, old+{index}@gone.invalid, ex+{index}@gone.invalid"),
        110 => format!("oncall+{index}@example.com, team+{index}@example.com, data+{index}@example.com"),
        _ => format!("oncall+{}@example.com", index % 997),
    }
}

/// Given names of generated members (ASCII, so that addresses are made of them).
const FIRST_NAMES: [&str; 48] = [
    "Aaliyah",
    "Aarav",
    "Abebe",
    "Aiko",
    "Alejandro",
    "Amelia",
    "Anan",
    "Astrid",
    "Ayodele",
    "Bilal",
    "Carmen",
    "Chidi",
    "Chloe",
    "Daniel",
    "Dmitri",
    "Elena",
    "Emeka",
    "Farid",
    "Freya",
    "Gabriel",
    "Hamid",
    "Hye-jin",
    "Ines",
    "Jamal",
    "Javier",
    "Kaito",
    "Kateryna",
    "Lars",
    "Layla",
    "Lucas",
    "Mai",
    "Malik",
    "Mariana",
    "Mei",
    "Nia",
    "Noah",
    "Oluwaseun",
    "Omar",
    "Paola",
    "Rafael",
    "Sana",
    "Santiago",
    "Siobhan",
    "Tariq",
    "Thandiwe",
    "Valentina",
    "Yusuf",
    "Zara",
];

/// Family names of generated members.
const LAST_NAMES: [&str; 48] = [
    "Abara",
    "Adeyemi",
    "Ahmed",
    "Andersen",
    "Bakker",
    "Banerjee",
    "Becker",
    "Bianchi",
    "Castillo",
    "Choi",
    "Dlamini",
    "Dubois",
    "Evans",
    "Ferreira",
    "Gallagher",
    "Goh",
    "Gonzalez",
    "Hansen",
    "Hernandez",
    "Hoang",
    "Ivanova",
    "Jansen",
    "Kang",
    "Khan",
    "Kim",
    "Kowalczyk",
    "Larsen",
    "Lopez",
    "Mahlangu",
    "Moreau",
    "Murphy",
    "Nakamura",
    "Nowak",
    "Obi",
    "Oliveira",
    "Park",
    "Quispe",
    "Rahman",
    "Reyes",
    "Rossi",
    "Schmidt",
    "Silva",
    "Suzuki",
    "Tembo",
    "Virtanen",
    "Wang",
    "Yilmaz",
    "Zhou",
];

/// Where generated members' addresses are.
const DOMAINS: [&str; 4] = ["example.com", "example.org", "example.net", "mail.example"];

/// What generated members said their role is, or nothing (as many do).
const ROLES: [Option<&str>; 6] = [
    Some("engineering"),
    Some("product"),
    Some("data"),
    Some("marketing"),
    None,
    None,
];

/// Adds `count` active members to an organization in one transaction: a
/// user and a membership each, with a name made of common given and family
/// names, a unique address (`amelia.khan.1234@example.com`), a join date
/// within the last three years and a last login within the last quarter
/// (none for one in ten, who never came back). One in fifty is an admin.
pub fn generate_members(
    tx: &Transaction,
    organization_id: &str,
    count: u64,
    now: DateTime<Utc>,
) -> ApiResult<()> {
    let mut sequence = Sequence(0x3E3B_E550 ^ count);
    let project: Option<i64> = tx
        .query_row(
            "SELECT id FROM projects WHERE organization_id = ?1 ORDER BY id LIMIT 1",
            [organization_id],
            |row| row.get(0),
        )
        .optional()?;
    // Numbered after the users there are, so that a second run adds new addresses.
    let first: i64 = tx.query_row("SELECT ifnull(max(id), 0) FROM users", [], |row| row.get(0))?;
    let mut user = tx.prepare(
        "INSERT INTO users (uuid, distinct_id, first_name, last_name, email, is_active, current_organization_id,
                            current_project_id, created_at, role_at_organization, last_login)
         VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6, ?7, ?8, ?9, ?10)",
    )?;
    let mut member = tx.prepare(
        "INSERT INTO organization_members (id, organization_id, user_id, level, joined_at, updated_at,
                                           is_2fa_enabled, has_social_auth)
         VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6, ?7)",
    )?;
    const THREE_YEARS: u64 = 3 * 365 * 24 * 60;
    const QUARTER: u64 = 90 * 24 * 60;
    for index in 0..count {
        let number = first + 1 + index as i64;
        let given = FIRST_NAMES[sequence.below(FIRST_NAMES.len() as u64) as usize];
        let family = LAST_NAMES[sequence.below(LAST_NAMES.len() as u64) as usize];
        let domain = DOMAINS[(number as usize) % DOMAINS.len()];
        let email = format!(
            "{}.{}.{number}@{domain}",
            given.to_ascii_lowercase(),
            family.to_ascii_lowercase()
        );
        let joined = now - Duration::minutes(sequence.below(THREE_YEARS) as i64);
        let last_login = (sequence.below(10) != 0)
            .then(|| now - Duration::minutes(sequence.below(QUARTER) as i64))
            .map(|at| stamp(&at.max(joined)));
        let role = ROLES[sequence.below(ROLES.len() as u64) as usize];
        let distinct_id = format!("{:016x}{:016x}", sequence.next(), sequence.next());
        user.execute(params![
            sequence.uuid(),
            distinct_id,
            given,
            family,
            email,
            organization_id,
            project,
            stamp(&joined),
            role,
            last_login,
        ])?;
        let user_id = tx.last_insert_rowid();
        let level = if sequence.below(50) == 0 {
            level::ADMIN
        } else {
            level::MEMBER
        };
        member.execute(params![
            sequence.uuid(),
            organization_id,
            user_id,
            level,
            stamp(&joined),
            sequence.below(3) == 0,
            sequence.below(4) == 0,
        ])?;
    }
    Ok(())
}
