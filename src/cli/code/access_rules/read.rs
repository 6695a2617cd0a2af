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
use crate::cli::code::file::access::{RuleEntry, RuleSubject};
use crate::cli::connection::Connection;

/// Subjects whose object rules are read at once.
const SUBJECTS_AT_ONCE: usize = 8;

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
pub async fn read_for_preview(connection: &Connection, live: &mut Live, plan: &Plan) {
    let moves_people = plan.changes.iter().any(|change| {
        change.kind == "role"
            && (change.action == Action::Remove
                || !change.members_added.is_empty()
                || !change.members_removed.is_empty())
    });
    if live.access.world.is_some() || !moves_people {
        return;
    }
    match crate::cli::preview::Session::open(connection, Projects::All).await {
        Ok(session) => live.access.world = Some(session.read.world),
        Err(error) => tracing::info!("no preview of who gains or loses access with the plan: {error}"),
    }
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
    for (project, resource, object) in objects {
        let key = project.to_string();
        // A notebook is addressed by its short id: the rule's id is its key
        // only where the server names notebooks by id.
        let Some(target) = crate::access::object_target(&resource, &object, None) else {
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
