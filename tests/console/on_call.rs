//! On-call in the console against the reference server, on a manual clock
//! that the test moves (the server's delivery task and the console share
//! it): a Slack subscription whose integration is revoked is auto-disabled
//! and shows as paused with its failed delivery and the error; a test
//! delivery appears in the deliveries without a refresh; the seed flavor
//! says it keeps no history. Each checked through the API as well.

use std::time::Duration;

use chrono::{DateTime, Utc};
use orgdeck::api::{DeliveryStatus, TriggerType};
use orgdeck::clock::Clock;
use orgdeck::console::kit::theme::Theme;
use orgdeck::console::shell::Mode;
use orgdeck::console::{Context, Driver};
use orgdeck::server::Flavor;
use ratatui::crossterm::event::KeyCode;
use serde_json::{Value, json};

use crate::support::{DEMO_SLACK, TestServer, client_for, seeded};

const SETTLE: Duration = Duration::from_secs(10);

struct OnCall {
    server: TestServer,
    clock: Clock,
    key: String,
}

impl OnCall {
    async fn start(flavor: Flavor) -> OnCall {
        let clock = Clock::manual(seeded());
        let shared = clock.clone();
        let server = TestServer::demo_with(move |options| {
            options.flavor = flavor;
            options.clock = shared;
        })
        .await;
        let key = server.key(&["*"]);
        OnCall { server, clock, key }
    }

    async fn console(&self) -> Driver {
        let context = Context {
            host: "reference server".into(),
            organization: self.server.organization.clone(),
            project: self.server.project.to_string(),
            ..Context::default()
        };
        let mut driver = Driver::new(
            client_for(&self.server.base, &self.key),
            context,
            (140, 40),
            Theme::plain(),
        );
        driver.clock = self.clock.clone();
        driver.app.window.now = self.clock.now();
        driver.start();
        assert!(driver.settle(SETTLE).await);
        driver
    }

    /// A daily subscription at 09:00 from today, created through the API.
    async fn create(&self, body: Value) -> i64 {
        let mut full = json!({
            "insight": crate::support::DEMO_INSIGHT,
            "frequency": "daily",
            "interval": 1,
            "start_date": "2026-11-22T09:00:00Z",
            "title": "On-call check",
        });
        for (field, value) in body.as_object().unwrap() {
            full[field] = value.clone();
        }
        let path = format!("/api/projects/{}/subscriptions/", self.server.project);
        let created = self.server.post(&self.key, &path, full).await;
        created.expect(reqwest::StatusCode::CREATED)["id"]
            .as_i64()
            .unwrap()
    }
}

async fn press(driver: &mut Driver, keys: &[KeyCode]) {
    for code in keys {
        driver.press(*code);
        assert!(driver.settle(SETTLE).await, "{}", driver.screen());
    }
}

/// Takes messages (timers included, which `settle` does not wait for)
/// until the screen shows `text`.
async fn until_shown(driver: &mut Driver, text: &str) -> String {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
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

fn at(text: &str) -> DateTime<Utc> {
    orgdeck::api::time::parse_datetime(text).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revoked_slack_integration_pauses_its_subscription_and_shows_why() {
    let on_call = OnCall::start(Flavor::Current).await;
    let project = on_call.server.project.to_string();
    let api = client_for(&on_call.server.base, &on_call.key);
    let id = on_call
        .create(json!({
            "target_type": "slack",
            "target_value": "C0001000|#metrics",
            "integration_id": DEMO_SLACK,
        }))
        .await;
    // Slack revokes the token; the 09:00 delivery then fails.
    on_call
        .server
        .running
        .db
        .write_blocking(|tx| {
            tx.execute(
                "UPDATE integrations SET errors = 'TOKEN_REVOKED' WHERE id = ?1",
                [DEMO_SLACK],
            )?;
            Ok(())
        })
        .unwrap();
    on_call.clock.set(at("2026-11-22T09:02:00Z"));
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while api.subscription(&project, id).await.unwrap().is_enabled() {
        assert!(tokio::time::Instant::now() < deadline, "never auto-disabled");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let mut driver = on_call.console().await;
    press(&mut driver, &[KeyCode::Char('3')]).await;
    assert_eq!(driver.app.screens.subscriptions.selected().unwrap().id, id);
    let list = driver.screen();
    let row = list.lines().find(|line| line.contains("On-call check")).unwrap();
    assert!(row.contains("paused"), "{row}");
    // Its deliveries: the failed one first, in words.
    press(&mut driver, &[KeyCode::Enter]).await;
    let deliveries = driver.screen();
    let newest = deliveries
        .lines()
        .find(|line| line.contains("2m ago") && line.contains("scheduled"))
        .unwrap_or_else(|| panic!("{deliveries}"));
    assert!(
        newest.contains("scheduled") && newest.contains("FAILED") && newest.contains("0 ok, 1 failed"),
        "{newest}"
    );
    // `f`: only the failed ones (and partial ones: there are none).
    let all = driver.app.screens.deliveries.rows.len();
    assert!(all >= 2, "the creation's delivery, then the failed one");
    press(&mut driver, &[KeyCode::Char('f')]).await;
    assert!(
        driver.screen().contains("· failed and partial only"),
        "{}",
        driver.screen()
    );
    assert_eq!(driver.app.screens.deliveries.rows.len(), 1, "of {all}");
    // Its detail: the error, the recipient's, and when it ran.
    press(&mut driver, &[KeyCode::Enter]).await;
    let detail = driver.screen();
    let stored: Vec<orgdeck::api::Delivery> = api.all_deliveries(&project, id, None, 10).await.unwrap();
    let failed = stored
        .iter()
        .find(|d| d.status == Some(DeliveryStatus::Failed))
        .unwrap();
    let error = failed.error_text().unwrap();
    assert!(detail.contains(&format!("FAILED: {error}")), "{detail}");
    // The channel by its name, not as PostHog's form stores it.
    assert!(detail.contains("✗ #metrics"), "{detail}");
    assert!(!detail.contains("C0001000|"), "{detail}");
    assert!(detail.contains("scheduled") && detail.contains("finished"));
    // Resumed, its confirmation delivery goes through the revoked
    // integration too: it fails, lands in the list being watched, and
    // pauses the subscription again.
    press(
        &mut driver,
        &[KeyCode::Esc, KeyCode::Char('p'), KeyCode::Char('y')],
    )
    .await;
    let notice = driver.app.notice.text().to_string();
    assert!(notice.starts_with(&format!("resumed #{id}")), "{notice}");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while driver.screen().matches("0 ok, 1 failed").count() < 2 {
        match tokio::time::timeout_at(deadline, driver.next_message()).await {
            Ok(Some(msg)) => {
                driver.send(msg);
            }
            _ => panic!("the confirmation delivery never showed: {}", driver.screen()),
        }
    }
    assert!(!api.subscription(&project, id).await.unwrap().is_enabled());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_test_delivery_appears_in_the_deliveries_without_a_refresh() {
    let on_call = OnCall::start(Flavor::Current).await;
    let project = on_call.server.project.to_string();
    let api = client_for(&on_call.server.base, &on_call.key);
    let id = on_call
        .create(json!({
            "target_type": "email",
            "target_value": "oncall@hedgebox.dev, gone@hedgebox.invalid",
        }))
        .await;
    let mut driver = on_call.console().await;
    press(&mut driver, &[KeyCode::Char('3'), KeyCode::Enter]).await;
    assert_eq!(driver.app.screens.deliveries.subscription(), Some(id));
    assert!(!driver.screen().contains("manual (test)"));
    press(&mut driver, &[KeyCode::Char('t')]).await;
    assert!(matches!(driver.app.mode, Mode::Confirm(_)));
    assert!(driver.screen().contains("Send a test delivery of #"));
    press(&mut driver, &[KeyCode::Char('y')]).await;
    let shown = until_shown(&mut driver, "manual (test)").await;
    let row = shown.lines().find(|line| line.contains("manual (test)")).unwrap();
    assert!(row.contains("1 ok, 1 failed"), "{row}");
    let stored: Vec<orgdeck::api::Delivery> = api.all_deliveries(&project, id, None, 10).await.unwrap();
    assert_eq!(stored[0].trigger_type, Some(TriggerType::Manual));
    // The watch ends once it has landed.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    while driver.app.screens.subscriptions.resource.watch.poll.is_some() {
        match tokio::time::timeout_at(deadline, driver.next_message()).await {
            Ok(Some(msg)) => {
                driver.send(msg);
            }
            _ => panic!("the watch never ended"),
        }
    }
    // Once landed, how it went is said: one recipient failed.
    let notice = driver.app.notice.shown.clone().unwrap();
    assert!(
        notice.error && notice.text.contains("landed: completed, 1 delivered, 1 failed"),
        "{notice:?}"
    );

    // Paused, a test is refused in words; resumed, it goes again.
    press(&mut driver, &[KeyCode::Char('p'), KeyCode::Char('y')]).await;
    assert!(!api.subscription(&project, id).await.unwrap().is_enabled());
    press(&mut driver, &[KeyCode::Char('t'), KeyCode::Char('y')]).await;
    let notice = driver.app.notice.shown.clone().unwrap();
    assert!(
        notice.error && notice.text.contains("is paused") && notice.text.contains("p resumes it"),
        "{notice:?}"
    );
    press(
        &mut driver,
        &[KeyCode::Esc, KeyCode::Char('p'), KeyCode::Char('y')],
    )
    .await;
    assert!(api.subscription(&project, id).await.unwrap().is_enabled());
    assert!(
        driver.app.notice.text().starts_with(&format!("resumed #{id}")),
        "{:?}",
        driver.app.notice.shown
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn overdue_in_one_key_then_a_failed_recipient_s_error() {
    let on_call = OnCall::start(Flavor::Current).await;
    let mut driver = on_call.console().await;
    press(&mut driver, &[KeyCode::Char('3'), KeyCode::Char('o')]).await;
    let table = &driver.app.screens.subscriptions;
    let now = driver.app.window.now;
    assert!(!table.rows.is_empty());
    assert!(
        (0..table.rows.len())
            .all(|at| table.rows.row(at).unwrap().state(now) == orgdeck::api::SubscriptionState::Overdue)
    );
    assert_eq!(table.rows.len(), 1, "the demo has one overdue");
    let screen = driver.screen();
    assert!(screen.contains("Subscriptions · overdue"), "{screen}");
    assert!(screen.contains("Activation watch"), "{screen}");
    // Again: every row; then the one whose address stopped existing two
    // weeks ago, its newest delivery, and the recipient's error.
    press(&mut driver, &[KeyCode::Char('o'), KeyCode::Char('/')]).await;
    for c in "Support load check".chars() {
        press(&mut driver, &[KeyCode::Char(c)]).await;
    }
    press(&mut driver, &[KeyCode::Enter]).await;
    let at = {
        let table = &driver.app.screens.subscriptions;
        (0..table.rows.len())
            .find(|at| {
                table
                    .rows
                    .row(*at)
                    .unwrap()
                    .target_value
                    .as_deref()
                    .unwrap_or("")
                    .contains(".invalid")
            })
            .unwrap()
    };
    for _ in 0..at {
        press(&mut driver, &[KeyCode::Char('j')]).await;
    }
    press(&mut driver, &[KeyCode::Enter, KeyCode::Enter]).await;
    let detail = driver.screen();
    assert!(
        detail.contains(
            "✗ support-leads@hedgebox-help.invalid  failed: Domain hedgebox-help.invalid does not exist"
        ),
        "{detail}"
    );
}

/// The seed flavor (an older PostHog): no deliveries endpoint, roles with
/// an access level and no default.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_older_server_keeps_no_history_and_shows_access_levels() {
    let on_call = OnCall::start(Flavor::Seed).await;
    let mut driver = on_call.console().await;
    let roles = driver.screen();
    assert!(roles.contains("ACCESS") && !roles.contains("DEFAULT"), "{roles}");
    press(&mut driver, &[KeyCode::Char('3'), KeyCode::Enter]).await;
    let screen = driver.screen();
    assert!(
        screen.contains("this server keeps no delivery history"),
        "{screen}"
    );
    assert_eq!(driver.app.notice.shown, None, "not an error");
    press(&mut driver, &[KeyCode::Char('t'), KeyCode::Char('y')]).await;
    let notice = driver.app.notice.shown.clone().unwrap();
    assert!(notice.text.contains("no test deliveries (404)"), "{notice:?}");
    // Nor can it pause: said, not pretended.
    press(
        &mut driver,
        &[
            KeyCode::Esc,
            KeyCode::Char('q'),
            KeyCode::Char('p'),
            KeyCode::Char('y'),
        ],
    )
    .await;
    let notice = driver.app.notice.shown.clone().unwrap();
    assert!(
        notice.error && notice.text.contains("this server keeps no paused state"),
        "{notice:?}"
    );
}
