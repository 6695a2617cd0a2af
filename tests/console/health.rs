//! The Health view against the reference server's demo, on a manual clock
//! the server and the console share: a look finds the demo's failures
//! (#35 failing, #78 partial, #13 and #24 auto-disabled, #46 overdue) and
//! shows them first; `p` on an auto-disabled one resumes it, and the
//! console says the server paused it again, and why; `f` on #78's
//! deliveries shows its partial ones. The look's index goes to a
//! temporary state directory.

use std::time::Duration;

use orgdeck::clock::Clock;
use orgdeck::console::kit::theme::Theme;
use orgdeck::console::shell::ScreenId;
use orgdeck::console::{Context, Driver};
use ratatui::crossterm::event::KeyCode;

use crate::support::{TestServer, client_for, seeded};

const SETTLE: Duration = Duration::from_secs(30);

struct Demo {
    server: TestServer,
    clock: Clock,
    key: String,
    state: tempfile::TempDir,
}

impl Demo {
    async fn start() -> Demo {
        let clock = Clock::manual(seeded());
        let shared = clock.clone();
        let server = TestServer::demo_with(move |options| options.clock = shared).await;
        let key = server.key(&["*"]);
        Demo {
            server,
            clock,
            key,
            state: tempfile::tempdir().unwrap(),
        }
    }

    /// The console on Health, its first look done.
    async fn looked(&self) -> Driver {
        let context = Context {
            host: "reference server".into(),
            organization: self.server.organization.clone(),
            project: self.server.project.to_string(),
            ..Context::default()
        };
        let mut driver = Driver::new(
            client_for(&self.server.base, &self.key),
            context,
            (160, 40),
            Theme::plain(),
        );
        driver.clock = self.clock.clone();
        driver.state_dir = self.state.path().to_path_buf();
        driver.app.window.now = self.clock.now();
        driver.start();
        assert!(driver.settle(SETTLE).await);
        driver.press(KeyCode::Char('H'));
        assert!(driver.settle(SETTLE).await, "{}", driver.screen());
        driver
    }
}

async fn press(driver: &mut Driver, keys: &[KeyCode]) {
    for code in keys {
        driver.press(*code);
        assert!(driver.settle(SETTLE).await, "{}", driver.screen());
    }
}

/// Takes messages (timers included) until the screen shows `text`.
async fn until_shown(driver: &mut Driver, text: &str) -> String {
    let deadline = tokio::time::Instant::now() + SETTLE;
    loop {
        let screen = driver.screen();
        if screen.contains(text) {
            return screen;
        }
        match tokio::time::timeout_at(deadline, driver.next_message()).await {
            Ok(Some(msg)) => {
                driver.send(msg);
            }
            _ => panic!("never shown: {text}\n{screen}"),
        }
    }
}

/// Puts the cursor on a subscription's row.
async fn to_row(driver: &mut Driver, id: i64) {
    let at = driver
        .app
        .screens
        .health
        .rows
        .list
        .position(|row| row.id == id)
        .unwrap_or_else(|| panic!("no row #{id}"));
    press(driver, &[KeyCode::Char('g')]).await;
    for _ in 0..at {
        press(driver, &[KeyCode::Char('j')]).await;
    }
    assert_eq!(driver.app.screens.health.selected().map(|row| row.id), Some(id));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_look_on_the_demo_shows_its_failures_first() {
    let demo = Demo::start().await;
    let mut driver = demo.looked().await;
    let first: Vec<i64> = driver
        .app
        .screens
        .health
        .rows
        .list
        .loaded()
        .take(5)
        .map(|(_, row)| row.id)
        .collect();
    assert_eq!(first[0], 35, "failing first");
    assert_eq!(first[1], 78, "then partial");
    assert_eq!(
        first[2..4]
            .iter()
            .copied()
            .collect::<std::collections::BTreeSet<_>>(),
        [13, 24].into()
    );
    // Unsupported ones (webhooks) come next, then the overdue one.
    let overdue = driver
        .app
        .screens
        .health
        .rows
        .list
        .position(|row| row.id == 46)
        .unwrap();
    let ok = driver
        .app
        .screens
        .health
        .rows
        .list
        .position(|row| row.health == orgdeck::api::health::Health::Ok)
        .unwrap();
    assert!(overdue < ok);
    // The request timing, the one thing that varies, cleared.
    if let Some(log) = driver.app.requests.last.as_mut() {
        log.elapsed = Duration::ZERO;
        // A look's last read is whichever of those in flight ended last.
        if log.request.path.ends_with("/deliveries/") {
            log.request.path = "/api/projects/1/subscriptions/N/deliveries/".into();
        }
    }
    let screen = driver.screen();
    assert!(
        screen.contains("Health · 1 failing · 1 partial · 2 auto-disabled · 2 unsupported · 1 overdue ·"),
        "{screen}"
    );
    // The tab bar counts them from any tab.
    assert!(
        screen.lines().nth(1).unwrap().contains("H Health 4 failing"),
        "{screen}"
    );
    insta::assert_snapshot!("health_demo", screen);
    // The index is kept in the state directory given.
    assert!(
        demo.state
            .path()
            .join("health")
            .read_dir()
            .unwrap()
            .next()
            .is_some()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resuming_an_auto_disabled_row_says_the_server_paused_it_again_and_why() {
    let demo = Demo::start().await;
    let mut driver = demo.looked().await;
    to_row(&mut driver, 13).await;
    driver.press(KeyCode::Char('p'));
    // Read first, then asked: the resume delivers at once.
    until_shown(&mut driver, "Resume #13").await;
    driver.press(KeyCode::Char('y'));
    let screen = until_shown(&mut driver, "but the server paused it again: Slack").await;
    let notice = driver.app.notice.shown.clone().unwrap();
    assert!(notice.error, "{screen}");
    assert_eq!(
        notice.text,
        "resumed #13, but the server paused it again: Slack integration revoked: e edits the target (another integration), or reconnect Slack in PostHog"
    );
    let api = client_for(&demo.server.base, &demo.key);
    let project = demo.server.project.to_string();
    assert!(!api.subscription(&project, 13).await.unwrap().is_enabled());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn f_on_the_deliveries_of_a_partial_one_shows_its_partial_deliveries() {
    let demo = Demo::start().await;
    let mut driver = demo.looked().await;
    to_row(&mut driver, 78).await;
    press(&mut driver, &[KeyCode::Enter]).await;
    assert_eq!(driver.app.shown(), ScreenId::Deliveries);
    let all = driver.app.screens.deliveries.rows.len();
    press(&mut driver, &[KeyCode::Char('f')]).await;
    let screen = driver.screen();
    assert!(screen.contains("· failed and partial only"), "{screen}");
    let shown = driver.app.screens.deliveries.rows.len();
    assert!(shown >= 1 && shown <= all, "{shown} of {all}\n{screen}");
    for at in 0..shown {
        let delivery = driver.app.screens.deliveries.rows.row(at).unwrap();
        assert!(
            delivery.has_failed()
                || delivery.recipient_counts().partial + delivery.recipient_counts().failed > 0,
            "{delivery:?}"
        );
    }
    let partial = screen
        .lines()
        .find(|line| line.contains("completed") && line.contains("failed"))
        .unwrap_or_else(|| panic!("no partial delivery shown:\n{screen}"));
    assert!(partial.contains("2 ok, 1 failed"), "{partial}");
    // `f` again: all of them.
    press(&mut driver, &[KeyCode::Char('f')]).await;
    assert_eq!(driver.app.screens.deliveries.rows.len(), all);
}
