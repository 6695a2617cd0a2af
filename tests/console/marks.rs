//! Marks and bulk actions against the reference server, each checked over
//! HTTP afterwards: a bulk pause of 20 subscriptions of which the server
//! refuses one, `*` after a search (every row it finds, fetched page by
//! page), `*` refused past 1,000 rows, Esc clearing the marks; and the one
//! rule for questions: Enter on a test delivery's question sends nothing.

use orgdeck::api::Subscription;
use orgdeck::console::Driver;
use orgdeck::console::shell::Mode;
use orgdeck::console::widgets::results::Outcome;
use ratatui::crossterm::event::KeyCode;

use crate::drive::{self, SETTLE, keys, typed};
use crate::support::{TestServer, client_for};

async fn console(server: &TestServer, key: &str) -> Driver {
    drive::console(server, key, (140, 40)).await
}

/// The subscriptions the console shows, in its order.
fn shown(driver: &Driver) -> Vec<Subscription> {
    let rows = &driver.app.screens.subscriptions.rows;
    (0..rows.len()).filter_map(|at| rows.row(at).cloned()).collect()
}

/// Marks the rows at these positions, moving down to each as a person
/// would (Space moves down one row itself).
async fn mark_at(driver: &mut Driver, positions: &[usize]) {
    keys(driver, &[KeyCode::Char('g')]).await;
    let mut cursor = 0;
    for &at in positions {
        for _ in cursor..at {
            keys(driver, &[KeyCode::Char('j')]).await;
        }
        keys(driver, &[KeyCode::Char(' ')]).await;
        cursor = at + 1;
    }
}

/// A key that may change subscriptions but not read queries: the server
/// refuses it any change to an AI report (posthog.md: `query:read`).
const NO_QUERIES: [&str; 4] = [
    "organization:read",
    "project:read",
    "subscription:read",
    "subscription:write",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bulk_pause_of_twenty_keeps_the_one_the_server_refused_marked() {
    let server = TestServer::demo().await;
    let key = server.key(&NO_QUERIES);
    let api = client_for(&server.base, &server.key(&["*"]));
    let project = server.project.to_string();
    let mut driver = console(&server, &key).await;
    keys(&mut driver, &[KeyCode::Char('3')]).await;
    let rows = shown(&driver);
    let active = |row: &&Subscription| row.is_enabled() && !row.deleted && row.is_supported();
    let ai = rows
        .iter()
        .filter(active)
        .find(|row| row.prompt.is_some())
        .expect("an active AI report in the demo")
        .id;
    let mut chosen: Vec<i64> = rows
        .iter()
        .filter(active)
        .filter(|row| row.prompt.is_none())
        .take(19)
        .map(|row| row.id)
        .collect();
    chosen.push(ai);
    assert_eq!(chosen.len(), 20);
    let mut positions: Vec<usize> = chosen
        .iter()
        .map(|id| rows.iter().position(|row| row.id == *id).unwrap())
        .collect();
    positions.sort_unstable();
    mark_at(&mut driver, &positions).await;
    assert!(driver.screen().contains(" 20 marked"), "{}", driver.screen());

    // One question, naming the count; pausing is harmless, so Enter is yes.
    keys(&mut driver, &[KeyCode::Char('p')]).await;
    let question = driver.screen();
    assert!(question.contains("Pause 20 subscriptions?"), "{question}");
    assert!(question.contains("[Y] yes  [n] no  · Enter: yes"), "{question}");
    keys(&mut driver, &[KeyCode::Char('y')]).await;
    assert!(matches!(driver.app.mode, Mode::Results));

    // On the server: the 19 paused, the AI report not.
    for id in &chosen {
        let stored = api.subscription(&project, *id).await.unwrap().into_typed();
        assert_eq!(stored.is_enabled(), *id == ai, "#{id}");
    }
    // The results: 19 done, one failed in the server's words.
    let report = driver.app.bulk.report.clone().unwrap();
    assert_eq!(report.counts().done, 19);
    let failed: Vec<_> = report
        .entries
        .iter()
        .filter(|entry| matches!(entry.outcome, Outcome::Failed(_)))
        .collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].id, ai.to_string());
    let Outcome::Failed(error) = &failed[0].outcome else {
        unreachable!()
    };
    assert!(
        error.starts_with("403 permission_denied: API key missing required scope 'query:read'"),
        "{error}"
    );
    let screen = driver.screen();
    assert!(
        screen.contains("Pause 20 subscriptions: 19 done · 1 failed"),
        "{screen}"
    );
    assert!(
        screen.contains(&format!("✗ #{ai} ")) && screen.contains("failed: 403 permission_denied: API key"),
        "{screen}"
    );
    // The failed one stays marked, the rest are not; the header says so.
    keys(&mut driver, &[KeyCode::Esc]).await;
    let marks = &driver.app.screens.subscriptions.marks;
    assert_eq!(marks.len(), 1);
    assert!(marks.contains(&ai.to_string()));
    let screen = driver.screen();
    assert!(screen.contains(" 1 marked"), "{screen}");
    let row = screen
        .lines()
        .find(|line| line.contains(&format!(" {ai} ")))
        .unwrap();
    assert!(row.contains('●'), "{row}");
    // The rows changed in place: the paused ones say so.
    let paused = driver.app.screens.subscriptions.find(chosen[0]).unwrap();
    assert!(!paused.is_enabled());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn star_marks_what_a_search_finds_refuses_past_a_thousand_and_esc_clears() {
    let server = TestServer::start(orgdeck::server::Seed::Demo, 1_200).await;
    let key = server.key(&["*"]);
    let mut driver = console(&server, &key).await;
    keys(&mut driver, &[KeyCode::Char('3')]).await;
    let total = driver.app.screens.subscriptions.rows.len();
    assert!(total > 1_000, "{total}");

    // Every row is more than `*` marks.
    keys(&mut driver, &[KeyCode::Char('*')]).await;
    assert_eq!(driver.app.screens.subscriptions.marks.len(), 0);
    let screen = driver.screen();
    assert!(
        screen.contains(&format!(
            "* marks at most 1,000 rows, and this list shows {}: narrow it with / first",
            orgdeck::text::thousands(total)
        )),
        "{screen}"
    );
    keys(&mut driver, &[KeyCode::Esc]).await;

    // A search the server answers with a few hundred: each is marked,
    // though only the pages around the cursor were loaded.
    keys(&mut driver, &[KeyCode::Char('/')]).await;
    typed(&mut driver, "synthetic 1").await;
    keys(&mut driver, &[KeyCode::Enter]).await;
    let path = format!("{}?search=synthetic%201", server.subscriptions_path());
    let found = server.get(&key, &path).await;
    let count = found.json["count"].as_u64().unwrap();
    assert!((101..=1_000).contains(&count), "{count}");
    assert_eq!(driver.app.screens.subscriptions.rows.len(), count);
    keys(&mut driver, &[KeyCode::Char('*')]).await;
    let marks = &driver.app.screens.subscriptions.marks;
    assert_eq!(marks.len() as u64, count);
    let every = server.all(&key, &path).await;
    assert!(
        every
            .iter()
            .all(|row| marks.contains(&row["id"].as_i64().unwrap().to_string()))
    );
    let screen = driver.screen();
    assert!(screen.contains(&format!(" {count} marked")), "{screen}");
    assert!(
        screen.contains(&format!("marked the {count} subscriptions the filter shows")),
        "{screen}"
    );

    // Marks are kept by id: the list refreshed and sorted, still all there.
    keys(&mut driver, &[KeyCode::Char('r'), KeyCode::Char('s')]).await;
    assert_eq!(driver.app.screens.subscriptions.marks.len() as u64, count);

    // Esc clears them, and only then means back.
    keys(&mut driver, &[KeyCode::Esc]).await;
    assert_eq!(driver.app.screens.subscriptions.marks.len(), 0);
    let screen = driver.screen();
    assert!(!screen.contains(" marked"), "{screen}");
    assert!(!screen.contains('●'), "{screen}");
    assert!(screen.contains(&format!("cleared {count} marks")), "{screen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn enter_on_a_test_delivery_s_question_sends_nothing() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let mut driver = console(&server, &key).await;
    keys(&mut driver, &[KeyCode::Char('3')]).await;
    let row = shown(&driver)
        .into_iter()
        .position(|row| row.is_enabled() && !row.deleted && row.is_supported())
        .unwrap();
    for _ in 0..row {
        keys(&mut driver, &[KeyCode::Char('j')]).await;
    }
    let id = driver.app.screens.subscriptions.selected().unwrap().id;
    let deliveries = format!("{}{id}/deliveries/", server.subscriptions_path());
    let before = server.all(&key, &deliveries).await.len();
    keys(&mut driver, &[KeyCode::Char('t')]).await;
    let question = driver.screen();
    assert!(question.contains("Send a test delivery of #"), "{question}");
    assert!(question.contains("[y] yes  [N] no  · Enter: no"), "{question}");
    driver.press(KeyCode::Enter);
    assert_eq!(driver.app.requests.in_flight, 0, "nothing was sent");
    assert!(matches!(driver.app.mode, Mode::Normal));
    assert!(driver.settle(SETTLE).await);
    assert!(
        driver
            .app
            .requests
            .last
            .as_ref()
            .is_none_or(|exchange| exchange.request.method == "GET"),
        "{:?}",
        driver.app.requests.last
    );
    assert_eq!(server.all(&key, &deliveries).await.len(), before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn marked_members_are_removed_and_marked_roles_deleted_in_one_go() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let mut driver = console(&server, &key).await;
    let roles = server.all(&key, &server.roles_path()).await;
    let members_of = |role: &serde_json::Value| {
        format!(
            "{}{}/role_memberships/",
            server.roles_path(),
            role["id"].as_str().unwrap()
        )
    };
    // A role with three members or more, opened from Roles.
    let mut at = None;
    for (position, role) in roles.iter().enumerate() {
        if server.all(&key, &members_of(role)).await.len() >= 3 {
            at = Some(position);
            break;
        }
    }
    let at = at.expect("a demo role with three members");
    let role = &roles[at];
    let before = server.all(&key, &members_of(role)).await.len();
    for _ in 0..at {
        keys(&mut driver, &[KeyCode::Char('j')]).await;
    }
    keys(
        &mut driver,
        &[KeyCode::Enter, KeyCode::Char(' '), KeyCode::Char(' ')],
    )
    .await;
    assert!(driver.screen().contains(" 2 marked"), "{}", driver.screen());
    // Removing reaches no one outside, but it removes: Enter says no.
    keys(&mut driver, &[KeyCode::Char('d')]).await;
    let question = driver.screen();
    assert!(question.contains("Remove 2 members from the role"), "{question}");
    assert!(question.contains("[y] yes  [N] no  · Enter: no"), "{question}");
    keys(&mut driver, &[KeyCode::Enter]).await;
    assert_eq!(server.all(&key, &members_of(role)).await.len(), before);
    keys(&mut driver, &[KeyCode::Char('d'), KeyCode::Char('y')]).await;
    assert_eq!(server.all(&key, &members_of(role)).await.len(), before - 2);
    assert_eq!(driver.app.bulk.report.as_ref().unwrap().counts().done, 2);
    assert_eq!(driver.app.screens.members.marks.len(), 0);
    assert_eq!(driver.app.screens.members.rows.len() as usize, before - 2);

    // Back on Roles (the results closed, no marks left: Esc means back).
    keys(&mut driver, &[KeyCode::Esc, KeyCode::Esc]).await;
    assert!(driver.screen().contains("Roles"));
    keys(
        &mut driver,
        &[KeyCode::Char('g'), KeyCode::Char(' '), KeyCode::Char(' ')],
    )
    .await;
    keys(&mut driver, &[KeyCode::Char('d')]).await;
    assert!(driver.screen().contains("Delete 2 roles?"), "{}", driver.screen());
    keys(&mut driver, &[KeyCode::Char('y')]).await;
    // Someone loses access with them: asked once more.
    assert!(
        driver.screen().contains("lose access. Go on?"),
        "{}",
        driver.screen()
    );
    keys(&mut driver, &[KeyCode::Char('y')]).await;
    let left = server.all(&key, &server.roles_path()).await;
    assert_eq!(left.len(), roles.len() - 2);
    assert!(
        left.iter()
            .all(|role| role["id"] != roles[0]["id"] && role["id"] != roles[1]["id"])
    );
    assert_eq!(driver.app.screens.roles.rows.len() as usize, roles.len() - 2);
    // The run's preview, one batch, checked against the server once it ended.
    let notice = driver.app.notice.shown.clone().unwrap();
    assert!(
        !notice.error && notice.text.contains("after the change are as previewed"),
        "{notice:?}"
    );
}
