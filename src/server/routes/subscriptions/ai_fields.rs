//! The fields today's PostHog added for AI reports and summaries
//! (posthog.md 15-2, 15-3): an AI report's window (`ai_prompt_config`) and
//! the dashboards and insights a summary reads (`contexts`), read from a
//! body and checked against the project.

use rusqlite::Connection;
use serde_json::{Map, Value};

use crate::api::SubscriptionContext;
use crate::server::error::{ApiError, ApiResult};
use crate::server::store::directory::{self, Catalog};
use crate::server::store::subscriptions::SubscriptionValues;

/// The most contexts one subscription may read.
pub const MAX_CONTEXTS: usize = 3;

/// The window modes an AI report may cover.
const WINDOW_MODES: [&str; 3] = ["since_last_sent", "last_n_days", "days_ago_range"];

fn invalid(field: &str, detail: impl Into<String>) -> ApiError {
    ApiError::validation("invalid_input", detail).on(field)
}

/// `ai_prompt_config`: an object whose one known key, `window`, says which
/// days an AI report covers. Replaced whole on a write; null is `{}`.
pub fn ai_prompt_config(body: &Map<String, Value>) -> ApiResult<Option<Value>> {
    const FIELD: &str = "ai_prompt_config";
    let config = match body.get(FIELD) {
        None => return Ok(None),
        Some(Value::Null) => return Ok(Some(Value::Object(Map::new()))),
        Some(Value::Object(config)) => config,
        Some(_) => return Err(invalid(FIELD, "Expected an object such as {\"window\": {...}}.")),
    };
    if let Some(unknown) = config.keys().find(|key| key.as_str() != "window") {
        return Err(invalid(
            FIELD,
            format!("Unknown key \"{unknown}\": an AI prompt configuration holds a \"window\" alone."),
        ));
    }
    let Some(window) = config.get("window") else {
        return Ok(Some(Value::Object(Map::new())));
    };
    let Value::Object(window) = window else {
        return Err(invalid(FIELD, "\"window\" must be an object."));
    };
    if let Some(unknown) = window
        .keys()
        .find(|key| !matches!(key.as_str(), "mode" | "start_days_ago" | "end_days_ago"))
    {
        return Err(invalid(
            FIELD,
            format!(
                "Unknown key \"{unknown}\" in \"window\": it holds mode, start_days_ago and end_days_ago."
            ),
        ));
    }
    let mode = match window.get("mode") {
        None => "since_last_sent",
        Some(Value::String(mode)) if WINDOW_MODES.contains(&mode.as_str()) => mode.as_str(),
        Some(other) => {
            return Err(invalid(
                FIELD,
                format!("window mode {other} is not one of: {}.", WINDOW_MODES.join(", ")),
            ));
        }
    };
    let days = |name: &str, min: i64| -> ApiResult<Option<i64>> {
        match window.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => match value.as_i64() {
                Some(days) if (min..=365).contains(&days) => Ok(Some(days)),
                _ => Err(invalid(
                    FIELD,
                    format!("window {name} must be a whole number from {min} to 365."),
                )),
            },
        }
    };
    let start = days("start_days_ago", 1)?;
    let end = days("end_days_ago", 0)?;
    match mode {
        "last_n_days" if start.is_none() => {
            return Err(invalid(FIELD, "window mode last_n_days needs start_days_ago."));
        }
        "days_ago_range" => {
            let (Some(start), Some(end)) = (start, end) else {
                return Err(invalid(
                    FIELD,
                    "window mode days_ago_range needs start_days_ago and end_days_ago.",
                ));
            };
            if end >= start {
                return Err(invalid(
                    FIELD,
                    "window end_days_ago must be fewer days ago than start_days_ago.",
                ));
            }
        }
        _ => {}
    }
    Ok(Some(Value::Object(config.clone())))
}

/// `contexts`: at most three `{"dashboard_id": N}` or `{"insight_id": N}`.
/// Left out on an update keeps them; `[]` clears them.
pub fn contexts(body: &Map<String, Value>) -> ApiResult<Option<Vec<SubscriptionContext>>> {
    const FIELD: &str = "contexts";
    let items = match body.get(FIELD) {
        None => return Ok(None),
        Some(Value::Null) => return Ok(Some(Vec::new())),
        Some(Value::Array(items)) => items,
        Some(_) => return Err(invalid(FIELD, "Expected a list of contexts.")),
    };
    if items.len() > MAX_CONTEXTS {
        return Err(ApiError::validation(
            "max_length",
            format!("Ensure this field has no more than {MAX_CONTEXTS} elements."),
        )
        .on(FIELD));
    }
    items
        .iter()
        .enumerate()
        .map(|(index, item)| {
            let field = format!("{FIELD}__{index}");
            let id = |value: &Value| {
                value
                    .as_i64()
                    .ok_or_else(|| invalid(&field, "A valid integer is required."))
            };
            let Value::Object(item) = item else {
                return Err(invalid(
                    &field,
                    "Expected {\"dashboard_id\": N} or {\"insight_id\": N}.",
                ));
            };
            match (item.get("dashboard_id"), item.get("insight_id"), item.len()) {
                (Some(dashboard), None, 1) => Ok(SubscriptionContext {
                    dashboard_id: Some(id(dashboard)?),
                    ..SubscriptionContext::default()
                }),
                (None, Some(insight), 1) => Ok(SubscriptionContext {
                    insight_id: Some(id(insight)?),
                    ..SubscriptionContext::default()
                }),
                _ => Err(invalid(
                    &field,
                    "A context is {\"dashboard_id\": N} or {\"insight_id\": N}, one of the two.",
                )),
            }
        })
        .collect::<ApiResult<Vec<_>>>()
        .map(Some)
}

/// What needs the project: the contexts name its own dashboards and
/// insights, and a window is for AI reports alone.
pub fn check(connection: &Connection, project: i64, values: &SubscriptionValues) -> ApiResult<()> {
    let is_ai = values.insight.is_none() && values.dashboard.is_none();
    let has_window = values
        .today
        .ai_prompt_config
        .as_object()
        .is_some_and(|config| !config.is_empty());
    if has_window && !is_ai {
        return Err(invalid(
            "ai_prompt_config",
            "ai_prompt_config is only valid for AI prompt subscriptions.",
        ));
    }
    for (index, context) in values.today.contexts.iter().enumerate() {
        let (catalog, id, what) = match (context.dashboard_id, context.insight_id) {
            (Some(id), _) => (Catalog::Dashboards, id, "Dashboard"),
            (None, Some(id)) => (Catalog::Insights, id, "Insight"),
            (None, None) => continue,
        };
        if !directory::catalog_has(connection, catalog, project, id)? {
            return Err(invalid(
                &format!("contexts__{index}"),
                format!("{what} {id} does not exist or does not belong to this project."),
            ));
        }
    }
    Ok(())
}

/// Re-enabling an AI report (posthog.md 15-8): its prompt must still be
/// one, and whoever created it must still be an active member, since it
/// runs with their access.
pub fn check_re_enable(
    connection: &Connection,
    project: i64,
    id: i64,
    values: &SubscriptionValues,
) -> ApiResult<()> {
    if values.insight.is_some() || values.dashboard.is_some() {
        return Ok(());
    }
    if !directory::subscription_creator_is_member(connection, project, id)? {
        return Err(invalid(
            "enabled",
            "Cannot re-enable AI subscription: the original creator is unavailable.",
        ));
    }
    if values
        .today
        .prompt
        .as_deref()
        .is_none_or(|prompt| prompt.trim().is_empty())
    {
        return Err(ApiError::validation(
            "invalid_input",
            "Cannot re-enable AI subscription: prompt is invalid",
        ));
    }
    Ok(())
}
