//! What an attacker with a key, or with none, tried against the server
//! (issue 19): every case that once cost a 500, unbounded work or unbounded
//! memory, replayed, each answered as PostHog would, or with a 400 naming
//! the field.

use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::support::{DEMO_INSIGHT, INACTIVE, TestServer};

fn email_subscription() -> Value {
    json!({
        "insight": DEMO_INSIGHT,
        "target_type": "email",
        "target_value": "oncall@hedgebox.dev",
        "frequency": "weekly",
        "interval": 1,
        "start_date": "2026-01-05T09:00:00Z",
    })
}

fn with(mut body: Value, field: &str, value: Value) -> Value {
    body.as_object_mut().unwrap().insert(field.into(), value);
    body
}

/// An integration of a project of another organization, for the tests of
/// foreign ids.
fn foreign_integration(server: &TestServer) -> i64 {
    server
        .running
        .db
        .write_blocking(|tx| {
            let organization = uuid::Uuid::new_v4().to_string();
            tx.execute(
                "INSERT INTO organizations (id, name, slug, created_at)
                 VALUES (?1, 'Elsewhere Ltd', 'elsewhere', '2026-01-01T00:00:00Z')",
                [&organization],
            )?;
            tx.execute(
                "INSERT INTO projects (organization_id, name, created_at)
                 VALUES (?1, 'Elsewhere project', '2026-01-01T00:00:00Z')",
                [&organization],
            )?;
            let project = tx.last_insert_rowid();
            tx.execute(
                "INSERT INTO integrations (project_id, kind, display_name, config, errors, created_at)
                 VALUES (?1, 'slack', 'Elsewhere Slack', '{}', '', '2026-01-01T00:00:00Z')",
                [project],
            )?;
            Ok(tx.last_insert_rowid())
        })
        .unwrap()
}

#[tokio::test]
async fn strings_holding_nul_are_refused_as_drf_refuses_them() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let subs = server.subscriptions_path();
    let role = server.get(&key, &server.roles_path()).await.json["results"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let cases = [
        (
            server.roles_path(),
            Method::POST,
            json!({"name": "Ad\u{0}min"}),
            "name",
        ),
        (
            format!("{}{role}/", server.roles_path()),
            Method::PATCH,
            json!({"name": "x\u{0}"}),
            "name",
        ),
        (
            format!("{}{role}/role_memberships/", server.roles_path()),
            Method::POST,
            json!({"user_uuid": "\u{0}"}),
            "user_uuid",
        ),
        (
            subs.clone(),
            Method::POST,
            with(email_subscription(), "title", json!("Weekly\u{0}")),
            "title",
        ),
        (
            subs.clone(),
            Method::POST,
            with(email_subscription(), "target_value", json!("a@b.dev\u{0}")),
            "target_value",
        ),
        (
            subs.clone(),
            Method::POST,
            with(email_subscription(), "invite_message", json!("hi\u{0}")),
            "invite_message",
        ),
        (
            format!("{subs}1/"),
            Method::PATCH,
            json!({"summary_prompt_guide": "\u{0}"}),
            "summary_prompt_guide",
        ),
    ];
    for (path, method, body, field) in cases {
        let reply = server.call(method.clone(), Some(&key), &path, Some(body)).await;
        let detail = reply.expect_error(
            StatusCode::BAD_REQUEST,
            "validation_error",
            "null_characters_not_allowed",
            Some(field),
        );
        assert_eq!(detail, "Null characters are not allowed.", "{method} {path}");
    }
    // Nothing was written: no role holds a NUL.
    let roles = server
        .get(&key, &format!("{}?limit=1000", server.roles_path()))
        .await;
    assert!(!roles.text.contains("\\u0000"), "{}", roles.text);
}

#[tokio::test]
async fn an_integration_must_be_one_of_the_project_s_whatever_the_target() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let subs = server.subscriptions_path();
    let foreign = foreign_integration(&server);
    for body in [
        with(email_subscription(), "integration_id", json!(987_654)),
        with(email_subscription(), "integration_id", json!(foreign)),
        with(
            with(
                with(email_subscription(), "target_type", json!("slack")),
                "target_value",
                json!("C1|#general"),
            ),
            "integration_id",
            json!(foreign),
        ),
    ] {
        let reply = server.post(&key, &subs, body).await;
        assert_eq!(
            reply.expect_error(
                StatusCode::BAD_REQUEST,
                "validation_error",
                "invalid_input",
                Some("integration_id")
            ),
            "This integration does not exist or does not belong to your team."
        );
    }
    // An update cannot point a stored subscription there either.
    let created = server.post(&key, &subs, email_subscription()).await;
    let id = created.expect(StatusCode::CREATED)["id"].as_i64().unwrap();
    let reply = server
        .patch(&key, &format!("{subs}{id}/"), json!({"integration_id": foreign}))
        .await;
    reply.expect_error(
        StatusCode::BAD_REQUEST,
        "validation_error",
        "invalid_input",
        Some("integration_id"),
    );
    let stored = server.get(&key, &format!("{subs}{id}/")).await;
    assert_eq!(stored.expect(StatusCode::OK)["integration_id"], Value::Null);
}

#[tokio::test]
async fn a_weekday_is_stored_once_however_often_it_is_sent() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let mut days = vec!["friday"; 5_000];
    days.extend(["monday"; 5_000]);
    let body = with(email_subscription(), "byweekday", json!(days));
    let created = server.post(&key, &server.subscriptions_path(), body).await;
    let created = created.expect(StatusCode::CREATED);
    assert_eq!(created["byweekday"], json!(["friday", "monday"]));
    assert_eq!(created["summary"], "sent every week on Friday and Monday");
}

#[tokio::test]
async fn searches_and_orderings_have_a_bounded_number_of_terms() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let path = server.subscriptions_path();
    let attack = ["e"; 300].join("%20");
    let reply = server.get(&key, &format!("{path}?search={attack}")).await;
    let detail = reply.expect_error(
        StatusCode::BAD_REQUEST,
        "validation_error",
        "invalid_input",
        Some("search"),
    );
    assert_eq!(detail, "A search may have at most 32 terms; this one has 300.");
    let orderings = ["title"; 1_000].join(",");
    let reply = server.get(&key, &format!("{path}?ordering={orderings}")).await;
    reply.expect_error(
        StatusCode::BAD_REQUEST,
        "validation_error",
        "invalid_input",
        Some("ordering"),
    );
    // 32 terms, most of them repeats or inside another, find what the one
    // term that decides finds.
    let mut terms = vec!["e"; 30];
    terms.extend(["digest", "DIG"]);
    let many = server
        .get(&key, &format!("{path}?search={}", terms.join("%20")))
        .await;
    let one = server.get(&key, &format!("{path}?search=digest")).await;
    let many = many.expect(StatusCode::OK);
    assert!(many["count"].as_u64().unwrap() > 0);
    assert_eq!(many["count"], one.expect(StatusCode::OK)["count"]);
    let eight = ["-title"; 8].join(",");
    server
        .get(&key, &format!("{path}?ordering={eight}"))
        .await
        .expect(StatusCode::OK);
}

/// Six searches that each read every row, at once, and requests that read
/// one row while they run: the searches wait for each other, and the cheap
/// requests wait for none of them.
#[tokio::test]
async fn searches_never_hold_up_the_requests_behind_them() {
    let server = TestServer::demo_at(crate::support::seeded(), 100_000).await;
    let key = server.key(&["*"]);
    let path = server.subscriptions_path();
    let letters = "abcdefghijklmnoprstuvwy";
    let mut searches = tokio::task::JoinSet::new();
    for round in 0..6 {
        // Two-letter terms are found row by row; each search is new to the
        // server, so nothing remembered answers it.
        let terms: Vec<String> = letters
            .chars()
            .skip(round)
            .take(16)
            .map(|first| format!("{first}{}", ['a', 'e', 'i', 'o', 'u'][round % 5]))
            .collect();
        let url = server.url(&format!("{path}?limit=1&search={}", terms.join("%20")));
        let request = server.http.get(url).bearer_auth(&key);
        searches.spawn(async move { request.send().await.unwrap().status() });
    }
    let retrieve = format!("{path}1/");
    let mut cheap = Vec::new();
    while cheap.len() < 50 {
        let started = Instant::now();
        server.get(&key, &retrieve).await.expect(StatusCode::OK);
        cheap.push(started.elapsed());
        if searches.len() < 6 && cheap.len() >= 3 {
            // A search has finished: the rest of the look is no longer six
            // at once.
            break;
        }
        if let Some(done) = searches.try_join_next() {
            assert_eq!(done.unwrap(), StatusCode::OK);
        }
    }
    while let Some(done) = searches.join_next().await {
        assert_eq!(done.unwrap(), StatusCode::OK);
    }
    cheap.sort();
    let median = cheap[cheap.len() / 2];
    assert!(
        median < Duration::from_millis(50),
        "a retrieve took {median:?} beside six searches ({cheap:?})"
    );
}

#[tokio::test]
async fn a_long_page_is_the_short_pages_end_to_end() {
    let server = TestServer::demo_at(crate::support::seeded(), 2_500).await;
    let key = server.key(&["*"]);
    let path = server.subscriptions_path();
    let long = server
        .get(&key, &format!("{path}?limit=100000&ordering=title"))
        .await;
    let long = long.expect(StatusCode::OK);
    let count = long["count"].as_u64().unwrap();
    assert!(count > 2_000);
    assert_eq!(long["next"], Value::Null);
    let mut short = Vec::new();
    let mut offset = 0;
    while offset < count {
        let page = server
            .get(&key, &format!("{path}?limit=100&offset={offset}&ordering=title"))
            .await;
        short.extend(page.expect(StatusCode::OK)["results"].as_array().unwrap().clone());
        offset += 100;
    }
    assert_eq!(long["results"].as_array().unwrap(), &short);
    // And from an offset, with the envelope's links as for any page.
    let tail = server.get(&key, &format!("{path}?limit=2000&offset=1000")).await;
    let tail = tail.expect(StatusCode::OK);
    assert_eq!(
        tail["results"].as_array().unwrap().len() as u64,
        (count - 1_000).min(2_000)
    );
    assert!(tail["previous"].as_str().unwrap().contains("limit=2000"));
}

#[tokio::test]
async fn max_limit_lowers_a_page_s_limit() {
    let server = TestServer::demo_with(|options| options.max_limit = Some(50)).await;
    let key = server.key(&["*"]);
    let path = server.subscriptions_path();
    let page = server.get(&key, &format!("{path}?limit=100000")).await;
    let page = page.expect(StatusCode::OK);
    assert_eq!(page["results"].as_array().unwrap().len(), 50);
    assert!(page["next"].as_str().unwrap().ends_with("limit=50&offset=50"));
}

#[tokio::test]
async fn keys_without_scopes_or_without_an_active_owner_reach_nothing() {
    let server = TestServer::demo().await;
    let inactive = server.key_for(INACTIVE, &["*"]);
    for path in [
        "/api/organizations/".to_string(),
        "/api/projects/".to_string(),
        "/api/personal_api_keys/@current/".to_string(),
        server.roles_path(),
        server.subscriptions_path(),
    ] {
        let reply = server.get(&inactive, &path).await;
        assert_eq!(
            reply.expect_error(
                StatusCode::UNAUTHORIZED,
                "authentication_error",
                "authentication_failed",
                None
            ),
            "Personal API key found in request Authorization header is invalid.",
            "{path}"
        );
    }
}

#[tokio::test]
async fn an_insight_to_export_is_stored_once_however_often_it_is_sent() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let [first, second, _] = crate::support::DEMO_DASHBOARD_INSIGHTS;
    let mut chosen = vec![second; 20_000];
    chosen.extend([first, second, first]);
    let body = json!({
        "dashboard": crate::support::DEMO_DASHBOARD,
        "dashboard_export_insights": chosen,
        "target_type": "email",
        "target_value": "oncall@hedgebox.dev",
        "frequency": "weekly",
        "interval": 1,
        "start_date": "2026-01-05T09:00:00Z",
    });
    let created = server.post(&key, &server.subscriptions_path(), body).await;
    assert_eq!(
        created.expect(StatusCode::CREATED)["dashboard_export_insights"],
        json!([second, first])
    );
}
