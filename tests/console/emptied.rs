//! Lists that were empty once come back: a search with no match, a
//! project with no deleted subscriptions, a project that starts empty
//! (issue #12, defect 1), against the reference server.

use std::time::Duration;

use orgdeck::console::kit::theme::Theme;
use orgdeck::console::{Context, Driver};
use orgdeck::server::Seed;
use ratatui::crossterm::event::KeyCode;
use serde_json::json;

use crate::support::{TestServer, client_for, seeded};

const SETTLE: Duration = Duration::from_secs(10);

async fn console(server: &TestServer, key: &str) -> Driver {
    let context = Context {
        host: "reference server".into(),
        organization: server.organization.clone(),
        project: server.project.to_string(),
        ..Context::default()
    };
    let mut driver = Driver::new(client_for(&server.base, key), context, (120, 30), Theme::plain());
    driver.clock = orgdeck::clock::Clock::manual(seeded() + chrono::Duration::hours(1));
    driver.app.window.now = driver.clock.now();
    driver.start();
    assert!(driver.settle(SETTLE).await);
    driver
}

async fn press(driver: &mut Driver, keys: &[KeyCode]) {
    for code in keys {
        driver.press(*code);
        assert!(driver.settle(SETTLE).await);
    }
}

fn count(driver: &Driver) -> Option<u64> {
    driver.app.screens.subscriptions.rows.list.count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_search_with_no_match_then_esc_and_refresh_shows_every_row_again() {
    let server = TestServer::demo_at(seeded(), 0).await;
    let mut driver = console(&server, &server.key(&["*"])).await;
    press(&mut driver, &[KeyCode::Char('3'), KeyCode::Char('/')]).await;
    driver.type_text("zzz");
    assert!(driver.settle(SETTLE).await, "the search went to the server");
    assert_eq!(count(&driver), Some(0));
    press(&mut driver, &[KeyCode::Esc]).await;
    assert_eq!(count(&driver), Some(95), "Esc ends the search");
    press(&mut driver, &[KeyCode::Char('r')]).await;
    assert_eq!(count(&driver), Some(95));
    assert!(driver.screen().contains("Subscriptions 1/95"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_project_that_starts_empty_shows_what_is_created_later() {
    let server = TestServer::start(Seed::None, 0).await;
    let key = server.key_for("owner@orgdeck.local", &["*"]);
    let mut driver = console(&server, &key).await;
    press(&mut driver, &[KeyCode::Char('3')]).await;
    assert_eq!(count(&driver), Some(0));
    // No deleted ones either, and back.
    press(&mut driver, &[KeyCode::Char('D'), KeyCode::Char('D')]).await;
    assert_eq!(count(&driver), Some(0));
    server
        .post(
            &key,
            &server.subscriptions_path(),
            // A bare project has no insight or dashboard: an AI report.
            json!({
                "prompt": "What changed this week?",
                "target_type": "email",
                "target_value": "a@example.com",
                "frequency": "daily",
                "interval": 1,
                "start_date": "2030-01-01T09:00:00Z",
                "title": "Made elsewhere"
            }),
        )
        .await
        .expect(reqwest::StatusCode::CREATED);
    press(&mut driver, &[KeyCode::Char('r')]).await;
    assert_eq!(count(&driver), Some(1), "{}", driver.screen());
    assert!(driver.screen().contains("Made elsewhere"));
    press(&mut driver, &[KeyCode::Char('D')]).await;
    assert_eq!(count(&driver), Some(0));
    press(&mut driver, &[KeyCode::Char('D')]).await;
    assert_eq!(count(&driver), Some(1));
}
