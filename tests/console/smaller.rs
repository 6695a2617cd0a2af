//! Issue 24's smaller defects, each as the user met it, against the
//! reference server.

use orgdeck::console::Driver;
use orgdeck::console::screens::ScreenId;
use orgdeck::console::shell::Mode;
use ratatui::crossterm::event::KeyCode;

use crate::drive::{self, command, keys};
use crate::support::TestServer;

async fn console(server: &TestServer, size: (u16, u16)) -> Driver {
    drive::console(server, &server.key(&["*"]), size).await
}

fn shown_ids(driver: &Driver) -> Vec<i64> {
    let rows = &driver.app.screens.subscriptions.rows;
    (0..rows.len())
        .filter_map(|at| rows.row(at).map(|row| row.id))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn u_brings_back_the_row_it_restores_at_once() {
    let server = TestServer::demo().await;
    let mut driver = console(&server, (160, 40)).await;
    keys(&mut driver, &[KeyCode::Char('3'), KeyCode::Char('j')]).await;
    let id = driver.app.screens.subscriptions.selected().unwrap().id;
    keys(
        &mut driver,
        &[KeyCode::Char('d'), KeyCode::Char('y'), KeyCode::Char('r')],
    )
    .await;
    assert!(
        !shown_ids(&driver).contains(&id),
        "soft-deleted and refreshed: gone\n{}",
        driver.screen()
    );
    keys(&mut driver, &[KeyCode::Char('u')]).await;
    assert!(
        shown_ids(&driver).contains(&id),
        "restored: shown again without r"
    );
    assert!(driver.screen().contains(&format!("#{id}")) || driver.screen().contains(&id.to_string()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_esc_leaves_the_deliveries_after_the_json_view() {
    let server = TestServer::demo().await;
    let mut driver = console(&server, (160, 40)).await;
    keys(&mut driver, &[KeyCode::Char('3'), KeyCode::Enter]).await;
    assert_eq!(driver.app.shown(), ScreenId::Deliveries);
    keys(&mut driver, &[KeyCode::Char('v')]).await;
    assert!(driver.app.overlays.detail_json);
    keys(&mut driver, &[KeyCode::Esc]).await;
    assert_eq!(
        driver.app.shown(),
        ScreenId::Subscriptions,
        "the first Esc went back"
    );
    // Over the table (a small screen), Esc closes the detail first.
    let mut small = console(&server, (80, 20)).await;
    keys(&mut small, &[KeyCode::Char('3'), KeyCode::Char('v')]).await;
    assert!(small.app.overlays.detail_open);
    keys(&mut small, &[KeyCode::Esc]).await;
    assert!(!small.app.overlays.detail_open && small.app.shown() == ScreenId::Subscriptions);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn states_give_the_users_sort_back_and_state_all_clears_every_narrowing() {
    let server = TestServer::demo().await;
    let mut driver = console(&server, (160, 40)).await;
    keys(
        &mut driver,
        &[KeyCode::Char('3'), KeyCode::Char('s'), KeyCode::Char('s')],
    )
    .await;
    let chosen = driver.app.screens.subscriptions.sort;
    let ordering = driver.app.screens.subscriptions.resource.filter.ordering.clone();
    assert_ne!(chosen, 0);
    // f: overdue (its own order), then paused: the user's order again.
    keys(&mut driver, &[KeyCode::Char('f')]).await;
    assert_ne!(
        driver.app.screens.subscriptions.resource.filter.ordering,
        ordering
    );
    keys(&mut driver, &[KeyCode::Char('f')]).await;
    assert_eq!(driver.app.screens.subscriptions.sort, chosen);
    assert_eq!(
        driver.app.screens.subscriptions.resource.filter.ordering,
        ordering
    );

    command(&mut driver, "target slack").await;
    command(&mut driver, "delivers dashboard").await;
    command(&mut driver, "state all").await;
    let resource = &driver.app.screens.subscriptions.resource;
    assert_eq!(
        (
            resource.state,
            resource.filter.target_type.clone(),
            resource.filter.resource_type.clone()
        ),
        (None, None, None)
    );
    assert!(matches!(driver.app.mode, Mode::Normal));
    assert_eq!(driver.app.screens.subscriptions.rows.list.count(), Some(95));
}
