//! Today's PostHog only (posthog.md 8.4, §9): a subscription's deliveries,
//! test deliveries and the summary quota. The seed flavor answers 404, as
//! an older PostHog without them does.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};

use super::query::RowFilter;
use super::subscription_id;
use crate::api::{CursorPage, Delivery, DeliveryStatus, TriggerType};
use crate::server::auth::{Caller, PathParams};
use crate::server::error::{ApiError, ApiResult};
use crate::server::paging::ListRequest;
use crate::server::routes::scope::{QUERY_READ, SUBSCRIPTION_READ, SUBSCRIPTION_WRITE};
use crate::server::store::deliveries::{self, Cursor};
use crate::server::store::subscriptions;
use crate::server::{AppState, Flavor};

/// 404 on the seed flavor: the older API has none of these paths.
fn today_only(app: &AppState) -> ApiResult<()> {
    match app.flavor {
        Flavor::Current => Ok(()),
        Flavor::Seed => Err(ApiError::not_found()),
    }
}

/// `created_at|id` in URL-safe base64; `created_at|id|r` for a page
/// before the position (a `previous` link).
fn encode(cursor: &Cursor) -> String {
    let direction = if cursor.reverse { "|r" } else { "" };
    URL_SAFE_NO_PAD.encode(format!("{}|{}{direction}", cursor.created_at, cursor.id))
}

/// A cursor as [`encode`] made it; anything else is DRF's "Invalid cursor".
/// An empty one is the first page, as in DRF.
fn decode(text: &str) -> ApiResult<Option<Cursor>> {
    let invalid = || ApiError::not_found_with("Invalid cursor");
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    let bytes = URL_SAFE_NO_PAD.decode(text).map_err(|_| invalid())?;
    let text = String::from_utf8(bytes).map_err(|_| invalid())?;
    let parts: Vec<&str> = text.split('|').collect();
    let (created_at, id, reverse) = match parts[..] {
        [created_at, id] => (created_at, id, false),
        [created_at, id, "r"] => (created_at, id, true),
        _ => return Err(invalid()),
    };
    if created_at.is_empty() || id.is_empty() {
        return Err(invalid());
    }
    Ok(Some(Cursor {
        created_at: created_at.to_string(),
        id: id.to_string(),
        reverse,
    }))
}

/// `GET …/subscriptions/:id/deliveries/`: 50 a page, newest first, no count.
pub async fn list(
    State(app): State<AppState>,
    caller: Caller,
    PathParams((project, id)): PathParams<(String, String)>,
    request: ListRequest,
) -> ApiResult<Json<CursorPage<Delivery>>> {
    today_only(&app)?;
    caller.require(SUBSCRIPTION_READ)?;
    let project = caller.project(&app.db, &project).await?;
    let id = subscription_id(&id)?;
    // As PostHog's viewset: an empty value is no filter; another value is a
    // plain ValidationError, whose code drf-exceptions-hog names invalid_input.
    let status = match request.param("status").filter(|text| !text.is_empty()) {
        None => None,
        Some(text) => match text.parse::<DeliveryStatus>() {
            Ok(status) => Some(status),
            Err(_) => {
                return Err(ApiError::validation(
                    "invalid_input",
                    "Must be one of: completed, failed, skipped, starting.",
                )
                .on("status"));
            }
        },
    };
    let cursor = request.param("cursor").map(decode).transpose()?.flatten();
    // PostHog filters the deliveries by the subscription of the path and
    // nothing else: one that is not the project's has none (posthog.md
    // 15-11), where a retrieve of it is a 404.
    let page = app
        .db
        .read(
            move |connection| match subscriptions::get(connection, project, id) {
                Ok(_) => deliveries::page(connection, id, status.as_ref(), cursor.as_ref()),
                Err(error) if error.status == StatusCode::NOT_FOUND => {
                    Ok(deliveries::DeliveryPage::default())
                }
                Err(error) => Err(error),
            },
        )
        .await?;
    let link = |cursor: Option<Cursor>| cursor.map(|cursor| request.link_with("cursor", &encode(&cursor)));
    Ok(Json(CursorPage {
        next: link(page.next),
        previous: link(page.previous),
        results: page.rows,
    }))
}

/// `GET …/subscriptions/:id/deliveries/:uuid/`.
pub async fn retrieve(
    State(app): State<AppState>,
    caller: Caller,
    PathParams((project, id, delivery)): PathParams<(String, String, String)>,
) -> ApiResult<Json<Delivery>> {
    today_only(&app)?;
    caller.require(SUBSCRIPTION_READ)?;
    let project = caller.project(&app.db, &project).await?;
    let id = subscription_id(&id)?;
    let found = app
        .db
        .read(move |connection| {
            subscriptions::get(connection, project, id)?;
            deliveries::get(connection, id, &delivery)
        })
        .await?;
    Ok(Json(found))
}

/// `POST …/subscriptions/:id/test-delivery/`: 202 with no body; a deleted
/// subscription is 404 with no body, a disabled one 409. The throttle
/// comes first, as DRF checks throttles before the view runs.
pub async fn test_delivery(
    State(app): State<AppState>,
    caller: Caller,
    PathParams((project, id)): PathParams<(String, String)>,
    request: ListRequest,
) -> ApiResult<Response> {
    today_only(&app)?;
    caller.require(SUBSCRIPTION_WRITE)?;
    let project = caller.project(&app.db, &project).await?;
    let id = subscription_id(&id)?;
    // The query's row filters, as on every action (posthog.md 8.3).
    let filter = RowFilter::of(&request, app.flavor)?;
    // An AI-prompt row needs `query:read` as well. Scopes are permissions,
    // which DRF checks before throttles: a refused request uses none of
    // the ten a minute.
    let stored = app
        .db
        .read(
            move |connection| match subscriptions::stored_values(connection, project, id) {
                Ok(stored) => Ok(Some(stored)),
                Err(error) if error.status == StatusCode::NOT_FOUND => Ok(None),
                Err(error) => Err(error),
            },
        )
        .await?;
    if stored.as_ref().is_some_and(super::is_ai_prompt) {
        caller.require(QUERY_READ)?;
    }
    // Its own limit, whoever asks: 10 a minute a project.
    if let Err(seconds) = app.test_deliveries.check(&project.to_string()) {
        return Err(ApiError::throttled(seconds));
    }
    let now = app.clock.now();
    let outcome = app
        .db
        .write(move |tx| {
            // An unknown id, or one the filters leave out, is get_object's
            // 404 ("Not found."); a deleted row the view's own bare 404.
            if !filter.admits(&subscriptions::get(tx, project, id)?) {
                return Err(ApiError::not_found());
            }
            let stored = subscriptions::stored_values(tx, project, id)?;
            if super::is_ai_prompt(&stored) {
                caller.require(QUERY_READ)?;
            }
            if stored.deleted {
                return Ok(StatusCode::NOT_FOUND.into_response());
            }
            if !stored.today.enabled {
                let detail = "Subscription is disabled. Re-enable it before sending a test delivery.";
                return Ok((StatusCode::CONFLICT, Json(json!({ "detail": detail }))).into_response());
            }
            deliveries::record(tx, id, TriggerType::Manual, None, now)?;
            Ok(StatusCode::ACCEPTED.into_response())
        })
        .await?;
    Ok(outcome)
}

/// `GET …/subscriptions/summary_quota/`: no summaries are limited here.
pub async fn summary_quota(
    State(app): State<AppState>,
    caller: Caller,
    PathParams(project): PathParams<String>,
) -> ApiResult<Json<Value>> {
    today_only(&app)?;
    caller.require(SUBSCRIPTION_READ)?;
    let project = caller.project(&app.db, &project).await?;
    let active = app
        .db
        .read(move |connection| subscriptions::active_summaries(connection, project))
        .await?;
    Ok(Json(
        json!({"active_count": active, "limit": null, "at_limit": false}),
    ))
}
