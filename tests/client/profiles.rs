//! The binary run with a config file and nothing else: profiles, key
//! sources, PostHog CLI credentials, and a known key searched for in every
//! output and log.

use std::process::Stdio;

use tokio::io::AsyncWriteExt;

use crate::cli::Run;
use crate::support::TestServer;

/// Runs the binary with only a config file to go by.
async fn with_config(config: &std::path::Path, args: &[&str], extra: &[(&str, &str)]) -> Run {
    with_config_and_input(config, args, extra, "").await.0
}

/// The same, with `stdin` on its standard input; also returns the log file.
pub(crate) async fn with_config_and_input(
    config: &std::path::Path,
    args: &[&str],
    extra: &[(&str, &str)],
    stdin: &str,
) -> (Run, String) {
    let dir = tempfile::tempdir().unwrap();
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_orgdeck"));
    command
        .args(args)
        .env("ORGDECK_CONFIG", config)
        .env("ORGDECK_LOG", dir.path().join("log"))
        .env("HOME", dir.path())
        .env_remove("POSTHOG_CLI_API_KEY")
        .env_remove("POSTHOG_CLI_TOKEN")
        .env_remove("POSTHOG_CLI_HOST")
        .env_remove("ORGDECK_API_KEY")
        .env_remove("ORGDECK_HOST")
        .env_remove("ORGDECK_PROFILE")
        .env_remove("ORGDECK_ORG")
        .env_remove("ORGDECK_PROJECT");
    for (name, value) in extra {
        command.env(name, value);
    }
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.as_bytes()).await.unwrap();
    drop(input);
    let output = child.wait_with_output().await.unwrap();
    let log = std::fs::read_to_string(dir.path().join("log")).unwrap_or_default();
    let run = Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    };
    (run, log)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn profiles_give_the_host_and_the_key() {
    use std::os::unix::fs::PermissionsExt;
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    let write = |text: String, mode: u32| {
        std::fs::write(&config, text).unwrap();
        std::fs::set_permissions(&config, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    let profiles = format!(
        "default_profile = \"inline\"\n\
         [profiles.inline]\nhost = \"{base}\"\napi_key = \"{key}\"\n\
         [profiles.command]\nhost = \"{base}\"\napi_key_command = \"printf {key}\"\n\
         [profiles.variable]\nhost = \"{base}\"\napi_key_env = \"MY_POSTHOG_KEY\"\n\
         [profiles.remote]\nhost = \"http://posthog.example.invalid\"\napi_key_env = \"MY_POSTHOG_KEY\"\n",
        base = server.base
    );
    write(profiles.clone(), 0o600);
    let listed = with_config(&config, &["roles", "list", "-o", "json"], &[])
        .await
        .ok()
        .json();
    assert_eq!(
        listed.as_array().unwrap().len(),
        8,
        "the default profile's host and key"
    );
    let by_command = with_config(
        &config,
        &["roles", "list", "-o", "json", "--profile", "command"],
        &[],
    )
    .await
    .ok()
    .json();
    assert_eq!(by_command.as_array().unwrap().len(), 8);
    let by_variable = with_config(
        &config,
        &["roles", "list"],
        &[("ORGDECK_PROFILE", "variable"), ("MY_POSTHOG_KEY", &key)],
    )
    .await;
    by_variable.ok();
    let unset = with_config(&config, &["roles", "list", "--profile", "variable"], &[])
        .await
        .fails(2);
    assert!(
        unset.stderr.contains("$MY_POSTHOG_KEY, which is not set"),
        "{}",
        unset.stderr
    );
    let unknown = with_config(&config, &["roles", "list", "--profile", "nope"], &[])
        .await
        .fails(2);
    assert!(
        unknown.stderr.contains("no profile \"nope\""),
        "{}",
        unknown.stderr
    );

    // Plain http to another machine is refused before anything is sent.
    let remote = with_config(
        &config,
        &["roles", "list", "--profile", "remote"],
        &[("MY_POSTHOG_KEY", &key)],
    )
    .await
    .fails(2);
    assert!(
        remote.stderr.contains("plain http") && remote.stderr.contains("--allow-http"),
        "{}",
        remote.stderr
    );

    // A key in a file others can read is refused, and the fix named.
    write(profiles, 0o644);
    let open = with_config(&config, &["roles", "list"], &[]).await.fails(2);
    assert!(open.stderr.contains("chmod 600"), "{}", open.stderr);
    for run in [&open, &unset, &unknown, &remote] {
        assert!(
            !run.stderr.contains(&key) && !run.stdout.contains(&key),
            "the key never shows"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_profile_the_posthog_cli_credentials_are_used() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let dir = tempfile::tempdir().unwrap();
    let none = dir.path().join("no-config.toml");
    let from_env = with_config(
        &none,
        &["subs", "list", "-o", "json"],
        &[
            ("POSTHOG_CLI_TOKEN", &key),
            ("POSTHOG_CLI_HOST", &server.base),
            ("POSTHOG_CLI_ENV_ID", "2"),
        ],
    )
    .await
    .says_posthog_cli("$POSTHOG_CLI_TOKEN")
    .json();
    let second_project = server
        .get(&key, "/api/projects/2/subscriptions/?limit=1")
        .await
        .json["count"]
        .as_u64()
        .unwrap();
    assert_eq!(
        from_env.as_array().unwrap().len() as u64,
        second_project,
        "the project comes from POSTHOG_CLI_ENV_ID"
    );
    let with_issue_names = with_config(
        &none,
        &["roles", "list"],
        &[("POSTHOG_CLI_API_KEY", &key), ("POSTHOG_CLI_HOST", &server.base)],
    )
    .await;
    with_issue_names.says_posthog_cli("$POSTHOG_CLI_API_KEY");
}

impl Run {
    /// Succeeded, saying on stderr (one line) whose credentials it used.
    #[track_caller]
    fn says_posthog_cli(self, source: &str) -> Self {
        assert_eq!(self.code, 0, "stderr: {}", self.stderr);
        assert_eq!(
            self.stderr.trim(),
            format!("orgdeck: no profile; using the credentials of PostHog's CLI from {source}")
        );
        self
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_key_never_appears_in_output_errors_or_the_log() {
    use std::os::unix::fs::PermissionsExt;
    let server = TestServer::demo().await;
    let key = server.key(&["organization:read", "subscription:read"]);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("orgdeck.log");
    std::fs::write(&log, "").unwrap();
    std::fs::set_permissions(&log, std::fs::Permissions::from_mode(0o644)).unwrap();
    let mut seen = String::new();
    for args in [
        vec!["roles", "list"],
        vec!["subs", "list", "-o", "json", "--search", "board"],
        vec!["roles", "create", "--name", "Nope"],
        vec!["subs", "get", "999999"],
        vec!["roles", "list", "--org", "nope"],
        vec!["roles", "list", "--host", "http://127.0.0.1:9", "--timeout", "1"],
        // A password in the host's address is never shown either.
        vec![
            "roles",
            "list",
            "--host",
            "http://admin:hunter2pass@example.com:8000",
        ],
        vec![
            "roles",
            "list",
            "--host",
            "http://admin:hunter2pass@127.0.0.1:9",
            "--timeout",
            "1",
        ],
        vec!["roles", "list", "--host", "http://admin:hunter2pass@[::1"],
    ] {
        let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_orgdeck"))
            .args(&args)
            .env("ORGDECK_HOST", &server.base)
            .env("ORGDECK_API_KEY", &key)
            .env("ORGDECK_LOG", &log)
            .env("ORGDECK_LOG_LEVEL", "trace")
            .env("ORGDECK_CONFIG", dir.path().join("none.toml"))
            .output()
            .await
            .unwrap();
        seen.push_str(&String::from_utf8_lossy(&output.stdout));
        seen.push_str(&String::from_utf8_lossy(&output.stderr));
    }
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(logged.len() > 1000, "the log holds the requests at trace level");
    let secret = &key[4..];
    assert!(!seen.contains(secret), "the key showed in output");
    assert!(
        !seen.contains("hunter2pass"),
        "a password in the host showed: {seen}"
    );
    assert!(
        !logged.contains("hunter2pass"),
        "a password in the host reached the log"
    );
    assert!(seen.contains("http://admin:***@example.com:8000"), "{seen}");
    assert!(!logged.contains(secret), "the key reached the log");
    let mode = std::fs::metadata(&log).unwrap().permissions().mode();
    assert_eq!(mode & 0o077, 0, "the log is readable by its owner alone");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_profiles_and_no_default_ask_which() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        "[profiles.a]\napi_key_env = \"A\"\n[profiles.b]\napi_key_env = \"B\"\n",
    )
    .unwrap();
    let run = with_config(&config, &["roles", "list"], &[]).await.fails(2);
    assert!(
        run.stderr.contains("has profiles a, b but no default_profile")
            && run.stderr.contains("--profile NAME"),
        "{}",
        run.stderr
    );
}

/// A host written without its scheme, as `serve` names its address, and a
/// command line with no key at all (issue #12, defect 11).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_local_host_without_a_scheme_works_and_no_key_points_to_login() {
    let server = TestServer::demo().await;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("none.toml");
    let bare = server.base.trim_start_matches("http://").to_string();
    let key = server.key(&["*"]);
    let run = with_config(
        &config,
        &["roles", "list", "-o", "json"],
        &[("ORGDECK_HOST", &bare), ("ORGDECK_API_KEY", &key)],
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json().as_array().map(Vec::len), Some(8));

    let run = with_config(&config, &["roles", "list"], &[("ORGDECK_HOST", &bare)]).await;
    assert_ne!(run.code, 0);
    assert!(run.stderr.contains("orgdeck login"), "{}", run.stderr);
}
