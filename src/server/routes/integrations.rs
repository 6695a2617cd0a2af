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

/// `GET /api/projects/:id/integrations/:id/channels/`: `search`, `limit`
/// (1 to 200, default 50), `offset`, or one `channel_id`.
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
    let number = |name: &str| {
        request
            .param(name)
            .and_then(|text| text.trim().parse::<u64>().ok())
    };
    let limit = number("limit")
        .filter(|limit| (1..=200).contains(limit))
        .unwrap_or(50);
    let offset = number("offset").unwrap_or(0);
    let search = request
        .param("search")
        .map(str::trim)
        .filter(|text| !text.is_empty())
        .map(str::to_string);
    let channel_id = request.param("channel_id").map(str::to_string);
    let now = app.clock.now();
    let answer = app
        .db
        .read(move |connection| {
            let (kind, errors) =
                integrations::kind_and_errors(connection, project, id)?.ok_or_else(ApiError::not_found)?;
            if kind != "slack" {
                return Err(ApiError::validation(
                    "invalid_input",
                    "channels endpoint is only supported for Slack integrations",
                ));
            }
            if errors == REVOKED {
                return Err(ApiError::validation(
                    "slack_integration_inactive",
                    "Your Slack connection is no longer active. Reconnect Slack to load channels and pick a destination.",
                ));
            }
            if let Some(channel_id) = channel_id {
                let found = integrations::channel(connection, id, &channel_id)?;
                return Ok(json!({"channels": found.into_iter().collect::<Vec<_>>()}));
            }
            let (channels, has_more) = integrations::channels(connection, id, search.as_deref(), limit, offset)?;
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
        .read(move |connection| integrations::dashboard(connection, project, id))
        .await?;
    Ok(Json(found))
}
