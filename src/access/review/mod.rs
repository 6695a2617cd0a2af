//! The access review: a snapshot, for every member, of their organization
//! level, roles, last login, personal keys, and their effective access
//! with its source on every project and every resource, as an admin files
//! it for a quarterly review (SOC 2's user access review); and what changed
//! since an earlier one (`diff`).
//!
//! A project is read in one answer (`access_control_members`, every member
//! times every resource: some 9 MB for 1,000 people, 800 MB for 90,000),
//! decoded a member at a time as it arrives into the row the review
//! prints, which is set aside in a temporary file ([`aside`]) and read back
//! in the review's order as the project is written out, a row at a time.
//! The members are set aside too, in the review's order ([`members`]), and
//! read back as the header's member rows and each project's rows are
//! written: memory holds a compact index of the members (some 40 bytes
//! each), a few chunks of each answer in flight and where each row lies,
//! whatever the size of the organization. Everything is
//! sorted (projects by id, people by e-mail address, resources in
//! PostHog's order), so that two snapshots of an unchanged organization
//! differ in their `taken_at` line alone.

mod aside;
pub mod diff;
mod members;
pub mod snapshot;

use chrono::{DateTime, Utc};
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};

use super::directory::{self, Directory, Organization, People, Person, ProjectRef};
use super::explain::{Ignored, ProjectRules, explain};
use super::read::{ReadError, Reader};
use super::{Unknown, person::unknown_or_stop};
use crate::api::access::levels::{PROJECT, RESOURCES};
use crate::api::access::{AccessTarget, MemberAccess, Ordered};

/// Projects whose answers are read at once: each holds a few chunks of its
/// answer in flight and, until its turn to be written, where its rows lie.
pub const PROJECTS_AT_ONCE: usize = 3;

/// What a review says of personal keys when the server will not list them
/// for a personal API key (today's PostHog, posthog.md 15-20).
pub const KEYS_NOT_LISTABLE: &str = "unknown: not listable with a personal API key";

/// What the snapshot says about itself.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Header {
    pub host: String,
    pub organization: Organization,
    pub taken_at: DateTime<Utc>,
    pub projects: Vec<ProjectRef>,
}

impl Header {
    /// The resolution mode in words, or what is known of it.
    pub fn resolution(&self) -> String {
        match self.organization.mode {
            Some(mode) => mode.as_str().to_string(),
            None => "unknown (the server does not say)".into(),
        }
    }
}

/// One member of the organization.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemberRow {
    pub email: String,
    pub name: String,
    pub membership_id: String,
    /// member, admin or owner.
    pub level: String,
    /// Role names, sorted.
    pub roles: Vec<String>,
    /// RFC 3339, or null.
    pub last_login: Option<String>,
    /// "yes", "yes (used in the last week)", "no", or "unknown: why".
    pub personal_keys: String,
}

/// A level and its source, in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewCell {
    /// The level the server enforces; "-" when nothing resolves.
    pub level: String,
    pub source: String,
}

/// One member's access in one project.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AccessRow {
    pub email: String,
    /// The member's name, as the members' rows say it (not written in the
    /// row: CSV repeats it, JSON has it among the members).
    #[serde(skip)]
    pub name: String,
    pub membership_id: String,
    /// Why the server said nothing of them here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unknown: Option<String>,
    /// `project` first, then each resource in PostHog's order.
    #[serde(default)]
    pub cells: Ordered<ReviewCell>,
}

/// One project of the snapshot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProjectSnapshot {
    pub id: i64,
    pub name: String,
    /// Why nothing could be read of the project.
    #[serde(default)]
    pub unknown: Option<String>,
    #[serde(default)]
    pub notes: Vec<String>,
    /// The project's defaults: everyone's rule, else the built-in default.
    #[serde(default)]
    pub defaults: Ordered<ReviewCell>,
    #[serde(default)]
    pub access: Vec<AccessRow>,
}

impl ProjectSnapshot {
    pub fn label(&self) -> String {
        format!("{} ({})", self.name, self.id)
    }
}

/// Where a review goes: a file's format, the diff, or both. The header
/// comes first (`begin`, with the number of members), then each member's
/// row (`member`) and `members_end`; then each project as its head
/// (`project`, everything but its access rows), its rows one at a time
/// (`row`), then `project_end`.
pub trait Sink {
    fn begin(&mut self, header: &Header, members: usize) -> std::io::Result<()>;
    fn member(&mut self, member: &MemberRow) -> std::io::Result<()>;
    fn members_end(&mut self) -> std::io::Result<()>;
    fn project(&mut self, project: &ProjectSnapshot) -> std::io::Result<()>;
    fn row(&mut self, project: &ProjectSnapshot, row: &AccessRow) -> std::io::Result<()>;
    fn project_end(&mut self, project: &ProjectSnapshot) -> std::io::Result<()>;
    fn end(&mut self) -> std::io::Result<()>;
}

/// How far a review is.
#[derive(Debug, Clone, Copy)]
pub enum Progress {
    Keys {
        done: usize,
        total: usize,
        requests: u64,
    },
    Projects {
        done: usize,
        total: usize,
        requests: u64,
    },
}

/// How a review ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    pub members: usize,
    pub projects: usize,
    /// Projects the server said nothing of.
    pub unknown_projects: usize,
    pub requests: u64,
}

/// Why a review stopped.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error("cannot write the review: {0}")]
    Write(#[from] std::io::Error),
}

/// Takes the snapshot: reads the organization, its people (with their
/// keys), then each project, handing each to `sink` in order as soon as
/// it is read.
pub async fn take(
    reader: &Reader,
    organization: &str,
    host: &str,
    now: DateTime<Utc>,
    sink: &mut dyn Sink,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Summary, ReviewError> {
    // The roles without their members: the members index them below.
    let directory = Directory::load_for(reader, organization, &People::Nobody).await?;
    let members = gather_members(reader, &directory).await?;
    let header = Header {
        host: host.to_string(),
        organization: directory.organization.clone(),
        taken_at: now,
        projects: directory.projects.clone(),
    };
    sink.begin(&header, members.count())?;
    member_rows(reader, &directory, &members, sink, progress).await?;
    sink.members_end()?;
    let total = directory.projects.len();
    let mut reads = futures_util::stream::iter(directory.projects.iter())
        .map(|project| read_project(reader, &directory, &members, project))
        .buffered(PROJECTS_AT_ONCE);
    let mut summary = Summary {
        members: members.count(),
        ..Summary::default()
    };
    while let Some(project) = reads.next().await {
        let (project, rows) = project?;
        summary.projects += 1;
        summary.unknown_projects += usize::from(project.unknown.is_some());
        sink.project(&project)?;
        if let Some(rows) = rows {
            let missing = |person: &Person| AccessRow {
                email: person.email.clone(),
                name: String::new(),
                membership_id: person.membership_id.clone(),
                unknown: Some(Unknown::not_listed(&directory.organization).unknown),
                cells: Ordered::default(),
            };
            rows.each(members.read()?, missing, |row| sink.row(&project, row))?;
        }
        sink.project_end(&project)?;
        progress(Progress::Projects {
            done: summary.projects,
            total,
            requests: reader.requests(),
        });
    }
    sink.end()?;
    summary.requests = reader.requests();
    Ok(summary)
}

/// Every member, set aside in the review's order, with the roles each
/// holds: found by walking every role's members once, a page at a time.
async fn gather_members(reader: &Reader, directory: &Directory) -> Result<members::Members, ReviewError> {
    let organization = directory.organization.id.as_str();
    let mut gathering = members::Gathering::new();
    directory::each_member(reader, organization, |person| gathering.push(person)).await??;
    let mut members = gathering.finish()?;
    // (member's place, role's place) for every membership.
    let mut held: Vec<(u32, u32)> = Vec::new();
    directory::each_role_member(reader, organization, &directory.roles, |role, member| {
        let role = u32::try_from(role).unwrap_or(u32::MAX);
        for position in members.holders(member) {
            held.push((u32::try_from(position).unwrap_or(u32::MAX), role));
        }
    })
    .await?;
    members.set_roles(held);
    Ok(members)
}

/// Each member's row, handed to `sink` in the review's order as their
/// personal keys are known. The first answer tells whether the server
/// lists keys for a personal API key at all (today's PostHog does not:
/// 403 "This action does not support personal API key access."); then the
/// rest are asked, a few at a time.
async fn member_rows(
    reader: &Reader,
    directory: &Directory,
    members: &members::Members,
    sink: &mut dyn Sink,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<(), ReviewError> {
    let organization = directory.organization.id.as_str();
    let row = |person: &Person, position: usize, personal_keys: String| MemberRow {
        email: person.email.clone(),
        name: person.name.clone(),
        membership_id: person.membership_id.clone(),
        level: person.level_name().to_string(),
        roles: members
            .roles_of(position)
            .iter()
            .filter_map(|role| directory.roles.get(*role as usize))
            .map(|role| role.name.clone())
            .collect(),
        last_login: person
            .last_login
            .map(|at| at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
        personal_keys,
    };
    let ask = |uuid: String| async move {
        let answer = reader
            .read(|client| {
                let uuid = &uuid;
                async move { client.scoped_api_keys(organization, uuid).await }
            })
            .await;
        unknown_or_stop(answer, |error| error.to_string())
    };
    let words = |answer: Result<crate::api::ScopedApiKeys, String>| match answer {
        Ok(keys) if keys.has_keys && keys.has_keys_active_last_week => {
            "yes (used in the last week)".to_string()
        }
        Ok(keys) if keys.has_keys || !keys.keys.is_empty() => "yes".to_string(),
        Ok(_) => "no".to_string(),
        Err(error) => format!("unknown: {error}"),
    };
    let mut people = members.read()?;
    let Some(first) = people.next().transpose()? else {
        return Ok(());
    };
    let probe = ask(first.user_uuid.clone()).await?;
    if let Err(error) = &probe
        && (error.contains("personal API key") || error.starts_with("403"))
    {
        let said = if error.contains("personal API key") {
            KEYS_NOT_LISTABLE.to_string()
        } else {
            format!("unknown: {error}")
        };
        sink.member(&row(&first, 0, said.clone()))?;
        for (at, person) in people.enumerate() {
            sink.member(&row(&person?, at + 1, said.clone()))?;
        }
        return Ok(());
    }
    sink.member(&row(&first, 0, words(probe)))?;
    let total = members.count();
    let mut rest = futures_util::stream::iter(people.map(|person| async {
        let person = person?;
        let answer = ask(person.user_uuid.clone()).await?;
        Ok::<_, ReviewError>((person, answer))
    }))
    .buffered(64);
    let mut done = 1;
    while let Some(answer) = rest.next().await {
        let (person, answer) = answer?;
        sink.member(&row(&person, done, words(answer)))?;
        done += 1;
        if done % 50 == 0 || done == total {
            progress(Progress::Keys {
                done,
                total,
                requests: reader.requests(),
            });
        }
    }
    Ok(())
}

/// One project: its rules (for the defaults and the roles' names), then
/// every member's access, decoded a member at a time as the answer arrives
/// and set aside; its head, and its rows unless nothing could be read.
async fn read_project(
    reader: &Reader,
    directory: &Directory,
    members: &members::Members,
    project: &ProjectRef,
) -> Result<(ProjectSnapshot, Option<aside::Aside>), ReviewError> {
    let organization = &directory.organization;
    let id = project.id.to_string();
    let id = id.as_str();
    let mut snapshot = ProjectSnapshot {
        id: project.id,
        name: project.name.clone(),
        unknown: None,
        notes: Vec::new(),
        defaults: Ordered::default(),
        access: Vec::new(),
    };
    let (project_rules, resource_rules) = tokio::join!(
        reader.read(|client| async move { client.access_controls(id, AccessTarget::Project).await }),
        reader.read(|client| async move { client.resource_access_controls(id).await }),
    );
    let rules = super::project_rules(reader, id, project_rules, resource_rules, &mut snapshot.notes).await?;
    let mut rows = aside::Aside::new(members.count())?;
    // Why the rows could not be set aside, if they could not.
    let mut unwritten: Option<std::io::Error> = None;
    let mut ignored = Ignored::default();
    let mut resources: Vec<String> = Vec::new();
    let answer = reader
        .read(|client| {
            let (rows, unwritten, ignored, resources, rules) =
                (&mut rows, &mut unwritten, &mut ignored, &mut resources, &rules);
            async move {
                client
                    .access_control_members(id, None, |row: MemberAccess| {
                        if resources.is_empty() {
                            resources.extend(row.resources.iter().map(|(resource, _)| resource.to_string()));
                        }
                        let seen = Ignored::seen_in(
                            rules,
                            &|resource| rules.member(&row.organization_membership_id, resource).cloned(),
                            std::iter::once((PROJECT, &row.project)).chain(row.resources.iter()),
                            false,
                        );
                        ignored.all_rules |= seen.all_rules;
                        ignored.role_rules |= seen.role_rules;
                        let position = members.position(&row.organization_membership_id);
                        let roles: Vec<(String, String)> = position
                            .map(|position| members.roles_of(position))
                            .unwrap_or_default()
                            .iter()
                            .filter_map(|role| directory.roles.get(*role as usize))
                            .map(|role| (role.id.clone(), role.name.clone()))
                            .collect();
                        rows.put(position, &row_of(&row, rules, &roles)).map_err(|error| {
                            *unwritten = Some(error);
                            crate::api::Error::Invalid("the access rows could not be set aside".into())
                        })
                    })
                    .await
            }
        })
        .await;
    if let Some(error) = unwritten {
        return Err(ReviewError::Write(error));
    }
    if let Err(words) = unknown_or_stop(answer, |error| Unknown::refused(error, organization).unknown)? {
        snapshot.unknown = Some(words);
        return Ok((snapshot, None));
    }
    let ignored = Ignored {
        all_rules: organization.access_control.map_or(ignored.all_rules, |has| !has),
        role_rules: organization
            .role_based_access
            .map_or(ignored.role_rules, |has| !has),
    };
    snapshot.notes.extend(ignored.note().map(str::to_string));
    if resources.is_empty() {
        resources = RESOURCES.iter().map(|resource| resource.to_string()).collect();
    }
    snapshot.defaults = Ordered(
        std::iter::once(PROJECT.to_string())
            .chain(resources)
            .map(|resource| {
                let (level, why) = rules.default_of(&resource, !ignored.all_rules);
                let managed = match why {
                    crate::access::explain::Why::Everyone => rules.terraform(None, &[], &resource),
                    _ => Vec::new(),
                };
                let cell = ReviewCell {
                    level: level.to_string(),
                    source: with_terraform(why.to_string(), &managed, rules.locked()),
                };
                (resource, cell)
            })
            .collect(),
    );
    Ok((snapshot, Some(rows)))
}

/// A source in words with the rules of it Terraform manages said, as
/// `access person` says them: "role Finance (managed by Terraform: role
/// Finance)", "…, lock off: …" when the project's lock is off.
pub(crate) fn with_terraform(source: String, managed: &[String], locked: bool) -> String {
    if managed.is_empty() {
        source
    } else {
        format!(
            "{source} ({}: {})",
            crate::access::terraform_mark(locked),
            managed.join(", ")
        )
    }
}

/// A member's cells: the project and every resource, level and source
/// (with the rules naming them that Terraform manages).
fn row_of(row: &MemberAccess, rules: &ProjectRules, roles: &[(String, String)]) -> AccessRow {
    let held: Vec<(&str, &str)> = roles
        .iter()
        .map(|(id, name)| (id.as_str(), name.as_str()))
        .collect();
    let cell = |resource: &str, entry: &crate::api::access::SettingsEntry| {
        let roles_at = |level: &crate::api::AccessLevel| -> Vec<String> {
            roles
                .iter()
                .filter(|(id, _)| rules.role(id, resource) == Some(level))
                .map(|(_, name)| name.clone())
                .collect()
        };
        let cell = explain(entry, resource, &roles_at);
        // An organization admin's level bypasses every rule.
        let managed = match cell.why {
            crate::access::explain::Why::OrganizationAdmin => Vec::new(),
            _ => rules.terraform(Some(&row.organization_membership_id), &held, resource),
        };
        ReviewCell {
            level: cell.level_name().to_string(),
            source: with_terraform(cell.why.to_string(), &managed, rules.locked()),
        }
    };
    let mut cells = Vec::with_capacity(row.resources.len() + 1);
    cells.push((PROJECT.to_string(), cell(PROJECT, &row.project)));
    for (resource, entry) in row.resources.iter() {
        cells.push((resource.to_string(), cell(resource, entry)));
    }
    AccessRow {
        email: row.user.email.clone(),
        name: String::new(),
        membership_id: row.organization_membership_id.to_lowercase(),
        unknown: None,
        cells: Ordered(cells),
    }
}

/// Hands a review to two sinks: a file and the diff.
pub struct Tee<'a, 'b> {
    pub first: &'a mut dyn Sink,
    pub second: &'b mut dyn Sink,
}

impl Sink for Tee<'_, '_> {
    fn begin(&mut self, header: &Header, members: usize) -> std::io::Result<()> {
        self.first.begin(header, members)?;
        self.second.begin(header, members)
    }

    fn member(&mut self, member: &MemberRow) -> std::io::Result<()> {
        self.first.member(member)?;
        self.second.member(member)
    }

    fn members_end(&mut self) -> std::io::Result<()> {
        self.first.members_end()?;
        self.second.members_end()
    }

    fn project(&mut self, project: &ProjectSnapshot) -> std::io::Result<()> {
        self.first.project(project)?;
        self.second.project(project)
    }

    fn row(&mut self, project: &ProjectSnapshot, row: &AccessRow) -> std::io::Result<()> {
        self.first.row(project, row)?;
        self.second.row(project, row)
    }

    fn project_end(&mut self, project: &ProjectSnapshot) -> std::io::Result<()> {
        self.first.project_end(project)?;
        self.second.project_end(project)
    }

    fn end(&mut self) -> std::io::Result<()> {
        self.first.end()?;
        self.second.end()
    }
}
