//! A create that failed may have happened (issue 28, req 6): after a 5xx or
//! a lost answer, the client looks for what it created before it answers,
//! and never sends the create again blindly. PostHog of July 2026 saves a
//! subscription and then answers 500 (posthog.md 15-20): the proxy does
//! the same by forwarding the create and answering 500 in its place.

use orgdeck::api::{Error, Frequency, RoleInput, SubscriptionInput, TargetType, Weekday};
use serde_json::json;

use super::cli::orgdeck_at;
use crate::support::proxy::{Fault, FaultProxy};
use crate::support::{DEMO_INSIGHT, MEMBER, TestServer, client_for};

const FAILED: &str =
    r#"{"type":"server_error","code":"error","detail":"A server error occurred.","attr":null}"#;

fn subscription_count(server: &TestServer) -> i64 {
    server
        .running
        .db
        .read_blocking(|c| {
            Ok(
                c.query_row("SELECT COUNT(*) FROM subscriptions WHERE deleted = 0", [], |r| {
                    r.get(0)
                })?,
            )
        })
        .unwrap()
}

fn weekly(title: &str) -> SubscriptionInput {
    SubscriptionInput {
        insight: Some(Some(DEMO_INSIGHT)),
        target_type: Some(TargetType::Email),
        target_value: Some(MEMBER.into()),
        frequency: Some(Frequency::Weekly),
        interval: Some(1),
        byweekday: Some(Some(vec![Weekday::Monday])),
        start_date: orgdeck::api::time::parse_datetime("2026-12-07T09:00:00Z"),
        title: Some(Some(title.into())),
        send_test_now: Some(false),
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscription_saved_then_answered_500_is_found_not_made_twice() {
    let server = TestServer::demo().await;
    let proxy = FaultProxy::start(&server.base).await;
    let client = client_for(&proxy.base, &server.key(&["*"]));
    let project = server.project.to_string();
    let before = subscription_count(&server);
    let creates = format!("POST /api/projects/{project}/subscriptions/");
    proxy.push_for(&creates, 0, Fault::ForwardThenAnswer(500, FAILED.into()));

    let made = client
        .create_subscription(&project, &weekly("Saved, then 500"))
        .await
        .unwrap();
    assert_eq!(made.title.as_deref(), Some("Saved, then 500"));
    assert_eq!(subscription_count(&server), before + 1);
    assert_eq!(proxy.count("POST"), 1, "{:?}", proxy.requests());

    // An identical one made again, answered 500 too: the newest is found,
    // not the first (both are the key's user's, both recent).
    proxy.push_for(&creates, 0, Fault::ForwardThenAnswer(500, FAILED.into()));
    let again = client
        .create_subscription(&project, &weekly("Saved, then 500"))
        .await
        .unwrap();
    assert!(again.id > made.id, "{} after {}", again.id, made.id);
    assert_eq!(subscription_count(&server), before + 2);

    // The command line gets the same, through the same client.
    proxy.push_for(&creates, 0, Fault::ForwardThenAnswer(500, FAILED.into()));
    let key = server.key(&["*"]);
    let body = serde_json::to_string(&weekly("From the command line")).unwrap();
    let run = orgdeck_at(
        &proxy.base,
        &key,
        &["subs", "create", "--body", "-", "-o", "json"],
        Some(&body),
        &[],
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["title"], "From the command line");
    assert_eq!(subscription_count(&server), before + 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_create_not_saved_says_trying_again_is_safe() {
    let server = TestServer::demo().await;
    let proxy = FaultProxy::start(&server.base).await;
    let client = client_for(&proxy.base, &server.key(&["*"]));
    let project = server.project.to_string();
    let before = subscription_count(&server);
    // The server fails before saving: the proxy answers 503 alone.
    proxy.push_for(
        &format!("POST /api/projects/{project}/subscriptions/"),
        0,
        Fault::Answer(503, FAILED.into()),
    );
    let error = client
        .create_subscription(&project, &weekly("Never saved"))
        .await
        .unwrap_err();
    assert!(matches!(error, Error::NotCreated { .. }), "{error:?}");
    assert_eq!(error.status(), Some(503));
    let line = error.to_string();
    assert!(
        line.contains("503 error: A server error occurred.")
            && line.contains("orgdeck looked, and the subscription was not created: it is safe to try again"),
        "{line}"
    );
    assert!(!line.contains("try again later"), "{line}");
    assert_eq!(subscription_count(&server), before);
    assert_eq!(proxy.count("POST"), 1);

    // A refusal (400) was never done: no look, the server's words alone.
    let mut refused = weekly("Refused");
    refused.interval = Some(0);
    let error = client.create_subscription(&project, &refused).await.unwrap_err();
    assert!(matches!(error, Error::Api(_)), "{error:?}");
    assert_eq!(
        proxy.count("GET"),
        2,
        "the one look of before: {:?}",
        proxy.requests()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_create_that_cannot_be_told_says_so() {
    let server = TestServer::demo().await;
    let proxy = FaultProxy::start(&server.base).await;
    let client = client_for(&proxy.base, &server.key(&["*"]));
    let project = server.project.to_string();
    let subscriptions = format!("/api/projects/{project}/subscriptions/");
    proxy.push_for(
        &format!("POST {subscriptions}"),
        0,
        Fault::ForwardThenAnswer(500, FAILED.into()),
    );
    // The look fails too (a 500 on a read is not retried).
    proxy.push_for(
        &format!("GET {subscriptions}"),
        0,
        Fault::Answer(500, FAILED.into()),
    );
    let error = client
        .create_subscription(&project, &weekly("Cannot tell"))
        .await
        .unwrap_err();
    let line = error.to_string();
    assert!(matches!(error, Error::CreateUnknown { .. }), "{error:?}");
    assert!(
        line.contains("orgdeck could not tell whether the subscription was created")
            && line.contains("check before trying again"),
        "{line}"
    );
    assert_eq!(proxy.count("POST"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_role_and_a_membership_answered_5xx_are_found_by_their_keys() {
    let server = TestServer::demo().await;
    let proxy = FaultProxy::start(&server.base).await;
    let client = client_for(&proxy.base, &server.key(&["*"]));
    let roles = format!("/api/organizations/{}/roles/", server.organization);
    proxy.push_for(
        &format!("POST {roles} "),
        0,
        Fault::ForwardThenAnswer(502, FAILED.into()),
    );
    let input = RoleInput {
        name: Some("Saved, then 502".into()),
        ..Default::default()
    };
    let role = client.create_role(&server.organization, &input).await.unwrap();
    assert_eq!(role.name, "Saved, then 502");

    let member = client
        .member_by_email(&server.organization, MEMBER)
        .await
        .unwrap()
        .unwrap();
    proxy.push_for(
        &format!("POST {roles}{}/role_memberships/", role.id),
        0,
        Fault::ForwardThenDrop,
    );
    let membership = client
        .add_member(&server.organization, &role.id, &member.user.uuid)
        .await
        .unwrap();
    assert_eq!(
        membership.user.as_ref().map(|user| user.email.as_str()),
        Some(MEMBER)
    );
    assert_eq!(proxy.count("POST"), 2, "{:?}", proxy.requests());
    let listed = server
        .all(
            &server.key(&["*"]),
            &format!("{roles}{}/role_memberships/", role.id),
        )
        .await;
    assert_eq!(listed.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_older_server_is_looked_at_the_same_way() {
    let server = TestServer::seed().await;
    let proxy = FaultProxy::start(&server.base).await;
    let client = client_for(&proxy.base, &server.key(&["*"]));
    let project = server.project.to_string();
    let before = subscription_count(&server);
    proxy.push_for(
        &format!("POST /api/projects/{project}/subscriptions/"),
        0,
        Fault::ForwardThenAnswer(500, FAILED.into()),
    );
    let body = json!({
        "insight": DEMO_INSIGHT, "target_type": "email", "target_value": MEMBER,
        "frequency": "daily", "start_date": "2026-12-07T09:00:00Z", "title": "Older"
    });
    let made = client.create_subscription(&project, &body).await.unwrap();
    assert_eq!(made.title.as_deref(), Some("Older"));
    assert_eq!(subscription_count(&server), before + 1);
}
