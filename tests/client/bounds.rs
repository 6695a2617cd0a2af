//! What the client holds is bounded whatever a server sends: the real
//! binary, its peak memory measured, against servers that send lists
//! without end (full pages under a lying count), the same rows again and
//! again, links that loop, short pages that say there is more, and
//! redirects to another port or scheme.

use std::sync::atomic::Ordering;

use crate::hostile::{assert_bounded_failure, assert_inert, run};
use crate::support::hostile::{Attack, HostileServer};

/// A role's id: `members list --role` takes it without looking the role up.
const ROLE: &str = "00000000-0000-4000-8000-000000000000";

/// The most memory a run may reach, in MiB.
const MOST_MIB: u64 = 200;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn full_pages_under_a_lying_count_stop_at_the_row_cap_in_bounded_memory() {
    let server = HostileServer::start(Attack::FullPages).await;
    for args in [
        &["roles", "list", "--max-rows", "20000"][..],
        &[
            "members",
            "list",
            "--role",
            ROLE,
            "-o",
            "json",
            "--max-rows",
            "20000",
        ],
        &["subs", "list", "--max-rows", "20000"],
    ] {
        let outcome = run(&server.base, args).await;
        assert_eq!(outcome.code, 1, "{args:?}: {}", outcome.stderr);
        assert!(
            outcome.peak_mib < MOST_MIB,
            "{args:?}: peak memory {} MiB",
            outcome.peak_mib
        );
        assert!(
            outcome.stderr.contains("more than 20000 rows") && outcome.stderr.contains("--max-rows"),
            "{args:?}: {}",
            outcome.stderr
        );
        assert_inert(outcome.stderr.as_bytes(), "stderr");
        // The rows came out as they arrived, before the cap stopped the list.
        let lines = outcome.stdout.iter().filter(|&&byte| byte == b'\n').count();
        assert!(lines > 10_000, "{args:?}: {lines} lines written");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_the_default_cap_a_list_without_end_stays_under_200_mib() {
    let server = HostileServer::start(Attack::FullPages).await;
    let outcome = run(&server.base, &["roles", "list", "-o", "json", "--timeout", "80"]).await;
    eprintln!(
        "roles list at the default cap: peak {} MiB in {:?}",
        outcome.peak_mib, outcome.elapsed
    );
    assert_bounded_failure(&outcome, 85, "more than 1000000 rows");
    assert!(
        outcome.peak_mib < MOST_MIB,
        "peak memory {} MiB",
        outcome.peak_mib
    );
    // Every row taken was written, none held back.
    let written = outcome
        .stdout
        .windows(7)
        .filter(|window| window == b"\"name\":")
        .count();
    assert!(written >= 999_000, "{written} rows written");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_as_large_as_allowed_share_the_answer_limit_and_stay_under_200_mib() {
    let server = HostileServer::start(Attack::HugePages).await;
    let outcome = run(&server.base, &["subs", "list", "-o", "json", "--timeout", "80"]).await;
    assert_bounded_failure(&outcome, 85, "more than 1000000 rows");
    // A page larger than its share is refused, saying whose share it is.
    let outcome = run(&server.base, &["subs", "list", "--max-answer-mib", "16"]).await;
    assert_bounded_failure(
        &outcome,
        20,
        "larger than 2 MiB, its share of the 16 MiB of --max-answer-mib",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repeated_rows_are_listed_once_with_a_warning_and_exit_1() {
    let server = HostileServer::start(Attack::RepeatedRows).await;
    let outcome = run(&server.base, &["roles", "list", "-o", "json"]).await;
    assert_eq!(outcome.code, 1, "stderr: {}", outcome.stderr);
    assert!(
        outcome.peak_mib < MOST_MIB,
        "peak memory {} MiB",
        outcome.peak_mib
    );
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&outcome.stdout).unwrap();
    assert_eq!(rows.len(), 100, "each row once");
    assert!(
        outcome
            .stderr
            .contains("warning: the server sent 900 rows more than once"),
        "{}",
        outcome.stderr
    );
    assert!(
        outcome
            .stderr
            .contains("ended after 100 rows where the server's count said 1000"),
        "{}",
        outcome.stderr
    );
    // The last line says the rows are not all of it, and which list.
    let last = outcome.stderr.lines().last().unwrap_or_default();
    assert!(
        last.contains("/roles/: the rows written are not the whole list of roles"),
        "{}",
        outcome.stderr
    );
    // The table says the same.
    let outcome = run(&server.base, &["members", "list", "--role", ROLE]).await;
    assert_eq!(outcome.code, 1, "stderr: {}", outcome.stderr);
    assert_eq!(String::from_utf8_lossy(&outcome.stdout).lines().count(), 101);
    assert!(outcome.stderr.contains("more than once"), "{}", outcome.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_looping_next_is_stopped_in_every_list() {
    for args in [
        &["roles", "list"][..],
        &["members", "list", "--role", ROLE],
        &["subs", "list", "-o", "json"],
    ] {
        let server = HostileServer::start(Attack::LoopingNext).await;
        let outcome = run(&server.base, args).await;
        assert_bounded_failure(&outcome, 10, "repeats a page");
        assert!(
            outcome.peak_mib < MOST_MIB,
            "{args:?}: peak memory {} MiB",
            outcome.peak_mib
        );
        assert!(server.requests.load(Ordering::SeqCst) < 10, "{args:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_page_that_links_onward_is_followed_to_the_end() {
    let server = HostileServer::start(Attack::CappedLimit).await;
    for args in [
        &["roles", "list", "-o", "json"][..],
        &["members", "list", "--role", ROLE, "-o", "json"],
        &["subs", "list", "-o", "json"],
    ] {
        let outcome = run(&server.base, args).await;
        assert_eq!(outcome.code, 0, "{args:?}: {}", outcome.stderr);
        let rows: Vec<serde_json::Value> = serde_json::from_slice(&outcome.stdout).unwrap();
        assert_eq!(rows.len(), 250, "{args:?}: every row, each once");
        assert!(outcome.stderr.is_empty(), "{args:?}: {}", outcome.stderr);
    }
    // The library says the same: all, all_by_next and first_rows.
    let client = orgdeck::api::Client::new(orgdeck::api::ClientConfig::new(
        &server.base,
        orgdeck::api::ApiKey::new("phx_k"),
    ))
    .unwrap();
    let list = orgdeck::api::List::roles("@current");
    let all = client
        .all(&list, &orgdeck::api::FetchAll::default())
        .await
        .unwrap();
    assert_eq!(all.len(), 250);
    assert_eq!(client.all_by_next(&list, 100).await.unwrap(), all);
    let (first, more) = client
        .first_rows(&list, 200, &orgdeck::api::FetchAll::default())
        .await
        .unwrap();
    assert_eq!((first.len(), more), (200, true));
    assert_eq!(first[..], all[..200]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_to_another_port_or_scheme_is_refused_and_the_key_stays() {
    for attack in [Attack::RedirectOtherPort, Attack::RedirectOtherScheme] {
        let server = HostileServer::start(attack).await;
        let outcome = run(&server.base, &["roles", "list"]).await;
        assert_bounded_failure(&outcome, 10, "another scheme, host or port");
        assert!(
            outcome.stderr.contains("did not follow it"),
            "{attack:?}: {}",
            outcome.stderr
        );
        assert_eq!(server.leaked_keys.load(Ordering::SeqCst), 0, "{attack:?}");
        // Asked once: a refused redirect is not retried.
        assert_eq!(server.requests.load(Ordering::SeqCst), 1, "{attack:?}");
    }
    // The library's error says where it would have gone.
    let server = HostileServer::start(Attack::RedirectOtherScheme).await;
    let client = orgdeck::api::Client::new(orgdeck::api::ClientConfig::new(
        &server.base,
        orgdeck::api::ApiKey::new("phx_k"),
    ))
    .unwrap();
    let error = client
        .page(&orgdeck::api::List::roles("@current"), 10, 0)
        .await
        .unwrap_err();
    assert!(
        matches!(&error, orgdeck::api::Error::Redirect { reason, .. } if reason.contains("https://127.0.0.1")),
        "{error}"
    );
}

/// Peak memory of each lying-server case, printed: run on the release
/// build with `ORGDECK_TEST_BIN=target/release/orgdeck cargo test --test
/// client -- --ignored peaks --nocapture`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement, for the release build"]
async fn peaks_of_every_lying_server() {
    let cases: [(Attack, &[&str]); 12] = [
        (Attack::HugePages, &["roles", "list", "--timeout", "85"]),
        (Attack::HugePages, &["subs", "list", "--timeout", "85"]),
        (Attack::FullPages, &["roles", "list", "--timeout", "85"]),
        (
            Attack::FullPages,
            &["roles", "list", "-o", "json", "--timeout", "85"],
        ),
        (
            Attack::FullPages,
            &["members", "list", "--role", ROLE, "--timeout", "85"],
        ),
        (Attack::FullPages, &["subs", "list", "--timeout", "85"]),
        (
            Attack::FullPages,
            &["subs", "list", "-o", "json", "--timeout", "85"],
        ),
        (Attack::RepeatedRows, &["roles", "list"]),
        (Attack::CappedLimit, &["roles", "list"]),
        (Attack::LoopingNext, &["roles", "list"]),
        (Attack::LyingCount, &["roles", "list"]),
        (Attack::OversizedPage, &["subs", "list"]),
    ];
    for (attack, args) in cases {
        let server = HostileServer::start(attack).await;
        let outcome = run(&server.base, args).await;
        let last = outcome.stderr.lines().last().unwrap_or_default().to_string();
        eprintln!(
            "{attack:?} {args:?}: exit {}, peak {} MiB, {:.1} s, {} bytes out; {}",
            outcome.code,
            outcome.peak_mib,
            outcome.elapsed.as_secs_f64(),
            outcome.stdout.len(),
            last.chars().take(160).collect::<String>()
        );
        assert!(outcome.peak_mib < MOST_MIB, "{attack:?} {args:?}");
    }
}
