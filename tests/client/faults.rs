//! Faults injected between the client and a real reference server: the
//! client retries what is safe to retry, never sends a write twice, and turns
//! whatever the server sends into an error, never a panic.

use std::time::{Duration, Instant};

use orgdeck::api::{ApiKey, Client, ClientConfig, Error, List, RetryPolicy, RoleInput, TransportKind};
use orgdeck::server::store::{Db, directory, keys};
use orgdeck::server::{self, Seed, ServeOptions, demo};

use crate::support::proxy::{Fault, FaultProxy};
use crate::support::{TestServer, client_for};

const THROTTLED: &str = r#"{"type":"throttled_error","code":"throttled","detail":"Request was throttled. Expected available in 1 seconds.","attr":null}"#;
const UNAVAILABLE: &str =
    r#"{"type":"server_error","code":"unavailable","detail":"Service unavailable.","attr":null}"#;

async fn proxied() -> (TestServer, FaultProxy, Client) {
    let server = TestServer::demo().await;
    let proxy = FaultProxy::start(&server.base).await;
    let client = client_for(&proxy.base, &server.key(&["*"]));
    (server, proxy, client)
}

fn role_count(server: &TestServer) -> i64 {
    server
        .running
        .db
        .read_blocking(|c| Ok(c.query_row("SELECT COUNT(*) FROM roles", [], |r| r.get(0))?))
        .unwrap()
}

#[tokio::test]
async fn a_throttled_read_waits_as_told_and_succeeds() {
    let (_server, proxy, client) = proxied().await;
    proxy.push(Fault::Answer(429, THROTTLED.into()));
    let started = Instant::now();
    let page = client.page(&List::roles("@current"), 100, 0).await.unwrap();
    assert_eq!(page.count, 8);
    assert!(
        started.elapsed() >= Duration::from_millis(950),
        "waited {:?}",
        started.elapsed()
    );
    assert_eq!(proxy.requests().len(), 2);

    // A wait beyond the cap is cut to the cap (2 s here), not an hour.
    proxy.push(Fault::Answer(
        429,
        THROTTLED.replace("in 1 seconds", "in 3600 seconds"),
    ));
    let started = Instant::now();
    client.page(&List::roles("@current"), 100, 0).await.unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "waited {:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn unavailable_then_available_reads_are_retried_and_writes_are_not() {
    let (server, proxy, client) = proxied().await;
    proxy.push(Fault::Answer(503, UNAVAILABLE.into()));
    proxy.push(Fault::Answer(502, String::new()));
    assert_eq!(
        client.page(&List::roles("@current"), 100, 0).await.unwrap().count,
        8
    );
    assert_eq!(proxy.requests().len(), 3);

    proxy.push(Fault::Answer(503, UNAVAILABLE.into()));
    let input = RoleInput {
        name: Some("Not twice".into()),
        ..Default::default()
    };
    let error = client.create_role("@current", &input).await.unwrap_err();
    assert_eq!(error.status(), Some(503));
    assert_eq!(proxy.count("POST"), 1);
    assert_eq!(role_count(&server), 8);
}

#[tokio::test]
async fn a_write_whose_answer_is_lost_is_not_sent_again() {
    let (server, proxy, client) = proxied().await;
    proxy.push(Fault::ForwardThenDrop);
    let input = RoleInput {
        name: Some("Exactly once".into()),
        ..Default::default()
    };
    // The answer is lost; the client looks, finds the role, and takes it
    // as created rather than sending the create again.
    let role = client.create_role("@current", &input).await.unwrap();
    assert_eq!(role.name, "Exactly once");
    assert_eq!(proxy.count("POST"), 1);
    assert_eq!(role_count(&server), 9, "the server holds one row, not two");

    // A read whose answer is lost is simply asked again.
    proxy.push(Fault::ForwardThenDrop);
    assert_eq!(
        client.page(&List::roles("@current"), 100, 0).await.unwrap().count,
        9
    );
}

#[tokio::test]
async fn a_garbage_body_is_an_error_that_quotes_it() {
    let (_server, proxy, client) = proxied().await;
    proxy.push(Fault::Garbage);
    let error = client.page(&List::roles("@current"), 100, 0).await.unwrap_err();
    let Error::Decode { status, snippet, .. } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(*status, 200);
    assert!(snippet.contains("upstream error"));
    assert!(!error.to_string().contains('\n'));
}

#[tokio::test]
async fn whatever_the_server_sends_is_an_error_not_a_panic() {
    let (_server, proxy, client) = proxied().await;
    let bodies = [
        (200, ""),
        (200, "[]"),
        (200, r#"{"count": "many", "results": 5}"#),
        (200, r#"{"count": 1e400}"#),
        (
            200,
            r#"{"results": [{"id": {"deep": [1, 2, {"x": null}]}, "name": 7}]}"#,
        ),
        (404, "<html>Not found</html>"),
        (500, r#"{"type": 1, "code": [], "detail": null}"#),
        (418, "\u{0}\u{1}\u{2}"),
        (301, ""),
    ];
    for (status, body) in bodies {
        proxy.push(Fault::Answer(status, body.into()));
        let outcome = client.page(&List::roles("@current"), 100, 0).await;
        if let Err(error) = &outcome {
            let line = error.to_string();
            assert!(
                !line.is_empty() && !line.contains('\n'),
                "{status} {body:?}: {line}"
            );
        }
    }
    // And the typed models took what they could: nothing above panicked.
    assert_eq!(
        client.page(&List::roles("@current"), 100, 0).await.unwrap().count,
        8
    );
}

#[tokio::test]
async fn a_server_that_never_answers_times_out() {
    let (server, proxy, _) = proxied().await;
    let mut config = ClientConfig::new(&proxy.base, ApiKey::new(server.key(&["*"])));
    config.timeout = Duration::from_millis(700);
    let client = Client::new(config).unwrap();
    proxy.push(Fault::Hang);
    let started = Instant::now();
    let error = client.page(&List::roles("@current"), 100, 0).await.unwrap_err();
    assert!(
        matches!(
            error,
            Error::Transport {
                kind: TransportKind::Timeout,
                ..
            }
        ),
        "{error:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(3));
    assert!(error.to_string().contains("within 0.7 s"), "{error}");
}

#[tokio::test]
async fn a_refused_connection_is_reported_and_a_write_is_retried_until_the_server_is_up() {
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = free.local_addr().unwrap();
    drop(free);
    let nobody = client_for(&format!("http://{address}"), "phx_x");
    let error = nobody.page(&List::roles("@current"), 100, 0).await.unwrap_err();
    assert!(
        matches!(
            error,
            Error::Transport {
                kind: TransportKind::Connect,
                ..
            }
        ),
        "{error:?}"
    );
    assert!(error.to_string().contains("cannot connect"), "{error}");

    // A write retried only because the connection was never made: the
    // server comes up while the client backs off, and one role is created.
    let dir = tempfile::tempdir().unwrap();
    let db_path = dir.path().join("late.sqlite");
    let key = {
        let db = Db::open(&db_path).unwrap();
        demo::prepare(
            &db,
            Seed::Demo,
            demo::Scale::default(),
            orgdeck::clock::system_now(),
            Default::default(),
        )
        .unwrap();
        let owner = db.read_blocking(directory::first_owner).unwrap().unwrap();
        db.write_blocking(|tx| keys::mint(tx, owner, "late", &["*".to_string()]))
            .unwrap()
    };
    let starter = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        server::start(ServeOptions {
            listen: address,
            db: db_path,
            seed: Seed::Demo,
            generate_subscriptions: 0,
            generate_members: 0,
            rate_limit: None,
            delay: None,
            clock: orgdeck::clock::Clock::system(),
            public_url: None,
            read_timeouts: Default::default(),
            flavor: Default::default(),
            subscription_limit: None,
            max_limit: None,
            export_cap: orgdeck::server::DEFAULT_EXPORT_CAP,
            access: Default::default(),
        })
        .await
        .unwrap()
    });
    let mut config = ClientConfig::new(format!("http://{address}"), ApiKey::new(&key));
    config.retry = RetryPolicy {
        attempts: 6,
        base_delay: Duration::from_millis(150),
        max_delay: Duration::from_secs(2),
    };
    let client = Client::new(config).unwrap();
    let input = RoleInput {
        name: Some("Late".into()),
        ..Default::default()
    };
    let role = client.create_role("@current", &input).await.unwrap();
    assert_eq!(role.name, "Late");
    let running = starter.await.unwrap();
    let late: i64 = running
        .db
        .read_blocking(|c| {
            Ok(c.query_row("SELECT COUNT(*) FROM roles WHERE name = 'Late'", [], |r| r.get(0))?)
        })
        .unwrap();
    assert_eq!(late, 1);
}

/// What the client tells an observer: each try with its status and time,
/// the wait before a retry, and a create's real 201.
#[tokio::test]
async fn an_observer_hears_every_try_as_the_client_saw_it() {
    use std::sync::{Arc, Mutex};
    let (_server, proxy, client) = proxied().await;
    let heard = Arc::new(Mutex::new(Vec::new()));
    let sink = heard.clone();
    let client = client.observed(Arc::new(move |exchange: &orgdeck::api::Exchange| {
        sink.lock().unwrap().push(exchange.clone());
    }));
    proxy.push(Fault::Answer(429, THROTTLED.into()));
    client.page(&List::roles("@current"), 100, 0).await.unwrap();
    let input = RoleInput {
        name: Some("Observed".into()),
        feature_flags_access_level: None,
    };
    client.create_role("@current", &input).await.unwrap();
    let heard = heard.lock().unwrap().clone();
    let seen: Vec<(&str, Option<u16>, Option<Duration>)> = heard
        .iter()
        .map(|e| (e.request.method.as_str(), e.status, e.retry_in))
        .collect();
    assert_eq!(
        seen,
        [
            ("GET", Some(429), Some(Duration::from_secs(1))),
            ("GET", Some(200), None),
            ("POST", Some(201), None),
        ]
    );
    assert_eq!(heard[2].request.path, "/api/organizations/@current/roles/");
}
