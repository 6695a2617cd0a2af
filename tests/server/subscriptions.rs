use chrono::Duration;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{OUTSIDER, TestServer};
use orgdeck::api::time::{format_datetime, parse_datetime};

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

fn assert_subscription(subscription: &Value) {
    for field in FIELDS {
        assert!(
            subscription.get(field).is_some(),
            "subscription lacks {field}: {subscription}"
        );
    }
    assert!(subscription["id"].is_i64());
    serde_json::from_value::<orgdeck::api::Subscription>(subscription.clone()).unwrap();
}

/// A day at 09:00 UTC, `days` from the clock the server keeps (negative:
/// in the past), so that every run sees the same schedule whatever the date.
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

async fn ids_of(server: &TestServer, key: &str, query: &str) -> Vec<Value> {
    server
        .all(
            key,
            &format!("{}?limit=1000&{query}", server.subscriptions_path()),
        )
        .await
}

#[tokio::test]
async fn the_sample_request_of_the_spec_succeeds() {
    let server = TestServer::demo().await;
    let key = server.key(&["subscription:write"]);
    let created = server.post(&key, &server.subscriptions_path(), sample()).await;
    let subscription = created.expect(StatusCode::CREATED).clone();
    assert_subscription(&subscription);
    assert_eq!(subscription["interval"], 1);
    assert_eq!(subscription["deleted"], false);
    assert_eq!(subscription["summary"], "sent every day");
    assert_eq!(subscription["byweekday"], Value::Null);
    let next = parse_datetime(subscription["next_delivery_date"].as_str().unwrap()).unwrap();
    assert!(next > orgdeck::clock::system_now() + Duration::minutes(15));
    assert!(next < orgdeck::clock::system_now() + Duration::hours(25));
    assert_eq!(next.format("%H:%M").to_string(), "09:00");
    assert_eq!(subscription["created_by"]["email"], crate::support::OWNER);
}

#[tokio::test]
async fn every_writable_field_round_trips() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let insights = server
        .get(&key, &format!("/api/projects/{}/insights/", server.project))
        .await;
    let insight = insights.json["results"][0]["id"].as_i64().unwrap();
    let until = (orgdeck::clock::system_now() + Duration::days(400))
        .format("%Y-%m-%dT00:00:00Z")
        .to_string();
    let body = json!({
        "insight": insight,
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
    let created = server
        .post(&key, &server.subscriptions_path(), body.clone())
        .await;
    let subscription = created.expect(StatusCode::CREATED).clone();
    for (field, value) in body.as_object().unwrap() {
        assert_eq!(&subscription[field], value, "{field}");
    }
    assert_eq!(subscription["summary"], "sent every 2 months on the last Friday");
    let next = parse_datetime(subscription["next_delivery_date"].as_str().unwrap()).unwrap();
    assert_eq!(next.format("%a %H:%M").to_string(), "Fri 10:00");

    let path = format!("{}{}/", server.subscriptions_path(), subscription["id"]);
    assert_eq!(
        server.get(&key, &path).await.expect(StatusCode::OK),
        &subscription
    );
}

#[tokio::test]
async fn patch_changes_only_what_it_sends_and_recomputes_the_schedule() {
    let server = TestServer::demo().await;
    let key = server.key(&["subscription:write"]);
    let created = server
        .post(&key, &server.subscriptions_path(), sample())
        .await
        .json
        .clone();
    let path = format!("{}{}/", server.subscriptions_path(), created["id"]);

    let retitled = server.patch(&key, &path, json!({"title": "Renamed"})).await;
    let retitled = retitled.expect(StatusCode::OK).clone();
    assert_eq!(retitled["title"], "Renamed");
    for field in [
        "target_value",
        "frequency",
        "summary",
        "next_delivery_date",
        "start_date",
        "created_at",
    ] {
        assert_eq!(retitled[field], created[field], "{field}");
    }

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

    // Ending the schedule by PATCH is allowed and leaves no next delivery.
    let ended = server
        .patch(&key, &path, json!({"until_date": at_nine(-29)}))
        .await;
    assert_eq!(ended.expect(StatusCode::OK)["next_delivery_date"], Value::Null);
    let cleared = server
        .patch(&key, &path, json!({"until_date": null, "title": null}))
        .await;
    let cleared = cleared.expect(StatusCode::OK);
    assert!(cleared["next_delivery_date"].is_string());
    assert_eq!(cleared["title"], Value::Null);
}

#[tokio::test]
async fn soft_delete_hides_and_restore_brings_back() {
    let server = TestServer::demo().await;
    let key = server.key(&["subscription:write"]);
    let created = server
        .post(&key, &server.subscriptions_path(), sample())
        .await
        .json
        .clone();
    let id = created["id"].clone();
    let path = format!("{}{id}/", server.subscriptions_path());
    let listed = |rows: &[Value]| rows.iter().any(|row| row["id"] == id);

    let deleted = server.patch(&key, &path, json!({"deleted": true})).await;
    assert_eq!(deleted.expect(StatusCode::OK)["deleted"], true);
    assert!(!listed(&ids_of(&server, &key, "").await));
    assert!(listed(&ids_of(&server, &key, "deleted=true").await));
    assert_eq!(
        server.get(&key, &path).await.expect(StatusCode::OK)["deleted"],
        true
    );

    let restored = server.patch(&key, &path, json!({"deleted": false})).await;
    assert_eq!(restored.expect(StatusCode::OK)["deleted"], false);
    assert!(listed(&ids_of(&server, &key, "").await));
    assert!(!listed(&ids_of(&server, &key, "deleted=true").await));
}

#[tokio::test]
async fn delete_is_refused_with_an_empty_405_and_changes_nothing() {
    let server = TestServer::demo().await;
    let key = server.key(&["subscription:write"]);
    let created = server
        .post(&key, &server.subscriptions_path(), sample())
        .await
        .json
        .clone();
    for path in [
        format!("{}{}/", server.subscriptions_path(), created["id"]),
        format!("{}{}", server.subscriptions_path(), created["id"]),
    ] {
        let refused = server.delete(&key, &path).await;
        assert_eq!(refused.status, StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(refused.text, "");
        assert_eq!(server.get(&key, &path).await.expect(StatusCode::OK), &created);
    }
}

#[tokio::test]
async fn validation_errors_name_their_field() {
    let server = TestServer::demo().await;
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
    let mut cases = vec![];
    for field in ["target_type", "target_value", "frequency", "start_date"] {
        let mut body = sample();
        body.as_object_mut().unwrap().remove(field);
        cases.push((body, "required", Some(field.to_string())));
        cases.push((
            with(sample(), field, Value::Null),
            "null",
            Some(field.to_string()),
        ));
    }
    let field = |name: &str| Some(name.to_string());
    cases.extend([
        (
            with(sample(), "target_type", json!("pager")),
            "invalid_choice",
            field("target_type"),
        ),
        (
            with(sample(), "frequency", json!("hourly")),
            "invalid_choice",
            field("frequency"),
        ),
        (
            with(sample(), "interval", json!(0)),
            "min_value",
            field("interval"),
        ),
        (
            with(sample(), "interval", json!(2_147_483_648_i64)),
            "max_value",
            field("interval"),
        ),
        (
            with(sample(), "interval", json!("often")),
            "invalid",
            field("interval"),
        ),
        (
            with(sample(), "interval", json!(1.5)),
            "invalid",
            field("interval"),
        ),
        (with(sample(), "count", json!(-1)), "min_value", field("count")),
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
            with(sample(), "byweekday", json!("monday")),
            "not_a_list",
            field("byweekday"),
        ),
        (
            with(sample(), "byweekday", json!(["monday", "funday"])),
            "invalid_choice",
            field("byweekday__1"),
        ),
        (
            with(sample(), "start_date", json!("tomorrow")),
            "invalid",
            field("start_date"),
        ),
        (
            with(sample(), "start_date", json!(20260101)),
            "invalid",
            field("start_date"),
        ),
        (
            with(sample(), "until_date", json!("2026-13-01T00:00:00Z")),
            "invalid",
            field("until_date"),
        ),
        (
            with(sample(), "deleted", json!("perhaps")),
            "invalid",
            field("deleted"),
        ),
        (
            with(sample(), "title", json!("t".repeat(101))),
            "max_length",
            field("title"),
        ),
        (
            with(sample(), "target_value", json!("")),
            "blank",
            field("target_value"),
        ),
        (
            with(sample(), "target_value", json!("a@b.co, not-an-address")),
            "invalid",
            field("target_value"),
        ),
        (
            with(
                with(sample(), "target_type", json!("webhook")),
                "target_value",
                json!("ftp://x.example/"),
            ),
            "invalid",
            field("target_value"),
        ),
        (
            with(sample(), "dashboard", json!(999_999)),
            "does_not_exist",
            field("dashboard"),
        ),
        (
            with(sample(), "insight", json!(999_999)),
            "does_not_exist",
            field("insight"),
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
        (
            with(sample(), "until_date", json!(at_nine(-29))),
            "invalid_input",
            field("start_date"),
        ),
    ]);
    for (body, code, attr) in cases {
        let reply = server.post(&key, &path, body.clone()).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{body}: {}", reply.text);
        reply.expect_error(StatusCode::BAD_REQUEST, "validation_error", code, attr.as_deref());
    }
    let ended = server
        .post(&key, &path, with(sample(), "until_date", json!(at_nine(-29))))
        .await;
    assert_eq!(
        ended.json["detail"],
        "Subscription schedule has reached its end date. Extend until_date or remove count."
    );
    // Title may be blank or null; unknown fields are ignored.
    let blank = with(with(sample(), "title", json!("")), "nonsense", json!({"a": 1}));
    server.post(&key, &path, blank).await.expect(StatusCode::CREATED);
    server
        .post(&key, &path, with(sample(), "title", Value::Null))
        .await
        .expect(StatusCode::CREATED);
}

#[tokio::test]
async fn filters_and_orderings() {
    let server = TestServer::demo().await;
    let key = server.key(&["subscription:read"]);
    let all = ids_of(&server, &key, "").await;
    assert!(all.len() > 240);
    assert!(all.iter().all(|row| row["deleted"] == false));

    let slack = ids_of(&server, &key, "target_type=slack").await;
    assert!(!slack.is_empty() && slack.iter().all(|row| row["target_type"] == "slack"));
    assert!(slack.len() < all.len());

    let insight = all.iter().find_map(|row| row["insight"].as_i64()).unwrap();
    let by_insight = ids_of(&server, &key, &format!("insight={insight}")).await;
    assert!(!by_insight.is_empty() && by_insight.iter().all(|row| row["insight"] == insight));
    let dashboard = all.iter().find_map(|row| row["dashboard"].as_i64()).unwrap();
    let by_dashboard = ids_of(&server, &key, &format!("dashboard={dashboard}")).await;
    assert!(!by_dashboard.is_empty() && by_dashboard.iter().all(|row| row["dashboard"] == dashboard));

    let deleted = ids_of(&server, &key, "deleted=true").await;
    assert!(!deleted.is_empty() && deleted.iter().all(|row| row["deleted"] == true));
    let tenth = deleted.len() as f64 / (deleted.len() + all.len()) as f64;
    assert!(
        (0.07..0.13).contains(&tenth),
        "about a tenth soft-deleted, got {tenth}"
    );

    let searched = ids_of(&server, &key, "search=board%20PACK").await;
    assert!(!searched.is_empty());
    assert!(searched.iter().all(|row| {
        row["title"]
            .as_str()
            .unwrap()
            .to_lowercase()
            .contains("board pack")
    }));
    let by_target = ids_of(&server, &key, "search=%23oncall").await;
    assert!(!by_target.is_empty() && by_target.iter().all(|row| row["target_value"] == "#oncall"));
    // The insight's name finds subscriptions of that insight.
    let by_name = ids_of(&server, &key, "search=Weekly%20active%20users").await;
    assert!(!by_name.is_empty());
    // Wildcards are literal.
    assert!(ids_of(&server, &key, "search=%25%25%25").await.is_empty());

    let next: Vec<Option<String>> = ids_of(&server, &key, "ordering=next_delivery_date")
        .await
        .iter()
        .map(|row| row["next_delivery_date"].as_str().map(str::to_string))
        .collect();
    let dated: Vec<&String> = next.iter().flatten().collect();
    assert!(dated.windows(2).all(|pair| pair[0] <= pair[1]));
    assert!(
        next.iter().skip_while(|date| date.is_some()).all(Option::is_none),
        "nulls last ascending"
    );
    assert!(
        next.iter().any(Option::is_none),
        "the demo has finished schedules"
    );

    let newest_first = ids_of(&server, &key, "ordering=-next_delivery_date").await;
    assert!(
        newest_first[0]["next_delivery_date"].is_null(),
        "nulls first descending"
    );

    let titles: Vec<String> = ids_of(&server, &key, "ordering=title")
        .await
        .iter()
        .filter_map(|row| row["title"].as_str().map(str::to_lowercase))
        .collect();
    assert!(titles.windows(2).all(|pair| pair[0] <= pair[1]));

    let created: Vec<String> = all
        .iter()
        .map(|row| row["created_at"].as_str().unwrap().to_string())
        .collect();
    assert!(
        created.windows(2).all(|pair| pair[0] >= pair[1]),
        "newest first by default"
    );
    let unknown = ids_of(&server, &key, "ordering=target_value").await;
    assert_eq!(unknown, all, "an ordering that is not allowed is ignored");

    server
        .get(&key, &format!("{}?deleted=maybe", server.subscriptions_path()))
        .await
        .expect_error(
            StatusCode::BAD_REQUEST,
            "validation_error",
            "invalid",
            Some("deleted"),
        );
    server
        .get(&key, &format!("{}?insight=abc", server.subscriptions_path()))
        .await
        .expect_error(
            StatusCode::BAD_REQUEST,
            "validation_error",
            "invalid",
            Some("insight"),
        );
}

#[tokio::test]
async fn unknown_ids_and_projects() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    for id in ["999999", "abc", "-1", "1.5"] {
        let path = format!("{}{id}/", server.subscriptions_path());
        server.get(&key, &path).await.expect_error(
            StatusCode::NOT_FOUND,
            "invalid_request",
            "not_found",
            None,
        );
        server
            .patch(&key, &path, json!({"title": "x"}))
            .await
            .expect_error(StatusCode::NOT_FOUND, "invalid_request", "not_found", None);
    }
    for project in ["424242", "abc"] {
        server
            .get(&key, &format!("/api/projects/{project}/subscriptions/"))
            .await
            .expect_error(StatusCode::NOT_FOUND, "invalid_request", "not_found", None);
    }
    let outsider = server.key_for(OUTSIDER, &["*"]);
    server
        .get(&outsider, &server.subscriptions_path())
        .await
        .expect_error(
            StatusCode::FORBIDDEN,
            "authentication_error",
            "permission_denied",
            None,
        );
}

#[tokio::test]
async fn demo_data_covers_every_combination() {
    let server = TestServer::demo().await;
    let key = server.key(&["subscription:read"]);
    let mut rows = ids_of(&server, &key, "").await;
    rows.extend(ids_of(&server, &key, "deleted=true").await);
    let mut combinations = std::collections::HashSet::new();
    for row in &rows {
        if let Some([day]) = row["byweekday"].as_array().map(Vec::as_slice) {
            combinations.insert((
                row["target_type"].to_string(),
                row["frequency"].to_string(),
                day.to_string(),
                row["bysetpos"].to_string(),
            ));
        }
    }
    assert_eq!(combinations.len(), 3 * 4 * 7 * 6);
    assert!(rows.iter().any(|row| row["count"].is_i64()));
    assert!(rows.iter().any(|row| row["until_date"].is_string()));
    let now = format_datetime(&orgdeck::clock::system_now());
    assert!(
        rows.iter()
            .any(|row| row["next_delivery_date"].as_str().is_some_and(|at| *at < *now)),
        "some deliveries are overdue"
    );
    let subscriptions_of_second_project = server.get(&key, "/api/projects/2/subscriptions/").await;
    assert!(
        subscriptions_of_second_project.expect(StatusCode::OK)["count"]
            .as_i64()
            .unwrap()
            > 0
    );
}
