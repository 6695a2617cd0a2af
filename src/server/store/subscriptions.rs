//! Subscriptions of a project.
//!
//! Lists page with a deferred join: the page's ids are found by an index-only
//! scan, and only those 100 rows are then read whole. An offset of 99,900
//! thus steps over index entries, not over 99,900 joined rows.

use chrono::{DateTime, Utc};
use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, OptionalExtension, Row, params, params_from_iter};

use super::Db;
use super::rows::{count_at, parse_stamp, sql_int, stamp, user_at, user_columns};
use crate::api::{Frequency, Subscription, TargetType, Weekday};
use crate::schedule::Schedule;
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
}

impl SubscriptionValues {
    pub fn schedule(&self) -> Schedule {
        Schedule {
            frequency: self.frequency.clone(),
            interval: self.interval,
            byweekday: self.byweekday.clone().unwrap_or_default(),
            bysetpos: self.bysetpos,
            count: self.count,
            start: self.start_date,
            until: self.until_date,
        }
    }

    /// Whether the recurrence fields differ, so that the stored summary and
    /// next delivery must be computed again.
    pub fn schedule_differs(&self, other: &SubscriptionValues) -> bool {
        self.schedule() != other.schedule()
    }
}

/// What the schedule yields, stored beside the fields.
#[derive(Debug, Clone, PartialEq)]
pub struct Computed {
    pub summary: String,
    pub next_delivery_date: Option<DateTime<Utc>>,
}

impl Computed {
    pub fn of(values: &SubscriptionValues, now: DateTime<Utc>) -> Computed {
        let schedule = values.schedule();
        Computed {
            summary: schedule.summary(),
            next_delivery_date: schedule.next_delivery(now),
        }
    }
}

/// The list orderings compat.md allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    CreatedAt,
    NextDeliveryDate,
    Title,
}

/// How a list is filtered and ordered.
#[derive(Debug, Clone, PartialEq)]
pub struct ListQuery {
    pub deleted: bool,
    pub insight: Option<i64>,
    pub dashboard: Option<i64>,
    pub target_type: Option<String>,
    pub search: Option<String>,
    pub sort: SortKey,
    pub descending: bool,
}

impl Default for ListQuery {
    fn default() -> Self {
        ListQuery {
            deleted: false,
            insight: None,
            dashboard: None,
            target_type: None,
            search: None,
            sort: SortKey::CreatedAt,
            descending: true,
        }
    }
}

impl ListQuery {
    /// `ORDER BY` terms. Each matches an index expression exactly, and nulls
    /// sort last ascending and first descending, as PostgreSQL sorts them.
    fn order_by(&self) -> String {
        let direction = if self.descending { "DESC" } else { "ASC" };
        let terms: &[&str] = match self.sort {
            SortKey::CreatedAt => &["s.created_at"],
            SortKey::NextDeliveryDate => &["ifnull(s.next_delivery_date, '9999')"],
            SortKey::Title => &["(s.title IS NULL)", "s.title COLLATE NOCASE"],
        };
        terms
            .iter()
            .chain(std::iter::once(&"s.id"))
            .map(|term| format!("{term} {direction}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// `FROM ... WHERE ...` and its parameters (`?1` is the project).
    fn filter_sql(&self, project_id: i64) -> (String, Vec<SqlValue>) {
        let mut sql = String::from("FROM subscriptions s");
        let mut conditions = vec!["s.project_id = ?1".to_string(), "s.deleted = ?2".to_string()];
        let mut values = vec![
            SqlValue::Integer(project_id),
            SqlValue::Integer(self.deleted.into()),
        ];
        let mut bind = |condition: &str, value: SqlValue| {
            values.push(value);
            conditions.push(condition.replace('#', &format!("?{}", values.len())));
        };
        if let Some(insight) = self.insight {
            bind("s.insight_id = #", SqlValue::Integer(insight));
        }
        if let Some(dashboard) = self.dashboard {
            bind("s.dashboard_id = #", SqlValue::Integer(dashboard));
        }
        if let Some(target_type) = &self.target_type {
            bind("s.target_type = #", SqlValue::Text(target_type.clone()));
        }
        if let Some(search) = self.search.as_deref().filter(|text| !text.is_empty()) {
            sql.push_str(
                " LEFT JOIN insights i ON i.id = s.insight_id LEFT JOIN dashboards d ON d.id = s.dashboard_id",
            );
            let pattern = format!(
                "%{}%",
                search
                    .replace('\\', "\\\\")
                    .replace('%', "\\%")
                    .replace('_', "\\_")
            );
            bind(
                "(s.title LIKE # ESCAPE '\\' OR s.target_value LIKE # ESCAPE '\\' \
                 OR i.name LIKE # ESCAPE '\\' OR d.name LIKE # ESCAPE '\\')",
                SqlValue::Text(pattern),
            );
        }
        sql.push_str(" WHERE ");
        sql.push_str(&conditions.join(" AND "));
        (sql, values)
    }
}

fn subscription_select() -> String {
    format!(
        "SELECT s.id, s.dashboard_id, s.insight_id, s.target_type, s.target_value, s.frequency,
                s.interval, s.byweekday, s.bysetpos, s.count, s.start_date, s.until_date,
                s.created_at, s.deleted, s.title, s.summary, s.next_delivery_date, s.invite_message,
                {}
         FROM subscriptions s LEFT JOIN users cu ON cu.id = s.created_by",
        user_columns("cu")
    )
}

fn weekdays_from(text: Option<String>) -> Option<Vec<Weekday>> {
    text.and_then(|text| serde_json::from_str(&text).ok())
}

fn subscription_at(row: &Row) -> rusqlite::Result<Subscription> {
    Ok(Subscription {
        id: row.get(0)?,
        dashboard: row.get(1)?,
        insight: row.get(2)?,
        target_type: Some(TargetType::from_wire(&row.get::<_, String>(3)?)),
        target_value: row.get(4)?,
        frequency: Some(Frequency::from_wire(&row.get::<_, String>(5)?)),
        interval: row.get(6)?,
        byweekday: weekdays_from(row.get(7)?),
        bysetpos: row.get(8)?,
        count: row.get(9)?,
        start_date: parse_stamp(row.get(10)?),
        until_date: parse_stamp(row.get(11)?),
        created_at: parse_stamp(row.get(12)?),
        deleted: row.get(13)?,
        title: row.get(14)?,
        summary: row.get(15)?,
        next_delivery_date: parse_stamp(row.get(16)?),
        invite_message: row.get(17)?,
        created_by: user_at(row, 18)?,
    })
}

/// One page of a project's subscriptions and the count of all that match.
pub fn list(
    db: &Db,
    connection: &Connection,
    project_id: i64,
    query: &ListQuery,
    limit: u64,
    offset: u64,
) -> ApiResult<(u64, Vec<Subscription>)> {
    let (from_where, values) = query.filter_sql(project_id);
    let count_sql = format!("SELECT COUNT(*) {from_where}");
    let count = db.cached_count(format!("{count_sql} {values:?}"), || {
        Ok(connection
            .prepare_cached(&count_sql)?
            .query_row(params_from_iter(values.iter()), count_at)?)
    })?;
    if offset >= count {
        return Ok((count, Vec::new()));
    }
    let order_by = query.order_by();
    let limit_at = values.len() + 1;
    let sql = format!(
        "WITH page AS (SELECT s.id {from_where} ORDER BY {order_by} LIMIT ?{limit_at} OFFSET ?{})
         {} WHERE s.id IN (SELECT id FROM page) ORDER BY {order_by}",
        limit_at + 1,
        subscription_select(),
    );
    let mut all_values = values;
    all_values.push(SqlValue::Integer(sql_int(limit)));
    all_values.push(SqlValue::Integer(sql_int(offset)));
    let mut statement = connection.prepare_cached(&sql)?;
    let rows = statement
        .query_map(params_from_iter(all_values.iter()), subscription_at)?
        .collect::<Result<_, _>>()?;
    Ok((count, rows))
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
pub fn values(connection: &Connection, project_id: i64, id: i64) -> ApiResult<SubscriptionValues> {
    let mut statement = connection.prepare_cached(
        "SELECT dashboard_id, insight_id, target_type, target_value, frequency, interval, byweekday,
                bysetpos, count, start_date, until_date, deleted, title, invite_message
         FROM subscriptions WHERE project_id = ?1 AND id = ?2",
    )?;
    statement
        .query_row(params![project_id, id], |row| {
            Ok(SubscriptionValues {
                dashboard: row.get(0)?,
                insight: row.get(1)?,
                target_type: TargetType::from_wire(&row.get::<_, String>(2)?),
                target_value: row.get(3)?,
                frequency: Frequency::from_wire(&row.get::<_, String>(4)?),
                interval: row.get(5)?,
                byweekday: weekdays_from(row.get(6)?),
                bysetpos: row.get(7)?,
                count: row.get(8)?,
                start_date: parse_stamp(row.get(9)?).ok_or_else(|| {
                    rusqlite::Error::FromSqlConversionFailure(
                        9,
                        rusqlite::types::Type::Text,
                        "start_date is not a date-time".into(),
                    )
                })?,
                until_date: parse_stamp(row.get(10)?),
                deleted: row.get(11)?,
                title: row.get(12)?,
                invite_message: row.get(13)?,
            })
        })
        .optional()?
        .ok_or_else(ApiError::not_found)
}

fn weekdays_text(values: &SubscriptionValues) -> ApiResult<Option<String>> {
    values
        .byweekday
        .as_ref()
        .map(|days| serde_json::to_string(days).map_err(ApiError::internal))
        .transpose()
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
    let mut statement = connection.prepare_cached(
        "INSERT INTO subscriptions (project_id, dashboard_id, insight_id, target_type, target_value,
             frequency, interval, byweekday, bysetpos, count, start_date, until_date, created_at,
             created_by, deleted, title, summary, next_delivery_date, invite_message)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)",
    )?;
    statement.execute(params![
        project_id,
        values.dashboard,
        values.insight,
        values.target_type.as_str(),
        values.target_value,
        values.frequency.as_str(),
        values.interval,
        weekdays_text(values)?,
        values.bysetpos,
        values.count,
        stamp(&values.start_date),
        values.until_date.as_ref().map(stamp),
        stamp(&created_at),
        created_by,
        values.deleted,
        values.title,
        computed.summary,
        computed.next_delivery_date.as_ref().map(stamp),
        values.invite_message,
    ])?;
    Ok(connection.last_insert_rowid())
}

/// Stores new values; `computed` is `Some` when the schedule changed.
pub fn update(
    connection: &Connection,
    id: i64,
    values: &SubscriptionValues,
    computed: Option<&Computed>,
) -> ApiResult<()> {
    connection.execute(
        "UPDATE subscriptions SET dashboard_id = ?2, insight_id = ?3, target_type = ?4,
             target_value = ?5, frequency = ?6, interval = ?7, byweekday = ?8, bysetpos = ?9,
             count = ?10, start_date = ?11, until_date = ?12, deleted = ?13, title = ?14,
             invite_message = ?15
         WHERE id = ?1",
        params![
            id,
            values.dashboard,
            values.insight,
            values.target_type.as_str(),
            values.target_value,
            values.frequency.as_str(),
            values.interval,
            weekdays_text(values)?,
            values.bysetpos,
            values.count,
            stamp(&values.start_date),
            values.until_date.as_ref().map(stamp),
            values.deleted,
            values.title,
            values.invite_message,
        ],
    )?;
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
