//! Rules that Terraform owns (posthog.md 16.7, PostHog's
//! `access_control_management`): claiming or releasing a rule, each
//! project's lock, and the role delete the lock refuses (15-14).

use axum::Json;
use axum::extract::State;
use axum::http::HeaderMap;
use serde_json::Value;

use super::rules::editable;
use super::{ACCESS_CONTROL_READ, ACCESS_CONTROL_WRITE, scope};
use crate::api::access::levels;
use crate::api::access::{ManagementSettings, ManagementState, Subject};
use crate::server::AppState;
use crate::server::access::{LOCKED_RULE, Scope, TERRAFORM, manager_of};
use crate::server::auth::{Caller, PathParams};
use crate::server::body::JsonObject;
use crate::server::error::{ApiError, ApiResult};
use crate::server::fields::{self, Field};
use crate::server::store::access as store;

/// 403 unless the caller may change the project's rules.
fn may_manage(scope: &Scope) -> ApiResult<()> {
    if scope
        .resolver()
        .can_modify(scope.who(), scope.project(), scope.project())
    {
        Ok(())
    } else {
        Err(ApiError::permission_denied(
            "Must be an Organization admin to manage access control ownership.",
        ))
    }
}

/// An optional uuid field (`role`, `organization_member`).
fn uuid_field(body: &serde_json::Map<String, Value>, name: &str) -> ApiResult<Option<String>> {
    match body.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => uuid::Uuid::parse_str(text.trim())
            .map(|id| Some(id.hyphenated().to_string()))
            .map_err(|_| ApiError::validation("invalid", "Must be a valid UUID.").on(name)),
        Some(_) => Err(ApiError::validation("invalid", "Must be a valid UUID.").on(name)),
    }
}

/// `PUT …/access_control_management`: claims an existing rule for
/// Terraform (`managed_by: "terraform"`) or releases it (`null`).
pub async fn claim(
    State(app): State<AppState>,
    caller: Caller,
    PathParams(project): PathParams<String>,
    headers: HeaderMap,
    body: Result<JsonObject, ApiError>,
) -> ApiResult<Json<ManagementState>> {
    caller.require(ACCESS_CONTROL_WRITE)?;
    let scope = scope(&app.db, &caller, &project).await?;
    may_manage(&scope)?;
    let JsonObject(body) = body?;
    let resource = fields::string(&body, "resource")?.required("resource")?;
    if resource.is_empty() {
        return Err(ApiError::validation("blank", "This field may not be blank.").on("resource"));
    }
    if !levels::is_scope_object(&resource) {
        return Err(ApiError::validation("invalid", "Invalid resource.").on("resource"));
    }
    let resource_id = fields::string(&body, "resource_id")?.nullable().flatten();
    let role = uuid_field(&body, "role")?;
    let member = uuid_field(&body, "organization_member")?;
    let managed_by = match fields::string(&body, "managed_by")? {
        Field::Absent => return Err(ApiError::required("managed_by")),
        Field::Null => None,
        Field::Value(manager) if manager == TERRAFORM => Some(manager),
        Field::Value(other) => {
            return Err(ApiError::validation(
                "invalid_choice",
                format!("\"{other}\" is not a valid choice."),
            )
            .on("managed_by"));
        }
    };
    let subject = Subject::from_fields(member.as_deref(), role.as_deref())
        .ok_or_else(|| ApiError::validation("invalid", "A rule cannot target both a member and a role."))?;
    let manager = manager_of(&headers);
    let now = app.clock.now();
    let project_id = scope.project_id;
    let state = app
        .db
        .write(move |tx| {
            let rule = store::find(tx, project_id, &resource, resource_id.as_deref(), &subject)?
                .ok_or_else(|| ApiError::not_found_with("No access control rule matches that target."))?;
            editable(tx, project_id, &rule, manager)?;
            let managed_at = store::set_manager(tx, &rule, managed_by.as_deref(), now)?;
            Ok(ManagementState {
                managed_by,
                managed_at,
            })
        })
        .await?;
    Ok(Json(state))
}

/// `GET …/access_control_management_settings`.
pub async fn settings(
    State(app): State<AppState>,
    caller: Caller,
    PathParams(project): PathParams<String>,
) -> ApiResult<Json<ManagementSettings>> {
    caller.require(ACCESS_CONTROL_READ)?;
    let scope = scope(&app.db, &caller, &project).await?;
    let project_id = scope.project_id;
    let found = app
        .db
        .read(move |connection| current(connection, project_id))
        .await?;
    Ok(Json(found))
}

fn current(connection: &rusqlite::Connection, project_id: i64) -> ApiResult<ManagementSettings> {
    Ok(ManagementSettings {
        lock_terraform_managed_rules: store::locked(connection, project_id)?,
        has_terraform_managed_rules: store::has_managed_rules(connection, project_id)?,
    })
}

/// `PATCH …/access_control_management_settings`: turns the lock on or off.
pub async fn update_settings(
    State(app): State<AppState>,
    caller: Caller,
    PathParams(project): PathParams<String>,
    body: Result<JsonObject, ApiError>,
) -> ApiResult<Json<ManagementSettings>> {
    caller.require(ACCESS_CONTROL_WRITE)?;
    let scope = scope(&app.db, &caller, &project).await?;
    may_manage(&scope)?;
    let JsonObject(body) = body?;
    let locked =
        fields::boolean(&body, "lock_terraform_managed_rules")?.required("lock_terraform_managed_rules")?;
    let project_id = scope.project_id;
    let found = app
        .db
        .write(move |tx| {
            store::set_locked(tx, project_id, locked)?;
            current(tx, project_id)
        })
        .await?;
    Ok(Json(found))
}

/// Refuses to delete a role that carries a Terraform-managed rule of a
/// locked project: its rules would go with it, past the lock (15-14).
pub fn refuse_locked_role_delete(
    connection: &rusqlite::Connection,
    organization_id: &str,
    role_id: &str,
) -> ApiResult<()> {
    if store::role_has_locked_rules(connection, organization_id, role_id)? {
        Err(ApiError::permission_denied(LOCKED_RULE))
    } else {
        Ok(())
    }
}
