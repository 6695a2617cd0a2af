//! What a subscription can deliver, by name: `dashboards list` and
//! `insights list` (searched by the server, `-o json` as it sent them),
//! and `--dashboard`, `--insight`, `--export-insight` and `--context`
//! taking a name or a short id as well as an id, a name that several have
//! refused naming them.

use serde_json::Value;

use crate::cli::orgdeck;
use crate::support::{DEMO_DASHBOARD, DEMO_DASHBOARD_NAME, DEMO_INSIGHT, DEMO_INSIGHT_NAME, TestServer};

/// The flags of a weekly e-mail subscription, besides what it delivers.
const WEEKLY: [&str; 8] = [
    "--target-type",
    "email",
    "--target-value",
    "a@example.com",
    "--frequency",
    "weekly",
    "--start-date",
    "2026-12-07",
];

/// A command that succeeded (its notes on stderr allowed), as JSON.
#[track_caller]
fn created(run: crate::cli::Run) -> Value {
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.json()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dashboards_and_insights_are_listed_and_searched() {
    let server = TestServer::demo().await;
    let key = server.key(&["dashboard:read", "insight:read"]);
    let table = orgdeck(&server, &key, &["dashboards", "list"], None)
        .await
        .ok()
        .stdout;
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].starts_with("ID") && lines[0].contains("NAME"), "{table}");
    let names: Vec<String> = lines[1..]
        .iter()
        .map(|line| line.split_once(' ').unwrap().1.trim().to_string())
        .collect();
    assert_eq!(names.len(), 8, "{table}");
    let mut sorted = names.clone();
    sorted.sort_by_key(|name| name.to_lowercase());
    assert_eq!(names, sorted, "by name, as PostHog lists those it does not pin");
    assert!(names.contains(&DEMO_DASHBOARD_NAME.to_string()));

    let found = orgdeck(
        &server,
        &key,
        &["dashboards", "list", "--search", "kpi", "-o", "json"],
        None,
    )
    .await
    .ok()
    .json();
    // As the server sent them: today's PostHog adds the creator and the
    // caller's level on each (posthog.md 16.6).
    let found = found.as_array().unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["id"], DEMO_DASHBOARD);
    assert_eq!(found[0]["name"], DEMO_DASHBOARD_NAME);
    assert_eq!(found[0]["user_access_level"], "manager");

    let insights = orgdeck(&server, &key, &["insights", "list", "-o", "json"], None)
        .await
        .ok()
        .json();
    let insights = insights.as_array().unwrap();
    assert_eq!(insights.len(), 16);
    assert!(insights.iter().all(|insight| insight["short_id"].is_string()));
    let table = orgdeck(&server, &key, &["insights", "list", "--search", "WEEKLY"], None)
        .await
        .ok()
        .stdout;
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].contains("SHORT ID"), "{table}");
    assert_eq!(lines.len(), 2, "{table}");
    assert!(lines[1].starts_with(&format!("{DEMO_INSIGHT} ")) && lines[1].ends_with(DEMO_INSIGHT_NAME));

    // The server's words for a search too long, as PostHog's.
    let long = "x".repeat(201);
    let refused = server
        .get(
            &key,
            &format!("/api/projects/{}/dashboards/?search={long}", server.project),
        )
        .await;
    assert_eq!(refused.status, 400);
    assert_eq!(refused.json["attr"], "search");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dashboard_or_an_insight_is_named_by_name_or_short_id() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let create = |delivers: Vec<String>| {
        let mut args: Vec<String> = ["subs", "create", "-o", "json"].map(String::from).to_vec();
        args.extend(delivers);
        args.extend(WEEKLY.map(String::from));
        args
    };
    let run = |args: Vec<String>| {
        let (server, key) = (&server, key.clone());
        async move {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            orgdeck(server, &key, &args, None).await
        }
    };
    // `subs create --dashboard "Company KPIs"`, as the issue ran it.
    let made = created(run(create(vec!["--dashboard".into(), DEMO_DASHBOARD_NAME.into()])).await);
    assert_eq!(made["dashboard"], DEMO_DASHBOARD);
    // An insight by its short id, and by its name in another case.
    let insights: Value = orgdeck(&server, &key, &["insights", "list", "-o", "json"], None)
        .await
        .ok()
        .json();
    let short = insights
        .as_array()
        .unwrap()
        .iter()
        .find(|insight| insight["id"] == DEMO_INSIGHT)
        .unwrap()["short_id"]
        .as_str()
        .unwrap()
        .to_string();
    for named in [short.clone(), DEMO_INSIGHT_NAME.to_uppercase()] {
        let made = created(run(create(vec!["--insight".into(), named.clone()])).await);
        assert_eq!(made["insight"], DEMO_INSIGHT, "--insight {named}");
    }
    // The insights a dashboard exports, and an AI report's context, by name.
    let made = created(
        run(create(vec![
            "--dashboard".into(),
            DEMO_DASHBOARD.to_string(),
            "--export-insight".into(),
            DEMO_INSIGHT_NAME.into(),
        ]))
        .await,
    );
    assert_eq!(
        made["dashboard_export_insights"],
        serde_json::json!([DEMO_INSIGHT])
    );
    let made = created(
        run(create(vec![
            "--prompt".into(),
            "Summarise signups".into(),
            "--context".into(),
            format!("dashboard:{DEMO_DASHBOARD_NAME}"),
        ]))
        .await,
    );
    assert_eq!(made["contexts"][0]["dashboard_id"], DEMO_DASHBOARD);
    // subs list narrows by name too.
    let listed = orgdeck(
        &server,
        &key,
        &["subs", "list", "--dashboard", DEMO_DASHBOARD_NAME, "-o", "json"],
        None,
    )
    .await
    .ok()
    .json();
    let listed = listed.as_array().unwrap();
    assert!(!listed.is_empty());
    assert!(listed.iter().all(|row| row["dashboard"] == DEMO_DASHBOARD));

    // None of that name: refused, naming those whose names hold it.
    let refused = run(create(vec!["--insight".into(), "active users".into()]))
        .await
        .fails(2);
    assert!(
        refused
            .stderr
            .contains("no insight has the name or short id \"active users\"")
            && refused
                .stderr
                .contains(&format!("{DEMO_INSIGHT} ({short}) \"{DEMO_INSIGHT_NAME}\"")),
        "{}",
        refused.stderr
    );
    // Two of that name: refused, naming both, and nothing is created.
    let project = server.project;
    let twin = server
        .running
        .db
        .write_blocking(move |tx| {
            tx.execute(
                "INSERT INTO dashboards (project_id, name) VALUES (?1, ?2)",
                rusqlite::params![project, DEMO_DASHBOARD_NAME],
            )?;
            Ok(tx.last_insert_rowid())
        })
        .unwrap();
    let before = server
        .get(&key, &format!("/api/projects/{project}/subscriptions/"))
        .await
        .json["count"]
        .clone();
    let refused = run(create(vec!["--dashboard".into(), DEMO_DASHBOARD_NAME.into()]))
        .await
        .fails(2);
    assert!(
        refused.stderr.contains(&format!(
            "--dashboard: 2 dashboards are named \"{DEMO_DASHBOARD_NAME}\"; give the id of one: {DEMO_DASHBOARD} \"{DEMO_DASHBOARD_NAME}\", {twin} \"{DEMO_DASHBOARD_NAME}\""
        )),
        "{}",
        refused.stderr
    );
    let after = server
        .get(&key, &format!("/api/projects/{project}/subscriptions/"))
        .await
        .json["count"]
        .clone();
    assert_eq!(before, after);
}
