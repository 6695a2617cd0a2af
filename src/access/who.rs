//! Who can reach a thing: everyone the server lists in `users_with_access`
//! for a project, a dashboard, an insight or a feature flag, their level,
//! and how they got it, named (people by name and address, roles by name).

use serde::Serialize;

use super::directory::{Directory, Person, ProjectRef};
use super::read::{ReadError, Reader};
use crate::api::access::levels::{self, AccessLevel, PROJECT};
use crate::api::access::{AccessControls, AccessSource, AccessTarget, FeatureFlag};
use crate::api::{FetchAll, List};

/// What is asked about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Thing {
    Project,
    /// A dashboard, by id or name.
    Dashboard(String),
    /// An insight, by id, short id or name.
    Insight(String),
    /// A feature flag, by id, key or name.
    FeatureFlag(String),
}

/// The thing found: its resource, its id (what its address uses) and name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Found {
    pub resource: String,
    pub id: String,
    pub name: String,
}

/// Everything `access who` tells.
#[derive(Debug, Clone, Serialize)]
pub struct WhoAccess {
    pub project: ProjectRef,
    pub target: Found,
    /// The server's count.
    pub total_count: u64,
    /// Highest level first, then by name.
    pub users: Vec<WhoLine>,
}

/// One person who reaches the thing.
#[derive(Debug, Clone, Serialize)]
pub struct WhoLine {
    pub email: String,
    pub name: String,
    pub user_uuid: String,
    pub membership_id: Option<String>,
    /// `member`, `admin` or `owner`.
    pub organization_level: Option<String>,
    pub level: AccessLevel,
    pub source: AccessSource,
    /// How, in words: "role Finance (viewer)", "own rule (editor, managed
    /// by Terraform)", "organization admin".
    pub how: String,
    /// Who manages the rule that decided, when another tool does
    /// (`terraform`, posthog.md 16.7).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub managed_by: Option<String>,
}

/// Why the thing could not be asked about.
#[derive(Debug, thiserror::Error)]
pub enum WhoError {
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error("{0}")]
    NotFound(String),
}

impl From<crate::api::Error> for WhoError {
    fn from(error: crate::api::Error) -> Self {
        WhoError::Read(ReadError::Api(error))
    }
}

impl WhoAccess {
    pub async fn read(
        reader: &Reader,
        directory: &Directory,
        project: &str,
        thing: &Thing,
    ) -> Result<WhoAccess, WhoError> {
        let found = find(reader, directory, project, thing).await?;
        let target = match found.resource.as_str() {
            PROJECT => AccessTarget::Project,
            resource => AccessTarget::Object {
                resource,
                key: &found.id,
            },
        };
        let organization = directory.organization.id.as_str();
        let users = reader.read(|client| async move { client.users_with_access(project, target).await });
        let rules = reader.read(|client| async move { client.access_controls(project, target).await });
        let lock = reader.read(|client| async move { client.management_settings(project).await });
        let people = super::directory::everyone(reader, organization);
        let (users, rules, lock, people) = tokio::join!(users, rules, lock, people);
        let (users, people) = (users?, people?);
        // A PostHog without the management endpoints has no lock (posthog.md 16.7 UNSURE).
        let locked = match lock {
            Ok(settings) => settings.lock_terraform_managed_rules,
            Err(ReadError::Stopped) => return Err(ReadError::Stopped.into()),
            Err(ReadError::Api(_)) => false,
        };
        // The rules name roles; without them, "a role" is said.
        let rules = rules.unwrap_or_default();
        let mut lines: Vec<WhoLine> = users
            .users
            .into_iter()
            .map(|user| {
                let person = people.iter().find(|person| {
                    person.user_uuid.eq_ignore_ascii_case(&user.user_id)
                        || user
                            .organization_membership_id
                            .as_deref()
                            .is_some_and(|id| id.eq_ignore_ascii_case(&person.membership_id))
                });
                let (how, managed_by) = how(directory, &rules, locked, person, &found, &user.access_source);
                WhoLine {
                    email: person.map(|person| person.email.clone()).unwrap_or_default(),
                    name: person.map(|person| person.name.clone()).unwrap_or_default(),
                    user_uuid: user.user_id,
                    membership_id: user.organization_membership_id,
                    organization_level: user.organization_membership_level,
                    level: user.access_level,
                    source: user.access_source,
                    how,
                    managed_by,
                }
            })
            .collect();
        let resource = found.resource.clone();
        lines.sort_by(|a, b| {
            let rank = |line: &WhoLine| levels::rank(&resource, &line.level).map_or(-1, |rank| rank as i64);
            rank(b)
                .cmp(&rank(a))
                .then_with(|| a.name.to_lowercase().cmp(&b.name.to_lowercase()))
                .then_with(|| a.email.cmp(&b.email))
                .then_with(|| a.user_uuid.cmp(&b.user_uuid))
        });
        let project = match directory.project(project) {
            Some(known) => known.clone(),
            // `@current`, or a project the key does not list: as the server names it.
            None => match reader
                .read(|client| async move { client.project(project).await })
                .await
            {
                Ok(found) => ProjectRef {
                    id: found.id,
                    name: found.name,
                },
                Err(_) => ProjectRef {
                    id: project.parse().unwrap_or_default(),
                    name: format!("project {project}"),
                },
            },
        };
        Ok(WhoAccess {
            project,
            target: found,
            total_count: users.total_count,
            users: lines,
        })
    }
}

/// How someone reaches the thing, in words, and who manages the rules
/// that gave it when another tool does ("terraform"); `locked` is the
/// project's Terraform lock, which the mark tells.
fn how(
    directory: &Directory,
    rules: &AccessControls,
    locked: bool,
    person: Option<&Person>,
    found: &Found,
    source: &AccessSource,
) -> (String, Option<String>) {
    let rule_of = |pick: &dyn Fn(&crate::api::access::AccessControl) -> bool| {
        rules
            .access_controls
            .iter()
            .find(|rule| pick(rule) && rule.access_level.is_some())
    };
    // "LEVEL" or "LEVEL, managed by Terraform" ("…, lock off" without the lock).
    let mark = super::terraform_mark(locked);
    let said = |rule: &crate::api::access::AccessControl| match &rule.access_level {
        Some(level) if rule.is_managed() => format!("{level}, {mark}"),
        Some(level) => level.to_string(),
        None => String::new(),
    };
    let manager =
        |rule: &crate::api::access::AccessControl| rule.managed_by.clone().filter(|_| rule.is_managed());
    match source {
        AccessSource::Creator => ("created it".into(), None),
        AccessSource::OrganizationAdmin => ("organization admin".into(), None),
        AccessSource::ExplicitMember => match person.and_then(|person| {
            rule_of(&|rule| {
                rule.organization_member
                    .as_deref()
                    .is_some_and(|id| id.eq_ignore_ascii_case(&person.membership_id))
            })
        }) {
            Some(rule) => (format!("own rule ({})", said(rule)), manager(rule)),
            None => ("own rule".into(), None),
        },
        AccessSource::ExplicitRole => {
            let named: Vec<(String, Option<String>)> = person
                .map(|person| {
                    directory
                        .roles_of(person)
                        .into_iter()
                        .filter_map(|role| {
                            rule_of(&|rule| {
                                rule.role
                                    .as_deref()
                                    .is_some_and(|id| id.eq_ignore_ascii_case(&role.id))
                            })
                            .map(|rule| (format!("role {} ({})", role.name, said(rule)), manager(rule)))
                        })
                        .collect()
                })
                .unwrap_or_default();
            if named.is_empty() {
                ("a role's rule".into(), None)
            } else {
                let managed = named.iter().find_map(|(_, managed)| managed.clone());
                let words: Vec<String> = named.into_iter().map(|(words, _)| words).collect();
                (words.join(", "), managed)
            }
        }
        // PostHog names any rule of a member's own on the project
        // `project_admin`, whatever its level (get_access_source_for_object):
        // say what it is, not that they are its admin.
        AccessSource::ProjectAdmin => {
            let own = person.and_then(|person| {
                rule_of(&|rule| {
                    rule.organization_member
                        .as_deref()
                        .is_some_and(|id| id.eq_ignore_ascii_case(&person.membership_id))
                })
            });
            match own {
                Some(rule) if rule.is_managed() => {
                    (format!("their own rule on the project ({mark})"), manager(rule))
                }
                _ => ("their own rule on the project".into(), None),
            }
        }
        AccessSource::Default if found.resource == PROJECT => {
            match rule_of(&|rule| rule.organization_member.is_none() && rule.role.is_none()) {
                Some(rule) => (format!("everyone ({})", said(rule)), manager(rule)),
                None => ("built-in default".into(), None),
            }
        }
        AccessSource::Default => (
            format!(
                "the project's level on {} (no rule on it names them)",
                levels::display_name(&found.resource)
            ),
            None,
        ),
        AccessSource::Other(other) => (other.clone(), None),
    }
}

/// Finds the thing in the project: by id, short id, key or exact name (any
/// case); an ambiguous or unknown name is refused, naming what was found.
pub async fn find(
    reader: &Reader,
    directory: &Directory,
    project: &str,
    thing: &Thing,
) -> Result<Found, WhoError> {
    let (resource, wanted) = match thing {
        Thing::Project => {
            let name = directory
                .project(project)
                .map(|project| project.name.clone())
                .unwrap_or_else(|| format!("project {project}"));
            return Ok(Found {
                resource: PROJECT.into(),
                id: project.to_string(),
                name,
            });
        }
        Thing::Dashboard(wanted) => ("dashboard", wanted.trim()),
        Thing::Insight(wanted) => ("insight", wanted.trim()),
        Thing::FeatureFlag(wanted) => ("feature_flag", wanted.trim()),
    };
    if resource == "feature_flag" {
        let list = List::feature_flags(project);
        let flags: Vec<FeatureFlag> = reader
            .read(|client| async move { client.all(&list, &FetchAll::default()).await })
            .await?
            .into_vec();
        let matches: Vec<&FeatureFlag> = flags
            .iter()
            .filter(|flag| flag.id.to_string() == wanted || flag.key == wanted)
            .chain(flags.iter().filter(|flag| flag.name.eq_ignore_ascii_case(wanted)))
            .collect();
        return match matches.first() {
            Some(flag) => Ok(Found {
                resource: resource.into(),
                id: flag.id.to_string(),
                name: flag.key.clone(),
            }),
            None => Err(WhoError::NotFound(format!(
                "no feature flag with the id, key or name \"{}\" in project {project}",
                crate::text::printable(wanted)
            ))),
        };
    }
    let by_id = reader
        .read(|client| async move { client.search_objects(project, resource, None, Some(wanted)).await })
        .await;
    if let Ok(found) = &by_id
        && let Some(object) = found.results.first()
    {
        return Ok(Found {
            resource: resource.into(),
            id: object.id.clone(),
            name: object.name.clone().unwrap_or_default(),
        });
    }
    if let Err(ReadError::Stopped) = by_id {
        return Err(ReadError::Stopped.into());
    }
    let found = reader
        .read(|client| async move { client.search_objects(project, resource, Some(wanted), None).await })
        .await?;
    let exact: Vec<_> = found
        .results
        .iter()
        .filter(|object| {
            object
                .name
                .as_deref()
                .is_some_and(|name| name.eq_ignore_ascii_case(wanted))
        })
        .collect();
    let what = levels::display_name(resource);
    match exact.as_slice() {
        [one] => Ok(Found {
            resource: resource.into(),
            id: one.id.clone(),
            name: one.name.clone().unwrap_or_default(),
        }),
        [] => {
            let near: Vec<String> = found
                .results
                .iter()
                .take(5)
                .map(|object| format!("{} ({})", object.name.as_deref().unwrap_or_default(), object.id))
                .collect();
            Err(WhoError::NotFound(
                crate::text::printable(&format!(
                    "none of the {what} you can see in project {project} is called \"{wanted}\"{}",
                    if near.is_empty() {
                        String::new()
                    } else {
                        format!("; found: {}", near.join(", "))
                    }
                ))
                .into_owned(),
            ))
        }
        several => Err(WhoError::NotFound(
            crate::text::printable(&format!(
                "several {what} are called \"{wanted}\": {}; give the id",
                several
                    .iter()
                    .map(|object| object.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
            .into_owned(),
        )),
    }
}
