//! Editing access from the console (issue 32 req 1, console half) against
//! the reference server's demo: `e` on a cell of the Access tab offers
//! only the levels within the resource's bounds and sets the row's own
//! rule (checked over HTTP), and removes it; a rule Terraform manages
//! under the project's lock is refused at `e` and nothing is sent; a
//! refusal of the server is said in words and the console goes on; `e`
//! on a row of a person's Access section edits the rule it names, and on
//! a row of a role's page the role's rule.

use orgdeck::api::access::levels::AccessLevel;
use orgdeck::api::access::{AccessControl, Subject};
use orgdeck::console::kit::theme::Theme;
use orgdeck::console::screens::ScreenId;
use orgdeck::console::screens::person::page::Item;
use orgdeck::console::shell::Mode;
use orgdeck::console::{Context, Driver};
use ratatui::crossterm::event::KeyCode;
use reqwest::StatusCode;
use serde_json::json;

use crate::drive::{SETTLE, command, console, keys, typed};
use crate::support::proxy::{Fault, FaultProxy};
use crate::support::{OWNER, TestServer, client_for};

const AMARA: &str = "amara.eze@hedgebox.dev";
const WEB: &str = "1";

/// The console through `base` (a proxy), as `key` sees the server.
async fn console_at(server: &TestServer, base: &str, key: &str) -> Driver {
    let context = Context {
        host: "reference server".into(),
        organization: server.organization.clone(),
        project: server.project.to_string(),
        ..Context::default()
    };
    let mut driver = Driver::new(client_for(base, key), context, (150, 40), Theme::plain());
    driver.start();
    assert!(driver.settle(SETTLE).await);
    driver
}

/// A member's membership id, by address.
async fn membership(server: &TestServer, key: &str, email: &str) -> String {
    let found = server
        .get(
            key,
            &format!(
                "/api/organizations/{}/members/?email={email}",
                server.organization
            ),
        )
        .await;
    found.json["results"][0]["id"].as_str().unwrap().to_lowercase()
}

/// A role's id, by name.
async fn role_id(server: &TestServer, key: &str, name: &str) -> String {
    let roles = server.all(key, &server.roles_path()).await;
    roles.iter().find(|role| role["name"] == name).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_lowercase()
}

/// The resource rules of Hedgebox Web, as the server holds them.
async fn web_rules(server: &TestServer, key: &str) -> Vec<AccessControl> {
    client_for(&server.base, key)
        .resource_access_controls(WEB)
        .await
        .unwrap()
        .access_controls
}

fn rule_of<'a>(
    rules: &'a [AccessControl],
    resource: &str,
    member: Option<&str>,
    role: Option<&str>,
) -> Option<&'a AccessControl> {
    rules.iter().find(|rule| {
        rule.resource == resource
            && rule
                .organization_member
                .as_deref()
                .map(str::to_lowercase)
                .as_deref()
                == member
            && rule.role.as_deref().map(str::to_lowercase).as_deref() == role
    })
}

/// The Access tab on Hedgebox Web's toolbar column, the cursor on the row
/// `filter` keeps.
async fn on_toolbar_of(driver: &mut Driver, filter: &str) {
    keys(driver, &[KeyCode::Char('5')]).await;
    command(driver, "access Hedgebox Web toolbar").await;
    keys(driver, &[KeyCode::Char('/')]).await;
    typed(driver, filter).await;
    keys(driver, &[KeyCode::Enter, KeyCode::Char('g'), KeyCode::Char('l')]).await;
    let access = &driver.app.screens.access;
    assert_eq!(access.selected().unwrap().1.email, AMARA);
}

/// The chooser open: its intro and its choices' ids, the cursor's.
fn chooser(driver: &Driver) -> (String, Vec<String>, usize) {
    let Mode::Chooser(chooser, _) = &driver.app.mode else {
        panic!("no chooser: {:?}", driver.app.notice.text());
    };
    let ids = chooser.choices.iter().map(|choice| choice.id.clone()).collect();
    (chooser.intro.clone(), ids, chooser.cursor)
}

/// Moves the chooser's cursor to `id`, chooses it and says yes.
async fn choose_and_confirm(driver: &mut Driver, id: &str) {
    let (_, ids, cursor) = chooser(driver);
    let wanted = ids.iter().position(|known| known == id).unwrap();
    let (step, times) = if wanted >= cursor {
        (KeyCode::Char('j'), wanted - cursor)
    } else {
        (KeyCode::Char('k'), cursor - wanted)
    };
    for _ in 0..times {
        keys(driver, &[step]).await;
    }
    keys(driver, &[KeyCode::Enter]).await;
    assert!(matches!(driver.app.mode, Mode::Confirm(_)), "{}", driver.screen());
    keys(driver, &[KeyCode::Char('y')]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn e_on_a_cell_offers_the_levels_within_bounds_sets_and_removes_the_rule() {
    let server = TestServer::demo().await;
    let key = server.key_for(OWNER, &["*"]);
    let amara = membership(&server, &key, AMARA).await;
    let mut driver = console(&server, &key, (150, 40)).await;
    on_toolbar_of(&mut driver, "amara").await;

    // The toolbar's rules go no higher than viewer: editor and manager
    // are never offered; no rule now, the cursor on "remove".
    keys(&mut driver, &[KeyCode::Char('e')]).await;
    let (intro, ids, cursor) = chooser(&driver);
    assert_eq!(ids, ["none", "viewer", "unset"]);
    assert_eq!(cursor, 2);
    assert!(
        intro.starts_with("Amara Eze's rule on toolbar in Hedgebox Web (1): no rule"),
        "{intro}"
    );
    choose_and_confirm(&mut driver, "viewer").await;
    assert!(
        driver
            .app
            .notice
            .text()
            .contains("Set: Amara Eze's rule on toolbar in Hedgebox Web (1) is now viewer."),
        "{}",
        driver.app.notice.text()
    );
    let rules = web_rules(&server, &key).await;
    let set = rule_of(&rules, "toolbar", Some(&amara), None).expect("the rule is on the server");
    assert_eq!(set.access_level, Some(AccessLevel::Viewer));
    // The grid was read again, the cursor where it was.
    assert_eq!(driver.app.screens.access.selected().unwrap().1.email, AMARA);

    // Again: viewer is now, marked; unset removes it.
    keys(&mut driver, &[KeyCode::Char('e')]).await;
    let Mode::Chooser(shown, _) = &driver.app.mode else {
        panic!("no chooser");
    };
    assert_eq!(shown.cursor, 1);
    assert_eq!(shown.choices[1].note, "now");
    choose_and_confirm(&mut driver, "unset").await;
    assert!(
        driver.app.notice.text().contains("Removed: Amara Eze's rule"),
        "{}",
        driver.app.notice.text()
    );
    let rules = web_rules(&server, &key).await;
    assert!(rule_of(&rules, "toolbar", Some(&amara), None).is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_is_said_in_words_and_the_console_goes_on() {
    let server = TestServer::demo().await;
    let key = server.key_for(OWNER, &["*"]);
    let proxy = FaultProxy::start(&server.base).await;
    proxy.always(
        |line| line.starts_with("PUT"),
        Fault::Answer(
            400,
            json!({
                "type": "validation_error",
                "code": "invalid_input",
                "detail": "Access level cannot be set above the maximum 'viewer' for toolbar.",
                "attr": "access_level"
            })
            .to_string(),
        ),
    );
    let mut driver = console_at(&server, &proxy.base, &key).await;
    on_toolbar_of(&mut driver, "amara").await;
    keys(&mut driver, &[KeyCode::Char('e')]).await;
    choose_and_confirm(&mut driver, "viewer").await;
    let notice = driver.app.notice.text();
    assert!(notice.contains("400"), "{notice}");
    assert!(notice.contains("invalid_input"), "{notice}");
    assert!(
        notice.contains("Access level cannot be set above the maximum 'viewer' for toolbar."),
        "{notice}"
    );
    assert!(notice.contains("field: access_level"), "{notice}");
    assert!(matches!(driver.app.mode, Mode::Normal));
    // Still usable: the cursor moves, `e` opens the chooser again.
    keys(&mut driver, &[KeyCode::Char('h'), KeyCode::Char('e')]).await;
    let (intro, ids, _) = chooser(&driver);
    assert!(
        intro.contains("rule on the project in Hedgebox Web (1)"),
        "{intro}"
    );
    assert_eq!(ids, ["none", "member", "admin", "unset"]);
    assert!(rule_of(&web_rules(&server, &key).await, "toolbar", None, None).is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_locked_managed_rule_is_refused_at_e_and_a_person_s_line_edits_what_it_names() {
    let server = TestServer::demo().await;
    let key = server.key_for(OWNER, &["*"]);
    // Amara joins Contractors, whose none on insights Hedgebox Web's
    // everyone's viewer outranks (the highest rule wins): her insights row
    // names everyone's rule, which Terraform manages under the lock.
    let contractors = role_id(&server, &key, "Contractors").await;
    let amara = server
        .get(
            &key,
            &format!(
                "/api/organizations/{}/members/?email={AMARA}",
                server.organization
            ),
        )
        .await
        .json["results"][0]["user"]["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    server
        .post(
            &key,
            &format!("{}{contractors}/role_memberships/", server.roles_path()),
            json!({"user_uuid": amara}),
        )
        .await
        .expect(StatusCode::CREATED);
    client_for(&server.base, &key)
        .set_resource_access_control(
            WEB,
            "insight",
            &Subject::Role(contractors.clone()),
            Some(AccessLevel::None),
        )
        .await
        .unwrap();
    let proxy = FaultProxy::start(&server.base).await;
    let mut driver = console_at(&server, &proxy.base, &key).await;

    keys(&mut driver, &[KeyCode::Char('4'), KeyCode::Char('/')]).await;
    typed(&mut driver, "amara").await;
    keys(&mut driver, &[KeyCode::Enter, KeyCode::Enter]).await;
    assert_eq!(driver.app.shown(), ScreenId::Person);
    let row = |driver: &Driver, starts: &str, project: &str| {
        let lines = &driver.app.screens.person.lines;
        let mut in_project = false;
        (0u64..)
            .map_while(|at| lines.row(at).map(|item| (at, item)))
            .find_map(|(at, item)| {
                let Item::Access(said) = item else {
                    return None;
                };
                if said.text.starts_with(project) {
                    in_project = true;
                } else if said.kind == orgdeck::console::screens::person::access::Kind::Project {
                    in_project = false;
                }
                (in_project && said.text.starts_with(starts)).then_some(at)
            })
    };
    let insights = row(&driver, "insights", "Hedgebox Web").expect("an insights row");
    keys(&mut driver, &[KeyCode::Char('g')]).await;
    for _ in 0..insights {
        keys(&mut driver, &[KeyCode::Char('j')]).await;
    }
    keys(&mut driver, &[KeyCode::Char('e')]).await;
    let notice = driver.app.notice.text();
    assert!(
        notice.contains(
            "everyone's rule on insights in Hedgebox Web (1): managed by Terraform: change it in your Terraform configuration, or turn off the lock in project settings"
        ),
        "{notice}"
    );
    assert!(matches!(driver.app.mode, Mode::Normal));
    assert_eq!(proxy.count("PUT"), 0, "nothing was sent");

    // Her Mobile project row names Contractors' rule (none, the highest
    // of hers there): `e` edits the role's rule.
    let project = row(&driver, "project", "Hedgebox Mobile").expect("a project row");
    keys(&mut driver, &[KeyCode::Char('g')]).await;
    for _ in 0..project {
        keys(&mut driver, &[KeyCode::Char('j')]).await;
    }
    keys(&mut driver, &[KeyCode::Char('e')]).await;
    let (intro, ids, cursor) = chooser(&driver);
    assert!(
        intro.starts_with("Contractors' rule on the project in Hedgebox Mobile (2): none"),
        "{intro}"
    );
    assert_eq!(ids[cursor], "none");
    keys(&mut driver, &[KeyCode::Esc]).await;
    assert_eq!(proxy.count("PUT"), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn e_on_a_role_s_page_sets_the_role_s_rule() {
    let server = TestServer::demo().await;
    let key = server.key_for(OWNER, &["*"]);
    let contractors = role_id(&server, &key, "Contractors").await;
    let mut driver = console(&server, &key, (150, 40)).await;
    keys(&mut driver, &[KeyCode::Char('1'), KeyCode::Char('/')]).await;
    typed(&mut driver, "Contractors").await;
    keys(&mut driver, &[KeyCode::Enter, KeyCode::Char('w')]).await;
    assert_eq!(driver.app.shown(), ScreenId::Grants);
    let lines = &driver.app.screens.grants.lines;
    let flags = (0u64..)
        .map_while(|at| lines.row(at).map(|said| (at, said)))
        .find(|(_, said)| said.text.starts_with("feature flags") && said.edit.is_some())
        .map(|(at, _)| at)
        .expect("a feature flags row");
    keys(&mut driver, &[KeyCode::Char('g')]).await;
    for _ in 0..flags {
        keys(&mut driver, &[KeyCode::Char('j')]).await;
    }
    keys(&mut driver, &[KeyCode::Char('e')]).await;
    let (intro, ids, cursor) = chooser(&driver);
    assert!(
        intro.starts_with("Contractors' rule on feature flags in Hedgebox Web (1): none"),
        "{intro}"
    );
    assert_eq!(ids, ["none", "viewer", "editor", "manager", "unset"]);
    assert_eq!(cursor, 0);
    choose_and_confirm(&mut driver, "viewer").await;
    let rules = web_rules(&server, &key).await;
    let set = rule_of(&rules, "feature_flag", None, Some(&contractors)).expect("the role's rule");
    assert_eq!(set.access_level, Some(AccessLevel::Viewer));
    // The page read again says it.
    let lines = &driver.app.screens.grants.lines;
    assert!(
        (0u64..)
            .map_while(|at| lines.row(at))
            .any(|said| said.text.starts_with("feature flags") && said.text.contains("viewer")),
        "{}",
        driver.screen()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn e_on_a_person_s_page_asks_for_access_control_write_and_only_e_does() {
    use orgdeck::console::screens::keys::Action;
    let server = TestServer::demo().await;
    let person_page = async |key: &str| {
        let mut driver = console(&server, key, (150, 40)).await;
        keys(&mut driver, &[KeyCode::Char('4'), KeyCode::Char('/')]).await;
        typed(&mut driver, "amara").await;
        keys(&mut driver, &[KeyCode::Enter, KeyCode::Enter]).await;
        assert_eq!(driver.app.shown(), ScreenId::Person, "{}", driver.screen());
        driver
    };
    // May change people, not access: `e` is refused, the level is not.
    let people = server.key(&[
        "organization:write",
        "organization_member:read",
        "access_control:read",
    ]);
    let driver = person_page(&people).await;
    let why = driver.app.unavailable(Action::Edit).unwrap_or_default();
    assert!(
        why.contains("the API key lacks the 'access_control:write' scope"),
        "{why}"
    );
    assert_eq!(driver.app.unavailable(Action::SetLevel), None);
    // May change access, not people: the other way round.
    let access = server.key(&[
        "organization:read",
        "organization_member:read",
        "access_control:write",
    ]);
    let driver = person_page(&access).await;
    assert_eq!(driver.app.unavailable(Action::Edit), None);
    let why = driver.app.unavailable(Action::SetLevel).unwrap_or_default();
    assert!(
        why.contains("the API key lacks the 'organization:write' scope"),
        "{why}"
    );
}
