//! The real binary's CLI and the console against servers that attack:
//! endless and huge bodies, a lying count, looping links, escapes in error
//! bodies, an absurd wait, a redirect to another host, and hostile text in
//! every field. Each run must end in bounded time and memory, with a clear
//! error, and write no control or bidi character to the terminal.
//! The same hostile text also goes through the real reference server.

use std::process::Stdio;
use std::time::{Duration, Instant};

use orgdeck::console::kit::theme::Theme;
use orgdeck::console::{Context, Driver};
use orgdeck::text::is_unsafe;
use serde_json::json;

use crate::support::hostile::{Attack, HOSTILE_NAMES, HostileServer};
use crate::support::{DEMO_INSIGHT, DEMO_SLACK, TestServer};

/// What a run of the binary left behind.
pub struct Outcome {
    /// The exit status, or 128 + the signal that ended it.
    pub code: i32,
    pub stdout: Vec<u8>,
    pub stderr: String,
    pub elapsed: Duration,
    /// The largest resident set the process reached, in MiB, as the kernel
    /// reports it when the process is reaped.
    pub peak_mib: u64,
}

/// The binary under test: this build's, or another named by
/// `ORGDECK_TEST_BIN` (the release build, to measure it).
pub fn binary() -> std::ffi::OsString {
    std::env::var_os("ORGDECK_TEST_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_orgdeck").into())
}

/// How long a run may take before it is killed (and the test fails).
const RUN_LIMIT: Duration = Duration::from_secs(90);

/// Set, it makes [`probe`] the measuring parent of one run, whose files
/// are in the directory it names.
const PROBE: &str = "ORGDECK_TEST_PROBE";

/// Runs `orgdeck ARGS` against `host`, and measures its peak memory.
///
/// The binary is not started from this process: the kernel counts into a
/// child's peak (`ru_maxrss`) the peak of the process it was spawned from
/// (the memory it ran in until `exec`), and this one holds servers and
/// whole outputs. So this test binary is started again to run [`probe`]
/// alone, small, which starts orgdeck, reaps it with `wait4` (whose usage
/// is that child's own, to its very end) and leaves the outcome in files.
pub async fn run(host: &str, args: &[&str]) -> Outcome {
    run_with(host, args, Some("100")).await
}

/// [`run`], with `COLUMNS` set to `columns` or unset: a table then goes
/// to its file as to any pipe.
pub async fn run_with(host: &str, args: &[&str], columns: Option<&str>) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("args"), serde_json::to_vec(args).unwrap()).unwrap();
    let mut probe = tokio::process::Command::new(std::env::current_exe().unwrap());
    probe
        .args(["hostile::probe", "--exact", "--ignored", "--test-threads=1"])
        .env(PROBE, dir.path())
        .env("ORGDECK_HOST", host)
        .env("ORGDECK_API_KEY", "phx_hostile_test_key")
        .env("ORGDECK_LOG", dir.path().join("log"))
        .env("ORGDECK_CONFIG", dir.path().join("no-config.toml"))
        .env("ORGDECK_STATE_DIR", dir.path().join("state"))
        .env_remove("COLUMNS");
    if let Some(columns) = columns {
        probe.env("COLUMNS", columns);
    }
    let probe = probe
        .env_remove("ORGDECK_ORG")
        .env_remove("ORGDECK_PROJECT")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .status();
    let status = tokio::time::timeout(RUN_LIMIT + Duration::from_secs(30), probe)
        .await
        .expect("the probe never ended")
        .unwrap();
    let read = |name: &str| std::fs::read(dir.path().join(name)).unwrap_or_default();
    let result = String::from_utf8(read("result")).unwrap();
    assert!(
        status.success() && !result.is_empty(),
        "the probe failed: {status:?}"
    );
    let numbers: Vec<i64> = result
        .split_whitespace()
        .map(|number| number.parse().unwrap())
        .collect();
    let [code, peak_kib, micros] = numbers[..] else {
        panic!("the probe wrote {result:?}");
    };
    let elapsed = Duration::from_micros(micros as u64);
    assert!(elapsed < RUN_LIMIT, "orgdeck {args:?} ran for over {RUN_LIMIT:?}");
    Outcome {
        code: code as i32,
        stdout: read("stdout"),
        stderr: String::from_utf8_lossy(&read("stderr")).into_owned(),
        elapsed,
        peak_mib: peak_kib as u64 / 1024,
    }
}

/// The measuring parent of one run of the binary, started by [`run`] in a
/// process of its own: it starts orgdeck with the arguments in the probe's
/// directory, its output in files there, kills it past [`RUN_LIMIT`], reaps
/// it with `wait4` and writes its exit status (128 + a signal that ended
/// it), its peak memory in KiB and its time in µs.
#[test]
#[ignore = "the measuring parent of one run, which `run` starts"]
fn probe() {
    let Some(dir) = std::env::var_os(PROBE).map(std::path::PathBuf::from) else {
        return; // Not started by `run` (`--ignored` runs every ignored test): nothing to measure.
    };
    let args: Vec<String> = serde_json::from_slice(&std::fs::read(dir.join("args")).unwrap()).unwrap();
    let started = Instant::now();
    let child = std::process::Command::new(binary())
        .args(&args)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(dir.join("stdout")).unwrap())
        .stderr(std::fs::File::create(dir.join("stderr")).unwrap())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let reaped = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let done = reaped.clone();
    std::thread::spawn(move || {
        std::thread::sleep(RUN_LIMIT);
        if !done.load(std::sync::atomic::Ordering::SeqCst) {
            // SAFETY: kill has no memory effects; the child is not reaped.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    });
    let mut status = 0;
    // SAFETY: rusage is plain data, for which all zeroes is a value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our own child, which nothing else waits for (the
    // `Child` is never waited on); status and usage outlive the call.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    reaped.store(true, std::sync::atomic::Ordering::SeqCst);
    assert_eq!(waited, pid, "wait4 failed");
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else if libc::WIFSIGNALED(status) {
        128 + libc::WTERMSIG(status)
    } else {
        -1
    };
    // ru_maxrss is in KiB on Linux.
    let result = format!("{code} {} {}", usage.ru_maxrss, started.elapsed().as_micros());
    std::fs::write(dir.join("result"), result).unwrap();
    drop(child);
}

/// No byte that could drive a terminal: no control character but the line
/// breaks between lines, no bidi control.
#[track_caller]
pub fn assert_inert(bytes: &[u8], what: &str) {
    let text = String::from_utf8_lossy(bytes);
    let bad: Vec<char> = text.chars().filter(|&c| c != '\n' && is_unsafe(c)).collect();
    assert!(bad.is_empty(), "{what} holds {bad:?}: {text:?}");
}

/// A failure told on one line, in bounded time and memory.
#[track_caller]
pub fn assert_bounded_failure(outcome: &Outcome, seconds: u64, mentions: &str) {
    assert_ne!(outcome.code, 0, "stderr: {}", outcome.stderr);
    assert!(
        outcome.code != 134 && outcome.code != -1,
        "aborted: {}",
        outcome.stderr
    );
    assert!(
        outcome.elapsed < Duration::from_secs(seconds),
        "took {:?}: {}",
        outcome.elapsed,
        outcome.stderr
    );
    assert!(outcome.peak_mib < 200, "peak memory {} MiB", outcome.peak_mib);
    assert_eq!(outcome.stderr.lines().count(), 1, "stderr: {}", outcome.stderr);
    assert!(outcome.stderr.contains(mentions), "stderr: {}", outcome.stderr);
    assert_inert(outcome.stderr.as_bytes(), "stderr");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endless_body_is_cut_at_the_limit() {
    let server = HostileServer::start(Attack::EndlessBody).await;
    let outcome = run(
        &server.base,
        &[
            "roles",
            "get",
            "00000000-0000-4000-8000-000000000001",
            "--timeout",
            "20",
        ],
    )
    .await;
    assert_bounded_failure(&outcome, 20, "larger than the 64 MiB limit");
    // The pages of a list fetched at once share the limit.
    let outcome = run(&server.base, &["roles", "list", "--timeout", "20"]).await;
    assert_bounded_failure(&outcome, 20, "larger than 8 MiB, its share of the 64 MiB");
    // A smaller limit, as the flag says.
    let outcome = run(&server.base, &["roles", "list", "--max-answer-mib", "1"]).await;
    assert_bounded_failure(&outcome, 10, "larger than the 1 MiB limit");
    assert!(outcome.peak_mib < 60, "peak memory {} MiB", outcome.peak_mib);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn huge_bodies_are_refused_declared_or_not() {
    let declared = HostileServer::start(Attack::HugeDeclaredBody).await;
    let outcome = run(
        &declared.base,
        &["roles", "get", "00000000-0000-4000-8000-000000000001"],
    )
    .await;
    assert_bounded_failure(&outcome, 10, "larger than the 64 MiB limit");
    let outcome = run(&declared.base, &["roles", "list"]).await;
    assert_bounded_failure(&outcome, 10, "larger than 8 MiB, its share of the 64 MiB");
    let undeclared = HostileServer::start(Attack::HugeUndeclaredBody).await;
    let outcome = run(&undeclared.base, &["subs", "get", "1"]).await;
    assert_bounded_failure(&outcome, 20, "larger than the 64 MiB limit");
    let outcome = run(&undeclared.base, &["subs", "list", "-o", "json"]).await;
    assert_bounded_failure(&outcome, 20, "larger than 8 MiB, its share of the 64 MiB");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lying_count_allocates_nothing_and_the_real_rows_come_back() {
    let server = HostileServer::start(Attack::LyingCount).await;
    let outcome = run(&server.base, &["roles", "list", "-o", "json"]).await;
    // Fewer rows than the count said: listed, said so, and exit 1.
    assert_eq!(outcome.code, 1, "stderr: {}", outcome.stderr);
    assert!(outcome.peak_mib < 200, "peak memory {} MiB", outcome.peak_mib);
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&outcome.stdout).unwrap();
    assert_eq!(rows.len(), 250);
    assert!(
        outcome.stderr.contains(
            "warning: the list ended after 250 rows where the server's count said 1000000000000000000"
        ),
        "{}",
        outcome.stderr
    );
    // Pages that exist, a few retries of them, and nothing like 10^16.
    assert!(server.requests.load(std::sync::atomic::Ordering::SeqCst) < 100);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn looping_and_endless_next_links_are_stopped() {
    let server = HostileServer::start(Attack::LoopingNext).await;
    let outcome = run(&server.base, &["roles", "list"]).await;
    assert_bounded_failure(&outcome, 10, "stopped following the list");
    assert!(outcome.stderr.contains("repeats a page"), "{}", outcome.stderr);
    assert!(server.requests.load(std::sync::atomic::Ordering::SeqCst) < 100);

    let server = HostileServer::start(Attack::EndlessPages).await;
    let outcome = run(&server.base, &["roles", "list"]).await;
    assert_bounded_failure(&outcome, 10, "stopped following the list");
    assert!(server.requests.load(std::sync::atomic::Ordering::SeqCst) < 100);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn escapes_in_an_error_body_are_shown_not_sent() {
    let server = HostileServer::start(Attack::EscapesInErrors).await;
    let outcome = run(&server.base, &["roles", "create", "--name", "x"]).await;
    assert_bounded_failure(&outcome, 10, "400 invalid\\u{1b}]0;pwned\\u{7}");
    assert!(outcome.stderr.contains("\\u{202e}desrever"), "{}", outcome.stderr);
    assert!(
        outcome.stderr.contains("thing\\nfake: line\\r"),
        "{}",
        outcome.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wait_past_the_deadline_fails_at_once_with_the_servers_words() {
    let server = HostileServer::start(Attack::HugeRetryWait).await;
    let outcome = run(&server.base, &["roles", "list", "--deadline", "5"]).await;
    assert_bounded_failure(&outcome, 3, "Expected available in 99999999999 seconds");
    assert!(
        outcome
            .stderr
            .contains("past the command's deadline of 5 s (--deadline)"),
        "{}",
        outcome.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_to_another_host_carries_no_key_there() {
    let server = HostileServer::start(Attack::RedirectElsewhere).await;
    let outcome = run(&server.base, &["roles", "list"]).await;
    assert_ne!(outcome.code, 0);
    assert!(outcome.elapsed < Duration::from_secs(10));
    assert_eq!(server.leaked_keys.load(std::sync::atomic::Ordering::SeqCst), 0);
    assert_inert(outcome.stderr.as_bytes(), "stderr");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_text_in_tables_and_records_is_escaped() {
    let server = HostileServer::start(Attack::HostileText).await;
    for args in [
        &["roles", "list"][..],
        &["roles", "get", "00000000-0000-4000-8000-000000000000"],
        &["subs", "list"],
        &["subs", "get", "1"],
    ] {
        let outcome = run(&server.base, args).await;
        assert_eq!(outcome.code, 0, "{args:?}: {}", outcome.stderr);
        assert_inert(&outcome.stdout, &format!("{args:?}"));
        let text = String::from_utf8(outcome.stdout).unwrap();
        assert!(text.contains("x\\u{1b}]0;pwned\\u{7}"), "{args:?}: {text}");
        // Invisible characters are shown: "Admin" with a zero-width space is not "Admin".
        if args[1] == "list" {
            assert!(text.contains("Ad\\u{200b}min\\u{feff}"), "{args:?}: {text}");
        }
        assert!(
            !text.contains("\nid: fake"),
            "{args:?}: a value started a line: {text}"
        );
    }
    // JSON keeps the exact values, with the controls escaped the JSON way.
    let outcome = run(&server.base, &["roles", "list", "-o", "json"]).await;
    assert_inert(&outcome.stdout, "roles list -o json");
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&outcome.stdout).unwrap();
    let names: Vec<&str> = rows.iter().map(|row| row["name"].as_str().unwrap()).collect();
    assert_eq!(names, HOSTILE_NAMES);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_names_through_the_reference_server_are_escaped() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let mut ids = Vec::new();
    for name in HOSTILE_NAMES {
        let reply = server
            .post(&key, &server.roles_path(), json!({"name": name}))
            .await;
        ids.push(
            reply.expect(reqwest::StatusCode::CREATED)["id"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    let path = server.subscriptions_path();
    let created = server
        .post(
            &key,
            &path,
            json!({"title": HOSTILE_NAMES[2], "target_type": "slack", "target_value": HOSTILE_NAMES[4],
                   "integration_id": DEMO_SLACK, "frequency": "daily", "interval": 1,
                   "start_date": "2026-01-01T09:00:00Z", "insight": DEMO_INSIGHT}),
        )
        .await;
    let subscription = created.expect(reqwest::StatusCode::CREATED)["id"].to_string();
    let dir = tempfile::tempdir().unwrap();
    let cli = |args: Vec<String>| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_orgdeck"));
        command
            .args(args)
            .env("ORGDECK_HOST", &server.base)
            .env("ORGDECK_API_KEY", &key)
            .env("ORGDECK_LOG", dir.path().join("log"))
            .env("ORGDECK_CONFIG", dir.path().join("none.toml"))
            .env("COLUMNS", "200");
        command.output().unwrap()
    };
    let words = |text: &str| text.split_whitespace().map(str::to_string).collect::<Vec<_>>();
    let mut runs = vec![
        words("roles list"),
        words("subs list"),
        words(&format!("subs get {subscription}")),
    ];
    runs.extend(ids.iter().map(|id| words(&format!("roles get {id}"))));
    for args in runs {
        let output = cli(args.clone());
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert_inert(&output.stdout, &format!("{args:?}"));
        assert_inert(&output.stderr, &format!("{args:?} stderr"));
    }
    let listed = String::from_utf8(cli(words("roles list")).stdout).unwrap();
    assert!(listed.contains("\\u{1b}[2J"), "{listed}");
    assert!(listed.contains("abc\\u{202e}fed\\u{2066}"), "{listed}");
}

/// The console against each attack: it settles, says what went wrong, and
/// draws no control or bidi character.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_survives_every_attack() {
    for attack in [
        Attack::EndlessBody,
        Attack::HugeDeclaredBody,
        Attack::LyingCount,
        Attack::LoopingNext,
        Attack::EscapesInErrors,
        Attack::HugeRetryWait,
        Attack::RedirectElsewhere,
        Attack::HostileText,
        Attack::OversizedPage,
        Attack::FullPages,
        Attack::RepeatedRows,
        Attack::CappedLimit,
        Attack::RedirectOtherPort,
        Attack::RedirectOtherScheme,
    ] {
        let server = HostileServer::start(attack).await;
        let mut config = orgdeck::api::ClientConfig::new(&server.base, orgdeck::api::ApiKey::new("phx_k"));
        config.max_answer = 8 * 1024 * 1024;
        config.timeout = Duration::from_secs(5);
        config.retry.base_delay = Duration::from_millis(10);
        config.retry.max_delay = Duration::from_millis(200);
        let client = orgdeck::api::Client::new(config).unwrap();
        let context = Context {
            host: server.base.clone(),
            organization: "@current".into(),
            project: "@current".into(),
            ..Context::default()
        };
        let mut driver = Driver::new(client, context, (120, 30), Theme::plain());
        driver.start();
        let started = Instant::now();
        assert!(
            driver.settle(Duration::from_secs(20)).await,
            "{attack:?} never settled"
        );
        for key in ["3", "G", "2", "1", "G"] {
            driver.type_text(key);
            assert!(
                driver.settle(Duration::from_secs(20)).await,
                "{attack:?} never settled after {key}"
            );
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{attack:?} took {:?}",
            started.elapsed()
        );
        let screen = driver.screen();
        assert!(
            !screen.chars().any(|c| c != '\n' && is_unsafe(c)),
            "{attack:?}: {screen}"
        );
        match attack {
            Attack::EndlessBody | Attack::HugeDeclaredBody => {
                assert!(screen.contains("limit"), "{attack:?}: {screen}")
            }
            Attack::EscapesInErrors | Attack::HostileText => {
                assert!(
                    screen.contains("\\u{1b}") || screen.contains("pwned"),
                    "{attack:?}: {screen}"
                )
            }
            _ => {}
        }
        assert!(!driver.app.window.quit, "{attack:?} ended the console");
        // Keys stay quick whatever the server sent.
        let started = Instant::now();
        for _ in 0..20 {
            driver.type_text("k");
        }
        driver.screen();
        assert!(
            started.elapsed() < Duration::from_millis(500),
            "{attack:?}: 20 keys and a draw took {:?}",
            started.elapsed()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_reads_no_more_than_its_limit() {
    let server = HostileServer::start(Attack::EndlessBody).await;
    let mut config = orgdeck::api::ClientConfig::new(&server.base, orgdeck::api::ApiKey::new("phx_k"));
    config.max_answer = 1024 * 1024;
    let client = orgdeck::api::Client::new(config).unwrap();
    let started = Instant::now();
    let error = client
        .page(&orgdeck::api::List::roles("@current"), 100, 0)
        .await
        .unwrap_err();
    assert!(
        matches!(error, orgdeck::api::Error::TooLarge { limit: 1048576, .. }),
        "{error}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}
