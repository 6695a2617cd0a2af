//! Offboarding checked before it starts and owners kept, run as the real
//! binary against the reference server: a key that cannot do every step
//! (a plain member's, one without a scope) refused before any, with what
//! is missing; an owner made admin by another owner before leaving, and
//! refused to an admin and to themselves.

use reqwest::StatusCode;
use serde_json::json;

use crate::cli::orgdeck_at;
use crate::offboarding::{lines, steps};
use crate::support::proxy::FaultProxy;
use crate::support::{ADMIN, LEAVER, MEMBER, TestServer};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_that_cannot_do_every_step_is_refused_before_any() {
    let server = TestServer::demo().await;
    let owner = server.key(&["*"]);
    let proxy = FaultProxy::start(&server.base).await;
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let before = still_mailing_leaver(&server, &owner).await;
    // A plain member's key: every scope, not the level.
    let member = server.key_for(MEMBER, &["*"]);
    let run = orgdeck_at(
        &proxy.base,
        &member,
        &[
            "people",
            "offboard",
            LEAVER,
            "--yes",
            "--remove-from-organization",
        ],
        None,
        &[("ORGDECK_STATE_DIR", state.as_os_str())],
    )
    .await;
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    for expected in [
        "this key cannot do every step of the plan, so nothing was changed",
        "elif.demir@hedgebox.dev (the key's user) is a member, and only an admin may change who is in a role (step 1)",
        "only an admin may remove a member (step 7)",
    ] {
        assert!(
            run.stderr.contains(expected),
            "{expected} missing: {}",
            run.stderr
        );
    }
    let writes: Vec<String> = proxy
        .requests()
        .into_iter()
        .filter(|line| !line.starts_with("GET "))
        .collect();
    assert!(writes.is_empty(), "{writes:?}");
    assert_eq!(still_mailing_leaver(&server, &owner).await, before);
    assert!(!state.join("offboarding").exists(), "no record for a run refused");

    // The dry run says so too, and changes nothing.
    let dry = orgdeck_at(
        &server.base,
        &member,
        &["people", "offboard", LEAVER, "--dry-run"],
        None,
        &[],
    )
    .await;
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    assert!(
        dry.stdout.contains("This key cannot do every step:") && dry.stdout.contains("(step 1)"),
        "{}",
        dry.stdout
    );

    // The owner's key without the scope roles need.
    let narrow = server.key(&[
        "subscription:write",
        "organization:read",
        "organization_member:read",
        "project:read",
    ]);
    let run = orgdeck_at(
        &server.base,
        &narrow,
        &["people", "offboard", LEAVER, "--yes"],
        None,
        &[],
    )
    .await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("the key lacks the 'organization:write' scope (step 1)"),
        "{}",
        run.stderr
    );
    assert_eq!(still_mailing_leaver(&server, &owner).await, before);
}

async fn level_of_bruno(server: &TestServer, key: &str) -> Option<i64> {
    let members = format!(
        "/api/organizations/{}/members/?email={ADMIN}",
        server.organization
    );
    server.get(key, &members).await.expect(StatusCode::OK)["results"][0]["level"].as_i64()
}

async fn still_mailing_leaver(server: &TestServer, key: &str) -> usize {
    server
        .all(key, &server.subscriptions_path())
        .await
        .iter()
        .filter(|row| row["target_value"].as_str().is_some_and(|to| to.contains(LEAVER)))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owner_is_made_admin_by_another_owner_before_leaving() {
    let server = TestServer::demo().await;
    let owner = server.key(&["*"]);
    let members = format!("/api/organizations/{}/members/", server.organization);
    let bruno = server
        .get(&owner, &format!("{members}?email={ADMIN}"))
        .await
        .expect(StatusCode::OK)["results"][0]["user"]["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    server
        .patch(&owner, &format!("{members}{bruno}/"), json!({"level": 15}))
        .await
        .expect(StatusCode::OK);
    let removing = ["people", "offboard", ADMIN, "--remove-from-organization"];

    let plan = orgdeck_at(
        &server.base,
        &owner,
        &[&removing[..], &["--dry-run", "-o", "json"]].concat(),
        None,
        &[],
    )
    .await
    .ok()
    .json();
    let actions: Vec<&str> = plan["plan"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|step| step["action"].as_str().unwrap())
        .collect();
    assert_eq!(&actions[actions.len() - 2..], ["make_admin", "remove_member"]);
    assert_eq!(plan["missing"], json!([]));

    // An admin's key cannot change an owner: said, nothing done.
    let admin = server.key_for("chiara.rossi@hedgebox.dev", &["*"]);
    let refused = orgdeck_at(
        &server.base,
        &admin,
        &[&removing[..], &["--yes"]].concat(),
        None,
        &[],
    )
    .await;
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(
        refused
            .stderr
            .contains("is an admin, and only an owner may change an owner's level"),
        "{}",
        refused.stderr
    );
    assert_eq!(level_of_bruno(&server, &owner).await, Some(15));

    // The owner themselves cannot: nobody changes their own level.
    let theirs = server.key_for(ADMIN, &["*"]);
    let refused = orgdeck_at(
        &server.base,
        &theirs,
        &[&removing[..], &["--yes"]].concat(),
        None,
        &[],
    )
    .await;
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("cannot change their own level"),
        "{}",
        refused.stderr
    );

    // Another owner's key: made admin, then removed; the record says both.
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("bruno.jsonl");
    let run = orgdeck_at(
        &server.base,
        &owner,
        &[&removing[..], &["--yes", "--record", record.to_str().unwrap()]].concat(),
        None,
        &[],
    )
    .await;
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(level_of_bruno(&server, &owner).await, None, "no longer a member");
    let written = lines(&record);
    let done: Vec<&str> = steps(&written)
        .iter()
        .filter(|step| step["status"] == "done")
        .map(|step| step["action"].as_str().unwrap())
        .collect();
    assert!(done.ends_with(&["make_admin", "remove_member"]), "{done:?}");
}

/// PostHog asks `user:read` of `users/@me`; a key without it is still
/// known, by the `user_id` its own description carries, found among the
/// members, so the check before offboarding or apply works for it too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_refused_users_me_is_known_by_its_user_id() {
    let server = TestServer::demo().await;
    let narrow = server.key_for(ADMIN, &["organization:read", "organization_member:read"]);
    let refused = server.get(&narrow, "/api/users/@me/").await;
    let detail = refused.expect_error(
        StatusCode::FORBIDDEN,
        "authentication_error",
        "permission_denied",
        None,
    );
    assert_eq!(detail, "API key missing required scope 'user:read'");
    let client = crate::support::client_for(&server.base, &narrow);
    let caller = client.caller(&server.organization).await.unwrap();
    assert_eq!(caller.user.email, ADMIN);
    assert_eq!(caller.level, Some(orgdeck::api::level::ADMIN));
    assert!(
        caller
            .lacks(&orgdeck::api::Operation::ChangeRoleMembers)
            .contains(&orgdeck::api::Lack::Scope("organization:write"))
    );
}
