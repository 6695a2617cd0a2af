//! Filling an empty database: the demo data set (`assets/demo.json`) or a bare
//! organization, and synthetic subscriptions, members, roles and projects
//! with access rules for load tests (`generate`, `generate_access`).
//!
//! The demo is one believable company, Hedgebox: forty people in eight
//! roles, two projects, and about 120 subscriptions whose titles, targets
//! and schedules are written out in the data file, each with 30 days of
//! history that follows its schedule, and the stories on-call meets (see
//! `today`). The data is deterministic: ids come from a fixed seed, and
//! dates are laid out relative to the day of seeding so that the demo
//! always has upcoming, overdue and finished deliveries. Its access control
//! (`access`, `assets/demo-access.json`) is seeded last, with a sequence of
//! its own, so that nothing seeded before it changes.

use crate::schedule::Rules;
use chrono::{DateTime, Duration, DurationRound, Utc};
use rusqlite::{Transaction, params};
use serde::Deserialize;

use super::Seed;
use super::error::{ApiError, ApiResult};
use super::store::rows::stamp;
use super::store::{Db, directory, keys, roles};
use crate::api::models::level;

mod access;
mod generate;
mod generate_access;
mod subscription_plans;
mod today;

pub use generate::{generate_members, generate_subscriptions};
pub use generate_access::{generate_projects, generate_roles};
use subscription_plans::{DemoSubscription, seed_subscriptions};

const DEMO: &str = include_str!("../../../assets/demo.json");

/// The organization and project a prepared database opens on, and the key
/// minted when the demo was seeded.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub organization_id: String,
    pub project_id: i64,
    pub api_key: Option<String>,
}

/// How much synthetic data to add on top of the seed, for benchmarks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Scale {
    /// Subscriptions added to the first project.
    pub subscriptions: u64,
    /// Active members added to the first organization.
    pub members: u64,
    /// Roles, with members and access rules, added to the first organization.
    pub roles: u64,
    /// Projects, with access rules, added to the first organization.
    pub projects: u64,
}

/// Seeds an empty database as `seed` says, then adds the synthetic
/// subscriptions and members of `scale`, each kind in one transaction.
/// `rules` are the schedule rules of the PostHog served.
pub fn prepare(db: &Db, seed: Seed, scale: Scale, now: DateTime<Utc>, rules: Rules) -> ApiResult<Prepared> {
    let prepared = match db.read_blocking(directory::first_organization_and_project)? {
        Some((organization_id, Some(project_id))) => Prepared {
            organization_id,
            project_id,
            api_key: None,
        },
        Some((organization_id, None)) => {
            let project_id =
                db.write_blocking(|tx| insert_project(tx, &organization_id, "Default project", now))?;
            Prepared {
                organization_id,
                project_id,
                api_key: None,
            }
        }
        None => db.write_blocking(|tx| match seed {
            Seed::Demo => seed_demo(tx, now, rules),
            Seed::None => seed_bare(tx, now),
        })?,
    };
    if scale.subscriptions > 0 {
        let (project_id, count) = (prepared.project_id, scale.subscriptions);
        let started = std::time::Instant::now();
        db.write_blocking(|tx| generate_subscriptions(tx, project_id, count, now, rules))?;
        tracing::info!(count, elapsed = ?started.elapsed(), "generated subscriptions");
    }
    if scale.members > 0 {
        let (organization_id, count) = (prepared.organization_id.as_str(), scale.members);
        let started = std::time::Instant::now();
        db.write_blocking(|tx| generate_members(tx, organization_id, count, now))?;
        tracing::info!(count, elapsed = ?started.elapsed(), "generated members");
    }
    if scale.roles > 0 {
        let (organization_id, count) = (prepared.organization_id.as_str(), scale.roles);
        db.write_blocking(|tx| generate_roles(tx, organization_id, count, now))?;
        tracing::info!(count, "generated roles");
    }
    if scale.projects > 0 {
        let (organization_id, count) = (prepared.organization_id.as_str(), scale.projects);
        db.write_blocking(|tx| generate_projects(tx, organization_id, count, now))?;
        tracing::info!(count, "generated projects with access rules");
    }
    Ok(prepared)
}

/// A small, stable pseudo-random generator (SplitMix64): the same seed gives
/// the same data on every machine and every version of every crate.
struct Sequence(u64);

impl Sequence {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, bound: u64) -> u64 {
        self.next() % bound.max(1)
    }

    fn uuid(&mut self) -> String {
        let bytes = (u128::from(self.next()) << 64 | u128::from(self.next())).to_be_bytes();
        uuid::Builder::from_random_bytes(bytes).into_uuid().to_string()
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DemoData {
    organization: DemoOrganization,
    projects: Vec<String>,
    users: Vec<DemoUser>,
    roles: Vec<DemoRole>,
    /// Per project, its dashboards with the insights on their tiles.
    dashboards: Vec<Vec<DemoDashboard>>,
    /// Per project, its insights' names.
    insights: Vec<Vec<String>>,
    /// The channels of each project's Slack workspace.
    slack_channels: Vec<String>,
    subscriptions: Vec<DemoSubscription>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DemoOrganization {
    name: String,
    slug: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DemoUser {
    first_name: String,
    last_name: String,
    email: String,
    /// 0 for a user outside the organization.
    level: i64,
    #[serde(default)]
    two_factor: bool,
    #[serde(default)]
    social: bool,
    #[serde(default)]
    inactive: bool,
    #[serde(default)]
    hedgehog: Option<serde_json::Value>,
    /// What they said their role is, when they did.
    #[serde(default)]
    role_at_organization: Option<String>,
    /// Days since their last login, when not within the last three days.
    #[serde(default)]
    last_login_days: Option<i64>,
    /// Personal API keys of their own (a leaver's script still running).
    #[serde(default)]
    keys: Vec<DemoKey>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DemoKey {
    label: String,
    scopes: Vec<String>,
    /// Days since it was last used; never, when absent.
    #[serde(default)]
    last_used_days: Option<i64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DemoRole {
    name: String,
    access: i64,
    /// E-mail addresses up to the `@`.
    members: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DemoDashboard {
    name: String,
    /// Names of the project's insights on its tiles, in order.
    tiles: Vec<String>,
}

fn insert_organization(
    tx: &Transaction,
    sequence: &mut Sequence,
    name: &str,
    slug: &str,
    at: DateTime<Utc>,
) -> ApiResult<String> {
    let id = sequence.uuid();
    tx.execute(
        "INSERT INTO organizations (id, name, slug, created_at) VALUES (?1, ?2, ?3, ?4)",
        params![id, name, slug, stamp(&at)],
    )?;
    Ok(id)
}

fn insert_project(tx: &Transaction, organization_id: &str, name: &str, at: DateTime<Utc>) -> ApiResult<i64> {
    tx.execute(
        "INSERT INTO projects (organization_id, name, created_at) VALUES (?1, ?2, ?3)",
        params![organization_id, name, stamp(&at)],
    )?;
    Ok(tx.last_insert_rowid())
}

struct NewUser<'a> {
    first_name: &'a str,
    last_name: &'a str,
    email: &'a str,
    active: bool,
    hedgehog: Option<String>,
}

fn insert_user(
    tx: &Transaction,
    sequence: &mut Sequence,
    user: &NewUser,
    current: Option<(&str, i64)>,
    at: DateTime<Utc>,
) -> ApiResult<i64> {
    let distinct_id = format!("{:016x}{:016x}", sequence.next(), sequence.next());
    tx.execute(
        "INSERT INTO users (uuid, distinct_id, first_name, last_name, email, is_active, hedgehog_config,
                            current_organization_id, current_project_id, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![
            sequence.uuid(),
            distinct_id,
            user.first_name,
            user.last_name,
            user.email,
            user.active,
            user.hedgehog,
            current.map(|(organization, _)| organization),
            current.map(|(_, project)| project),
            stamp(&at),
        ],
    )?;
    Ok(tx.last_insert_rowid())
}

struct NewMember {
    level: i64,
    two_factor: bool,
    social: bool,
}

fn insert_member(
    tx: &Transaction,
    sequence: &mut Sequence,
    organization_id: &str,
    user_id: i64,
    member: &NewMember,
    at: DateTime<Utc>,
) -> ApiResult<String> {
    let id = sequence.uuid();
    tx.execute(
        "INSERT INTO organization_members (id, organization_id, user_id, level, joined_at, updated_at,
                                           is_2fa_enabled, has_social_auth)
         VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6, ?7)",
        params![
            id,
            organization_id,
            user_id,
            member.level,
            stamp(&at),
            member.two_factor,
            member.social
        ],
    )?;
    Ok(id)
}

/// An organization, a project and its owner: enough to mint keys for.
fn seed_bare(tx: &Transaction, now: DateTime<Utc>) -> ApiResult<Prepared> {
    let mut sequence = Sequence(0x0BAD_5EED);
    let organization_id = insert_organization(tx, &mut sequence, "My organization", "my-organization", now)?;
    let project_id = insert_project(tx, &organization_id, "Default project", now)?;
    let owner = NewUser {
        first_name: "Owner",
        last_name: "",
        email: "owner@orgdeck.local",
        active: true,
        hedgehog: None,
    };
    let user_id = insert_user(
        tx,
        &mut sequence,
        &owner,
        Some((&organization_id, project_id)),
        now,
    )?;
    let owner = NewMember {
        level: level::OWNER,
        two_factor: false,
        social: false,
    };
    insert_member(tx, &mut sequence, &organization_id, user_id, &owner, now)?;
    Ok(Prepared {
        organization_id,
        project_id,
        api_key: None,
    })
}

/// The people of the demo organization, as the rest of the seed needs them.
struct People {
    /// The owner's user id.
    owner: i64,
    /// (e-mail address up to the `@`, user id, organization member id).
    members: Vec<(String, i64, String)>,
    /// Active members, who create roles.
    authors: Vec<i64>,
}

impl People {
    /// The user id of the member whose address starts with `local@`.
    fn user(&self, local: &str) -> ApiResult<i64> {
        self.members
            .iter()
            .find(|(known, _, _)| known == local)
            .map(|(_, user_id, _)| *user_id)
            .ok_or_else(|| ApiError::internal(format!("demo: {local} is not a member")))
    }
}

/// A project with its dashboards and insights, by name.
struct Catalog {
    project_id: i64,
    dashboards: Vec<(String, i64)>,
    insights: Vec<(String, i64)>,
    /// Each dashboard's insights, in the order of its tiles.
    tiles: Vec<(i64, Vec<i64>)>,
}

impl Catalog {
    fn dashboard(&self, name: &str) -> ApiResult<i64> {
        find(&self.dashboards, name, "dashboard")
    }

    fn insight(&self, name: &str) -> ApiResult<i64> {
        find(&self.insights, name, "insight")
    }

    /// The insights on a dashboard's tiles, in order.
    fn on_tiles(&self, dashboard: i64) -> &[i64] {
        self.tiles
            .iter()
            .find(|(id, _)| *id == dashboard)
            .map(|(_, insights)| insights.as_slice())
            .unwrap_or_default()
    }
}

fn find(named: &[(String, i64)], name: &str, what: &str) -> ApiResult<i64> {
    named
        .iter()
        .find(|(known, _)| known == name)
        .map(|(_, id)| *id)
        .ok_or_else(|| ApiError::internal(format!("demo: no {what} named {name:?}")))
}

impl DemoData {
    /// What the seed indexes must be there.
    fn check(&self) -> ApiResult<()> {
        let empty = [
            ("projects", self.projects.is_empty()),
            (
                "users",
                self.users.iter().all(|user| user.level == 0 || user.inactive),
            ),
            ("slack_channels", self.slack_channels.is_empty()),
            ("subscriptions", self.subscriptions.is_empty()),
        ];
        match empty.iter().find(|(_, empty)| *empty) {
            Some((name, _)) => Err(ApiError::internal(format!("the demo data has no {name}"))),
            None => Ok(()),
        }
    }
}

fn seed_demo(tx: &Transaction, now: DateTime<Utc>, rules: Rules) -> ApiResult<Prepared> {
    let data: DemoData =
        serde_json::from_str(DEMO).map_err(|error| ApiError::internal(format!("demo data: {error}")))?;
    data.check()?;
    let mut sequence = Sequence(0x0D3C_0DEC);
    // Whole days, so that the data laid out from it reads naturally.
    let today = now.duration_trunc(Duration::days(1)).unwrap_or(now);
    let founded = today - Duration::days(720);

    let organization_id = insert_organization(
        tx,
        &mut sequence,
        &data.organization.name,
        &data.organization.slug,
        founded,
    )?;
    let mut project_ids = Vec::new();
    for (index, name) in data.projects.iter().enumerate() {
        let created = founded + Duration::days(index as i64);
        project_ids.push(insert_project(tx, &organization_id, name, created)?);
    }
    let first_project = project_ids[0]; // check() made sure there is one
    let people = seed_people(
        tx,
        &data,
        &mut sequence,
        &organization_id,
        first_project,
        founded,
        now,
    )?;
    seed_roles(tx, &data, &mut sequence, &organization_id, &people, today)?;
    let catalogs = seed_catalogs(tx, &data, &project_ids)?;
    let integrations = today::seed_integrations(tx, &data, &catalogs, people.owner, now)?;
    let seeded = seed_subscriptions(tx, &data, &catalogs, &integrations, &people, now, rules)?;
    today::seed_history(tx, &seeded, &integrations, now)?;
    access::seed(tx, &organization_id, &project_ids, now)?;
    let api_key = keys::mint(tx, people.owner, "orgdeck demo", &["*".to_string()])?;
    Ok(Prepared {
        organization_id,
        project_id: first_project,
        api_key: Some(api_key),
    })
}

/// Users and their memberships: the first is the owner; level 0 is someone
/// outside the organization. Active people logged in within the last
/// three days unless the data says otherwise.
fn seed_people(
    tx: &Transaction,
    data: &DemoData,
    sequence: &mut Sequence,
    organization_id: &str,
    first_project: i64,
    founded: DateTime<Utc>,
    now: DateTime<Utc>,
) -> ApiResult<People> {
    let mut members = Vec::new();
    let mut authors = Vec::new();
    for (index, user) in data.users.iter().enumerate() {
        let joined = founded + Duration::days(index as i64 * 9) + Duration::hours(9);
        let current = (user.level > 0).then_some((organization_id, first_project));
        let new_user = NewUser {
            first_name: &user.first_name,
            last_name: &user.last_name,
            email: &user.email,
            active: !user.inactive,
            hedgehog: user.hedgehog.as_ref().map(|value| value.to_string()),
        };
        let user_id = insert_user(tx, sequence, &new_user, current, joined)?;
        let last_login = (!user.inactive).then(|| match user.last_login_days {
            Some(days) => now - Duration::days(days) - Duration::minutes(user_id * 47 % 600),
            None => now - Duration::minutes((user_id * 431) % (72 * 60)),
        });
        tx.execute(
            "UPDATE users SET role_at_organization = ?2, last_login = ?3 WHERE id = ?1",
            params![user_id, user.role_at_organization, last_login.as_ref().map(stamp)],
        )?;
        for key in &user.keys {
            keys::mint(tx, user_id, &key.label, &key.scopes)?;
            let used = key
                .last_used_days
                .map(|days| stamp(&(now - Duration::days(days) - Duration::minutes(user_id * 13 % 600))));
            tx.execute(
                "UPDATE personal_api_keys SET last_used_at = ?3 WHERE user_id = ?1 AND label = ?2",
                params![user_id, key.label, used],
            )?;
        }
        if user.level > 0 {
            let member = NewMember {
                level: user.level,
                two_factor: user.two_factor,
                social: user.social,
            };
            let member_id = insert_member(tx, sequence, organization_id, user_id, &member, joined)?;
            let local = user.email.split('@').next().unwrap_or_default().to_string();
            members.push((local, user_id, member_id));
            if !user.inactive {
                authors.push(user_id);
            }
        }
    }
    let owner = members
        .first()
        .map(|(_, user_id, _)| *user_id)
        .ok_or_else(|| ApiError::internal("demo data has no owner"))?;
    Ok(People {
        owner,
        members,
        authors,
    })
}

fn seed_roles(
    tx: &Transaction,
    data: &DemoData,
    sequence: &mut Sequence,
    organization_id: &str,
    people: &People,
    today: DateTime<Utc>,
) -> ApiResult<()> {
    for (index, role) in data.roles.iter().enumerate() {
        let created = today - Duration::days(300 - index as i64 * 17) + Duration::hours(10);
        let role_id = sequence.uuid();
        let creator = people.authors[index % people.authors.len().min(4)];
        tx.execute(
            "INSERT INTO roles (id, organization_id, name, name_key, feature_flags_access_level, created_at, created_by)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![role_id, organization_id, role.name, roles::name_key(&role.name), role.access, stamp(&created), creator],
        )?;
        for (position, local) in role.members.iter().enumerate() {
            let (_, user_id, member_id) = people
                .members
                .iter()
                .find(|(known, _, _)| known == local)
                .ok_or_else(|| ApiError::internal(format!("demo role member {local} is not a member")))?;
            let joined = created + Duration::days(position as i64 * 3 + 1);
            tx.execute(
                "INSERT INTO role_memberships (id, role_id, organization_member_id, user_id, joined_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
                params![sequence.uuid(), role_id, member_id, user_id, stamp(&joined)],
            )?;
        }
    }
    Ok(())
}

/// Each project's insights (with their short ids) and dashboards, whose
/// tiles hold the insights the data names, two to a row, and a text tile
/// under the first dashboard's.
fn seed_catalogs(tx: &Transaction, data: &DemoData, project_ids: &[i64]) -> ApiResult<Vec<Catalog>> {
    let mut catalogs = Vec::new();
    for (index, &project_id) in project_ids.iter().enumerate() {
        let insert =
            |table: &str, names: &mut dyn Iterator<Item = &String>| -> ApiResult<Vec<(String, i64)>> {
                let mut ids = Vec::new();
                for name in names {
                    tx.execute(
                        &format!("INSERT INTO {table} (project_id, name) VALUES (?1, ?2)"),
                        params![project_id, name],
                    )?;
                    ids.push((name.clone(), tx.last_insert_rowid()));
                }
                Ok(ids)
            };
        let dashboards = data.dashboards.get(index).map(Vec::as_slice).unwrap_or_default();
        let mut catalog = Catalog {
            project_id,
            dashboards: insert(
                "dashboards",
                &mut dashboards.iter().map(|dashboard| &dashboard.name),
            )?,
            insights: insert("insights", &mut data.insights.get(index).into_iter().flatten())?,
            tiles: Vec::new(),
        };
        for (position, dashboard) in dashboards.iter().enumerate() {
            let dashboard_id = catalog.dashboard(&dashboard.name)?;
            let mut on_tiles = Vec::new();
            for (slot, name) in dashboard.tiles.iter().enumerate() {
                let insight = catalog.insight(name)?;
                tx.execute(
                    "INSERT INTO dashboard_tiles (dashboard_id, insight_id, y, x) VALUES (?1, ?2, ?3, ?4)",
                    params![
                        dashboard_id,
                        insight,
                        (slot / 2) as i64 * 5,
                        (slot % 2) as i64 * 6
                    ],
                )?;
                on_tiles.push(insight);
            }
            if position == 0 {
                let below = dashboard.tiles.len().div_ceil(2) as i64 * 5;
                tx.execute(
                    "INSERT INTO dashboard_tiles (dashboard_id, insight_id, y, x) VALUES (?1, NULL, ?2, 0)",
                    params![dashboard_id, below],
                )?;
            }
            catalog.tiles.push((dashboard_id, on_tiles));
        }
        catalogs.push(catalog);
    }
    tx.execute(
        "UPDATE insights SET short_id = lower(printf('%08X', (id * 2654435761) % 4294967296))",
        [],
    )?;
    Ok(catalogs)
}
