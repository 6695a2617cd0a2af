//! `orgdeck login` from a pipe: host, key, organization and project are
//! answered one line each, as a script would.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::cli::Run;
use crate::profiles::with_config_and_input;
use crate::support::TestServer;

/// Runs the binary with the config file alone; the log is added to stderr,
/// so that a search for the key covers it too.
async fn orgdeck(config: &Path, args: &[&str], stdin: &str) -> Run {
    let (mut run, log) = with_config_and_input(config, args, &[], stdin).await;
    run.stderr.push_str(&log);
    run
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_checks_the_key_picks_and_writes_an_owner_only_profile() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("orgdeck").join("config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, "# kept as written\n[keys]\nquit = \"ctrl-q\"\n").unwrap();
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o644)).unwrap();

    // A wrong key is refused and the file is left alone.
    let wrong = orgdeck(
        &config,
        &["login", "--profile", "work"],
        &format!("{}\nphx_not_a_real_key\n", server.base),
    )
    .await;
    assert_ne!(wrong.code, 0, "{}", wrong.stderr);
    assert!(
        wrong.stderr.contains("the key was not accepted"),
        "{}",
        wrong.stderr
    );
    assert!(!std::fs::read_to_string(&config).unwrap().contains("[profiles"));

    // The host by flag; the key, then the second project by its id, after a
    // number that is not in the list.
    let run = orgdeck(
        &config,
        &["login", "--profile", "work", "--host", &server.base],
        &format!("{key}\n7\n2\n"),
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("is neither a number"), "{}", run.stderr);
    assert!(run.stderr.contains("Profile \"work\" written"), "{}", run.stderr);
    for output in [&run.stdout, &run.stderr] {
        assert!(!output.contains(&key), "the key never shows: {output}");
    }

    let mode = std::fs::metadata(&config).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "the file is its owner's alone");
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(
        text.contains("# kept as written") && text.contains("quit = \"ctrl-q\""),
        "{text}"
    );
    let written: toml::Table = toml::from_str(&text).unwrap();
    assert_eq!(written["default_profile"].as_str(), Some("work"));
    let profile = written["profiles"]["work"].as_table().unwrap();
    assert_eq!(profile["host"].as_str(), Some(server.base.as_str()));
    assert_eq!(profile["project"].as_str(), Some("2"));
    assert_eq!(profile["api_key"].as_str(), Some(key.as_str()));
    let organization = profile["organization"].as_str().unwrap().to_string();

    // The profile works as written: no flags, no environment.
    let projects = orgdeck(&config, &["subscriptions", "list", "-o", "json"], "").await;
    assert_eq!(projects.code, 0, "{}", projects.stderr);
    let roles = orgdeck(&config, &["roles", "list", "-o", "json"], "").await;
    assert_eq!(roles.code, 0, "{}", roles.stderr);
    let roles: serde_json::Value = serde_json::from_str(&roles.stdout).unwrap();
    assert_eq!(roles.as_array().unwrap().len(), 8);
    assert!(!organization.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_asks_before_replacing_a_profile_and_writes_through_a_link() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("dotfiles").join("orgdeck.toml");
    std::fs::create_dir_all(real.parent().unwrap()).unwrap();
    std::fs::write(
        &real,
        "default_profile = \"work\"\n\n[profiles.work]\n# the staging box\nhost = \"https://old.example\"\napi_key_env = \"WORK_KEY\"\n",
    )
    .unwrap();
    let config = dir.path().join("config.toml");
    std::os::unix::fs::symlink(&real, &config).unwrap();
    let args = ["login", "--profile", "work", "--host", server.base.as_str()];

    let kept = orgdeck(&config, &args, &format!("n\n{key}\n")).await;
    assert_eq!(kept.code, 1, "{}", kept.stderr);
    assert!(
        kept.stderr.contains("already has a profile \"work\"")
            && kept.stderr.contains("key from an environment variable"),
        "{}",
        kept.stderr
    );
    assert!(std::fs::read_to_string(&real).unwrap().contains("old.example"));

    let replaced = orgdeck(&config, &args, &format!("y\n{key}\n1\n")).await;
    assert_eq!(replaced.code, 0, "{}", replaced.stderr);
    assert!(
        std::fs::symlink_metadata(&config)
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link stays a link"
    );
    let text = std::fs::read_to_string(&real).unwrap();
    assert!(text.contains("# the staging box"), "comments stay: {text}");
    let written: toml::Table = toml::from_str(&text).unwrap();
    let profile = written["profiles"]["work"].as_table().unwrap();
    assert_eq!(profile["host"].as_str(), Some(server.base.as_str()));
    assert!(
        !profile.contains_key("api_key_env"),
        "the typed key replaces the old source: {text}"
    );
    assert_eq!(profile["api_key"].as_str(), Some(key.as_str()));
    let mode = std::fs::metadata(&real).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);

    // Scripts say --replace; a dangling link is written where it points.
    let dangling = dir.path().join("fresh.toml");
    let fresh = dir.path().join("dotfiles").join("fresh").join("orgdeck.toml");
    std::os::unix::fs::symlink(&fresh, &dangling).unwrap();
    let scripted = orgdeck(
        &dangling,
        &[&args[..], &["--replace"]].concat(),
        &format!("{key}\n1\n"),
    )
    .await;
    assert_eq!(scripted.code, 0, "{}", scripted.stderr);
    assert!(
        std::fs::symlink_metadata(&dangling)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(
        std::fs::read_to_string(&fresh)
            .unwrap()
            .contains("[profiles.work]")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_that_may_not_list_organizations_or_projects_still_logs_in() {
    let server = TestServer::demo().await;
    let key = server.key(&["subscription:read"]);
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    let run = orgdeck(
        &config,
        &["login", "--host", &server.base],
        &format!("{key}\n\n\n"),
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("may not list organizations"),
        "{}",
        run.stderr
    );
    let written: toml::Table = toml::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
    let profile = written["profiles"]["default"].as_table().unwrap();
    assert_eq!(profile["organization"].as_str(), Some("@current"));
    assert_eq!(profile["project"].as_str(), Some("@current"));
    let subscriptions = orgdeck(&config, &["subs", "list", "-o", "json"], "").await;
    assert_eq!(subscriptions.code, 0, "{}", subscriptions.stderr);

    // --org and --project are taken as given.
    let flags = orgdeck(
        &config,
        &[
            "login",
            "--profile",
            "flags",
            "--host",
            &server.base,
            "--org",
            "@current",
            "--project",
            "2",
        ],
        &format!("{key}\n"),
    )
    .await;
    assert_eq!(flags.code, 0, "{}", flags.stderr);
    let written: toml::Table = toml::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
    assert_eq!(written["profiles"]["flags"]["project"].as_str(), Some("2"));
}
