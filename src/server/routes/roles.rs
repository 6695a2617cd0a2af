//! `/api/organizations/:organization_id/roles`

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Map, Value};

use super::role_list;
use super::scope::{ORGANIZATION_READ, ORGANIZATION_WRITE};
use crate::api::Role;
use crate::api::models::access_level;
use crate::server::auth::{Access, Caller, PathParams};
use crate::server::body::JsonObject;
use crate::server::error::{ApiError, ApiResult};
use crate::server::fields::{self, Field};
use crate::server::paging::ListRequest;
use crate::server::store::roles;
use crate::server::{AppState, Flavor};

const NAME_MAX: usize = 200;

/// The roles, each with every one of its members embedded, as PostHog
/// lists them (posthog.md 5). The page's roles are found first; the body
/// is then written a role's head, its members a chunk at a time and its
/// tail, as the client takes them: the answer costs the server a chunk of
/// memberships and its time grows with the memberships it holds, however
/// many (built whole, a page of 360,000 memberships was 355 MB of objects
/// and as much JSON, and took 2.7 times as long as half as many).
pub async fn list(
    State(app): State<AppState>,
    caller: Caller,
    PathParams(organization): PathParams<String>,
    request: ListRequest,
) -> ApiResult<Response> {
    caller.require(ORGANIZATION_READ)?;
    let organization = caller
        .organization(&app.db, &organization, Access::Member)
        .await?;
    let flavor = app.flavor;
    let page = (request.limit, request.offset);
    let (count, roles) = app
        .db
        .read_list(false, move |connection, snapshot| {
            roles::list(snapshot, connection, &organization, page)
        })
        .await?;
    let roles = roles.into_iter().map(|role| shown(role, flavor)).collect();
    role_list::answer(&request.page(count, Vec::<()>::new()), roles, app.db.clone())
}

pub async fn retrieve(
    State(app): State<AppState>,
    caller: Caller,
    PathParams((organization, id)): PathParams<(String, String)>,
) -> ApiResult<Json<Role>> {
    caller.require(ORGANIZATION_READ)?;
    let organization = caller
        .organization(&app.db, &organization, Access::Member)
        .await?;
    let role = app
        .db
        .read(move |connection| roles::get(connection, &organization, &id))
        .await?;
    Ok(Json(shown(role, app.flavor)))
}

pub async fn create(
    State(app): State<AppState>,
    caller: Caller,
    PathParams(organization): PathParams<String>,
    body: Result<JsonObject, ApiError>,
) -> ApiResult<(StatusCode, Json<Role>)> {
    caller.require(ORGANIZATION_WRITE)?;
    let organization = caller.organization(&app.db, &organization, Access::Admin).await?;
    let JsonObject(body) = body?;
    let name = name(&body)?.required("name")?;
    let level = requested_level(&body, app.flavor)?.unwrap_or(access_level::DEFAULT);
    let user_id = caller.key.user_id;
    let now = app.clock.now();
    let role = app
        .db
        .write(move |tx| roles::create(tx, &organization, user_id, &name, level, now))
        .await?;
    Ok((StatusCode::CREATED, Json(shown(role, app.flavor))))
}

/// `PATCH`: the fields sent.
pub async fn update(
    State(app): State<AppState>,
    caller: Caller,
    PathParams((organization, id)): PathParams<(String, String)>,
    body: Result<JsonObject, ApiError>,
) -> ApiResult<Json<Role>> {
    write(app, caller, organization, id, body, false).await
}

/// `PUT`: the same as `PATCH` with every writable field required
/// (posthog.md 15-10): a role's name.
pub async fn replace(
    State(app): State<AppState>,
    caller: Caller,
    PathParams((organization, id)): PathParams<(String, String)>,
    body: Result<JsonObject, ApiError>,
) -> ApiResult<Json<Role>> {
    write(app, caller, organization, id, body, true).await
}

/// A PATCH, or with `whole` a PUT, of a role.
async fn write(
    app: AppState,
    caller: Caller,
    organization: String,
    id: String,
    body: Result<JsonObject, ApiError>,
    whole: bool,
) -> ApiResult<Json<Role>> {
    caller.require(ORGANIZATION_WRITE)?;
    let organization = caller.organization(&app.db, &organization, Access::Admin).await?;
    let JsonObject(body) = body?;
    let name = if whole {
        Some(name(&body)?.required("name")?)
    } else {
        name(&body)?.not_null("name")?
    };
    let level = requested_level(&body, app.flavor)?;
    let role = app
        .db
        .write(move |tx| roles::update(tx, &organization, &id, name.as_deref(), level))
        .await?;
    Ok(Json(shown(role, app.flavor)))
}

pub async fn delete(
    State(app): State<AppState>,
    caller: Caller,
    PathParams((organization, id)): PathParams<(String, String)>,
) -> ApiResult<StatusCode> {
    caller.require(ORGANIZATION_WRITE)?;
    let organization = caller.organization(&app.db, &organization, Access::Admin).await?;
    app.db
        .write(move |tx| {
            super::access::management::refuse_locked_role_delete(tx, &organization, &id)?;
            roles::delete(tx, &organization, &id)
        })
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// A role as the server's flavor shows it: today's PostHog has no access
/// level on roles and says which one is the default; the older docs have
/// the access level and no default.
fn shown(mut role: Role, flavor: Flavor) -> Role {
    match flavor {
        Flavor::Current => {
            role.feature_flags_access_level = None;
            role.associated_flags = None;
        }
        Flavor::Seed => role.is_default = None,
    }
    role
}

/// The access level a write asks for: checked in the seed flavor, ignored
/// (as today's PostHog ignores it) in the current one.
fn requested_level(body: &Map<String, Value>, flavor: Flavor) -> ApiResult<Option<i64>> {
    match flavor {
        Flavor::Current => Ok(None),
        Flavor::Seed => access_level(body),
    }
}

fn name(body: &Map<String, Value>) -> ApiResult<Field<String>> {
    fields::checked_string(body, "name", Some(NAME_MAX), false)
}

/// `feature_flags_access_level`: 21 or 37; anything else is not a valid choice.
fn access_level(body: &Map<String, Value>) -> ApiResult<Option<i64>> {
    const FIELD: &str = "feature_flags_access_level";
    let not_a_choice = |text: String| {
        ApiError::validation("invalid_choice", format!("\"{text}\" is not a valid choice.")).on(FIELD)
    };
    match fields::integer(body, FIELD) {
        Ok(field) => match field.not_null(FIELD)? {
            Some(level) if !access_level::is_valid(level) => Err(not_a_choice(level.to_string())),
            level => Ok(level),
        },
        Err(_) => {
            let raw = body.get(FIELD).map(|value| match value {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            });
            Err(not_a_choice(raw.unwrap_or_default()))
        }
    }
}
