//! On-call's commands through the real binary against today's PostHog:
//! pausing and resuming (with the server's refusals), test deliveries, the
//! deliveries' history with who failed and why, lists by state and resource,
//! and subscriptions built from a dashboard's insights or a Slack channel's
//! name.

use serde_json::Value;

use crate::cli::orgdeck;
use crate::support::{DEMO_DASHBOARD, DEMO_DASHBOARD_INSIGHTS, DEMO_INSIGHT, TestServer};

const START: &str = "2026-12-01";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pause_resume_test_and_the_deliveries_that_follow() {
    let server = TestServer::demo().await;
    let key = server.key(&["subscription:write"]);
    let insight = DEMO_INSIGHT.to_string();
    let created = orgdeck(
        &server,
        &key,
        &[
            "subs",
            "create",
            "--insight",
            &insight,
            "--target-type",
            "email",
            "--target-value",
            "ok@example.com, gone@mail.invalid",
            "--frequency",
            "daily",
            "--start-date",
            START,
            "-o",
            "json",
        ],
        None,
    )
    .await
    .ok()
    .json();
    let id = created["id"].to_string();

    let paused = orgdeck(&server, &key, &["subs", "pause", &id], None).await.ok();
    assert_eq!(paused.stdout.trim(), format!("paused subscription {id}"));
    let listed = orgdeck(
        &server,
        &key,
        &["subs", "list", "--state", "paused", "-o", "json"],
        None,
    )
    .await
    .ok()
    .json();
    let listed = listed.as_array().unwrap();
    assert!(listed.iter().any(|row| row["id"] == created["id"]));
    assert!(
        listed.iter().all(|row| row["enabled"] == false),
        "only paused rows"
    );
    // A paused subscription takes no test delivery: the server's 409, said.
    let refused = orgdeck(&server, &key, &["subs", "test", &id], None)
        .await
        .fails(1);
    assert!(
        refused
            .stderr
            .contains("Subscription is disabled. Re-enable it before sending a test delivery."),
        "{}",
        refused.stderr
    );
    let resumed = orgdeck(&server, &key, &["subs", "resume", &id], None).await.ok();
    assert!(
        resumed
            .stdout
            .starts_with(&format!("resumed subscription {id}; next delivery ")),
        "{}",
        resumed.stdout
    );
    let tested = orgdeck(&server, &key, &["subs", "test", &id], None).await.ok();
    assert!(
        tested.stdout.contains(&format!("orgdeck subs deliveries {id}")),
        "{}",
        tested.stdout
    );

    // Created (no delivery: none was asked for), resumed (its
    // confirmation) and tested: two deliveries, the newest first, each
    // failing one recipient of two.
    let history = orgdeck(&server, &key, &["subs", "deliveries", &id, "-o", "json"], None)
        .await
        .ok()
        .json();
    let triggers: Vec<&str> = history
        .as_array()
        .unwrap()
        .iter()
        .map(|delivery| delivery["trigger_type"].as_str().unwrap())
        .collect();
    assert_eq!(triggers, ["manual", "target_change"]);
    let failed: Vec<&Value> = history[0]["recipient_results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|result| result["status"] == "failed")
        .collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["recipient"], "gone@mail.invalid");
    let table = orgdeck(&server, &key, &["subs", "deliveries", &id], None)
        .await
        .ok()
        .stdout;
    let mut lines = table.lines();
    let header = lines.next().unwrap();
    for column in ["TIME (UTC)", "TRIGGER", "STATUS", "FAILED RECIPIENTS"] {
        assert!(header.contains(column), "{header}");
    }
    let first = lines.next().unwrap();
    assert!(first.contains("manual"), "{first}");
    // 80 columns: the error is cut with an ellipsis, the recipient is not.
    assert!(first.contains("gone@mail.invalid: Dom"), "{first}");
    assert!(
        !table.contains("ok@example.com"),
        "only the failed recipients: {table}"
    );
    let none = orgdeck(
        &server,
        &key,
        &["subs", "deliveries", &id, "--status", "skipped"],
        None,
    )
    .await
    .ok();
    assert_eq!(
        none.stdout.trim(),
        format!("no deliveries with status skipped for subscription {id}")
    );
    let bad = orgdeck(
        &server,
        &key,
        &["subs", "deliveries", &id, "--status", "lost"],
        None,
    )
    .await;
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr
            .contains("\"lost\" is not one of the allowed values: starting, completed, failed, skipped"),
        "{}",
        bad.stderr
    );
}

/// A paused subscription whose schedule has ended cannot be resumed: the
/// server's refusal, in its words, on one line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resuming_an_ended_schedule_is_refused_in_the_servers_words() {
    let server = TestServer::demo().await;
    let key = server.key(&["subscription:write"]);
    let rows = orgdeck(
        &server,
        &key,
        &["subs", "list", "--state", "ended", "-o", "json"],
        None,
    )
    .await
    .ok()
    .json();
    // An ended one, paused (the demo has some; else one is paused here).
    let rows = rows.as_array().unwrap();
    let ended_and_paused = match rows.iter().find(|row| row["enabled"] == false) {
        Some(row) => row["id"].to_string(),
        None => {
            let ended = rows.first().unwrap();
            let id = ended["id"].to_string();
            let path = format!("{}{id}/", server.subscriptions_path());
            server
                .patch(&key, &path, serde_json::json!({"enabled": false}))
                .await
                .expect(reqwest::StatusCode::OK);
            id
        }
    };
    let refused = orgdeck(&server, &key, &["subs", "resume", &ended_and_paused], None)
        .await
        .fails(1);
    assert!(
        refused.stderr.contains(
            "Subscription schedule has reached its end date. Extend until_date or remove count before re-enabling. (field: enabled)"
        ),
        "{}",
        refused.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_by_state_and_by_what_they_deliver() {
    let server = TestServer::demo().await;
    let key = server.key(&["subscription:read"]);
    for state in ["active", "paused", "overdue", "ended", "deleted", "unsupported"] {
        let table = orgdeck(&server, &key, &["subs", "list", "--state", state], None)
            .await
            .ok()
            .stdout;
        let rows: Vec<&str> = table.lines().skip(1).collect();
        assert!(!rows.is_empty(), "the demo has {state} subscriptions");
        // The STATE column names every state, active included.
        assert!(
            rows.iter()
                .all(|row| row.split_whitespace().last() == Some(state)),
            "{state}: {table}"
        );
    }
    for kind in ["insight", "dashboard", "ai_prompt"] {
        let rows = orgdeck(
            &server,
            &key,
            &["subs", "list", "--resource-type", kind, "-o", "json"],
            None,
        )
        .await
        .ok()
        .json();
        let rows = rows.as_array().unwrap();
        assert!(!rows.is_empty(), "the demo has {kind} subscriptions");
        assert!(rows.iter().all(|row| row["resource_type"] == kind), "{kind}");
    }
    // Checked before anything is sent: a usage error listing what is allowed.
    let refused = orgdeck(&server, &key, &["subs", "list", "--target-type", "sms"], None).await;
    assert_eq!(refused.code, 2);
    assert!(refused.stdout.is_empty());
    assert!(
        refused
            .stderr
            .contains("\"sms\" is not one of the allowed values: email, slack"),
        "{}",
        refused.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dashboards_export_their_insights_and_slack_channels_are_found_by_name() {
    let server = TestServer::demo().await;
    let key = server.key(&["subscription:write", "integration:read", "dashboard:read"]);
    let dashboard = DEMO_DASHBOARD.to_string();
    let every = orgdeck(
        &server,
        &key,
        &[
            "subs",
            "create",
            "--dashboard",
            &dashboard,
            "--slack-channel",
            "#data-team",
            "--frequency",
            "weekly",
            "--start-date",
            START,
            "-o",
            "json",
        ],
        None,
    )
    .await;
    assert_eq!(every.code, 0, "{}", every.stderr);
    // The default, said on stderr so that stdout stays JSON.
    assert!(
        every.stderr.contains("exporting every insight of dashboard"),
        "{}",
        every.stderr
    );
    let every = every.json();
    assert_eq!(
        every["dashboard_export_insights"],
        serde_json::json!(DEMO_DASHBOARD_INSIGHTS)
    );
    assert_eq!(every["target_type"], "slack");
    assert!(
        every["target_value"].as_str().unwrap().ends_with("|#data-team"),
        "{every}"
    );
    assert!(every["integration_id"].is_i64());

    let chosen = DEMO_DASHBOARD_INSIGHTS[1].to_string();
    let one = orgdeck(
        &server,
        &key,
        &[
            "subs",
            "create",
            "--dashboard",
            &dashboard,
            "--export-insight",
            &chosen,
            "--target-type",
            "email",
            "--target-value",
            "a@example.com",
            "--frequency",
            "daily",
            "--start-date",
            START,
            "-o",
            "json",
        ],
        None,
    )
    .await
    .ok()
    .json();
    assert_eq!(
        one["dashboard_export_insights"],
        serde_json::json!([DEMO_DASHBOARD_INSIGHTS[1]])
    );

    let unknown = orgdeck(
        &server,
        &key,
        &[
            "subs",
            "create",
            "--dashboard",
            &dashboard,
            "--slack-channel",
            "#no-such-channel",
            "--frequency",
            "daily",
            "--start-date",
            START,
        ],
        None,
    )
    .await
    .fails(2);
    assert!(unknown.stderr.contains("#no-such-channel"), "{}", unknown.stderr);
}
