//! Subscriptions of a project: one read, written and checked; lists are in
//! `subscription_list`.

use chrono::{DateTime, Utc};
use rusqlite::types::{Type, Value as SqlValue};
use rusqlite::{Connection, OptionalExtension, Row, params, params_from_iter};

use super::rows::{USER_COLUMNS, parse_stamp, stamp, user_at, user_columns};
use crate::api::{Frequency, ResourceType, Subscription, SubscriptionContext, TargetType, Weekday};
use crate::schedule::{Rules, Schedule};
use crate::server::error::{ApiError, ApiResult};

/// Every writable field of a subscription, complete (a create, or a stored
/// row with a PATCH applied).
#[derive(Debug, Clone, PartialEq)]
pub struct SubscriptionValues {
    pub dashboard: Option<i64>,
    pub insight: Option<i64>,
    pub target_type: TargetType,
    pub target_value: String,
    pub frequency: Frequency,
    pub interval: i64,
    pub byweekday: Option<Vec<Weekday>>,
    pub bysetpos: Option<i64>,
    pub count: Option<i64>,
    pub start_date: DateTime<Utc>,
    pub until_date: Option<DateTime<Utc>>,
    pub deleted: bool,
    pub title: Option<String>,
    pub invite_message: Option<String>,
    pub today: TodayFields,
}

/// The writable fields of today's PostHog (posthog.md 8.1); the seed
/// flavor stores their defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct TodayFields {
    pub enabled: bool,
    pub integration_id: Option<i64>,
    pub dashboard_export_insights: Vec<i64>,
    pub prompt: Option<String>,
    pub summary_enabled: bool,
    pub summary_prompt_guide: String,
    /// An AI report's window (posthog.md 15-2): a JSON object, `{}` unset.
    pub ai_prompt_config: serde_json::Value,
    /// The dashboards and insights an AI summary reads, by id alone.
    pub contexts: Vec<SubscriptionContext>,
}

impl Default for TodayFields {
    fn default() -> Self {
        TodayFields {
            enabled: true,
            integration_id: None,
            dashboard_export_insights: Vec::new(),
            prompt: None,
            summary_enabled: false,
            summary_prompt_guide: String::new(),
            ai_prompt_config: serde_json::Value::Object(serde_json::Map::new()),
            contexts: Vec::new(),
        }
    }
}

impl SubscriptionValues {
    pub fn schedule(&self, rules: Rules) -> Schedule {
        Schedule {
            frequency: self.frequency.clone(),
            interval: self.interval,
            byweekday: self.byweekday.clone().unwrap_or_default(),
            bysetpos: self.bysetpos,
            count: self.count,
            start: self.start_date,
            until: self.until_date,
            rules,
        }
    }

    /// Whether the recurrence fields differ, so that the stored summary and
    /// next delivery must be computed again.
    pub fn schedule_differs(&self, other: &SubscriptionValues) -> bool {
        self.schedule(Rules::Today) != other.schedule(Rules::Today)
    }
}

/// What the schedule yields, stored beside the fields.
#[derive(Debug, Clone, PartialEq)]
pub struct Computed {
    pub summary: String,
    pub next_delivery_date: Option<DateTime<Utc>>,
}

impl Computed {
    pub fn of(values: &SubscriptionValues, now: DateTime<Utc>, rules: Rules) -> Computed {
        let schedule = values.schedule(rules);
        Computed {
            summary: schedule.summary(),
            next_delivery_date: schedule.next_delivery(now),
        }
    }
}

/// The writable columns, in the order [`values_at`] reads them and
/// [`value_parameters`] binds them.
const VALUE_COLUMNS: [&str; 22] = [
    "dashboard_id",
    "insight_id",
    "target_type",
    "target_value",
    "frequency",
    "interval",
    "byweekday",
    "bysetpos",
    "count",
    "start_date",
    "until_date",
    "deleted",
    "title",
    "invite_message",
    "enabled",
    "integration_id",
    "dashboard_export_insights",
    "prompt",
    "summary_enabled",
    "summary_prompt_guide",
    "ai_prompt_config",
    "contexts",
];

fn value_columns(alias: &str) -> String {
    VALUE_COLUMNS.map(|column| format!("{alias}.{column}")).join(", ")
}

fn weekdays_from(text: Option<String>) -> Option<Vec<Weekday>> {
    text.and_then(|text| serde_json::from_str(&text).ok())
}

/// A JSON column read as `T`, its default when it is empty (`[]`, `{}`:
/// most rows, read without parsing) or does not parse.
fn json_column<T: serde::de::DeserializeOwned + Default>(row: &Row, index: usize) -> rusqlite::Result<T> {
    let text = row.get_ref(index)?.as_str()?;
    Ok(match text {
        "[]" | "{}" | "" => T::default(),
        _ => serde_json::from_str(text).unwrap_or_default(),
    })
}

/// The writable values from the columns of [`VALUE_COLUMNS`] starting at `first`.
fn values_at(row: &Row, first: usize) -> rusqlite::Result<SubscriptionValues> {
    let start_date = parse_stamp(row.get(first + 9)?).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            first + 9,
            Type::Text,
            "start_date is not a date-time".into(),
        )
    })?;
    Ok(SubscriptionValues {
        dashboard: row.get(first)?,
        insight: row.get(first + 1)?,
        target_type: TargetType::from_wire(&row.get::<_, String>(first + 2)?),
        target_value: row.get(first + 3)?,
        frequency: Frequency::from_wire(&row.get::<_, String>(first + 4)?),
        interval: row.get(first + 5)?,
        byweekday: weekdays_from(row.get(first + 6)?),
        bysetpos: row.get(first + 7)?,
        count: row.get(first + 8)?,
        start_date,
        until_date: parse_stamp(row.get(first + 10)?),
        deleted: row.get(first + 11)?,
        title: row.get(first + 12)?,
        invite_message: row.get(first + 13)?,
        today: TodayFields {
            enabled: row.get(first + 14)?,
            integration_id: row.get(first + 15)?,
            dashboard_export_insights: json_column(row, first + 16)?,
            prompt: row.get(first + 17)?,
            summary_enabled: row.get(first + 18)?,
            summary_prompt_guide: row.get(first + 19)?,
            ai_prompt_config: match row.get_ref(first + 20)?.as_str()? {
                "{}" => serde_json::Value::Object(serde_json::Map::new()),
                text => serde_json::from_str(text)
                    .unwrap_or_else(|_| serde_json::Value::Object(serde_json::Map::new())),
            },
            contexts: json_column(row, first + 21)?,
        },
    })
}

/// The writable values as SQL parameters, in the order of [`VALUE_COLUMNS`].
fn value_parameters(values: &SubscriptionValues) -> ApiResult<Vec<SqlValue>> {
    let text = |text: &str| SqlValue::Text(text.to_string());
    let optional = |value: Option<SqlValue>| value.unwrap_or(SqlValue::Null);
    let weekdays = values
        .byweekday
        .as_ref()
        .map(|days| serde_json::to_string(days).map_err(ApiError::internal))
        .transpose()?;
    Ok(vec![
        optional(values.dashboard.map(SqlValue::Integer)),
        optional(values.insight.map(SqlValue::Integer)),
        text(values.target_type.as_str()),
        text(&values.target_value),
        text(values.frequency.as_str()),
        SqlValue::Integer(values.interval),
        optional(weekdays.map(SqlValue::Text)),
        optional(values.bysetpos.map(SqlValue::Integer)),
        optional(values.count.map(SqlValue::Integer)),
        SqlValue::Text(stamp(&values.start_date)),
        optional(values.until_date.as_ref().map(|at| SqlValue::Text(stamp(at)))),
        SqlValue::Integer(values.deleted.into()),
        optional(values.title.clone().map(SqlValue::Text)),
        optional(values.invite_message.clone().map(SqlValue::Text)),
        SqlValue::Integer(values.today.enabled.into()),
        optional(values.today.integration_id.map(SqlValue::Integer)),
        SqlValue::Text(
            serde_json::to_string(&values.today.dashboard_export_insights).map_err(ApiError::internal)?,
        ),
        optional(values.today.prompt.clone().map(SqlValue::Text)),
        SqlValue::Integer(values.today.summary_enabled.into()),
        SqlValue::Text(values.today.summary_prompt_guide.clone()),
        SqlValue::Text(values.today.ai_prompt_config.to_string()),
        SqlValue::Text({
            let references: Vec<SubscriptionContext> = values
                .today
                .contexts
                .iter()
                .map(SubscriptionContext::reference)
                .collect();
            serde_json::to_string(&references).map_err(ApiError::internal)?
        }),
    ])
}

/// A subscription's contexts with the names of what they name, as JSON:
/// looked up only for the rows that have any.
const CONTEXTS_SHOWN: &str = "CASE WHEN s.contexts = '[]' THEN '[]' ELSE (
    SELECT json_group_array(CASE
        WHEN json_extract(c.value, '$.dashboard_id') IS NOT NULL
        THEN json_object('dashboard_id', json_extract(c.value, '$.dashboard_id'), 'dashboard_name', cd.name)
        ELSE json_object('insight_id', json_extract(c.value, '$.insight_id'), 'insight_short_id', ci.short_id,
                         'insight_name', coalesce(nullif(ci.name, ''), ci.derived_name))
        END)
    FROM json_each(s.contexts) c
         LEFT JOIN dashboards cd ON cd.id = json_extract(c.value, '$.dashboard_id')
         LEFT JOIN insights ci ON ci.id = json_extract(c.value, '$.insight_id')
    ) END";

pub(super) fn subscription_select() -> String {
    format!(
        "SELECT s.id, s.created_at, s.summary, s.next_delivery_date, {}, {},
                coalesce(nullif(si.name, ''), si.derived_name), si.short_id, sd.name, {CONTEXTS_SHOWN}
         FROM subscriptions s LEFT JOIN users cu ON cu.id = s.created_by
              LEFT JOIN insights si ON si.id = s.insight_id
              LEFT JOIN dashboards sd ON sd.id = s.dashboard_id",
        value_columns("s"),
        user_columns("cu")
    )
}

pub(super) fn subscription_at(row: &Row) -> rusqlite::Result<Subscription> {
    let values = values_at(row, 4)?;
    let resource = 4 + VALUE_COLUMNS.len() + USER_COLUMNS;
    let (insight_name, insight_short_id, dashboard_name): (Option<String>, Option<String>, Option<String>) =
        (row.get(resource)?, row.get(resource + 1)?, row.get(resource + 2)?);
    let contexts: Vec<SubscriptionContext> = json_column(row, resource + 3)?;
    // posthog.md 8.1: insight, then dashboard, then prompt.
    let (resource_type, resource_name) = if values.insight.is_some() {
        (
            ResourceType::Insight,
            insight_name.unwrap_or_else(|| "None".into()),
        )
    } else if values.dashboard.is_some() {
        (
            ResourceType::Dashboard,
            dashboard_name.unwrap_or_else(|| "Dashboard".into()),
        )
    } else {
        let from_prompt = values
            .today
            .prompt
            .as_deref()
            .filter(|prompt| !prompt.is_empty())
            .map(|prompt| prompt.chars().take(60).collect::<String>());
        let name = values
            .title
            .clone()
            .filter(|title| !title.is_empty())
            .or(from_prompt)
            .unwrap_or_else(|| "AI report".into());
        (ResourceType::AiPrompt, name)
    };
    Ok(Subscription {
        resource_type: Some(resource_type),
        resource_name: Some(resource_name),
        insight_short_id,
        dashboard_export_insights: Some(values.today.dashboard_export_insights),
        prompt: values.today.prompt,
        enabled: Some(values.today.enabled),
        integration_id: values.today.integration_id,
        summary_enabled: Some(values.today.summary_enabled),
        summary_prompt_guide: Some(values.today.summary_prompt_guide),
        ai_prompt_config: Some(values.today.ai_prompt_config),
        contexts: Some(contexts),
        id: row.get(0)?,
        created_at: parse_stamp(row.get(1)?),
        summary: row.get(2)?,
        next_delivery_date: parse_stamp(row.get(3)?),
        created_by: user_at(row, 4 + VALUE_COLUMNS.len())?,
        dashboard: values.dashboard,
        insight: values.insight,
        target_type: Some(values.target_type),
        target_value: Some(values.target_value),
        frequency: Some(values.frequency),
        interval: Some(values.interval),
        byweekday: values.byweekday,
        bysetpos: values.bysetpos,
        count: values.count,
        start_date: Some(values.start_date),
        until_date: values.until_date,
        deleted: values.deleted,
        title: values.title,
        invite_message: values.invite_message,
    })
}

/// Runs `load`, which inserts many subscriptions, and indexes them for
/// search and notes their creators' e-mails once at the end rather than
/// row by row (schema 4's `search_deferred`, schema 10). Within one transaction, so a failed load leaves
/// neither rows nor the pause behind.
pub fn bulk_load<T>(connection: &Connection, load: impl FnOnce() -> ApiResult<T>) -> ApiResult<T> {
    let after: i64 = connection.query_row("SELECT ifnull(max(id), 0) FROM subscriptions", [], |row| {
        row.get(0)
    })?;
    connection.execute("INSERT INTO search_deferred (after_id) VALUES (?1)", [after])?;
    // Room for every page the load touches, so that none is spilled to the
    // log and written again before the commit (writes are the cost here).
    connection.pragma_update(None, "cache_size", -262_144)?;
    let loaded = load()?;
    connection.execute(
        "INSERT INTO subscription_search (rowid, names)
         SELECT id, names FROM subscription_search_source WHERE id > ?1",
        [after],
    )?;
    // The creators' e-mails, left to the end as well (schema 10).
    connection.execute(
        "UPDATE subscriptions SET creator_email = (SELECT email FROM users WHERE id = created_by)
         WHERE id > ?1 AND created_by IS NOT NULL",
        [after],
    )?;
    connection.execute("DELETE FROM search_deferred", [])?;
    connection.pragma_update(None, "cache_size", super::CACHE_SIZE)?;
    Ok(loaded)
}

/// The subscription, deleted or not; 404 when the project has none with this id.
pub fn get(connection: &Connection, project_id: i64, id: i64) -> ApiResult<Subscription> {
    let mut statement = connection.prepare_cached(&format!(
        "{} WHERE s.project_id = ?1 AND s.id = ?2",
        subscription_select()
    ))?;
    statement
        .query_row(params![project_id, id], subscription_at)
        .optional()?
        .ok_or_else(ApiError::not_found)
}

/// The stored writable values, for applying a PATCH.
pub fn stored_values(connection: &Connection, project_id: i64, id: i64) -> ApiResult<SubscriptionValues> {
    let sql = format!(
        "SELECT {} FROM subscriptions s WHERE s.project_id = ?1 AND s.id = ?2",
        value_columns("s")
    );
    connection
        .prepare_cached(&sql)?
        .query_row(params![project_id, id], |row| values_at(row, 0))
        .optional()?
        .ok_or_else(ApiError::not_found)
}

/// Enabled, undeleted subscriptions with AI summaries in the organization
/// of the project: what `summary_quota` counts.
pub fn active_summaries(connection: &Connection, project_id: i64) -> ApiResult<i64> {
    Ok(connection
        .prepare_cached(
            "SELECT COUNT(*) FROM subscriptions s JOIN projects p ON p.id = s.project_id
         WHERE p.organization_id = (SELECT organization_id FROM projects WHERE id = ?1)
           AND s.summary_enabled = 1 AND s.deleted = 0",
        )?
        .query_row([project_id], |row| row.get(0))?)
}

/// Inserts a subscription and returns its id.
pub fn insert(
    connection: &Connection,
    project_id: i64,
    created_by: i64,
    created_at: DateTime<Utc>,
    values: &SubscriptionValues,
    computed: &Computed,
) -> ApiResult<i64> {
    static SQL: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let sql = SQL.get_or_init(|| {
        let placeholders: Vec<String> = (1..=5 + VALUE_COLUMNS.len()).map(|n| format!("?{n}")).collect();
        format!(
            "INSERT INTO subscriptions (project_id, created_by, created_at, summary, next_delivery_date, {})
             VALUES ({})",
            VALUE_COLUMNS.join(", "),
            placeholders.join(", ")
        )
    });
    let mut parameters = vec![
        SqlValue::Integer(project_id),
        SqlValue::Integer(created_by),
        SqlValue::Text(stamp(&created_at)),
        SqlValue::Text(computed.summary.clone()),
        computed
            .next_delivery_date
            .as_ref()
            .map(|at| SqlValue::Text(stamp(at)))
            .unwrap_or(SqlValue::Null),
    ];
    parameters.extend(value_parameters(values)?);
    connection
        .prepare_cached(sql)?
        .execute(params_from_iter(parameters.iter()))?;
    Ok(connection.last_insert_rowid())
}

/// Stores new values; `computed` is `Some` when the schedule changed.
pub fn update(
    connection: &Connection,
    id: i64,
    values: &SubscriptionValues,
    computed: Option<&Computed>,
) -> ApiResult<()> {
    let assignments: Vec<String> = VALUE_COLUMNS
        .iter()
        .enumerate()
        .map(|(index, column)| format!("{column} = ?{}", index + 2))
        .collect();
    let sql = format!(
        "UPDATE subscriptions SET {} WHERE id = ?1",
        assignments.join(", ")
    );
    let mut parameters = vec![SqlValue::Integer(id)];
    parameters.extend(value_parameters(values)?);
    connection
        .prepare_cached(&sql)?
        .execute(params_from_iter(parameters.iter()))?;
    if let Some(computed) = computed {
        connection.execute(
            "UPDATE subscriptions SET summary = ?2, next_delivery_date = ?3 WHERE id = ?1",
            params![
                id,
                computed.summary,
                computed.next_delivery_date.as_ref().map(stamp)
            ],
        )?;
    }
    Ok(())
}
