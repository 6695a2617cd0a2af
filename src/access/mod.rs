//! The organization's access, read: what each person can reach and why
//! (`person`), what a role grants (`role`), who reaches a project or an
//! object (`who`), and the snapshot of everyone's access that an access
//! review files, with what changed since the last one (`review`), and
//! the grid of everyone's (or every role's) access by project and
//! resource that the console's Access tab shows (`grid`).
//!
//! Everything here reads the levels the server resolved
//! (`effective_access_level`, `inherited_access`, `users_with_access`) and
//! never recomputes them (posthog.md 16.4, SK: "trust
//! `effective_access_level`"); the rules are read only to name the role
//! that decided, the project's defaults, and the rules that are outranked
//! (`explain`). Every request goes through one [`read::Reader`]: a few at a
//! time, paced under PostHog Cloud's limits, counted, stoppable. The CLI's
//! `access` commands print what these modules return; the console's access
//! view and person page read through them too. One rule written, the
//! CLI's `access set` and the console's `e` alike, is `rule`: what is
//! sent, the subject's rule found, the levels within bounds.

pub mod directory;
pub mod explain;
pub mod grid;
pub mod person;
pub mod preview;
pub mod read;
pub mod review;
pub mod role;
pub mod rule;
pub mod who;
pub mod words;

use serde::Serialize;

use crate::api::Error;
use crate::api::access::{AccessControls, AccessTarget};
use directory::Organization;

/// Why the server said nothing of a project, in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unknown {
    pub unknown: String,
}

impl Unknown {
    /// A refused read of a member's access.
    pub fn refused(error: &Error, organization: &Organization) -> Unknown {
        let unknown = match error.refusal() {
            Some(refusal) if refusal.status == 404 && organization.members_visible == Some(false) => {
                "hidden: the organization hides its members from each other, and the server does not \
                 show this one to you here"
                    .to_string()
            }
            Some(refusal) if refusal.status == 404 => {
                "the server does not list them in this project (404)".to_string()
            }
            Some(refusal) if refusal.status == 403 => format!(
                "not readable with this key: {}",
                crate::text::printable(if refusal.detail.is_empty() {
                    "403"
                } else {
                    &refusal.detail
                })
            ),
            _ => format!("could not be read: {error}"),
        };
        Unknown { unknown }
    }

    /// A refused read of a role's access.
    pub fn refused_role(error: &Error) -> Unknown {
        let unknown = match error.refusal() {
            Some(refusal) if refusal.status == 403 => format!(
                "not readable with this key: {}",
                crate::text::printable(if refusal.detail.is_empty() {
                    "403"
                } else {
                    &refusal.detail
                })
            ),
            _ => format!("could not be read: {error}"),
        };
        Unknown { unknown }
    }

    /// A member the server's answer leaves out.
    pub fn not_listed(organization: &Organization) -> Unknown {
        Unknown {
            unknown: if organization.members_visible == Some(false) {
                "hidden: the organization hides its members from each other, and the server does not show \
                 this one to you here"
                    .into()
            } else {
                "the server does not list them in this project".into()
            },
        }
    }
}

/// The address of an object a rule is on: a notebook by its short id,
/// anything else by its id; `None` for a resource orgdeck cannot address.
pub fn object_target<'a>(
    resource: &'a str,
    id: &'a str,
    short_id: Option<&'a str>,
) -> Option<AccessTarget<'a>> {
    crate::api::access::client::collection(resource)?;
    let key = match resource {
        "notebook" => short_id.filter(|short| !short.is_empty()).unwrap_or(id),
        _ => id,
    };
    Some(AccessTarget::Object { resource, key })
}

/// Whom a rule is for, as a key: `everyone`, `member:ID` or `role:ID`
/// (ids lower case).
pub fn subject_key(member: Option<&str>, role: Option<&str>) -> String {
    match (member, role) {
        (Some(member), _) => format!("member:{}", member.to_lowercase()),
        (None, Some(role)) => format!("role:{}", role.to_lowercase()),
        (None, None) => "everyone".to_string(),
    }
}

/// The mark of a rule Terraform manages (posthog.md 16.7), telling the
/// project's lock: "managed by Terraform" under it (a write is refused),
/// "managed by Terraform, lock off" without it (a write is still allowed).
pub fn terraform_mark(locked: bool) -> &'static str {
    if locked {
        "managed by Terraform"
    } else {
        "managed by Terraform, lock off"
    }
}

/// Who manages each rule on `objects` (resource, id, short id) when
/// another tool does (`terraform`, posthog.md 16.7): each object's
/// `access_controls`, read once, all through the reader (a few at a time).
/// Keyed by (resource, id as given, [`subject_key`]). An object whose
/// rules cannot be read is left out: nothing is said of it rather than a
/// guess; a stop stops. With it, whether the project's Terraform lock is
/// on: `known_lock` when the caller has read it already, else read only
/// when a rule is managed (a server without the endpoint has no lock).
pub async fn object_managers(
    reader: &read::Reader,
    project: &str,
    objects: &[(String, String, Option<String>)],
    known_lock: Option<bool>,
) -> read::ReadResult<(std::collections::HashMap<(String, String, String), String>, bool)> {
    let answers = futures_util::future::join_all(objects.iter().map(|(resource, id, short_id)| async move {
        let Some(target) = object_target(resource, id, short_id.as_deref()) else {
            return Ok(None);
        };
        match reader
            .read(|client| async move { client.access_controls(project, target).await })
            .await
        {
            Ok(controls) => Ok(Some(controls)),
            Err(read::ReadError::Stopped) => Err(read::ReadError::Stopped),
            Err(read::ReadError::Api(_)) => Ok(None),
        }
    }))
    .await;
    let mut managers = std::collections::HashMap::new();
    for ((resource, id, _), answer) in objects.iter().zip(answers) {
        let Some(controls) = answer? else {
            continue;
        };
        for rule in controls
            .access_controls
            .iter()
            .filter(|rule| rule.resource_id.is_some())
        {
            if let Some(manager) = rule.managed_by.clone().filter(|_| rule.is_managed()) {
                let subject = subject_key(rule.organization_member.as_deref(), rule.role.as_deref());
                managers.insert((resource.clone(), id.clone(), subject), manager);
            }
        }
    }
    if managers.is_empty() {
        return Ok((managers, false));
    }
    let locked = match known_lock {
        Some(locked) => locked,
        None => terraform_lock(reader, project).await?,
    };
    Ok((managers, locked))
}

/// A project's rules from its two answers (the project's access controls
/// and its resource access controls), as every read of access takes them:
/// when either cannot be read, the built-in defaults, with a note saying
/// so; with the project's Terraform lock read when a rule is managed.
pub(crate) async fn project_rules(
    reader: &read::Reader,
    project: &str,
    project_rules: read::ReadResult<AccessControls>,
    resource_rules: read::ReadResult<AccessControls>,
    notes: &mut Vec<String>,
) -> read::ReadResult<explain::ProjectRules> {
    let mut rules = match (
        person::unknown_or_stop(project_rules, |error| error.to_string())?,
        person::unknown_or_stop(resource_rules, |error| error.to_string())?,
    ) {
        (Ok(project), Ok(resources)) => explain::ProjectRules::new(&project, &resources),
        (Err(error), _) | (_, Err(error)) => {
            notes.push(format!(
                "the project's rules could not be read ({error}): defaults are the built-in ones and roles are not named"
            ));
            explain::ProjectRules::new(&AccessControls::default(), &AccessControls::default())
        }
    };
    if rules.has_managed() {
        rules.set_locked(terraform_lock(reader, project).await?);
    }
    Ok(rules)
}

/// Whether `project`'s Terraform lock is on (posthog.md 16.7): a write to
/// a rule Terraform manages is then refused. A server without the
/// management endpoints has no lock.
pub async fn terraform_lock(reader: &read::Reader, project: &str) -> read::ReadResult<bool> {
    match reader
        .read(|client| async move { client.management_settings(project).await })
        .await
    {
        Ok(settings) => Ok(settings.lock_terraform_managed_rules),
        Err(read::ReadError::Stopped) => Err(read::ReadError::Stopped),
        Err(read::ReadError::Api(_)) => Ok(false),
    }
}
