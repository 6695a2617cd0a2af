//! `orgdeck subs health` as scripts and cron use it: `--check`'s exit
//! statuses (0 only after a complete look found nothing, 3, 4), the JSON
//! object and how much it looked at, `--max-requests`, a failed look, and
//! the state paths a link or a FIFO is planted at.

use serde_json::Value;

use orgdeck::api::health::Health;
use orgdeck::server::Seed;

use super::health::owner_key;
use crate::support::TestServer;
use crate::support::proxy::{Fault, FaultProxy};

/// `subs health` through the real binary, with a state directory that
/// lasts across runs.
async fn health(base: &str, key: &str, state: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let args: Vec<&str> = ["subs", "health", "--budget", "off"]
        .iter()
        .chain(args)
        .copied()
        .collect();
    let env = [
        ("ORGDECK_STATE_DIR", state.as_os_str()),
        ("COLUMNS", std::ffi::OsStr::new("200")),
    ];
    let run = crate::cli::orgdeck_at(base, key, &args, None, &env).await;
    (run.code, run.stdout, run.stderr)
}

fn json(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|error| panic!("{error}: {stdout}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_exits_0_only_after_a_complete_look_found_nothing() {
    // One subscription, reaching its one recipient.
    let server = TestServer::demo_with(|options| {
        options.seed = Seed::None;
        options.generate_subscriptions = 1;
    })
    .await;
    let key = owner_key(&server);

    // Only the list read: nothing failing among what it settles, but the
    // one subscription is not known: 4, and the JSON says how far it came.
    let state = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = health(
        &server.base,
        &key,
        state.path(),
        &["--check", "--max-requests", "0", "-o", "json"],
    )
    .await;
    assert_eq!(code, 4, "{stdout}{stderr}");
    assert!(stderr.contains("not complete"), "{stderr}");
    let partial = json(&stdout);
    assert_eq!(partial["complete"], false);
    assert_eq!(
        (partial["looked_at"].as_u64(), partial["total"].as_u64()),
        (Some(0), Some(1))
    );

    // The next look goes on and completes: 0.
    let (code, stdout, stderr) = health(&server.base, &key, state.path(), &["--check", "-o", "json"]).await;
    assert_eq!(code, 0, "{stdout}{stderr}");
    let whole = json(&stdout);
    assert_eq!(whole["complete"], true);
    assert_eq!(
        (whole["looked_at"].as_u64(), whole["total"].as_u64()),
        (Some(1), Some(1))
    );
    let keys: Vec<&str> = whole.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["complete", "looked_at", "total", "subscriptions"]);

    // The table says how much it looked at.
    let (code, stdout, _) = health(&server.base, &key, state.path(), &["--all"]).await;
    assert_eq!(code, 0);
    assert!(
        stdout.contains("1 of 1 subscriptions shown · 1 ok · looked at all 1"),
        "{stdout}"
    );

    // Deliveries the server will not give: 4, and which could not be read.
    let proxy = FaultProxy::start(&server.base).await;
    let unavailable = r#"{"type":"server_error","code":"error","detail":"Boom.","attr":null}"#;
    proxy.push_on("/deliveries/", Fault::Answer(500, unavailable.into()));
    let fresh = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = health(&proxy.base, &key, fresh.path(), &["--check"]).await;
    assert_eq!(code, 4, "{stdout}{stderr}");
    assert!(stderr.contains("1 subscription could not be read"), "{stderr}");
    assert!(stdout.contains("its deliveries could not be read"), "{stdout}");

    // No server at all: the look failed, nothing is known: 4 with --check,
    // 1 without.
    let gone = "http://127.0.0.1:9";
    let (code, _, stderr) = health(gone, &key, fresh.path(), &["--check"]).await;
    assert_eq!(code, 4, "{stderr}");
    assert!(stderr.contains("the look failed"), "{stderr}");
    let (code, _, _) = health(gone, &key, fresh.path(), &[]).await;
    assert_eq!(code, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subs_health_pages_with_its_exit_code_and_prints_json() {
    let server = TestServer::demo().await;
    let key = server.key(&["subscription:read"]);
    let state = tempfile::tempdir().unwrap();
    // Two processes at once share the index.
    let (a, b) = tokio::join!(
        health(&server.base, &key, state.path(), &["--check"]),
        health(&server.base, &key, state.path(), &["-o", "json", "--all"])
    );
    assert_eq!(a.0, 3, "the demo has failures: {}", a.2);
    assert!(a.2.contains("failing, partial or auto-disabled"), "{}", a.2);
    assert!(
        a.1.contains("partial") && a.1.contains("auto-disabled"),
        "{}",
        a.1
    );
    assert_eq!(b.0, 0, "{}", b.2);
    let look = json(&b.1);
    assert_eq!(
        look["complete"], true,
        "a key without integration:read still completes"
    );
    assert_eq!(look["looked_at"], look["total"]);
    let rows = look["subscriptions"].as_array().unwrap();
    assert_eq!(
        rows.len() as u64,
        look["total"].as_u64().unwrap(),
        "--all: every one"
    );
    // The keys of a row in the order they are written.
    let first = &b.1[b.1.find("\"subscriptions\"").unwrap()..];
    let first = &first[first.find('{').unwrap()..];
    let mut keys: Vec<(usize, &str)> = rows[0]
        .as_object()
        .unwrap()
        .keys()
        .map(|key| (first.find(&format!("\"{key}\":")).unwrap(), key.as_str()))
        .collect();
    keys.sort();
    let keys: Vec<&str> = keys.into_iter().map(|(_, key)| key).collect();
    assert_eq!(
        keys,
        [
            "id",
            "title",
            "health",
            "since",
            "streak",
            "last_delivery",
            "failed_recipients",
            "next_delivery_date",
            "fix"
        ]
    );
    // Worst first.
    let healths: Vec<Health> = rows
        .iter()
        .map(|row| serde_json::from_value(row["health"].clone()).unwrap())
        .collect();
    assert!(healths.windows(2).all(|pair| pair[0] <= pair[1]), "{healths:?}");
    let partial = rows.iter().find(|row| row["health"] == "partial").unwrap();
    assert!(partial["failed_recipients"][0]["error"].is_string(), "{partial}");
    let partial_only = health(
        &server.base,
        &key,
        state.path(),
        &["--state", "partial", "-o", "json"],
    )
    .await;
    let partial_only = json(&partial_only.1);
    let partial_only = partial_only["subscriptions"].as_array().unwrap().clone();
    assert!(!partial_only.is_empty() && partial_only.iter().all(|row| row["health"] == "partial"));

    // The list alone already finds the auto-disabled ones: 3 at once.
    let fresh = tempfile::tempdir().unwrap();
    let key = server.key(&["subscription:read", "integration:read"]);
    let (code, stdout, stderr) = health(
        &server.base,
        &key,
        fresh.path(),
        &["--check", "--max-requests", "0"],
    )
    .await;
    assert_eq!(code, 3, "{stdout}{stderr}");
    assert!(stdout.contains("auto-disabled"), "{stdout}");
    assert!(
        stdout.contains("looked at") && stdout.contains("not yet"),
        "{stdout}"
    );

    // A project with nothing at all: a complete look of nothing, exit 0.
    let quiet = TestServer::demo_with(|options| options.seed = Seed::None).await;
    let key = owner_key(&quiet);
    let state = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = health(&quiet.base, &key, state.path(), &["--check", "--all"]).await;
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("0 of 0 subscriptions shown"), "{stdout}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_ones_are_shown_and_counted() {
    // A subscription never delivered yet (its creation's delivery deleted).
    let server = TestServer::demo_with(|options| {
        options.seed = Seed::None;
        options.generate_subscriptions = 1;
    })
    .await;
    server
        .running
        .db
        .write_blocking(|tx| Ok(tx.execute("DELETE FROM deliveries", [])?))
        .unwrap();
    let key = owner_key(&server);
    let state = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = health(&server.base, &key, state.path(), &[]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("1 of 1 subscriptions shown · 1 new"), "{stdout}");
    assert!(stdout.lines().any(|line| line.starts_with("new ")), "{stdout}");
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_or_a_fifo_at_the_index_path_is_refused_at_once() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let state = tempfile::tempdir().unwrap();
    // Where the index of this host and project (as the CLI names it) lives.
    let path = orgdeck::health::index::Index::open(state.path(), &server.base, "@current")
        .unwrap()
        .path()
        .to_path_buf();
    std::fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
    let started = std::time::Instant::now();
    let (code, _, stderr) = health(&server.base, &key, state.path(), &[]).await;
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("symbolic link") && stderr.contains(".sqlite"),
        "{stderr}"
    );
    std::fs::remove_file(&path).unwrap();
    let name = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a C string made just above.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    let (code, _, stderr) = health(&server.base, &key, state.path(), &[]).await;
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("not a regular file"), "{stderr}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(30),
        "never waits on the FIFO"
    );
}
