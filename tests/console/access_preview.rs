//! Every console change that can move access is previewed first (issue 32
//! req 2, console) against the reference server's demo: deleting On-call
//! cuts Tomás off Hedgebox Mobile, so the question names him, Enter at
//! either question changes nothing and `y` `y` deletes it, the notice then
//! saying the check; taking him out of On-call on Members asks the same
//! way; adding someone to Contractors once the most specific rule wins
//! shows the feature flags they lose, and the picker that sent without a
//! question asks; Finance's rule is Terraform's under a lock, so deleting
//! it is refused before anything is sent; and a change announced to the
//! Access tab has its grid read again.

use std::time::Duration;

use orgdeck::console::kit::theme::Theme;
use orgdeck::console::shell::Mode;
use orgdeck::console::{Context, Driver};
use ratatui::crossterm::event::KeyCode;
use reqwest::StatusCode;
use serde_json::json;

use crate::support::{TestServer, client_for};

const SETTLE: Duration = Duration::from_secs(30);
const TOMAS: &str = "tomas.novak@hedgebox.dev";

struct Console {
    driver: Driver,
    _state: tempfile::TempDir,
}

async fn console(server: &TestServer, key: &str, size: (u16, u16)) -> Console {
    let context = Context {
        host: "reference server".into(),
        organization: server.organization.clone(),
        project: server.project.to_string(),
        ..Context::default()
    };
    let mut driver = Driver::new(client_for(&server.base, key), context, size, Theme::plain());
    let state = tempfile::tempdir().unwrap();
    driver.state_dir = state.path().to_path_buf();
    driver.start();
    assert!(driver.settle(SETTLE).await);
    Console {
        driver,
        _state: state,
    }
}

async fn press(driver: &mut Driver, keys: &[KeyCode]) {
    for code in keys {
        driver.press(*code);
        assert!(driver.settle(SETTLE).await, "{}", driver.screen());
    }
}

async fn typed(driver: &mut Driver, text: &str) {
    for c in text.chars() {
        press(driver, &[KeyCode::Char(c)]).await;
    }
}

/// The names of the organization's roles, as the server holds them.
async fn role_names(server: &TestServer, key: &str) -> Vec<String> {
    server
        .all(key, &server.roles_path())
        .await
        .iter()
        .map(|role| role["name"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// Roles, the cursor on the role of this name.
async fn to_role(driver: &mut Driver, name: &str) {
    press(driver, &[KeyCode::Char('1'), KeyCode::Char('g')]).await;
    let rows = &driver.app.screens.roles.rows;
    let at = (0..rows.len())
        .find(|at| rows.row(*at).is_some_and(|role| role.name == name))
        .unwrap_or_else(|| panic!("{name} is not shown"));
    for _ in 0..at {
        press(driver, &[KeyCode::Char('j')]).await;
    }
}

fn asking(driver: &Driver) -> bool {
    matches!(driver.app.mode, Mode::Confirm(_))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleting_a_role_that_cuts_someone_off_names_them_and_asks_twice() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let mut console = console(&server, &key, (120, 40)).await;
    let driver = &mut console.driver;
    to_role(driver, "On-call").await;

    // The question has the preview in it, and Enter means no.
    press(driver, &[KeyCode::Char('d')]).await;
    let screen = driver.screen();
    assert!(screen.contains("Delete the role On-call"), "{screen}");
    assert!(screen.contains("1 person loses access"), "{screen}");
    assert!(screen.contains("Tomás Novák"), "{screen}");
    assert!(screen.contains("Hedgebox Mobile"), "{screen}");
    assert!(screen.contains("Enter: no"), "{screen}");
    press(driver, &[KeyCode::Enter]).await;
    assert!(!asking(driver));
    assert!(role_names(&server, &key).await.contains(&"On-call".to_string()));

    // y asks once more, naming how many lose access; Enter is no there too.
    press(driver, &[KeyCode::Char('d'), KeyCode::Char('y')]).await;
    let screen = driver.screen();
    assert!(screen.contains("1 person loses access. Go on?"), "{screen}");
    assert!(screen.contains("Enter: no"), "{screen}");
    press(driver, &[KeyCode::Enter]).await;
    assert!(!asking(driver));
    assert!(role_names(&server, &key).await.contains(&"On-call".to_string()));

    // y, y: deleted, and the preview checked against the server.
    press(
        driver,
        &[KeyCode::Char('d'), KeyCode::Char('y'), KeyCode::Char('y')],
    )
    .await;
    assert!(!role_names(&server, &key).await.contains(&"On-call".to_string()));
    let notice = driver.app.notice.shown.clone().unwrap();
    assert!(!notice.error, "{notice:?}");
    assert!(
        notice.text.contains("checked: the server's") && notice.text.contains("as previewed"),
        "{}",
        notice.text
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn removing_someone_from_a_role_shows_what_they_lose() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let mut console = console(&server, &key, (120, 40)).await;
    let driver = &mut console.driver;
    to_role(driver, "On-call").await;
    press(driver, &[KeyCode::Enter, KeyCode::Char('g')]).await;
    let rows = &driver.app.screens.members.rows;
    let at = (0..rows.len())
        .find(|at| {
            rows.row(*at)
                .is_some_and(|membership| membership.user.as_ref().is_some_and(|user| user.email == TOMAS))
        })
        .expect("Tomás is in On-call");
    for _ in 0..at {
        press(driver, &[KeyCode::Char('j')]).await;
    }
    press(driver, &[KeyCode::Char('d')]).await;
    let screen = driver.screen();
    assert!(screen.contains("from the role On-call?"), "{screen}");
    assert!(screen.contains("1 person loses access"), "{screen}");
    assert!(
        screen.contains("none in") || screen.contains("→ none"),
        "{screen}"
    );
    let before = server
        .all(&key, &members_path(&server, &key, "On-call").await)
        .await;
    press(driver, &[KeyCode::Char('y'), KeyCode::Enter]).await;
    let kept = server
        .all(&key, &members_path(&server, &key, "On-call").await)
        .await;
    assert_eq!(kept.len(), before.len(), "Enter at the second question keeps him");
    press(
        driver,
        &[KeyCode::Char('d'), KeyCode::Char('y'), KeyCode::Char('y')],
    )
    .await;
    let left = server
        .all(&key, &members_path(&server, &key, "On-call").await)
        .await;
    assert_eq!(left.len(), before.len() - 1);
    assert!(!left.iter().any(|membership| membership["user"]["email"] == TOMAS));
}

/// The path of a role's memberships, by its name.
async fn members_path(server: &TestServer, key: &str, role: &str) -> String {
    let roles = server.all(key, &server.roles_path()).await;
    let id = roles
        .iter()
        .find(|found| found["name"] == role)
        .and_then(|found| found["id"].as_str())
        .unwrap()
        .to_string();
    format!("{}{id}/role_memberships/", server.roles_path())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn joining_contractors_shows_the_flags_lost_once_the_most_specific_rule_wins() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let path = format!("/api/organizations/{}/", server.organization);
    server
        .patch(&key, &path, json!({"uses_most_specific_access_resolution": true}))
        .await
        .expect(StatusCode::OK);
    let mut console = console(&server, &key, (120, 40)).await;
    let driver = &mut console.driver;
    to_role(driver, "Contractors").await;
    press(driver, &[KeyCode::Enter]).await;
    typed(driver, "a").await;
    typed(driver, "TomásNovák").await;
    press(driver, &[KeyCode::Char(' '), KeyCode::Enter]).await;
    // The picker sent without a question; someone losing access asks.
    let screen = driver.screen();
    assert!(asking(driver), "{screen}");
    assert!(
        screen.contains("resolves access by the most specific rule"),
        "{screen}"
    );
    assert!(screen.contains("1 person loses access"), "{screen}");
    assert!(screen.contains("feature flags"), "{screen}");
    press(driver, &[KeyCode::Enter]).await;
    let members = server
        .all(&key, &members_path(&server, &key, "Contractors").await)
        .await;
    assert!(members.is_empty(), "Enter assigned nobody: {members:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_role_whose_rule_terraform_locks_is_refused_before_anything_is_sent() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let mut console = console(&server, &key, (120, 40)).await;
    let driver = &mut console.driver;
    to_role(driver, "Finance").await;
    press(driver, &[KeyCode::Char('d')]).await;
    assert!(!asking(driver), "{}", driver.screen());
    let notice = driver.app.notice.shown.clone().unwrap();
    assert!(notice.error, "{notice:?}");
    assert!(
        notice
            .text
            .contains("refused before sending anything: Terraform manages"),
        "{}",
        notice.text
    );
    assert!(role_names(&server, &key).await.contains(&"Finance".to_string()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_of_access_has_the_access_grid_read_again() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let mut console = console(&server, &key, (160, 40)).await;
    let driver = &mut console.driver;
    press(driver, &[KeyCode::Char('5')]).await;
    let access = &driver.app.screens.access;
    assert!(access.loaded().frame.is_some(), "the grid is read");
    let read = access.loaded().reads.current();
    to_role(driver, "On-call").await;
    press(
        driver,
        &[KeyCode::Char('d'), KeyCode::Char('y'), KeyCode::Char('y')],
    )
    .await;
    assert!(!role_names(&server, &key).await.contains(&"On-call".to_string()));
    let access = &driver.app.screens.access;
    assert_ne!(access.loaded().reads.current(), read, "read again");
    assert!(!access.loaded().is_reading(), "and read whole");
    assert!(access.loaded().frame.is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bulk_run_with_a_row_failed_does_not_check_the_batch_s_preview() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let roles = server.all(&key, &server.roles_path()).await;
    let mut console = console(&server, &key, (120, 40)).await;
    let driver = &mut console.driver;
    press(
        driver,
        &[
            KeyCode::Char('1'),
            KeyCode::Char('g'),
            KeyCode::Char(' '),
            KeyCode::Char(' '),
            KeyCode::Char('d'),
        ],
    )
    .await;
    assert!(driver.screen().contains("Delete 2 roles?"), "{}", driver.screen());
    // The second goes behind the console's back, after the preview: its
    // row fails, so the batch the preview was of is not what was made.
    let gone = format!("{}{}/", server.roles_path(), roles[1]["id"].as_str().unwrap());
    server.delete(&key, &gone).await.expect(StatusCode::NO_CONTENT);
    press(driver, &[KeyCode::Char('y')]).await;
    if asking(driver) {
        press(driver, &[KeyCode::Char('y')]).await;
    }
    let counts = driver.app.bulk.report.as_ref().unwrap().counts();
    assert_eq!((counts.done, counts.failed), (1, 1));
    let notice = driver.app.notice.shown.clone().unwrap();
    assert!(
        notice.text.contains("the preview not checked: 1 failed"),
        "{}",
        notice.text
    );
    assert!(!notice.text.contains("previewed"), "{}", notice.text);
}
