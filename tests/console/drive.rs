//! What the console tests against the reference server share: a console
//! on the server, and keys pressed as a person presses them, each answered
//! before the next (time goes by only as the test says).

use std::time::Duration;

use orgdeck::console::kit::theme::Theme;
use orgdeck::console::{Context, Driver};
use ratatui::crossterm::event::KeyCode;

use crate::support::{TestServer, client_for};

/// The longest a key's answers are waited for.
pub const SETTLE: Duration = Duration::from_secs(30);

/// The console on the server's organization and project, as `key` sees
/// them, at `size`, with the context changed by `change`.
pub async fn console_with(
    server: &TestServer,
    key: &str,
    size: (u16, u16),
    theme: Theme,
    change: impl FnOnce(&mut Context),
) -> Driver {
    let mut context = Context {
        host: "reference server".into(),
        organization: server.organization.clone(),
        project: server.project.to_string(),
        ..Context::default()
    };
    change(&mut context);
    let mut driver = Driver::new(client_for(&server.base, key), context, size, theme);
    driver.start();
    assert!(driver.settle(SETTLE).await);
    driver
}

/// The console in plain colours.
pub async fn console(server: &TestServer, key: &str, size: (u16, u16)) -> Driver {
    console_with(server, key, size, Theme::plain(), |_| {}).await
}

/// Presses each key and waits for what it asked.
pub async fn keys(driver: &mut Driver, codes: &[KeyCode]) {
    for code in codes {
        driver.press(*code);
        assert!(driver.settle(SETTLE).await, "{}", driver.screen());
    }
}

/// Types the text at once, then waits.
pub async fn typed(driver: &mut Driver, text: &str) {
    driver.type_text(text);
    assert!(driver.settle(SETTLE).await);
}

/// `:` and the line, then Enter.
pub async fn command(driver: &mut Driver, line: &str) {
    driver.press(KeyCode::Char(':'));
    driver.type_text(line);
    keys(driver, &[KeyCode::Enter]).await;
}
