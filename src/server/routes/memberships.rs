//! `/api/organizations/:organization_id/roles/:role_id/role_memberships`

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;

use super::list_page_of;
use super::scope::{ORGANIZATION_READ, ORGANIZATION_WRITE};
use crate::api::{Page, RoleMembership};
use crate::server::auth::{Access, Caller, PathParams};
use crate::server::body::JsonObject;
use crate::server::error::{ApiError, ApiResult};
use crate::server::fields;
use crate::server::paging::ListRequest;
use crate::server::store::memberships;
use crate::server::{AppState, Flavor};

pub async fn list(
    State(app): State<AppState>,
    caller: Caller,
    PathParams((organization, role)): PathParams<(String, String)>,
    request: ListRequest,
) -> ApiResult<Json<Page<RoleMembership>>> {
    caller.require(ORGANIZATION_READ)?;
    let organization = caller
        .organization(&app.db, &organization, Access::Member)
        .await?;
    let flavor = app.flavor;
    list_page_of(&app.db, request, move |connection, snapshot, page| {
        match (
            memberships::require_role(connection, &organization, &role),
            flavor,
        ) {
            (Ok(()), _) => memberships::list(snapshot, connection, &role, page),
            // Today's PostHog filters memberships by the role's
            // organization: an unknown role has none.
            (Err(_), Flavor::Current) => Ok((0, Vec::new())),
            (Err(error), Flavor::Seed) => Err(error),
        }
    })
    .await
}

/// One membership (both flavors: compat.md's header).
pub async fn retrieve(
    State(app): State<AppState>,
    caller: Caller,
    PathParams((organization, role, id)): PathParams<(String, String, String)>,
) -> ApiResult<Json<RoleMembership>> {
    caller.require(ORGANIZATION_READ)?;
    let organization = caller
        .organization(&app.db, &organization, Access::Member)
        .await?;
    let membership = app
        .db
        .read(move |connection| {
            memberships::require_role(connection, &organization, &role)?;
            memberships::get_in_role(connection, &role, &id)
        })
        .await?;
    Ok(Json(membership))
}

pub async fn create(
    State(app): State<AppState>,
    caller: Caller,
    PathParams((organization, role)): PathParams<(String, String)>,
    body: Result<JsonObject, ApiError>,
) -> ApiResult<(StatusCode, Json<RoleMembership>)> {
    caller.require(ORGANIZATION_WRITE)?;
    let organization = caller.organization(&app.db, &organization, Access::Admin).await?;
    let JsonObject(body) = body?;
    let user_uuid = fields::string(&body, "user_uuid")?.required("user_uuid")?;
    let user_uuid = uuid::Uuid::parse_str(&user_uuid)
        .map_err(|_| ApiError::validation("invalid", "Must be a valid UUID.").on("user_uuid"))?
        .hyphenated()
        .to_string();
    let now = app.clock.now();
    let membership = app
        .db
        .write(move |tx| {
            // Both flavors (compat.md's header): a non-field error.
            memberships::require_role(tx, &organization, &role)
                .map_err(|_| ApiError::validation("invalid_input", "Role does not exist."))?;
            memberships::create(tx, &organization, &role, &user_uuid, now)
        })
        .await?;
    Ok((StatusCode::CREATED, Json(membership)))
}

pub async fn delete(
    State(app): State<AppState>,
    caller: Caller,
    PathParams((organization, role, id)): PathParams<(String, String, String)>,
) -> ApiResult<StatusCode> {
    caller.require(ORGANIZATION_WRITE)?;
    let organization = caller.organization(&app.db, &organization, Access::Admin).await?;
    app.db
        .write(move |tx| {
            memberships::require_role(tx, &organization, &role)?;
            memberships::delete(tx, &role, &id)
        })
        .await?;
    Ok(StatusCode::NO_CONTENT)
}
