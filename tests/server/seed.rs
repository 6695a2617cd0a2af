//! The seed flavor (`serve --api seed`): the service as api.md and
//! compat.md describe it, kept for older self-hosted PostHog. The other
//! suites run against today's flavor (posthog.md); this smaller one checks
//! that the seed flavor still answers api.md's samples and compat.md's
//! rows where they differ from today's.

use chrono::Duration;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::support::{DEMO_INSIGHT, MEMBER, OWNER, TestServer};
use orgdeck::api::time::{format_datetime, parse_datetime};

/// api.md 2.6: the fields of a subscription, and no more.
const FIELDS: [&str; 19] = [
    "id",
    "dashboard",
    "insight",
    "target_type",
    "target_value",
    "frequency",
    "interval",
    "byweekday",
    "bysetpos",
    "count",
    "start_date",
    "until_date",
    "created_at",
    "created_by",
    "deleted",
    "title",
    "summary",
    "next_delivery_date",
    "invite_message",
];

/// Today's fields, which the seed flavor never shows (compat.md).
const TODAY_FIELDS: [&str; 9] = [
    "resource_type",
    "insight_short_id",
    "resource_name",
    "dashboard_export_insights",
    "prompt",
    "enabled",
    "integration_id",
    "summary_enabled",
    "summary_prompt_guide",
];

fn assert_subscription(subscription: &Value) {
    let keys: Vec<&str> = subscription
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    for field in FIELDS {
        assert!(
            keys.contains(&field),
            "subscription lacks {field}: {subscription}"
        );
    }
    for field in TODAY_FIELDS {
        assert!(!keys.contains(&field), "subscription has {field}: {subscription}");
    }
    serde_json::from_value::<orgdeck::api::Subscription>(subscription.clone()).unwrap();
}

/// A day at 09:00 UTC, `days` from the clock the server keeps.
fn at_nine(days: i64) -> String {
    (orgdeck::clock::system_now() + Duration::days(days))
        .format("%Y-%m-%dT09:00:00Z")
        .to_string()
}

/// The sample request of api.md, its start a few weeks back.
fn sample() -> Value {
    json!({
        "target_type": "email",
        "target_value": "oncall@hedgebox.dev",
        "frequency": "daily",
        "start_date": at_nine(-30),
    })
}

fn with(mut body: Value, field: &str, value: Value) -> Value {
    body[field] = value;
    body
}

/// api.md's sample create: 201, `interval` 1 by default, nothing to deliver
/// needed (compat.md "Subscriptions").
#[tokio::test]
async fn the_sample_request_of_the_spec_succeeds() {
    let server = TestServer::seed().await;
    let key = server.key(&["subscription:write"]);
    let created = server.post(&key, &server.subscriptions_path(), sample()).await;
    let subscription = created.expect(StatusCode::CREATED).clone();
    assert_subscription(&subscription);
    assert_eq!(subscription["interval"], 1);
    assert_eq!(subscription["deleted"], false);
    assert_eq!(subscription["summary"], "sent every day");
    assert_eq!(subscription["byweekday"], Value::Null);
    assert_eq!(
        (subscription["dashboard"].clone(), subscription["insight"].clone()),
        (Value::Null, Value::Null)
    );
    let next = parse_datetime(subscription["next_delivery_date"].as_str().unwrap()).unwrap();
    assert!(next > orgdeck::clock::system_now() + Duration::minutes(15));
    assert!(next < orgdeck::clock::system_now() + Duration::hours(25));
    assert_eq!(next.format("%H:%M").to_string(), "09:00");
    assert_eq!(subscription["created_by"]["email"], OWNER);
    // Listed the same way, and no list row shows today's fields either.
    let listed = server
        .get(&key, &format!("{}?limit=5", server.subscriptions_path()))
        .await;
    listed.expect(StatusCode::OK)["results"]
        .as_array()
        .unwrap()
        .iter()
        .for_each(assert_subscription);
}

/// Every field of api.md 2.6 comes back as sent: a Slack target needs no
/// integration, a webhook is a target, and the invite message is echoed.
#[tokio::test]
async fn every_writable_field_round_trips() {
    let server = TestServer::seed().await;
    let key = server.key(&["*"]);
    let until = (orgdeck::clock::system_now() + Duration::days(400))
        .format("%Y-%m-%dT00:00:00Z")
        .to_string();
    let slack = json!({
        "insight": DEMO_INSIGHT,
        "target_type": "slack",
        "target_value": "#metrics",
        "frequency": "monthly",
        "interval": 2,
        "byweekday": ["friday"],
        "bysetpos": -1,
        "count": 12,
        "start_date": at_nine(-30).replace("T09:", "T10:"),
        "until_date": until,
        "deleted": false,
        "title": "Last Friday numbers",
        "invite_message": "Welcome aboard",
    });
    let webhook = json!({
        "target_type": "webhook",
        "target_value": "https://hooks.hedgebox.dev/reports",
        "frequency": "yearly",
        "interval": 1,
        "start_date": at_nine(2),
        "title": "Yearly hook",
        "invite_message": null,
    });
    for (body, summary) in [
        (slack, "sent every 2 months on the last Friday"),
        (webhook, "sent every year"),
    ] {
        let created = server
            .post(&key, &server.subscriptions_path(), body.clone())
            .await;
        let subscription = created.expect(StatusCode::CREATED).clone();
        assert_subscription(&subscription);
        for (field, value) in body.as_object().unwrap() {
            assert_eq!(&subscription[field], value, "{field}");
        }
        assert_eq!(subscription["summary"], summary);
        let path = format!("{}{}/", server.subscriptions_path(), subscription["id"]);
        assert_eq!(
            server.get(&key, &path).await.expect(StatusCode::OK),
            &subscription
        );
    }
}

/// The seed's summary adds a day only with a position; its schedule may be
/// ended by PATCH; soft delete and the refused DELETE as compat.md says.
#[tokio::test]
async fn summaries_schedules_and_soft_delete_as_compat_md_says() {
    let server = TestServer::seed().await;
    let key = server.key(&["subscription:write"]);
    let created = server
        .post(&key, &server.subscriptions_path(), sample())
        .await
        .json
        .clone();
    let path = format!("{}{}/", server.subscriptions_path(), created["id"]);
    let weekly = server
        .patch(
            &key,
            &path,
            json!({"frequency": "weekly", "interval": 2, "byweekday": ["monday"]}),
        )
        .await;
    let weekly = weekly.expect(StatusCode::OK).clone();
    assert_eq!(weekly["summary"], "sent every 2 weeks");
    let next = parse_datetime(weekly["next_delivery_date"].as_str().unwrap()).unwrap();
    assert_eq!(next.format("%a").to_string(), "Mon");
    let first_monday = server
        .patch(
            &key,
            &path,
            json!({"frequency": "monthly", "interval": 1, "bysetpos": 1}),
        )
        .await;
    assert_eq!(
        first_monday.expect(StatusCode::OK)["summary"],
        "sent every month on the first Monday"
    );

    let ended = server
        .patch(&key, &path, json!({"until_date": at_nine(-29)}))
        .await;
    assert_eq!(ended.expect(StatusCode::OK)["next_delivery_date"], Value::Null);

    let deleted = server.patch(&key, &path, json!({"deleted": true})).await;
    assert_eq!(deleted.expect(StatusCode::OK)["deleted"], true);
    let refused = server.delete(&key, &path).await;
    assert_eq!(refused.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(refused.text, "");
    let kept = server.get(&key, &path).await;
    assert_eq!(kept.expect(StatusCode::OK)["deleted"], true);
    let restored = server.patch(&key, &path, json!({"deleted": false})).await;
    assert_eq!(restored.expect(StatusCode::OK)["deleted"], false);
}

/// compat.md: the reference server's search also matches targets (its
/// extension, not today's PostHog's), and webhooks are a target type to
/// filter by.
#[tokio::test]
async fn search_matches_targets_and_webhooks_are_listed() {
    let server = TestServer::seed().await;
    let key = server.key(&["subscription:read"]);
    let list = |query: &str| format!("{}?limit=1000&{query}", server.subscriptions_path());
    let by_target = server.all(&key, &list("search=%23oncall")).await;
    assert!(!by_target.is_empty() && by_target.iter().all(|row| row["target_value"] == "#oncall"));
    let hooks = server
        .all(&key, &list("target_type=webhook&search=hooks.hedgebox"))
        .await;
    assert!(!hooks.is_empty());
    assert!(hooks.iter().all(|row| {
        row["target_type"] == "webhook"
            && row["target_value"]
                .as_str()
                .is_some_and(|target| target.contains("hooks.hedgebox"))
    }));
}

/// compat.md's checks that today's PostHog does not make: addresses and
/// URLs checked, positions and counts in range, not both a dashboard and
/// an insight, another project's dashboard unknown.
#[tokio::test]
async fn compat_md_validation_that_today_does_without() {
    let server = TestServer::seed().await;
    let key = server.key(&["*"]);
    let path = server.subscriptions_path();
    let other_project_dashboard: i64 = server
        .running
        .db
        .read_blocking(|c| {
            Ok(
                c.query_row("SELECT MAX(id) FROM dashboards WHERE project_id != 1", [], |r| {
                    r.get(0)
                })?,
            )
        })
        .unwrap();
    let past = format_datetime(&(orgdeck::clock::system_now() - Duration::days(30)));
    let field = |name: &str| Some(name.to_string());
    let cases = [
        (with(sample(), "count", json!(-1)), "min_value", field("count")),
        (with(sample(), "count", json!(0)), "min_value", field("count")),
        (
            with(sample(), "bysetpos", json!(0)),
            "invalid_input",
            field("bysetpos"),
        ),
        (
            with(sample(), "bysetpos", json!(367)),
            "max_value",
            field("bysetpos"),
        ),
        (
            with(sample(), "target_value", json!("a@b.co, not-an-address")),
            "invalid_input",
            field("target_value"),
        ),
        (
            with(
                with(sample(), "target_type", json!("webhook")),
                "target_value",
                json!("ftp://x.example/"),
            ),
            "invalid_input",
            field("target_value"),
        ),
        (
            with(sample(), "dashboard", json!(other_project_dashboard)),
            "does_not_exist",
            field("dashboard"),
        ),
        (
            with(with(sample(), "dashboard", json!(1)), "insight", json!(1)),
            "invalid_input",
            None,
        ),
        (
            with(with(sample(), "start_date", json!(past)), "count", json!(1)),
            "invalid_input",
            field("start_date"),
        ),
    ];
    for (body, code, attr) in cases {
        let reply = server.post(&key, &path, body.clone()).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{body}: {}", reply.text);
        reply.expect_error(StatusCode::BAD_REQUEST, "validation_error", code, attr.as_deref());
    }
    // What today's PostHog requires, the seed does without.
    for body in [
        with(sample(), "target_type", json!("slack")),
        with(sample(), "dashboard", json!(1)),
    ] {
        server.post(&key, &path, body).await.expect(StatusCode::CREATED);
    }
}

/// compat.md "Roles": an access level, validated, 37 by default; flags as
/// a list; no default role.
#[tokio::test]
async fn roles_keep_their_access_level() {
    let server = TestServer::seed().await;
    let key = server.key(&["organization:write"]);
    let listed = server.all(&key, &server.roles_path()).await;
    let levels: Vec<i64> = listed
        .iter()
        .map(|role| role["feature_flags_access_level"].as_i64().unwrap())
        .collect();
    assert_eq!(&levels[..3], [37, 37, 21], "{listed:?}");
    for role in &listed {
        assert!(role["associated_flags"].is_array(), "{role}");
        assert!(role.get("is_default").is_none(), "{role}");
    }

    let created = server
        .post(&key, &server.roles_path(), json!({"name": "Auditors"}))
        .await;
    let role = created.expect(StatusCode::CREATED).clone();
    assert_eq!(role["feature_flags_access_level"], 37, "the default level");
    assert_eq!(role["associated_flags"], json!([]));
    let path = format!("{}{}/", server.roles_path(), role["id"].as_str().unwrap());
    let renamed = server
        .patch(
            &key,
            &path,
            json!({"name": "External auditors", "feature_flags_access_level": 21}),
        )
        .await;
    let renamed = renamed.expect(StatusCode::OK);
    assert_eq!(
        (
            renamed["name"].as_str(),
            renamed["feature_flags_access_level"].as_i64()
        ),
        (Some("External auditors"), Some(21))
    );
    // A partial update leaves the other field alone.
    let level_only = server
        .patch(&key, &path, json!({"feature_flags_access_level": 37}))
        .await;
    let level_only = level_only.expect(StatusCode::OK);
    assert_eq!(
        (
            level_only["name"].as_str(),
            level_only["feature_flags_access_level"].as_i64()
        ),
        (Some("External auditors"), Some(37))
    );
    for (level, code) in [
        (json!(5), "invalid_choice"),
        (json!("abc"), "invalid_choice"),
        (Value::Null, "null"),
    ] {
        let refused = server
            .post(
                &key,
                &server.roles_path(),
                json!({"name": "New", "feature_flags_access_level": level}),
            )
            .await;
        refused.expect_error(
            StatusCode::BAD_REQUEST,
            "validation_error",
            code,
            Some("feature_flags_access_level"),
        );
    }
}

/// compat.md "Role memberships": create, the duplicate and the unknown
/// user refused without a field, no update, delete 204.
#[tokio::test]
async fn memberships_as_compat_md_says() {
    let server = TestServer::seed().await;
    let key = server.key(&["organization:write"]);
    let roles = server.get(&key, &server.roles_path()).await.json["results"].clone();
    let path = format!(
        "{}{}/role_memberships/",
        server.roles_path(),
        roles[7]["id"].as_str().unwrap()
    );
    let uuid: String = server
        .running
        .db
        .read_blocking(
            |c| Ok(c.query_row("SELECT uuid FROM users WHERE email = ?1", [MEMBER], |r| r.get(0))?),
        )
        .unwrap();
    let created = server.post(&key, &path, json!({"user_uuid": uuid})).await;
    let membership = created.expect(StatusCode::CREATED).clone();
    assert_eq!(membership["user"]["email"], MEMBER);
    for (user, detail) in [
        (uuid.clone(), "User is already part of the role."),
        (uuid::Uuid::new_v4().to_string(), "User does not exist."),
    ] {
        let refused = server.post(&key, &path, json!({"user_uuid": user})).await;
        assert_eq!(
            refused.expect_error(StatusCode::BAD_REQUEST, "validation_error", "invalid_input", None),
            detail
        );
    }
    let one = format!("{path}{}/", membership["id"].as_str().unwrap());
    for method in [Method::PATCH, Method::PUT] {
        let reply = server
            .call(method.clone(), Some(&key), &one, Some(json!({"user_uuid": uuid})))
            .await;
        reply.expect_error(
            StatusCode::METHOD_NOT_ALLOWED,
            "invalid_request",
            "method_not_allowed",
            None,
        );
    }
    let removed = server.delete(&key, &one).await;
    assert_eq!(removed.status, StatusCode::NO_CONTENT);
    assert_eq!(server.get(&key, &path).await.json["count"], 0);
}

/// compat.md: no deliveries, test deliveries or integrations; the client
/// reads the 404 as "this server keeps no history" (posthog.md).
#[tokio::test]
async fn the_newer_endpoints_are_not_there() {
    let server = TestServer::seed().await;
    let key = server.key(&["*"]);
    let project = server.project;
    let id = server
        .post(&key, &server.subscriptions_path(), sample())
        .await
        .json["id"]
        .clone();
    for (method, path) in [
        (
            Method::GET,
            format!("/api/projects/{project}/subscriptions/{id}/deliveries/"),
        ),
        (
            Method::POST,
            format!("/api/projects/{project}/subscriptions/{id}/test-delivery/"),
        ),
        (
            Method::GET,
            format!("/api/projects/{project}/subscriptions/summary_quota/"),
        ),
        (
            Method::GET,
            format!("/api/projects/{project}/integrations/?kind=slack"),
        ),
    ] {
        let reply = server.call(method, Some(&key), &path, None).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{path}: {}", reply.text);
    }
    let client = server.client();
    let error = client
        .deliveries::<orgdeck::api::Delivery>(&project.to_string(), id.as_i64().unwrap(), None)
        .await
        .unwrap_err();
    assert!(error.keeps_no_history(), "{error}");
}
