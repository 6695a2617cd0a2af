//! The console against today's PostHog (posthog.md 15): what the detail
//! pane adds (an AI report's window, its contexts), the export cap learnt
//! from a refusal in the form, a Slack target through the project's
//! integration and an AI report from the form, and what the reference
//! server never sends (Teams and webhook targets, a partial recipient),
//! written into its database directly.

use orgdeck::console::Driver;
use orgdeck::console::shell::Mode;
use ratatui::crossterm::event::KeyCode;
use serde_json::{Value, json};

use orgdeck::api::ResourceType;

use crate::drive::{keys, typed};
use crate::support::{DEMO_DASHBOARD, DEMO_INSIGHT, DEMO_SLACK, TestServer, client_for};

async fn console(server: &TestServer, key: &str) -> Driver {
    crate::drive::console(server, key, (180, 48)).await
}

/// Tabs to the form's field of this name.
async fn focus(driver: &mut Driver, name: &str) {
    for _ in 0..30 {
        if let Mode::Form(form, _) = &driver.app.mode
            && form.fields[form.focus].name == name
        {
            return;
        }
        keys(driver, &[KeyCode::Tab]).await;
    }
    panic!("no field {name} is shown: {}", driver.screen());
}

/// An e-mail report of the demo insight, created without a delivery, with
/// `extra` fields; its id.
async fn create(server: &TestServer, key: &str, extra: Value) -> i64 {
    let mut body = json!({
        "insight": DEMO_INSIGHT, "target_type": "email", "target_value": "a@b.co, c@d.co",
        "frequency": "daily", "interval": 1, "start_date": "2026-12-01T09:00:00Z",
        "send_test_now": false,
    });
    body.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    let reply = server.post(key, &server.subscriptions_path(), body).await;
    reply.expect(reqwest::StatusCode::CREATED)["id"].as_i64().unwrap()
}

/// Rewrites a subscription's target as the reference server never writes it.
fn set_target(server: &TestServer, id: i64, target_type: &'static str, value: &'static str) {
    server
        .running
        .db
        .write_blocking(move |tx| {
            tx.execute(
                "UPDATE subscriptions SET target_type = ?1, target_value = ?2 WHERE id = ?3",
                rusqlite::params![target_type, value, id],
            )?;
            Ok(())
        })
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_detail_shows_an_ai_report_s_window_and_what_it_reads() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    create(
        &server,
        &key,
        json!({
            "insight": null, "prompt": "What changed in signups?",
            "ai_prompt_config": {"window": {"mode": "days_ago_range", "start_days_ago": 14, "end_days_ago": 7}},
            "contexts": [{"dashboard_id": DEMO_DASHBOARD}],
        }),
    )
    .await;
    let mut driver = console(&server, &key).await;
    typed(&mut driver, "3").await;
    let screen = driver.screen();
    assert!(
        screen.contains("window         from 14 to 7 days ago"),
        "{screen}"
    );
    assert!(
        screen.contains("reads          dashboard Company KPIs (#1)"),
        "{screen}"
    );
    // Its form shows the window as it is typed.
    typed(&mut driver, "e").await;
    assert!(driver.screen().contains("range:14-7"), "{}", driver.screen());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_webhook_is_unsupported_and_warned_of_before_pausing_for_good() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let api = client_for(&server.base, &key);
    let project = server.project.to_string();
    let webhook = create(&server, &key, json!({})).await;
    set_target(&server, webhook, "webhook", "https://hooks.hedgebox.dev/x");
    let mut driver = console(&server, &key).await;
    typed(&mut driver, "3").await;
    let screen = driver.screen();
    assert!(
        screen.contains("UNSUPPORTED: PostHog no longer delivers"),
        "{screen}"
    );
    assert!(
        screen.contains("none: its channel is no longer supported"),
        "{screen}"
    );
    // :state unsupported keeps it.
    typed(&mut driver, ":state unsupported").await;
    keys(&mut driver, &[KeyCode::Enter]).await;
    assert_eq!(
        driver.app.screens.subscriptions.selected().map(|row| row.id),
        Some(webhook)
    );
    typed(&mut driver, "p").await;
    let Mode::Confirm(confirm) = &driver.app.mode else {
        panic!("asks first: {}", driver.screen())
    };
    assert!(
        confirm.question.starts_with(&format!(
            "#{webhook} delivers to webhook, which PostHog no longer supports: once paused it cannot be resumed"
        )),
        "{}",
        confirm.question
    );
    // Enter says no: it is never paused by habit.
    keys(&mut driver, &[KeyCode::Enter]).await;
    assert!(matches!(driver.app.mode, Mode::Normal));
    assert_eq!(
        api.subscription(&project, webhook).await.unwrap().enabled,
        Some(true)
    );
    typed(&mut driver, "py").await;
    assert_eq!(
        api.subscription(&project, webhook).await.unwrap().enabled,
        Some(false)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_teams_target_is_shown_as_teams_and_a_paused_one_has_nothing_to_come() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let paused = create(&server, &key, json!({"enabled": false})).await;
    let teams = create(&server, &key, json!({})).await;
    set_target(&server, teams, "teams", "https://example.webhook.office.com/x");
    let mut driver = console(&server, &key).await;
    typed(&mut driver, "3").await;
    assert_eq!(
        driver.app.screens.subscriptions.selected().map(|row| row.id),
        Some(teams)
    );
    let screen = driver.screen();
    assert!(
        screen.contains("target         teams https://example.webhook.office.com/x"),
        "{screen}"
    );
    assert!(
        !screen.contains("slack via") && !screen.contains("Slack integration"),
        "{screen}"
    );
    typed(&mut driver, "j").await;
    assert_eq!(
        driver.app.screens.subscriptions.selected().map(|row| row.id),
        Some(paused)
    );
    let screen = driver.screen();
    assert!(screen.contains("PAUSED: nothing is delivered"), "{screen}");
    assert!(
        screen.contains("none: paused, nothing is delivered until it is resumed"),
        "{screen}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recipient_reached_in_part_is_counted_as_partial() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let id = create(&server, &key, json!({"send_test_now": true})).await;
    server
        .running
        .db
        .write_blocking(move |tx| {
            tx.execute(
                r#"UPDATE deliveries SET status = 'completed', error = NULL, recipient_results =
                   '[{"recipient": "a@b.co", "status": "success"},
                     {"recipient": "c@d.co", "status": "partial"}]'
                   WHERE subscription_id = ?1"#,
                [id],
            )?;
            Ok(())
        })
        .unwrap();
    let mut driver = console(&server, &key).await;
    typed(&mut driver, "3").await;
    keys(&mut driver, &[KeyCode::Enter]).await;
    let deliveries = driver.screen();
    assert!(deliveries.contains("1 ok, 1 partial"), "{deliveries}");
    assert!(!deliveries.contains("1 failed"), "{deliveries}");
    keys(&mut driver, &[KeyCode::Enter]).await;
    let detail = driver.screen();
    assert!(detail.contains("recipients: 1 ok, 1 partial"), "{detail}");
    assert!(detail.contains("~ c@d.co  partial"), "{detail}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_form_learns_the_export_cap_from_the_refusal() {
    let server = TestServer::demo_with(|options| options.export_cap = 2).await;
    let key = server.key(&["*"]);
    let api = client_for(&server.base, &key);
    let project = server.project.to_string();
    let mut driver = console(&server, &key).await;
    typed(&mut driver, "3n").await;
    keys(&mut driver, &[KeyCode::Right]).await; // the first dashboard
    assert!(
        driver.screen().contains("3 chosen"),
        "every one: {}",
        driver.screen()
    );
    focus(&mut driver, "target_value").await;
    typed(&mut driver, "oncall@hedgebox.dev").await;
    focus(&mut driver, "send_test_now").await;
    keys(&mut driver, &[KeyCode::Char(' '), KeyCode::Enter]).await;
    let refused = driver.screen();
    assert!(
        refused.contains("the server allows 2 insights and 3 are chosen"),
        "{refused}"
    );
    assert_eq!(driver.app.permissions.export_cap, Some(2));
    // Now a choice beyond the cap is refused as it is made.
    focus(&mut driver, "dashboard_export_insights").await;
    keys(&mut driver, &[KeyCode::Char(' ')]).await; // the first no more
    assert!(driver.screen().contains("2 chosen"), "{}", driver.screen());
    keys(&mut driver, &[KeyCode::Char(' ')]).await;
    assert!(driver.screen().contains("at most 2"), "{}", driver.screen());
    keys(&mut driver, &[KeyCode::Enter]).await;
    assert!(matches!(driver.app.mode, Mode::Normal), "{}", driver.screen());
    let created = driver.app.screens.subscriptions.selected().unwrap().id;
    let stored = api.subscription(&project, created).await.unwrap();
    assert_eq!(stored.dashboard_export_insights, Some(vec![2, 3]));
}

/// Today's PostHog: a Slack target posts through the project's working
/// integration, chosen for the user; an AI report asks its prompt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slack_through_the_integration_and_an_ai_report() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let api = client_for(&server.base, &key);
    let project = server.project.to_string();
    let mut driver = console(&server, &key).await;

    typed(&mut driver, "3n").await;
    keys(&mut driver, &[KeyCode::Right, KeyCode::Right]).await; // the second dashboard
    focus(&mut driver, "target_type").await;
    keys(&mut driver, &[KeyCode::Right]).await; // Slack
    let form = driver.screen();
    assert!(
        form.contains("Slack via        ◂ Hedgebox ▸"),
        "the working one, chosen for the user: {form}"
    );
    // The revoked one is shown as such, and cannot be chosen.
    focus(&mut driver, "integration_id").await;
    keys(&mut driver, &[KeyCode::Right]).await;
    assert!(
        driver.screen().contains("(revoked: cannot deliver)"),
        "{}",
        driver.screen()
    );
    keys(&mut driver, &[KeyCode::Enter]).await;
    assert!(
        driver.screen().contains("reconnect Slack in"),
        "{}",
        driver.screen()
    );
    focus(&mut driver, "integration_id").await;
    keys(&mut driver, &[KeyCode::Left]).await;
    // The channel is chosen from the integration's, searched as typed.
    focus(&mut driver, "channel").await;
    assert!(
        driver.screen().contains("choose a channel"),
        "{}",
        driver.screen()
    );
    typed(&mut driver, "grow").await;
    assert!(driver.screen().contains("◂ #growth"), "{}", driver.screen());
    // Unchecked, the save asks nothing and mails no one.
    focus(&mut driver, "send_test_now").await;
    keys(&mut driver, &[KeyCode::Char(' '), KeyCode::Enter]).await;
    let created = driver.app.screens.subscriptions.rows.selected().cloned().unwrap();
    let stored = api.subscription(&project, created.id).await.unwrap();
    let value = stored.target_value.clone().unwrap_or_default();
    assert_eq!(
        (
            stored.target_type.as_ref().map(|t| t.as_str()),
            stored.integration_id
        ),
        (Some("slack"), Some(DEMO_SLACK))
    );
    assert!(
        value.ends_with("|#growth"),
        "the channel's id and name, as PostHog's form writes: {value}"
    );
    let delivered: Vec<orgdeck::api::Delivery> =
        api.all_deliveries(&project, created.id, None, 10).await.unwrap();
    assert!(delivered.is_empty(), "not asked for: {delivered:?}");

    typed(&mut driver, "n").await;
    keys(&mut driver, &[KeyCode::Left]).await; // the last choice: an AI report
    focus(&mut driver, "target_value").await;
    typed(&mut driver, "growth@hedgebox.dev").await;
    // Without its question it is not sent; the focus goes to the prompt.
    keys(&mut driver, &[KeyCode::Enter]).await;
    assert!(
        driver.screen().contains("the question the AI report answers"),
        "{}",
        driver.screen()
    );
    typed(&mut driver, "Which features grew most this week?").await;
    keys(&mut driver, &[KeyCode::Enter]).await;
    typed(&mut driver, "y").await; // delivered once on save, as checked
    let created = driver.app.screens.subscriptions.rows.selected().cloned().unwrap();
    let stored = api.subscription(&project, created.id).await.unwrap();
    assert_eq!(
        (stored.prompt.as_deref(), stored.delivers(), stored.integration_id),
        (
            Some("Which features grew most this week?"),
            Some(ResourceType::AiPrompt),
            None
        )
    );
    // Its form says what it asks.
    typed(&mut driver, "e").await;
    assert!(
        driver
            .screen()
            .contains("Prompt           Which features grew most this week?"),
        "{}",
        driver.screen()
    );
}
