//! The scriptable CLI as scripts and people use it: the real binary against
//! the real reference server.

use std::process::Stdio;

use serde_json::Value;
use tokio::io::AsyncWriteExt;

use crate::support::{DEMO_DASHBOARD, DEMO_DASHBOARD_INSIGHTS, DEMO_INSIGHT, DEMO_SLACK, MEMBER, TestServer};

pub(crate) struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("{e}: {}", self.stdout))
    }

    #[track_caller]
    pub(crate) fn ok(self) -> Self {
        assert_eq!(self.code, 0, "stderr: {}", self.stderr);
        assert!(self.stderr.is_empty(), "stderr: {}", self.stderr);
        self
    }

    /// A failure: status non-zero, one line on stderr, nothing on stdout.
    #[track_caller]
    pub(crate) fn fails(self, code: i32) -> Self {
        assert_eq!(self.code, code, "stdout: {} stderr: {}", self.stdout, self.stderr);
        assert_eq!(self.stderr.lines().count(), 1, "stderr: {}", self.stderr);
        assert!(self.stderr.starts_with("orgdeck: "), "stderr: {}", self.stderr);
        self
    }
}

pub(crate) async fn orgdeck(server: &TestServer, key: &str, args: &[&str], stdin: Option<&str>) -> Run {
    orgdeck_at(&server.base, key, args, stdin, &[]).await
}

/// The real binary against `base` with `key`, its log, config and state in
/// a directory of its own (`env` may name others, and set `COLUMNS`).
pub(crate) async fn orgdeck_at(
    base: &str,
    key: &str,
    args: &[&str],
    stdin: Option<&str>,
    env: &[(&str, &std::ffi::OsStr)],
) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_orgdeck"));
    command
        .args(args)
        .env("ORGDECK_HOST", base)
        .env("ORGDECK_API_KEY", key)
        .env("ORGDECK_LOG", dir.path().join("log"))
        .env("ORGDECK_CONFIG", dir.path().join("no-config.toml"))
        .env("ORGDECK_STATE_DIR", dir.path().join("state"))
        .env("COLUMNS", "80")
        .envs(env.iter().copied())
        .env_remove("ORGDECK_ORG")
        .env_remove("ORGDECK_PROJECT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    if let Some(text) = stdin {
        input.write_all(text.as_bytes()).await.unwrap();
    }
    drop(input);
    let output = child.wait_with_output().await.unwrap();
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

#[track_caller]
fn assert_fits(table: &str, width: usize) {
    for line in table.lines() {
        assert!(
            unicode_width::UnicodeWidthStr::width(line) <= width,
            "too wide: {line:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn roles_in_both_formats() {
    let server = TestServer::demo().await;
    let key = server.key(&["organization:write"]);
    let table = orgdeck(&server, &key, &["roles", "list"], None).await.ok().stdout;
    assert_fits(&table, 80);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 9);
    assert!(lines[0].starts_with("ID") && lines[0].contains("NAME") && lines[0].contains("MEMBERS"));
    // Today's roles have no access level, and one may be the default.
    assert!(
        lines[0].contains("DEFAULT") && !lines[0].contains("ACCESS"),
        "{table}"
    );

    let json = orgdeck(&server, &key, &["roles", "list", "-o", "json"], None)
        .await
        .ok()
        .json();
    let roles = json.as_array().unwrap();
    assert_eq!(roles.len(), 8);
    assert!(
        roles
            .iter()
            .all(|role| role.get("feature_flags_access_level").is_none())
    );
    let id = roles[0]["id"].as_str().unwrap().to_string();

    let shown = orgdeck(&server, &key, &["roles", "get", &id], None)
        .await
        .ok()
        .stdout;
    assert!(
        shown.contains("name        Engineering") && shown.contains("default     no"),
        "{shown}"
    );
    assert!(!shown.contains("access level"), "{shown}");

    // An access level is refused before anything is sent, and said why.
    let refused = orgdeck(
        &server,
        &key,
        &["roles", "create", "--name", "Ops", "--access-level", "view"],
        None,
    )
    .await
    .fails(2);
    assert!(
        refused.stderr.contains("--access-level") && refused.stderr.contains("no access level"),
        "{}",
        refused.stderr
    );
    let created = orgdeck(
        &server,
        &key,
        &["-o", "json", "roles", "create", "--name", "Ops"],
        None,
    )
    .await
    .ok()
    .json();
    assert_eq!(
        (created["name"].as_str(), created["is_default"].as_bool()),
        (Some("Ops"), Some(false))
    );
    let new_id = created["id"].as_str().unwrap().to_string();
    let updated = orgdeck(
        &server,
        &key,
        &["roles", "update", &new_id, "--body", "-"],
        Some(r#"{"name": "Operations"}"#),
    )
    .await
    .ok()
    .stdout;
    assert!(
        updated.contains("name        Operations") && updated.contains("default     no"),
        "{updated}"
    );
    let refused = orgdeck(
        &server,
        &key,
        &["roles", "update", &new_id, "--access-level", "37"],
        None,
    )
    .await
    .fails(2);
    assert!(refused.stderr.contains("no access level"), "{}", refused.stderr);
    let deleted = orgdeck(&server, &key, &["roles", "delete", &new_id], None)
        .await
        .ok()
        .stdout;
    assert_eq!(deleted, format!("deleted role {new_id}\n"));
    let json_delete = orgdeck(&server, &key, &["roles", "delete", &id, "-o", "json"], None)
        .await
        .ok()
        .json();
    assert_eq!(json_delete["deleted"], true);
}

/// An older server (the seed flavor) has access levels: listed, shown,
/// set and changed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn roles_with_access_levels_on_an_older_server() {
    let server = TestServer::seed().await;
    let key = server.key(&["organization:write"]);
    let table = orgdeck(&server, &key, &["roles", "list"], None).await.ok().stdout;
    assert_fits(&table, 80);
    let lines: Vec<&str> = table.lines().collect();
    assert!(
        lines[0].contains("ACCESS") && !lines[0].contains("DEFAULT"),
        "{table}"
    );
    assert!(lines[1].contains("can edit") && lines[3].contains("view only"));
    let json = orgdeck(&server, &key, &["roles", "list", "-o", "json"], None)
        .await
        .ok()
        .json();
    let id = json[0]["id"].as_str().unwrap().to_string();
    let shown = orgdeck(&server, &key, &["roles", "get", &id], None)
        .await
        .ok()
        .stdout;
    assert!(
        shown.contains("name          Engineering") && shown.contains("access level  can edit (37)"),
        "{shown}"
    );
    assert!(!shown.contains("default"), "{shown}");

    let created = orgdeck(
        &server,
        &key,
        &[
            "-o",
            "json",
            "roles",
            "create",
            "--name",
            "Ops",
            "--access-level",
            "view",
        ],
        None,
    )
    .await
    .ok()
    .json();
    assert_eq!(
        (
            created["name"].as_str(),
            created["feature_flags_access_level"].as_i64()
        ),
        (Some("Ops"), Some(21))
    );
    let new_id = created["id"].as_str().unwrap().to_string();
    let updated = orgdeck(
        &server,
        &key,
        &["roles", "update", &new_id, "--body", "-", "--access-level", "37"],
        Some(r#"{"name": "Operations"}"#),
    )
    .await
    .ok()
    .stdout;
    assert!(
        updated.contains("Operations") && updated.contains("can edit (37)"),
        "{updated}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn members_by_uuid_and_by_email() {
    let server = TestServer::demo().await;
    let key = server.key(&["organization:write", "organization_member:read"]);
    let roles = orgdeck(&server, &key, &["roles", "list", "-o", "json"], None)
        .await
        .ok()
        .json();
    let finance = roles
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "Finance")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();

    let listed = orgdeck(&server, &key, &["members", "list", "--role", &finance], None)
        .await
        .ok()
        .stdout;
    assert_fits(&listed, 80);
    assert!(
        listed.contains("tomas.nov") && listed.contains("member"),
        "{listed}"
    );

    let added = orgdeck(
        &server,
        &key,
        &[
            "members",
            "add",
            "--role",
            &finance,
            "--email",
            MEMBER,
            "--email",
            "LENA.fischer@hedgebox.dev",
        ],
        None,
    )
    .await
    .ok()
    .stdout;
    assert_eq!(added.lines().count(), 2, "{added}");
    assert!(
        added.starts_with(&format!("added {MEMBER} (membership ")),
        "{added}"
    );
    let members = orgdeck(
        &server,
        &key,
        &["members", "list", "--role", &finance, "-o", "json"],
        None,
    )
    .await
    .ok()
    .json();
    assert_eq!(members.as_array().unwrap().len(), 4);
    let uuid = members[0]["user"]["uuid"].as_str().unwrap().to_string();

    // One fails, one succeeds: a result per user, and a non-zero exit.
    let mixed = orgdeck(
        &server,
        &key,
        &[
            "members",
            "add",
            "--role",
            &finance,
            "--user",
            &uuid,
            "--email",
            "nobody@x.io",
        ],
        None,
    )
    .await;
    assert_eq!(mixed.code, 1);
    assert!(
        mixed.stderr.contains("User is already part of the role.") && mixed.stderr.contains("nobody@x.io"),
        "{}",
        mixed.stderr
    );

    let removed = orgdeck(
        &server,
        &key,
        &["members", "remove", "--role", &finance, "--email", MEMBER],
        None,
    )
    .await
    .ok()
    .stdout;
    assert!(removed.starts_with("removed membership "));
    let membership = members[0]["id"].as_str().unwrap().to_string();
    orgdeck(
        &server,
        &key,
        &["members", "remove", "--role", &finance, &membership, "-o", "json"],
        None,
    )
    .await
    .ok();
    let left = orgdeck(
        &server,
        &key,
        &["members", "list", "--role", &finance, "-o", "json"],
        None,
    )
    .await
    .ok()
    .json();
    assert_eq!(left.as_array().unwrap().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriptions_in_both_formats() {
    // More than a page of them.
    let server = TestServer::start(orgdeck::server::Seed::Demo, 150).await;
    // Writing, reading the Slack integrations and the dashboards' tiles that
    // Slack channels and exports are chosen from, and query access for an
    // AI report (posthog.md 3).
    let key = server.key(&[
        "subscription:write",
        "integration:read",
        "dashboard:read",
        "query:read",
    ]);
    let table = orgdeck(&server, &key, &["subs", "list", "--target-type", "slack"], None)
        .await
        .ok()
        .stdout;
    assert_fits(&table, 80);
    assert!(table.lines().next().unwrap().contains("NEXT (UTC)"));
    assert!(
        table.lines().skip(1).all(|line| line.contains("slack:")),
        "{table}"
    );

    let all = orgdeck(&server, &key, &["subscriptions", "list", "-o", "json"], None)
        .await
        .ok()
        .json();
    let count = all.as_array().unwrap().len();
    assert!(count > 200, "every page is followed: {count}");
    let ordered = orgdeck(
        &server,
        &key,
        &[
            "subs",
            "list",
            "--ordering",
            "-next_delivery_date",
            "--search",
            "growth",
            "-o",
            "json",
        ],
        None,
    )
    .await
    .ok()
    .json();
    assert!(!ordered.as_array().unwrap().is_empty());

    // Dates from the clock the server keeps, so that the run passes on any day.
    let now = orgdeck::clock::system_now();
    let start = (now + chrono::Duration::days(8)).format("%Y-%m-%d").to_string();
    let until = (now + chrono::Duration::days(373)).format("%Y-%m-%d").to_string();
    let until_minute = format!("{until} 09:00");
    let created = orgdeck(
        &server,
        &key,
        &[
            "subs",
            "create",
            "-o",
            "json",
            "--target-type",
            "email",
            "--target-value",
            "a@b.co, c@d.co",
            "--insight",
            "1",
            "--frequency",
            "monthly",
            "--byweekday",
            "fri",
            "--bysetpos",
            "last",
            "--start-date",
            &start,
            "--until-date",
            &until_minute,
            "--title",
            "Month end",
            "--count",
            "10",
            "--interval",
            "1",
            "--invite-message",
            "Hello",
        ],
        None,
    )
    .await
    .ok()
    .json();
    assert_eq!(created["summary"], "sent every month on the last Friday");
    assert_eq!(
        (created["insight"].as_i64(), created["resource_type"].as_str()),
        (Some(DEMO_INSIGHT), Some("insight"))
    );
    assert_eq!(created["start_date"], format!("{start}T00:00:00Z"));
    assert_eq!(created["until_date"], format!("{until}T09:00:00Z"));
    let id = created["id"].to_string();

    let updated = orgdeck(
        &server,
        &key,
        &[
            "subs",
            "update",
            &id,
            "--until-date",
            "none",
            "--title",
            "Month end (all)",
            "-o",
            "json",
        ],
        None,
    )
    .await
    .ok()
    .json();
    assert_eq!(
        (updated["until_date"].clone(), updated["title"].clone()),
        (Value::Null, Value::from("Month end (all)"))
    );
    assert_eq!(updated["count"], 10, "fields not given are left alone");

    let shown = orgdeck(&server, &key, &["subs", "get", &id], None)
        .await
        .ok()
        .stdout;
    assert!(
        shown.contains("schedule        sent every month on the last Friday"),
        "{shown}"
    );
    assert!(
        shown.contains(&format!("insight         {DEMO_INSIGHT} (Weekly active users)")),
        "{shown}"
    );
    assert!(shown.contains("upcoming        "), "{shown}");

    let deleted = orgdeck(&server, &key, &["subs", "delete", &id], None)
        .await
        .ok()
        .stdout;
    assert!(
        deleted.contains("soft-deleted") && deleted.contains("restore"),
        "{deleted}"
    );
    let deleted_list = orgdeck(&server, &key, &["subs", "list", "--deleted", "-o", "json"], None)
        .await
        .ok()
        .json();
    assert!(
        deleted_list
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["id"] == created["id"])
    );
    let restored = orgdeck(&server, &key, &["subs", "restore", &id, "-o", "json"], None)
        .await
        .ok()
        .json();
    assert_eq!(restored["deleted"], false);

    // A body from stdin: flags override its fields, a Slack channel is found
    // by name through the project's integration, and its interval is kept.
    let from_stdin = orgdeck(
        &server,
        &key,
        &[
            "subs",
            "create",
            "--body",
            "-",
            "--frequency",
            "weekly",
            "--slack-channel",
            "oncall",
            "-o",
            "json",
        ],
        Some(
            r##"{"insight": 2, "target_type": "email", "target_value": "x@y.co", "frequency": "daily",
                 "interval": 3, "start_date": "2026-01-01T08:00:00Z"}"##,
        ),
    )
    .await;
    assert_eq!(from_stdin.code, 0, "{}", from_stdin.stderr);
    assert!(
        from_stdin.stderr.contains("posting to #oncall through Hedgebox"),
        "what was chosen is told on stderr: {}",
        from_stdin.stderr
    );
    let from_stdin = from_stdin.json();
    assert_eq!(from_stdin["frequency"], "weekly", "flags override the body");
    assert_eq!(from_stdin["interval"], 3, "the body's interval is kept");
    assert_eq!(
        (
            from_stdin["target_type"].as_str(),
            from_stdin["integration_id"].as_i64()
        ),
        (Some("slack"), Some(DEMO_SLACK))
    );
    assert!(
        from_stdin["target_value"]
            .as_str()
            .is_some_and(|target| target.ends_with("|#oncall")),
        "{from_stdin}"
    );
    let shown = orgdeck(
        &server,
        &key,
        &["subs", "get", &from_stdin["id"].to_string()],
        None,
    )
    .await
    .ok()
    .stdout;
    assert!(
        shown.contains(&format!("via Slack integration {DEMO_SLACK}"))
            && shown.contains("target          slack C"),
        "{shown}"
    );

    // A dashboard in the body exports its insights, as --dashboard does.
    let dashboard = orgdeck(
        &server,
        &key,
        &["subs", "create", "--body", "-", "-o", "json"],
        Some(&format!(
            r#"{{"dashboard": {DEMO_DASHBOARD}, "target_type": "email", "target_value": "x@y.co",
                 "frequency": "daily", "start_date": "2026-01-01T08:00:00Z"}}"#
        )),
    )
    .await;
    assert_eq!(dashboard.code, 0, "{}", dashboard.stderr);
    assert!(
        dashboard.stderr.contains("exporting every insight of dashboard"),
        "{}",
        dashboard.stderr
    );
    let dashboard = dashboard.json();
    assert_eq!(
        dashboard["dashboard_export_insights"],
        serde_json::json!(DEMO_DASHBOARD_INSIGHTS)
    );
    let shown = orgdeck(
        &server,
        &key,
        &["subs", "get", &dashboard["id"].to_string()],
        None,
    )
    .await
    .ok()
    .stdout;
    assert!(
        shown.contains("dashboard       1 (Company KPIs)")
            && shown.contains("exports         insights 1, 2, 3"),
        "{shown}"
    );

    // An AI report shows the question it answers.
    let report = orgdeck(
        &server,
        &key,
        &[
            "subs",
            "create",
            "-o",
            "json",
            "--prompt",
            "Which features grew most this week?",
            "--target-type",
            "email",
            "--target-value",
            "a@b.co",
            "--frequency",
            "weekly",
            "--start-date",
            &start,
        ],
        None,
    )
    .await
    .ok()
    .json();
    assert_eq!(report["resource_type"], "ai_prompt");
    let shown = orgdeck(&server, &key, &["subs", "get", &report["id"].to_string()], None)
        .await
        .ok()
        .stdout;
    assert!(
        shown.contains("prompt          Which features grew most this week?"),
        "{shown}"
    );
}

/// An older server (the seed flavor): nothing to deliver is needed, and a
/// dashboard is delivered whole (it shows no tiles to choose from).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriptions_on_an_older_server() {
    let server = TestServer::seed().await;
    let key = server.key(&["subscription:write"]);
    let bare = orgdeck(
        &server,
        &key,
        &[
            "subs",
            "create",
            "-o",
            "json",
            "--target-type",
            "webhook",
            "--target-value",
            "https://hooks.hedgebox.dev/x",
            "--frequency",
            "daily",
            "--start-date",
            "2026-01-01",
        ],
        None,
    )
    .await
    .ok()
    .json();
    assert_eq!(
        (bare["target_type"].as_str(), bare["interval"].as_i64()),
        (Some("webhook"), Some(1))
    );
    assert!(bare.get("resource_type").is_none(), "{bare}");
    let dashboard = orgdeck(
        &server,
        &key,
        &[
            "subs",
            "create",
            "-o",
            "json",
            "--dashboard",
            "2",
            "--target-type",
            "email",
            "--target-value",
            "a@b.co",
            "--frequency",
            "weekly",
            "--start-date",
            "2026-01-01",
        ],
        None,
    )
    .await
    .ok()
    .json();
    assert_eq!(dashboard["dashboard"], 2);
    let shown = orgdeck(
        &server,
        &key,
        &["subs", "get", &dashboard["id"].to_string()],
        None,
    )
    .await
    .ok()
    .stdout;
    assert!(shown.contains("dashboard       2"), "{shown}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_error_is_one_clear_line_and_a_non_zero_exit() {
    let server = TestServer::demo().await;
    let reader = server.key(&["organization:read"]);
    let scope = orgdeck(&server, &reader, &["roles", "create", "--name", "X"], None)
        .await
        .fails(1);
    assert!(
        scope.stderr.contains("403 permission_denied") && scope.stderr.contains("'organization:write' scope"),
        "{}",
        scope.stderr
    );
    assert!(scope.stdout.is_empty());

    let writer = server.key(&["*"]);
    let clash = orgdeck(
        &server,
        &writer,
        &["roles", "create", "--name", "engineering"],
        None,
    )
    .await
    .fails(1);
    assert!(
        clash
            .stderr
            .contains("400 unique: There is already a role with this name. (field: name)"),
        "{}",
        clash.stderr
    );
    let missing = orgdeck(&server, &writer, &["subs", "get", "999999"], None)
        .await
        .fails(1);
    assert!(missing.stderr.contains("404 not_found"), "{}", missing.stderr);
    let long_title = "t".repeat(101);
    let invalid = orgdeck(
        &server,
        &writer,
        &["subs", "update", "1", "--title", &long_title],
        None,
    )
    .await
    .fails(1);
    assert!(
        invalid.stderr.contains("400 max_length") && invalid.stderr.contains("(field: title)"),
        "{}",
        invalid.stderr
    );
    let refused = orgdeck(
        &server,
        &writer,
        &[
            "subs",
            "create",
            "--target-type",
            "email",
            "--target-value",
            "a@b.co",
            "--frequency",
            "daily",
            "--start-date",
            "2026-01-01",
        ],
        None,
    )
    .await
    .fails(1);
    assert!(
        refused
            .stderr
            .contains("A subscription must have an insight, a dashboard, or a prompt."),
        "{}",
        refused.stderr
    );
    let bad_key = orgdeck(&server, "phx_wrong", &["roles", "list"], None)
        .await
        .fails(1);
    assert!(
        bad_key.stderr.contains("401 authentication_failed") && bad_key.stderr.contains("check the API key"),
        "{}",
        bad_key.stderr
    );
    assert!(!bad_key.stderr.contains("phx_wrong"), "the key is never echoed");
    let bad_org = orgdeck(&server, &writer, &["roles", "list", "--org", "nope"], None)
        .await
        .fails(1);
    assert!(
        bad_org.stderr.contains("Organization not found.") && bad_org.stderr.contains("--org"),
        "{}",
        bad_org.stderr
    );

    let mut nowhere = server.base.clone();
    nowhere.replace_range(nowhere.rfind(':').unwrap().., ":9");
    let dir = tempfile::tempdir().unwrap();
    let refused = tokio::process::Command::new(env!("CARGO_BIN_EXE_orgdeck"))
        .args(["roles", "list", "--host", &nowhere, "--timeout", "2"])
        .env("ORGDECK_API_KEY", &writer)
        .env("ORGDECK_LOG", dir.path().join("log"))
        .output()
        .await
        .unwrap();
    assert_eq!(refused.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("cannot connect to 127.0.0.1:9") && stderr.lines().count() == 1,
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn usage_errors_exit_2() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    for args in [
        vec!["roles", "create"],
        vec!["roles", "update", "x"],
        vec!["subs", "create", "--target-type", "email"],
        vec!["subs", "create", "--start-date", "next tuesday"],
        vec!["subs", "update", "1"],
        vec!["subs", "create", "--byweekday", "funday"],
        vec!["members", "add", "--role", "x"],
        vec!["members", "remove", "--role", "x"],
        vec!["roles", "create", "--name", "x", "--body", "/nonexistent.json"],
        // The console's own: a command runs once.
        vec!["--refresh", "5", "roles", "list"],
        vec!["--tz", "Europe/Paris", "roles", "list"],
        vec!["--no-mouse", "roles", "list"],
    ] {
        let run = orgdeck(&server, &key, &args, None).await;
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.starts_with("orgdeck: ") && run.stderr.lines().count() == 1,
            "{args:?}: {}",
            run.stderr
        );
    }
    // clap's own usage errors exit 2 as well.
    assert_eq!(
        orgdeck(&server, &key, &["subs", "create", "--target-type", "pager"], None)
            .await
            .code,
        2
    );
    assert_eq!(
        orgdeck(&server, &key, &["roles", "frobnicate"], None).await.code,
        2
    );
    assert_eq!(
        orgdeck(&server, &key, &["--refresh", "0"], None).await.code,
        2,
        "an interval of at least a second"
    );

    let dir = tempfile::tempdir().unwrap();
    let no_key = tokio::process::Command::new(env!("CARGO_BIN_EXE_orgdeck"))
        .args(["roles", "list"])
        .env_remove("ORGDECK_API_KEY")
        .env("ORGDECK_HOST", &server.base)
        .env("ORGDECK_LOG", dir.path().join("log"))
        .output()
        .await
        .unwrap();
    assert_eq!(no_key.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&no_key.stderr).contains("set ORGDECK_API_KEY"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_that_stops_early_is_not_an_error() {
    use tokio::io::AsyncBufReadExt;
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let dir = tempfile::tempdir().unwrap();
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_orgdeck"))
        .args(["subs", "list", "-o", "json"])
        .env("ORGDECK_HOST", &server.base)
        .env("ORGDECK_API_KEY", &key)
        .env("ORGDECK_LOG", dir.path().join("log"))
        .env("ORGDECK_CONFIG", dir.path().join("no-config.toml"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // `| head -1`: one line read, then the pipe closed (the JSON is far
    // larger than a pipe holds).
    let mut stdout = tokio::io::BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).await.unwrap();
    drop(stdout);
    let output = child.wait_with_output().await.unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_refuses_every_write_and_allows_reads() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let roles = orgdeck(&server, &key, &["roles", "list", "-o", "json"], None)
        .await
        .ok()
        .json();
    let id = roles[0]["id"].as_str().unwrap().to_string();
    for args in [
        vec!["--read-only", "roles", "delete", id.as_str()],
        vec!["roles", "create", "--name", "Nope", "--read-only"],
        vec![
            "--read-only",
            "members",
            "add",
            "--role",
            id.as_str(),
            "--email",
            "a@b.co",
        ],
        vec!["--read-only", "subs", "delete", "1"],
        vec!["--read-only", "subs", "pause", "1"],
        vec!["--read-only", "subs", "test", "1"],
    ] {
        let run = orgdeck(&server, &key, &args, None).await.fails(2);
        assert!(run.stderr.contains("--read-only"), "{args:?}: {}", run.stderr);
    }
    // Nothing changed, and reads still work under the flag.
    let after = orgdeck(
        &server,
        &key,
        &["--read-only", "roles", "list", "-o", "json"],
        None,
    )
    .await
    .ok()
    .json();
    assert_eq!(after, roles);
    assert!(
        orgdeck(&server, &key, &["--read-only", "roles", "delete", &id], None)
            .await
            .stderr
            .contains("`orgdeck roles delete` would change things")
    );
}

/// Shell completions and the manual page, made from the command line's own
/// definition: every command is in them, and bash reads the script.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completions_and_the_manual_page_cover_every_command() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let bash = orgdeck(&server, &key, &["completions", "bash"], None).await.ok();
    for command in ["subscriptions", "health", "export", "plan", "apply", "roles"] {
        assert!(bash.stdout.contains(command), "bash lacks {command}");
    }
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("orgdeck.bash");
    std::fs::write(&script, &bash.stdout).unwrap();
    let checked = std::process::Command::new("bash")
        .arg("-n")
        .arg(&script)
        .status()
        .unwrap();
    assert!(checked.success(), "bash -n refuses the script");
    for shell in ["zsh", "fish", "powershell"] {
        let run = orgdeck(&server, &key, &["completions", shell], None).await.ok();
        assert!(
            run.stdout.contains("orgdeck") && run.stdout.contains("subscriptions"),
            "{shell}"
        );
    }
    let unknown = orgdeck(&server, &key, &["completions", "tcsh"], None).await;
    assert_eq!(unknown.code, 2, "{}", unknown.stderr);
    assert!(
        unknown
            .stderr
            .contains("possible values: bash, zsh, fish, powershell")
    );
    let man = orgdeck(&server, &key, &["man"], None).await.ok();
    assert!(
        man.stdout.starts_with(".ie") || man.stdout.contains(".TH orgdeck 1"),
        "{}",
        &man.stdout[..200]
    );
    for page in ["orgdeck-subscriptions", "orgdeck-export", "orgdeck-completions"] {
        assert!(man.stdout.contains(&format!(".TH {page}")), "no page for {page}");
    }
}

/// Roles are named wherever an id is taken (issue 24): in any case, and a
/// name that is no role's is refused with the roles there are.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn roles_are_found_by_name_as_well_as_by_id() {
    let server = TestServer::demo().await;
    let key = server.key(&["organization:write"]);
    let shown = orgdeck(
        &server,
        &key,
        &["roles", "get", "engineering", "-o", "json"],
        None,
    )
    .await
    .ok()
    .json();
    assert_eq!(shown["name"], "Engineering");
    let by_id = shown["id"].as_str().unwrap().to_string();
    let again = orgdeck(&server, &key, &["roles", "get", &by_id, "-o", "json"], None)
        .await
        .ok()
        .json();
    assert_eq!(again["id"], shown["id"]);
    orgdeck(
        &server,
        &key,
        &["roles", "update", "Contractors", "--name", "Contract staff"],
        None,
    )
    .await
    .ok();
    let unknown = orgdeck(&server, &key, &["roles", "delete", "Contractors"], None)
        .await
        .fails(2);
    assert!(unknown.stderr.contains("Contract staff"), "{}", unknown.stderr);
    orgdeck(&server, &key, &["roles", "delete", "contract STAFF"], None)
        .await
        .ok();
    let left = orgdeck(&server, &key, &["roles", "list", "-o", "json"], None)
        .await
        .ok()
        .json();
    assert_eq!(left.as_array().unwrap().len(), 7);
}
