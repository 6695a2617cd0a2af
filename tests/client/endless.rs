//! Every command is bounded in memory and time: the real binary against
//! servers whose lists never end (full pages under a count of 10^18, pages
//! as large as allowed, links that go on under a moving count), each
//! command exiting 1 with the reason, under its deadline and 150 MB; and a
//! table written to a file cuts a 30 MB cell rather than pad every row to
//! it.

use std::time::Duration;

use crate::hostile::{Outcome, assert_inert, run, run_with};
use crate::support::hostile::{Attack, HUGE_CELL, HostileServer};

/// The most memory a command may reach, in MiB (150 MB).
const MOST_MIB: u64 = 143;

/// A file of `export`'s for `plan` and `apply`: one role, to be created.
pub const FILE: &str = r#"[orgdeck]
host = "http://127.0.0.1:9"
organization = "00000000-0000-4000-8000-000000000000"
project = 1

[[roles]]
name = "Night shift"
default = false
members = []
"#;

/// The commands that read lists, each with what it is given.
fn commands(file: &str) -> Vec<Vec<String>> {
    let person = "person0@example.com";
    [
        &["people", "list"][..],
        &["people", "show", person],
        &["people", "offboard", person, "--dry-run"],
        &["people", "offboard", person, "--yes"],
        &["export"],
        &["plan", file, "--prune"],
        &["apply", file, "--yes", "--prune"],
        &["subs", "health", "--budget", "none"],
    ]
    .iter()
    .map(|args| args.iter().map(|arg| arg.to_string()).collect())
    .collect()
}

/// A run that ended as a command should against a server without end: exit
/// 1 with one line saying why, in time and memory.
#[track_caller]
fn assert_bounded(outcome: &Outcome, args: &[String], deadline: Duration, reasons: &[&str]) {
    assert_eq!(outcome.code, 1, "{args:?}: {}", outcome.stderr);
    assert!(
        outcome.elapsed < deadline,
        "{args:?} took {:?}: {}",
        outcome.elapsed,
        outcome.stderr
    );
    assert!(
        outcome.peak_mib < MOST_MIB,
        "{args:?}: peak memory {} MiB",
        outcome.peak_mib
    );
    let last = outcome.stderr.lines().last().unwrap_or_default();
    assert!(
        reasons.iter().any(|reason| last.contains(reason)),
        "{args:?}: {}",
        outcome.stderr
    );
    assert_inert(outcome.stderr.as_bytes(), "stderr");
}

async fn run_all(attack: Attack, reasons: &[&str]) {
    let server = HostileServer::start(attack).await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("org.toml");
    std::fs::write(&file, FILE).unwrap();
    for args in commands(file.to_str().unwrap()) {
        let given: Vec<&str> = args.iter().map(String::as_str).collect();
        let outcome = run(&server.base, &given).await;
        eprintln!(
            "{attack:?} {args:?}: exit {}, peak {} MiB, {:.1} s",
            outcome.code,
            outcome.peak_mib,
            outcome.elapsed.as_secs_f64()
        );
        assert_bounded(&outcome, &args, Duration::from_secs(60), reasons);
        // Nothing was written to a server that lies about its lists.
        assert!(!outcome.stderr.contains("✓"), "{args:?}: {}", outcome.stderr);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_command_stops_at_what_it_may_hold_against_full_pages_without_end() {
    run_all(
        Attack::FullPages,
        &["the most one command holds (--max-held-mib)"],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_command_stops_against_pages_as_large_as_allowed() {
    run_all(
        Attack::HugePages,
        &["the most one command holds (--max-held-mib)"],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_command_stops_against_links_without_end_under_a_moving_count() {
    run_all(
        Attack::EndlessPages,
        &["stopped following the list", "changed while it was read"],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_deadline_stops_a_list_streamed_without_end_and_says_so() {
    let server = HostileServer::start(Attack::FullPages).await;
    for args in [
        &["subs", "list", "--deadline", "4"][..],
        &["subs", "list", "-o", "json", "--deadline", "4s"],
        &["roles", "list", "--deadline", "4"],
    ] {
        let outcome = run(&server.base, args).await;
        let args: Vec<String> = args.iter().map(|arg| arg.to_string()).collect();
        assert_bounded(
            &outcome,
            &args,
            Duration::from_secs(4 + 3),
            &["the command's deadline of 4 s passed (--deadline)"],
        );
        assert!(outcome.elapsed >= Duration::from_secs(4), "{args:?}");
    }
    // A deadline that is no time is a usage error.
    let outcome = run(&server.base, &["subs", "list", "--deadline", "soon"]).await;
    assert_eq!(outcome.code, 2, "{}", outcome.stderr);
    assert!(outcome.stderr.contains("90s, 10m, 1h"), "{}", outcome.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_to_a_file_cuts_a_30_mb_cell_and_json_keeps_it_whole() {
    let server = HostileServer::start(Attack::HugeCell).await;
    for args in [
        &["subs", "health", "--all", "--budget", "none"][..],
        &["subs", "list", "--max-answer-mib", "256"],
    ] {
        let outcome = run_with(&server.base, args, None).await;
        assert_eq!(outcome.code, 0, "{args:?}: {}", outcome.stderr);
        let text = String::from_utf8(outcome.stdout).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.len() > 100, "{args:?}: {} lines", lines.len());
        let widest = lines.iter().map(|line| line.chars().count()).max().unwrap();
        // Each cell at most 200 columns, whatever the server sent.
        assert!(widest < 8 * 202, "{args:?}: a line of {widest}");
        assert!(text.len() < 101 * 8 * 202 * 3, "{args:?}: {} bytes", text.len());
        assert!(text.contains(&format!("{}…", "t".repeat(199))), "{args:?}");
    }
    let outcome = run_with(
        &server.base,
        &["subs", "list", "-o", "json", "--max-answer-mib", "256"],
        None,
    )
    .await;
    assert_eq!(outcome.code, 0, "{}", outcome.stderr);
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&outcome.stdout).unwrap();
    assert_eq!(rows[7]["title"].as_str().map(str::len), Some(HUGE_CELL));
}

/// A hostile server to measure against by hand, serving until killed (an
/// hour at most): `ORGDECK_HOSTILE=FullPages cargo test --test client --
/// --ignored serve_a_hostile_server --nocapture` prints its address.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a server for measurements by hand"]
async fn serve_a_hostile_server() {
    let name = std::env::var("ORGDECK_HOSTILE").unwrap_or_else(|_| "FullPages".into());
    let attack = Attack::named(&name).unwrap_or_else(|| panic!("no attack is named {name}"));
    let server = HostileServer::start(attack).await;
    println!("{attack:?} at {}", server.base);
    tokio::time::sleep(Duration::from_secs(3600)).await;
}
