//! posthog.md §9 and 8.4 against the current flavor: a subscription's
//! deliveries (fields, cursor paging, status filter), what records one,
//! test deliveries with their own throttle, the summary quota, and the
//! outcomes the reference server fixes in advance.

use std::collections::HashSet;

use chrono::Duration;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::support::{MEMBER, Reply, TestServer};
use crate::today::{Today, date, keys};

/// §9 and 15-6: every field of a delivery, sorted.
const FIELDS: [&str; 21] = [
    "ai_report",
    "ai_report_charts",
    "ai_report_diagnostics",
    "ai_report_prompt",
    "change_summary",
    "content_snapshot",
    "created_at",
    "error",
    "exported_asset_ids",
    "finished_at",
    "id",
    "idempotency_key",
    "last_updated_at",
    "recipient_results",
    "scheduled_at",
    "status",
    "subscription",
    "target_type",
    "target_value",
    "temporal_workflow_id",
    "trigger_type",
];

/// Checks one delivery of `subscription` against §9.
#[track_caller]
fn assert_delivery(delivery: &Value, subscription: i64) {
    assert_eq!(keys(delivery), FIELDS, "{delivery}");
    uuid::Uuid::parse_str(delivery["id"].as_str().unwrap()).unwrap();
    assert_eq!(delivery["subscription"], subscription, "{delivery}");
    let trigger = delivery["trigger_type"].as_str().unwrap();
    assert!(
        ["scheduled", "target_change", "manual"].contains(&trigger),
        "{delivery}"
    );
    let status = delivery["status"].as_str().unwrap();
    assert!(
        ["starting", "completed", "failed", "skipped"].contains(&status),
        "{delivery}"
    );
    assert!(delivery["target_type"].is_string() && delivery["target_value"].is_string());
    assert!(
        delivery["exported_asset_ids"]
            .as_array()
            .unwrap()
            .iter()
            .all(Value::is_i64),
        "{delivery}"
    );
    assert!(delivery["content_snapshot"].is_object(), "{delivery}");
    for result in delivery["recipient_results"].as_array().unwrap() {
        let fields = keys(result);
        assert!(
            fields.contains(&"recipient") && fields.contains(&"status"),
            "{delivery}"
        );
        assert!(
            fields
                .iter()
                .all(|field| ["error", "recipient", "status"].contains(field))
        );
        assert!(result["recipient"].is_string(), "{delivery}");
        let status = result["status"].as_str().unwrap();
        assert!(["success", "failed", "partial"].contains(&status), "{delivery}");
        match result.get("error") {
            None | Some(Value::Null) => assert_eq!(status, "success", "{delivery}"),
            Some(error) => {
                assert_eq!(keys(error), ["message", "type"], "{delivery}");
                assert!(!error["message"].as_str().unwrap().is_empty());
            }
        }
    }
    assert!(
        delivery["error"].is_null() || delivery["error"].is_object(),
        "{delivery}"
    );
    let created = date(&delivery["created_at"]);
    assert!(date(&delivery["last_updated_at"]) >= created, "{delivery}");
    if !delivery["finished_at"].is_null() {
        assert!(date(&delivery["finished_at"]) >= created, "{delivery}");
    }
    match trigger {
        "scheduled" => {
            date(&delivery["scheduled_at"]);
        }
        _ => assert!(delivery["scheduled_at"].is_null(), "{delivery}"),
    }
}

/// The enabled demo subscriptions of the first project, newest first.
async fn demo_subscriptions(today: &Today) -> Vec<Value> {
    today
        .server
        .all(&today.key, &today.path("subscriptions/?limit=1000"))
        .await
}

fn id_of(value: &Value) -> i64 {
    value["id"].as_i64().unwrap()
}

fn ids(rows: &[Value]) -> Vec<String> {
    rows.iter()
        .map(|row| row["id"].as_str().unwrap().to_string())
        .collect()
}

/// §9 fields on the demo's 30 days of history, and retrieve.
#[tokio::test]
async fn the_demo_history_shows_every_field_of_a_delivery() {
    let today = Today::start().await;
    let now = today.now();
    let mut seen_types = HashSet::new();
    let mut longest = (0, 0);
    let mut manual = 0;
    for subscription in &demo_subscriptions(&today).await {
        let id = id_of(subscription);
        let deliveries = today.deliveries(id).await;
        for delivery in &deliveries {
            assert_delivery(delivery, id);
            // History: scheduled deliveries of the last 30 days, and one
            // test sent by hand yesterday (which has no scheduled time).
            let created = date(&delivery["created_at"]);
            assert!(
                created <= now && created >= now - Duration::days(30),
                "{delivery}"
            );
            if delivery["trigger_type"] == "manual" {
                manual += 1;
                assert_eq!(delivery["scheduled_at"], Value::Null);
            } else {
                assert_eq!(delivery["trigger_type"], "scheduled", "{delivery}");
                assert!(date(&delivery["scheduled_at"]) <= created, "{delivery}");
            }
            assert_eq!(delivery["target_type"], subscription["target_type"]);
            seen_types.insert(delivery["target_type"].as_str().unwrap().to_string());
        }
        if deliveries.len() > longest.1 {
            longest = (id, deliveries.len());
        }
    }
    assert!(
        seen_types.contains("email") && seen_types.contains("slack"),
        "{seen_types:?}"
    );
    assert_eq!(manual, 1);
    // A daily subscription has a delivery a day.
    assert!((28..=31).contains(&longest.1), "{longest:?}");

    let (id, _) = longest;
    let page = today.get(&today.deliveries_path(id)).await;
    let page = page.expect(StatusCode::OK);
    assert_eq!(keys(page), ["next", "previous", "results"]);
    let first = &page["results"][0];
    let one = today
        .get(&format!(
            "{}{}/",
            today.deliveries_path(id),
            first["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(one.expect(StatusCode::OK), first);
    let unknown = today
        .get(&format!("{}{}/", today.deliveries_path(id), uuid::Uuid::new_v4()))
        .await;
    let detail = unknown.expect_error(StatusCode::NOT_FOUND, "invalid_request", "not_found", None);
    assert_eq!(detail, "Not found.");
    let garbage = today
        .get(&format!("{}not-a-uuid/", today.deliveries_path(id)))
        .await;
    garbage.expect_error(StatusCode::NOT_FOUND, "invalid_request", "not_found", None);
}

/// A subscription whose history outgrows two pages: created, then 120
/// changes of target, the first 60 a minute apart and the rest at the same
/// instant (ties broken by id). Every other target fails.
async fn long_history(today: &Today) -> i64 {
    let created = today.create("first@hedgebox.dev", json!({})).await;
    let id = id_of(&created);
    for change in 0..120 {
        if change < 60 {
            today.clock.advance(Duration::minutes(1));
        }
        let target = if change % 2 == 0 {
            format!("ops{change}@hedgebox.invalid")
        } else {
            format!("ops{change}@hedgebox.dev")
        };
        today.patch(id, json!({ "target_value": target })).await;
    }
    id
}

/// §4: 50 a page, newest first, no count, `previous` null on the first
/// page; `next` and `previous` links lead to each other's pages.
#[tokio::test]
async fn deliveries_are_walked_by_cursor_both_ways() {
    let today = Today::start().await;
    let id = long_history(&today).await;
    let first_url = today.server.url(&today.deliveries_path(id));
    let first = today.page(&first_url).await;
    assert_eq!(keys(&first), ["next", "previous", "results"], "no count");
    assert!(first["previous"].is_null());
    assert_eq!(first["results"].as_array().unwrap().len(), 50);
    let second_url = first["next"].as_str().unwrap().to_string();
    assert!(second_url.starts_with(&today.server.base), "{second_url}");
    let second = today.page(&second_url).await;
    assert_eq!(keys(&second), ["next", "previous", "results"]);
    assert_eq!(second["results"].as_array().unwrap().len(), 50);
    let third = today.page(second["next"].as_str().unwrap()).await;
    assert_eq!(third["results"].as_array().unwrap().len(), 21);
    assert!(third["next"].is_null());

    // Every delivery once, newest first.
    let pages = [&first, &second, &third];
    let rows: Vec<Value> = pages
        .iter()
        .flat_map(|page| page["results"].as_array().unwrap().clone())
        .collect();
    let unique: HashSet<String> = ids(&rows).into_iter().collect();
    assert_eq!(unique.len(), 121);
    let created: Vec<_> = rows.iter().map(|row| date(&row["created_at"])).collect();
    assert!(created.windows(2).all(|pair| pair[0] >= pair[1]), "newest first");
    assert_eq!(rows.last().unwrap()["target_value"], "first@hedgebox.dev");
    assert_eq!(today.deliveries(id).await, rows);

    // Back from the third page to the second, and from there to the first.
    let back = today.page(third["previous"].as_str().unwrap()).await;
    assert_eq!(
        ids(back["results"].as_array().unwrap()),
        ids(second["results"].as_array().unwrap())
    );
    let top = today.page(back["previous"].as_str().unwrap()).await;
    assert_eq!(
        ids(top["results"].as_array().unwrap()),
        ids(first["results"].as_array().unwrap())
    );
    assert!(top["previous"].is_null(), "nothing is newer than the first page");
    let again = today.page(top["next"].as_str().unwrap()).await;
    assert_eq!(
        ids(again["results"].as_array().unwrap()),
        ids(second["results"].as_array().unwrap())
    );
    let from_second = today.page(second["previous"].as_str().unwrap()).await;
    assert_eq!(
        ids(from_second["results"].as_array().unwrap()),
        ids(first["results"].as_array().unwrap())
    );

    // The page size is not the client's to choose; an empty cursor is the first page.
    let sized = today.page(&format!("{first_url}?limit=5&page_size=5")).await;
    assert_eq!(sized["results"].as_array().unwrap().len(), 50);
    let empty = today.page(&format!("{first_url}?cursor=")).await;
    assert_eq!(empty["results"], first["results"]);

    // A delivery recorded meanwhile does not shift the pages a cursor names.
    today
        .patch(id, json!({"target_value": "meanwhile@hedgebox.dev"}))
        .await;
    let later = today.page(first["next"].as_str().unwrap()).await;
    assert_eq!(later["results"], second["results"]);
    let newest = today.page(&first_url).await;
    assert_eq!(newest["results"][0]["target_value"], "meanwhile@hedgebox.dev");
    assert_eq!(newest["results"][1], first["results"][0]);

    // A cursor the server did not make is DRF's "Invalid cursor".
    for cursor in ["not%20a%20cursor!", "bm8gc2VwYXJhdG9y", "%FF%FE", "YXxifGN8ZA"] {
        let bad = today
            .get(&format!("{}?cursor={cursor}", today.deliveries_path(id)))
            .await;
        let detail = bad.expect_error(StatusCode::NOT_FOUND, "invalid_request", "not_found", None);
        assert_eq!(detail, "Invalid cursor", "{cursor}");
    }
}

/// §9: `status` filters, keeps itself in the links, and refuses other
/// values in PostHog's words.
#[tokio::test]
async fn the_status_filter_keeps_to_its_four_values() {
    let today = Today::start().await;
    let id = long_history(&today).await;
    let path = today.deliveries_path(id);
    let failed = today
        .walk(&today.server.url(&format!("{path}?status=failed")))
        .await;
    assert_eq!(failed.len(), 60);
    assert!(failed.iter().all(|row| row["status"] == "failed"));
    let first = today
        .page(&today.server.url(&format!("{path}?status=failed")))
        .await;
    assert!(
        first["next"].as_str().unwrap().contains("status=failed"),
        "{first}"
    );
    let completed = today
        .walk(&today.server.url(&format!("{path}?status=completed")))
        .await;
    assert_eq!(completed.len(), 61);
    assert!(completed.iter().all(|row| row["status"] == "completed"));
    for none in ["starting", "skipped"] {
        let page = today
            .page(&today.server.url(&format!("{path}?status={none}")))
            .await;
        assert_eq!(page["results"], json!([]), "{none}");
        assert!(page["next"].is_null() && page["previous"].is_null());
    }
    // An empty value is no filter, as in DRF.
    let all = today.walk(&today.server.url(&format!("{path}?status="))).await;
    assert_eq!(all.len(), 121);
    for bad in ["bogus", "FAILED", "success"] {
        let reply = today.get(&format!("{path}?status={bad}")).await;
        let detail = reply.expect_error(
            StatusCode::BAD_REQUEST,
            "validation_error",
            "invalid_input",
            Some("status"),
        );
        assert_eq!(detail, "Must be one of: completed, failed, skipped, starting.");
    }
}

/// §9: a delivery belongs to its subscription; deliveries are read-only;
/// every path answers under /api/environments/ too; scopes of §3.
#[tokio::test]
async fn deliveries_are_read_only_and_kept_to_their_subscription() {
    let today = Today::start().await;
    let mine = id_of(&today.create("one@hedgebox.dev", json!({})).await);
    let other = id_of(&today.create("two@hedgebox.dev", json!({})).await);
    let delivery = today.deliveries(mine).await[0].clone();
    let delivery_id = delivery["id"].as_str().unwrap();
    let elsewhere = today
        .get(&format!("{}{delivery_id}/", today.deliveries_path(other)))
        .await;
    let detail = elsewhere.expect_error(StatusCode::NOT_FOUND, "invalid_request", "not_found", None);
    assert_eq!(detail, "Not found.");
    // Nor through another project.
    let crossed = today
        .get(&format!(
            "/api/projects/2/subscriptions/{mine}/deliveries/{delivery_id}/"
        ))
        .await;
    crossed.expect_error(StatusCode::NOT_FOUND, "invalid_request", "not_found", None);

    let list = today.deliveries_path(mine);
    let one = format!("{list}{delivery_id}/");
    for (method, path) in [
        (Method::POST, &list),
        (Method::PATCH, &one),
        (Method::PUT, &one),
        (Method::DELETE, &one),
        (Method::POST, &one),
    ] {
        let reply = today
            .server
            .call(
                method.clone(),
                Some(&today.key),
                path,
                Some(json!({"status": "failed"})),
            )
            .await;
        let detail = reply.expect_error(
            StatusCode::METHOD_NOT_ALLOWED,
            "invalid_request",
            "method_not_allowed",
            None,
        );
        assert_eq!(detail, format!("Method \"{method}\" not allowed."));
    }
    assert_eq!(
        today.deliveries(mine).await,
        vec![delivery.clone()],
        "nothing changed"
    );

    // The same under /api/environments/.
    let environments = |tail: &str| format!("/api/environments/{}/{tail}", today.server.project);
    let listed = today
        .get(&environments(&format!("subscriptions/{mine}/deliveries/")))
        .await;
    assert_eq!(listed.expect(StatusCode::OK)["results"], json!([delivery]));
    let retrieved = today
        .get(&environments(&format!(
            "subscriptions/{mine}/deliveries/{delivery_id}/"
        )))
        .await;
    assert_eq!(retrieved.expect(StatusCode::OK), &delivery);
    let tested = today
        .server
        .post(
            &today.key,
            &environments(&format!("subscriptions/{mine}/test-delivery/")),
            json!({}),
        )
        .await;
    assert_eq!(tested.status, StatusCode::ACCEPTED, "{}", tested.text);
    let quota = today.get(&environments("subscriptions/summary_quota/")).await;
    quota.expect(StatusCode::OK);
    assert_eq!(today.deliveries(mine).await.len(), 2);

    // Reading needs subscription:read; a test delivery subscription:write.
    let insights_only = today.server.key(&["insight:read"]);
    let refused = today.server.get(&insights_only, &list).await;
    let detail = refused.expect_error(
        StatusCode::FORBIDDEN,
        "authentication_error",
        "permission_denied",
        None,
    );
    assert_eq!(detail, "API key missing required scope 'subscription:read'");
    let reader = today.server.key(&["subscription:read"]);
    today.server.get(&reader, &one).await.expect(StatusCode::OK);
    let refused = today
        .server
        .post(
            &reader,
            &today.path(&format!("subscriptions/{mine}/test-delivery/")),
            json!({}),
        )
        .await;
    let detail = refused.expect_error(
        StatusCode::FORBIDDEN,
        "authentication_error",
        "permission_denied",
        None,
    );
    assert_eq!(detail, "API key missing required scope 'subscription:write'");
    let refused = today
        .server
        .get(&insights_only, &today.path("subscriptions/summary_quota/"))
        .await;
    refused.expect_error(
        StatusCode::FORBIDDEN,
        "authentication_error",
        "permission_denied",
        None,
    );
}

/// 8.4: a delivery on create, on a change of what or where, on re-enable;
/// none for a schedule or title change, and none while disabled.
#[tokio::test]
async fn saving_delivers_only_what_changes_the_target() {
    let today = Today::start().await;
    let created = today.create("oncall@hedgebox.dev", json!({})).await;
    let id = id_of(&created);
    let first = today.deliveries(id).await;
    assert_eq!(first.len(), 1);
    assert_delivery(&first[0], id);
    assert_eq!(first[0]["trigger_type"], "target_change");
    assert_eq!(first[0]["status"], "completed");
    assert_eq!(first[0]["target_value"], "oncall@hedgebox.dev");
    assert_eq!(
        first[0]["recipient_results"],
        json!([{"recipient": "oncall@hedgebox.dev", "status": "success"}])
    );
    assert_eq!(date(&first[0]["created_at"]), today.now());

    // Schedule and title changes deliver nothing.
    today.clock.advance(Duration::minutes(5));
    for body in [
        json!({"frequency": "weekly", "byweekday": ["monday"]}),
        json!({"start_date": "2026-12-02T10:00:00Z", "interval": 2}),
        json!({"title": "Renamed"}),
        json!({"target_value": "oncall@hedgebox.dev"}),
    ] {
        today.patch(id, body.clone()).await;
        assert_eq!(today.deliveries(id).await.len(), 1, "{body}");
    }

    // A new target is delivered at once, with its snapshot.
    today
        .patch(
            id,
            json!({"target_value": "oncall@hedgebox.dev, ada.okafor@hedgebox.dev"}),
        )
        .await;
    let second = today.deliveries(id).await;
    assert_eq!(second.len(), 2);
    assert_eq!(second[0]["trigger_type"], "target_change");
    assert_eq!(
        second[0]["target_value"],
        "oncall@hedgebox.dev, ada.okafor@hedgebox.dev"
    );
    assert_eq!(second[0]["recipient_results"].as_array().unwrap().len(), 2);
    assert_eq!(second[1], first[0]);
    let insights = today.insights().await;
    today.patch(id, json!({"insight": insights[1]})).await;
    assert_eq!(
        today.deliveries(id).await.len(),
        3,
        "another insight is another delivery"
    );

    // Paused: nothing, whatever changes.
    let paused = today.patch(id, json!({"enabled": false})).await;
    assert_eq!(paused["enabled"], false);
    today
        .patch(id, json!({"target_value": "elsewhere@hedgebox.dev"}))
        .await;
    today.patch(id, json!({"insight": insights[2]})).await;
    assert_eq!(today.deliveries(id).await.len(), 3);

    // Re-enabled: one confirmation, to the target as it now is, and the
    // schedule starts again from now.
    today.clock.advance(Duration::days(20));
    let resumed = today.patch(id, json!({"enabled": true})).await;
    assert_eq!(resumed["enabled"], true);
    assert!(date(&resumed["next_delivery_date"]) > today.now(), "{resumed}");
    let after = today.deliveries(id).await;
    assert_eq!(after.len(), 4);
    assert_eq!(after[0]["trigger_type"], "target_change");
    assert_eq!(after[0]["target_value"], "elsewhere@hedgebox.dev");
    assert_eq!(date(&after[0]["created_at"]), today.now());
    today.patch(id, json!({"enabled": true})).await;
    assert_eq!(
        today.deliveries(id).await.len(),
        4,
        "already enabled: no confirmation"
    );

    // Created paused: nothing until it is enabled.
    let quiet = today
        .create("quiet@hedgebox.dev", json!({"enabled": false}))
        .await;
    assert_eq!(quiet["enabled"], false);
    assert_eq!(today.deliveries(id_of(&quiet)).await, Vec::<Value>::new());
    today
        .patch(id_of(&quiet), json!({"target_value": "still@hedgebox.dev"}))
        .await;
    assert_eq!(today.deliveries(id_of(&quiet)).await, Vec::<Value>::new());
}

/// 8.4: test-delivery's answers, each word for word.
#[tokio::test]
async fn test_deliveries_answer_as_posthog_does() {
    let today = Today::start().await;
    let id = id_of(&today.create("oncall@hedgebox.dev", json!({})).await);
    let test = |id: i64| today.path(&format!("subscriptions/{id}/test-delivery/"));

    today.clock.advance(Duration::minutes(3));
    let sent = today
        .server
        .call(Method::POST, Some(&today.key), &test(id), None)
        .await;
    assert_eq!(sent.status, StatusCode::ACCEPTED);
    assert_eq!(sent.text, "");
    let deliveries = today.deliveries(id).await;
    assert_eq!(deliveries.len(), 2);
    assert_delivery(&deliveries[0], id);
    assert_eq!(deliveries[0]["trigger_type"], "manual");
    assert_eq!(deliveries[0]["status"], "completed");
    assert_eq!(date(&deliveries[0]["created_at"]), today.now());

    // Disabled: 409 with only a detail.
    today.patch(id, json!({"enabled": false})).await;
    let conflict = today.server.post(&today.key, &test(id), json!({})).await;
    assert_eq!(conflict.status, StatusCode::CONFLICT);
    assert_eq!(
        conflict.text,
        r#"{"detail":"Subscription is disabled. Re-enable it before sending a test delivery."}"#
    );
    // Deleted: 404 with no body at all, disabled or not.
    today.patch(id, json!({"deleted": true})).await;
    let gone = today.server.post(&today.key, &test(id), json!({})).await;
    assert_eq!(gone.status, StatusCode::NOT_FOUND);
    assert_eq!(gone.text, "");
    today.patch(id, json!({"enabled": true})).await;
    let gone = today.server.post(&today.key, &test(id), json!({})).await;
    assert_eq!((gone.status, gone.text.as_str()), (StatusCode::NOT_FOUND, ""));
    assert_eq!(today.deliveries(id).await.len(), 2, "nothing sent");

    // A subscription that does not exist is DRF's own 404.
    let unknown = today.server.post(&today.key, &test(99_999_999), json!({})).await;
    let detail = unknown.expect_error(StatusCode::NOT_FOUND, "invalid_request", "not_found", None);
    assert_eq!(detail, "Not found.");

    // Another project's subscription is not found from this one.
    let theirs = today
        .server
        .all(&today.key, "/api/projects/2/subscriptions/?limit=100")
        .await;
    let theirs = id_of(&theirs[0]);
    let crossed = today.server.post(&today.key, &test(theirs), json!({})).await;
    crossed.expect_error(StatusCode::NOT_FOUND, "invalid_request", "not_found", None);
}

/// Checks the §2 throttled body and returns N.
#[track_caller]
fn throttled_for(reply: &Reply) -> u64 {
    let detail = reply.expect_error(
        StatusCode::TOO_MANY_REQUESTS,
        "throttled_error",
        "throttled",
        None,
    );
    let seconds = detail
        .strip_prefix("Request was throttled. Expected available in ")
        .and_then(|rest| {
            rest.strip_suffix(" seconds.")
                .or_else(|| rest.strip_suffix(" second."))
        })
        .unwrap_or_else(|| panic!("{detail}"));
    let n: u64 = seconds.parse().unwrap_or_else(|_| panic!("{detail}"));
    assert!((1..=60).contains(&n), "{detail}");
    let unit = if n == 1 { "second" } else { "seconds" };
    assert_eq!(
        detail,
        format!("Request was throttled. Expected available in {n} {unit}.")
    );
    n
}

/// 8.4, §12: ten test deliveries a minute per project, whoever asks and
/// however they end; the eleventh is throttled, without Retry-After; the
/// other project keeps its own ten.
#[tokio::test]
async fn test_deliveries_are_throttled_per_project() {
    let today = Today::start().await;
    let id = id_of(&today.create("oncall@hedgebox.dev", json!({})).await);
    let paused = id_of(
        &today
            .create("paused@hedgebox.dev", json!({"enabled": false}))
            .await,
    );
    let test = |id: i64| today.path(&format!("subscriptions/{id}/test-delivery/"));
    for attempt in 0..10 {
        let target = if attempt == 4 { paused } else { id };
        let reply = today.server.post(&today.key, &test(target), json!({})).await;
        assert_ne!(reply.status, StatusCode::TOO_MANY_REQUESTS, "attempt {attempt}");
    }
    assert_eq!(
        today.deliveries(id).await.len(),
        10,
        "the creation and nine tests"
    );
    let response = today
        .server
        .http
        .post(today.server.url(&test(id)))
        .bearer_auth(&today.key)
        .send()
        .await
        .unwrap();
    assert!(response.headers().get("retry-after").is_none());
    throttled_for(&Reply::read(response).await);
    // Another key of the same project, another person: still throttled.
    let member = today.server.key_for(MEMBER, &["subscription:write"]);
    let other_key = today.server.post(&member, &test(id), json!({})).await;
    throttled_for(&other_key);
    let deleted = today.server.post(&today.key, &test(99_999_999), json!({})).await;
    throttled_for(&deleted);
    assert_eq!(
        today.deliveries(id).await.len(),
        10,
        "nothing sent while throttled"
    );

    // The demo's other project has its own allowance.
    let theirs = today
        .server
        .all(&today.key, "/api/projects/2/subscriptions/?limit=100")
        .await;
    let theirs = theirs
        .iter()
        .find(|row| row["enabled"] == true && row["target_type"] == "email")
        .expect("an enabled e-mail subscription in project 2");
    let other_project = today
        .server
        .post(
            &today.key,
            &format!("/api/projects/2/subscriptions/{}/test-delivery/", id_of(theirs)),
            json!({}),
        )
        .await;
    assert_eq!(
        other_project.status,
        StatusCode::ACCEPTED,
        "{}",
        other_project.text
    );
}

/// 8.4: `{"active_count", "limit", "at_limit"}`, counting the
/// organization's active summaries.
#[tokio::test]
async fn the_summary_quota_counts_active_summaries() {
    let today = Today::start().await;
    let path = today.path("subscriptions/summary_quota/");
    let quota = today.get(&path).await.expect(StatusCode::OK).clone();
    assert_eq!(keys(&quota), ["active_count", "at_limit", "limit"]);
    let before = quota["active_count"].as_i64().unwrap();
    assert!(quota["limit"].is_null());
    assert_eq!(quota["at_limit"], false);

    let id = id_of(
        &today
            .create("summary@hedgebox.dev", json!({"summary_enabled": true}))
            .await,
    );
    let quota = today.get(&path).await.expect(StatusCode::OK).clone();
    assert_eq!(
        quota,
        json!({"active_count": before + 1, "limit": null, "at_limit": false})
    );
    // The same from the other project: the count is the organization's.
    let elsewhere = today.get("/api/projects/2/subscriptions/summary_quota/").await;
    assert_eq!(elsewhere.expect(StatusCode::OK), &quota);
    today.patch(id, json!({"deleted": true})).await;
    let quota = today.get(&path).await.expect(StatusCode::OK).clone();
    assert_eq!(quota["active_count"], before);
    let reader = today.server.key(&["subscription:read"]);
    today.server.get(&reader, &path).await.expect(StatusCode::OK);
}

/// The outcomes fixed in advance: an address at a `.invalid` domain fails
/// with its own error; the rest of a list still goes out.
#[tokio::test]
async fn invalid_domains_fail_recipient_by_recipient() {
    let today = Today::start().await;
    let failing = today.create("ops@hedgebox.invalid", json!({})).await;
    let delivery = &today.deliveries(id_of(&failing)).await[0];
    assert_delivery(delivery, id_of(&failing));
    assert_eq!(delivery["status"], "failed");
    assert!(
        delivery["error"]["message"]
            .as_str()
            .is_some_and(|text| !text.is_empty())
    );
    let results = delivery["recipient_results"].as_array().unwrap();
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["recipient"], "ops@hedgebox.invalid");
    assert_eq!(results[0]["status"], "failed");
    assert!(
        results[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("hedgebox.invalid")
    );
    assert!(results[0]["error"]["type"].is_string());
    // A failed e-mail delivery does not pause the subscription.
    assert_eq!(today.subscription(id_of(&failing)).await["enabled"], true);

    let mixed = today
        .create("ada.okafor@hedgebox.dev, Ops@Mail.Example.INVALID", json!({}))
        .await;
    let delivery = &today.deliveries(id_of(&mixed)).await[0];
    assert_delivery(delivery, id_of(&mixed));
    assert_ne!(delivery["status"], "failed", "one recipient got it");
    let results = delivery["recipient_results"].as_array().unwrap();
    assert_eq!(
        results[0],
        json!({"recipient": "ada.okafor@hedgebox.dev", "status": "success"})
    );
    assert_eq!(results[1]["recipient"], "Ops@Mail.Example.INVALID");
    assert_eq!(results[1]["status"], "failed");
    assert!(delivery["error"].is_object(), "{delivery}");
}

/// The project's Slack integrations: the working one and the revoked one.
async fn integrations(today: &Today) -> (i64, i64) {
    let listed = today.get(&today.path("integrations/?kind=slack")).await;
    let rows = listed.expect(StatusCode::OK)["results"]
        .as_array()
        .unwrap()
        .clone();
    let working = rows.iter().find(|row| row["errors"] == "").unwrap();
    let revoked = rows.iter().find(|row| row["errors"] != "").unwrap();
    (id_of(working), id_of(revoked))
}

/// A Slack delivery through a revoked integration fails and pauses the
/// subscription; through a working one it goes out.
#[tokio::test]
async fn a_revoked_slack_integration_fails_and_pauses_the_subscription() {
    let today = Today::start().await;
    let (working, revoked) = integrations(&today).await;
    let slack = |integration: i64| json!({"target_type": "slack", "integration_id": integration});

    let fine = today.create("C0001000|#metrics", slack(working)).await;
    let delivery = &today.deliveries(id_of(&fine)).await[0];
    assert_delivery(delivery, id_of(&fine));
    assert_eq!(delivery["status"], "completed");
    assert_eq!(delivery["target_type"], "slack");
    assert_eq!(delivery["recipient_results"][0]["status"], "success");
    assert_eq!(today.subscription(id_of(&fine)).await["enabled"], true);

    let broken = today.create("C0OLD0001|#metrics", slack(revoked)).await;
    let id = id_of(&broken);
    let deliveries = today.deliveries(id).await;
    assert_eq!(deliveries.len(), 1);
    assert_delivery(&deliveries[0], id);
    assert_eq!(deliveries[0]["status"], "failed");
    assert_eq!(deliveries[0]["recipient_results"][0]["status"], "failed");
    assert!(deliveries[0]["recipient_results"][0]["error"]["message"].is_string());
    assert_eq!(today.subscription(id).await["enabled"], false, "auto-disabled");
    // Paused, it takes no test delivery.
    let test = today
        .server
        .post(
            &today.key,
            &today.path(&format!("subscriptions/{id}/test-delivery/")),
            json!({}),
        )
        .await;
    assert_eq!(test.status, StatusCode::CONFLICT);
    // Moved to the working integration and re-enabled, it delivers again.
    today.patch(id, json!({"integration_id": working})).await;
    assert_eq!(today.deliveries(id).await.len(), 1, "nothing while paused");
    let resumed = today.patch(id, json!({"enabled": true})).await;
    assert_eq!(resumed["enabled"], true);
    let deliveries = today.deliveries(id).await;
    assert_eq!(deliveries.len(), 2);
    assert_eq!(deliveries[0]["status"], "completed");
    assert_eq!(today.subscription(id).await["enabled"], true);
}

/// The demo: subscriptions through the revoked integration delivered until
/// it was revoked, were paused by their first failed delivery and have had
/// none since.
#[tokio::test]
async fn the_demos_revoked_subscriptions_stopped_at_their_first_failure() {
    let today = Today::start().await;
    let (_, revoked) = integrations(&today).await;
    let all = today
        .server
        .all(
            &today.key,
            &today.path("subscriptions/?limit=1000&target_type=slack"),
        )
        .await;
    let through_revoked: Vec<&Value> = all
        .iter()
        .filter(|row| row["integration_id"] == revoked)
        .collect();
    assert!(!through_revoked.is_empty());
    let mut failed_once = 0;
    for subscription in through_revoked {
        let deliveries = today.deliveries(id_of(subscription)).await;
        let failed = deliveries.iter().filter(|d| d["status"] == "failed").count();
        assert!(failed <= 1, "{subscription}: {failed} failed");
        if let Some(delivery) = deliveries.first() {
            // The newest: nothing after it.
            assert_eq!(delivery["status"], "failed");
            assert_eq!(subscription["enabled"], false, "{subscription}");
            failed_once += 1;
        }
    }
    assert!(failed_once > 0);
}

/// The seed flavor keeps no deliveries: 404, as an older PostHog.
#[tokio::test]
async fn the_seed_flavor_has_no_deliveries() {
    let server = TestServer::seed().await;
    let key = server.key(&["*"]);
    let first = server
        .get(&key, &format!("{}?limit=1", server.subscriptions_path()))
        .await;
    let id = id_of(&first.expect(StatusCode::OK)["results"][0]);
    for path in [
        format!("{}{id}/deliveries/", server.subscriptions_path()),
        format!("{}summary_quota/", server.subscriptions_path()),
    ] {
        let reply = server.get(&key, &path).await;
        reply.expect_error(StatusCode::NOT_FOUND, "invalid_request", "not_found", None);
    }
}
