//! The error rows of compat.md that are about the request rather than a
//! resource: bodies that are not JSON, too large, of another media type, and
//! throttling.

use orgdeck::server::Seed;
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::support::{DEMO_INSIGHT, DEMO_SLACK, TestServer};

#[tokio::test]
async fn a_body_that_is_not_json_is_a_parse_error() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    for body in ["{", "{\"name\": }", "name=Ops", "\u{0}\u{1}"] {
        let reply = server
            .call_raw(
                Method::POST,
                &key,
                &server.roles_path(),
                body.as_bytes().to_vec(),
                "application/json",
            )
            .await;
        let detail = reply.expect_error(StatusCode::BAD_REQUEST, "invalid_request", "parse_error", None);
        assert!(detail.starts_with("JSON parse error - "), "{detail}");
    }
    let list = server
        .call_raw(
            Method::POST,
            &key,
            &server.roles_path(),
            b"[1, 2]".to_vec(),
            "application/json",
        )
        .await;
    assert_eq!(
        list.expect_error(StatusCode::BAD_REQUEST, "validation_error", "invalid_input", None),
        "Invalid data. Expected a dictionary, but got list."
    );
    // An empty body is an empty form: the required field is missing.
    let empty = server
        .call_raw(
            Method::POST,
            &key,
            &server.roles_path(),
            Vec::new(),
            "application/json",
        )
        .await;
    empty.expect_error(
        StatusCode::BAD_REQUEST,
        "validation_error",
        "required",
        Some("name"),
    );
    // Invalid UTF-8 inside a string.
    let bytes = b"{\"name\": \"\xff\xfe\"}".to_vec();
    let reply = server
        .call_raw(
            Method::POST,
            &key,
            &server.roles_path(),
            bytes,
            "application/json",
        )
        .await;
    reply.expect_error(StatusCode::BAD_REQUEST, "invalid_request", "parse_error", None);
}

#[tokio::test]
async fn a_body_over_the_limit_is_refused_and_the_server_carries_on() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let title = "x".repeat(orgdeck::server::body::BODY_LIMIT + 1);
    let body = serde_json::to_vec(&json!({"title": title})).unwrap();
    for path in [server.roles_path(), server.subscriptions_path()] {
        let reply = server
            .call_raw(Method::POST, &key, &path, body.clone(), "application/json")
            .await;
        reply.expect_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            "invalid_request",
            "payload_too_large",
            None,
        );
    }
    server
        .get(&key, &server.roles_path())
        .await
        .expect(StatusCode::OK);
}

#[tokio::test]
async fn another_media_type_is_refused() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let reply = server
        .call_raw(
            Method::POST,
            &key,
            &server.roles_path(),
            b"{\"name\":\"A\"}".to_vec(),
            "text/plain",
        )
        .await;
    reply.expect_error(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "invalid_request",
        "unsupported_media_type",
        None,
    );
    let charset = server
        .call_raw(
            Method::POST,
            &key,
            &server.roles_path(),
            b"{\"name\":\"With charset\"}".to_vec(),
            "application/json; charset=utf-8",
        )
        .await;
    charset.expect(StatusCode::CREATED);
}

#[tokio::test]
async fn throttled_keys_are_told_how_long_to_wait() {
    let server = TestServer::start_with(Seed::Demo, 0, Some("3/1000".parse().unwrap())).await;
    let key = server.key(&["*"]);
    for _ in 0..3 {
        server
            .get(&key, &server.roles_path())
            .await
            .expect(StatusCode::OK);
    }
    let reply = server.get(&key, &server.roles_path()).await;
    let detail = reply.expect_error(
        StatusCode::TOO_MANY_REQUESTS,
        "throttled_error",
        "throttled",
        None,
    );
    assert_eq!(detail, "Request was throttled. Expected available in 20 seconds.");
    let other = server.key(&["*"]);
    server
        .get(&other, &server.roles_path())
        .await
        .expect(StatusCode::OK);
}

#[tokio::test]
async fn unknown_paths_are_not_found() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    for path in ["/", "/api", "/api/roles/", "/api/organizations/@current/teams/"] {
        server.get(&key, path).await.expect_error(
            StatusCode::NOT_FOUND,
            "invalid_request",
            "not_found",
            None,
        );
    }
}

#[tokio::test]
async fn permissions_and_unknown_ids_come_before_body_errors() {
    let server = TestServer::demo().await;
    let reader = server.key(&["subscription:read", "organization:read"]);
    let garbage = b"{not json".to_vec();
    let scope = server
        .call_raw(
            Method::POST,
            &reader,
            &server.subscriptions_path(),
            garbage.clone(),
            "application/json",
        )
        .await;
    scope.expect_error(
        StatusCode::FORBIDDEN,
        "authentication_error",
        "permission_denied",
        None,
    );
    let writer = server.key(&["*"]);
    let unknown = server
        .call_raw(
            Method::POST,
            &writer,
            "/api/projects/424242/subscriptions/",
            garbage.clone(),
            "application/json",
        )
        .await;
    unknown.expect_error(StatusCode::NOT_FOUND, "invalid_request", "not_found", None);
    let too_large = vec![b' '; 2 * 1024 * 1024];
    let refused = server
        .call_raw(
            Method::POST,
            &reader,
            &server.roles_path(),
            too_large,
            "application/json",
        )
        .await;
    refused.expect_error(
        StatusCode::FORBIDDEN,
        "authentication_error",
        "permission_denied",
        None,
    );
}

#[tokio::test]
async fn authentication_comes_before_method_not_allowed() {
    let server = TestServer::demo().await;
    let path = format!(
        "{}{}/role_memberships/x/",
        server.roles_path(),
        uuid::Uuid::new_v4()
    );
    let anonymous = server.call(Method::PATCH, None, &path, Some(json!({}))).await;
    anonymous.expect_error(
        StatusCode::UNAUTHORIZED,
        "authentication_error",
        "not_authenticated",
        None,
    );
    let key = server.key(&["*"]);
    let known = server
        .call(Method::PATCH, Some(&key), &path, Some(json!({})))
        .await;
    known.expect_error(
        StatusCode::METHOD_NOT_ALLOWED,
        "invalid_request",
        "method_not_allowed",
        None,
    );
}

#[tokio::test]
async fn dates_outside_the_years_1_to_9999_are_invalid() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let sample = |field: &str, value: &str| {
        let mut body = json!({"target_type": "slack", "target_value": "#x", "frequency": "daily",
                              "interval": 1, "start_date": "2026-01-01T00:00:00Z",
                              "insight": DEMO_INSIGHT, "integration_id": DEMO_SLACK});
        body[field] = json!(value);
        body
    };
    for (field, value) in [
        ("start_date", "0000-01-01T00:00:00+01:00"),
        ("until_date", "9999-12-31T23:59:59-23:59"),
        ("start_date", "10000-01-01T00:00:00Z"),
    ] {
        let reply = server
            .post(&key, &server.subscriptions_path(), sample(field, value))
            .await;
        reply.expect_error(
            StatusCode::BAD_REQUEST,
            "validation_error",
            "invalid_input",
            Some(field),
        );
    }
    let far = server
        .post(
            &key,
            &server.subscriptions_path(),
            sample("until_date", "9999-12-31T23:59:59Z"),
        )
        .await;
    assert_eq!(
        far.expect(StatusCode::CREATED)["until_date"],
        "9999-12-31T23:59:59Z"
    );
}
