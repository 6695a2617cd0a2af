//! Synthetic access control in bulk, for load tests: roles with members
//! (`serve --generate-roles N`) and projects with rules on the project, on
//! its resources and on some of its dashboards, for everyone, roles and
//! members (`serve --generate-projects N`). With `--generate-members 960
//! --generate-roles 42 --generate-projects 18` the demo organization has
//! 1,000 members, 50 roles and 20 projects.

use chrono::{DateTime, Duration, Utc};
use rusqlite::{Transaction, params};

use super::Sequence;
use crate::api::access::levels::{self, AccessLevel, RESOURCES};
use crate::server::error::ApiResult;
use crate::server::store::roles::name_key;
use crate::server::store::rows::stamp;

/// What generated roles and projects are about.
const AREAS: [&str; 20] = [
    "Growth",
    "Billing",
    "Search",
    "Platform",
    "Payments",
    "Checkout",
    "Onboarding",
    "Reliability",
    "Security",
    "Design",
    "Research",
    "Partnerships",
    "Enterprise",
    "Integrations",
    "Experimentation",
    "Notifications",
    "Localization",
    "Accessibility",
    "Performance",
    "Lifecycle",
];

/// The organization's owner (who writes generated things) and its active
/// members' membership ids, by joining time.
fn people(tx: &Transaction, organization_id: &str) -> ApiResult<(i64, Vec<(String, i64)>)> {
    let owner: i64 = tx.query_row(
        "SELECT user_id FROM organization_members WHERE organization_id = ?1 ORDER BY level DESC, joined_at LIMIT 1",
        [organization_id],
        |row| row.get(0),
    )?;
    let members = tx
        .prepare(
            "SELECT m.id, m.user_id FROM organization_members m JOIN users u ON u.id = m.user_id
             WHERE m.organization_id = ?1 AND u.is_active = 1 ORDER BY m.joined_at, m.id",
        )?
        .query_map([organization_id], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<Result<_, _>>()?;
    Ok((owner, members))
}

/// Adds `count` roles ("Growth squad 3", ...) to the organization, and puts
/// each active member in one to three of them.
pub fn generate_roles(
    tx: &Transaction,
    organization_id: &str,
    count: u64,
    now: DateTime<Utc>,
) -> ApiResult<()> {
    let mut sequence = Sequence(0x20_1E5 ^ count);
    let (owner, members) = people(tx, organization_id)?;
    let mut role_ids = Vec::new();
    for index in 0..count {
        let name = format!(
            "{} squad {}",
            AREAS[(index % AREAS.len() as u64) as usize],
            index / AREAS.len() as u64 + 1
        );
        let id = sequence.uuid();
        let created = now - Duration::days(400) + Duration::minutes(index as i64);
        tx.execute(
            "INSERT INTO roles (id, organization_id, name, name_key, feature_flags_access_level, created_at, created_by)
             VALUES (?1, ?2, ?3, ?4, 21, ?5, ?6)",
            params![id, organization_id, name, name_key(&name), stamp(&created), owner],
        )?;
        role_ids.push(id);
    }
    if role_ids.is_empty() {
        return Ok(());
    }
    let mut insert = tx.prepare(
        "INSERT OR IGNORE INTO role_memberships (id, role_id, organization_member_id, user_id, joined_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
    )?;
    // One after another from 200 days ago, a second apart, as people are
    // added to roles over time: a role's members in joining order are in
    // the order they were stored.
    let first_joined = now - Duration::days(200);
    let mut added = 0;
    for (position, (membership_id, user_id)) in members.iter().enumerate() {
        for step in 0..=(position % 3) {
            let role = &role_ids[(position * 7 + step * 13) % role_ids.len()];
            let joined = stamp(&(first_joined + Duration::seconds(added)));
            added += 1;
            insert.execute(params![sequence.uuid(), role, membership_id, user_id, joined])?;
        }
    }
    Ok(())
}

/// A level of `resource` within its bounds, at random.
fn level(sequence: &mut Sequence, resource: &str) -> AccessLevel {
    let levels = levels::levels(resource);
    let floor = levels::rank(resource, &levels::minimum_level(resource)).unwrap_or(0);
    let ceiling = levels::rank(resource, &levels::maximum_level(resource)).unwrap_or(levels.len() - 1);
    levels[floor + sequence.below((ceiling - floor + 1) as u64) as usize].clone()
}

/// Adds `count` projects to the organization, each with rules: the
/// project's default and its roles' access, rules on about a third of the
/// resources for everyone and for some roles, own rules for some members,
/// and three dashboards, one of them closed to all but one role.
pub fn generate_projects(
    tx: &Transaction,
    organization_id: &str,
    count: u64,
    now: DateTime<Utc>,
) -> ApiResult<()> {
    let mut sequence = Sequence(0x9E11_AC55 ^ count);
    let (owner, members) = people(tx, organization_id)?;
    let roles: Vec<String> = tx
        .prepare("SELECT id FROM roles WHERE organization_id = ?1 ORDER BY created_at, id")?
        .query_map([organization_id], |row| row.get(0))?
        .collect::<Result<_, _>>()?;
    let mut rule = tx.prepare(
        "INSERT OR IGNORE INTO access_controls (id, project_id, resource, resource_id, organization_member_id, role_id,
                                                access_level, created_by, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9)",
    )?;
    let at = stamp(&(now - Duration::days(90)));
    for index in 0..count {
        let name = format!(
            "{} {}",
            AREAS[(index % AREAS.len() as u64) as usize],
            index / AREAS.len() as u64 + 2
        );
        tx.execute(
            "INSERT INTO projects (organization_id, name, created_at) VALUES (?1, ?2, ?3)",
            params![
                organization_id,
                format!("Hedgebox {name}"),
                stamp(&(now - Duration::days(300 - index as i64)))
            ],
        )?;
        let project_id = tx.last_insert_rowid();
        let project_key = project_id.to_string();
        let mut add = |sequence: &mut Sequence,
                       resource: &str,
                       resource_id: Option<&str>,
                       member: Option<&str>,
                       role: Option<&str>,
                       level: &AccessLevel|
         -> ApiResult<()> {
            rule.execute(params![
                sequence.uuid(),
                project_id,
                resource,
                resource_id,
                member,
                role,
                level.as_str(),
                owner,
                at
            ])?;
            Ok(())
        };
        // Every third project is closed, every third lowered to member.
        match index % 3 {
            0 => add(
                &mut sequence,
                "project",
                Some(&project_key),
                None,
                None,
                &AccessLevel::Member,
            )?,
            2 => add(
                &mut sequence,
                "project",
                Some(&project_key),
                None,
                None,
                &AccessLevel::None,
            )?,
            _ => {}
        }
        for role in &roles {
            if sequence.below(3) == 0 {
                let project_level = level(&mut sequence, "project");
                add(
                    &mut sequence,
                    "project",
                    Some(&project_key),
                    None,
                    Some(role),
                    &project_level,
                )?;
            }
        }
        for resource in RESOURCES {
            if sequence.below(3) != 0 {
                continue;
            }
            let everyone = level(&mut sequence, resource);
            add(&mut sequence, resource, None, None, None, &everyone)?;
            for _ in 0..sequence.below(4) {
                let Some(role) = roles.get(sequence.below(roles.len().max(1) as u64) as usize) else {
                    break;
                };
                let role_level = level(&mut sequence, resource);
                add(&mut sequence, resource, None, None, Some(role), &role_level)?;
            }
        }
        for _ in 0..members.len().min(25) {
            let (membership_id, _) = &members[sequence.below(members.len() as u64) as usize];
            if sequence.below(2) == 0 {
                let project_level = level(&mut sequence, "project");
                add(
                    &mut sequence,
                    "project",
                    Some(&project_key),
                    Some(membership_id),
                    None,
                    &project_level,
                )?;
            } else {
                let resource = RESOURCES[sequence.below(RESOURCES.len() as u64) as usize];
                let resource_level = level(&mut sequence, resource);
                add(
                    &mut sequence,
                    resource,
                    None,
                    Some(membership_id),
                    None,
                    &resource_level,
                )?;
            }
        }
        for board in ["Overview", "Funnel", "Leadership review"] {
            let creator = members
                .get(sequence.below(members.len().max(1) as u64) as usize)
                .map_or(owner, |(_, user_id)| *user_id);
            tx.execute(
                "INSERT INTO dashboards (project_id, name, created_by) VALUES (?1, ?2, ?3)",
                params![project_id, format!("{name}: {board}"), creator],
            )?;
            if board == "Leadership review"
                && let Some(role) = roles.get(index as usize % roles.len().max(1))
            {
                let dashboard = tx.last_insert_rowid().to_string();
                add(
                    &mut sequence,
                    "dashboard",
                    Some(&dashboard),
                    None,
                    None,
                    &AccessLevel::None,
                )?;
                add(
                    &mut sequence,
                    "dashboard",
                    Some(&dashboard),
                    None,
                    Some(role),
                    &AccessLevel::Viewer,
                )?;
            }
        }
    }
    Ok(())
}
