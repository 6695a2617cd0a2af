//! What the server allows a client: time to send its headers and body,
//! paging links it cannot redirect, and search text taken as text.

use std::time::{Duration, Instant};

use orgdeck::server::ReadTimeouts;
use reqwest::StatusCode;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::support::TestServer;

async fn quick_server() -> TestServer {
    TestServer::demo_with(|options| {
        options.read_timeouts = ReadTimeouts {
            header: Duration::from_millis(400),
            body: Duration::from_millis(400),
        };
    })
    .await
}

fn address(server: &TestServer) -> String {
    server.base.trim_start_matches("http://").to_string()
}

/// Everything the server sends until it closes the connection, and when.
async fn read_until_closed(stream: &mut TcpStream) -> (String, Duration) {
    let started = Instant::now();
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer)).await;
    assert!(read.is_ok(), "the server kept the connection open for 10 s");
    (String::from_utf8_lossy(&answer).into_owned(), started.elapsed())
}

#[tokio::test]
async fn a_client_that_never_finishes_its_headers_is_let_go() {
    let server = quick_server().await;
    let mut stream = TcpStream::connect(address(&server)).await.unwrap();
    stream
        .write_all(b"GET /api/projects/ HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        .await
        .unwrap();
    let (_, waited) = read_until_closed(&mut stream).await;
    assert!(waited < Duration::from_secs(3), "closed after {waited:?}");
    // A connection that sends nothing at all is let go the same way.
    let mut silent = TcpStream::connect(address(&server)).await.unwrap();
    let (answer, waited) = read_until_closed(&mut silent).await;
    assert!(answer.is_empty() && waited < Duration::from_secs(3));
    // And the server serves on.
    let key = server.key(&["*"]);
    server.get(&key, "/api/projects/").await.expect(StatusCode::OK);
}

#[tokio::test]
async fn a_body_that_does_not_arrive_in_time_is_a_408() {
    let server = quick_server().await;
    let key = server.key(&["*"]);
    let mut stream = TcpStream::connect(address(&server)).await.unwrap();
    let request = format!(
        "POST {} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n\
         Content-Type: application/json\r\nContent-Length: 100\r\nConnection: close\r\n\r\n{{\"name\":",
        server.roles_path()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let (answer, waited) = read_until_closed(&mut stream).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(
        answer.contains(r#""code":"request_timeout""#)
            && answer.contains("did not arrive within 0.4 seconds"),
        "{answer}"
    );
    assert!(waited < Duration::from_secs(3), "answered after {waited:?}");
}

#[tokio::test]
async fn paging_links_name_the_server_whatever_host_the_client_says() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let page = server
        .http
        .get(server.url(&format!("{}?limit=2", server.subscriptions_path())))
        .bearer_auth(&key)
        .header("Host", "attacker.example")
        .send()
        .await
        .unwrap();
    let page: serde_json::Value = page.json().await.unwrap();
    let next = page["next"].as_str().unwrap();
    assert!(
        next.starts_with(&format!("{}/api/projects/", server.base)),
        "{next}"
    );

    // Behind a proxy, the configured public address.
    let proxied = TestServer::demo_with(|options| {
        options.public_url = Some("https://orgdeck.example.com/ph/".into());
    })
    .await;
    let key = proxied.key(&["*"]);
    assert_eq!(proxied.base, "https://orgdeck.example.com/ph");
    let address = proxied.running.local_address();
    let page = proxied
        .http
        .get(format!("http://{address}/api/projects/1/subscriptions/?limit=2"))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    let page: serde_json::Value = page.json().await.unwrap();
    assert_eq!(
        page["next"],
        "https://orgdeck.example.com/ph/api/projects/1/subscriptions/?limit=2&offset=2"
    );
}

#[tokio::test]
async fn nul_in_a_query_is_refused_never_a_match_all() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let path = server.subscriptions_path();
    let reply = server.get(&key, &format!("{path}?search=%00zzz")).await;
    let detail = reply.expect_error(
        StatusCode::BAD_REQUEST,
        "validation_error",
        "null_characters_not_allowed",
        Some("search"),
    );
    assert_eq!(detail, "Null characters are not allowed.");
    // Other controls are plain characters: they match nothing here.
    for control in ["%01zzz", "%1B%5B2J", "%7F%C2%9B"] {
        let reply = server.get(&key, &format!("{path}?search={control}")).await;
        assert_eq!(reply.expect(StatusCode::OK)["count"], 0, "{control}");
    }
    // And an ordinary search still finds rows.
    let found = server.get(&key, &format!("{path}?search=digest")).await;
    assert!(found.expect(StatusCode::OK)["count"].as_u64().unwrap() > 0);
}
