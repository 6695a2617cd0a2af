//! A profile marked `production = true` looks different and asks once more
//! before any write (k9s #3414: people fear acting on production by
//! mistake); its `color` tints the title bar.

use orgdeck::console::Driver;
use orgdeck::console::kit::theme::Theme;
use orgdeck::console::screens::ScreenId;
use orgdeck::console::shell::Mode;
use ratatui::crossterm::event::KeyCode;
use ratatui::style::Color;
use serde_json::Value;

use crate::drive::{self, SETTLE};
use crate::support::TestServer;

async fn console(server: &TestServer, production: bool) -> Driver {
    let key = server.key(&["*"]);
    drive::console_with(server, &key, (160, 40), Theme::colored(), |context| {
        context.profile = Some("cloud".into());
        context.production = production;
        context.color = Some(Color::Rgb(139, 0, 0));
    })
    .await
}

async fn enabled(server: &TestServer, id: i64) -> Value {
    let key = server.key(&["*"]);
    server
        .get(&key, &format!("{}{id}/", server.subscriptions_path()))
        .await
        .json["enabled"]
        .clone()
}

fn asking(driver: &Driver) -> Option<(String, bool)> {
    match &driver.app.mode {
        Mode::Confirm(confirm) => Some((confirm.question.clone(), confirm.production)),
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn production_asks_once_more_before_any_write_and_enter_says_no() {
    let server = TestServer::demo().await;
    let mut driver = console(&server, true).await;
    let screen = driver.screen();
    assert!(screen.lines().next().unwrap().contains("PRODUCTION"), "{screen}");
    driver.press(KeyCode::Char('3'));
    assert!(driver.settle(SETTLE).await);
    assert_eq!(driver.app.shown(), ScreenId::Subscriptions);
    let id = driver.app.screens.subscriptions.selected().unwrap().id;
    assert_eq!(enabled(&server, id).await, true);

    // A pause asks, Enter meaning yes; production then asks once more,
    // Enter meaning no.
    driver.press(KeyCode::Char('p'));
    let (_, production) = asking(&driver).expect("the pause's own question");
    assert!(!production);
    driver.press(KeyCode::Enter);
    let (question, production) = asking(&driver).expect("a question on production");
    assert!(
        production && question.contains("PRODUCTION (cloud)") && question.contains("Pause"),
        "{question}"
    );
    driver.press(KeyCode::Enter);
    assert!(driver.settle(SETTLE).await);
    assert!(asking(&driver).is_none());
    assert_eq!(enabled(&server, id).await, true, "Enter said no");

    driver.press(KeyCode::Char('p'));
    driver.press(KeyCode::Char('y'));
    driver.press(KeyCode::Char('y'));
    assert!(driver.settle(SETTLE).await);
    assert_eq!(enabled(&server, id).await, false, "y twice paused it");

    // A soft delete asks twice: its own question, then production's.
    driver.press(KeyCode::Char('d'));
    let (first, production) = asking(&driver).unwrap();
    assert!(!production, "{first}");
    driver.press(KeyCode::Char('y'));
    let (second, production) = asking(&driver).expect("asked once more");
    assert!(production && second.contains("PRODUCTION"), "{second}");
    driver.press(KeyCode::Esc);
    assert!(driver.settle(SETTLE).await);
    let key = server.key(&["*"]);
    let row = server
        .get(&key, &format!("{}{id}/", server.subscriptions_path()))
        .await;
    assert_eq!(row.json["deleted"], false, "Esc at the second question kept it");

    // The next write is asked about again: a yes counts once. A resume
    // asks its own question first (it delivers at once), then production's.
    driver.press(KeyCode::Char('p'));
    assert!(
        asking(&driver).is_some_and(|(question, production)| !production && question.starts_with("Resume"))
    );
    driver.press(KeyCode::Char('y'));
    assert!(asking(&driver).is_some_and(|(_, production)| production));
    driver.press(KeyCode::Char('n'));
    assert!(driver.settle(SETTLE).await);
    assert_eq!(enabled(&server, id).await, false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_profiles_colour_tints_the_title_bar_and_others_ask_once() {
    let server = TestServer::demo().await;
    let mut driver = console(&server, false).await;
    let (width, height) = driver.app.window.size;
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(width, height)).unwrap();
    driver.draw(&mut terminal).unwrap();
    let buffer = terminal.backend().buffer();
    assert_eq!(
        buffer[(width - 1, 0)].bg,
        Color::Rgb(139, 0, 0),
        "the bar's far end"
    );
    assert_ne!(
        buffer[(width - 1, 5)].bg,
        Color::Rgb(139, 0, 0),
        "the table is not tinted"
    );
    assert!(!driver.screen().contains("PRODUCTION"));
    driver.press(KeyCode::Char('3'));
    assert!(driver.settle(SETTLE).await);
    let id = driver.app.screens.subscriptions.selected().unwrap().id;
    driver.press(KeyCode::Char('p'));
    driver.press(KeyCode::Char('y'));
    assert!(driver.settle(SETTLE).await);
    assert!(asking(&driver).is_none(), "no second question off production");
    assert_eq!(enabled(&server, id).await, false);
}
