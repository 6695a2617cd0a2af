//! Organizations, projects, users and their memberships, dashboards and
//! insights: what access checks and the picker endpoints read.

use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, params};

use super::keys::Reach;
use super::rows::{member_at, member_columns, page_rows, paged, parse_stamp};
use crate::api::{Organization, OrganizationMember, Project};
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

/// Which members a list shows, and in what order.
#[derive(Debug, Clone, Default)]
pub struct MemberQuery {
    /// Today's PostHog leaves out inactive users and its bots.
    pub people_only: bool,
    /// Exactly this e-mail address.
    pub email: Option<String>,
    /// Updated after this moment (a stored stamp).
    pub updated_after: Option<String>,
    /// First or last name or e-mail address containing this, any case.
    pub search: Option<String>,
    /// Newest first (today's default), else by joining time.
    pub newest_first: bool,
}

/// The organization's members that `query` selects.
/// Search text this short is matched row by row; longer text through the
/// trigram index (`user_search`, schema 6).
const TRIGRAM: usize = 3;

/// A page of an organization's members and the count of all that match
/// (remembered in `counts` until the next write).
pub fn members(
    counts: &super::CountCache,
    connection: &Connection,
    organization_id: &str,
    query: &MemberQuery,
    page: (u64, u64),
) -> ApiResult<(u64, Vec<OrganizationMember>)> {
    // The conditions on the membership alone, and those that read the user.
    let mut filter = String::from("WHERE m.organization_id = ?1");
    let mut values: Vec<Value> = vec![Value::Text(organization_id.to_string())];
    let mut reads_user = false;
    let mut bind = |condition: &str, value: Value| {
        values.push(value);
        filter.push_str(&condition.replace('#', &format!("?{}", values.len())));
    };
    let indexed = query
        .search
        .as_ref()
        .is_some_and(|search| search.chars().count() >= TRIGRAM);
    if query.people_only {
        // Active and not a bot, kept on the membership (schema 7). A search
        // through the index starts from the few it finds (`+`: not from
        // every person in order).
        let condition = if indexed {
            " AND +m.is_person = #"
        } else {
            " AND m.is_person = #"
        };
        bind(condition, Value::Integer(1));
    }
    if let Some(email) = &query.email {
        reads_user = true;
        bind(" AND mu.email = #", Value::Text(email.clone()));
    }
    if let Some(after) = &query.updated_after {
        bind(" AND m.updated_at > #", Value::Text(after.clone()));
    }
    if let Some(search) = query.search.as_ref().filter(|_| indexed) {
        // The phrase in FTS5's quotes: a substring of any of the three.
        bind(
            " AND m.user_id IN (SELECT rowid FROM user_search WHERE user_search MATCH #)",
            Value::Text(format!("\"{}\"", search.replace('"', "\"\""))),
        );
    } else if let Some(search) = &query.search {
        reads_user = true;
        let pattern = format!(
            "%{}%",
            search
                .replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_")
        );
        bind(
            " AND (mu.first_name LIKE # ESCAPE '\\' OR mu.last_name LIKE # ESCAPE '\\' OR mu.email LIKE # ESCAPE '\\')",
            Value::Text(pattern),
        );
    }
    // A search through the index finds few people: they are found first
    // and sorted (`+` keeps SQLite from walking every member in order to
    // find them).
    let order = match (query.newest_first, indexed) {
        (true, false) => "m.joined_at DESC, m.id DESC",
        (false, false) => "m.joined_at, m.id",
        (true, true) => "+m.joined_at DESC, m.id DESC",
        (false, true) => "+m.joined_at, m.id",
    };
    const JOINED: &str = "FROM organization_members m JOIN users mu ON mu.id = m.user_id";
    // Counted from the memberships' index alone unless a condition reads the user.
    let from = if reads_user {
        JOINED
    } else {
        "FROM organization_members m"
    };
    let count = if query.people_only
        && query.search.is_none()
        && query.email.is_none()
        && query.updated_after.is_none()
    {
        // Every person: kept by triggers (schema 8), one row read.
        connection
            .prepare_cached("SELECT people FROM organization_people WHERE organization_id = ?1")?
            .query_row([organization_id], |row| row.get::<_, i64>(0))
            .optional()?
            .map_or(0, |people| people.max(0) as u64)
    } else {
        counts.count(connection, &format!("{from} {filter}"), &values)?
    };
    if page.1 >= count {
        return Ok((count, Vec::new()));
    }
    let rows = page_rows(
        connection,
        &format!("SELECT {} {JOINED} {filter} ORDER BY {order}", member_columns()),
        values,
        page,
        |row| member_at(row, 0),
    )?;
    Ok((count, rows))
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
