//! Today's PostHog only (posthog.md §10, §11): a project's Slack
//! integrations and their channels, and a dashboard with its tiles.

use axum::Json;
use axum::extract::State;
use serde_json::{Value, json};

use super::page_of;
use super::scope::{DASHBOARD_READ, INTEGRATION_READ};
use crate::api::Page;
use crate::server::auth::{Caller, PathParams};
use crate::server::error::{ApiError, ApiResult};
use crate::server::paging::ListRequest;
use crate::server::store::integrations::{self, REVOKED};
use crate::server::{AppState, Flavor};

/// 404 on the seed flavor: the older API has none of these paths.
fn today_only(app: &AppState) -> ApiResult<()> {
    match app.flavor {
        Flavor::Current => Ok(()),
        Flavor::Seed => Err(ApiError::not_found()),
    }
}

fn integration_id(raw: &str) -> ApiResult<i64> {
    raw.parse().map_err(|_| ApiError::not_found())
}

/// `GET /api/projects/:id/integrations/?kind=slack`
pub async fn list(
    State(app): State<AppState>,
    caller: Caller,
    PathParams(project): PathParams<String>,
    request: ListRequest,
) -> ApiResult<Json<Page<Value>>> {
    today_only(&app)?;
    caller.require(INTEGRATION_READ)?;
    let project = caller.project(&app.db, &project).await?;
    let kind = request.param("kind").map(str::to_string);
    page_of(&app.db, request, move |connection, page| {
        integrations::list(connection, project, kind.as_deref(), page)
    })
    .await
}

/// `GET /api/projects/:id/integrations/:id/`
pub async fn retrieve(
    State(app): State<AppState>,
    caller: Caller,
    PathParams((project, id)): PathParams<(String, String)>,
) -> ApiResult<Json<Value>> {
    today_only(&app)?;
    caller.require(INTEGRATION_READ)?;
    let project = caller.project(&app.db, &project).await?;
    let id = integration_id(&id)?;
    let found = app
        .db
        .read(move |connection| integrations::get(connection, project, id))
        .await?;
    Ok(Json(found))
}

/// A whole-number query parameter as DRF's IntegerField reads it (`5`,
/// ` 5 `, `5.0`), within `min..=max`, or its 400 in DRF's words.
fn integer(request: &ListRequest, name: &str, default: i64, min: i64, max: Option<i64>) -> ApiResult<i64> {
    let Some(text) = request.param(name) else {
        return Ok(default);
    };
    let trimmed = text.trim();
    let whole = match trimmed.find('.') {
        Some(dot) if trimmed[dot + 1..].chars().all(|c| c == '0') => &trimmed[..dot],
        _ => trimmed,
    };
    let value: i64 = whole
        .parse()
        .map_err(|_| ApiError::validation("invalid_input", "A valid integer is required.").on(name))?;
    if value < min {
        return Err(ApiError::validation(
            "min_value",
            format!("Ensure this value is greater than or equal to {min}."),
        )
        .on(name));
    }
    if let Some(max) = max
        && value > max
    {
        return Err(ApiError::validation(
            "max_value",
            format!("Ensure this value is less than or equal to {max}."),
        )
        .on(name));
    }
    Ok(value)
}

/// `GET /api/projects/:id/integrations/:id/channels/`: `search`, `limit`
/// (1 to 200, default 50), `offset`, or one `channel_id` (which ignores the
/// others). Private channels are shown only to whoever installed the
/// integration. In PostHog's order: the kind, the installing user, a
/// single lookup, the query's values, then Slack itself (revoked or not).
pub async fn channels(
    State(app): State<AppState>,
    caller: Caller,
    PathParams((project, id)): PathParams<(String, String)>,
    request: ListRequest,
) -> ApiResult<Json<Value>> {
    today_only(&app)?;
    caller.require(INTEGRATION_READ)?;
    let project = caller.project(&app.db, &project).await?;
    let id = integration_id(&id)?;
    let user = caller.key.user_id;
    let now = app.clock.now();
    let answer = app
        .db
        .read(move |connection| {
            let installed = integrations::installed(connection, project, id)?.ok_or_else(ApiError::not_found)?;
            if installed.kind != "slack" {
                return Err(ApiError::validation(
                    "invalid_input",
                    "channels endpoint is only supported for Slack integrations",
                ));
            }
            if installed.authed_user.is_none() {
                return Err(ApiError::validation(
                    "invalid_input",
                    "SlackIntegration: Missing authed_user_id in integration config",
                ));
            }
            let revoked = || {
                ApiError::validation(
                    "slack_integration_inactive",
                    "Your Slack connection is no longer active. Reconnect Slack to load channels and pick a destination.",
                )
            };
            let private = installed.created_by == Some(user);
            if let Some(channel_id) = request.param("channel_id").filter(|id| !id.is_empty()) {
                if installed.errors == REVOKED {
                    return Err(revoked());
                }
                let found = integrations::channel(connection, id, private, channel_id)?;
                return Ok(json!({"channels": found.into_iter().collect::<Vec<_>>()}));
            }
            let search = request.param("search").map(str::trim).filter(|text| !text.is_empty());
            let limit = integer(&request, "limit", 50, 1, Some(200))?;
            let offset = integer(&request, "offset", 0, 0, None)?;
            if installed.errors == REVOKED {
                return Err(revoked());
            }
            let page = (limit.unsigned_abs(), offset.unsigned_abs());
            let (channels, has_more) = integrations::channels(connection, id, private, search, page)?;
            Ok(json!({
                "channels": channels,
                "lastRefreshedAt": crate::api::time::format_datetime(&now),
                "has_more": has_more,
            }))
        })
        .await?;
    Ok(Json(answer))
}

/// `GET /api/projects/:id/dashboards/:id/`: the dashboard with its tiles.
pub async fn dashboard(
    State(app): State<AppState>,
    caller: Caller,
    PathParams((project, id)): PathParams<(String, String)>,
) -> ApiResult<Json<Value>> {
    today_only(&app)?;
    caller.require(DASHBOARD_READ)?;
    let project = caller.project(&app.db, &project).await?;
    let id = integration_id(&id)?;
    let found = app
        .db
        .read(move |connection| {
            let found = integrations::dashboard(connection, project, id)?;
            super::access::objects::require_dashboard(connection, &caller, project, id)?;
            Ok(found)
        })
        .await?;
    Ok(Json(found))
}
