//! Access-control rules of projects (posthog.md 16): reading a project's
//! rules for the resolver, the rows as the API shows them, writes as
//! upserts on (project, resource, object, member, role), Terraform's stamp
//! and each project's lock, and who the members and roles are.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, OptionalExtension, Row, params, params_from_iter};

use super::rows::{parse_stamp, stamp};
use crate::api::access::{AccessControl, AccessLevel, AccessUser, Member, Rule, RuleSet, Subject};
use crate::server::error::{ApiError, ApiResult};

const RULE_COLUMNS: &str = "id, resource, resource_id, organization_member_id, role_id, access_level, created_by, \
                            created_at, updated_at, managed_by, managed_at";

/// A stored rule with its id.
#[derive(Debug, Clone)]
pub struct StoredRule {
    pub id: String,
    pub shown: AccessControl,
}

fn rule_at(row: &Row) -> rusqlite::Result<StoredRule> {
    let level: String = row.get(5)?;
    Ok(StoredRule {
        id: row.get(0)?,
        shown: AccessControl {
            resource: row.get(1)?,
            resource_id: row.get(2)?,
            organization_member: row.get(3)?,
            role: row.get(4)?,
            access_level: Some(AccessLevel::from_wire(&level)),
            created_by: row.get(6)?,
            created_at: parse_stamp(row.get(7)?),
            updated_at: parse_stamp(row.get(8)?),
            managed_by: row.get(9)?,
            managed_at: parse_stamp(row.get(10)?),
        },
    })
}

/// Which of a project's rows to show.
#[derive(Debug, Clone, Copy)]
pub enum Rows<'a> {
    /// The rules on one object (or on the project itself).
    Object { resource: &'a str, resource_id: &'a str },
    /// Every resource-wide rule.
    ResourceWide,
    /// A subject's object rules, the project's own left out.
    ObjectRulesOf(&'a Subject),
}

/// A project's rows, oldest first.
pub fn rows(connection: &Connection, project_id: i64, which: Rows) -> ApiResult<Vec<StoredRule>> {
    let mut values: Vec<SqlValue> = vec![project_id.into()];
    let condition = match which {
        Rows::Object {
            resource,
            resource_id,
        } => {
            values.push(resource.to_string().into());
            values.push(resource_id.to_string().into());
            "resource = ?2 AND resource_id = ?3".to_string()
        }
        Rows::ResourceWide => "resource_id IS NULL".to_string(),
        Rows::ObjectRulesOf(subject) => {
            let base = "resource_id IS NOT NULL AND resource != 'project'";
            match subject {
                Subject::Member(id) => {
                    values.push(id.clone().into());
                    format!("{base} AND organization_member_id = ?2 AND role_id IS NULL")
                }
                Subject::Role(id) => {
                    values.push(id.clone().into());
                    format!("{base} AND role_id = ?2 AND organization_member_id IS NULL")
                }
                Subject::Everyone => format!("{base} AND organization_member_id IS NULL AND role_id IS NULL"),
            }
        }
    };
    let sql = format!(
        "SELECT {RULE_COLUMNS} FROM access_controls WHERE project_id = ?1 AND {condition} ORDER BY created_at, id"
    );
    let found = connection
        .prepare_cached(&sql)?
        .query_map(params_from_iter(values.iter()), rule_at)?
        .collect::<Result<_, _>>()?;
    Ok(found)
}

/// Every rule of a project, as the resolver reads them.
pub fn rule_set(connection: &Connection, project_id: i64) -> ApiResult<RuleSet> {
    let mut statement = connection.prepare_cached(
        "SELECT resource, resource_id, organization_member_id, role_id, access_level
         FROM access_controls WHERE project_id = ?1",
    )?;
    let rules = statement
        .query_map([project_id], |row| {
            let member: Option<String> = row.get(2)?;
            let role: Option<String> = row.get(3)?;
            let level: String = row.get(4)?;
            Ok(
                Subject::from_fields(member.as_deref(), role.as_deref()).map(|subject| Rule {
                    resource: row.get(0).unwrap_or_default(),
                    resource_id: row.get(1).unwrap_or_default(),
                    subject,
                    level: AccessLevel::from_wire(&level),
                }),
            )
        })?
        .filter_map(Result::transpose)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(RuleSet::new(rules))
}

/// The rules of a project on the project itself: all a gate needs.
pub fn project_rules(connection: &Connection, project_id: i64) -> ApiResult<RuleSet> {
    let mut statement = connection.prepare_cached(
        "SELECT resource_id, organization_member_id, role_id, access_level
         FROM access_controls WHERE project_id = ?1 AND resource = 'project' AND resource_id = ?2",
    )?;
    let rules = statement
        .query_map(params![project_id, project_id.to_string()], |row| {
            let member: Option<String> = row.get(1)?;
            let role: Option<String> = row.get(2)?;
            let level: String = row.get(3)?;
            Ok(
                Subject::from_fields(member.as_deref(), role.as_deref()).map(|subject| Rule {
                    resource: "project".into(),
                    resource_id: row.get(0).unwrap_or_default(),
                    subject,
                    level: AccessLevel::from_wire(&level),
                }),
            )
        })?
        .filter_map(Result::transpose)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(RuleSet::new(rules))
}

/// The active member `user_id` of the organization, as access sees them.
pub fn member(connection: &Connection, organization_id: &str, user_id: i64) -> ApiResult<Option<Member>> {
    let mut statement = connection.prepare_cached(
        "SELECT m.id, u.uuid, m.level FROM organization_members m JOIN users u ON u.id = m.user_id
         WHERE m.organization_id = ?1 AND m.user_id = ?2 AND u.is_active = 1",
    )?;
    let Some((membership_id, user_id_text, level)) = statement
        .query_row(params![organization_id, user_id], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?, row.get(2)?))
        })
        .optional()?
    else {
        return Ok(None);
    };
    let role_ids = role_ids(connection, organization_id, &membership_id)?;
    Ok(Some(Member {
        membership_id,
        user_id: user_id_text,
        organization_level: level,
        role_ids,
    }))
}

/// The roles a membership holds in its organization.
fn role_ids(connection: &Connection, organization_id: &str, membership_id: &str) -> ApiResult<Vec<String>> {
    let mut statement = connection.prepare_cached(
        "SELECT rm.role_id FROM role_memberships rm JOIN roles r ON r.id = rm.role_id
         WHERE rm.organization_member_id = ?1 AND r.organization_id = ?2 ORDER BY rm.role_id",
    )?;
    let ids = statement
        .query_map(params![membership_id, organization_id], |row| row.get(0))?
        .collect::<Result<_, _>>()?;
    Ok(ids)
}

/// An active member with who they are, for the settings answers.
#[derive(Debug, Clone)]
pub struct Person {
    pub member: Member,
    pub user: AccessUser,
}

/// The organization's active members with their roles, by joining time;
/// with `only`, that membership alone.
pub fn people(connection: &Connection, organization_id: &str, only: Option<&str>) -> ApiResult<Vec<Person>> {
    let mut roles: HashMap<String, Vec<String>> = HashMap::new();
    {
        let mut statement = connection.prepare_cached(
            "SELECT rm.organization_member_id, rm.role_id FROM role_memberships rm JOIN roles r ON r.id = rm.role_id
             WHERE r.organization_id = ?1 ORDER BY rm.role_id",
        )?;
        let pairs = statement.query_map([organization_id], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
        })?;
        for pair in pairs {
            let (member, role) = pair?;
            roles.entry(member).or_default().push(role);
        }
    }
    let mut statement = connection.prepare_cached(
        "SELECT m.id, m.level, u.uuid, u.first_name, u.last_name, u.email
         FROM organization_members m JOIN users u ON u.id = m.user_id
         WHERE m.organization_id = ?1 AND u.is_active = 1 AND (?2 IS NULL OR m.id = ?2)
         ORDER BY m.joined_at, m.id",
    )?;
    let people = statement
        .query_map(params![organization_id, only], |row| {
            let membership_id: String = row.get(0)?;
            let uuid: String = row.get(2)?;
            Ok(Person {
                member: Member {
                    role_ids: roles.get(&membership_id).cloned().unwrap_or_default(),
                    membership_id,
                    user_id: uuid.clone(),
                    organization_level: row.get(1)?,
                },
                user: AccessUser {
                    uuid,
                    first_name: row.get(3)?,
                    last_name: row.get(4)?,
                    email: row.get(5)?,
                },
            })
        })?
        .collect::<Result<_, _>>()?;
    Ok(people)
}

/// The organization of a membership, when it exists.
pub fn membership_organization(connection: &Connection, membership_id: &str) -> ApiResult<Option<String>> {
    let mut statement =
        connection.prepare_cached("SELECT organization_id FROM organization_members WHERE id = ?1")?;
    Ok(statement
        .query_row([membership_id], |row| row.get(0))
        .optional()?)
}

/// The organization of a role, when it exists.
pub fn role_organization(connection: &Connection, role_id: &str) -> ApiResult<Option<String>> {
    let mut statement = connection.prepare_cached("SELECT organization_id FROM roles WHERE id = ?1")?;
    Ok(statement.query_row([role_id], |row| row.get(0)).optional()?)
}

/// The organization's roles, oldest first; with `only`, that role alone.
pub fn roles(
    connection: &Connection,
    organization_id: &str,
    only: Option<&str>,
) -> ApiResult<Vec<(String, String)>> {
    let mut statement = connection.prepare_cached(
        "SELECT id, name FROM roles WHERE organization_id = ?1 AND (?2 IS NULL OR id = ?2) ORDER BY created_at, id",
    )?;
    let roles = statement
        .query_map(params![organization_id, only], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })?
        .collect::<Result<_, _>>()?;
    Ok(roles)
}

/// What an organization chose about access: its resolution mode (`None`:
/// the server's default) and whether members see each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OrganizationAccess {
    pub most_specific: Option<bool>,
    pub members_can_see_members: bool,
}

pub fn organization_access(connection: &Connection, organization_id: &str) -> ApiResult<OrganizationAccess> {
    let mut statement = connection.prepare_cached(
        "SELECT uses_most_specific_access_resolution, members_can_see_org_members FROM organizations WHERE id = ?1",
    )?;
    Ok(statement
        .query_row([organization_id], |row| {
            Ok(OrganizationAccess {
                most_specific: row.get::<_, Option<bool>>(0)?,
                members_can_see_members: row.get::<_, Option<bool>>(1)?.unwrap_or(true),
            })
        })
        .optional()?
        .unwrap_or(OrganizationAccess {
            most_specific: None,
            members_can_see_members: true,
        }))
}

/// Records what an organization chose; `None` leaves a setting as it is.
pub fn set_organization_access(
    connection: &Connection,
    organization_id: &str,
    most_specific: Option<bool>,
    members_can_see_members: Option<bool>,
) -> ApiResult<()> {
    connection.execute(
        "UPDATE organizations SET
             uses_most_specific_access_resolution = ifnull(?2, uses_most_specific_access_resolution),
             members_can_see_org_members = ifnull(?3, members_can_see_org_members)
         WHERE id = ?1",
        params![organization_id, most_specific, members_can_see_members],
    )?;
    Ok(())
}

/// The rule for exactly this target and subject.
pub fn find(
    connection: &Connection,
    project_id: i64,
    resource: &str,
    resource_id: Option<&str>,
    subject: &Subject,
) -> ApiResult<Option<StoredRule>> {
    let (member, role) = subject_fields(subject);
    let sql = format!(
        "SELECT {RULE_COLUMNS} FROM access_controls
         WHERE project_id = ?1 AND resource = ?2 AND resource_id IS ?3
           AND organization_member_id IS ?4 AND role_id IS ?5"
    );
    Ok(connection
        .prepare_cached(&sql)?
        .query_row(params![project_id, resource, resource_id, member, role], rule_at)
        .optional()?)
}

fn subject_fields(subject: &Subject) -> (Option<&str>, Option<&str>) {
    match subject {
        Subject::Member(id) => (Some(id.as_str()), None),
        Subject::Role(id) => (None, Some(id.as_str())),
        Subject::Everyone => (None, None),
    }
}

/// Whether any rule is on this object.
pub fn object_has_rules(
    connection: &Connection,
    project_id: i64,
    resource: &str,
    resource_id: &str,
) -> ApiResult<bool> {
    let mut statement = connection.prepare_cached(
        "SELECT 1 FROM access_controls WHERE project_id = ?1 AND resource = ?2 AND resource_id = ?3",
    )?;
    Ok(statement.exists(params![project_id, resource, resource_id])?)
}

/// How many objects of `resource` carry rules in the project.
pub fn objects_with_rules(connection: &Connection, project_id: i64, resource: &str) -> ApiResult<u64> {
    let mut statement = connection.prepare_cached(
        "SELECT COUNT(DISTINCT resource_id) FROM access_controls
         WHERE project_id = ?1 AND resource = ?2 AND resource_id IS NOT NULL",
    )?;
    Ok(statement.query_row(params![project_id, resource], super::rows::count_at)?)
}

/// A rule to write.
#[derive(Debug, Clone)]
pub struct Write<'a> {
    pub project_id: i64,
    pub resource: &'a str,
    pub resource_id: Option<&'a str>,
    pub subject: &'a Subject,
    pub level: &'a AccessLevel,
    /// Who writes it.
    pub user_id: i64,
    /// Stamped when a manager (Terraform) writes it.
    pub manager: Option<&'a str>,
    pub now: DateTime<Utc>,
}

/// Creates the rule, or updates the existing one (`existing`); the rule as
/// stored.
pub fn upsert(
    connection: &Connection,
    existing: Option<&StoredRule>,
    write: &Write,
) -> ApiResult<AccessControl> {
    let now = stamp(&write.now);
    let managed_at = write.manager.map(|_| now.clone());
    let id = match existing {
        Some(existing) => {
            connection.execute(
                "UPDATE access_controls SET access_level = ?2, updated_at = ?3,
                     managed_by = ifnull(?4, managed_by), managed_at = ifnull(?5, managed_at)
                 WHERE id = ?1",
                params![existing.id, write.level.as_str(), now, write.manager, managed_at],
            )?;
            existing.id.clone()
        }
        None => {
            let id = uuid::Uuid::now_v7().to_string();
            let (member, role) = subject_fields(write.subject);
            connection.execute(
                "INSERT INTO access_controls (id, project_id, resource, resource_id, organization_member_id, role_id,
                                              access_level, created_by, created_at, updated_at, managed_by, managed_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9, ?10, ?11)",
                params![
                    id,
                    write.project_id,
                    write.resource,
                    write.resource_id,
                    member,
                    role,
                    write.level.as_str(),
                    write.user_id,
                    now,
                    write.manager,
                    managed_at
                ],
            )?;
            id
        }
    };
    let sql = format!("SELECT {RULE_COLUMNS} FROM access_controls WHERE id = ?1");
    let stored = connection
        .prepare_cached(&sql)?
        .query_row([id], rule_at)
        .map_err(ApiError::from)?;
    Ok(stored.shown)
}

/// Removes a rule.
pub fn remove(connection: &Connection, rule: &StoredRule) -> ApiResult<()> {
    connection.execute("DELETE FROM access_controls WHERE id = ?1", [&rule.id])?;
    Ok(())
}

/// Claims a rule for a manager or releases it (`None`).
pub fn set_manager(
    connection: &Connection,
    rule: &StoredRule,
    manager: Option<&str>,
    now: DateTime<Utc>,
) -> ApiResult<Option<DateTime<Utc>>> {
    let at = manager.map(|_| now);
    connection.execute(
        "UPDATE access_controls SET managed_by = ?2, managed_at = ?3 WHERE id = ?1",
        params![rule.id, manager, at.as_ref().map(stamp)],
    )?;
    Ok(at)
}

/// Whether the project's Terraform lock is on.
pub fn locked(connection: &Connection, project_id: i64) -> ApiResult<bool> {
    let mut statement = connection.prepare_cached(
        "SELECT lock_terraform_managed_rules FROM project_access_settings WHERE project_id = ?1",
    )?;
    Ok(statement
        .query_row([project_id], |row| row.get::<_, bool>(0))
        .optional()?
        .unwrap_or(false))
}

pub fn set_locked(connection: &Connection, project_id: i64, locked: bool) -> ApiResult<()> {
    connection.execute(
        "INSERT INTO project_access_settings (project_id, lock_terraform_managed_rules) VALUES (?1, ?2)
         ON CONFLICT (project_id) DO UPDATE SET lock_terraform_managed_rules = excluded.lock_terraform_managed_rules",
        params![project_id, locked],
    )?;
    Ok(())
}

/// Whether Terraform manages any rule of the project.
pub fn has_managed_rules(connection: &Connection, project_id: i64) -> ApiResult<bool> {
    let mut statement = connection
        .prepare_cached("SELECT 1 FROM access_controls WHERE project_id = ?1 AND managed_by IS NOT NULL")?;
    Ok(statement.exists([project_id])?)
}

/// Whether deleting the role would take a Terraform-managed rule of a
/// locked project with it (`role_has_locked_rules`).
pub fn role_has_locked_rules(
    connection: &Connection,
    organization_id: &str,
    role_id: &str,
) -> ApiResult<bool> {
    let mut statement = connection.prepare_cached(
        "SELECT 1 FROM access_controls a
           JOIN project_access_settings s ON s.project_id = a.project_id AND s.lock_terraform_managed_rules = 1
           JOIN projects p ON p.id = a.project_id
         WHERE p.organization_id = ?1 AND a.role_id = ?2 AND a.managed_by IS NOT NULL",
    )?;
    Ok(statement.exists(params![organization_id, role_id])?)
}
