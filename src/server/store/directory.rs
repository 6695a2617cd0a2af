//! Organizations, projects, users and their memberships, dashboards and
//! insights: what access checks and the picker endpoints read.

use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, params};

use super::keys::Reach;
use super::rows::{paged, parse_stamp};
use crate::api::{Organization, Project};
use crate::server::error::{ApiError, ApiResult};

/// The organization and project that `@current` means for a user.
pub fn current_context(connection: &Connection, user_id: i64) -> ApiResult<(Option<String>, Option<i64>)> {
    let mut statement = connection
        .prepare_cached("SELECT current_organization_id, current_project_id FROM users WHERE id = ?1")?;
    Ok(statement
        .query_row([user_id], |row| Ok((row.get(0)?, row.get(1)?)))
        .optional()?
        .unwrap_or((None, None)))
}

pub fn organization_exists(connection: &Connection, organization_id: &str) -> ApiResult<bool> {
    let mut statement = connection.prepare_cached("SELECT 1 FROM organizations WHERE id = ?1")?;
    Ok(statement.exists([organization_id])?)
}

/// The user's level in the organization, when an active member.
pub fn member_level(connection: &Connection, organization_id: &str, user_id: i64) -> ApiResult<Option<i64>> {
    let mut statement = connection.prepare_cached(
        "SELECT m.level FROM organization_members m JOIN users u ON u.id = m.user_id
         WHERE m.organization_id = ?1 AND m.user_id = ?2 AND u.is_active = 1",
    )?;
    Ok(statement
        .query_row(params![organization_id, user_id], |row| row.get(0))
        .optional()?)
}

/// The organization a project belongs to, when the project exists.
pub fn project_organization(connection: &Connection, project_id: i64) -> ApiResult<Option<String>> {
    let mut statement = connection.prepare_cached("SELECT organization_id FROM projects WHERE id = ?1")?;
    Ok(statement.query_row([project_id], |row| row.get(0)).optional()?)
}

/// The organization member of an active user, found by the user's UUID:
/// `(member id, user id)`.
pub fn member_by_user_uuid(
    connection: &Connection,
    organization_id: &str,
    user_uuid: &str,
) -> ApiResult<Option<(String, i64)>> {
    let mut statement = connection.prepare_cached(
        "SELECT m.id, u.id FROM organization_members m JOIN users u ON u.id = m.user_id
         WHERE m.organization_id = ?1 AND u.uuid = ?2 AND u.is_active = 1",
    )?;
    Ok(statement
        .query_row(params![organization_id, user_uuid], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .optional()?)
}

/// One organization as the user sees it (with the user's level in it).
pub fn organization(connection: &Connection, organization_id: &str, user_id: i64) -> ApiResult<Organization> {
    let mut statement = connection.prepare_cached(
        "SELECT o.id, o.name, o.slug, o.created_at, m.level
         FROM organizations o JOIN organization_members m ON m.organization_id = o.id
         WHERE o.id = ?1 AND m.user_id = ?2",
    )?;
    statement
        .query_row(params![organization_id, user_id], organization_at)
        .optional()?
        .ok_or_else(|| ApiError::not_found_with("Organization not found."))
}

/// One project.
pub fn project(connection: &Connection, project_id: i64) -> ApiResult<Project> {
    let mut statement = connection
        .prepare_cached("SELECT id, organization_id, name, created_at FROM projects WHERE id = ?1")?;
    statement
        .query_row([project_id], project_at)
        .optional()?
        .ok_or_else(ApiError::not_found)
}

/// An organization from `id, name, slug, created_at, level`.
fn organization_at(row: &rusqlite::Row) -> rusqlite::Result<Organization> {
    Ok(Organization {
        id: row.get(0)?,
        name: row.get(1)?,
        slug: row.get(2)?,
        created_at: parse_stamp(row.get(3)?),
        membership_level: row.get(4)?,
        uses_most_specific_access_resolution: None,
        members_can_see_org_members: None,
    })
}

/// A project from `id, organization_id, name, created_at`.
fn project_at(row: &rusqlite::Row) -> rusqlite::Result<Project> {
    Ok(Project {
        id: row.get(0)?,
        organization: row.get(1)?,
        name: row.get(2)?,
        created_at: parse_stamp(row.get(3)?),
    })
}

/// A key's list as an SQL parameter: NULL when it reaches everything, else
/// a JSON array for `json_each`.
fn reach_parameter<T: serde::Serialize>(reach: &Reach<T>) -> ApiResult<Value> {
    Ok(match reach {
        Reach::Everything => Value::Null,
        Reach::Only(items) => Value::Text(serde_json::to_string(items).map_err(ApiError::internal)?),
    })
}

/// The organizations the user belongs to that the key reaches, oldest
/// first. A project-scoped key reaches the organizations of its projects.
pub fn organizations(
    connection: &Connection,
    user_id: i64,
    reach: (&Reach<String>, &Reach<i64>),
    page: (u64, u64),
) -> ApiResult<(u64, Vec<Organization>)> {
    let filter = "FROM organizations o JOIN organization_members m ON m.organization_id = o.id
                  WHERE m.user_id = ?1
                    AND (?2 IS NULL OR o.id IN (SELECT value FROM json_each(?2)))
                    AND (?3 IS NULL OR o.id IN (SELECT organization_id FROM projects
                                                WHERE id IN (SELECT value FROM json_each(?3))))";
    paged(
        connection,
        &format!("SELECT COUNT(*) {filter}"),
        &format!("SELECT o.id, o.name, o.slug, o.created_at, m.level {filter} ORDER BY o.created_at, o.id"),
        vec![
            user_id.into(),
            reach_parameter(reach.0)?,
            reach_parameter(reach.1)?,
        ],
        page,
        organization_at,
    )
}

/// The projects of every organization the user belongs to that the key
/// reaches (its organizations and its projects, when it is scoped).
pub fn projects(
    connection: &Connection,
    user_id: i64,
    reach: (&Reach<String>, &Reach<i64>),
    page: (u64, u64),
) -> ApiResult<(u64, Vec<Project>)> {
    let filter = "FROM projects p JOIN organization_members m ON m.organization_id = p.organization_id
                  WHERE m.user_id = ?1
                    AND (?2 IS NULL OR p.organization_id IN (SELECT value FROM json_each(?2)))
                    AND (?3 IS NULL OR p.id IN (SELECT value FROM json_each(?3)))";
    paged(
        connection,
        &format!("SELECT COUNT(*) {filter}"),
        &format!("SELECT p.id, p.organization_id, p.name, p.created_at {filter} ORDER BY p.id"),
        vec![
            user_id.into(),
            reach_parameter(reach.0)?,
            reach_parameter(reach.1)?,
        ],
        page,
        project_at,
    )
}

/// Dashboards or insights of a project: the tables share their shape.
#[derive(Debug, Clone, Copy)]
pub enum Catalog {
    Dashboards,
    Insights,
}

impl Catalog {
    fn table(self) -> &'static str {
        match self {
            Catalog::Dashboards => "dashboards",
            Catalog::Insights => "insights",
        }
    }
}

/// What a dashboards or insights list is narrowed to (posthog.md §11):
/// a `search` in the names, an insight's `short_id`.
#[derive(Debug, Clone, Default)]
pub struct CatalogQuery {
    pub search: Option<String>,
    pub short_id: Option<String>,
}

/// Whether the project holds a dashboard or insight with this id.
pub fn catalog_has(connection: &Connection, catalog: Catalog, project_id: i64, id: i64) -> ApiResult<bool> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT 1 FROM {} WHERE id = ?1 AND project_id = ?2",
        catalog.table()
    ))?;
    Ok(statement.exists(params![id, project_id])?)
}

/// Whether a dashboard or insight with this id exists in any project.
pub fn catalog_exists(connection: &Connection, catalog: Catalog, id: i64) -> ApiResult<bool> {
    let mut statement =
        connection.prepare_cached(&format!("SELECT 1 FROM {} WHERE id = ?1", catalog.table()))?;
    Ok(statement.exists([id])?)
}

/// The user with this e-mail address.
pub fn user_by_email(connection: &Connection, email: &str) -> ApiResult<Option<i64>> {
    let mut statement = connection.prepare_cached("SELECT id FROM users WHERE email = ?1")?;
    Ok(statement.query_row([email], |row| row.get(0)).optional()?)
}

/// The owner of the oldest organization: who `keys create` mints for by default.
pub fn first_owner(connection: &Connection) -> ApiResult<Option<i64>> {
    let mut statement = connection.prepare_cached(
        "SELECT m.user_id FROM organization_members m JOIN organizations o ON o.id = m.organization_id
         WHERE m.level = 15 ORDER BY o.created_at, o.id, m.joined_at LIMIT 1",
    )?;
    Ok(statement.query_row([], |row| row.get(0)).optional()?)
}

/// The oldest organization and its first project, for the ready line.
pub fn first_organization_and_project(connection: &Connection) -> ApiResult<Option<(String, Option<i64>)>> {
    let mut statement = connection.prepare_cached(
        "SELECT o.id, (SELECT MIN(p.id) FROM projects p WHERE p.organization_id = o.id)
         FROM organizations o ORDER BY o.created_at, o.id LIMIT 1",
    )?;
    Ok(statement
        .query_row([], |row| Ok((row.get(0)?, row.get(1)?)))
        .optional()?)
}

/// The kind of one of the project's integrations (`slack`, ...), if it has it.
pub fn integration_kind(connection: &Connection, project_id: i64, id: i64) -> ApiResult<Option<String>> {
    let mut statement =
        connection.prepare_cached("SELECT kind FROM integrations WHERE id = ?1 AND project_id = ?2")?;
    Ok(statement
        .query_row(params![id, project_id], |row| row.get(0))
        .optional()?)
}

/// Whether the user who created a subscription is still an active member
/// of its project's organization.
pub fn subscription_creator_is_member(connection: &Connection, project_id: i64, id: i64) -> ApiResult<bool> {
    let mut statement = connection.prepare_cached(
        "SELECT 1 FROM subscriptions s
           JOIN projects p ON p.id = s.project_id
           JOIN organization_members m ON m.organization_id = p.organization_id AND m.user_id = s.created_by
           JOIN users u ON u.id = m.user_id
         WHERE s.id = ?1 AND s.project_id = ?2 AND u.is_active = 1",
    )?;
    Ok(statement.exists(params![id, project_id])?)
}

/// The insights on a dashboard's tiles: what a subscription may export.
pub fn dashboard_insights(connection: &Connection, dashboard_id: i64) -> ApiResult<Vec<i64>> {
    let mut statement = connection.prepare_cached(
        "SELECT insight_id FROM dashboard_tiles WHERE dashboard_id = ?1 AND insight_id IS NOT NULL ORDER BY y, x, id",
    )?;
    let ids = statement
        .query_map([dashboard_id], |row| row.get(0))?
        .collect::<Result<_, _>>()?;
    Ok(ids)
}
