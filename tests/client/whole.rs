//! Every list is read whole or not at all: each command against the
//! reference server behind a proxy that ends a list early under the
//! server's true count, and against a hostile server whose count lies.
//! Nothing is planned or done from part of a list; the error names the
//! list, what its count said and what came. Lists written as they arrive
//! keep their rows and warnings, and exit 1.

use serde_json::Value;

use super::cli::{Run, orgdeck_at};
use crate::hostile::run;
use crate::support::hostile::{Attack, HostileServer};
use crate::support::proxy::FaultProxy;
use crate::support::{LEAVER, TestServer};

/// The demo's subscriptions: what a whole list holds.
const SUBSCRIPTIONS: usize = 95;

/// The subscriptions of the demo project, not deleted, read directly.
async fn live_subscriptions(server: &TestServer, key: &str) -> Vec<Value> {
    server.all(key, &server.subscriptions_path()).await
}

/// The demo behind a proxy that ends every list whose path ends with
/// `path_end` after `after` rows.
async fn cut(path_end: &str, after: u64) -> (TestServer, String, FaultProxy) {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let proxy = FaultProxy::start(&server.base).await;
    proxy.cut_list(path_end, after);
    (server, key, proxy)
}

async fn through(proxy: &FaultProxy, key: &str, args: &[&str]) -> Run {
    orgdeck_at(&proxy.base, key, args, None, &[]).await
}

/// Exit 1, saying which list fell short, and by how much.
#[track_caller]
fn refused(run: &Run, list: &str, rows: u64, count: usize) {
    assert_eq!(run.code, 1, "stdout: {}\nstderr: {}", run.stdout, run.stderr);
    let said = format!(
        "the list of {list} came back incomplete: it ended after {rows} rows where the server's count said {count}"
    );
    assert!(run.stderr.contains(&said), "wanted {said:?} in: {}", run.stderr);
    assert!(
        run.stderr.contains("orgdeck acts on whole lists only"),
        "{}",
        run.stderr
    );
}

/// No write reached the server.
#[track_caller]
fn nothing_written(proxy: &FaultProxy) {
    for method in ["POST", "PATCH", "PUT", "DELETE"] {
        assert_eq!(proxy.count(method), 0, "{method}: {:?}", proxy.requests());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn export_plan_and_apply_refuse_a_subscription_list_that_ends_early() {
    let (server, key, proxy) = cut("/subscriptions/", 40).await;
    let dir = tempfile::tempdir().unwrap();
    // The whole file, from the server itself.
    let file = dir.path().join("org.toml");
    let file = file.to_str().unwrap();
    orgdeck_at(&server.base, &key, &["export", file], None, &[])
        .await
        .ok();
    let text = std::fs::read_to_string(file).unwrap();
    assert_eq!(text.matches("[[subscriptions]]").count(), SUBSCRIPTIONS);

    // Export through the proxy writes nothing.
    let short = dir.path().join("short.toml");
    let run = through(&proxy, &key, &["export", short.to_str().unwrap()]).await;
    refused(&run, "subscriptions", 40, SUBSCRIPTIONS);
    assert!(!short.exists(), "a file was written from part of the list");
    let run = through(&proxy, &key, &["export", "-o", "json"]).await;
    refused(&run, "subscriptions", 40, SUBSCRIPTIONS);
    assert!(run.stdout.is_empty(), "{}", run.stdout);

    // Plan --prune plans nothing: 55 subscriptions are not gone.
    let run = through(&proxy, &key, &["plan", file, "--prune"]).await;
    refused(&run, "subscriptions", 40, SUBSCRIPTIONS);
    assert!(run.stdout.is_empty(), "a plan was printed: {}", run.stdout);
    let run = through(&proxy, &key, &["plan", file, "--prune", "-o", "json"]).await;
    refused(&run, "subscriptions", 40, SUBSCRIPTIONS);
    assert!(run.stdout.is_empty(), "{}", run.stdout);

    // Apply --prune does nothing, however it is asked.
    let before = live_subscriptions(&server, &key).await;
    let run = through(&proxy, &key, &["apply", file, "--yes", "--prune"]).await;
    refused(&run, "subscriptions", 40, SUBSCRIPTIONS);
    nothing_written(&proxy);
    assert_eq!(live_subscriptions(&server, &key).await, before);
    // The same file against the whole list: nothing to do.
    orgdeck_at(&server.base, &key, &["plan", file, "--prune"], None, &[])
        .await
        .ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn people_show_and_offboard_refuse_a_list_that_ends_early() {
    // The subscriptions that mail people, and those they created.
    let (server, key, proxy) = cut("/subscriptions/", 2).await;
    let whole = orgdeck_at(
        &server.base,
        &key,
        &["people", "show", LEAVER, "-o", "json"],
        None,
        &[],
    )
    .await
    .ok()
    .json();
    assert_eq!(whole["receiving_subscriptions"].as_array().unwrap().len(), 3);
    for args in [
        &["people", "show", LEAVER][..],
        &["people", "show", LEAVER, "-o", "json"],
        &["people", "offboard", LEAVER, "--dry-run"],
        &["people", "offboard", LEAVER, "--yes"],
        &[
            "people",
            "offboard",
            LEAVER,
            "--yes",
            "--remove-from-organization",
        ],
    ] {
        let run = through(&proxy, &key, args).await;
        assert_eq!(run.code, 1, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr
                .contains("the list of subscriptions came back incomplete: it ended after 2 rows"),
            "{args:?}: {}",
            run.stderr
        );
        assert!(run.stdout.is_empty(), "{args:?} printed: {}", run.stdout);
    }
    nothing_written(&proxy);

    // The roles, whose members say who holds them (a person's page and an
    // offboarding read them there): a role missing would look unheld.
    let proxy = FaultProxy::start(&server.base).await;
    proxy.cut_list("/roles/", 1);
    for args in [
        &["people", "show", LEAVER][..],
        &["people", "offboard", LEAVER, "--yes"],
    ] {
        let run = through(&proxy, &key, args).await;
        assert_eq!(run.code, 1, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.contains("/roles/: the list of roles came back incomplete: it ended after 1 rows where the server's count said"),
            "{args:?}: {}",
            run.stderr
        );
        assert!(run.stdout.is_empty(), "{args:?} printed: {}", run.stdout);
    }
    nothing_written(&proxy);

    // A role's memberships (people list reads them a page at a time):
    // someone missing from them would look out of it.
    let proxy = FaultProxy::start(&server.base).await;
    proxy.cut_list("/role_memberships/", 1);
    for args in [&["people", "list"][..]] {
        let run = through(&proxy, &key, args).await;
        assert_eq!(run.code, 1, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.contains("/role_memberships/: the list of role memberships came back incomplete: it ended after 1 rows where the server's count said"),
            "{args:?}: {}",
            run.stderr
        );
        assert!(run.stdout.is_empty(), "{args:?} printed: {}", run.stdout);
    }
    nothing_written(&proxy);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_written_as_they_arrive_keep_their_rows_and_warnings_and_exit_1() {
    let (server, key, proxy) = cut("/subscriptions/", 40).await;
    let run = through(&proxy, &key, &["subs", "list"]).await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.stdout.lines().count(), 41, "{}", run.stdout);
    assert!(
        run.stderr.contains(&format!(
            "orgdeck: warning: the list ended after 40 rows where the server's count said {SUBSCRIPTIONS}; rows may be missing"
        )),
        "{}",
        run.stderr
    );
    let last = run.stderr.lines().last().unwrap();
    assert!(
        last.contains("the rows written are not the whole list of subscriptions"),
        "{}",
        run.stderr
    );
    let run = through(&proxy, &key, &["subs", "list", "-o", "json"]).await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.json().as_array().unwrap().len(), 40);

    // People: the members, listed as they arrive.
    let members = server
        .all(
            &key,
            &format!("/api/organizations/{}/members/", server.organization),
        )
        .await;
    let proxy = FaultProxy::start(&server.base).await;
    proxy.cut_list("/members/", 5);
    let run = through(&proxy, &key, &["people", "list", "-o", "json"]).await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.json().as_array().unwrap().len(), 5);
    assert!(
        run.stderr.contains(&format!(
            "warning: the list ended after 5 rows where the server's count said {}",
            members.len()
        )),
        "{}",
        run.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_command_refuses_a_lying_count_naming_the_list() {
    let server = HostileServer::start(Attack::LyingCount).await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("org.toml");
    std::fs::write(&file, crate::endless::FILE).unwrap();
    let file = file.to_str().unwrap();
    let person = "person0@example.com";
    for args in [
        &["people", "show", person][..],
        &["people", "offboard", person, "--dry-run"],
        &["people", "offboard", person, "--yes"],
        &["people", "list"],
        &["export"],
        &["plan", file, "--prune"],
        &["apply", file, "--yes", "--prune"],
        &["subs", "health", "--budget", "none"],
    ] {
        let outcome = run(&server.base, args).await;
        assert_eq!(outcome.code, 1, "{args:?}: {}", outcome.stderr);
        assert!(
            outcome.stderr.contains(
                "came back incomplete: it ended after 250 rows where the server's count said 1000000000000000000"
            ),
            "{args:?}: {}",
            outcome.stderr
        );
        assert!(
            outcome.stdout.is_empty(),
            "{args:?}: {}",
            String::from_utf8_lossy(&outcome.stdout)
        );
    }
}
