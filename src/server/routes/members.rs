//! `/api/organizations/:organization_id/members/:user_uuid/`: changing a
//! member's level, removing a member (or leaving), and the summary of a
//! member's personal API keys, as today's PostHog answers them (posthog.md
//! 15-13). The list is a picker's (`pickers::members`).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;

use super::scope::{ORGANIZATION_MEMBER_READ, ORGANIZATION_MEMBER_WRITE, USER_READ};
use crate::api::OrganizationMember;
use crate::api::models::level;
use crate::server::AppState;
use crate::server::auth::{Access, Caller, PathParams};
use crate::server::body::JsonObject;
use crate::server::error::{ApiError, ApiResult};
use crate::server::fields;
use crate::server::store::members::{self, ScopedKeys};

const NOT_AN_ADMIN: &str = "You can only edit others if you are an admin.";

/// `PATCH`: `{"level": 1 | 8 | 15}`.
pub async fn update(
    State(app): State<AppState>,
    caller: Caller,
    PathParams((organization, user)): PathParams<(String, String)>,
    body: Result<JsonObject, ApiError>,
) -> ApiResult<Json<OrganizationMember>> {
    caller.require(ORGANIZATION_MEMBER_WRITE)?;
    let organization = caller
        .organization(&app.db, &organization, Access::Member)
        .await?;
    let JsonObject(body) = body?;
    let wanted = fields::integer(&body, "level")
        .map_err(|_| not_a_level(body.get("level")))?
        .not_null("level")?;
    if let Some(wanted) = wanted
        && ![level::MEMBER, level::ADMIN, level::OWNER].contains(&wanted)
    {
        return Err(not_a_level(body.get("level")));
    }
    let me = caller.key.user_id;
    let now = app.clock.now();
    let member = app
        .db
        .write(move |tx| {
            let my_level = members::find(tx, &organization, "@me", me)?.level;
            let target = members::find(tx, &organization, &user, me)?;
            if let Some(wanted) = wanted {
                if target.user_id == me {
                    return Err(ApiError::permission_denied(
                        "You can't change your own access level.",
                    ));
                }
                if my_level < level::ADMIN || target.level > my_level {
                    return Err(ApiError::permission_denied(NOT_AN_ADMIN));
                }
                if wanted == level::OWNER && my_level < level::OWNER {
                    return Err(ApiError::permission_denied(
                        "You can only make another member owner if you're this organization's owner.",
                    ));
                }
                members::set_level(tx, &organization, target.user_id, wanted, now)?;
            }
            members::get(tx, &organization, target.user_id)
        })
        .await?;
    Ok(Json(member))
}

/// DRF's words for a level that is not one.
fn not_a_level(sent: Option<&serde_json::Value>) -> ApiError {
    let text = match sent {
        Some(serde_json::Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    ApiError::validation("invalid_choice", format!("\"{text}\" is not a valid choice.")).on("level")
}

/// `DELETE`: removes the member, or, for oneself, leaves. Their role
/// memberships go with them; what they created stays. An owner is never
/// removed, by themselves or by another (posthog.md 15-19): the check and
/// the delete share one transaction, so owners leaving at once cannot
/// leave the organization without one.
pub async fn remove(
    State(app): State<AppState>,
    caller: Caller,
    PathParams((organization, user)): PathParams<(String, String)>,
) -> ApiResult<StatusCode> {
    caller.require(ORGANIZATION_MEMBER_WRITE)?;
    let organization = caller
        .organization(&app.db, &organization, Access::Member)
        .await?;
    let me = caller.key.user_id;
    app.db
        .write(move |tx| {
            let my_level = members::find(tx, &organization, "@me", me)?.level;
            let target = members::find(tx, &organization, &user, me)?;
            if target.user_id != me && (my_level < level::ADMIN || target.level > my_level) {
                return Err(ApiError::permission_denied(NOT_AN_ADMIN));
            }
            members::remove(tx, &organization, target)
        })
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET …/scoped_api_keys/`: whether the member has keys, and whether any
/// was used last week; each key's label, scopes and last use, never the key.
pub async fn scoped_api_keys(
    State(app): State<AppState>,
    caller: Caller,
    PathParams((organization, user)): PathParams<(String, String)>,
) -> ApiResult<Json<ScopedKeys>> {
    caller.require(ORGANIZATION_MEMBER_READ)?;
    let organization = caller
        .organization(&app.db, &organization, Access::Member)
        .await?;
    let me = caller.key.user_id;
    let now = app.clock.now();
    let keys = app
        .db
        .read(move |connection| {
            let target = members::find(connection, &organization, &user, me)?;
            members::scoped_keys(connection, target.user_id, now)
        })
        .await?;
    Ok(Json(keys))
}

/// `GET /api/users/@me/`: the user whose key it is (PostHog answers more
/// fields; these are the user object's). PostHog's `UserViewSet` has the
/// scope object `user`, so a personal API key needs `user:read` (or `*`).
pub async fn me(State(app): State<AppState>, caller: Caller) -> ApiResult<Json<crate::api::User>> {
    caller.require(USER_READ)?;
    let me = caller.key.user_id;
    let user = app
        .db
        .read(move |connection| members::user(connection, me))
        .await?;
    Ok(Json(user))
}
