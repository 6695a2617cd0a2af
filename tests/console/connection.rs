//! The connection in the console, against the reference server behind a
//! proxy that goes away and comes back, or a server that answers slowly;
//! the console's clock is a manual one, which alone moves its timers (the
//! retries of a server not reached, `--refresh`).
//!
//! A server that goes away is named with the reason, the rows keep their
//! last values (stale), and the console comes back by itself when the
//! server does. No key is lost: keys typed while a list loads are applied
//! in order once it arrives, and a refresh neither moves the cursor off
//! its row nor swallows a key.

use std::time::Duration;

use orgdeck::api::{ApiKey, Client, ClientConfig, List, RetryPolicy, SubscriptionFilter};
use orgdeck::clock::Clock;
use orgdeck::console::kit::theme::Theme;
use orgdeck::console::shell::ScreenId;
use orgdeck::console::{Context, Driver};
use ratatui::crossterm::event::KeyCode;
use serde_json::json;

use crate::support::proxy::FaultProxy;
use crate::support::{DEMO_INSIGHT, OWNER, TestServer, client_for, seeded};

const SETTLE: Duration = Duration::from_secs(10);

/// How long the slow server holds each answer: long enough that keys
/// typed after a request always beat its answer.
const SLOW: Duration = Duration::from_millis(400);

/// The console on `client`, on a manual clock an hour after the demo's seed
/// time, settled on its first screen.
async fn console(server: &TestServer, client: Client, refresh: Option<u32>) -> (Driver, Clock) {
    let context = Context {
        host: "reference server".into(),
        organization: server.organization.clone(),
        project: server.project.to_string(),
        refresh,
        ..Context::default()
    };
    let mut driver = Driver::new(client, context, (140, 40), Theme::plain());
    let clock = Clock::manual(seeded() + chrono::Duration::hours(1));
    driver.clock = clock.clone();
    driver.app.window.now = clock.now();
    driver.start();
    assert!(driver.settle(SETTLE).await, "{}", driver.screen());
    (driver, clock)
}

/// Presses keys one at a time, each answered before the next.
async fn press(driver: &mut Driver, keys: &[KeyCode]) {
    for code in keys {
        driver.press(*code);
        assert!(driver.settle(SETTLE).await, "{}", driver.screen());
    }
}

/// Takes messages (timers included, which `settle` does not wait for)
/// until `done` holds.
async fn until(driver: &mut Driver, what: &str, done: impl Fn(&Driver) -> bool) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while !done(driver) {
        match tokio::time::timeout_at(deadline, driver.next_message()).await {
            Ok(Some(msg)) => {
                driver.send(msg);
            }
            _ => panic!("never: {what}\n{}", driver.screen()),
        }
    }
}

/// The project's subscriptions as the console lists them: id and title.
async fn subscriptions(server: &TestServer) -> Vec<(i64, String)> {
    let project = server.project.to_string();
    let page = server
        .client()
        .page(
            &List::subscriptions(&project, &SubscriptionFilter::default()),
            100,
            0,
        )
        .await
        .unwrap();
    page.results
        .into_iter()
        .map(|subscription| (subscription.id, subscription.title.unwrap_or_default()))
        .collect()
}

fn selected(driver: &Driver) -> Option<i64> {
    driver
        .app
        .screens
        .subscriptions
        .selected()
        .map(|subscription| subscription.id)
}

/// The footer's two lines: keys or a flash, then the state and the connection.
fn footer(driver: &mut Driver) -> String {
    let screen = driver.screen();
    let lines: Vec<&str> = screen.lines().collect();
    lines[lines.len().saturating_sub(2)..].join("\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_goes_away_is_named_its_rows_kept_and_it_is_back_by_itself() {
    let server = TestServer::demo().await;
    let proxy = FaultProxy::start(&server.base).await;
    let key = server.key(&["*"]);
    let (mut driver, clock) = console(&server, client_for(&proxy.base, &key), None).await;
    press(&mut driver, &[KeyCode::Char('3'), KeyCode::Char('j')]).await;
    let rows = subscriptions(&server).await;
    let titles: Vec<&str> = rows.iter().take(3).map(|(_, title)| title.as_str()).collect();
    assert_eq!(selected(&driver), Some(rows[1].0));

    proxy.refuse().await;
    press(&mut driver, &[KeyCode::Char('r')]).await;
    let screen = driver.screen();
    let named = format!("cannot reach {}: connection refused", proxy.base);
    assert!(
        footer(&mut driver).contains(&format!("{named} · retrying in 1 s · r retries now")),
        "{screen}"
    );
    // The rows keep their last known values, marked stale since the clock's 09:00.
    assert!(screen.contains("stale since 09:00 UTC"), "{screen}");
    for title in &titles {
        assert!(screen.contains(title), "{title}: {screen}");
    }
    assert!(
        !screen.lines().any(|line| line.starts_with("│…")),
        "no row turned into a placeholder: {screen}"
    );
    assert_eq!(selected(&driver), Some(rows[1].0), "the cursor stays on its row");

    // The next try comes as the clock moves, and fails: the wait doubles.
    clock.advance(chrono::Duration::seconds(1));
    until(&mut driver, "a second try", |driver| {
        driver
            .app
            .connection
            .offline
            .as_ref()
            .is_some_and(|offline| offline.tries == 1 && offline.retry_at.is_some())
            && driver.app.requests.in_flight == 0
    })
    .await;
    assert!(
        footer(&mut driver).contains(&format!("{named} · retrying in 2 s")),
        "{}",
        driver.screen()
    );

    // Back, but nothing tries it before the clock says so.
    proxy.come_back().await;
    assert!(driver.settle(SETTLE).await);
    assert!(
        driver.app.connection.offline.is_some(),
        "tried only when the timer says"
    );
    clock.advance(chrono::Duration::seconds(2));
    until(&mut driver, "reconnected", |driver| {
        driver.app.connection.offline.is_none() && driver.app.requests.in_flight == 0
    })
    .await;
    let screen = driver.screen();
    assert!(
        footer(&mut driver).contains(&format!("reconnected to {}", proxy.base)),
        "{screen}"
    );
    assert!(
        !screen.contains("stale since") && !screen.contains("cannot reach"),
        "{screen}"
    );
    for title in &titles {
        assert!(screen.contains(title), "{title}: {screen}");
    }
    assert_eq!(selected(&driver), Some(rows[1].0));
    // And the list was read again after the server came back.
    let last = proxy.requests().last().cloned().unwrap_or_default();
    assert!(last.contains("/subscriptions/"), "{last}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_stops_answering_is_named_and_enter_on_a_row_not_loaded_says_why() {
    let server = TestServer::demo().await;
    let proxy = FaultProxy::start(&server.base).await;
    let mut config = ClientConfig::new(&proxy.base, ApiKey::new(server.key(&["*"])));
    config.timeout = Duration::from_millis(500);
    config.retry = RetryPolicy {
        attempts: 2,
        base_delay: Duration::from_millis(20),
        max_delay: Duration::from_millis(100),
    };
    let (mut driver, clock) = console(&server, Client::new(config).unwrap(), None).await;
    proxy.stop_answering().await;
    // Subscriptions, never loaded, from a server that takes the request and
    // says nothing.
    press(&mut driver, &[KeyCode::Char('3')]).await;
    let named = format!("cannot reach {}: no answer within 0.5 s", proxy.base);
    let screen = driver.screen();
    assert!(footer(&mut driver).contains(&named), "{screen}");
    // The list says so too, rather than "could not load".
    assert!(
        screen
            .lines()
            .any(|line| line.contains(&named) && line.starts_with('│')),
        "{screen}"
    );
    // Enter has no row to open: it says why, not what Enter does on one.
    press(&mut driver, &[KeyCode::Enter]).await;
    let notice = driver.app.notice.shown.clone().expect("Enter answers").text;
    assert!(notice.starts_with(&format!("not loaded: {named}")), "{notice}");
    assert!(!notice.contains(":deliveries"), "{notice}");
    assert_eq!(driver.app.shown(), ScreenId::Subscriptions);

    proxy.come_back().await;
    clock.advance(chrono::Duration::seconds(1));
    until(&mut driver, "reconnected", |driver| {
        driver.app.connection.offline.is_none()
            && driver.app.screens.subscriptions.rows.list.count().is_some()
    })
    .await;
    assert!(driver.settle(SETTLE).await);
    assert!(driver.screen().contains("reconnected to"), "{}", driver.screen());
    let first = subscriptions(&server).await[0].0;
    assert_eq!(selected(&driver), Some(first));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_typed_while_a_slow_list_loads_are_applied_in_order() {
    let server = TestServer::demo_with(|options| options.delay = Some(SLOW)).await;
    let key = server.key(&["*"]);
    let (mut driver, _clock) = console(&server, client_for(&server.base, &key), None).await;
    let third = subscriptions(&server).await[2].clone();
    // All four before the first page of subscriptions has come.
    for code in [
        KeyCode::Char('3'),
        KeyCode::Char('j'),
        KeyCode::Char('j'),
        KeyCode::Enter,
    ] {
        driver.press(code);
    }
    assert!(
        driver.app.screens.subscriptions.rows.list.count().is_none(),
        "typed during the load"
    );
    assert!(driver.settle(SETTLE).await, "{}", driver.screen());
    assert_eq!(driver.app.shown(), ScreenId::Deliveries, "{}", driver.screen());
    assert_eq!(driver.app.screens.deliveries.subscription(), Some(third.0));
    assert!(driver.screen().contains(&third.1), "{}", driver.screen());
    press(&mut driver, &[KeyCode::Char('q')]).await;
    assert_eq!(driver.app.screens.subscriptions.rows.cursor, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_during_a_background_refresh_land_where_they_were_typed() {
    let server = TestServer::demo_with(|options| options.delay = Some(SLOW)).await;
    let key = server.key(&["*"]);
    let (mut driver, clock) = console(&server, client_for(&server.base, &key), Some(2)).await;
    press(&mut driver, &[KeyCode::Char('3')]).await;
    let third = subscriptions(&server).await[2].clone();
    // `--refresh 2`: the clock moves two seconds, and the list is on its way again.
    clock.advance(chrono::Duration::seconds(2));
    until(&mut driver, "a refresh in flight", |driver| {
        driver.app.screens.subscriptions.rows.list.is_loading()
    })
    .await;
    for code in [KeyCode::Char('j'), KeyCode::Char('j')] {
        driver.press(code);
    }
    assert_eq!(
        selected(&driver),
        Some(third.0),
        "the keys move over the rows shown"
    );
    driver.press(KeyCode::Enter);
    assert!(driver.settle(SETTLE).await, "{}", driver.screen());
    assert_eq!(driver.app.shown(), ScreenId::Deliveries, "{}", driver.screen());
    assert_eq!(driver.app.screens.deliveries.subscription(), Some(third.0));
    assert!(driver.app.refresh.last.is_some(), "the refresh ran");
    press(&mut driver, &[KeyCode::Char('q')]).await;
    assert_eq!(driver.app.screens.subscriptions.rows.cursor, 2);
    assert_eq!(selected(&driver), Some(third.0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refresh_with_a_row_inserted_above_keeps_the_cursor_on_its_subscription() {
    let server = TestServer::demo_with(|options| options.delay = Some(SLOW)).await;
    let key = server.key(&["*"]);
    let (mut driver, _clock) = console(&server, client_for(&server.base, &key), None).await;
    press(&mut driver, &[KeyCode::Char('3'), KeyCode::Char('j')]).await;
    let before = subscriptions(&server).await;
    assert_eq!(selected(&driver), Some(before[1].0));

    // A subscription created elsewhere: the newest, so the first row.
    let created = server
        .post(
            &server.key_for(OWNER, &["*"]),
            &server.subscriptions_path(),
            json!({
                "insight": DEMO_INSIGHT,
                "frequency": "daily",
                "interval": 1,
                "start_date": "2026-11-22T09:00:00Z",
                "title": "Inserted above",
                "target_type": "email",
                "target_value": OWNER,
            }),
        )
        .await;
    let created = created.expect(reqwest::StatusCode::CREATED)["id"]
        .as_i64()
        .unwrap();
    assert_eq!(subscriptions(&server).await[0].0, created);

    // `r`, then `j` while it is on its way: the cursor ends on the row `j`
    // moved to, found by its id in the rows that came back.
    driver.press(KeyCode::Char('r'));
    driver.press(KeyCode::Char('j'));
    assert_eq!(selected(&driver), Some(before[2].0));
    assert!(driver.settle(SETTLE).await);
    assert_eq!(selected(&driver), Some(before[2].0), "{}", driver.screen());
    assert_eq!(
        driver.app.screens.subscriptions.rows.cursor, 3,
        "one row below where it was"
    );
    assert!(driver.screen().contains("Inserted above"));

    // A refresh alone keeps it there too.
    press(&mut driver, &[KeyCode::Char('r')]).await;
    assert_eq!(selected(&driver), Some(before[2].0));
}
