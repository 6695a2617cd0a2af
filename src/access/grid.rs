//! The access grid: every person (or every role) by every project and
//! every resource of it, each cell the level the server resolved and why,
//! read a project at a time. What the console's Access tab shows; nothing
//! here draws.
//!
//! The grid is held compact: a cell is a level in a byte and the index of
//! its source in its project's table of sources ("role Contractors", "own
//! rule", …, each text once), 4 bytes, whatever the server sent; the
//! server's JSON is decoded a row at a time as it arrives
//! (`access_control_members`, `access_control_roles`) and dropped. 1,000
//! people across 20 projects and their 34 resources are some 2.8 MB.
//!
//! The levels are the server's (`effective_access_level`), never
//! recomputed; the sources are named as `access person` and the review
//! name them ([`super::explain`]). Every request goes through the
//! [`Reader`]: a few at a time, paced, stoppable; a stop ends the read and
//! what was told before it stays told.

use std::collections::HashMap;

use futures_util::StreamExt;

mod cells;

use cells::Sources;
pub use cells::{Cell, Kind, Level, ProjectCells, Subject, column_count, column_of, columns};

use super::Unknown;
use super::directory::{self, Directory, Organization, People, Person, ProjectRef};
use super::explain::{Ignored, ProjectRules, Why, explain};
use super::person::unknown_or_stop;
use super::read::{ReadError, ReadResult, Reader};
use crate::api::access::levels::{AccessLevel, PROJECT};
use crate::api::access::{AccessTarget, MemberAccess, RoleAccess, SettingsEntry};

/// Projects read at once: each holds a few chunks of its answer in
/// flight.
pub const PROJECTS_AT_ONCE: usize = 3;

/// What the grid is about before any project is read: the organization,
/// its projects (in the order they are shown) and the rows.
#[derive(Debug, Clone, Default)]
pub struct Frame {
    pub organization: Organization,
    pub projects: Vec<ProjectRef>,
    pub subjects: Vec<Subject>,
}

/// What a read tells as it goes.
#[derive(Debug, Clone)]
pub enum News {
    /// The rows and the columns: shown at once, every cell unread.
    Framed(Box<Frame>),
    /// A project read (or refused).
    Project(Box<ProjectCells>),
}

/// Reads the grid of `kind` for `organization`: its frame first (the
/// projects by id), then each project, a few at a time (`first`, if
/// given, before the others; the first alone), each told as soon as it
/// is read.
pub async fn read(
    reader: &Reader,
    organization: &str,
    kind: Kind,
    first: Option<i64>,
    tell: &(dyn Fn(News) + Sync),
) -> ReadResult<()> {
    let (directory, roles, people) = match kind {
        Kind::People => {
            // The roles' members are read while the members are: both
            // take a few round trips.
            let with_roles = async {
                let directory = Directory::load_for(reader, organization, &People::Nobody).await?;
                let roles = role_members(reader, &directory).await?;
                Ok::<_, ReadError>((directory, roles))
            };
            let (with_roles, people) = tokio::join!(with_roles, directory::everyone(reader, organization));
            let (directory, roles) = with_roles?;
            (directory, roles, people?)
        }
        Kind::Roles => {
            let directory = Directory::load(reader, organization).await?;
            (directory, Vec::new(), Vec::new())
        }
    };
    let projects = directory.projects.clone();
    // The order the projects are read in: `first` before the others.
    let mut order: Vec<usize> = (0..projects.len()).collect();
    if let Some(at) = first.and_then(|first| projects.iter().position(|project| project.id == first)) {
        order.remove(at);
        order.insert(0, at);
    }
    let subjects = match kind {
        Kind::People => people_rows(&people, &directory, &roles),
        Kind::Roles => role_rows(&directory),
    };
    // The cells are held until the tab is left: bounded, as a list read
    // whole is, before any project is read.
    let cells_held = [
        subjects.len(),
        column_count(),
        projects.len(),
        std::mem::size_of::<Cell>(),
    ]
    .into_iter()
    .fold(1u64, |product, factor| product.saturating_mul(factor as u64));
    let limit = reader.client().max_held();
    if cells_held > limit {
        let first = projects.first().map(|project| project.id).unwrap_or_default();
        return Err(ReadError::Api(crate::api::Error::TooMuchHeld {
            request: crate::api::error::RequestLabel {
                method: "GET".into(),
                path: format!("/api/projects/{first}/access_control_members/ and the other projects'"),
            },
            limit,
            rows: subjects.len() as u64,
        }));
    }
    let places: HashMap<String, usize> = subjects
        .iter()
        .enumerate()
        .map(|(at, subject)| (subject.id.clone(), at))
        .collect();
    // Each row's roles as (id, name), by its place: a person's, or a role
    // itself.
    let held: Vec<Vec<(String, String)>> = match kind {
        Kind::People => {
            let mut by_member: HashMap<&str, Vec<(String, String)>> = HashMap::new();
            for (role, members) in directory.roles.iter().zip(&roles) {
                for member in members {
                    by_member
                        .entry(member.as_str())
                        .or_default()
                        .push((role.id.clone(), role.name.clone()));
                }
            }
            people
                .iter()
                .map(|person| {
                    by_member
                        .remove(person.membership_id.as_str())
                        .unwrap_or_default()
                })
                .collect()
        }
        Kind::Roles => subjects
            .iter()
            .map(|role| vec![(role.id.clone(), role.name.clone())])
            .collect(),
    };
    tell(News::Framed(Box::new(Frame {
        organization: directory.organization.clone(),
        projects: projects.clone(),
        subjects,
    })));
    let rows = Rows {
        places: &places,
        held: &held,
        organization: &directory.organization,
    };
    let rows = &rows;
    // The first project is read alone, so that its cells come as soon as
    // the server can answer one project; then the rest, a few at a time.
    let mut order = order.into_iter();
    if let Some(at) = order.next()
        && let Some(project) = projects.get(at)
    {
        tell(News::Project(Box::new(
            read_project(reader, rows, kind, at, project).await?,
        )));
    }
    let reads = order.filter_map(|at| {
        let project = projects.get(at)?;
        Some(read_project(reader, rows, kind, at, project))
    });
    let mut reads = futures_util::stream::iter(reads).buffer_unordered(PROJECTS_AT_ONCE);
    while let Some(project) = reads.next().await {
        tell(News::Project(Box::new(project?)));
    }
    Ok(())
}

/// Who holds each role (by membership id, lower case), every role's
/// memberships read at once under the reader's pacing.
async fn role_members(reader: &Reader, directory: &Directory) -> ReadResult<Vec<Vec<String>>> {
    let organization = directory.organization.id.as_str();
    let reads = directory.roles.iter().map(|role| async move {
        let mut members = Vec::new();
        directory::each_role_member(reader, organization, std::slice::from_ref(role), |_, member| {
            if let Some(id) = &member.membership_id {
                members.push(id.to_lowercase());
            }
        })
        .await
        .map(|()| members)
    });
    futures_util::future::join_all(reads).await.into_iter().collect()
}

/// The people's rows, in the order `everyone` gives (by address).
fn people_rows(people: &[Person], directory: &Directory, roles: &[Vec<String>]) -> Vec<Subject> {
    let mut names: HashMap<&str, Vec<String>> = HashMap::new();
    for (role, members) in directory.roles.iter().zip(roles) {
        for member in members {
            names.entry(member.as_str()).or_default().push(role.name.clone());
        }
    }
    people
        .iter()
        .map(|person| Subject {
            id: person.membership_id.to_lowercase(),
            name: person.name.clone(),
            email: person.email.clone(),
            level: person.level_name().to_string(),
            admin: person.is_organization_admin(),
            roles: names
                .get(person.membership_id.as_str())
                .cloned()
                .unwrap_or_default(),
            members: 0,
        })
        .collect()
}

/// The roles' rows, by name.
fn role_rows(directory: &Directory) -> Vec<Subject> {
    directory
        .roles
        .iter()
        .map(|role| Subject {
            id: role.id.to_lowercase(),
            name: role.name.clone(),
            email: String::new(),
            level: String::new(),
            admin: false,
            roles: role.members.iter().map(|member| member.name.clone()).collect(),
            members: role.members.len(),
        })
        .collect()
}

/// What reading a project's rows needs of the frame.
struct Rows<'a> {
    /// Each row's place, by its id.
    places: &'a HashMap<String, usize>,
    /// The roles each row holds (a role: itself), by place.
    held: &'a [Vec<(String, String)>],
    organization: &'a Organization,
}

/// One project: its rules (to name roles and defaults), then every row's
/// cells, decoded a row at a time as the answer arrives.
async fn read_project(
    reader: &Reader,
    rows: &Rows<'_>,
    kind: Kind,
    at: usize,
    project: &ProjectRef,
) -> ReadResult<ProjectCells> {
    let id = project.id.to_string();
    let id = id.as_str();
    let mut read = ProjectCells {
        at,
        ..ProjectCells::default()
    };
    let (project_rules, resource_rules) = tokio::join!(
        reader.read(|client| async move { client.access_controls(id, AccessTarget::Project).await }),
        reader.read(|client| async move { client.resource_access_controls(id).await }),
    );
    let rules = super::project_rules(reader, id, project_rules, resource_rules, &mut read.notes).await?;
    let mut sources = Sources::default();
    let width = column_count();
    let not_listed = match kind {
        Kind::People => Unknown::not_listed(rows.organization).unknown,
        Kind::Roles => "the server does not list this role in this project".to_string(),
    };
    let unsaid = Cell {
        level: Level::UNSAID,
        source: sources.place(not_listed),
    };
    let mut cells = vec![unsaid; rows.places.len() * width];
    // A member's row that leaves a resource out: said so, not "not read yet".
    let left_out = Cell {
        level: Level::UNSAID,
        source: sources.place("the server's answer does not say this resource's level".into()),
    };
    let mut ignored = Ignored::default();
    let mut fill = |place: Option<usize>, row: Row<'_>, ignored: &mut Ignored| {
        let seen = Ignored::seen_in(
            &rules,
            &|resource| row.own_rule(&rules, resource),
            std::iter::once((PROJECT, row.project)).chain(row.resources.iter()),
            kind == Kind::Roles,
        );
        ignored.all_rules |= seen.all_rules;
        ignored.role_rules |= seen.role_rules;
        let Some(place) = place else {
            return;
        };
        let held = rows.held.get(place).map_or(&[][..], Vec::as_slice);
        let start = place * width;
        let Some(slots) = cells.get_mut(start..start + width) else {
            return;
        };
        slots.fill(left_out);
        let mut put = |resource: &str, entry: &SettingsEntry| {
            if let Some(column) = column_of(resource) {
                let (level, source) = explained(&row, &rules, held, resource, entry);
                slots[column] = Cell {
                    level,
                    source: sources.place(source),
                };
            }
        };
        put(PROJECT, row.project);
        for (resource, entry) in row.resources.iter() {
            put(resource, entry);
        }
    };
    let answer = match kind {
        Kind::People => {
            reader
                .read(|client| {
                    let (fill, ignored) = (&mut fill, &mut ignored);
                    async move {
                        client
                            .access_control_members(id, None, |row: MemberAccess| {
                                let place = rows.places.get(&row.organization_membership_id.to_lowercase());
                                fill(place.copied(), Row::member(&row), ignored);
                                Ok::<_, crate::api::Error>(())
                            })
                            .await
                    }
                })
                .await
        }
        Kind::Roles => {
            reader
                .read(|client| {
                    let (fill, ignored) = (&mut fill, &mut ignored);
                    async move {
                        client
                            .access_control_roles(id, None, |row: RoleAccess| {
                                let place = rows.places.get(&row.role_id.to_lowercase());
                                fill(place.copied(), Row::role(&row), ignored);
                                Ok::<_, crate::api::Error>(())
                            })
                            .await
                    }
                })
                .await
        }
    };
    let refused = |error: &crate::api::Error| match kind {
        Kind::People => Unknown::refused(error, rows.organization).unknown,
        Kind::Roles => Unknown::refused_role(error).unknown,
    };
    if let Err(words) = unknown_or_stop(answer, refused)? {
        read.unknown = Some(words);
        return Ok(read);
    }
    let ignored = Ignored {
        all_rules: rows
            .organization
            .access_control
            .map_or(ignored.all_rules, |has| !has),
        role_rules: rows
            .organization
            .role_based_access
            .map_or(ignored.role_rules, |has| !has),
    };
    read.notes.extend(ignored.note().map(str::to_string));
    read.defaults = columns()
        .map(|resource| {
            let (level, why) = rules.default_of(resource, !ignored.all_rules);
            let managed = match why {
                Why::Everyone => rules.terraform(None, &[], resource),
                _ => Vec::new(),
            };
            Cell {
                level: Level::of(Some(&level)),
                source: sources.place(super::review::with_terraform(
                    why.to_string(),
                    &managed,
                    rules.locked(),
                )),
            }
        })
        .collect();
    read.cells = cells;
    read.sources = sources.texts;
    Ok(read)
}

/// A row of a settings answer, a member's or a role's.
struct Row<'a> {
    /// A member's membership id, when it is a member's row.
    member: Option<&'a str>,
    /// A role's id, when it is a role's row.
    role: Option<&'a str>,
    project: &'a SettingsEntry,
    resources: &'a crate::api::access::Ordered<SettingsEntry>,
}

impl<'a> Row<'a> {
    fn member(row: &'a MemberAccess) -> Row<'a> {
        Row {
            member: Some(&row.organization_membership_id),
            role: None,
            project: &row.project,
            resources: &row.resources,
        }
    }

    fn role(row: &'a RoleAccess) -> Row<'a> {
        Row {
            member: None,
            role: Some(&row.role_id),
            project: &row.project,
            resources: &row.resources,
        }
    }

    /// The subject's own stored rule on `resource`.
    fn own_rule(&self, rules: &ProjectRules, resource: &str) -> Option<AccessLevel> {
        match (self.member, self.role) {
            (Some(member), _) => rules.member(member, resource).cloned(),
            (None, Some(role)) => rules.role(role, resource).cloned(),
            (None, None) => None,
        }
    }
}

/// A cell's level and its source in words, as `access person` and the
/// review say it (with the rules naming them that Terraform manages).
fn explained(
    row: &Row<'_>,
    rules: &ProjectRules,
    held: &[(String, String)],
    resource: &str,
    entry: &SettingsEntry,
) -> (Level, String) {
    let roles_at = |level: &AccessLevel| -> Vec<String> {
        held.iter()
            .filter(|(id, _)| rules.role(id, resource) == Some(level))
            .map(|(_, name)| name.clone())
            .collect()
    };
    let cell = explain(entry, resource, &roles_at);
    let held: Vec<(&str, &str)> = held
        .iter()
        .map(|(id, name)| (id.as_str(), name.as_str()))
        .collect();
    let managed = match cell.why {
        // An organization admin's level bypasses every rule.
        Why::OrganizationAdmin => Vec::new(),
        _ => rules.terraform(row.member, &held, resource),
    };
    let mut source = super::review::with_terraform(cell.why.to_string(), &managed, rules.locked());
    let level = Level::of(cell.level.as_ref());
    if level == Level::OTHER
        && let Some(other) = &cell.level
    {
        source = format!("{source} (level \"{}\")", crate::text::printable(other.as_str()));
    }
    (level, source)
}

/// A read stopped is no failure: what was told stays.
pub fn stopped(result: &ReadResult<()>) -> bool {
    matches!(result, Err(ReadError::Stopped))
}
