//! `/api/projects/:project_id/subscriptions`

mod ai_fields;
mod changes;
mod checks;
pub mod deliveries;
mod query;
mod shown;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;

use super::scope::{QUERY_READ, SUBSCRIPTION_READ, SUBSCRIPTION_WRITE};
use super::{JsonBytes, page_bytes, streamed};
use crate::api::{TargetType, TriggerType};
use crate::server::auth::{Caller, Credentials, PathParams};
use crate::server::body::JsonObject;
use crate::server::error::{ApiError, ApiResult};
use crate::server::paging::ListRequest;
use crate::server::store::Snapshot;
use crate::server::store::deliveries as store_deliveries;
use crate::server::store::subscription_list;
use crate::server::store::subscriptions::{self, Computed, SubscriptionValues};
use crate::server::{AppState, Flavor};
use changes::Changes;
use checks::{Intent, check_catalog, check_plan_limit, check_references, check_target, check_today};
use query::{RowFilter, list_query};
use shown::Shown;

/// Whether a body sets a prompt: writing one needs `query:read` as well
/// (posthog.md 3).
fn sets_prompt(body: &serde_json::Map<String, serde_json::Value>) -> bool {
    body.get("prompt")
        .and_then(serde_json::Value::as_str)
        .is_some_and(|prompt| !prompt.trim().is_empty())
}

/// An AI-prompt subscription: its writes and deliveries need `query:read`.
pub(crate) fn is_ai_prompt(values: &SubscriptionValues) -> bool {
    values.insight.is_none() && values.dashboard.is_none() && values.today.prompt.is_some()
}

/// Whether an update changes what is delivered or where (posthog.md 8.4).
fn delivers_differently(stored: &SubscriptionValues, values: &SubscriptionValues) -> bool {
    stored.target_value != values.target_value
        || stored.target_type != values.target_type
        || stored.today.integration_id != values.today.integration_id
        || stored.today.prompt != values.today.prompt
        || stored.insight != values.insight
        || stored.dashboard != values.dashboard
        || stored.today.dashboard_export_insights != values.today.dashboard_export_insights
}

/// Today's PostHog takes e-mail and Slack targets only (posthog.md's
/// decision); the older docs also webhooks.
fn check_target_type(values: &SubscriptionValues, flavor: Flavor) -> ApiResult<()> {
    match (&values.target_type, flavor) {
        (TargetType::Email | TargetType::Slack, _) | (_, Flavor::Seed) => Ok(()),
        (other, Flavor::Current) => Err(ApiError::validation(
            "invalid_choice",
            format!("\"{}\" is not a valid choice.", other.as_str()),
        )
        .on("target_type")),
    }
}

pub async fn list(
    State(app): State<AppState>,
    credentials: Credentials,
    PathParams(project): PathParams<String>,
    request: ListRequest,
) -> ApiResult<axum::response::Response> {
    use axum::response::IntoResponse;
    // The hottest path, in PostHog's order: who, may they, where, then
    // what the query asks. Asked again before any write, the same question
    // is answered from memory without a trip to the pool: the key, its
    // reach of the project and the answer were each found in this
    // generation of the data (the key's rate limit is counted afresh).
    let query = list_query(&request, app.flavor);
    let page = (request.limit, request.offset);
    let long = request.limit > streamed::STREAM_ABOVE;
    let mut caller = None;
    {
        let snapshot = app.db.snapshot();
        if let Some(key) = credentials.remembered(&snapshot) {
            let known = credentials.caller(key)?;
            known.require(SUBSCRIPTION_READ)?;
            if let Some(project) = snapshot.project(&known.key.id, &project) {
                query.as_ref().map_err(Clone::clone)?;
                if let Some(answer) = (!long)
                    .then(|| snapshot.answer(&answer_key(project, &request)))
                    .flatten()
                {
                    return Ok(JsonBytes(answer).into_response());
                }
            }
            caller = Some(known);
        }
    }
    let searches = query.as_ref().is_ok_and(|query| !query.search.is_empty());
    let flavor = app.flavor;
    // Who calls, found once however often the read runs again (a commit
    // landing while it reads), so that their rate limit counts it once.
    let mut who = move |connection: &rusqlite::Connection, snapshot: &Snapshot| -> ApiResult<Caller> {
        if let Some(caller) = &caller {
            return Ok(caller.clone());
        }
        let found = credentials.caller(credentials.key_in(connection, snapshot)?)?;
        caller = Some(found.clone());
        Ok(found)
    };
    if long {
        let (project, count, ids) = app
            .db
            .read_list(searches, move |connection, snapshot| {
                let caller = who(connection, snapshot)?;
                caller.require(SUBSCRIPTION_READ)?;
                let project = caller.project_remembering(connection, snapshot, &project)?;
                let query = query.as_ref().map_err(Clone::clone)?;
                let (count, ids) = subscription_list::page_ids(snapshot, connection, project, query, page)?;
                Ok((project, count, ids))
            })
            .await?;
        let db = app.db.clone();
        return streamed::page(&request.page(count, Vec::new()), ids, move |chunk| {
            let db = db.clone();
            async move {
                let rows = db
                    .read(move |connection| subscription_list::rows_by_id(connection, project, &chunk))
                    .await?;
                Ok(rows
                    .into_iter()
                    .map(|row| Shown::new(row, flavor))
                    .collect::<Vec<_>>())
            }
        });
    }
    let answer = app
        .db
        .read_list(searches, move |connection, snapshot| {
            let caller = who(connection, snapshot)?;
            caller.require(SUBSCRIPTION_READ)?;
            let project = caller.project_remembering(connection, snapshot, &project)?;
            let query = query.as_ref().map_err(Clone::clone)?;
            snapshot.answer_or(answer_key(project, &request), || {
                let (count, rows) = subscription_list::list(snapshot, connection, project, query, page)?;
                let rows = rows.into_iter().map(|row| Shown::new(row, flavor)).collect();
                page_bytes(&request.page(count, rows))
            })
        })
        .await?;
    Ok(JsonBytes(answer).into_response())
}

/// What a list's answer is remembered by: the project and the request
/// whole (its links name its address and parameters).
fn answer_key(project: i64, request: &ListRequest) -> String {
    format!("subscriptions of {project}: {}", request.identity())
}

/// The subscription id of a path; one that is not an integer is unknown.
pub(crate) fn subscription_id(raw: &str) -> ApiResult<i64> {
    raw.parse().map_err(|_| ApiError::not_found())
}

pub async fn retrieve(
    State(app): State<AppState>,
    caller: Caller,
    PathParams((project, id)): PathParams<(String, String)>,
    request: ListRequest,
) -> ApiResult<Json<Shown>> {
    caller.require(SUBSCRIPTION_READ)?;
    let project = caller.project(&app.db, &project).await?;
    let id = subscription_id(&id)?;
    let filter = RowFilter::of(&request, app.flavor)?;
    let subscription = app
        .db
        .read(move |connection| subscriptions::get(connection, project, id))
        .await?;
    if !filter.admits(&subscription) {
        return Err(ApiError::not_found());
    }
    Ok(Json(Shown::new(subscription, app.flavor)))
}

pub async fn create(
    State(app): State<AppState>,
    caller: Caller,
    PathParams(project): PathParams<String>,
    body: Result<JsonObject, ApiError>,
) -> ApiResult<(StatusCode, Json<Shown>)> {
    caller.require(SUBSCRIPTION_WRITE)?;
    let project = caller.project(&app.db, &project).await?;
    let JsonObject(body) = body?;
    if sets_prompt(&body) {
        caller.require(QUERY_READ)?;
    }
    let flavor = app.flavor;
    let changes = Changes::parse(&body, flavor)?;
    let send_test_now = changes.send_test_now;
    let values = changes.into_new(flavor)?;
    check_target_type(&values, flavor)?;
    if flavor == Flavor::Seed {
        check_target(&values)?;
    }
    let now = app.clock.now();
    // Recurrences can take a while to walk: off the async workers, and
    // before the write lock is taken.
    let (values, computed) = tokio::task::spawn_blocking(move || {
        let computed = Computed::of(&values, now, flavor.rules());
        (values, computed)
    })
    .await
    .map_err(ApiError::internal)?;
    if flavor == Flavor::Seed && computed.next_delivery_date.is_none() {
        return Err(ApiError::validation(
            "invalid_input",
            "Subscription schedule has reached its end date. Extend until_date or remove count.",
        )
        .on("start_date"));
    }
    let user_id = caller.key.user_id;
    let (limit, export_cap) = (app.subscription_limit, app.export_cap);
    let subscription = app
        .db
        .write(move |tx| {
            if flavor == Flavor::Current {
                check_references(tx, project, &values)?;
            }
            // Every create, a deleted one too (posthog.md 8.2-1).
            check_plan_limit(tx, project, limit)?;
            match flavor {
                Flavor::Seed => check_catalog(tx, project, &values)?,
                Flavor::Current => {
                    let intent = Intent::default();
                    check_today(tx, project, None, &values, intent, Some(&computed), export_cap)?;
                    ai_fields::check(tx, project, &values)?;
                }
            }
            let id = subscriptions::insert(tx, project, user_id, now, &values, &computed)?;
            // Today's PostHog delivers a new subscription once at once
            // (posthog.md 8.4), unless it was created paused or the body
            // said `send_test_now: false` (15-1).
            if flavor == Flavor::Current
                && values.today.enabled
                && !values.deleted
                && send_test_now != Some(false)
            {
                store_deliveries::record(tx, id, TriggerType::TargetChange, None, now)?;
            }
            subscriptions::get(tx, project, id)
        })
        .await?;
    app.schedule_changed.notify_one();
    Ok((StatusCode::CREATED, Json(Shown::new(subscription, flavor))))
}

pub async fn update(
    State(app): State<AppState>,
    caller: Caller,
    PathParams((project, id)): PathParams<(String, String)>,
    request: ListRequest,
    body: Result<JsonObject, ApiError>,
) -> ApiResult<Json<Shown>> {
    caller.require(SUBSCRIPTION_WRITE)?;
    let project = caller.project(&app.db, &project).await?;
    let id = subscription_id(&id)?;
    let filter = RowFilter::of(&request, app.flavor)?;
    let limit = app.subscription_limit;
    let JsonObject(body) = body?;
    if sets_prompt(&body) {
        caller.require(QUERY_READ)?;
    }
    let flavor = app.flavor;
    let changes = Changes::parse(&body, flavor)?;
    let send_test_now = changes.send_test_now;
    let export_cap = app.export_cap;
    let now = app.clock.now();
    let subscription = app
        .db
        .write(move |tx| {
            if !filter.admits(&subscriptions::get(tx, project, id)?) {
                return Err(ApiError::not_found());
            }
            let stored = subscriptions::stored_values(tx, project, id)?;
            if is_ai_prompt(&stored) {
                caller.require(QUERY_READ)?;
            }
            if flavor == Flavor::Current {
                check_references(tx, project, &changes.clone().apply(stored.clone()))?;
            }
            if stored.deleted && changes.deleted == Some(false) {
                check_plan_limit(tx, project, limit)?;
            }
            let intent = Intent {
                re_enabling: !stored.today.enabled && changes.enabled == Some(true),
                clears_export: changes
                    .dashboard_export_insights
                    .as_ref()
                    .is_some_and(Vec::is_empty),
                reschedules: false,
            };
            // A stored legacy target (webhook) may stay; sending one may not.
            let sends_target_type = changes.target_type.is_some();
            let values = changes.apply(stored.clone());
            if sends_target_type {
                check_target_type(&values, flavor)?;
            }
            let reschedules = values.schedule_differs(&stored);
            // A re-enabled subscription is scheduled again from now.
            let computed =
                (reschedules || intent.re_enabling).then(|| Computed::of(&values, now, flavor.rules()));
            match flavor {
                Flavor::Seed => {
                    check_target(&values)?;
                    if values.dashboard != stored.dashboard || values.insight != stored.insight {
                        check_catalog(tx, project, &values)?;
                    }
                }
                Flavor::Current => {
                    let intent = Intent {
                        reschedules: reschedules && stored.today.enabled,
                        ..intent
                    };
                    check_today(
                        tx,
                        project,
                        Some(&stored),
                        &values,
                        intent,
                        computed.as_ref(),
                        export_cap,
                    )?;
                    if intent.re_enabling {
                        ai_fields::check_re_enable(tx, project, id, &values)?;
                    }
                    ai_fields::check(tx, project, &values)?;
                }
            }
            subscriptions::update(tx, id, &values, computed.as_ref())?;
            // A change of what is delivered, or where, is delivered at once;
            // so is a re-enable, as its confirmation (posthog.md 8.4). The
            // body may ask for one whatever changed, or for none (15-1).
            let delivers =
                send_test_now.unwrap_or_else(|| intent.re_enabling || delivers_differently(&stored, &values));
            if flavor == Flavor::Current && values.today.enabled && !values.deleted && delivers {
                store_deliveries::record(tx, id, TriggerType::TargetChange, None, now)?;
            }
            subscriptions::get(tx, project, id)
        })
        .await?;
    app.schedule_changed.notify_one();
    Ok(Json(Shown::new(subscription, flavor)))
}

/// Hard delete is not allowed: 405 with an empty body, and nothing changes.
/// The caller must still be allowed to write, as PostHog checks that first.
pub async fn delete(
    State(app): State<AppState>,
    caller: Caller,
    PathParams((project, _id)): PathParams<(String, String)>,
) -> ApiResult<StatusCode> {
    caller.require(SUBSCRIPTION_WRITE)?;
    caller.project(&app.db, &project).await?;
    Err(ApiError::method_not_allowed_empty())
}
