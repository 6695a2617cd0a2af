//! The error rows of compat.md that are about the request rather than a
//! resource: bodies that are not JSON, too large, of another media type, and
//! throttling.

use orgdeck::server::Seed;
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::support::TestServer;

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
        list.expect_error(StatusCode::BAD_REQUEST, "validation_error", "invalid", None),
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
async fn a_body_over_one_mebibyte_is_refused_and_the_server_carries_on() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let title = "x".repeat(1024 * 1024 + 1);
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
