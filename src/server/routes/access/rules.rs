//! A rule write, as PostHog's `AccessControlSerializer` validates it and
//! `upsert_access_control` makes it (posthog.md 16.2, its tests' texts):
//! the fields in DRF's order (the first error is the one answered), then
//! the checks of the whole rule, then an upsert on (resource, object,
//! member, role) that Terraform's lock may refuse (16.7).

use rusqlite::Connection;
use serde_json::{Map, Value};

use crate::api::access::levels::{self, AccessLevel};
use crate::api::access::{AccessControl, Subject, Target};
use crate::server::access::{LOCKED_RULE, Scope};
use crate::server::error::{ApiError, ApiResult};
use crate::server::fields::{self, Field};
use crate::server::store::access::{self as store, Write};

/// The most objects of one resource in a project that may carry rules.
pub const MAX_OBJECTS_WITH_RULES: u64 = 1000;

/// A rule asked for, its fields valid.
#[derive(Debug, Clone)]
pub struct Requested {
    /// `None` removes the rule.
    pub level: Option<AccessLevel>,
    pub resource: String,
    pub resource_id: Option<String>,
    pub subject: Subject,
}

/// What the body's own `resource` is, for the level's check: the text sent,
/// when it is text (PostHog reads `initial_data["resource"]`).
fn resource_sent(body: &Map<String, Value>) -> Option<String> {
    match body.get("resource") {
        Some(Value::String(text)) => Some(text.clone()),
        Some(Value::Number(number)) => Some(number.to_string()),
        _ => None,
    }
}

/// Reads the fields in DRF's order: `access_level`, `resource`,
/// `resource_id`, `organization_member`, `role`.
pub fn fields(connection: &Connection, body: &Map<String, Value>) -> ApiResult<Requested> {
    let level = match fields::checked_string(body, "access_level", None, false)? {
        Field::Absent => return Err(ApiError::required("access_level")),
        Field::Null => None,
        Field::Value(text) => {
            let level = AccessLevel::from_wire(&text);
            if let Some(resource) = resource_sent(body)
                && let Some(refusal) = levels::level_refusal(&resource, &level)
            {
                return Err(ApiError::validation("invalid", refusal).on("access_level"));
            }
            Some(level)
        }
    };
    let resource = fields::checked_string(body, "resource", Some(32), false)?.required("resource")?;
    if !levels::is_scope_object(&resource) {
        return Err(ApiError::validation("invalid", levels::resource_refusal()).on("resource"));
    }
    let resource_id = fields::checked_string(body, "resource_id", Some(36), false)?
        .nullable()
        .flatten();
    let member = match body.get("organization_member") {
        None | Some(Value::Null) => None,
        Some(value) => Some(membership(connection, value)?),
    };
    let role = match body.get("role") {
        None | Some(Value::Null) => None,
        Some(value) => Some(role(connection, value)?),
    };
    let subject = match (member, role) {
        (Some(_), Some(_)) => {
            return Err(ApiError::validation(
                "invalid",
                "You can not scope an access control to both a member and a role.",
            ));
        }
        (Some(member), None) => Subject::Member(member),
        (None, Some(role)) => Subject::Role(role),
        (None, None) => Subject::Everyone,
    };
    Ok(Requested {
        level,
        resource,
        resource_id,
        subject,
    })
}

/// `organization_member`: a membership id, of any organization so far.
fn membership(connection: &Connection, value: &Value) -> ApiResult<String> {
    const INVALID: &str = "Invalid organization member id. Use the 'id' field from the \
                           /api/organizations/<organization_id>/members/ endpoint.";
    let id = value
        .as_str()
        .and_then(|text| uuid::Uuid::parse_str(text.trim()).ok())
        .ok_or_else(|| ApiError::validation("invalid", INVALID).on("organization_member"))?
        .hyphenated()
        .to_string();
    if store::membership_organization(connection, &id)?.is_none() {
        return Err(does_not_exist("organization_member", &id));
    }
    Ok(id)
}

/// `role`: a role id, of any organization so far.
fn role(connection: &Connection, value: &Value) -> ApiResult<String> {
    let shown = match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    let id = uuid::Uuid::parse_str(shown.trim())
        .map_err(|_| ApiError::validation("invalid", format!("“{shown}” is not a valid UUID.")).on("role"))?
        .hyphenated()
        .to_string();
    if store::role_organization(connection, &id)?.is_none() {
        return Err(does_not_exist("role", &shown));
    }
    Ok(id)
}

fn does_not_exist(field: &str, pk: &str) -> ApiError {
    ApiError::validation(
        "does_not_exist",
        format!("Invalid pk \"{pk}\" - object does not exist."),
    )
    .on(field)
}

/// The checks of the whole rule (`validate`), for a write addressed to
/// `url_target` (the object of the path, or the project).
pub fn check(connection: &Connection, scope: &Scope, rule: &Requested, url_target: Target) -> ApiResult<()> {
    match &rule.subject {
        Subject::Role(role) => {
            if !scope.plan.role_based_access {
                return Err(ApiError::permission_denied(
                    "Role-based access controls require the Role-based access feature.",
                ));
            }
            if store::role_organization(connection, role)?.as_deref() != Some(scope.organization_id.as_str())
            {
                return Err(ApiError::validation(
                    "invalid",
                    "The role must belong to the same organization as this project.",
                ));
            }
        }
        Subject::Member(member) => {
            if store::membership_organization(connection, member)?.as_deref()
                != Some(scope.organization_id.as_str())
            {
                return Err(ApiError::validation(
                    "invalid",
                    "The member must belong to the same organization as this project.",
                ));
            }
        }
        Subject::Everyone => {}
    }
    let resolver = scope.resolver();
    match &rule.resource_id {
        Some(resource_id) => {
            if url_target.id != resource_id {
                return Err(ApiError::permission_denied(
                    "Cannot modify access controls for a resource different from the URL target.",
                ));
            }
            if !resolver.can_modify(scope.who(), url_target, scope.project()) {
                return Err(ApiError::permission_denied(format!(
                    "Must be {} to modify {} permissions.",
                    levels::maximum_level(&rule.resource),
                    rule.resource
                )));
            }
            if rule.level.is_some()
                && !store::object_has_rules(connection, scope.project_id, &rule.resource, resource_id)?
                && store::objects_with_rules(connection, scope.project_id, &rule.resource)?
                    >= MAX_OBJECTS_WITH_RULES
            {
                return Err(ApiError::validation(
                    "invalid",
                    format!(
                        "Reached the limit of {MAX_OBJECTS_WITH_RULES} {}s with access control overrides.",
                        rule.resource
                    ),
                ));
            }
        }
        None => {
            if !resolver.can_modify(scope.who(), scope.project(), scope.project()) {
                return Err(ApiError::permission_denied(
                    "Must be an Organization admin to modify project-wide permissions.",
                ));
            }
        }
    }
    Ok(())
}

/// Makes the rule: removed (`None`) or written as it now stands. A rule
/// Terraform manages in a locked project is changed only by Terraform; a
/// rule for a new subject is always allowed.
pub fn upsert(
    connection: &Connection,
    scope: &Scope,
    rule: &Requested,
    manager: Option<&str>,
    now: chrono::DateTime<chrono::Utc>,
) -> ApiResult<Option<AccessControl>> {
    let existing = store::find(
        connection,
        scope.project_id,
        &rule.resource,
        rule.resource_id.as_deref(),
        &rule.subject,
    )?;
    if let Some(existing) = &existing {
        editable(connection, scope.project_id, existing, manager)?;
    }
    let Some(level) = &rule.level else {
        if let Some(existing) = &existing {
            store::remove(connection, existing)?;
        }
        return Ok(None);
    };
    let write = Write {
        project_id: scope.project_id,
        resource: &rule.resource,
        resource_id: rule.resource_id.as_deref(),
        subject: &rule.subject,
        level,
        user_id: scope_user(connection, scope)?,
        manager,
        now,
    };
    store::upsert(connection, existing.as_ref(), &write).map(Some)
}

/// Refuses a change to a rule another manager owns under the project's lock
/// (`assert_rule_is_editable`).
pub fn editable(
    connection: &Connection,
    project_id: i64,
    rule: &store::StoredRule,
    manager: Option<&str>,
) -> ApiResult<()> {
    let Some(owner) = rule.shown.managed_by.as_deref().filter(|owner| !owner.is_empty()) else {
        return Ok(());
    };
    if manager == Some(owner) || !store::locked(connection, project_id)? {
        return Ok(());
    }
    Err(ApiError::permission_denied(LOCKED_RULE))
}

/// The caller's user id (the writer of a rule).
fn scope_user(connection: &Connection, scope: &Scope) -> ApiResult<i64> {
    let mut statement = connection.prepare_cached("SELECT id FROM users WHERE uuid = ?1")?;
    Ok(statement.query_row([&scope.caller.user_id], |row| row.get(0))?)
}
