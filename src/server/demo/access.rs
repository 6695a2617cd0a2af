//! Hedgebox's access control (`assets/demo-access.json`), seeded after the
//! rest of the demo with a sequence of its own so that nothing seeded
//! before changes: who created each dashboard and insight, a board pack
//! for Finance alone, notebooks and feature flags, and the rules the README
//! tells as stories:
//!
//! - Hedgebox Web: everyone is a member of the project and Engineering
//!   administers it, except Ivan, whose own rule says member (admin while
//!   the highest rule wins, member once the most specific one does);
//!   everyone views feature flags, Engineering and Product edit them, and
//!   Contractors may not see them (nobody is in Contractors yet: whoever is
//!   added loses the flags once the most specific rule wins; while the
//!   highest wins, everyone's rule still lets them view them);
//!   everyone views insights and Data edits them; the board pack is
//!   Finance's alone. Terraform owns the insights' rule for everyone and
//!   the board pack's rules, and the project locks them: deleting Finance
//!   is refused, its rule would go with it.
//! - Hedgebox Mobile: closed to everyone but its teams (Engineering,
//!   Product, Data, Support, On-call); Contractors have no access; Jade
//!   administers it by a rule of her own; Mateo's own rule takes him off it,
//!   which only the most-specific mode honours; Tomás reaches it through
//!   On-call alone, so deleting On-call would cut him off.

use std::collections::HashMap;

use chrono::{DateTime, Duration, Utc};
use rusqlite::{OptionalExtension, Transaction, params};
use serde::Deserialize;

use super::Sequence;
use crate::api::access::AccessLevel;
use crate::server::access::TERRAFORM;
use crate::server::error::{ApiError, ApiResult};
use crate::server::store::rows::stamp;

const DATA: &str = include_str!("../../../assets/demo-access.json");

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AccessData {
    #[serde(rename = "_comment")]
    _comment: String,
    creators: Creators,
    dashboards: Vec<NewDashboard>,
    notebooks: Vec<NewNotebook>,
    feature_flags: Vec<NewFlag>,
    rules: Vec<NewRule>,
    locked_projects: Vec<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Creators {
    /// (project, dashboard name, creator).
    dashboards: Vec<(usize, String, String)>,
    /// Insights' creators, one after another round the list.
    insights: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewDashboard {
    project: usize,
    name: String,
    by: String,
    tiles: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewNotebook {
    project: usize,
    title: String,
    by: String,
    days_ago: i64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewFlag {
    project: usize,
    key: String,
    name: String,
    by: String,
    active: bool,
    days_ago: i64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewRule {
    project: usize,
    resource: String,
    /// The object's name (a dashboard's or insight's name, a notebook's
    /// title, a flag's key); none for a rule on the whole resource.
    #[serde(default)]
    object: Option<String>,
    #[serde(default)]
    everyone: bool,
    #[serde(default)]
    role: Option<String>,
    #[serde(default)]
    member: Option<String>,
    level: String,
    days_ago: i64,
    /// Written by Terraform.
    #[serde(default)]
    terraform: bool,
}

/// Who is who in the organization, by what the seed names them by.
struct Names {
    /// E-mail address up to the `@` → (user id, membership id).
    people: HashMap<String, (i64, String)>,
    roles: HashMap<String, String>,
}

impl Names {
    fn read(tx: &Transaction, organization_id: &str) -> ApiResult<Names> {
        let mut people = HashMap::new();
        let mut statement = tx.prepare(
            "SELECT u.email, u.id, m.id FROM organization_members m JOIN users u ON u.id = m.user_id
             WHERE m.organization_id = ?1",
        )?;
        for row in statement.query_map([organization_id], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, i64>(1)?,
                row.get::<_, String>(2)?,
            ))
        })? {
            let (email, user_id, membership_id) = row?;
            let local = email.split('@').next().unwrap_or_default().to_string();
            people.insert(local, (user_id, membership_id));
        }
        let mut roles = HashMap::new();
        let mut statement = tx.prepare("SELECT name, id FROM roles WHERE organization_id = ?1")?;
        for row in statement.query_map([organization_id], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
        })? {
            let (name, id) = row?;
            roles.insert(name, id);
        }
        Ok(Names { people, roles })
    }

    fn person(&self, local: &str) -> ApiResult<&(i64, String)> {
        self.people
            .get(local)
            .ok_or_else(|| ApiError::internal(format!("demo access: {local} is not a member")))
    }

    fn role(&self, name: &str) -> ApiResult<&String> {
        self.roles
            .get(name)
            .ok_or_else(|| ApiError::internal(format!("demo access: no role {name}")))
    }
}

fn project(projects: &[i64], index: usize) -> ApiResult<i64> {
    projects
        .get(index)
        .copied()
        .ok_or_else(|| ApiError::internal(format!("demo access: no project {index}")))
}

/// The id of a project's object by its name, as text (what rules store).
fn object_id(tx: &Transaction, project_id: i64, resource: &str, name: &str) -> ApiResult<String> {
    let sql = match resource {
        "dashboard" => "SELECT CAST(id AS TEXT) FROM dashboards WHERE project_id = ?1 AND name = ?2",
        "insight" => "SELECT CAST(id AS TEXT) FROM insights WHERE project_id = ?1 AND name = ?2",
        "notebook" => "SELECT id FROM notebooks WHERE project_id = ?1 AND title = ?2",
        "feature_flag" => "SELECT CAST(id AS TEXT) FROM feature_flags WHERE project_id = ?1 AND key = ?2",
        other => return Err(ApiError::internal(format!("demo access: no objects of {other}"))),
    };
    tx.query_row(sql, params![project_id, name], |row| row.get(0))
        .optional()?
        .ok_or_else(|| ApiError::internal(format!("demo access: no {resource} {name:?}")))
}

/// A short id as PostHog makes them: eight letters and digits.
fn short_id(sequence: &mut Sequence) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    (0..8)
        .map(|_| char::from(ALPHABET[sequence.below(ALPHABET.len() as u64) as usize]))
        .collect()
}

/// Seeds the access stories into the demo organization.
pub(super) fn seed(
    tx: &Transaction,
    organization_id: &str,
    projects: &[i64],
    now: DateTime<Utc>,
) -> ApiResult<()> {
    let data: AccessData = serde_json::from_str(DATA)
        .map_err(|error| ApiError::internal(format!("demo access data: {error}")))?;
    let mut sequence = Sequence(0xACCE_55ED);
    let names = Names::read(tx, organization_id)?;
    let owner = names.person("ada.okafor")?.0;
    for (index, name, by) in &data.creators.dashboards {
        tx.execute(
            "UPDATE dashboards SET created_by = ?3 WHERE project_id = ?1 AND name = ?2",
            params![project(projects, *index)?, name, names.person(by)?.0],
        )?;
    }
    let insights: Vec<i64> = tx
        .prepare("SELECT id FROM insights WHERE project_id IN (SELECT value FROM json_each(?1)) ORDER BY id")?
        .query_map(
            [serde_json::to_string(projects).map_err(ApiError::internal)?],
            |row| row.get(0),
        )?
        .collect::<Result<_, _>>()?;
    for (position, insight) in insights.iter().enumerate() {
        let Some(by) = data
            .creators
            .insights
            .get(position % data.creators.insights.len().max(1))
        else {
            break;
        };
        tx.execute(
            "UPDATE insights SET created_by = ?2 WHERE id = ?1",
            params![insight, names.person(by)?.0],
        )?;
    }
    for dashboard in &data.dashboards {
        let project_id = project(projects, dashboard.project)?;
        tx.execute(
            "INSERT INTO dashboards (project_id, name, created_by) VALUES (?1, ?2, ?3)",
            params![project_id, dashboard.name, names.person(&dashboard.by)?.0],
        )?;
        let dashboard_id = tx.last_insert_rowid();
        for (slot, tile) in dashboard.tiles.iter().enumerate() {
            let insight = object_id(tx, project_id, "insight", tile)?;
            tx.execute(
                "INSERT INTO dashboard_tiles (dashboard_id, insight_id, y, x) VALUES (?1, ?2, ?3, ?4)",
                params![
                    dashboard_id,
                    insight.parse::<i64>().map_err(ApiError::internal)?,
                    (slot / 2) as i64 * 5,
                    (slot % 2) as i64 * 6
                ],
            )?;
        }
    }
    for notebook in &data.notebooks {
        let at = stamp(&(now - Duration::days(notebook.days_ago)));
        tx.execute(
            "INSERT INTO notebooks (id, short_id, project_id, title, created_by, created_at, last_modified_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)",
            params![
                sequence.uuid(),
                short_id(&mut sequence),
                project(projects, notebook.project)?,
                notebook.title,
                names.person(&notebook.by)?.0,
                at
            ],
        )?;
    }
    for flag in &data.feature_flags {
        tx.execute(
            "INSERT INTO feature_flags (project_id, key, name, active, created_by, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                project(projects, flag.project)?,
                flag.key,
                flag.name,
                flag.active,
                names.person(&flag.by)?.0,
                stamp(&(now - Duration::days(flag.days_ago)))
            ],
        )?;
    }
    for rule in &data.rules {
        seed_rule(tx, &mut sequence, &names, projects, owner, rule, now)?;
    }
    for &index in &data.locked_projects {
        tx.execute(
            "INSERT INTO project_access_settings (project_id, lock_terraform_managed_rules) VALUES (?1, 1)",
            [project(projects, index)?],
        )?;
    }
    Ok(())
}

fn seed_rule(
    tx: &Transaction,
    sequence: &mut Sequence,
    names: &Names,
    projects: &[i64],
    owner: i64,
    rule: &NewRule,
    now: DateTime<Utc>,
) -> ApiResult<()> {
    let project_id = project(projects, rule.project)?;
    let resource_id = match (&rule.object, rule.resource.as_str()) {
        (Some(name), resource) => Some(object_id(tx, project_id, resource, name)?),
        (None, "project") => Some(project_id.to_string()),
        (None, _) => None,
    };
    let (member, role) = match (&rule.member, &rule.role, rule.everyone) {
        (Some(local), None, false) => (Some(names.person(local)?.1.clone()), None),
        (None, Some(name), false) => (None, Some(names.role(name)?.clone())),
        (None, None, true) => (None, None),
        _ => {
            return Err(ApiError::internal(format!(
                "demo access: a rule on {} names no one subject",
                rule.resource
            )));
        }
    };
    if !AccessLevel::from_wire(&rule.level).is_known() {
        return Err(ApiError::internal(format!(
            "demo access: no level {}",
            rule.level
        )));
    }
    let at = stamp(&(now - Duration::days(rule.days_ago)));
    let managed = rule.terraform.then_some(TERRAFORM);
    tx.execute(
        "INSERT INTO access_controls (id, project_id, resource, resource_id, organization_member_id, role_id,
                                      access_level, created_by, created_at, updated_at, managed_by, managed_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9, ?10, ?11)",
        params![
            sequence.uuid(),
            project_id,
            rule.resource,
            resource_id,
            member,
            role,
            rule.level,
            owner,
            at,
            managed,
            managed.map(|_| at.clone())
        ],
    )?;
    Ok(())
}
