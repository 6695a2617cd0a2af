//! The CLI against today's PostHog (posthog.md 15): a delivery on save only
//! when asked (`--send-now`), an AI report's window and contexts, the export
//! cap learnt from the server's refusal, and what the reference server never
//! sends (a Teams target, a webhook row, a partial recipient), written into
//! its database directly.

use serde_json::{Value, json};

use crate::cli::{Run, orgdeck};
use crate::support::{DEMO_DASHBOARD, DEMO_INSIGHT, TestServer};

const START: &str = "2026-12-01";

/// `subs create` of an e-mail report of the demo insight, with `extra` flags.
async fn create(server: &TestServer, key: &str, extra: &[&str]) -> Run {
    let insight = DEMO_INSIGHT.to_string();
    let mut args = vec![
        "subs",
        "create",
        "-o",
        "json",
        "--insight",
        &insight,
        "--target-type",
        "email",
        "--target-value",
        "a@b.co, c@d.co",
        "--frequency",
        "daily",
        "--start-date",
        START,
    ];
    args.extend_from_slice(extra);
    orgdeck(server, key, &args, None).await
}

async fn deliveries(server: &TestServer, key: &str, id: &str) -> Vec<Value> {
    let listed = orgdeck(server, key, &["subs", "deliveries", id, "-o", "json"], None)
        .await
        .ok()
        .json();
    listed.as_array().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_save_delivers_only_when_asked() {
    let server = TestServer::demo().await;
    let key = server.key(&["subscription:write"]);
    let quiet = create(&server, &key, &[]).await.ok().json();
    let quiet = quiet["id"].to_string();
    assert!(
        deliveries(&server, &key, &quiet).await.is_empty(),
        "created without --send-now: nothing mailed"
    );
    let loud = create(&server, &key, &["--send-now"]).await.ok().json();
    assert_eq!(deliveries(&server, &key, &loud["id"].to_string()).await.len(), 1);

    // A new target would be delivered to on save, unless told not to.
    orgdeck(
        &server,
        &key,
        &["subs", "update", &quiet, "--target-value", "e@f.co"],
        None,
    )
    .await
    .ok();
    assert!(deliveries(&server, &key, &quiet).await.is_empty());
    // --send-now alone is an update: one delivery, nothing else changed.
    let sent = orgdeck(
        &server,
        &key,
        &["subs", "update", &quiet, "--send-now", "-o", "json"],
        None,
    )
    .await
    .ok()
    .json();
    assert_eq!(sent["target_value"], "e@f.co");
    let delivered = deliveries(&server, &key, &quiet).await;
    assert_eq!(delivered.len(), 1);
    assert_eq!(delivered[0]["target_value"], "e@f.co");

    // An older server never sees the field; asking it for one is refused.
    let older = TestServer::seed().await;
    let older_key = older.key(&["subscription:write"]);
    let refused = create(&older, &older_key, &["--send-now"]).await.fails(2);
    assert!(refused.stderr.contains("older PostHog"), "{}", refused.stderr);
    let created = create(&older, &older_key, &[]).await.ok().json();
    assert!(created.get("enabled").is_none(), "{created}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ai_report_s_window_and_contexts_are_shown_and_set() {
    let server = TestServer::demo().await;
    let key = server.key(&["subscription:write", "query:read"]);
    let insight = format!("insight:{DEMO_INSIGHT}");
    let dashboard = format!("dashboard:{DEMO_DASHBOARD}");
    let report = orgdeck(
        &server,
        &key,
        &[
            "subs",
            "create",
            "-o",
            "json",
            "--prompt",
            "What changed in signups?",
            "--window",
            "last:7",
            "--context",
            &dashboard,
            "--context",
            &insight,
            "--target-type",
            "email",
            "--target-value",
            "a@b.co",
            "--frequency",
            "weekly",
            "--start-date",
            START,
        ],
        None,
    )
    .await
    .ok()
    .json();
    assert_eq!(
        report["ai_prompt_config"],
        json!({"window": {"mode": "last_n_days", "start_days_ago": 7}})
    );
    let id = report["id"].to_string();
    let shown = orgdeck(&server, &key, &["subs", "get", &id], None)
        .await
        .ok()
        .stdout;
    assert!(shown.contains("window          last 7 days"), "{shown}");
    assert!(
        shown.contains("reads           dashboard Company KPIs (#1), insight Weekly active users ("),
        "{shown}"
    );

    let changed = orgdeck(
        &server,
        &key,
        &[
            "subs",
            "update",
            &id,
            "--window",
            "range:14-7",
            "--context",
            "none",
            "-o",
            "json",
        ],
        None,
    )
    .await
    .ok()
    .json();
    assert_eq!(changed["contexts"], json!([]));
    let shown = orgdeck(&server, &key, &["subs", "get", &id], None)
        .await
        .ok()
        .stdout;
    assert!(shown.contains("window          from 14 to 7 days ago"), "{shown}");
    assert!(!shown.contains("reads "), "cleared: {shown}");

    // Checked before anything is sent: a usage error, exit 2.
    for (flags, says) in [
        (vec!["--window", "last:0"], "1 to 365"),
        (vec!["--window", "range:7-14"], "fewer days ago"),
        (vec!["--window", "weekly"], "since-last-sent"),
        (vec!["--context", "chart:1"], "dashboard:ID, insight:ID or none"),
        (
            vec!["--context", "none", "--context", "dashboard:1"],
            "give it alone",
        ),
        (
            vec![
                "--context",
                "dashboard:1",
                "--context",
                "insight:1",
                "--context",
                "insight:2",
                "--context",
                "insight:3",
            ],
            "at most 3",
        ),
    ] {
        let mut args = vec!["subs", "update", id.as_str()];
        args.extend(flags.iter().copied());
        let run = orgdeck(&server, &key, &args, None).await;
        assert_eq!(run.code, 2, "{flags:?}: {}", run.stderr);
        assert!(run.stderr.contains(says), "{flags:?}: {}", run.stderr);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_export_cap_is_learnt_from_the_server_s_refusal() {
    let server = TestServer::demo_with(|options| options.export_cap = 2).await;
    let key = server.key(&["subscription:write", "dashboard:read"]);
    let dashboard = DEMO_DASHBOARD.to_string();
    let base = [
        "subs",
        "create",
        "--dashboard",
        &dashboard,
        "--target-type",
        "email",
        "--target-value",
        "a@b.co",
        "--frequency",
        "weekly",
        "--start-date",
        START,
    ];
    // Every insight by default; refused, the first ones the server allows.
    let taken = orgdeck(&server, &key, &base, None).await.ok();
    assert!(
        taken.stdout.contains(
            "the server allows 2 insights: exporting the first 2 of 3 of dashboard 1: Weekly active users (1), "
        ) && taken.stdout.contains("choose others with --export-insight"),
        "{}",
        taken.stdout
    );
    assert!(
        taken.stdout.contains("exports         insights 1, 2"),
        "{}",
        taken.stdout
    );
    // A choice of the user's is sent as given, and the refusal shown.
    let mut chosen = base.to_vec();
    chosen.extend([
        "--export-insight",
        "1",
        "--export-insight",
        "2",
        "--export-insight",
        "3",
    ]);
    let refused = orgdeck(&server, &key, &chosen, None).await.fails(1);
    assert!(
        refused.stderr.contains("Cannot select more than 2 insights."),
        "{}",
        refused.stderr
    );
}

/// Rewrites a subscription's row as the reference server never writes it.
fn set_target(server: &TestServer, id: i64, target_type: &'static str, value: &'static str) {
    server
        .running
        .db
        .write_blocking(move |tx| {
            tx.execute(
                "UPDATE subscriptions SET target_type = ?1, target_value = ?2 WHERE id = ?3",
                rusqlite::params![target_type, value, id],
            )?;
            Ok(())
        })
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_the_reference_server_never_sends_is_shown_as_it_is() {
    let server = TestServer::demo().await;
    let key = server.key(&["subscription:write"]);
    let teams = create(&server, &key, &[]).await.ok().json();
    let teams_id = teams["id"].as_i64().unwrap();
    set_target(&server, teams_id, "teams", "https://example.webhook.office.com/x");
    let shown = orgdeck(&server, &key, &["subs", "get", &teams_id.to_string()], None)
        .await
        .ok()
        .stdout;
    assert!(
        shown.contains("target          teams https://example.webhook.office.com/x\n"),
        "{shown}"
    );
    assert!(shown.contains("state           unsupported"), "{shown}");
    assert!(
        shown.contains("upcoming        none: its channel is no longer supported"),
        "{shown}"
    );
    assert!(!shown.to_lowercase().contains("slack"), "{shown}");

    // A legacy webhook: its own state, filtered on, and a warning before pausing.
    let webhook = create(&server, &key, &[]).await.ok().json();
    let webhook_id = webhook["id"].as_i64().unwrap();
    set_target(&server, webhook_id, "webhook", "https://hooks.hedgebox.dev/x");
    let unsupported = orgdeck(
        &server,
        &key,
        &["subs", "list", "--state", "unsupported", "-o", "json"],
        None,
    )
    .await
    .ok()
    .json();
    let unsupported = unsupported.as_array().unwrap();
    assert!(unsupported.iter().any(|row| row["id"] == webhook_id));
    assert!(unsupported.iter().all(|row| row["target_type"] != "email"));
    let active = orgdeck(
        &server,
        &key,
        &["subs", "list", "--state", "active", "-o", "json"],
        None,
    )
    .await
    .ok()
    .json();
    assert!(
        !active
            .as_array()
            .unwrap()
            .iter()
            .any(|row| row["id"] == webhook_id)
    );
    let paused = orgdeck(&server, &key, &["subs", "pause", &webhook_id.to_string()], None).await;
    assert_eq!(paused.code, 0, "{}", paused.stderr);
    assert_eq!(
        paused.stderr.trim(),
        format!(
            "orgdeck: warning: #{webhook_id} delivers to webhook, which PostHog no longer supports: once paused it cannot be resumed"
        )
    );
    // A supported one pauses without a word, and lists nothing to come.
    let email = create(&server, &key, &["--send-now"]).await.ok().json();
    let email_id = email["id"].to_string();
    orgdeck(&server, &key, &["subs", "pause", &email_id], None)
        .await
        .ok();
    let shown = orgdeck(&server, &key, &["subs", "get", &email_id], None)
        .await
        .ok()
        .stdout;
    assert!(shown.contains("state           paused"), "{shown}");
    assert!(
        shown.contains("upcoming        none: paused, nothing is delivered until it is resumed"),
        "{shown}"
    );

    // A recipient reached in part is counted as partial, not as failed.
    let subscription = email["id"].as_i64().unwrap();
    server
        .running
        .db
        .write_blocking(move |tx| {
            tx.execute(
                r#"UPDATE deliveries SET status = 'completed', error = NULL, recipient_results =
                   '[{"recipient": "a@b.co", "status": "success"},
                     {"recipient": "c@d.co", "status": "partial"}]'
                   WHERE subscription_id = ?1"#,
                [subscription],
            )?;
            Ok(())
        })
        .unwrap();
    let table = orgdeck(&server, &key, &["subs", "deliveries", &email_id], None)
        .await
        .ok()
        .stdout;
    assert!(table.contains("1/2, 1 partial"), "{table}");
    assert!(table.contains("c@d.co: partial"), "{table}");
}
