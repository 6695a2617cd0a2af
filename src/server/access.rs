//! How the reference server applies access control (posthog.md 16): the
//! plan it serves (`--no-access-control`, `--no-role-based-access`), the
//! mode organizations resolve in unless they chose one
//! (`--access-resolution`), and what a request asks of the one resolver
//! (`api::access::resolve`): the project gate every project path passes,
//! PostHog's permission checks on resources and objects, and which
//! requests speak for Terraform.

use axum::http::HeaderMap;
use axum::http::header::USER_AGENT;
use rusqlite::Connection;

use super::error::{ApiError, ApiResult};
use super::store::access as rules;
use super::store::objects::Object;
use crate::api::access::levels::{self, AccessLevel};
use crate::api::access::{Member, Mode, Plan, Principal, Resolver, RuleSet, Target};

/// What the server was asked to serve of access control.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AccessOptions {
    /// What the organizations' plan includes.
    pub plan: Plan,
    /// The mode of an organization that has not chosen one.
    pub resolution: Mode,
    /// Synthetic roles and projects with rules to add at start, for load
    /// tests (`--generate-roles`, `--generate-projects`).
    pub generate_roles: u64,
    pub generate_projects: u64,
}

impl AccessOptions {
    /// The options a flavor serves: the older docs' PostHog has no access
    /// control endpoints, so it reads no rule either.
    pub fn for_flavor(self, flavor: super::Flavor) -> AccessOptions {
        match flavor {
            super::Flavor::Current => self,
            super::Flavor::Seed => AccessOptions {
                plan: Plan {
                    access_control: false,
                    ..self.plan
                },
                ..self
            },
        }
    }
}

/// The request's view of one project: who asks, every rule, and how they
/// resolve.
pub struct Scope {
    pub organization_id: String,
    pub project_id: i64,
    project_key: String,
    pub caller: Member,
    pub rules: RuleSet,
    pub plan: Plan,
    pub mode: Mode,
    /// Whether the organization lets its members see each other.
    pub members_can_see_members: bool,
}

impl Scope {
    /// Reads the project's rules and the caller's membership (the caller's
    /// reach of the project was checked already, by `Caller::project_in`).
    pub fn load(
        connection: &Connection,
        options: AccessOptions,
        project_id: i64,
        user_id: i64,
    ) -> ApiResult<Scope> {
        let organization_id = super::store::directory::project_organization(connection, project_id)?
            .ok_or_else(ApiError::not_found)?;
        let caller = rules::member(connection, &organization_id, user_id)?
            .ok_or_else(|| ApiError::permission_denied("You don't have access to the project."))?;
        let chosen = rules::organization_access(connection, &organization_id)?;
        Ok(Scope {
            project_key: project_id.to_string(),
            project_id,
            caller,
            rules: rules::rule_set(connection, project_id)?,
            plan: options.plan,
            mode: chosen
                .most_specific
                .map_or(options.resolution, Mode::from_most_specific),
            members_can_see_members: chosen.members_can_see_members,
            organization_id,
        })
    }

    pub fn resolver(&self) -> Resolver<'_> {
        Resolver::new(&self.rules, self.plan, self.mode)
    }

    /// The caller, as the resolver names them.
    pub fn who(&self) -> Principal<'_> {
        Principal::Member(&self.caller)
    }

    /// The project, as the object its rules are on.
    pub fn project(&self) -> Target<'_> {
        Target::project(&self.project_key)
    }

    /// Whether the caller is an organization admin or owner.
    pub fn is_admin(&self) -> bool {
        self.caller.is_organization_admin()
    }

    /// PostHog's check on a resource before any object is read: the level
    /// on the whole resource, or a grant on one of its objects; else 403.
    pub fn require_resource(&self, resource: &str, required: AccessLevel) -> ApiResult<()> {
        let resolver = self.resolver();
        let level = resolver.resource(self.who(), resource).level;
        if levels::reaches(levels::deciding_resource(resource), &level, &required)
            || resolver.has_object_grant(self.who(), resource, &required)
        {
            Ok(())
        } else {
            Err(no_access(&required))
        }
    }

    /// PostHog's check on one object: the caller's level on it; else 403.
    pub fn require_object(&self, target: Target, required: AccessLevel) -> ApiResult<()> {
        if self.resolver().reaches_object(self.who(), target, &required) {
            Ok(())
        } else {
            Err(no_access(&required))
        }
    }
}

/// An object as the resolver names it.
pub fn target(object: &Object) -> Target<'_> {
    Target {
        resource: object.resource,
        id: &object.id,
        creator: object.creator(),
    }
}

/// PostHog's refusal when a level is not reached.
pub fn no_access(required: &AccessLevel) -> ApiError {
    ApiError::permission_denied(format!("You do not have {required} access to this resource."))
}

/// Whether the user reaches the project: every project path asks first
/// (posthog.md 1: "You don't have access to the project.").
pub fn reaches_project(
    connection: &Connection,
    options: AccessOptions,
    organization_id: &str,
    project_id: i64,
    user_id: i64,
) -> ApiResult<bool> {
    if !options.plan.access_control {
        return Ok(true);
    }
    let Some(member) = rules::member(connection, organization_id, user_id)? else {
        return Ok(false);
    };
    if member.is_organization_admin() {
        return Ok(true);
    }
    let project_rules = rules::project_rules(connection, project_id)?;
    if project_rules.is_empty() {
        return Ok(true);
    }
    let chosen = rules::organization_access(connection, organization_id)?;
    let mode = chosen
        .most_specific
        .map_or(options.resolution, Mode::from_most_specific);
    let key = project_id.to_string();
    Ok(Resolver::new(&project_rules, options.plan, mode)
        .reaches_project(Principal::Member(&member), Target::project(&key)))
}

/// The manager a request speaks for: Terraform, when its User-Agent is the
/// Terraform provider's (`posthog/terraform-provider 1.2.3`, or `…;
/// version: X` as the provider sends it).
pub fn manager_of(headers: &HeaderMap) -> Option<&'static str> {
    let agent = headers.get(USER_AGENT)?.to_str().ok()?;
    agent
        .trim()
        .to_ascii_lowercase()
        .starts_with("posthog/terraform-provider")
        .then_some(TERRAFORM)
}

/// The one manager PostHog knows.
pub const TERRAFORM: &str = "terraform";

/// PostHog's refusal of a change to a rule Terraform owns under the lock.
pub const LOCKED_RULE: &str = "Terraform manages this access control rule. Change it in your Terraform configuration, \
                               or turn off the Terraform lock in project settings.";

/// The projects a key lists: those its own list allows (`scoped`) that the
/// user reaches. Organization admins reach every project of their
/// organizations.
pub fn reachable_projects(
    connection: &Connection,
    options: AccessOptions,
    user_id: i64,
    scoped: &super::store::keys::Reach<i64>,
) -> ApiResult<super::store::keys::Reach<i64>> {
    use super::store::keys::Reach;
    if !options.plan.access_control {
        return Ok(scoped.clone());
    }
    let mut statement = connection.prepare_cached(
        "SELECT p.id, p.organization_id FROM projects p
           JOIN organization_members m ON m.organization_id = p.organization_id AND m.user_id = ?1
         WHERE m.level < 8 ORDER BY p.id",
    )?;
    let guarded: Vec<(i64, String)> = statement
        .query_map([user_id], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<Result<_, _>>()?;
    let mut hidden = Vec::new();
    for (project_id, organization_id) in guarded {
        if !reaches_project(connection, options, &organization_id, project_id, user_id)? {
            hidden.push(project_id);
        }
    }
    if hidden.is_empty() {
        return Ok(scoped.clone());
    }
    let mut all = connection.prepare_cached(
        "SELECT p.id FROM projects p JOIN organization_members m ON m.organization_id = p.organization_id
         WHERE m.user_id = ?1 ORDER BY p.id",
    )?;
    let visible: Vec<i64> = all
        .query_map([user_id], |row| row.get(0))?
        .collect::<Result<Vec<i64>, _>>()?
        .into_iter()
        .filter(|id| !hidden.contains(id) && scoped.allows(id))
        .collect();
    Ok(Reach::Only(visible))
}
