//! Reading the server's access rules for `export --access` and `plan`:
//! each project's own and resource-wide rules and its Terraform lock
//! (through `access::preview::world`), every subject's object rules, and
//! which of those Terraform manages in a locked project.

use std::collections::{HashMap, HashSet};

use futures_util::StreamExt;

use super::LiveAccess;
use crate::access::preview::World;
use crate::access::preview::world::Projects;
use crate::access::read::{ReadError, Reader};
use crate::api::access::levels::PROJECT;
use crate::api::access::{AccessControl, Subject};
use crate::cli::code::diff::{Action, Live, Plan};
use crate::cli::code::file::CodeFile;
use crate::cli::code::file::access::{RuleEntry, RuleSubject};
use crate::cli::connection::Connection;

/// Subjects whose object rules are read at once.
const SUBJECTS_AT_ONCE: usize = 8;

/// Requests at once while the objects a plan changes are read.
const OBJECTS_AT_ONCE: usize = 4;

/// The file's name of a rule's subject (a role's name, a member's
/// address), or `None` with a note when the server's lists lack it.
type SubjectOf<'a> = dyn Fn(&Subject, &mut Vec<String>, &str) -> Option<RuleSubject> + 'a;

/// Reads every project's rules into `live` (when `wanted`), with the
/// people and roles they name.
pub async fn read_into(connection: &Connection, live: &mut Live, wanted: bool) -> anyhow::Result<()> {
    if !wanted {
        return Ok(());
    }
    let session = crate::cli::preview::Session::open(connection, Projects::All)
        .await
        .map_err(|error| anyhow::anyhow!("the access rules could not be read: {error}"))?;
    let world = session.read.world.clone();
    let mut access = LiveAccess::default();
    let role_names: HashMap<String, String> = world
        .roles
        .iter()
        .map(|role| (role.id.to_lowercase(), role.name.clone()))
        .collect();
    let emails: HashMap<String, String> = world
        .people
        .iter()
        .map(|person| (person.membership_id.to_lowercase(), person.email.clone()))
        .collect();
    access.roles = world
        .roles
        .iter()
        .map(|role| (role.name.to_lowercase(), role.id.clone()))
        .collect();
    access.people = world
        .people
        .iter()
        .map(|person| (person.email.to_lowercase(), person.membership_id.clone()))
        .collect();
    let subject_of = |subject: &Subject, notes: &mut Vec<String>, what: &str| -> Option<RuleSubject> {
        match subject {
            Subject::Everyone => Some(RuleSubject::Everyone),
            Subject::Role(id) => match role_names.get(&id.to_lowercase()) {
                Some(name) => Some(RuleSubject::Role(name.clone())),
                None => {
                    notes.push(format!("{what}: its role {id} is not in the role list; left out"));
                    None
                }
            },
            Subject::Member(id) => match emails.get(&id.to_lowercase()) {
                Some(email) => Some(RuleSubject::Member(email.clone())),
                None => {
                    notes.push(format!(
                        "{what}: its member {id} is not in the member list; left out"
                    ));
                    None
                }
            },
        }
    };
    for project in &world.projects {
        access.projects.insert(project.project.id);
        if project.locked {
            access.locked.insert(project.project.id);
        }
        for rule in &project.rules {
            let Some(entry) = entry_of(project.project.id, rule, &subject_of, &mut access.notes) else {
                continue;
            };
            access.rules.push(entry);
        }
    }
    let objects = object_rules(&session.reader, &world).await?;
    for (project, subject, rule) in objects {
        let what = format!(
            "a rule on {} {} in project {project}",
            rule.resource, rule.resource_id
        );
        let Some(subject) = subject_of(&subject, &mut access.notes, &what) else {
            continue;
        };
        let Some(level) = rule.access_level.clone() else {
            continue;
        };
        if let Some(short_id) = rule.short_id.clone().filter(|short| !short.is_empty()) {
            access
                .short_ids
                .insert((project, rule.resource_id.to_lowercase()), short_id);
        }
        access.rules.push(RuleEntry {
            project,
            resource: rule.resource.clone(),
            object: Some(rule.resource_id.clone()),
            subject,
            level,
            object_name: rule.name.clone().filter(|name| !name.is_empty()),
            managed: None,
            at: None,
        });
    }
    managed_objects(&session.reader, &mut access, &world).await?;
    access.rules.sort_by_key(RuleEntry::order);
    access.world = Some(world);
    live.access = access;
    Ok(())
}

/// For the preview of a plan whose file has no access rules but whose
/// role changes can move access (memberships, role deletions): the rules
/// read now. A server whose rules cannot be read gets no preview, said in
/// the log; the plan goes on as before previews.
/// Then the objects whose rules the plan changes are read into the
/// preview's world.
pub async fn read_for_preview(connection: &Connection, live: &mut Live, wanted: &CodeFile, plan: &Plan) {
    let moves_people = plan.changes.iter().any(|change| {
        change.kind == "role"
            && (change.action == Action::Remove
                || !change.members_added.is_empty()
                || !change.members_removed.is_empty())
    });
    if live.access.world.is_none() && moves_people {
        match crate::cli::preview::Session::open(connection, Projects::All).await {
            Ok(session) => live.access.world = Some(session.read.world),
            Err(error) => tracing::info!("no preview of who gains or loses access with the plan: {error}"),
        }
    }
    read_changed_objects(connection, live, wanted, plan).await;
}

/// An object a plan's rules change: (project, resource, id, name).
type ChangedObject = (i64, String, String, String);

/// Reads into the preview's world each object (a dashboard, an insight, a
/// notebook, a feature flag) whose rules the plan sets or removes: every
/// rule on it and its creator (`World::read_object`), so that the preview
/// says who gains and who loses on it. One that cannot be read is said
/// with the preview, which leaves it out.
async fn read_changed_objects(connection: &Connection, live: &mut Live, wanted: &CodeFile, plan: &Plan) {
    let objects = changed_objects(live, wanted, plan);
    let access = &mut live.access;
    let Some(world) = access.world.as_mut() else {
        return;
    };
    if objects.is_empty() {
        return;
    }
    let (reader, _ctrl_c) = crate::cli::access::stoppable_reader(
        connection,
        crate::access::read::ReadOptions {
            concurrency: OBJECTS_AT_ONCE,
            ..crate::access::read::ReadOptions::default()
        },
    );
    let notebooks = objects
        .iter()
        .filter(|(_, resource, _, _)| resource == "notebook")
        .map(|(project, _, id, _)| (*project, id.as_str()));
    let Some(short_ids) = notebook_addresses(&reader, &access.short_ids, notebooks, &mut world.notes).await
    else {
        return;
    };
    for (project, resource, id, name) in objects {
        let address = match resource.as_str() {
            "notebook" => match short_ids
                .get(&project)
                .and_then(|known| known.get(&id.to_lowercase()))
            {
                Some(short_id) => short_id.clone(),
                None => {
                    world.notes.push(format!(
                        "notebook {id} in project {project} was not found: who gains or loses on it is not shown"
                    ));
                    continue;
                }
            },
            _ => id.clone(),
        };
        let object = crate::access::preview::ObjectRef {
            resource: resource.clone(),
            id: id.clone(),
            name,
            creator: None,
        };
        match world.read_object_at(&reader, project, object, &address).await {
            Ok(()) => {}
            Err(ReadError::Stopped) => return,
            Err(ReadError::Api(error)) => world.notes.push(format!(
                "the rules on {resource} {id} in project {project} could not be read ({error}): who gains or loses on it is not shown"
            )),
        }
    }
}

/// The objects whose rules the plan sets or removes, each once.
fn changed_objects(live: &Live, wanted: &CodeFile, plan: &Plan) -> Vec<ChangedObject> {
    let mut objects: Vec<ChangedObject> = Vec::new();
    for (_, rule) in super::changed_rules(live, wanted, plan) {
        if rule.resource == PROJECT {
            continue;
        }
        let Some(id) = &rule.object else { continue };
        if objects.iter().any(|(project, resource, known, _)| {
            *project == rule.project && *resource == rule.resource && known == id
        }) {
            continue;
        }
        // The name the server's rules on it carry, else the server's item's.
        let name = live
            .access
            .rules
            .iter()
            .filter(|known| {
                known.project == rule.project
                    && known.resource == rule.resource
                    && known.object.as_ref() == Some(id)
            })
            .find_map(|known| known.object_name.clone())
            .unwrap_or_default();
        objects.push((rule.project, rule.resource.clone(), id.clone(), name));
    }
    objects
}

/// A rule of the project or a resource, as the file writes it.
fn entry_of(
    project: i64,
    rule: &AccessControl,
    subject_of: &SubjectOf<'_>,
    notes: &mut Vec<String>,
) -> Option<RuleEntry> {
    let level = rule.access_level.clone()?;
    let what = format!("a rule on {} in project {project}", rule.resource);
    let subject = subject_of(&rule.subject()?, notes, &what)?;
    let object = if rule.resource == PROJECT {
        None
    } else {
        rule.resource_id.clone()
    };
    Some(RuleEntry {
        project,
        resource: rule.resource.clone(),
        object,
        subject,
        level,
        object_name: None,
        managed: rule.is_managed().then(|| managed_words(rule)),
        at: None,
    })
}

fn managed_words(rule: &AccessControl) -> String {
    format!(
        "managed by {}",
        match rule.managed_by.as_deref() {
            Some("terraform") | None => "Terraform",
            Some(other) => other,
        }
    )
}

/// Every subject's object rules in every project: everyone's, each
/// role's, each member's, a few subjects at a time.
async fn object_rules(
    reader: &Reader,
    world: &World,
) -> anyhow::Result<Vec<(i64, Subject, crate::api::access::models::ObjectRule)>> {
    let mut subjects = vec![Subject::Everyone];
    subjects.extend(world.roles.iter().map(|role| Subject::Role(role.id.clone())));
    subjects.extend(
        world
            .people
            .iter()
            .map(|person| Subject::Member(person.membership_id.clone())),
    );
    let asks: Vec<(i64, Subject)> = world
        .projects
        .iter()
        .flat_map(|project| {
            subjects
                .iter()
                .map(move |subject| (project.project.id, subject.clone()))
        })
        .collect();
    let mut answers = futures_util::stream::iter(asks.into_iter().map(|(project, subject)| async move {
        let key = project.to_string();
        let key = key.as_str();
        let subject_ref = &subject;
        let found = reader
            .read(|client| async move { client.object_rules(key, subject_ref).await })
            .await;
        (project, subject, found)
    }))
    .buffered(SUBJECTS_AT_ONCE);
    let mut out = Vec::new();
    while let Some((project, subject, found)) = answers.next().await {
        let found = match found {
            Ok(found) => found,
            Err(ReadError::Stopped) => anyhow::bail!("stopped (Ctrl-C): nothing was changed"),
            Err(ReadError::Api(error)) => {
                anyhow::bail!("the object rules of project {project} could not be read whole: {error}")
            }
        };
        out.extend(
            found
                .results
                .into_iter()
                .map(|rule| (project, subject.clone(), rule)),
        );
    }
    Ok(out)
}

/// Notebooks are addressed by their short ids (posthog.md 16.3): as the
/// object rules said them, else as each project's notebook list does (read
/// once a project). `None` when Ctrl-C stopped the reads; a list that
/// cannot be read is said in `notes`, its notebooks left without address.
async fn notebook_addresses(
    reader: &Reader,
    said: &HashMap<(i64, String), String>,
    notebooks: impl Iterator<Item = (i64, &str)>,
    notes: &mut Vec<String>,
) -> Option<HashMap<i64, HashMap<String, String>>> {
    let mut short_ids: HashMap<i64, HashMap<String, String>> = HashMap::new();
    let mut listed: HashSet<i64> = HashSet::new();
    for (project, id) in notebooks {
        if let Some(short_id) = said.get(&(project, id.to_lowercase())) {
            short_ids
                .entry(project)
                .or_default()
                .insert(id.to_lowercase(), short_id.clone());
            continue;
        }
        if !listed.insert(project) {
            continue;
        }
        let list = crate::api::List::notebooks(&project.to_string());
        let list = &list;
        let found = reader
            .read(|client| async move { client.all(list, &crate::api::FetchAll::default()).await })
            .await;
        let known: HashMap<String, String> = match found {
            Ok(notebooks) => notebooks
                .into_vec()
                .into_iter()
                .map(|notebook| (notebook.id.to_lowercase(), notebook.short_id))
                .collect(),
            Err(ReadError::Stopped) => return None,
            Err(ReadError::Api(error)) => {
                notes.push(format!(
                    "the notebooks of project {project} could not be read: {error}"
                ));
                HashMap::new()
            }
        };
        short_ids.entry(project).or_default().extend(known);
    }
    Some(short_ids)
}

/// In each locked project, which object rules Terraform manages: each
/// object's own rules, read once.
async fn managed_objects(reader: &Reader, access: &mut LiveAccess, world: &World) -> anyhow::Result<()> {
    let objects: HashSet<(i64, String, String)> = access
        .rules
        .iter()
        .filter(|rule| access.locked.contains(&rule.project))
        .filter_map(|rule| {
            rule.object
                .clone()
                .map(|object| (rule.project, rule.resource.clone(), object))
        })
        .collect();
    let notebooks = objects
        .iter()
        .filter(|(_, resource, _)| resource == "notebook")
        .map(|(project, _, id)| (*project, id.as_str()));
    let Some(short_ids) = notebook_addresses(reader, &access.short_ids, notebooks, &mut access.notes).await
    else {
        anyhow::bail!("stopped (Ctrl-C): nothing was changed");
    };
    for (project, resource, object) in objects {
        let key = project.to_string();
        let short_id = short_ids
            .get(&project)
            .and_then(|known| known.get(&object.to_lowercase()))
            .map(String::as_str);
        if resource == "notebook" && short_id.is_none() {
            access.notes.push(format!(
                "whether Terraform manages the rules on notebook {object} in project {project} is unknown: the notebook is not in the project's list"
            ));
            continue;
        }
        let Some(target) = crate::access::object_target(&resource, &object, short_id) else {
            continue;
        };
        let (key, target) = (key.as_str(), target);
        let controls = match reader
            .read(|client| async move { client.access_controls(key, target).await })
            .await
        {
            Ok(controls) => controls,
            Err(ReadError::Stopped) => anyhow::bail!("stopped (Ctrl-C): nothing was changed"),
            Err(ReadError::Api(error)) => {
                access.notes.push(format!(
                    "whether Terraform manages the rules on {resource} {object} in project {project} is unknown: {error}"
                ));
                continue;
            }
        };
        for rule in controls.access_controls.iter().filter(|rule| rule.is_managed()) {
            let Some(subject) = rule.subject() else { continue };
            for entry in access.rules.iter_mut().filter(|entry| {
                entry.project == project
                    && entry.resource == resource
                    && entry.object.as_deref() == Some(object.as_str())
                    && names(world, &entry.subject, &subject)
            }) {
                entry.managed = Some(managed_words(rule));
            }
        }
    }
    Ok(())
}

/// Whether the file's subject is the server's.
fn names(world: &World, file: &RuleSubject, server: &Subject) -> bool {
    match (file, server) {
        (RuleSubject::Everyone, Subject::Everyone) => true,
        (RuleSubject::Role(name), Subject::Role(id)) => world
            .roles
            .iter()
            .any(|role| role.id.eq_ignore_ascii_case(id) && role.name.eq_ignore_ascii_case(name)),
        (RuleSubject::Member(email), Subject::Member(id)) => world
            .person(id)
            .is_some_and(|person| person.email.eq_ignore_ascii_case(email)),
        _ => false,
    }
}
