//! One organization member: their level, their removal (never an owner's,
//! posthog.md 15-19), and a summary of their personal API keys (posthog.md
//! 15-13).

use chrono::{DateTime, Duration, Utc};
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

use super::rows::{member_at, member_columns, parse_stamp, stamp};
use crate::api::OrganizationMember;
use crate::api::models::level;
use crate::server::error::{ApiError, ApiResult};

/// A member found by their user's UUID: the member row's id, the user's
/// id and level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    pub user_id: i64,
    pub level: i64,
}

/// The active member whose user has this UUID (or `@me`, the caller);
/// 404 when the organization has none.
pub fn find(
    connection: &Connection,
    organization_id: &str,
    user_uuid: &str,
    caller: i64,
) -> ApiResult<Found> {
    let mut statement = connection.prepare_cached(
        "SELECT u.id, m.level FROM organization_members m JOIN users u ON u.id = m.user_id
         WHERE m.organization_id = ?1 AND u.is_active = 1
           AND (u.uuid = ?2 OR (?2 = '@me' AND u.id = ?3))",
    )?;
    statement
        .query_row(params![organization_id, user_uuid, caller], |row| {
            Ok(Found {
                user_id: row.get(0)?,
                level: row.get(1)?,
            })
        })
        .optional()?
        .ok_or_else(ApiError::not_found)
}

/// The member as the list shows them.
pub fn get(connection: &Connection, organization_id: &str, user_id: i64) -> ApiResult<OrganizationMember> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {} FROM organization_members m JOIN users mu ON mu.id = m.user_id
         WHERE m.organization_id = ?1 AND m.user_id = ?2",
        member_columns()
    ))?;
    statement
        .query_row(params![organization_id, user_id], |row| member_at(row, 0))
        .optional()?
        .ok_or_else(ApiError::not_found)
}

/// Sets a member's level.
pub fn set_level(
    connection: &Connection,
    organization_id: &str,
    user_id: i64,
    level: i64,
    now: DateTime<Utc>,
) -> ApiResult<()> {
    connection.execute(
        "UPDATE organization_members SET level = ?3, updated_at = ?4
         WHERE organization_id = ?1 AND user_id = ?2",
        params![organization_id, user_id, level, stamp(&now)],
    )?;
    Ok(())
}

/// What PostHog answers when an owner would be removed (`User.leave`).
pub const OWNER_CANNOT_LEAVE: &str = "Cannot leave the organization as its owner!";

/// Removes a member; their role memberships in the organization go with
/// them (the foreign key cascades), the subscriptions they created stay.
/// An owner is refused (400), as PostHog refuses them: they must be made
/// admin by another owner first. The delete itself spares an owner too, so
/// that a level changed since `member` was read cannot slip through.
pub fn remove(connection: &Connection, organization_id: &str, member: Found) -> ApiResult<()> {
    let owner_refused = || ApiError::validation("invalid_input", OWNER_CANNOT_LEAVE);
    if member.level >= level::OWNER {
        return Err(owner_refused());
    }
    let deleted = connection.execute(
        "DELETE FROM organization_members WHERE organization_id = ?1 AND user_id = ?2 AND level < ?3",
        params![organization_id, member.user_id, level::OWNER],
    )?;
    if deleted == 0 {
        return Err(owner_refused());
    }
    Ok(())
}

/// One of a member's keys as `scoped_api_keys` lists it: never the key.
#[derive(Debug, Clone, Serialize)]
pub struct KeySummary {
    pub id: String,
    pub label: String,
    pub mask_value: String,
    pub scopes: Vec<String>,
    pub last_used_at: Option<String>,
}

/// What `GET …/members/:uuid/scoped_api_keys/` answers.
#[derive(Debug, Clone, Serialize)]
pub struct ScopedKeys {
    pub has_keys: bool,
    pub has_keys_active_last_week: bool,
    pub keys: Vec<KeySummary>,
}

/// The user's personal API keys, newest first, and whether any was used in
/// the week before `now`.
pub fn scoped_keys(connection: &Connection, user_id: i64, now: DateTime<Utc>) -> ApiResult<ScopedKeys> {
    let mut statement = connection.prepare_cached(
        "SELECT id, label, mask_value, scopes, last_used_at FROM personal_api_keys
         WHERE user_id = ?1 ORDER BY created_at DESC, id",
    )?;
    let keys: Vec<KeySummary> = statement
        .query_map([user_id], |row| {
            let scopes: String = row.get(3)?;
            Ok(KeySummary {
                id: row.get(0)?,
                label: row.get(1)?,
                mask_value: row.get(2)?,
                scopes: serde_json::from_str(&scopes).unwrap_or_default(),
                last_used_at: row.get(4)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    let week_ago = now - Duration::days(7);
    let has_keys_active_last_week = keys.iter().any(|key| {
        key.last_used_at
            .clone()
            .and_then(|used| parse_stamp(Some(used)))
            .is_some_and(|used| used >= week_ago)
    });
    Ok(ScopedKeys {
        has_keys: !keys.is_empty(),
        has_keys_active_last_week,
        keys,
    })
}

/// A user by id, as the user object of today's PostHog shows them.
pub fn user(connection: &Connection, user_id: i64) -> ApiResult<crate::api::User> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {} FROM users u WHERE u.id = ?1",
        super::rows::user_columns("u")
    ))?;
    statement
        .query_row(params![user_id], |row| super::rows::user_at(row, 0))
        .optional()?
        .flatten()
        .ok_or_else(ApiError::not_found)
}
