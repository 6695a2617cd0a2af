//! Roles of an organization, ordered by creation time.

use chrono::{DateTime, Utc};
use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, Row, params};

use super::Snapshot;
use super::keyset::{self, Listing, Term};
use super::rows::{
    USER_COLUMNS, membership_at, membership_select, parse_stamp, stamp, user_at, user_columns,
};
use crate::api::{ListOrText, Role, RoleMembership};
use crate::server::error::{ApiError, ApiResult};

fn role_select() -> String {
    format!(
        "SELECT r.id, r.name, r.feature_flags_access_level, r.created_at, {},
                r.id IS (SELECT default_role_id FROM organizations WHERE id = r.organization_id)
         FROM roles r LEFT JOIN users cu ON cu.id = r.created_by",
        user_columns("cu")
    )
}

fn role_at(row: &Row) -> rusqlite::Result<Role> {
    Ok(Role {
        id: row.get(0)?,
        name: row.get(1)?,
        feature_flags_access_level: row.get(2)?,
        created_at: parse_stamp(row.get(3)?),
        created_by: user_at(row, 4)?,
        members: Some(ListOrText::List(Vec::new())),
        // The reference server has no feature flags to associate.
        associated_flags: Some(ListOrText::List(Vec::new())),
        is_default: Some(row.get(4 + USER_COLUMNS)?),
    })
}

/// Fills in the members of each role, oldest first: one query a role,
/// read in the order of its index (`role_memberships_order`), so that
/// nothing is sorted and each membership is read once, into its role (a
/// query for all the page's roles at once sorted every membership of them
/// together, and its cost grew faster than the organization).
fn attach_members(connection: &Connection, roles: &mut [Role]) -> ApiResult<()> {
    let mut statement = connection.prepare_cached(&format!(
        "{} WHERE rm.role_id = ?1 ORDER BY rm.joined_at, rm.id",
        membership_select()
    ))?;
    for role in roles.iter_mut() {
        let members: Vec<RoleMembership> = statement
            .query_map([role.id.as_str()], membership_at)?
            .collect::<Result<_, _>>()?;
        role.members = Some(ListOrText::List(members));
    }
    Ok(())
}

/// A page of the organization's roles, oldest first, and the count of
/// them all; the page found from the index of that order (`keyset`). Each
/// role's `members` is empty: a list answer streams them from
/// [`members_after`] a chunk at a time (a page of roles embeds every
/// membership of them, which the organization's size sets, not the page's).
pub fn list(
    snapshot: &Snapshot,
    connection: &Connection,
    organization_id: &str,
    page: (u64, u64),
) -> ApiResult<(u64, Vec<Role>)> {
    let listing = Listing {
        from_where: "FROM roles r WHERE r.organization_id = ?1".into(),
        values: vec![organization_id.to_string().into()],
        id: "r.id".into(),
        terms: vec![Term::ascending("r.created_at"), Term::ascending("r.id")],
    };
    let count = snapshot.count(connection, &listing.from_where, &listing.values)?;
    let ids: Vec<String> = keyset::page(snapshot, connection, &listing, count, page)?;
    let roles = by_id(connection, &ids)?;
    Ok((count, roles))
}

/// Where a role's members were read up to: the last one's `joined_at` and
/// id, as stored.
pub type MemberPosition = (Value, Value);

/// At most `most` members of the role, oldest first (the order of its
/// index, `role_memberships_order`, so that each chunk starts where the
/// index left off and costs what it returns), after `after`; with the
/// position of the last one.
pub fn members_after(
    connection: &Connection,
    role_id: &str,
    after: Option<&MemberPosition>,
    most: usize,
) -> ApiResult<(Vec<RoleMembership>, Option<MemberPosition>)> {
    let most = i64::try_from(most).unwrap_or(i64::MAX);
    // Two statements rather than one with `?2 IS NULL OR`: each is a seek
    // into the index and a run along it, never a scan from the role's start.
    let mut last = None;
    let mut read = |row: &Row| {
        last = Some((row.get::<_, Value>(2)?, row.get::<_, Value>(0)?));
        membership_at(row)
    };
    let members = match after {
        None => connection
            .prepare_cached(&format!(
                "{} WHERE rm.role_id = ?1 ORDER BY rm.joined_at, rm.id LIMIT ?2",
                membership_select()
            ))?
            .query_map(params![role_id, most], &mut read)?
            .collect::<Result<Vec<_>, _>>()?,
        Some((joined_at, id)) => connection
            .prepare_cached(&format!(
                "{} WHERE rm.role_id = ?1 AND rm.joined_at >= ?2
                   AND (rm.joined_at > ?2 OR rm.id > ?3)
                 ORDER BY rm.joined_at, rm.id LIMIT ?4",
                membership_select()
            ))?
            .query_map(params![role_id, joined_at, id, most], &mut read)?
            .collect::<Result<Vec<_>, _>>()?,
    };
    Ok((members, last))
}

/// The roles of `ids`, in that order.
fn by_id(connection: &Connection, ids: &[String]) -> ApiResult<Vec<Role>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let list = serde_json::to_string(ids).map_err(ApiError::internal)?;
    let mut statement = connection.prepare_cached(&format!(
        "{} WHERE r.id IN (SELECT value FROM json_each(?1))",
        role_select()
    ))?;
    let mut found: std::collections::HashMap<String, Role> = statement
        .query_map([list], role_at)?
        .map(|row| row.map(|role| (role.id.clone(), role)))
        .collect::<Result<_, _>>()?;
    Ok(ids.iter().filter_map(|id| found.remove(id)).collect())
}

/// The role, or 404 when the organization has no role with this id.
pub fn get(connection: &Connection, organization_id: &str, id: &str) -> ApiResult<Role> {
    let mut statement = connection.prepare_cached(&format!(
        "{} WHERE r.organization_id = ?1 AND r.id = ?2",
        role_select()
    ))?;
    let role = statement
        .query_row(params![organization_id, id], role_at)
        .optional()?
        .ok_or_else(ApiError::not_found)?;
    let mut roles = [role];
    attach_members(connection, &mut roles)?;
    let [role] = roles;
    Ok(role)
}

/// Names are unique within an organization, compared case-insensitively;
/// a role may keep its own name in another capitalisation.
fn check_unique(connection: &Connection, organization_id: &str, name: &str, except: &str) -> ApiResult<()> {
    let mut statement = connection
        .prepare_cached("SELECT 1 FROM roles WHERE organization_id = ?1 AND name_key = ?2 AND id != ?3")?;
    if statement.exists(params![organization_id, name_key(name), except])? {
        return Err(ApiError::validation("unique", "There is already a role with this name.").on("name"));
    }
    Ok(())
}

/// The form of a name that uniqueness is checked on.
pub fn name_key(name: &str) -> String {
    name.to_lowercase()
}

pub fn create(
    connection: &Connection,
    organization_id: &str,
    created_by: i64,
    name: &str,
    access_level: i64,
    now: DateTime<Utc>,
) -> ApiResult<Role> {
    check_unique(connection, organization_id, name, "")?;
    let id = uuid::Uuid::now_v7().to_string();
    connection.execute(
        "INSERT INTO roles (id, organization_id, name, name_key, feature_flags_access_level, created_at, created_by)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![id, organization_id, name, name_key(name), access_level, stamp(&now), created_by],
    )?;
    get(connection, organization_id, &id)
}

pub fn update(
    connection: &Connection,
    organization_id: &str,
    id: &str,
    name: Option<&str>,
    access_level: Option<i64>,
) -> ApiResult<Role> {
    // 404 before any validation of the new values.
    get(connection, organization_id, id)?;
    if let Some(name) = name {
        check_unique(connection, organization_id, name, id)?;
        connection.execute(
            "UPDATE roles SET name = ?1, name_key = ?2 WHERE id = ?3",
            params![name, name_key(name), id],
        )?;
    }
    if let Some(level) = access_level {
        connection.execute(
            "UPDATE roles SET feature_flags_access_level = ?1 WHERE id = ?2",
            params![level, id],
        )?;
    }
    get(connection, organization_id, id)
}

/// Deletes the role; its memberships and access rules go with it
/// (foreign-key cascade).
pub fn delete(connection: &Connection, organization_id: &str, id: &str) -> ApiResult<()> {
    let deleted = connection.execute(
        "DELETE FROM roles WHERE organization_id = ?1 AND id = ?2",
        params![organization_id, id],
    )?;
    if deleted == 0 {
        return Err(ApiError::not_found());
    }
    Ok(())
}
