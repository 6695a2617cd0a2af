//! Every subscription and delivery the server sends, checked against
//! PostHog's newest generated API types for them
//! (`products/subscriptions/frontend/generated/api.schemas.ts`:
//! `SubscriptionApi`, `UserBasicApi`, `AIPromptConfigApi`,
//! `SubscriptionDeliveryApi`), transcribed below field by field. As in
//! TypeScript, fields the types do not name are allowed (`contexts`,
//! `ai_report_charts`, posthog.md 15); a field they name must have its type,
//! and one they require must be there.
//!
//! One documented exception: rows stored before PostHog removed webhooks
//! keep `target_type: "webhook"` (posthog.md 15-9), which the newest enum no
//! longer lists; the demo has at most three, all paused.

use reqwest::StatusCode;
use serde_json::{Map, Value};

use crate::support::TestServer;

type Object = Map<String, Value>;

/// One field's check: its name, whether it must be there, and the test its
/// value must pass.
struct Field {
    name: &'static str,
    required: bool,
    valid: fn(&Value) -> bool,
}

const fn required(name: &'static str, valid: fn(&Value) -> bool) -> Field {
    Field {
        name,
        required: true,
        valid,
    }
}

const fn optional(name: &'static str, valid: fn(&Value) -> bool) -> Field {
    Field {
        name,
        required: false,
        valid,
    }
}

fn int(value: &Value) -> bool {
    value.is_i64() || value.is_u64()
}

fn int32(value: &Value) -> bool {
    value.as_i64().is_some_and(|n| i32::try_from(n).is_ok())
}

fn string(value: &Value) -> bool {
    value.is_string()
}

fn boolean(value: &Value) -> bool {
    value.is_boolean()
}

fn nullable(value: &Value, inner: fn(&Value) -> bool) -> bool {
    value.is_null() || inner(value)
}

fn one_of(value: &Value, choices: &[&str]) -> bool {
    value.as_str().is_some_and(|text| choices.contains(&text))
}

fn max_chars(value: &Value, max: usize) -> bool {
    value.as_str().is_some_and(|text| text.chars().count() <= max)
}

fn datetime(value: &Value) -> bool {
    value
        .as_str()
        .is_some_and(|text| chrono::DateTime::parse_from_rfc3339(text).is_ok())
}

const WEEKDAYS: [&str; 7] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

const ROLES_AT_ORGANIZATION: [&str; 9] = [
    "engineering",
    "data",
    "product",
    "founder",
    "leadership",
    "marketing",
    "sales",
    "other",
    "",
];

const USER_BASIC: [Field; 9] = [
    required("id", int),
    required("uuid", |v| {
        v.as_str().is_some_and(|t| uuid::Uuid::parse_str(t).is_ok())
    }),
    optional("distinct_id", |v| nullable(v, |v| max_chars(v, 200))),
    optional("first_name", |v| max_chars(v, 150)),
    optional("last_name", |v| max_chars(v, 150)),
    required("email", |v| max_chars(v, 254)),
    optional("is_email_verified", |v| nullable(v, boolean)),
    required("hedgehog_config", |v| v.is_null() || v.is_object()),
    optional("role_at_organization", |v| {
        v.is_null() || one_of(v, &ROLES_AT_ORGANIZATION)
    }),
];

fn user_basic(value: &Value) -> bool {
    value
        .as_object()
        .is_some_and(|user| problems(user, &USER_BASIC).is_empty())
}

fn ai_prompt_config(value: &Value) -> bool {
    let Some(config) = value.as_object() else {
        return false;
    };
    match config.get("window") {
        None => true,
        Some(window) => window.as_object().is_some_and(|window| {
            let days = |name: &str, min: i64| {
                window
                    .get(name)
                    .is_none_or(|v| v.is_null() || v.as_i64().is_some_and(|n| (min..=365).contains(&n)))
            };
            window
                .get("mode")
                .is_none_or(|mode| one_of(mode, &["since_last_sent", "last_n_days", "days_ago_range"]))
                && days("start_days_ago", 1)
                && days("end_days_ago", 0)
        }),
    }
}

/// `SubscriptionApi`, in its order. `send_test_now` is write-only: allowed,
/// never required.
const SUBSCRIPTION: [Field; 30] = [
    required("id", int),
    required("resource_type", |v| {
        one_of(v, &["insight", "dashboard", "ai_prompt"])
    }),
    optional("dashboard", |v| nullable(v, int)),
    optional("insight", |v| nullable(v, int)),
    required("insight_short_id", |v| nullable(v, string)),
    required("resource_name", |v| nullable(v, string)),
    optional("dashboard_export_insights", |v| {
        v.as_array().is_some_and(|ids| ids.iter().all(int))
    }),
    optional("prompt", |v| nullable(v, |v| max_chars(v, 4000))),
    optional("ai_prompt_config", ai_prompt_config),
    required("target_type", |v| one_of(v, &["email", "slack"])),
    required("target_value", string),
    required("frequency", |v| {
        one_of(v, &["daily", "weekly", "monthly", "yearly"])
    }),
    required("interval", |v| {
        v.as_i64().is_some_and(|n| (1..=i64::from(i32::MAX)).contains(&n))
    }),
    optional("byweekday", |v| {
        v.is_null()
            || v.as_array()
                .is_some_and(|days| days.iter().all(|day| one_of(day, &WEEKDAYS)))
    }),
    optional("bysetpos", |v| nullable(v, int32)),
    optional("count", |v| nullable(v, int32)),
    required("start_date", datetime),
    optional("until_date", |v| nullable(v, datetime)),
    required("created_at", datetime),
    required("created_by", user_basic),
    optional("deleted", boolean),
    optional("enabled", boolean),
    optional("title", |v| nullable(v, |v| max_chars(v, 100))),
    required("summary", string),
    required("next_delivery_date", |v| nullable(v, datetime)),
    optional("integration_id", |v| nullable(v, int)),
    optional("invite_message", |v| nullable(v, string)),
    optional("send_test_now", boolean),
    optional("summary_enabled", boolean),
    optional("summary_prompt_guide", |v| max_chars(v, 500)),
];

fn recipient_results(value: &Value) -> bool {
    value.as_array().is_some_and(|results| {
        results.iter().all(|result| {
            result.get("recipient").is_some_and(Value::is_string)
                && result
                    .get("status")
                    .is_some_and(|status| one_of(status, &["success", "failed", "partial"]))
        })
    })
}

/// `SubscriptionDeliveryApi`, in its order.
const DELIVERY: [Field; 20] = [
    required("id", |v| {
        v.as_str().is_some_and(|t| uuid::Uuid::parse_str(t).is_ok())
    }),
    required("subscription", int),
    required("temporal_workflow_id", string),
    required("idempotency_key", string),
    required("trigger_type", string),
    required("scheduled_at", |v| nullable(v, datetime)),
    required("target_type", string),
    required("target_value", string),
    required("exported_asset_ids", |v| {
        v.as_array().is_some_and(|ids| ids.iter().all(int32))
    }),
    required("content_snapshot", |_| true),
    required("recipient_results", recipient_results),
    required("status", |v| {
        one_of(v, &["starting", "completed", "failed", "skipped"])
    }),
    required("error", |_| true),
    required("created_at", datetime),
    required("last_updated_at", datetime),
    required("finished_at", |v| nullable(v, datetime)),
    required("change_summary", |v| nullable(v, string)),
    required("ai_report", |v| nullable(v, string)),
    required("ai_report_diagnostics", |v| v.is_null() || v.is_array()),
    required("ai_report_prompt", |v| nullable(v, string)),
];

/// What is wrong with `object` against `fields`.
fn problems(object: &Object, fields: &[Field]) -> Vec<String> {
    fields
        .iter()
        .filter_map(|field| match object.get(field.name) {
            None if field.required => Some(format!("{} is missing", field.name)),
            None => None,
            Some(value) if !(field.valid)(value) => Some(format!("{} = {value}", field.name)),
            Some(_) => None,
        })
        .collect()
}

/// Every row of a paged list, following `next`.
async fn walk(server: &TestServer, key: &str, path: &str) -> Vec<Value> {
    let mut rows = Vec::new();
    let mut next = Some(server.url(path));
    while let Some(url) = next {
        let page = server.http.get(&url).bearer_auth(key).send().await.unwrap();
        assert_eq!(page.status(), StatusCode::OK, "{url}");
        let page: Value = page.json().await.unwrap();
        rows.extend(page["results"].as_array().unwrap().iter().cloned());
        next = page["next"].as_str().map(str::to_string);
        assert!(rows.len() < 100_000, "the list never ends");
    }
    rows
}

#[tokio::test]
async fn every_subscription_and_delivery_fits_posthog_s_generated_types() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let projects: Vec<i64> = server.get(&key, "/api/projects/").await.json["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|project| project["id"].as_i64().unwrap())
        .collect();
    let (mut subscriptions, mut deliveries, mut legacy) = (0, 0, 0);
    for project in projects {
        let base = format!("/api/projects/{project}/subscriptions/");
        let mut rows = walk(&server, &key, &format!("{base}?limit=100")).await;
        rows.extend(walk(&server, &key, &format!("{base}?limit=100&deleted=true")).await);
        for row in &rows {
            let object = row.as_object().unwrap();
            let mut wrong = problems(object, &SUBSCRIPTION);
            // posthog.md 15-9: a legacy row keeps its webhook, paused.
            if row["target_type"] == "webhook" {
                legacy += 1;
                assert_eq!(row["enabled"], false, "a webhook row is never active: {row}");
                wrong.retain(|problem| !problem.starts_with("target_type"));
            }
            assert!(wrong.is_empty(), "subscription {}: {wrong:?}", row["id"]);
            subscriptions += 1;
            let id = row["id"].as_i64().unwrap();
            for delivery in walk(&server, &key, &format!("{base}{id}/deliveries/")).await {
                let wrong = problems(delivery.as_object().unwrap(), &DELIVERY);
                assert!(wrong.is_empty(), "delivery of {id}: {wrong:?} in {delivery}");
                deliveries += 1;
            }
        }
    }
    assert!(
        subscriptions >= 100 && deliveries > 1_000,
        "{subscriptions} and {deliveries}"
    );
    assert!((1..=3).contains(&legacy), "{legacy} legacy webhook rows");
}

#[test]
fn the_checks_can_fail() {
    let good: Value = serde_json::json!({"recipient": "a@x.dev", "status": "success"});
    assert!(recipient_results(&Value::Array(vec![good])));
    assert!(!recipient_results(
        &serde_json::json!([{"recipient": "a", "status": "maybe"}])
    ));
    let mut object = Object::new();
    object.insert("target_type".into(), Value::String("teams".into()));
    let wrong = problems(&object, &SUBSCRIPTION);
    assert!(
        wrong.iter().any(|problem| problem.starts_with("target_type")),
        "{wrong:?}"
    );
    assert!(
        wrong.iter().any(|problem| problem == "id is missing"),
        "{wrong:?}"
    );
    assert!(!ai_prompt_config(
        &serde_json::json!({"window": {"start_days_ago": 0}})
    ));
    assert!(!user_basic(
        &serde_json::json!({"id": 1, "uuid": "x", "email": "a", "hedgehog_config": null})
    ));
}
