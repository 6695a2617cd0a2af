//! `/api/projects/:project_id/subscriptions`

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use super::page_of;
use super::scope::{SUBSCRIPTION_READ, SUBSCRIPTION_WRITE};
use crate::api::{Frequency, Page, Subscription, TargetType, Weekday};
use crate::server::AppState;
use crate::server::auth::{Caller, PathParams};
use crate::server::body::JsonObject;
use crate::server::error::{ApiError, ApiResult};
use crate::server::fields::{self, parse_bool};
use crate::server::paging::ListRequest;
use crate::server::store::directory::{self, Catalog};
use crate::server::store::subscriptions::{self, Computed, ListQuery, SortKey, SubscriptionValues};

const TITLE_MAX: usize = 100;
const INT32_MAX: i64 = i32::MAX as i64;

pub async fn list(
    State(app): State<AppState>,
    caller: Caller,
    PathParams(project): PathParams<String>,
    request: ListRequest,
) -> ApiResult<Json<Page<Subscription>>> {
    caller.require(SUBSCRIPTION_READ)?;
    let project = caller.project(&app.db, &project).await?;
    let query = list_query(&request)?;
    let db = app.db.clone();
    page_of(&app.db, request, move |connection, page| {
        subscriptions::list(db.counts(), connection, project, &query, page)
    })
    .await
}

/// The filters and ordering of compat.md from the query string.
fn list_query(request: &ListRequest) -> ApiResult<ListQuery> {
    let text = |name: &str| request.param(name).map(str::trim).filter(|text| !text.is_empty());
    let id_filter = |name: &str| -> ApiResult<Option<i64>> {
        text(name)
            .map(|text| {
                text.parse::<i64>()
                    .map_err(|_| ApiError::validation("invalid", "Enter a number.").on(name))
            })
            .transpose()
    };
    let deleted = text("deleted")
        .map(|text| {
            parse_bool(text)
                .ok_or_else(|| ApiError::validation("invalid", "Must be a valid boolean.").on("deleted"))
        })
        .transpose()?
        .unwrap_or(false);
    // DRF's ordering filter ignores a field it does not allow.
    let (sort, descending) = text("ordering")
        .and_then(parse_ordering)
        .unwrap_or((SortKey::CreatedAt, true));
    Ok(ListQuery {
        deleted,
        insight: id_filter("insight")?,
        dashboard: id_filter("dashboard")?,
        target_type: text("target_type").map(str::to_string),
        search: text("search").map(str::to_string),
        sort,
        descending,
    })
}

/// `created_at`, `next_delivery_date` or `title`, with `-` for descending.
fn parse_ordering(text: &str) -> Option<(SortKey, bool)> {
    let (descending, name) = match text.strip_prefix('-') {
        Some(name) => (true, name),
        None => (false, text),
    };
    let sort = match name {
        "created_at" => SortKey::CreatedAt,
        "next_delivery_date" => SortKey::NextDeliveryDate,
        "title" => SortKey::Title,
        _ => return None,
    };
    Some((sort, descending))
}

/// The subscription id of a path; one that is not an integer is unknown.
fn subscription_id(raw: &str) -> ApiResult<i64> {
    raw.parse().map_err(|_| ApiError::not_found())
}

pub async fn retrieve(
    State(app): State<AppState>,
    caller: Caller,
    PathParams((project, id)): PathParams<(String, String)>,
) -> ApiResult<Json<Subscription>> {
    caller.require(SUBSCRIPTION_READ)?;
    let project = caller.project(&app.db, &project).await?;
    let id = subscription_id(&id)?;
    let subscription = app
        .db
        .read(move |connection| subscriptions::get(connection, project, id))
        .await?;
    Ok(Json(subscription))
}

pub async fn create(
    State(app): State<AppState>,
    caller: Caller,
    PathParams(project): PathParams<String>,
    body: Result<JsonObject, ApiError>,
) -> ApiResult<(StatusCode, Json<Subscription>)> {
    caller.require(SUBSCRIPTION_WRITE)?;
    let project = caller.project(&app.db, &project).await?;
    let JsonObject(body) = body?;
    let values = Changes::parse(&body)?.into_new()?;
    check_target(&values)?;
    let now = app.clock.now();
    // Recurrences can take a while to walk: off the async workers, and
    // before the write lock is taken.
    let (values, computed) = tokio::task::spawn_blocking(move || {
        let computed = Computed::of(&values, now);
        (values, computed)
    })
    .await
    .map_err(ApiError::internal)?;
    if computed.next_delivery_date.is_none() {
        return Err(ApiError::validation(
            "invalid_input",
            "Subscription schedule has reached its end date. Extend until_date or remove count.",
        )
        .on("start_date"));
    }
    let user_id = caller.key.user_id;
    let subscription = app
        .db
        .write(move |tx| {
            check_catalog(tx, project, &values)?;
            let id = subscriptions::insert(tx, project, user_id, now, &values, &computed)?;
            subscriptions::get(tx, project, id)
        })
        .await?;
    Ok((StatusCode::CREATED, Json(subscription)))
}

pub async fn update(
    State(app): State<AppState>,
    caller: Caller,
    PathParams((project, id)): PathParams<(String, String)>,
    body: Result<JsonObject, ApiError>,
) -> ApiResult<Json<Subscription>> {
    caller.require(SUBSCRIPTION_WRITE)?;
    let project = caller.project(&app.db, &project).await?;
    let id = subscription_id(&id)?;
    let JsonObject(body) = body?;
    let changes = Changes::parse(&body)?;
    let now = app.clock.now();
    let subscription = app
        .db
        .write(move |tx| {
            let stored = subscriptions::stored_values(tx, project, id)?;
            let values = changes.apply(stored.clone());
            check_target(&values)?;
            if values.dashboard != stored.dashboard || values.insight != stored.insight {
                check_catalog(tx, project, &values)?;
            }
            let computed = values
                .schedule_differs(&stored)
                .then(|| Computed::of(&values, now));
            subscriptions::update(tx, id, &values, computed.as_ref())?;
            subscriptions::get(tx, project, id)
        })
        .await?;
    Ok(Json(subscription))
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

/// The writable fields a body sends: `None` for a field left out; for a
/// nullable field, `Some(None)` for an explicit null.
#[derive(Debug, Default)]
struct Changes {
    dashboard: Option<Option<i64>>,
    insight: Option<Option<i64>>,
    target_type: Option<TargetType>,
    target_value: Option<String>,
    frequency: Option<Frequency>,
    interval: Option<i64>,
    byweekday: Option<Option<Vec<Weekday>>>,
    bysetpos: Option<Option<i64>>,
    count: Option<Option<i64>>,
    start_date: Option<DateTime<Utc>>,
    until_date: Option<Option<DateTime<Utc>>>,
    deleted: Option<bool>,
    title: Option<Option<String>>,
    invite_message: Option<Option<String>>,
}

impl Changes {
    /// Reads and checks every field present, in the order of api.md 2.6.
    fn parse(body: &Map<String, Value>) -> ApiResult<Changes> {
        let bysetpos = fields::ranged_integer(body, "bysetpos", -366, 366)?.nullable();
        if bysetpos == Some(Some(0)) {
            return Err(ApiError::validation(
                "invalid_input",
                "bysetpos must be a non-zero integer from -366 to 366.",
            )
            .on("bysetpos"));
        }
        Ok(Changes {
            dashboard: fields::integer(body, "dashboard")?.nullable(),
            insight: fields::integer(body, "insight")?.nullable(),
            target_type: fields::choice(body, "target_type")?.not_null("target_type")?,
            target_value: fields::checked_string(body, "target_value", None, false)?
                .not_null("target_value")?,
            frequency: fields::choice(body, "frequency")?.not_null("frequency")?,
            interval: fields::ranged_integer(body, "interval", 1, INT32_MAX)?.not_null("interval")?,
            byweekday: fields::choice_list(body, "byweekday")?.nullable(),
            bysetpos,
            count: fields::ranged_integer(body, "count", 1, INT32_MAX)?.nullable(),
            start_date: fields::datetime(body, "start_date")?.not_null("start_date")?,
            until_date: fields::datetime(body, "until_date")?.nullable(),
            deleted: fields::boolean(body, "deleted")?.not_null("deleted")?,
            title: fields::checked_string(body, "title", Some(TITLE_MAX), true)?.nullable(),
            invite_message: fields::checked_string(body, "invite_message", None, true)?.nullable(),
        })
    }

    /// The values of a new subscription; the four fields compat.md names
    /// are required.
    fn into_new(self) -> ApiResult<SubscriptionValues> {
        let required = |name: &str| ApiError::required(name);
        Ok(SubscriptionValues {
            target_type: self.target_type.clone().ok_or_else(|| required("target_type"))?,
            target_value: self
                .target_value
                .clone()
                .ok_or_else(|| required("target_value"))?,
            frequency: self.frequency.clone().ok_or_else(|| required("frequency"))?,
            start_date: self.start_date.ok_or_else(|| required("start_date"))?,
            dashboard: self.dashboard.flatten(),
            insight: self.insight.flatten(),
            interval: self.interval.unwrap_or(1),
            byweekday: self.byweekday.clone().flatten(),
            bysetpos: self.bysetpos.flatten(),
            count: self.count.flatten(),
            until_date: self.until_date.flatten(),
            deleted: self.deleted.unwrap_or(false),
            title: self.title.clone().flatten(),
            invite_message: self.invite_message.clone().flatten(),
        })
    }

    /// The stored values with these changes applied.
    fn apply(self, stored: SubscriptionValues) -> SubscriptionValues {
        SubscriptionValues {
            dashboard: self.dashboard.unwrap_or(stored.dashboard),
            insight: self.insight.unwrap_or(stored.insight),
            target_type: self.target_type.unwrap_or(stored.target_type),
            target_value: self.target_value.unwrap_or(stored.target_value),
            frequency: self.frequency.unwrap_or(stored.frequency),
            interval: self.interval.unwrap_or(stored.interval),
            byweekday: self.byweekday.unwrap_or(stored.byweekday),
            bysetpos: self.bysetpos.unwrap_or(stored.bysetpos),
            count: self.count.unwrap_or(stored.count),
            start_date: self.start_date.unwrap_or(stored.start_date),
            until_date: self.until_date.unwrap_or(stored.until_date),
            deleted: self.deleted.unwrap_or(stored.deleted),
            title: self.title.unwrap_or(stored.title),
            invite_message: self.invite_message.unwrap_or(stored.invite_message),
        }
    }
}

/// The target value must suit the target type.
fn check_target(values: &SubscriptionValues) -> ApiResult<()> {
    let invalid = |detail: String| ApiError::validation("invalid", detail).on("target_value");
    let value = values.target_value.trim();
    match values.target_type {
        TargetType::Email => {
            for address in value.split(',').map(str::trim) {
                if !is_email(address) {
                    return Err(invalid(format!(
                        "Enter valid e-mail addresses separated by commas; \"{address}\" is not one."
                    )));
                }
            }
        }
        TargetType::Webhook => {
            let url = url::Url::parse(value).ok().filter(|url| {
                matches!(url.scheme(), "http" | "https")
                    && url.host_str().is_some_and(|host| !host.is_empty())
            });
            if url.is_none() {
                return Err(invalid("Enter a valid http or https URL for the webhook.".into()));
            }
        }
        TargetType::Slack | TargetType::Other(_) => {}
    }
    Ok(())
}

/// A plain check of an e-mail address: one `@`, a local part, and a domain
/// with a dot, no spaces.
fn is_email(address: &str) -> bool {
    let Some((local, domain)) = address.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && !domain.contains('@')
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !address.chars().any(|c| c.is_whitespace() || c == ',')
}

/// A dashboard or insight given must be one of the project's; not both.
fn check_catalog(
    connection: &rusqlite::Connection,
    project: i64,
    values: &SubscriptionValues,
) -> ApiResult<()> {
    if values.dashboard.is_some() && values.insight.is_some() {
        return Err(ApiError::validation(
            "invalid_input",
            "A subscription delivers either a dashboard or an insight, not both.",
        ));
    }
    for (catalog, field, id) in [
        (Catalog::Dashboards, "dashboard", values.dashboard),
        (Catalog::Insights, "insight", values.insight),
    ] {
        if let Some(id) = id
            && !directory::catalog_has(connection, catalog, project, id)?
        {
            return Err(ApiError::validation(
                "does_not_exist",
                format!("Invalid pk \"{id}\" - object does not exist."),
            )
            .on(field));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn email_lists_are_checked_address_by_address() {
        for good in ["a@b.co", "first.last+tag@sub.example.org"] {
            assert!(is_email(good), "{good}");
        }
        for bad in ["", "a", "a@b", "@b.co", "a@.co", "a b@c.co", "a@b@c.co"] {
            assert!(!is_email(bad), "{bad}");
        }
    }
}
