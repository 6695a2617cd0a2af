//! Role memberships: which organization members hold a role.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};

use super::Snapshot;
use super::directory::member_by_user_uuid;
use super::keyset::{self, Listing, Term};
use super::rows::{
    in_order_of, membership_at, membership_at_from, membership_select, membership_select_after, stamp,
};
use crate::api::RoleMembership;
use crate::server::error::{ApiError, ApiResult};

/// 404 unless the organization has this role.
pub fn require_role(connection: &Connection, organization_id: &str, role_id: &str) -> ApiResult<()> {
    let mut statement =
        connection.prepare_cached("SELECT 1 FROM roles WHERE organization_id = ?1 AND id = ?2")?;
    if statement.exists(params![organization_id, role_id])? {
        Ok(())
    } else {
        Err(ApiError::not_found())
    }
}

/// A page of the role's memberships, oldest first, and the count of them
/// all; the page found from the index of that order (`keyset`).
pub fn list(
    snapshot: &Snapshot,
    connection: &Connection,
    role_id: &str,
    page: (u64, u64),
) -> ApiResult<(u64, Vec<RoleMembership>)> {
    let listing = Listing {
        from_where: "FROM role_memberships rm WHERE rm.role_id = ?1".into(),
        values: vec![role_id.to_string().into()],
        id: "rm.rowid".into(),
        terms: vec![Term::ascending("rm.joined_at"), Term::ascending("rm.id")],
    };
    let count = snapshot.count(connection, &listing.from_where, &listing.values)?;
    let rowids: Vec<i64> = keyset::page(snapshot, connection, &listing, count, page)?;
    let select = format!(
        "{} WHERE rm.rowid IN (SELECT value FROM json_each(?1))",
        membership_select_after("rm.rowid, ")
    );
    let memberships = in_order_of(connection, &select, &rowids, |row| membership_at_from(row, 1))?;
    Ok((count, memberships))
}

fn get(connection: &Connection, id: &str) -> ApiResult<RoleMembership> {
    let mut statement = connection.prepare_cached(&format!("{} WHERE rm.id = ?1", membership_select()))?;
    statement
        .query_row([id], membership_at)
        .optional()?
        .ok_or_else(ApiError::not_found)
}

/// One membership of the role.
pub fn get_in_role(connection: &Connection, role_id: &str, id: &str) -> ApiResult<RoleMembership> {
    let mut statement = connection.prepare_cached(&format!(
        "{} WHERE rm.id = ?1 AND rm.role_id = ?2",
        membership_select()
    ))?;
    statement
        .query_row([id, role_id], membership_at)
        .optional()?
        .ok_or_else(ApiError::not_found)
}

/// Assigns the user with `user_uuid` to the role.
pub fn create(
    connection: &Connection,
    organization_id: &str,
    role_id: &str,
    user_uuid: &str,
    now: DateTime<Utc>,
) -> ApiResult<RoleMembership> {
    let Some((member_id, user_id)) = member_by_user_uuid(connection, organization_id, user_uuid)? else {
        return Err(ApiError::validation("invalid_input", "User does not exist."));
    };
    let mut duplicate =
        connection.prepare_cached("SELECT 1 FROM role_memberships WHERE role_id = ?1 AND user_id = ?2")?;
    if duplicate.exists(params![role_id, user_id])? {
        return Err(ApiError::validation(
            "invalid_input",
            "User is already part of the role.",
        ));
    }
    let id = uuid::Uuid::now_v7().to_string();
    let now = stamp(&now);
    connection.execute(
        "INSERT INTO role_memberships (id, role_id, organization_member_id, user_id, joined_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
        params![id, role_id, member_id, user_id, now],
    )?;
    get(connection, &id)
}

pub fn delete(connection: &Connection, role_id: &str, id: &str) -> ApiResult<()> {
    let deleted = connection.execute(
        "DELETE FROM role_memberships WHERE role_id = ?1 AND id = ?2",
        params![role_id, id],
    )?;
    if deleted == 0 {
        return Err(ApiError::not_found());
    }
    Ok(())
}
