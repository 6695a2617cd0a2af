//! One rule written: a role's, a member's or everyone's on a project, one
//! of its resources, or one object (posthog.md 16.1-16.3). What the CLI's
//! `access set|unset` and the console's edit of a rule both send
//! ([`send`]), how they find the rule a subject has already ([`existing`],
//! [`same_subject`]), and the levels a rule on a resource may take
//! ([`offered`]: within the resource's bounds, 16.2), and what a rule is
//! before it is edited ([`current`]: its level, Terraform's hold on it,
//! the plan). No words of either front here.

use crate::api::access::levels::{self, AccessLevel, PROJECT};
use crate::api::access::{AccessControl, AccessTarget, Subject};
use crate::api::{Client, Error};

use super::directory::People;
use super::preview::World;
use super::preview::world::Projects;
use super::read::{ReadResult, Reader};

/// What a rule is on: the project, a whole resource of it, or one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum On {
    Project,
    Resource(String),
    /// An object of a resource, by the key its rules are addressed by.
    Object {
        resource: String,
        id: String,
    },
}

impl On {
    /// The resource the rule is about (`project` for the project).
    pub fn resource(&self) -> &str {
        match self {
            On::Project => PROJECT,
            On::Resource(resource) | On::Object { resource, .. } => resource,
        }
    }

    /// The `resource_id` the rule carries: the project's id for the
    /// project, the object's for an object, none for a resource.
    pub fn resource_id(&self, project: &str) -> Option<String> {
        match self {
            On::Project => Some(project.to_string()),
            On::Resource(_) => None,
            On::Object { id, .. } => Some(id.clone()),
        }
    }
}

/// Sets (`Some`) or removes (`None`) `subject`'s rule on `on` in
/// `project`: the rule as the server now holds it, `None` once removed.
pub async fn send(
    client: &Client,
    project: &str,
    on: &On,
    subject: &Subject,
    level: Option<AccessLevel>,
) -> Result<Option<AccessControl>, Error> {
    match on {
        On::Project => {
            client
                .set_access_control(project, AccessTarget::Project, subject, level)
                .await
        }
        On::Resource(resource) => {
            client
                .set_resource_access_control(project, resource, subject, level)
                .await
        }
        On::Object { resource, id } => {
            client
                .set_access_control(
                    project,
                    AccessTarget::Object { resource, key: id },
                    subject,
                    level,
                )
                .await
        }
    }
}

/// The rule `subject` has on `resource` (and `resource_id`) among `rules`.
pub fn existing<'a>(
    rules: &'a [AccessControl],
    resource: &str,
    resource_id: Option<&str>,
    subject: &Subject,
) -> Option<&'a AccessControl> {
    rules.iter().find(|rule| {
        rule.resource == resource
            && rule.resource_id.as_deref() == resource_id
            && rule.subject().is_some_and(|known| same_subject(&known, subject))
    })
}

/// Whether two subjects are the same (ids compared in any case).
pub fn same_subject(a: &Subject, b: &Subject) -> bool {
    match (a, b) {
        (Subject::Member(a), Subject::Member(b)) | (Subject::Role(a), Subject::Role(b)) => {
            a.eq_ignore_ascii_case(b)
        }
        (Subject::Everyone, Subject::Everyone) => true,
        _ => false,
    }
}

/// The levels a rule on `resource` may be set to, lowest first: the
/// resource's levels within its bounds (an action's rule not below
/// `viewer`, the toolbar's and the activity log's not above it).
pub fn offered(resource: &str) -> Vec<AccessLevel> {
    levels::levels(resource)
        .iter()
        .filter(|level| levels::level_refusal(resource, level).is_none())
        .cloned()
        .collect()
}

/// What a subject's rule on one target is now, before it is edited.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Current {
    /// The rule's level; `None`: no rule.
    pub level: Option<AccessLevel>,
    /// Terraform manages the rule (posthog.md 16.7).
    pub managed: bool,
    /// The project's Terraform lock is on: a managed rule's write is refused.
    pub locked: bool,
    /// The plan has role-based access: a role's rule can be written.
    pub role_based_access: bool,
}

impl Current {
    /// Whether the lock refuses a write to this rule.
    pub fn refused_by_lock(&self) -> bool {
        self.managed && self.locked
    }
}

/// Reads `subject`'s rule on `on` in `project` (by id), with the project's
/// Terraform lock and the organization's plan: the organization's roles
/// (not their members) and the project's rules, a few requests.
pub async fn current(
    reader: &Reader,
    organization: &str,
    project: i64,
    on: &On,
    subject: &Subject,
) -> ReadResult<Current> {
    let key = project.to_string();
    let read = World::read(reader, organization, Projects::One(&key), &People::Nobody).await?;
    let world = read.world;
    let known = world.projects.iter().find(|known| known.project.id == project);
    let resource_id = on.resource_id(&key);
    let mut rules: Vec<AccessControl> = known.map(|known| known.rules.clone()).unwrap_or_default();
    if let On::Object { resource, id } = on {
        let answer = crate::access::preview::world::object_rules(reader, &key, resource, id).await?;
        rules.extend(answer.access_controls);
    }
    let rule = existing(&rules, on.resource(), resource_id.as_deref(), subject);
    Ok(Current {
        level: rule.and_then(|rule| rule.access_level.clone()),
        managed: rule.is_some_and(AccessControl::is_managed),
        locked: known.is_some_and(|known| known.locked),
        role_based_access: world.plan.role_based_access,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_levels_within_the_bounds_are_offered() {
        assert_eq!(
            offered("project"),
            [AccessLevel::None, AccessLevel::Member, AccessLevel::Admin]
        );
        assert_eq!(offered("toolbar"), [AccessLevel::None, AccessLevel::Viewer]);
        assert_eq!(
            offered("action"),
            [AccessLevel::Viewer, AccessLevel::Editor, AccessLevel::Manager]
        );
        assert_eq!(offered("dashboard").len(), 4);
    }

    #[test]
    fn a_subject_is_the_same_in_any_case() {
        assert!(same_subject(
            &Subject::Role("AB".into()),
            &Subject::Role("ab".into())
        ));
        assert!(!same_subject(
            &Subject::Role("ab".into()),
            &Subject::Member("ab".into())
        ));
        assert!(same_subject(&Subject::Everyone, &Subject::Everyone));
    }
}
