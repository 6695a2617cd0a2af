//! orgdeck against an older PostHog (its application of August 2025), as a
//! proxy in front of the reference server plays it: that version passes
//! every query parameter of a role list to its database filter, so
//! `roles/?limit=100&offset=0` answers 500, and it has no test delivery
//! (`POST …/test-delivery/` answers a bare 404 "Endpoint not found").
//! Role lists are asked again without `limit` and `offset`, which is said
//! once; `subs test` says that this server has no test delivery.

use crate::cli::{Run, orgdeck_at};
use crate::support::TestServer;
use crate::support::proxy::{Fault, FaultProxy};

const SERVER_ERROR: &str =
    r#"{"type":"server_error","code":"error","detail":"A server error occurred.","attr":null}"#;
const NO_ENDPOINT: &str =
    r#"{"type":"invalid_request","code":"not_found","detail":"Endpoint not found.","attr":null}"#;

/// A role list's request line asked with `limit` (not a role's memberships).
fn paged_roles(line: &str) -> bool {
    line.starts_with("GET ") && line.contains("/roles/?") && line.contains("limit=")
}

async fn august_2025() -> (TestServer, FaultProxy, String) {
    let server = TestServer::demo().await;
    let proxy = FaultProxy::start(&server.base).await;
    proxy.always(paged_roles, Fault::Answer(500, SERVER_ERROR.into()));
    proxy.always(
        |line| line.starts_with("POST ") && line.contains("/test-delivery"),
        Fault::Answer(404, NO_ENDPOINT.into()),
    );
    let key = server.key(&["*"]);
    (server, proxy, key)
}

/// The command succeeded, and said once that it asked the roles again.
#[track_caller]
fn worked_around(run: &Run, what: &str) {
    assert_eq!(run.code, 0, "{what}: {}", run.stderr);
    let notes: Vec<&str> = run
        .stderr
        .lines()
        .filter(|line| line.starts_with("orgdeck: note:"))
        .collect();
    assert_eq!(notes.len(), 1, "{what}: {}", run.stderr);
    assert!(
        notes[0].contains("answered 500") && notes[0].contains("without limit and offset"),
        "{what}: {}",
        run.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn role_lists_that_answer_500_with_limit_and_offset_are_asked_again_without() {
    let (server, proxy, key) = august_2025().await;
    let dir = tempfile::tempdir().unwrap();
    let listed = orgdeck_at(&proxy.base, &key, &["roles", "list", "-o", "json"], None, &[]).await;
    worked_around(&listed, "roles list");
    let roles: serde_json::Value = listed.json();
    let roles = roles.as_array().unwrap();
    assert_eq!(roles.len(), 8, "{roles:?}");
    let name = roles[0]["name"].as_str().unwrap().to_string();
    // Asked once with them, once without: no request answered 500 twice.
    let answered_500 = proxy.requests().iter().filter(|line| paged_roles(line)).count();
    assert_eq!(answered_500, 1, "{:#?}", proxy.requests());

    let got = orgdeck_at(
        &proxy.base,
        &key,
        &["roles", "get", &name.to_uppercase()],
        None,
        &[],
    )
    .await;
    worked_around(&got, "roles get NAME");
    assert!(got.stdout.contains(&name), "{}", got.stdout);
    let members = orgdeck_at(
        &proxy.base,
        &key,
        &["members", "list", "--role", &name],
        None,
        &[],
    )
    .await;
    worked_around(&members, "members list --role NAME");

    let file = dir.path().join("org.toml");
    let file = file.to_str().unwrap();
    let exported = orgdeck_at(&proxy.base, &key, &["export", file], None, &[]).await;
    worked_around(&exported, "export");
    let text = std::fs::read_to_string(file).unwrap();
    assert_eq!(text.matches("[[roles]]").count(), 8, "{text}");
    let planned = orgdeck_at(&proxy.base, &key, &["plan", file], None, &[]).await;
    worked_around(&planned, "plan");
    assert!(planned.stdout.contains("No changes"), "{}", planned.stdout);
    drop(server);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subs_test_says_the_server_has_no_test_delivery() {
    let (server, proxy, key) = august_2025().await;
    let id = server.get(&key, &server.subscriptions_path()).await.json["results"][0]["id"]
        .as_i64()
        .unwrap()
        .to_string();
    let run = orgdeck_at(&proxy.base, &key, &["subs", "test", &id], None, &[]).await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "this server has no test delivery (an older PostHog): subscription {id} exists"
        )),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty());
    // A subscription that is not there is said to be missing, not the endpoint.
    let run = orgdeck_at(&proxy.base, &key, &["subs", "test", "999999"], None, &[]).await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(!run.stderr.contains("no test delivery"), "{}", run.stderr);
    assert!(run.stderr.contains("404"), "{}", run.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_s_roles_are_read_from_a_server_that_answers_500_to_paged_roles() {
    // A person's page and an offboarding read the roles' embedded members
    // a page of roles at a time; answered 500, they read the roles as the
    // list read whole does (asked again without limit and offset) and each
    // role's memberships: the same roles as from today's server.
    let (server, proxy, key) = august_2025().await;
    let person = crate::support::LEAVER;
    let args = ["people", "show", person, "-o", "json"];
    let today = orgdeck_at(&server.base, &key, &args, None, &[]).await;
    assert_eq!(today.code, 0, "{}", today.stderr);
    let older = orgdeck_at(&proxy.base, &key, &args, None, &[]).await;
    worked_around(&older, "people show");
    let roles = |run: &Run| run.json()["roles"].clone();
    assert!(!roles(&today).as_array().unwrap().is_empty(), "{}", today.stdout);
    assert_eq!(roles(&older), roles(&today));
}
