//! What a preview is computed from, read from the server: the organization
//! (its mode and plan), its members, its roles with their members (of a
//! change about a few people, an offboarding, a level, a role membership,
//! only theirs: the lists are walked whole and the rest let go; an
//! offboarding hands over the roles its role index read, not read again), and
//! for each project the rules on the project and on its resources
//! (`access_controls`, `resource_access_controls`) and its Terraform lock
//! (`access_control_management_settings`): three requests a project, a few
//! at a time through the [`Reader`]. Object rules are read only for the
//! object a change is about. And, after the change, the check of the
//! preview against what the server then resolves (`access_control_members`,
//! and `users_with_access` for an object).

use std::collections::HashSet;

use futures_util::StreamExt;
use reqwest::Method;

use super::{Cell, Change, Effect, Levels, ObjectRef, ProjectWorld, Roster, World, affected, all_cells};
use crate::access::directory::{self, Directory, People, ProjectRef};
use crate::access::read::{ReadError, ReadResult, Reader};
use crate::api::access::levels::{AccessLevel, PROJECT};
use crate::api::access::{AccessItem, AccessTarget, MemberAccess, Mode, Plan, SettingsEntry, Subject};

/// Projects read at once: each is three small answers.
const PROJECTS_AT_ONCE: usize = 8;

/// What was read: the directory (to find roles and projects by name) and
/// the world a preview computes from.
pub struct Read {
    pub directory: Directory,
    pub world: World,
}

/// Which projects to read.
#[derive(Debug, Clone, Copy)]
pub enum Projects<'a> {
    All,
    /// One, by id or `@current`.
    One(&'a str),
}

impl World {
    /// Reads the organization, its people and roles, and the rules of the
    /// projects asked for. Of the people, only `people` are kept (and of
    /// each role's members): a preview of a change about a few people
    /// holds what they are, whatever the size of the organization.
    pub async fn read(
        reader: &Reader,
        organization: &str,
        projects: Projects<'_>,
        people: &People,
    ) -> ReadResult<Read> {
        World::read_told(reader, organization, projects, people, &|_, _| {}).await
    }

    /// [`World::read`], telling (projects read, projects in all) as each
    /// project's rules arrive: what a console's progress line counts.
    pub async fn read_told(
        reader: &Reader,
        organization: &str,
        projects: Projects<'_>,
        people: &People,
        told: &(dyn Fn(usize, usize) + Sync),
    ) -> ReadResult<Read> {
        let (directory, people) = tokio::join!(
            Directory::load_for(reader, organization, people),
            directory::members(reader, organization, people)
        );
        World::read_rules(reader, projects, directory?, people?, told).await
    }

    /// [`World::read`] of one person whose roles were read already (an
    /// offboarding's role index, [`directory::roles_held`]): neither the
    /// roles' list nor any role's memberships are read again.
    pub async fn read_of(
        reader: &Reader,
        organization: &str,
        projects: Projects<'_>,
        person: directory::Person,
        roles: Vec<directory::RoleInfo>,
    ) -> ReadResult<Read> {
        let directory = Directory::load_with_roles(reader, organization, roles).await?;
        World::read_rules(reader, projects, directory, vec![person], &|_, _| {}).await
    }

    /// The rules of the projects asked for, with the directory and the
    /// people read.
    async fn read_rules(
        reader: &Reader,
        projects: Projects<'_>,
        directory: Directory,
        people: Vec<directory::Person>,
        told: &(dyn Fn(usize, usize) + Sync),
    ) -> ReadResult<Read> {
        let chosen: Vec<ProjectRef> = match projects {
            Projects::All => directory.projects.clone(),
            Projects::One(wanted) => match directory.project(wanted) {
                Some(project) => vec![project.clone()],
                None => {
                    let found = reader
                        .read(|client| async move { client.project(wanted).await })
                        .await?;
                    vec![ProjectRef {
                        id: found.id,
                        name: found.name,
                    }]
                }
            },
        };
        let total = chosen.len();
        told(0, total);
        let mut read =
            futures_util::stream::iter(chosen.into_iter().map(|project| project_rules(reader, project)))
                .buffered(PROJECTS_AT_ONCE);
        let mut worlds = Vec::new();
        while let Some(project) = read.next().await {
            worlds.push(project?);
            told(worlds.len(), total);
        }
        let organization_said = &directory.organization;
        let plan = Plan {
            access_control: organization_said.access_control.unwrap_or(true),
            role_based_access: organization_said.role_based_access.unwrap_or(true),
        };
        let world = World {
            people,
            roles: directory.roles.clone(),
            projects: worlds,
            plan,
            mode: organization_said.mode,
            objects: Vec::new(),
            notes: Vec::new(),
        };
        Ok(Read { directory, world })
    }

    /// Reads an object's rules into its project, and its creator, so that
    /// a change about it can be previewed.
    pub async fn read_object(&mut self, reader: &Reader, project: i64, object: ObjectRef) -> ReadResult<()> {
        let address = object.id.clone();
        self.read_object_at(reader, project, object, &address).await
    }

    /// [`World::read_object`] for an object addressed by another key than
    /// its id (a notebook by its short id).
    pub async fn read_object_at(
        &mut self,
        reader: &Reader,
        project: i64,
        object: ObjectRef,
        address: &str,
    ) -> ReadResult<()> {
        let key = project.to_string();
        let (resource, id) = (object.resource.clone(), address.to_string());
        let (rules, item) = tokio::join!(
            object_rules(reader, &key, &resource, &id),
            reader.read(|client| {
                let (key, resource, id) = (key.clone(), resource.clone(), id.clone());
                async move {
                    let collection =
                        crate::api::access::client::collection(&resource).unwrap_or("dashboards");
                    let url = client.url(&["api", "projects", &key, collection, &id]);
                    client.call::<AccessItem>(Method::GET, url, None::<&()>).await
                }
            })
        );
        let rules = rules?;
        let item = item.ok();
        // An object named by its id alone takes the name the server gives it.
        let object = match item.as_ref().and_then(|item| item.name.clone()) {
            Some(name) if object.name.is_empty() && !name.is_empty() => ObjectRef { name, ..object },
            _ => object,
        };
        let creator = item
            .and_then(|item| item.created_by)
            .map(|user| user.uuid.to_lowercase())
            .filter(|uuid| !uuid.is_empty());
        if let Some(found) = self.projects.iter_mut().find(|known| known.project.id == project) {
            found.rules.extend(
                rules
                    .access_controls
                    .into_iter()
                    .filter(|rule| rule.resource_id.as_deref() == Some(object.id.as_str())),
            );
        }
        self.objects.retain(|(at, known)| {
            !(*at == project && known.resource == object.resource && known.id == object.id)
        });
        self.objects.push((project, ObjectRef { creator, ..object }));
        Ok(())
    }
}

impl World {
    /// Reads, in each project whose Terraform lock is on, the object rules
    /// naming the role with who manages them (`access_control_role_objects`,
    /// then each object's `access_controls`), so that deleting the role can
    /// be refused before anything is sent when one of them is Terraform's.
    pub async fn read_role_objects(&mut self, reader: &Reader, role_id: &str) -> ReadResult<()> {
        let subject = Subject::Role(role_id.to_string());
        let subject = &subject;
        for project in self.projects.iter_mut().filter(|project| project.locked) {
            let project_label = project.project.label();
            let key = project.project.id.to_string();
            let key = key.as_str();
            let listed = reader
                .read(|client| async move { client.object_rules(key, subject).await })
                .await?;
            // A notebook is addressed by its short id, which the list may not say.
            let mut short_ids: Option<std::collections::HashMap<String, String>> = None;
            for object in listed.results {
                let mut short_id = object.short_id.clone().filter(|short| !short.is_empty());
                if object.resource == "notebook" && short_id.is_none() {
                    if short_ids.is_none() {
                        let list = crate::api::List::notebooks(key);
                        let list = &list;
                        let notebooks =
                            reader
                                .read(|client| async move {
                                    client.all(list, &crate::api::FetchAll::default()).await
                                })
                                .await?;
                        short_ids = Some(
                            notebooks
                                .into_vec()
                                .into_iter()
                                .map(|notebook| (notebook.id.to_lowercase(), notebook.short_id))
                                .collect(),
                        );
                    }
                    short_id = short_ids
                        .as_ref()
                        .and_then(|known| known.get(&object.resource_id.to_lowercase()).cloned());
                }
                let Some(target) =
                    crate::access::object_target(&object.resource, &object.resource_id, short_id.as_deref())
                else {
                    continue;
                };
                let controls = match reader
                    .read(|client| async move { client.access_controls(key, target).await })
                    .await
                {
                    Ok(controls) => controls,
                    Err(ReadError::Stopped) => return Err(ReadError::Stopped),
                    Err(ReadError::Api(error)) => {
                        self.notes.push(format!(
                            "whether Terraform manages the rule on {} {} in {} is unknown: {error}",
                            object.resource,
                            object.name.as_deref().unwrap_or(&object.resource_id),
                            project_label
                        ));
                        continue;
                    }
                };
                project
                    .rules
                    .extend(controls.access_controls.into_iter().filter(|rule| {
                        rule.resource_id.as_deref() == Some(object.resource_id.as_str())
                            && rule
                                .role
                                .as_deref()
                                .is_some_and(|role| role.eq_ignore_ascii_case(role_id))
                    }));
            }
        }
        Ok(())
    }
}

/// One project's rules and lock.
async fn project_rules(reader: &Reader, project: ProjectRef) -> ReadResult<ProjectWorld> {
    let key = project.id.to_string();
    let key = key.as_str();
    let (own, wide, lock) = tokio::join!(
        reader.read(|client| async move { client.access_controls(key, AccessTarget::Project).await }),
        reader.read(|client| async move { client.resource_access_controls(key).await }),
        reader.read(|client| async move { client.management_settings(key).await }),
    );
    let mut rules = own?.access_controls;
    rules.extend(
        wide?
            .access_controls
            .into_iter()
            .filter(|rule| rule.resource_id.is_none()),
    );
    // A PostHog without the management endpoints has no lock (posthog.md 16.7 UNSURE).
    let locked = match lock {
        Ok(settings) => settings.lock_terraform_managed_rules,
        Err(ReadError::Stopped) => return Err(ReadError::Stopped),
        Err(ReadError::Api(_)) => false,
    };
    Ok(ProjectWorld {
        project,
        rules,
        locked,
    })
}

/// How the server's levels after the change compare with the preview.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Checked {
    /// Levels compared.
    pub compared: usize,
    /// Projects whose access lists no longer name the person who left the
    /// organization (a change that removes someone), as previewed.
    pub unlisted: usize,
    /// Where they differ, in words.
    pub differences: Vec<String>,
    /// The mode the server's levels matched, when the organization does
    /// not say its own and they matched the other one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_mode: Option<&'static str>,
}

/// Compares the server's levels after `change` with those `after` gives,
/// for the people and projects the change could move.
pub async fn check(reader: &Reader, before: &World, change: &Change, effect: &Effect) -> ReadResult<Checked> {
    let after = before.after(change);
    let roster = Roster::of(&after);
    let people = affected(before, change);
    let removed = super::removed(change);
    let only_project = super::only_project(change);
    let _ = effect;
    let mut compared = 0;
    let mut unlisted = 0;
    let mut differences: [Vec<String>; 2] = [Vec::new(), Vec::new()];
    let modes = [after.mode(), super::other(after.mode())];
    for project in after
        .projects
        .iter()
        .filter(|project| only_project.is_none_or(|only| only == project.project.id))
    {
        let levels = Levels::new(&after, project);
        let key = project.project.id.to_string();
        let rows = server_rows(reader, &key, people.as_ref()).await?;
        if let Some(removed) = removed.as_deref()
            && !rows
                .iter()
                .any(|row| row.organization_membership_id.eq_ignore_ascii_case(removed))
        {
            unlisted += 1;
        }
        for row in &rows {
            let id = row.organization_membership_id.to_lowercase();
            if people.as_ref().is_some_and(|people| !people.contains(&id)) {
                continue;
            }
            let Some(person) = roster.person(&id) else {
                continue;
            };
            if removed.as_deref() == Some(id.as_str()) {
                differences[0].push(format!(
                    "{}: still listed in {} after leaving the organization",
                    person.label(),
                    project.project.label()
                ));
                continue;
            }
            let member = roster.member(person);
            for cell in all_cells(&[]) {
                let (resource, entry): (&str, Option<&SettingsEntry>) = match cell {
                    Cell::Project => (PROJECT, Some(&row.project)),
                    Cell::Resource(resource) => (resource, row.resources.get(resource)),
                    Cell::Object(_) => continue,
                };
                let Some(entry) = entry else { continue };
                compared += 1;
                for (at, mode) in modes.iter().enumerate() {
                    let previewed = levels.resolve(*mode, &member, cell).level;
                    if entry.effective_access_level.as_ref() != Some(&previewed) {
                        differences[at].push(difference(
                            &person.label(),
                            resource,
                            None,
                            &project.project,
                            &previewed,
                            entry.effective_access_level.as_ref(),
                        ));
                    }
                }
            }
        }
        for (_, object) in after.objects.iter().filter(|(id, _)| *id == project.project.id) {
            compared += check_object(
                reader,
                &roster,
                project,
                &levels,
                object,
                people.as_ref(),
                &modes,
                &mut differences,
            )
            .await?;
        }
    }
    let [ours, theirs] = differences;
    if before.mode.is_none() && !ours.is_empty() && theirs.is_empty() {
        return Ok(Checked {
            compared,
            unlisted,
            differences: Vec::new(),
            server_mode: Some(modes[1].as_str()),
        });
    }
    Ok(Checked {
        compared,
        unlisted,
        differences: ours,
        server_mode: None,
    })
}

/// The members' rows of a project: the affected people's one by one when
/// they are few, else the whole answer.
async fn server_rows(
    reader: &Reader,
    key: &str,
    people: Option<&HashSet<String>>,
) -> ReadResult<Vec<MemberAccess>> {
    match people {
        Some(people) if people.len() <= 8 => {
            let mut rows = Vec::new();
            for id in people {
                let id = id.as_str();
                match reader
                    .read(|client| async move { client.member_access(key, id).await })
                    .await
                {
                    Ok(Some(row)) => rows.push(row),
                    Ok(None) => {}
                    // Someone no longer in the organization is not listed.
                    Err(ReadError::Api(error)) if error.status() == Some(404) => {}
                    Err(error) => return Err(error),
                }
            }
            Ok(rows)
        }
        _ => {
            reader
                .read(|client| async move {
                    let mut rows = Vec::new();
                    client
                        .access_control_members(key, None, |row: MemberAccess| {
                            if people.is_none_or(|people| {
                                people.contains(&row.organization_membership_id.to_lowercase())
                            }) {
                                rows.push(row);
                            }
                            Ok::<_, crate::api::Error>(())
                        })
                        .await?;
                    Ok(rows)
                })
                .await
        }
    }
}

/// Compares an object's `users_with_access` with the preview.
#[allow(clippy::too_many_arguments)]
async fn check_object(
    reader: &Reader,
    roster: &Roster<'_>,
    project: &ProjectWorld,
    levels: &Levels<'_>,
    object: &ObjectRef,
    people: Option<&HashSet<String>>,
    modes: &[Mode; 2],
    differences: &mut [Vec<String>; 2],
) -> ReadResult<usize> {
    let key = project.project.id.to_string();
    let (key, resource, id) = (key.as_str(), object.resource.as_str(), object.id.as_str());
    let users = reader
        .read(|client| async move {
            client
                .users_with_access(key, AccessTarget::Object { resource, key: id })
                .await
        })
        .await?;
    let mut compared = 0;
    for person in roster.people() {
        if people.is_some_and(|people| !people.contains(&person.membership_id)) {
            continue;
        }
        let member = roster.member(person);
        let listed = users
            .users
            .iter()
            .find(|user| user.user_id.eq_ignore_ascii_case(&person.user_uuid))
            .map(|user| user.access_level.clone());
        compared += 1;
        for (at, mode) in modes.iter().enumerate() {
            // `users_with_access` lists only who reaches the project, above none.
            let reaches = crate::api::access::levels::reaches(
                PROJECT,
                &levels.resolve(*mode, &member, Cell::Project).level,
                &AccessLevel::Member,
            );
            let previewed = levels.resolve(*mode, &member, Cell::Object(object)).level;
            let expected = (reaches && previewed != AccessLevel::None).then_some(previewed.clone());
            if listed != expected {
                differences[at].push(difference(
                    &person.label(),
                    resource,
                    Some(&object.name),
                    &project.project,
                    &previewed,
                    listed.as_ref(),
                ));
            }
        }
    }
    Ok(compared)
}

fn difference(
    who: &str,
    resource: &str,
    object: Option<&str>,
    project: &ProjectRef,
    previewed: &AccessLevel,
    server: Option<&AccessLevel>,
) -> String {
    let thing = match object {
        Some(name) => format!("\"{name}\""),
        None if resource == PROJECT => "the project".into(),
        None => crate::api::access::levels::display_name(resource),
    };
    format!(
        "{who}: {thing} in {}: previewed {previewed}, the server says {}",
        project.label(),
        server.map_or("nothing (not listed)", AccessLevel::as_str)
    )
}

/// The rules on one object (a dashboard, an insight, …) of a project, as
/// the server lists them.
pub(crate) async fn object_rules(
    reader: &Reader,
    project: &str,
    resource: &str,
    id: &str,
) -> ReadResult<crate::api::access::AccessControls> {
    reader
        .read(|client| async move {
            client
                .access_controls(project, AccessTarget::Object { resource, key: id })
                .await
        })
        .await
}
