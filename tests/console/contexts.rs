//! `:ctx`: switching between the config file's profiles without a restart,
//! each with its own host and key, against two real reference servers.

use std::path::{Path, PathBuf};
use std::time::Duration;

use orgdeck::console::kit::theme::Theme;
use orgdeck::console::{Context, Driver, Origin};
use ratatui::crossterm::event::KeyCode;
use serde_json::json;

use crate::support::{TestServer, client_for};

const SETTLE: Duration = Duration::from_secs(10);

/// Two servers with a role only the second has, and a config file naming
/// them: `a` (key in the owner-only file), `b` (key from a command), and
/// three that cannot be opened.
struct Setup {
    a: TestServer,
    b: TestServer,
    key_a: String,
    key_b: String,
    config: PathBuf,
    _dir: tempfile::TempDir,
}

async fn setup() -> Setup {
    let a = TestServer::demo().await;
    let b = TestServer::demo().await;
    let key_a = a.key(&["*"]);
    let key_b = b.key(&["*"]);
    b.post(&key_b, &b.roles_path(), json!({"name": "Only on B"}))
        .await
        .expect(reqwest::StatusCode::CREATED);
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    let text = format!(
        r#"default_profile = "a"

[profiles.a]
host = "{a_host}"
organization = "{a_org}"
project = "{a_project}"
api_key = "{key_a}"

[profiles.b]
host = "{b_host}"
api_key_command = "printf %s {key_b}"

[profiles.cleartext]
host = "http://example.com"
api_key_command = "printf %s phx_never_sent"

[profiles.wrongkey]
host = "{b_host}"
api_key_command = "printf %s phx_not_a_key_anyone_has"

[profiles.unset]
host = "{b_host}"
api_key_env = "ORGDECK_TEST_VARIABLE_NOBODY_SETS"
"#,
        a_host = a.base,
        a_org = a.organization,
        a_project = a.project,
        b_host = b.base,
    );
    std::fs::write(&config, text).unwrap();
    owner_only(&config);
    Setup {
        a,
        b,
        key_a,
        key_b,
        config,
        _dir: dir,
    }
}

fn owner_only(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).unwrap();
}

async fn console(setup: &Setup, profile: Option<&str>) -> Driver {
    console_from(setup, profile, Origin::Plain).await
}

async fn console_from(setup: &Setup, profile: Option<&str>, origin: Origin) -> Driver {
    let client = client_for(&setup.a.base, &setup.key_a);
    let context = Context {
        profile: profile.map(str::to_string),
        origin,
        host: setup.a.base.clone(),
        organization: setup.a.organization.clone(),
        project: setup.a.project.to_string(),
        ..Context::default()
    };
    let mut driver = Driver::new(client, context, (140, 30), Theme::plain());
    driver.use_config_file(&setup.config);
    driver.start();
    assert!(driver.settle(SETTLE).await);
    driver
}

async fn keys(driver: &mut Driver, text: &str) {
    driver.type_text(text);
    assert!(driver.settle(SETTLE).await);
}

async fn key(driver: &mut Driver, code: KeyCode) {
    driver.press(code);
    assert!(driver.settle(SETTLE).await);
}

async fn command(driver: &mut Driver, line: &str) -> String {
    keys(driver, &format!(":{line}")).await;
    key(driver, KeyCode::Enter).await;
    driver.screen()
}

fn header(screen: &str) -> &str {
    screen.lines().next().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctx_switches_profiles_host_and_key_without_a_restart() {
    let setup = setup().await;
    let mut driver = console(&setup, Some("a")).await;
    let mut screens = vec![driver.screen()];
    assert!(header(&screens[0]).contains("profile a"), "{}", screens[0]);
    assert!(!screens[0].contains("Only on B"));

    let picker = command(&mut driver, "ctx").await;
    screens.push(picker.clone());
    assert!(picker.contains("Switch profile"), "{picker}");
    assert!(picker.contains("● a  "), "the profile in use is marked: {picker}");
    for name in ["b  ", "cleartext  ", "unset  ", "wrongkey  "] {
        assert!(picker.contains(name), "{name}: {picker}");
    }
    assert!(picker.contains("● a  default · http"), "{picker}");
    assert!(
        !picker.contains("(as started)"),
        "the console started on a profile: {picker}"
    );

    // The cursor starts on `a`; the next one is `b`.
    key(&mut driver, KeyCode::Down).await;
    key(&mut driver, KeyCode::Enter).await;
    let on_b = driver.screen();
    screens.push(on_b.clone());
    assert!(header(&on_b).contains("profile b"), "{on_b}");
    assert!(header(&on_b).contains(&setup.b.base), "{on_b}");
    assert!(
        header(&on_b).contains("org Hedgebox Inc.  project Hedgebox Web"),
        "@current was named by the server: {on_b}"
    );
    assert!(on_b.contains("Only on B"), "B's roles, read with B's key: {on_b}");
    assert!(on_b.contains("switched to profile b"), "{on_b}");
    keys(&mut driver, "3").await;
    let subscriptions = driver.screen();
    screens.push(subscriptions.clone());
    assert!(subscriptions.contains("Hedgebox Web"), "{subscriptions}");

    // Profiles that cannot be opened say why and change nothing.
    let refused = command(&mut driver, "ctx cleartext").await;
    screens.push(refused.clone());
    assert!(refused.contains("plain http"), "{refused}");
    assert!(header(&refused).contains("profile b"), "{refused}");
    let unset = command(&mut driver, "ctx unset").await;
    screens.push(unset.clone());
    assert!(unset.contains("ORGDECK_TEST_VARIABLE_NOBODY_SETS"), "{unset}");
    let wrong = command(&mut driver, "ctx wrongkey").await;
    screens.push(wrong.clone());
    assert!(
        wrong.contains("401"),
        "a key the host refuses is caught first: {wrong}"
    );
    assert!(
        header(&wrong).contains("profile b") && wrong.contains("Subscriptions 1/95"),
        "and the screen stays: {wrong}"
    );
    let unknown = command(&mut driver, "ctx nosuch").await;
    screens.push(unknown.clone());
    assert!(unknown.contains("no profile \"nosuch\""), "{unknown}");
    assert!(header(&unknown).contains("profile b"), "{unknown}");

    // A write goes to the profile in use.
    keys(&mut driver, "1").await;
    keys(&mut driver, "n").await;
    keys(&mut driver, "Made through b").await;
    key(&mut driver, KeyCode::Enter).await;
    let names = |roles: Vec<serde_json::Value>| -> Vec<String> {
        roles
            .iter()
            .map(|role| role["name"].as_str().unwrap().to_string())
            .collect()
    };
    let on_b_server = names(setup.b.all(&setup.key_b, &setup.b.roles_path()).await);
    let on_a_server = names(setup.a.all(&setup.key_a, &setup.a.roles_path()).await);
    assert!(
        on_b_server.contains(&"Made through b".to_string()),
        "{on_b_server:?}"
    );
    assert!(!on_a_server.contains(&"Made through b".to_string()));

    let back = command(&mut driver, "ctx a").await;
    screens.push(back.clone());
    assert!(header(&back).contains("profile a"), "{back}");
    assert!(
        !back.contains("Only on B") && !back.contains("Made through b"),
        "{back}"
    );

    for screen in &screens {
        for secret in [&setup.key_a, &setup.key_b] {
            assert!(!screen.contains(&secret[4..]), "a key showed:\n{screen}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctx_goes_back_to_where_the_console_started() {
    let setup = setup().await;
    let mut driver = console(&setup, None).await;
    assert!(header(&driver.screen()).contains("no profile"));
    command(&mut driver, "ctx b").await;
    assert!(driver.screen().contains("Only on B"));

    let picker = command(&mut driver, "ctx").await;
    assert!(
        picker.contains("(as started)  flags and environment"),
        "where the console started is offered first: {picker}"
    );
    assert!(picker.contains("● b  "), "{picker}");
    key(&mut driver, KeyCode::Up).await;
    key(&mut driver, KeyCode::Up).await;
    key(&mut driver, KeyCode::Enter).await;
    let back = driver.screen();
    assert!(header(&back).contains("no profile"), "{back}");
    assert!(!back.contains("Only on B"), "{back}");
    assert!(back.contains("Hedgebox Inc."), "{back}");

    // Without a config file the list still offers where it started, and says why it is short.
    driver.use_config_file(Path::new("/nonexistent/orgdeck/config.toml"));
    let lonely = command(&mut driver, "ctx").await;
    assert!(lonely.contains("● (as started)"), "{lonely}");
    assert!(lonely.contains("no config file at /nonexistent"), "{lonely}");
    assert!(lonely.contains("writes one"), "{lonely}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_profile_changed_by_flags_is_offered_as_started_and_as_the_file_has_it() {
    let setup = setup().await;
    let mut driver = console_from(&setup, Some("a"), Origin::Adjusted).await;
    assert!(header(&driver.screen()).contains("profile a + flags/env"));
    let picker = command(&mut driver, "ctx").await;
    assert!(
        picker.contains("● (as started)  profile a with flags and environment"),
        "{picker}"
    );
    assert!(picker.contains("  a  default · http"), "{picker}");
    key(&mut driver, KeyCode::Down).await;
    key(&mut driver, KeyCode::Enter).await;
    let plain = driver.screen();
    assert!(header(&plain).contains("profile a  org"), "{plain}");
    assert!(plain.contains("switched to profile a"), "{plain}");
}
