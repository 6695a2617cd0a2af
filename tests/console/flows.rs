//! Screens of the console as a user moves through them. The demo data is
//! seeded at a fixed moment and the console's clock is fixed an hour later,
//! so every screen is the same on every run.

use std::time::Duration;

use orgdeck::console::kit::theme::Theme;
use orgdeck::console::{Context, Driver};
use ratatui::crossterm::event::KeyCode;

use crate::support::{TestServer, client_for, seeded};

const SETTLE: Duration = Duration::from_secs(10);

async fn console(server: &TestServer, scopes: &[&str], size: (u16, u16)) -> Driver {
    let client = client_for(&server.base, &server.key(scopes));
    let context = Context {
        host: "reference server".into(),
        organization: server.organization.clone(),
        project: server.project.to_string(),
        ..Context::default()
    };
    let mut driver = Driver::new(client, context, size, Theme::plain());
    driver.clock = orgdeck::clock::Clock::manual(seeded() + chrono::Duration::hours(1));
    driver.app.window.now = driver.clock.now();
    driver.start();
    assert!(driver.settle(SETTLE).await);
    driver
}

/// The screen with the request timing (the one thing that varies) cleared.
fn screen(driver: &mut Driver) -> String {
    if let Some(log) = driver.app.requests.last.as_mut() {
        log.elapsed = Duration::ZERO;
    }
    driver.screen()
}

async fn press(driver: &mut Driver, keys: &str) {
    for key in keys.chars() {
        driver.press(KeyCode::Char(key));
        assert!(driver.settle(SETTLE).await);
    }
}

async fn press_code(driver: &mut Driver, code: KeyCode) {
    driver.press(code);
    assert!(driver.settle(SETTLE).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn roles_then_a_roles_members() {
    let server = TestServer::demo_at(seeded(), 0).await;
    let mut driver = console(&server, &["*"], (120, 30)).await;
    let roles = screen(&mut driver);
    assert!(roles.contains("Hedgebox Inc.") && roles.contains("1 Roles (8)"));
    insta::assert_snapshot!("roles", roles);

    press(&mut driver, "j").await;
    press_code(&mut driver, KeyCode::Enter).await;
    let members = screen(&mut driver);
    assert!(members.contains("Roles › Product › members"));
    assert!(members.contains("chiara.rossi@hedgebox.dev"));
    insta::assert_snapshot!("members_of_product", members);

    press(&mut driver, "v").await;
    let json = screen(&mut driver);
    assert!(json.contains("\"organization_member\""));
    insta::assert_snapshot!("member_as_json", json);

    // Back from a role opened on Roles goes back to Roles.
    press(&mut driver, "vq").await;
    let back = screen(&mut driver);
    assert!(back.contains("╭ Roles 2/8"), "{back}");
    assert!(!back.contains("choose a role"), "{back}");
    press(&mut driver, "2").await;
    let choose = screen(&mut driver);
    assert!(choose.contains("choose a role (Enter)"));
    insta::assert_snapshot!("members_choose_a_role", choose);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriptions_with_their_next_deliveries() {
    let server = TestServer::demo_at(seeded(), 0).await;
    let mut driver = console(&server, &["*"], (160, 40)).await;
    press(&mut driver, "3").await;
    let first = screen(&mut driver);
    assert!(first.contains("3 Subscriptions (95)"));
    assert!(first.contains("next 5 deliveries"));
    insta::assert_snapshot!("subscriptions", first);

    press(&mut driver, "G").await;
    let last = screen(&mut driver);
    assert!(last.contains("95/95"));
    insta::assert_snapshot!("subscriptions_end", last);

    // Ordered by next delivery: the missed one comes first, overdue.
    press(&mut driver, "gs").await;
    let ordered = screen(&mut driver);
    assert!(ordered.contains("sorted: next delivery first"));
    assert!(ordered.lines().nth(4).unwrap().contains("overdue"), "{ordered}");
    insta::assert_snapshot!("subscriptions_by_next_delivery", ordered);

    press(&mut driver, "D").await;
    let deleted = screen(&mut driver);
    assert!(deleted.contains("Deleted subscriptions") && deleted.contains("deleted"));
    insta::assert_snapshot!("subscriptions_deleted", deleted);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filtering_at_once_then_on_the_server() {
    let server = TestServer::demo_at(seeded(), 0).await;
    let mut driver = console(&server, &["*"], (120, 30)).await;
    press(&mut driver, "3/").await;
    for c in "board pack".chars() {
        driver.press(KeyCode::Char(c));
    }
    // At once: the rows loaded that match.
    let local = screen(&mut driver);
    assert!(local.contains("/board pack"));
    // Then the server's answer for every page.
    assert!(driver.settle(SETTLE).await);
    press_code(&mut driver, KeyCode::Enter).await;
    let searched = screen(&mut driver);
    assert!(searched.contains("filter \"board pack\""));
    let count = driver.app.screens.subscriptions.rows.list.count().unwrap();
    assert!(count > 0 && count < 95);
    assert_eq!(
        driver.app.screens.subscriptions.resource.filter.search.as_deref(),
        Some("board pack")
    );
    insta::assert_snapshot!("subscriptions_filtered", searched);

    press_code(&mut driver, KeyCode::Char('/')).await;
    press_code(&mut driver, KeyCode::Esc).await;
    assert!(driver.settle(SETTLE).await);
    assert_eq!(driver.app.screens.subscriptions.rows.list.count(), Some(95));

    // Roles filter and sort locally.
    press(&mut driver, "1/a").await;
    press_code(&mut driver, KeyCode::Enter).await;
    press(&mut driver, "s").await;
    let roles = screen(&mut driver);
    assert!(roles.contains("filter \"a\"") && roles.contains("sorted by name"));
    insta::assert_snapshot!("roles_filtered_and_sorted", roles);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn help_lists_the_keys_of_the_screen() {
    let server = TestServer::demo_at(seeded(), 0).await;
    let mut driver = console(&server, &["*"], (100, 48)).await;
    press(&mut driver, "3?").await;
    let help = screen(&mut driver);
    assert!(help.contains("show or hide deleted") && help.contains("log file"));
    let log = orgdeck::config::log_path().display().to_string();
    insta::assert_snapshot!("help_subscriptions", help.replace(&log, "<log file>"));
    press(&mut driver, "x").await;
    assert!(!screen(&mut driver).contains("show or hide deleted"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_scope_is_named_and_the_console_stays_usable() {
    let server = TestServer::demo_at(seeded(), 0).await;
    let mut driver = console(&server, &["organization:read"], (100, 24)).await;
    press(&mut driver, "3").await;
    let refused = screen(&mut driver);
    assert!(refused.contains("'subscription:read'"), "{refused}");
    insta::assert_snapshot!("missing_scope", refused);
    press(&mut driver, "1j").await;
    assert_eq!(
        driver.app.screens.roles.rows.cursor, 1,
        "keys still work with the notice up"
    );
    press_code(&mut driver, KeyCode::Esc).await;
    assert!(driver.app.notice.shown.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_is_down_gives_a_clear_message() {
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = free.local_addr().unwrap();
    drop(free);
    let client = client_for(&format!("http://{address}"), "phx_nobody");
    let mut driver = Driver::new(
        client,
        Context {
            host: "down".into(),
            ..Context::default()
        },
        (80, 24),
        Theme::plain(),
    );
    driver.start();
    assert!(driver.settle(SETTLE).await);
    // The server is named, with the reason, on the list and in the footer.
    let named = format!("cannot reach http://{address}: connection refused");
    assert!(driver.screen().contains(&named), "{}", driver.screen());
    press(&mut driver, "3jk").await;
    assert!(driver.screen().contains(&named), "{}", driver.screen());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn small_and_resized_terminals_draw_sanely() {
    let server = TestServer::demo_at(seeded(), 0).await;
    let mut driver = console(&server, &["*"], (40, 10)).await;
    insta::assert_snapshot!("roles_40x10", screen(&mut driver));
    press(&mut driver, "3").await;
    insta::assert_snapshot!("subscriptions_40x10", screen(&mut driver));
    for (width, height) in [(1, 1), (0, 0), (20, 5), (300, 100), (41, 11), (80, 24)] {
        driver.send(orgdeck::console::Msg::Resize { width, height });
        assert!(driver.settle(SETTLE).await);
        let text = driver.screen();
        assert!(text.lines().count() <= height as usize);
        press(&mut driver, "jG?").await;
        press(&mut driver, "x").await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_server_never_blocks_the_keys() {
    let dir = tempfile::tempdir().unwrap();
    let running = orgdeck::server::start(orgdeck::server::ServeOptions {
        listen: "127.0.0.1:0".parse().unwrap(),
        db: dir.path().join("slow.sqlite"),
        seed: orgdeck::server::Seed::Demo,
        generate_subscriptions: 0,
        generate_members: 0,
        rate_limit: None,
        delay: Some(Duration::from_millis(800)),
        clock: orgdeck::clock::Clock::manual(seeded()),
        public_url: None,
        read_timeouts: Default::default(),
        flavor: Default::default(),
        subscription_limit: None,
        max_limit: None,
        export_cap: orgdeck::server::DEFAULT_EXPORT_CAP,
        access: Default::default(),
        keys_listed: false,
    })
    .await
    .unwrap();
    let client = client_for(&running.ready.base_url, running.ready.api_key.as_deref().unwrap());
    let context = Context {
        host: "slow".into(),
        organization: "@current".into(),
        project: "@current".into(),
        ..Context::default()
    };
    let mut driver = Driver::new(client, context, (100, 24), Theme::plain());
    driver.start();
    // Keys are handled at once while the answers are on their way.
    let started = std::time::Instant::now();
    driver.press(KeyCode::Char('3'));
    driver.press(KeyCode::Char('?'));
    driver.press(KeyCode::Char('x'));
    driver.press(KeyCode::Char('1'));
    assert!(started.elapsed() < Duration::from_millis(100));
    assert!(driver.app.requests.in_flight > 0);
    assert!(driver.screen().contains("loading…"));
    driver.send(orgdeck::console::Msg::Tick);
    assert!(driver.settle(SETTLE).await);
    assert!(driver.screen().contains("Engineering"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_key_says_what_to_check() {
    let server = TestServer::demo_at(seeded(), 0).await;
    let client = client_for(&server.base, "phx_not_a_key");
    let mut driver = Driver::new(
        client,
        Context {
            host: "refusing".into(),
            organization: "@current".into(),
            project: "@current".into(),
            ..Context::default()
        },
        (100, 24),
        Theme::plain(),
    );
    driver.start();
    assert!(driver.settle(SETTLE).await);
    let text = driver.app.notice.shown.clone().unwrap().text;
    assert!(
        text.contains("401 authentication_failed") && text.contains("check the API key"),
        "{text}"
    );
    assert!(!text.contains("phx_not_a_key"));
    press(&mut driver, "3").await;
    assert!(driver.screen().contains("could not load"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_key_never_shows_on_any_screen() {
    let server = TestServer::demo_at(seeded(), 0).await;
    let key = server.key(&["*"]);
    let client = client_for(&server.base, &key);
    let context = Context {
        host: "reference server".into(),
        organization: "@current".into(),
        project: "@current".into(),
        ..Context::default()
    };
    let mut driver = Driver::new(client, context, (160, 45), Theme::plain());
    driver.start();
    assert!(driver.settle(SETTLE).await);
    let mut screens = vec![driver.screen()];
    for keys in ["v", "v", "?", "x", "2", "3", "v", "Y", "D", "/x"] {
        press(&mut driver, keys).await;
        screens.push(driver.screen());
    }
    assert!(!format!("{:?}", driver.app.context).contains(&key[4..]));
    for screen in screens {
        assert!(!screen.contains(&key[4..]), "the key showed:\n{screen}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn project_and_organization_pickers_switch_without_an_argument() {
    let server = TestServer::demo_at(seeded(), 0).await;
    let mut driver = console(&server, &["*"], (120, 30)).await;
    press(&mut driver, "3").await;
    assert!(screen(&mut driver).contains("Hedgebox Web"));

    press(&mut driver, ":project").await;
    press_code(&mut driver, KeyCode::Enter).await;
    let picker = screen(&mut driver);
    assert!(picker.contains("Switch project"), "{picker}");
    assert!(
        picker.contains("● Hedgebox Web  (1)"),
        "the one in use is marked: {picker}"
    );
    assert!(picker.contains("Hedgebox Mobile  (2)"), "{picker}");
    insta::assert_snapshot!("project_picker", picker);

    // Searching narrows the list; Enter switches and the header follows.
    press(&mut driver, "mob").await;
    let narrowed = screen(&mut driver);
    assert!(!narrowed.contains("Hedgebox Web  (1)"), "{narrowed}");
    press_code(&mut driver, KeyCode::Enter).await;
    let switched = screen(&mut driver);
    assert!(!switched.contains("Switch project"), "{switched}");
    assert!(switched.contains("Hedgebox Mobile"), "{switched}");
    assert_eq!(driver.app.context.project, "2");

    // The organization picker lists what the key reaches; Esc leaves all as it was.
    press(&mut driver, ":org").await;
    press_code(&mut driver, KeyCode::Enter).await;
    let organizations = screen(&mut driver);
    assert!(organizations.contains("Switch organization"), "{organizations}");
    assert!(organizations.contains("● Hedgebox Inc."), "{organizations}");
    press_code(&mut driver, KeyCode::Esc).await;
    assert!(!screen(&mut driver).contains("Switch organization"));
    assert_eq!(driver.app.context.organization, server.organization);
}

/// Names written to attack a terminal, through the real reference server:
/// the table, the detail and the JSON view show them escaped, and the screen
/// holds no control or bidi character.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_names_are_shown_escaped_on_every_screen() {
    use crate::support::hostile::HOSTILE_NAMES;
    let server = TestServer::demo_at(seeded(), 0).await;
    let key = server.key(&["*"]);
    for name in HOSTILE_NAMES {
        let reply = server
            .post(&key, &server.roles_path(), serde_json::json!({ "name": name }))
            .await;
        reply.expect(reqwest::StatusCode::CREATED);
    }
    let mut driver = console(&server, &["*"], (160, 45)).await;
    let mut screens = vec![screen(&mut driver)];
    press(&mut driver, "G").await;
    screens.push(screen(&mut driver));
    for _ in 0..HOSTILE_NAMES.len() {
        press(&mut driver, "k").await;
        screens.push(screen(&mut driver));
        press(&mut driver, "v").await;
        screens.push(screen(&mut driver));
        press(&mut driver, "v").await;
    }
    // Y copies each row's JSON: the same value, with nothing raw that a
    // terminal or a reader would act on or miss.
    press(&mut driver, "G").await;
    let mut copied = Vec::new();
    for _ in 0..HOSTILE_NAMES.len() {
        let copies = driver.press(KeyCode::Char('Y'));
        assert_eq!(copies.len(), 1);
        for copy in copies {
            let raw: Vec<char> = copy
                .chars()
                .filter(|&c| c != '\n' && orgdeck::text::is_unsafe(c))
                .collect();
            assert!(raw.is_empty(), "{raw:?} in the copy {copy}");
            let value: serde_json::Value = serde_json::from_str(&copy).unwrap();
            copied.push(value["name"].as_str().unwrap().to_string());
        }
        press(&mut driver, "k").await;
    }
    for name in HOSTILE_NAMES {
        assert!(
            copied.iter().any(|copy| copy == name),
            "{name:?} not among {copied:?}"
        );
    }
    let all = screens.join("\n");
    assert!(all.contains("Ad\\u{200b}min\\u{feff}\\u{e0041}"), "{all}");
    assert!(all.contains("x\\u{1b}]0;pwned\\u{7}"), "{all}");
    assert!(all.contains("abc\\u{202e}fed"), "{all}");
    assert!(all.contains("one\\nid: fake\\rtwo"), "{all}");
    for screen in &screens {
        let bad: Vec<char> = screen
            .chars()
            .filter(|&c| c != '\n' && orgdeck::text::is_unsafe(c))
            .collect();
        assert!(bad.is_empty(), "{bad:?} on the screen:\n{screen}");
    }
}
