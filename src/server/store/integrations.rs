//! Slack integrations of a project and their channels, and dashboards with
//! their tiles (posthog.md §10 and §11).

use rusqlite::{Connection, OptionalExtension, Row, params};
use serde_json::{Value, json};

use super::rows::{paged, parse_stamp, user_at, user_columns};
use crate::api::time::format_datetime;
use crate::server::error::{ApiError, ApiResult};

/// What the errors column holds once Slack revoked the token.
pub const REVOKED: &str = "TOKEN_REVOKED";

fn integration_select() -> String {
    format!(
        "SELECT i.id, i.kind, i.display_name, i.config, i.errors, i.created_at, {}
         FROM integrations i LEFT JOIN users cu ON cu.id = i.created_by",
        user_columns("cu")
    )
}

fn integration_at(row: &Row) -> rusqlite::Result<Value> {
    let config: String = row.get(3)?;
    let created_by = user_at(row, 6)?;
    Ok(json!({
        "id": row.get::<_, i64>(0)?,
        "kind": row.get::<_, String>(1)?,
        "config": serde_json::from_str::<Value>(&config).unwrap_or(Value::Null),
        "created_at": parse_stamp(row.get(5)?).map(|at| format_datetime(&at)),
        "created_by": created_by,
        "errors": row.get::<_, String>(4)?,
        "display_name": row.get::<_, String>(2)?,
        "files_write_requestable": false,
        "installation_shared": null,
        "installation_status": null,
    }))
}

/// The project's integrations, oldest first; of one kind when asked.
pub fn list(
    connection: &Connection,
    project_id: i64,
    kind: Option<&str>,
    page: (u64, u64),
) -> ApiResult<(u64, Vec<Value>)> {
    let filter = "WHERE i.project_id = ?1 AND (?2 IS NULL OR i.kind = ?2)";
    paged(
        connection,
        &format!("SELECT COUNT(*) FROM integrations i {filter}"),
        &format!("{} {filter} ORDER BY i.created_at, i.id", integration_select()),
        vec![project_id.into(), kind.map(str::to_string).into()],
        page,
        integration_at,
    )
}

/// One of the project's integrations.
pub fn get(connection: &Connection, project_id: i64, id: i64) -> ApiResult<Value> {
    connection
        .prepare_cached(&format!(
            "{} WHERE i.project_id = ?1 AND i.id = ?2",
            integration_select()
        ))?
        .query_row(params![project_id, id], integration_at)
        .optional()?
        .ok_or_else(ApiError::not_found)
}

/// What the channels endpoint needs to know of an integration.
#[derive(Debug, Clone)]
pub struct Installed {
    pub kind: String,
    pub errors: String,
    /// Slack's id of the user who installed it (`config.authed_user.id`).
    pub authed_user: Option<String>,
    pub created_by: Option<i64>,
}

/// The kind, errors, installing user and creator of one of the project's
/// integrations.
pub fn installed(connection: &Connection, project_id: i64, id: i64) -> ApiResult<Option<Installed>> {
    Ok(connection
        .prepare_cached(
            "SELECT kind, errors, config, created_by FROM integrations WHERE project_id = ?1 AND id = ?2",
        )?
        .query_row(params![project_id, id], |row| {
            let config: String = row.get(2)?;
            let config = serde_json::from_str::<Value>(&config).unwrap_or(Value::Null);
            Ok(Installed {
                kind: row.get(0)?,
                errors: row.get(1)?,
                authed_user: config["authed_user"]["id"]
                    .as_str()
                    .filter(|id| !id.is_empty())
                    .map(str::to_string),
                created_by: row.get(3)?,
            })
        })
        .optional()?)
}

fn channel_at(row: &Row) -> rusqlite::Result<Value> {
    Ok(json!({
        "id": row.get::<_, String>(0)?,
        "name": row.get::<_, String>(1)?,
        "is_private": row.get::<_, bool>(2)?,
        "is_member": row.get::<_, bool>(3)?,
        "is_ext_shared": row.get::<_, bool>(4)?,
        "is_private_without_access": false,
    }))
}

const CHANNEL_COLUMNS: &str = "id, name, is_private, is_member, is_ext_shared";

/// A page of an integration's channels by name, matching `search` in the
/// name or the id; private ones only when `private` (the caller installed
/// the integration); and whether more follow.
pub fn channels(
    connection: &Connection,
    integration: i64,
    private: bool,
    search: Option<&str>,
    page: (u64, u64),
) -> ApiResult<(Vec<Value>, bool)> {
    let (limit, offset) = page;
    let pattern = search.map(|search| {
        format!(
            "%{}%",
            search
                .trim_start_matches('#')
                .replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_")
        )
    });
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {CHANNEL_COLUMNS} FROM slack_channels
         WHERE integration_id = ?1
           AND (?5 OR is_private = 0)
           AND (?2 IS NULL OR name LIKE ?2 ESCAPE '\\' OR id LIKE ?2 ESCAPE '\\')
         ORDER BY name, id LIMIT ?3 OFFSET ?4"
    ))?;
    let mut rows: Vec<Value> = statement
        .query_map(
            params![
                integration,
                pattern,
                i64::try_from(limit.saturating_add(1)).unwrap_or(i64::MAX),
                i64::try_from(offset).unwrap_or(i64::MAX),
                private,
            ],
            channel_at,
        )?
        .collect::<Result<_, _>>()?;
    let more = rows.len() as u64 > limit;
    rows.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    Ok((rows, more))
}

/// One channel of an integration, by id; a private one only when `private`.
pub fn channel(
    connection: &Connection,
    integration: i64,
    private: bool,
    id: &str,
) -> ApiResult<Option<Value>> {
    Ok(connection
        .prepare_cached(&format!(
            "SELECT {CHANNEL_COLUMNS} FROM slack_channels WHERE integration_id = ?1 AND id = ?2 AND (?3 OR is_private = 0)"
        ))?
        .query_row(params![integration, id, private], channel_at)
        .optional()?)
}

/// A dashboard of the project with its tiles, in layout order (top to
/// bottom, left to right), each with its insight.
pub fn dashboard(connection: &Connection, project_id: i64, id: i64) -> ApiResult<Value> {
    let name: String = connection
        .prepare_cached("SELECT name FROM dashboards WHERE id = ?1 AND project_id = ?2")?
        .query_row(params![id, project_id], |row| row.get(0))
        .optional()?
        .ok_or_else(ApiError::not_found)?;
    let mut statement = connection.prepare_cached(
        "SELECT t.id, t.y, t.x, i.id, i.short_id, i.name
         FROM dashboard_tiles t LEFT JOIN insights i ON i.id = t.insight_id
         WHERE t.dashboard_id = ?1 ORDER BY t.y, t.x, t.id",
    )?;
    let tiles: Vec<Value> = statement
        .query_map([id], |row| {
            let (y, x): (i64, i64) = (row.get(1)?, row.get(2)?);
            let insight = match row.get::<_, Option<i64>>(3)? {
                Some(insight) => json!({
                    "id": insight,
                    "short_id": row.get::<_, Option<String>>(4)?,
                    "name": row.get::<_, String>(5)?,
                    "derived_name": null,
                }),
                None => Value::Null,
            };
            Ok(json!({
                "id": row.get::<_, i64>(0)?,
                "layouts": {"sm": {"x": x, "y": y, "w": 6, "h": 5}},
                "color": null,
                "insight": insight,
                "text": null,
                "button_tile": null,
                "widget": null,
                "order": y * 2 + x / 6,
                "last_refresh": null,
                "is_cached": false,
            }))
        })?
        .collect::<Result<_, _>>()?;
    Ok(json!({"id": id, "name": name, "pinned": false, "tiles": tiles}))
}
