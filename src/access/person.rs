//! A person's access across the organization's projects: in each, their
//! project level and why, every resource whose level is not the project's
//! default (or that a rule naming them or their roles is about), and every
//! object rule that names them or their roles with the level the server
//! gives them on that object. Asked per member (`?member_id=`), so each
//! answer is a few KB however large the organization.

use serde::Serialize;

use super::directory::{Directory, Organization, Person, ProjectRef, RoleInfo};
use super::explain::{Cell, Ignored, ProjectRules, Why, explain};
use super::read::{ReadError, ReadResult, Reader};
use super::{Unknown, object_target};
use crate::api::access::levels::{AccessLevel, PROJECT};
use crate::api::access::{AccessSource, AccessTarget, MemberAccess, ObjectRule, SettingsEntry, Subject};

/// A role, by id and name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RoleRef {
    pub id: String,
    pub name: String,
}

/// Everything `access person` tells.
#[derive(Debug, Clone, Serialize)]
pub struct PersonAccess {
    pub person: Person,
    pub roles: Vec<RoleRef>,
    pub organization: Organization,
    pub projects: Vec<ProjectAccess>,
}

/// One project of a person's access.
#[derive(Debug, Clone, Serialize)]
pub struct ProjectAccess {
    pub project: ProjectRef,
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// What the server said of a project, or why it said nothing.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Outcome {
    Known(Box<Known>),
    Unknown(Unknown),
}

/// A project whose answers were read.
#[derive(Debug, Clone, Serialize)]
pub struct Known {
    /// What the answers show of the plan, or what could not be read.
    pub notes: Vec<String>,
    #[serde(rename = "project_level")]
    pub project: Line,
    /// The resources whose level is not the project's default, or that a
    /// rule naming them or their roles is about, in PostHog's order.
    pub resources: Vec<Line>,
    /// The other resources: at the project's default, by level.
    pub others: Vec<Others>,
    pub object_rules: Vec<ObjectLine>,
}

/// The resources at one default level.
#[derive(Debug, Clone, Serialize)]
pub struct Others {
    pub level: AccessLevel,
    pub why: Why,
    pub resources: Vec<String>,
}

/// A level on the project or a resource, why, and against what.
#[derive(Debug, Clone, Serialize)]
pub struct Line {
    /// `project`, or a resource.
    pub resource: String,
    #[serde(flatten)]
    pub cell: Cell,
    /// The project's default: everyone's rule, else the built-in default.
    pub default: AccessLevel,
    pub default_why: Why,
    /// Rules naming them or their roles that do not decide.
    pub outranked: Vec<RuleNote>,
    /// The server's cell, as sent.
    pub server: SettingsEntry,
    /// The rules of this line Terraform manages ("own rule", "role NAME",
    /// "everyone"), said wherever the line is shown.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub terraform: Vec<String>,
    /// Whether the project's Terraform lock is on (only said when a rule
    /// of the line is managed): without it a write is still allowed.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub terraform_lock: bool,
}

/// A rule that applies but does not decide.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RuleNote {
    /// "own rule" or "role NAME".
    pub by: String,
    pub level: AccessLevel,
}

/// A rule on one object that names them or one of their roles.
#[derive(Debug, Clone, Serialize)]
pub struct ObjectLine {
    pub resource: String,
    pub resource_id: String,
    pub name: Option<String>,
    pub short_id: Option<String>,
    /// The rule's level.
    pub rule: Option<AccessLevel>,
    /// "own rule" or "role NAME".
    pub by: String,
    /// What the server gives them on the object (`users_with_access`):
    /// `none` when it does not list them; `None` when it could not say.
    pub effective: Option<AccessLevel>,
    pub effective_source: Option<AccessSource>,
    pub effective_unknown: Option<String>,
    /// Who manages the rule when another tool does (`terraform`,
    /// posthog.md 16.7).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub managed_by: Option<String>,
    /// Whether the project's Terraform lock is on (only said when the rule
    /// is managed): without it a write is still allowed.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub terraform_lock: bool,
}

impl PersonAccess {
    /// Reads the person's access in `projects` (all the directory's when
    /// `None`), a project's requests all at once, as many projects at a
    /// time as the reader allows; `done` hears (projects read, in all).
    pub async fn read(
        reader: &Reader,
        directory: &Directory,
        person: Person,
        projects: Option<Vec<ProjectRef>>,
        done: &(dyn Fn(usize, usize) + Sync),
    ) -> ReadResult<PersonAccess> {
        let held: Vec<&RoleInfo> = directory.roles_of(&person);
        let projects = projects.unwrap_or_else(|| directory.projects.clone());
        let total = projects.len();
        let finished = std::sync::atomic::AtomicUsize::new(0);
        let reads = projects.into_iter().map(|project| {
            let (person, held, finished) = (&person, &held, &finished);
            async move {
                let outcome = project_access(reader, &directory.organization, person, held, &project).await;
                let now = finished.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                done(now, total);
                outcome.map(|outcome| ProjectAccess { project, outcome })
            }
        });
        let projects = futures_util::future::join_all(reads)
            .await
            .into_iter()
            .collect::<ReadResult<Vec<_>>>()?;
        Ok(PersonAccess {
            roles: held
                .iter()
                .map(|role| RoleRef {
                    id: role.id.clone(),
                    name: role.name.clone(),
                })
                .collect(),
            person,
            organization: directory.organization.clone(),
            projects,
        })
    }
}

/// Why who reaches an object is not known, in words. PostHog answers 404
/// for an object its lists hide from the key's user (every rule that could
/// reach them on it is `none`, posthog.md §16.6), which is not that the
/// object is gone: the rule read from the rules' list says it exists.
fn object_unreadable(error: &crate::api::Error) -> String {
    if error.status() == Some(404) {
        "hidden from this key's user (no rule lets them see it), so who reaches it cannot be read".into()
    } else {
        error.to_string()
    }
}

/// Turns a failed read into words, or passes a stop on.
pub(super) fn unknown_or_stop<T>(
    result: ReadResult<T>,
    words: impl FnOnce(&crate::api::Error) -> String,
) -> ReadResult<Result<T, String>> {
    match result {
        Ok(value) => Ok(Ok(value)),
        Err(ReadError::Stopped) => Err(ReadError::Stopped),
        Err(ReadError::Api(error)) => Ok(Err(words(&error))),
    }
}

async fn project_access(
    reader: &Reader,
    organization: &Organization,
    person: &Person,
    held: &[&RoleInfo],
    project: &ProjectRef,
) -> ReadResult<Outcome> {
    let id = project.id.to_string();
    let id = id.as_str();
    let member = person.membership_id.as_str();
    let row = reader.read(|client| async move { client.member_access(id, member).await });
    let project_rules =
        reader.read(|client| async move { client.access_controls(id, AccessTarget::Project).await });
    let resource_rules = reader.read(|client| async move { client.resource_access_controls(id).await });
    let own_objects = reader.read(|client| async move {
        client
            .object_rules(id, &Subject::Member(member.to_string()))
            .await
    });
    let role_objects = futures_util::future::join_all(held.iter().map(|role| {
        let role_id = role.id.as_str();
        reader.read(move |client| async move {
            client.object_rules(id, &Subject::Role(role_id.to_string())).await
        })
    }));
    let (row, project_rules, resource_rules, own_objects, role_objects) =
        tokio::join!(row, project_rules, resource_rules, own_objects, role_objects);
    let row = match unknown_or_stop(row, |error| Unknown::refused(error, organization).unknown)? {
        Ok(Some(row)) => row,
        Ok(None) => return Ok(Outcome::Unknown(Unknown::not_listed(organization))),
        Err(words) => return Ok(Outcome::Unknown(Unknown { unknown: words })),
    };
    let mut notes = Vec::new();
    let rules = super::project_rules(reader, id, project_rules, resource_rules, &mut notes).await?;
    let ignored = ignored_for(organization, &rules, person, &row);
    notes.extend(ignored.note().map(str::to_string));
    let known = lines(&rules, ignored, person, held, &row);
    let mut object_rules = Vec::new();
    match unknown_or_stop(own_objects, |error| error.to_string())? {
        Ok(found) => object_rules.extend(found.results.into_iter().map(|rule| {
            (
                rule,
                "own rule".to_string(),
                super::subject_key(Some(member), None),
            )
        })),
        Err(error) => notes.push(format!("their own object rules could not be read: {error}")),
    }
    for (role, found) in held.iter().zip(role_objects) {
        match unknown_or_stop(found, |error| error.to_string())? {
            Ok(found) => object_rules.extend(found.results.into_iter().map(|rule| {
                let subject = super::subject_key(None, Some(&role.id));
                (rule, format!("role {}", role.name), subject)
            })),
            Err(error) => notes.push(format!(
                "role {}'s object rules could not be read: {error}",
                role.name
            )),
        }
    }
    let known_lock = rules.has_managed().then_some(rules.locked());
    let object_rules = objects_with_effect(reader, id, person, object_rules, known_lock).await?;
    Ok(Outcome::Known(Box::new(Known {
        notes,
        project: known.0,
        resources: known.1,
        others: known.2,
        object_rules,
    })))
}

/// What the plan leaves out, as the organization says or the answers show.
fn ignored_for(
    organization: &Organization,
    rules: &ProjectRules,
    person: &Person,
    row: &MemberAccess,
) -> Ignored {
    let seen = Ignored::seen_in(
        rules,
        &|resource| rules.member(&person.membership_id, resource).cloned(),
        std::iter::once((PROJECT, &row.project)).chain(row.resources.iter()),
        false,
    );
    Ignored {
        all_rules: organization.access_control.map_or(seen.all_rules, |has| !has),
        role_rules: organization.role_based_access.map_or(seen.role_rules, |has| !has),
    }
}

/// The project's line, the resources' lines worth telling, and the rest by
/// default level.
fn lines(
    rules: &ProjectRules,
    ignored: Ignored,
    person: &Person,
    held: &[&RoleInfo],
    row: &MemberAccess,
) -> (Line, Vec<Line>, Vec<Others>) {
    let line = |resource: &str, entry: &SettingsEntry| -> (Line, bool) {
        let roles_at = |level: &AccessLevel| -> Vec<String> {
            held.iter()
                .filter(|role| rules.role(&role.id, resource) == Some(level))
                .map(|role| role.name.clone())
                .collect()
        };
        let cell = explain(entry, resource, &roles_at);
        let (default, default_why) = rules.default_of(resource, !ignored.all_rules);
        let mut outranked = Vec::new();
        if let Some(own) = &cell.own
            && cell.why != Why::OwnRule
        {
            outranked.push(RuleNote {
                by: "own rule".into(),
                level: own.clone(),
            });
        }
        let deciding = match &cell.why {
            Why::Roles(names) => names.clone(),
            _ => Vec::new(),
        };
        let mut named = false;
        for role in held {
            if let Some(level) = rules.role(&role.id, resource) {
                named = true;
                if !deciding.contains(&role.name) {
                    outranked.push(RuleNote {
                        by: format!("role {}", role.name),
                        level: level.clone(),
                    });
                }
            }
        }
        let worth = cell.level.as_ref() != Some(&default) || cell.own.is_some() || named;
        let roles: Vec<(&str, &str)> = held
            .iter()
            .map(|role| (role.id.as_str(), role.name.as_str()))
            .collect();
        let terraform = rules.terraform(Some(&person.membership_id), &roles, resource);
        (
            Line {
                resource: resource.to_string(),
                cell,
                default,
                default_why,
                outranked,
                server: entry.clone(),
                terraform_lock: rules.locked() && !terraform.is_empty(),
                terraform,
            },
            worth,
        )
    };
    let (project, _) = line(PROJECT, &row.project);
    let mut resources = Vec::new();
    let mut others: Vec<Others> = Vec::new();
    for (resource, entry) in row.resources.iter() {
        let (line, worth) = line(resource, entry);
        if worth {
            resources.push(line);
        } else {
            match others
                .iter_mut()
                .find(|others| others.level == line.default && others.why == line.default_why)
            {
                Some(others) => others.resources.push(resource.to_string()),
                None => others.push(Others {
                    level: line.default,
                    why: line.default_why,
                    resources: vec![resource.to_string()],
                }),
            }
        }
    }
    let _ = person;
    (project, resources, others)
}

/// Each object rule with what the server gives the person on its object.
async fn objects_with_effect(
    reader: &Reader,
    project: &str,
    person: &Person,
    mut rules: Vec<(ObjectRule, String, String)>,
    known_lock: Option<bool>,
) -> ReadResult<Vec<ObjectLine>> {
    rules.sort_by(|(a, a_by, _), (b, b_by, _)| {
        (
            a.resource.as_str(),
            a.name.as_deref().unwrap_or_default().to_lowercase(),
            a.resource_id.as_str(),
            a_by,
        )
            .cmp(&(
                b.resource.as_str(),
                b.name.as_deref().unwrap_or_default().to_lowercase(),
                b.resource_id.as_str(),
                b_by,
            ))
    });
    // Rules name a notebook by its uuid; its address is its short id.
    if rules
        .iter()
        .any(|(rule, _, _)| rule.resource == "notebook" && rule.short_id.as_deref().is_none_or(str::is_empty))
    {
        let list = crate::api::List::notebooks(project);
        let found = reader
            .read(|client| async move { client.all(&list, &crate::api::FetchAll::default()).await })
            .await;
        if let Ok(Ok(notebooks)) = unknown_or_stop(found, |error| error.to_string()) {
            for (rule, _, _) in rules
                .iter_mut()
                .filter(|(rule, _, _)| rule.resource == "notebook")
            {
                if let Some(notebook) = notebooks.iter().find(|notebook| notebook.id == rule.resource_id) {
                    rule.short_id = Some(notebook.short_id.clone());
                }
            }
        }
    }
    // One question per object, however many rules it has.
    let mut objects: Vec<(String, String, Option<String>)> = rules
        .iter()
        .map(|(rule, _, _)| {
            (
                rule.resource.clone(),
                rule.resource_id.clone(),
                rule.short_id.clone(),
            )
        })
        .collect();
    objects.dedup();
    let effects = futures_util::future::join_all(objects.iter().map(
        |(resource, resource_id, short_id)| async move {
            let Some(target) = object_target(resource, resource_id, short_id.as_deref()) else {
                return Ok(Err("orgdeck cannot address this kind of object".to_string()));
            };
            let answer = reader
                .read(|client| async move { client.users_with_access(project, target).await })
                .await;
            unknown_or_stop(answer, object_unreadable)
        },
    ));
    let managers = super::object_managers(reader, project, &objects, known_lock);
    let (answers, managers) = tokio::join!(effects, managers);
    let (managers, locked) = managers?;
    let mut effects = Vec::with_capacity(objects.len());
    for answer in answers {
        effects.push(answer?);
    }
    Ok(rules
        .into_iter()
        .map(|(rule, by, subject)| {
            let managed_by = managers
                .get(&(rule.resource.clone(), rule.resource_id.clone(), subject))
                .cloned();
            let at = objects
                .iter()
                .position(|(resource, id, _)| *resource == rule.resource && *id == rule.resource_id);
            let effect = at.and_then(|at| effects.get(at));
            let (effective, effective_source, effective_unknown) = match effect {
                Some(Ok(users)) => match users.users.iter().find(|user| {
                    user.organization_membership_id
                        .as_deref()
                        .map(str::to_lowercase)
                        .as_deref()
                        == Some(person.membership_id.as_str())
                        || user.user_id.eq_ignore_ascii_case(&person.user_uuid)
                }) {
                    Some(user) => (
                        Some(user.access_level.clone()),
                        Some(user.access_source.clone()),
                        None,
                    ),
                    None => (Some(AccessLevel::None), None, None),
                },
                Some(Err(error)) => (None, None, Some(error.clone())),
                None => (None, None, Some("not asked".to_string())),
            };
            ObjectLine {
                resource: rule.resource,
                resource_id: rule.resource_id,
                name: rule.name,
                short_id: rule.short_id,
                rule: rule.access_level,
                by,
                effective,
                effective_source,
                effective_unknown,
                terraform_lock: locked && managed_by.is_some(),
                managed_by,
            }
        })
        .collect())
}
