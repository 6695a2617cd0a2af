//! Reading rows into the API models, and the stored form of timestamps.

use std::collections::HashMap;

use chrono::{DateTime, SecondsFormat, Utc};
use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, Row, params_from_iter};
use serde_json::{Map, Value};

use crate::api::{OrganizationMember, RoleMembership, User};
use crate::server::error::{ApiError, ApiResult};

/// Timestamps are stored as fixed-width RFC 3339 text in UTC with
/// microseconds, so that text order is time order.
pub fn stamp(at: &DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Micros, true)
}

pub fn parse_stamp(text: Option<String>) -> Option<DateTime<Utc>> {
    text.and_then(|text| DateTime::parse_from_rfc3339(&text).ok())
        .map(|at| at.with_timezone(&Utc))
}

/// The columns [`user_at`] reads, for a table alias.
/// How many columns [`user_columns`] selects.
pub const USER_COLUMNS: usize = 9;

pub fn user_columns(alias: &str) -> String {
    [
        "id",
        "uuid",
        "distinct_id",
        "first_name",
        "last_name",
        "email",
        "is_email_verified",
        "hedgehog_config",
        "role_at_organization",
    ]
    .map(|column| format!("{alias}.{column}"))
    .join(", ")
}

/// A user from the columns of [`user_columns`] starting at `first`; `None`
/// when a left join found none.
pub fn user_at(row: &Row, first: usize) -> rusqlite::Result<Option<User>> {
    let Some(id) = row.get::<_, Option<i64>>(first)? else {
        return Ok(None);
    };
    let hedgehog_config: Option<String> = row.get(first + 7)?;
    Ok(Some(User {
        id,
        uuid: row.get(first + 1)?,
        distinct_id: row.get(first + 2)?,
        first_name: row.get(first + 3)?,
        last_name: row.get(first + 4)?,
        email: row.get(first + 5)?,
        is_email_verified: row.get(first + 6)?,
        hedgehog_config: hedgehog_config
            .and_then(|text| serde_json::from_str::<Map<String, Value>>(&text).ok())
            .map(normalised_hedgehog),
        role_at_organization: row.get(first + 8)?,
    }))
}

/// A hedgehog as today's user object shows one (posthog.md 15-7): its four
/// keys and nothing else, whatever older shape was stored (a v2 config
/// keeps its fields under `config`).
fn normalised_hedgehog(stored: Map<String, Value>) -> Map<String, Value> {
    let source = match stored.get("config") {
        Some(Value::Object(inner)) => inner.clone(),
        _ => stored.clone(),
    };
    let field = |name: &str, default: Value| {
        source
            .get(name)
            .or_else(|| stored.get(name))
            .cloned()
            .unwrap_or(default)
    };
    let mut shown = Map::new();
    shown.insert(
        "use_as_profile".into(),
        field("use_as_profile", Value::Bool(false)),
    );
    shown.insert("color".into(), field("color", Value::Null));
    shown.insert(
        "accessories".into(),
        field("accessories", Value::Array(Vec::new())),
    );
    shown.insert("skin".into(), field("skin", Value::Null));
    shown
}

/// The columns [`member_at`] reads: the member (alias `m`) then its user (`mu`).
pub fn member_columns() -> String {
    format!(
        "m.id, m.level, m.joined_at, m.updated_at, m.is_2fa_enabled, m.has_social_auth, {}, mu.last_login",
        user_columns("mu")
    )
}

pub fn member_at(row: &Row, first: usize) -> rusqlite::Result<OrganizationMember> {
    Ok(OrganizationMember {
        id: row.get(first)?,
        level: row.get(first + 1)?,
        joined_at: parse_stamp(row.get(first + 2)?),
        updated_at: parse_stamp(row.get(first + 3)?),
        is_2fa_enabled: row.get(first + 4)?,
        has_social_auth: row.get(first + 5)?,
        user: user_at(row, first + 6)?.unwrap_or_default(),
        last_login: parse_stamp(row.get(first + 6 + USER_COLUMNS)?),
    })
}

/// `SELECT` of role memberships with their member and user, ready for a
/// `WHERE` clause; read each row with [`membership_at`].
pub fn membership_select() -> String {
    membership_select_after("")
}

/// [`membership_select`] with `leading` (columns and a comma) selected
/// first: [`membership_at_from`] reads the membership after them.
pub fn membership_select_after(leading: &str) -> String {
    format!(
        "SELECT {leading}rm.id, rm.role_id, rm.joined_at, rm.updated_at, {} \
         FROM role_memberships rm \
         JOIN organization_members m ON m.id = rm.organization_member_id \
         JOIN users mu ON mu.id = m.user_id",
        member_columns()
    )
}

pub fn membership_at(row: &Row) -> rusqlite::Result<RoleMembership> {
    membership_at_from(row, 0)
}

/// A membership read from the columns of [`membership_select`] starting
/// at `first`.
pub fn membership_at_from(row: &Row, first: usize) -> rusqlite::Result<RoleMembership> {
    let member = member_at(row, first + 4)?;
    Ok(RoleMembership {
        id: row.get(first)?,
        role_id: row.get(first + 1)?,
        joined_at: parse_stamp(row.get(first + 2)?),
        updated_at: parse_stamp(row.get(first + 3)?),
        user: Some(member.user.clone()),
        organization_member: Some(member),
        user_uuid: None,
    })
}

/// The rows `select` finds for `rowids`, in the order of `rowids`, each
/// read by `read`: `select` selects the rowid first and ends in a `WHERE`
/// clause taking `?1`, a JSON array of rowids (`... IN (SELECT value FROM
/// json_each(?1))`). They are looked up in ascending order, so that rows
/// near each other in the table share the pages read (a list's order
/// scatters them: looked up in that order, every row costs a trip through
/// the table's B-tree, dearer as the table grows); a row gone since is
/// left out.
pub fn in_order_of<T>(
    connection: &Connection,
    select: &str,
    rowids: &[i64],
    read: impl Fn(&Row) -> rusqlite::Result<T>,
) -> ApiResult<Vec<T>> {
    if rowids.is_empty() {
        return Ok(Vec::new());
    }
    let mut ascending = rowids.to_vec();
    ascending.sort_unstable();
    let list = serde_json::to_string(&ascending).map_err(ApiError::internal)?;
    let mut statement = connection.prepare_cached(select)?;
    let mut found: HashMap<i64, T> = statement
        .query_map([list], |row| Ok((row.get::<_, i64>(0)?, read(row)?)))?
        .collect::<Result<_, _>>()?;
    Ok(rowids.iter().filter_map(|rowid| found.remove(rowid)).collect())
}

/// Converts a `u64` paging value for SQLite, which counts in `i64`.
pub fn sql_int(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// Reads a `COUNT(*)` column (SQLite counts in `i64`).
pub fn count_at(row: &Row) -> rusqlite::Result<u64> {
    Ok(u64::try_from(row.get::<_, i64>(0)?).unwrap_or(0))
}

/// One page of rows and the count of all of them. `count_sql` and
/// `select_sql` take the same parameters; `select_sql` stops before
/// `LIMIT`/`OFFSET`, which are added here.
pub fn paged<T>(
    connection: &Connection,
    count_sql: &str,
    select_sql: &str,
    parameters: Vec<SqlValue>,
    page: (u64, u64),
    read: impl FnMut(&Row) -> rusqlite::Result<T>,
) -> ApiResult<(u64, Vec<T>)> {
    let count = connection
        .prepare_cached(count_sql)?
        .query_row(params_from_iter(parameters.iter()), count_at)?;
    Ok((count, page_rows(connection, select_sql, parameters, page, read)?))
}

/// One page of `select_sql`'s rows: `LIMIT` and `OFFSET` appended.
pub fn page_rows<T>(
    connection: &Connection,
    select_sql: &str,
    parameters: Vec<SqlValue>,
    (limit, offset): (u64, u64),
    read: impl FnMut(&Row) -> rusqlite::Result<T>,
) -> ApiResult<Vec<T>> {
    let next = parameters.len() + 1;
    let select = format!("{select_sql} LIMIT ?{next} OFFSET ?{}", next + 1);
    let mut all = parameters;
    all.extend([
        SqlValue::Integer(sql_int(limit)),
        SqlValue::Integer(sql_int(offset)),
    ]);
    let rows = connection
        .prepare_cached(&select)?
        .query_map(params_from_iter(all.iter()), read)?
        .collect::<Result<_, _>>()?;
    Ok(rows)
}
