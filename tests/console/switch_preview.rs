//! `:switch-preview` (issue 32 req 3, console half) against the reference
//! server's demo: it lists what `orgdeck access switch-preview -o json`
//! lists, in the same words; the read counts its projects; Esc stops the
//! read mid-way and nothing read
//! in part is shown; Enter on a line opens the access edit's chooser with
//! the fix's rule and level.

use orgdeck::console::kit::theme::Theme;
use orgdeck::console::screens::ScreenId;
use orgdeck::console::shell::Mode;
use orgdeck::console::{Context, Driver};
use ratatui::crossterm::event::KeyCode;

use crate::drive::{SETTLE, command, console, keys};
use crate::support::proxy::{Fault, FaultProxy};
use crate::support::{OWNER, TestServer, client_for};

/// What the CLI's `access switch-preview -o json` says of the server.
async fn cli_preview(server: &TestServer, key: &str) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_orgdeck"))
        .args(["access", "switch-preview", "-o", "json"])
        .env("ORGDECK_HOST", &server.base)
        .env("ORGDECK_API_KEY", key)
        .env("ORGDECK_LOG", "/dev/null")
        .env("ORGDECK_CONFIG", dir.path().join("no-config.toml"))
        .env("ORGDECK_STATE_DIR", dir.path())
        .output()
        .await
        .unwrap();
    // Exit 2: something changes.
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    serde_json::from_slice(&output.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_switch_preview_lists_what_the_cli_lists_and_enter_offers_the_fix() {
    let server = TestServer::demo().await;
    let key = server.key_for(OWNER, &["*"]);
    let cli = cli_preview(&server, &key).await;
    let mut driver = console(&server, &key, (200, 40)).await;
    command(&mut driver, "switch-preview").await;
    assert_eq!(driver.app.shown(), ScreenId::Switch);
    let preview = &driver.app.screens.switch;
    assert!(!preview.reading);
    let found = preview.found.as_ref().expect("the switch was read");
    let lines = cli["lines"].as_array().unwrap();
    assert!(!lines.is_empty());
    assert_eq!(found.switch.lines.len(), lines.len());
    assert_eq!(found.switch.people as u64, cli["people"].as_u64().unwrap());
    for (shown, said) in found.switch.lines.iter().zip(lines) {
        assert_eq!(shown.email, said["email"].as_str().unwrap());
        assert_eq!(shown.fix, said["fix"].as_str().unwrap());
    }
    let screen = driver.screen();
    assert!(
        screen.contains("Hedgebox Inc. resolves access highest-wins"),
        "{screen}"
    );
    assert!(
        screen.contains("Ivan Petrov <ivan.petrov@hedgebox.dev>: project admin → member in Hedgebox Web (1)"),
        "{screen}"
    );

    // `/` narrows the lines.
    keys(&mut driver, &[KeyCode::Char('/')]).await;
    driver.type_text("mateo");
    keys(&mut driver, &[KeyCode::Enter]).await;
    let preview = &driver.app.screens.switch;
    assert_eq!(orgdeck::console::kit::page::PageLines::len(&preview.lines), 1);
    let mateo = preview.lines.selected().unwrap().clone();
    assert!(
        mateo.what.contains("member → none in Hedgebox Mobile (2)"),
        "{mateo:?}"
    );

    // Enter: his fix as an edit, his own rule, today's level chosen.
    keys(&mut driver, &[KeyCode::Enter]).await;
    let Mode::Chooser(chooser, _) = &driver.app.mode else {
        panic!("no chooser: {}", driver.screen());
    };
    assert!(
        chooser
            .intro
            .starts_with("Mateo García's rule on the project in Hedgebox Mobile (2): none"),
        "{}",
        chooser.intro
    );
    assert_eq!(chooser.choices[chooser.cursor].id, "member");
    assert_eq!(chooser.choices[0].note, "now");
    keys(&mut driver, &[KeyCode::Esc]).await;
    assert!(matches!(driver.app.mode, Mode::Normal));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn esc_stops_the_read_and_nothing_read_in_part_is_shown() {
    let server = TestServer::demo().await;
    let key = server.key_for(OWNER, &["*"]);
    let proxy = FaultProxy::start(&server.base).await;
    let holding = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let held = holding.clone();
    proxy.always(
        move |line| {
            held.load(std::sync::atomic::Ordering::SeqCst) && line.contains("resource_access_controls")
        },
        Fault::Hold,
    );
    let context = Context {
        host: "reference server".into(),
        organization: server.organization.clone(),
        project: server.project.to_string(),
        ..Context::default()
    };
    let mut driver = Driver::new(client_for(&proxy.base, &key), context, (150, 40), Theme::plain());
    driver.start();
    assert!(driver.settle(SETTLE).await);
    driver.press(KeyCode::Char(':'));
    driver.type_text("switch-preview");
    driver.press(KeyCode::Enter);
    tokio::select! {
        () = proxy.until_held(1) => {}
        _ = driver.settle(SETTLE) => panic!("the rules were never asked for"),
    }
    let _ = driver.settle(std::time::Duration::from_millis(200)).await;
    assert!(driver.app.screens.switch.reading);
    let screen = driver.screen();
    assert!(screen.contains("rules: 0 of 2 projects · Esc stops"), "{screen}");
    assert_eq!(driver.app.screens.switch.progress, Some((0, 2)));

    keys(&mut driver, &[KeyCode::Esc]).await;
    let preview = &driver.app.screens.switch;
    assert!(!preview.reading && preview.stopped);
    assert_eq!(driver.app.shown(), ScreenId::Switch, "Esc stopped, not left");
    proxy.release();
    assert!(driver.settle(SETTLE).await);
    let preview = &driver.app.screens.switch;
    assert!(preview.found.is_none());
    assert!(preview.lines.selected().is_none());

    // `r` reads again, whole.
    holding.store(false, std::sync::atomic::Ordering::SeqCst);
    keys(&mut driver, &[KeyCode::Char('r')]).await;
    assert!(driver.app.screens.switch.found.is_some());
}
