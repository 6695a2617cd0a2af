//! Changing things from the console, checked through the API afterwards.

use std::time::Duration;

use orgdeck::api::{List, SubscriptionFilter};
use orgdeck::console::kit::theme::Theme;
use orgdeck::console::{Context, Driver};
use ratatui::crossterm::event::KeyCode;

use crate::drive::{keys, typed};
use crate::support::proxy::{Fault, FaultProxy};
use crate::support::{DEMO_DASHBOARD, DEMO_DASHBOARD_INSIGHTS, TestServer, client_for, seeded};

const SETTLE: Duration = Duration::from_secs(10);

async fn console(server: &TestServer, key: &str) -> Driver {
    crate::drive::console(server, key, (120, 36)).await
}

/// The name of the form's focused field.
fn focused(driver: &Driver) -> &'static str {
    match &driver.app.mode {
        orgdeck::console::shell::Mode::Form(form, _) => form.fields[form.focus].name,
        other => panic!("no form open: {other:?}"),
    }
}

/// Tabs to the form's field of this name, as a person would.
async fn focus(driver: &mut Driver, name: &str) {
    for _ in 0..30 {
        if focused(driver) == name {
            return;
        }
        keys(driver, &[KeyCode::Tab]).await;
    }
    panic!("no field {name} is shown: {}", driver.screen());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_rename_and_delete_a_role() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let api = client_for(&server.base, &key);
    let mut driver = console(&server, &key).await;

    // Today's roles have a name and no access level: the form asks the name.
    typed(&mut driver, "n").await;
    assert!(!driver.screen().contains("Feature flags"), "{}", driver.screen());
    typed(&mut driver, "Auditors").await;
    keys(&mut driver, &[KeyCode::Enter]).await;
    let roles = api
        .all(&List::roles("@current"), &Default::default())
        .await
        .unwrap();
    let created = roles
        .iter()
        .find(|role| role.name == "Auditors")
        .expect("created");
    assert_eq!(
        (created.feature_flags_access_level, created.is_default),
        (None, Some(false))
    );
    assert_eq!(
        driver.app.screens.roles.rows.selected().unwrap().name,
        "Auditors",
        "the new row is in the table, selected"
    );
    assert!(driver.screen().contains("created the role Auditors"));
    // The footer tells what the server answered, as the client saw it.
    let record = driver.app.requests.last.clone().unwrap();
    assert_eq!(
        (record.request.method.as_str(), record.status),
        ("POST", Some(201))
    );
    assert!(record.request.path.ends_with("/roles/"), "{record:?}");

    typed(&mut driver, "e").await;
    keys(&mut driver, &[KeyCode::End]).await;
    typed(&mut driver, " (external)").await;
    keys(&mut driver, &[KeyCode::Enter]).await;
    let renamed = api.role("@current", &created.id).await.unwrap();
    assert_eq!(renamed.name, "Auditors (external)");
    assert_eq!(
        driver.app.screens.roles.rows.selected().unwrap().name,
        "Auditors (external)"
    );

    typed(&mut driver, "d").await;
    assert!(
        driver
            .screen()
            .contains("Delete the role Auditors (external) and its 0 memberships?")
    );
    typed(&mut driver, "n").await;
    assert!(api.role("@current", &created.id).await.is_ok(), "n keeps it");
    // The question comes once the rules are read for the preview: a y
    // typed before it answers nothing.
    typed(&mut driver, "d").await;
    assert!(
        driver.screen().contains("Nobody's access changes."),
        "{}",
        driver.screen()
    );
    typed(&mut driver, "y").await;
    assert_eq!(
        api.role("@current", &created.id).await.unwrap_err().status(),
        Some(404)
    );
    assert_eq!(driver.app.screens.roles.rows.list.count(), Some(8));
}

/// An older server's roles have an access level: shown, asked for in the
/// form, and sent only when changed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_older_server_s_roles_keep_their_access_level() {
    let server = TestServer::seed().await;
    let key = server.key(&["*"]);
    let api = client_for(&server.base, &key);
    let mut driver = console(&server, &key).await;
    let screen = driver.screen();
    assert!(
        screen.contains("ACCESS") && screen.contains("can edit"),
        "{screen}"
    );

    typed(&mut driver, "n").await;
    typed(&mut driver, "Auditors").await;
    keys(&mut driver, &[KeyCode::Tab, KeyCode::Left, KeyCode::Enter]).await;
    let roles = api
        .all(&List::roles("@current"), &Default::default())
        .await
        .unwrap();
    let created = roles
        .iter()
        .find(|role| role.name == "Auditors")
        .expect("created");
    assert_eq!(created.feature_flags_access_level, Some(21));

    typed(&mut driver, "e").await;
    keys(&mut driver, &[KeyCode::End]).await;
    typed(&mut driver, " (external)").await;
    keys(&mut driver, &[KeyCode::Enter]).await;
    let renamed = api.role("@current", &created.id).await.unwrap();
    assert_eq!(
        (renamed.name.as_str(), renamed.feature_flags_access_level),
        ("Auditors (external)", Some(21)),
        "only the name was sent"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_duplicate_name_lands_on_its_field_and_a_failed_save_keeps_everything() {
    // Seeded at a fixed moment: the snapshot below shows the roles' dates.
    let server = TestServer::demo_at(seeded(), 0).await;
    let mut driver = console(&server, &server.key(&["*"])).await;
    typed(&mut driver, "n").await;
    typed(&mut driver, "ENGINEERING").await;
    keys(&mut driver, &[KeyCode::Enter]).await;
    let screen = driver.screen();
    assert!(
        screen.contains("There is already a role with this name."),
        "{screen}"
    );
    assert!(
        screen.contains("› Name             ENGINEERING"),
        "the focus is back on the field, what was typed kept: {screen}"
    );

    // Leaving asks first, since something was typed; Enter says no, and
    // the form stays with everything typed.
    keys(&mut driver, &[KeyCode::Esc]).await;
    let asked = driver.screen();
    assert!(asked.contains("Discard changes?"), "{asked}");
    assert!(asked.contains("[y] yes  [N] no  · Enter: no"), "{asked}");
    keys(&mut driver, &[KeyCode::Enter]).await;
    let kept = driver.screen();
    assert!(!kept.contains("Discard changes?"), "{kept}");
    assert!(kept.contains("› Name             ENGINEERING"), "{kept}");
    // Esc says no too; y discards.
    keys(&mut driver, &[KeyCode::Esc, KeyCode::Esc]).await;
    assert!(driver.screen().contains("› Name             ENGINEERING"));
    keys(&mut driver, &[KeyCode::Esc, KeyCode::Char('y')]).await;
    assert!(!driver.screen().contains("New role"));
    assert!(matches!(driver.app.mode, orgdeck::console::shell::Mode::Normal));
    // A form with nothing changed closes at once.
    keys(&mut driver, &[KeyCode::Char('n')]).await;
    assert!(driver.screen().contains("New role"));
    keys(&mut driver, &[KeyCode::Esc]).await;
    assert!(matches!(driver.app.mode, orgdeck::console::shell::Mode::Normal));
    assert!(!driver.screen().contains("Discard changes?"));

    // A key that may read but not write: the console says so before trying.
    let reader = server.key(&["organization:read"]);
    let mut driver = console(&server, &reader).await;
    typed(&mut driver, "n").await;
    let screen = driver.screen();
    assert!(
        screen.contains("not available: the API key lacks the 'organization:write' scope"),
        "{screen}"
    );

    // A save that fails on the way: the refusal at the top, every value kept.
    let proxy = FaultProxy::start(&server.base).await;
    let context = Context {
        host: "proxied".into(),
        organization: server.organization.clone(),
        project: "1".into(),
        ..Context::default()
    };
    let mut driver = Driver::new(
        client_for(&proxy.base, &server.key(&["*"])),
        context,
        (120, 36),
        Theme::plain(),
    );
    driver.clock = orgdeck::clock::Clock::manual(seeded() + chrono::Duration::hours(1));
    driver.app.window.now = driver.clock.now();
    driver.start();
    assert!(driver.settle(SETTLE).await);
    typed(&mut driver, "n").await;
    typed(&mut driver, "Readers").await;
    proxy.push(Fault::Answer(
        503,
        r#"{"type":"server_error","code":"unavailable","detail":"Service unavailable.","attr":null}"#.into(),
    ));
    keys(&mut driver, &[KeyCode::Enter]).await;
    if let Some(log) = driver.app.requests.last.as_mut() {
        log.elapsed = Duration::ZERO; // the one thing that varies
    }
    let screen = driver.screen();
    assert!(
        screen.contains("503 unavailable") && screen.contains("Name             Readers"),
        "{screen}"
    );
    insta::assert_snapshot!("role_form_refused", screen);
    // And it saves once the server is back.
    keys(&mut driver, &[KeyCode::Enter]).await;
    assert_eq!(driver.app.screens.roles.rows.selected().unwrap().name, "Readers");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remove_a_member_after_confirming() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let api = client_for(&server.base, &key);
    let mut driver = console(&server, &key).await;
    keys(&mut driver, &[KeyCode::Enter]).await; // Engineering
    assert_eq!(driver.app.screens.members.rows.list.count(), Some(11));
    typed(&mut driver, "d").await;
    let question = driver.screen();
    assert!(
        question.contains("Remove Bruno Lindqvist <bruno.lindqvist@hedgebox.dev> from the role"),
        "{question}"
    );
    typed(&mut driver, "y").await;
    let role = driver.app.screens.members.resource.role.clone().unwrap();
    let left = api
        .all(&List::memberships("@current", &role.id), &Default::default())
        .await
        .unwrap();
    assert_eq!(left.len(), 10);
    assert!(
        !left
            .iter()
            .any(|m| m.user.as_ref().unwrap().email == "bruno.lindqvist@hedgebox.dev")
    );
    assert_eq!(driver.app.screens.members.rows.list.count(), Some(10));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn soft_delete_then_undo_then_restore_from_the_deleted_list() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let api = client_for(&server.base, &key);
    let project = server.project.to_string();
    let mut driver = console(&server, &key).await;
    typed(&mut driver, "3").await;
    let id = driver.app.screens.subscriptions.rows.selected().unwrap().id;
    typed(&mut driver, "dy").await;
    assert!(api.subscription(&project, id).await.unwrap().deleted);
    assert!(
        driver
            .screen()
            .contains(&format!("u: undo the soft delete of #{id}"))
    );
    typed(&mut driver, "u").await;
    assert!(!api.subscription(&project, id).await.unwrap().deleted);

    typed(&mut driver, "dy").await;
    typed(&mut driver, "D").await;
    assert!(driver.app.screens.subscriptions.resource.filter.deleted);
    let deleted = api
        .all(
            &List::subscriptions(
                &project,
                &SubscriptionFilter {
                    deleted: true,
                    ..Default::default()
                },
            ),
            &Default::default(),
        )
        .await
        .unwrap();
    assert_eq!(
        driver.app.screens.subscriptions.rows.list.count(),
        Some(deleted.len() as u64)
    );
    let position = deleted.iter().position(|s| s.id == id).unwrap();
    driver
        .app
        .screens
        .subscriptions
        .rows
        .move_to(position as i64, driver.app.table_height());
    typed(&mut driver, "u").await;
    assert!(!api.subscription(&project, id).await.unwrap().deleted);
    // Nothing in the console sends DELETE for a subscription: its record is whole.
    assert_eq!(api.subscription(&project, id).await.unwrap().id, id);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn assign_several_people_then_remove_one() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let api = client_for(&server.base, &key);
    let mut driver = console(&server, &key).await;
    keys(&mut driver, &[KeyCode::End, KeyCode::Enter]).await; // Contractors: nobody yet
    typed(&mut driver, "a").await;
    typed(&mut driver, "ma").await;
    let shown = driver.screen();
    assert!(shown.contains("Assign people to Contractors"), "{shown}");
    // Space marks and moves down, as in the tables.
    keys(&mut driver, &[KeyCode::Char(' '), KeyCode::Char(' ')]).await;
    assert_eq!(driver.screen().matches("[x]").count(), 2);
    keys(&mut driver, &[KeyCode::Enter]).await;
    // Contractors' rules move their access (in the other mode at least):
    // it is shown and asked before anyone is added; nobody loses, so
    // Enter says yes.
    let shown = driver.screen();
    assert!(shown.contains("Who gains and who loses access"), "{shown}");
    keys(&mut driver, &[KeyCode::Enter]).await;
    let role = driver.app.screens.members.resource.role.clone().unwrap();
    let members = api
        .all(&List::memberships("@current", &role.id), &Default::default())
        .await
        .unwrap();
    assert_eq!(members.len(), 2);
    assert_eq!(driver.app.screens.members.rows.list.count(), Some(2));
    assert!(driver.screen().contains("assigned 2"));

    // Those now in the role are marked, and cannot be chosen again.
    typed(&mut driver, "a").await;
    // A whole name is searched for without its space.
    let user = members[0].user.as_ref().unwrap();
    typed(&mut driver, &format!("{}{}", user.first_name, user.last_name)).await;
    assert!(driver.screen().contains("[in role]"));
    keys(&mut driver, &[KeyCode::Char(' ')]).await;
    assert!(driver.screen().contains("already in the role"));
    keys(&mut driver, &[KeyCode::Esc]).await;

    // The question comes once the rules are read for the preview.
    typed(&mut driver, "d").await;
    typed(&mut driver, "y").await;
    assert_eq!(
        api.all(&List::memberships("@current", &role.id), &Default::default())
            .await
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_members_scope_a_uuid_is_asked_for() {
    let server = TestServer::demo().await;
    let key = server.key(&["organization:write"]);
    let mut driver = console(&server, &key).await;
    keys(&mut driver, &[KeyCode::End, KeyCode::Enter]).await;
    typed(&mut driver, "a").await;
    let screen = driver.screen();
    assert!(
        screen.contains("user UUID") && screen.contains("organization_member:read"),
        "{screen}"
    );
    typed(&mut driver, "not-a-uuid").await;
    keys(&mut driver, &[KeyCode::Enter]).await;
    assert!(driver.screen().contains("8-4-4-4-12"));
    let uuid: String = server
        .running
        .db
        .read_blocking(|c| {
            Ok(c.query_row(
                "SELECT uuid FROM users WHERE email = 'elif.demir@hedgebox.dev'",
                [],
                |r| r.get(0),
            )?)
        })
        .unwrap();
    for _ in 0.."not-a-uuid".len() {
        driver.press(KeyCode::Backspace);
    }
    typed(&mut driver, &uuid).await;
    keys(&mut driver, &[KeyCode::Enter]).await;
    assert_eq!(driver.app.screens.members.rows.list.count(), Some(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_then_edit_a_subscription() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let api = client_for(&server.base, &key);
    let project = server.project.to_string();
    let mut driver = console(&server, &key).await;
    typed(&mut driver, "3n").await;
    // Today's form shows what applies: no prompt until an AI report is
    // chosen, no integration until Slack is.
    let form = driver.screen();
    assert!(!form.contains("Prompt") && !form.contains("Slack via"), "{form}");
    keys(&mut driver, &[KeyCode::Left]).await; // the last choice: an AI report
    assert!(driver.screen().contains("Prompt"), "{}", driver.screen());
    keys(&mut driver, &[KeyCode::Right]).await;
    // A target that is not an address is caught beside its field, and a
    // subscription must deliver something.
    focus(&mut driver, "target_value").await;
    typed(&mut driver, "not-an-address").await;
    keys(&mut driver, &[KeyCode::Enter]).await;
    let refused = driver.screen();
    assert!(refused.contains("is not an e-mail address"), "{refused}");
    assert!(refused.contains("choose what it delivers"), "{refused}");
    assert!(matches!(driver.app.mode, orgdeck::console::shell::Mode::Form(..)));
    keys(&mut driver, &[KeyCode::Esc, KeyCode::Char('y')]).await;

    typed(&mut driver, "n").await;
    keys(&mut driver, &[KeyCode::Right]).await; // the first dashboard
    // Its insights, from its tiles, every one chosen (no cap assumed).
    let form = driver.screen();
    assert!(form.contains("3 chosen"), "{form}");
    focus(&mut driver, "dashboard_export_insights").await;
    keys(&mut driver, &[KeyCode::Right, KeyCode::Char(' ')]).await; // not the second
    assert!(driver.screen().contains("2 chosen"), "{}", driver.screen());
    keys(&mut driver, &[KeyCode::Char(' ')]).await; // the second again
    focus(&mut driver, "target_value").await;
    typed(&mut driver, "oncall@hedgebox.dev").await;
    focus(&mut driver, "frequency").await;
    keys(&mut driver, &[KeyCode::Right]).await; // monthly
    focus(&mut driver, "byweekday").await;
    keys(
        &mut driver,
        &[
            KeyCode::Right,
            KeyCode::Right,
            KeyCode::Right,
            KeyCode::Right,
            KeyCode::Char(' '),
        ],
    )
    .await; // Friday
    focus(&mut driver, "bysetpos").await;
    keys(&mut driver, &[KeyCode::Left]).await; // the last
    assert!(
        driver.screen().contains("sent every month on the last Friday"),
        "the preview follows the fields"
    );
    // "Deliver once on save" starts checked: the save mails every
    // recipient, so it asks first, and Enter says no.
    keys(&mut driver, &[KeyCode::Enter]).await;
    let question = driver.screen();
    assert!(
        question.contains("deliver it once now") && question.contains("[y] yes  [N] no  · Enter: no"),
        "{question}"
    );
    keys(&mut driver, &[KeyCode::Enter]).await;
    assert!(matches!(driver.app.mode, orgdeck::console::shell::Mode::Form(..)));
    keys(&mut driver, &[KeyCode::Enter]).await;
    typed(&mut driver, "y").await;
    // The dashboard's insights are exported, as PostHog's own form starts.
    assert!(
        driver.screen().contains("exporting 3 insights of the dashboard"),
        "{}",
        driver.screen()
    );
    let created = driver
        .app
        .screens
        .subscriptions
        .rows
        .selected()
        .cloned()
        .expect("the new one at the top");
    let stored = api.subscription(&project, created.id).await.unwrap();
    assert_eq!(
        stored.summary.as_deref(),
        Some("sent every month on the last Friday")
    );
    assert_eq!(stored.target_value.as_deref(), Some("oncall@hedgebox.dev"));
    assert_eq!((stored.dashboard, stored.insight), (Some(DEMO_DASHBOARD), None));
    assert_eq!(
        stored.dashboard_export_insights.as_deref(),
        Some(&DEMO_DASHBOARD_INSIGHTS[..])
    );
    let detail = driver.screen();
    assert!(
        detail.contains("Company KPIs") && detail.contains("insights 1, 2, 3"),
        "{detail}"
    );
    let delivered: Vec<orgdeck::api::Delivery> =
        api.all_deliveries(&project, created.id, None, 10).await.unwrap();
    assert_eq!(delivered.len(), 1, "delivered once, as asked");

    typed(&mut driver, "e").await;
    // What it delivers is shown, and cannot change on an edit.
    let form = driver.screen();
    assert!(form.contains("Company KPIs (cannot change"), "{form}");
    keys(&mut driver, &[KeyCode::Right]).await;
    assert!(
        driver.screen().contains("Company KPIs (cannot change"),
        "{}",
        driver.screen()
    );
    focus(&mut driver, "title").await;
    typed(&mut driver, "Month end").await;
    keys(&mut driver, &[KeyCode::Enter]).await;
    let question = driver.screen();
    assert!(question.contains("Title: (none) → Month end"), "{question}");
    assert!(
        !question.contains("delivered once"),
        "unchecked on an edit: {question}"
    );
    typed(&mut driver, "y").await;
    let edited = api.subscription(&project, created.id).await.unwrap();
    assert_eq!(edited.title.as_deref(), Some("Month end"));
    assert_eq!(edited.summary, stored.summary, "only the title was sent");
    assert_eq!(edited.dashboard_export_insights, stored.dashboard_export_insights);
    assert_eq!(
        driver
            .app
            .screens
            .subscriptions
            .rows
            .selected()
            .unwrap()
            .title
            .as_deref(),
        Some("Month end")
    );
}

/// An older server (the seed flavor): webhooks are a target, nothing to
/// deliver is needed, and the form has no prompt or integration.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_older_server_takes_a_webhook_and_nothing_to_deliver() {
    let server = TestServer::seed().await;
    let key = server.key(&["*"]);
    let api = client_for(&server.base, &key);
    let project = server.project.to_string();
    let mut driver = console(&server, &key).await;
    typed(&mut driver, "3n").await;
    let form = driver.screen();
    assert!(!form.contains("Prompt") && !form.contains("Slack via"), "{form}");
    keys(&mut driver, &[KeyCode::Tab, KeyCode::Left, KeyCode::Tab]).await; // webhook
    typed(&mut driver, "https://hooks.hedgebox.dev/console").await;
    keys(&mut driver, &[KeyCode::Enter]).await;
    let created = driver.app.screens.subscriptions.rows.selected().cloned().unwrap();
    let stored = api.subscription(&project, created.id).await.unwrap();
    assert_eq!(
        (
            stored.target_type.as_ref().map(|t| t.as_str()),
            stored.target_value.as_deref(),
            stored.dashboard,
            stored.insight
        ),
        (
            Some("webhook"),
            Some("https://hooks.hedgebox.dev/console"),
            None,
            None
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn member_counts_follow_assignments() {
    let server = TestServer::demo().await;
    let mut driver = console(&server, &server.key(&["*"])).await;
    keys(&mut driver, &[KeyCode::End, KeyCode::Enter]).await; // Contractors
    typed(&mut driver, "a").await;
    keys(&mut driver, &[KeyCode::Tab, KeyCode::Enter]).await;
    typed(&mut driver, "1").await;
    let contractors = driver
        .app
        .screens
        .roles
        .rows
        .list
        .loaded()
        .map(|(_, role)| role)
        .find(|role| role.name == "Contractors")
        .unwrap();
    assert_eq!(contractors.members.as_ref().and_then(|m| m.len()), Some(1));
    typed(&mut driver, "d").await;
    assert!(driver.screen().contains("its 1 membership?"));
}
