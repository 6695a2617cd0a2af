//! Roles and subscriptions as code: `export`, `plan`, against the real
//! reference server, with the real binary.

use std::time::Instant;

use reqwest::StatusCode;
use serde_json::json;

use super::apply::Workspace;
use super::cli::{Run, orgdeck};
use crate::support::{DEMO_INSIGHT, DEMO_SLACK, MEMBER, OUTSIDER, TestServer, seeded};

async fn export(server: &TestServer, key: &str, file: &Workspace, extra: &[&str]) -> String {
    let mut args = vec!["export", file.arg()];
    args.extend_from_slice(extra);
    orgdeck(server, key, &args, None).await.ok();
    file.read()
}

async fn plan(server: &TestServer, key: &str, file: &Workspace, extra: &[&str]) -> Run {
    let mut args = vec!["plan", file.arg()];
    args.extend_from_slice(extra);
    orgdeck(server, key, &args, None).await
}

/// The plan's text with the file's path and the server's random ids put
/// as names, for snapshots.
fn redacted(text: &str, file: &Workspace, ids: &[(String, &str)]) -> String {
    let mut text = text.replace(file.arg(), "FILE");
    for (id, name) in ids {
        text = text.replace(id.as_str(), name);
    }
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fresh_export_plans_no_changes_and_is_stable() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let file = Workspace::new("org.toml");
    let text = export(&server, &key, &file, &[]).await;
    assert!(
        text.starts_with(&format!("# orgdeck export of {}\n", server.base)),
        "{text}"
    );
    assert!(text.contains(&format!("({})", server.organization)), "{text}");
    assert!(
        text.contains(&format!("project = {}\n", server.project)),
        "{text}"
    );
    assert_eq!(text.matches("[[roles]]").count(), 8);
    assert_eq!(text.matches("[[subscriptions]]").count(), 95);
    // Members one a line, for review; computed values only as comments.
    assert!(text.contains("members = [\n  \""), "{text}");
    assert!(!text.contains("\nsummary ="), "{text}");
    assert!(text.contains("# next delivery: "), "{text}");
    // Nothing secret: no key, no token.
    assert!(!text.contains(&key));
    // Stable from run to run.
    assert_eq!(export(&server, &key, &file, &[]).await, text);

    let run = plan(&server, &key, &file, &[]).await.ok();
    assert!(run.stdout.starts_with("No changes"), "{}", run.stdout);
    assert!(
        run.stdout
            .ends_with("Plan: 0 to add, 0 to change, 0 to remove.\n")
    );

    // The same as JSON, and the plan of it.
    let json_file = Workspace::new("org.json");
    let run = orgdeck(&server, &key, &["export", "-o", "json", json_file.arg()], None)
        .await
        .ok();
    assert!(run.stdout.is_empty());
    let value: serde_json::Value = serde_json::from_str(&json_file.read()).unwrap();
    assert_eq!(value["roles"].as_array().unwrap().len(), 8);
    assert_eq!(value["orgdeck"]["project"], json!(server.project));
    let run = plan(&server, &key, &json_file, &["-o", "json"]).await.ok();
    let plan_json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(plan_json["changes"], json!([]));
    assert_eq!(plan_json["add"], json!(0));

    // Sections alone.
    let roles = Workspace::new("roles.toml");
    let text = export(&server, &key, &roles, &["--roles"]).await;
    assert_eq!(text.matches("[[subscriptions]]").count(), 0);
    assert_eq!(text.matches("[[roles]]").count(), 8);
    plan(&server, &key, &roles, &[]).await.ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_schema_describes_the_file() {
    let server = TestServer::demo().await;
    let run = orgdeck(&server, "unused", &["export", "--schema"], None)
        .await
        .ok();
    let schema: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(schema["required"], json!(["orgdeck"]));
    assert_eq!(
        schema["properties"]["subscriptions"]["items"]["additionalProperties"],
        json!(false)
    );
    assert!(schema["properties"]["roles"]["items"]["properties"]["members"].is_object());
}

/// The first role's block: its id and name.
fn first_role(text: &str) -> (String, String) {
    let block = text.split("[[roles]]\n").nth(1).unwrap();
    let field = |name: &str| {
        block
            .lines()
            .find_map(|line| line.strip_prefix(&format!("{name} = \"")))
            .unwrap()
            .trim_end_matches('"')
            .to_string()
    };
    (field("id"), field("name"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edits_show_in_the_plan_exactly() {
    let server = TestServer::demo_at(seeded(), 0).await;
    let key = server.key(&["*"]);
    let file = Workspace::new("org.toml");
    let text = export(&server, &key, &file, &[]).await;
    let (role_id, role_name) = first_role(&text);
    let role_block_start = text.find(&format!("id = \"{role_id}\"")).unwrap();
    let role_block_end = role_block_start + text[role_block_start..].find("\n\n").unwrap();
    let role_block = &text[role_block_start..role_block_end];
    let first_sub = text.find("[[subscriptions]]\n").unwrap();
    let frequency_at = first_sub + text[first_sub..].find("frequency = \"").unwrap();
    let frequency_end = frequency_at + text[frequency_at..].find('\n').unwrap();
    let sub_id: i64 = text[first_sub..]
        .lines()
        .nth(1)
        .unwrap()
        .strip_prefix("id = ")
        .unwrap()
        .parse()
        .unwrap();
    let old_frequency = text[frequency_at..frequency_end].to_string();
    let new_frequency = if old_frequency.contains("daily") {
        "frequency = \"monthly\""
    } else {
        "frequency = \"daily\""
    };
    // Someone not yet in the first role.
    let newcomer = [MEMBER, crate::support::ADMIN, crate::support::OWNER]
        .into_iter()
        .find(|email| !role_block.contains(email))
        .unwrap();
    let new_block = if role_block.contains("members = []") {
        role_block.replace("members = []", &format!("members = [\n  \"{newcomer}\",\n]"))
    } else {
        role_block.replace("members = [\n", &format!("members = [\n  \"{newcomer}\",\n"))
    };
    let mut edited = String::new();
    edited.push_str(&text[..role_block_start]);
    edited.push_str(&new_block);
    edited.push_str(&text[role_block_end..frequency_at]);
    edited.push_str(new_frequency);
    edited.push_str(&text[frequency_end..]);
    let edited = edited.replace(
        &format!("name = \"{role_name}\""),
        &format!("name = \"{role_name} (renamed)\""),
    );
    let edited = format!(
        "{edited}\n# A new one, reviewed in the plan.\n[[subscriptions]]\ntitle = \"Weekly active users, Mondays\"\ninsight = {}\ntarget_type = \"email\"\ntarget_value = \"{MEMBER}\"\nfrequency = \"weekly\"\nbyweekday = [\"monday\"]\nstart_date = \"2026-12-07T09:00:00Z\"\n",
        crate::support::DEMO_INSIGHT
    );
    file.write(&edited);

    let run = plan(&server, &key, &file, &[]).await;
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .ends_with("Plan: 1 to add, 2 to change, 0 to remove.\n"),
        "{}",
        run.stdout
    );
    let shown = redacted(&run.stdout, &file, &[(role_id.clone(), "ROLE-ID")]);
    insta::assert_snapshot!("plan_of_edits", shown);

    let run = plan(&server, &key, &file, &["-o", "json"]).await;
    assert_eq!(run.code, 2);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let changes = json["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 3);
    assert_eq!(changes[0]["kind"], "role");
    assert_eq!(changes[0]["members_added"], json!([newcomer]));
    assert_eq!(changes[1]["id"], json!(sub_id.to_string()));
    assert_eq!(changes[1]["fields"][0]["field"], "frequency");
    assert_eq!(changes[2]["action"], "create");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_through_the_api_shows_as_drift() {
    let server = TestServer::demo_at(seeded(), 0).await;
    let key = server.key(&["*"]);
    let file = Workspace::new("org.toml");
    let text = export(&server, &key, &file, &[]).await;
    let first_sub = text.find("[[subscriptions]]\n").unwrap();
    let sub_id: i64 = text[first_sub..].lines().nth(1).unwrap()[5..].parse().unwrap();
    let path = format!("{}{sub_id}/", server.subscriptions_path());
    server
        .patch(
            &key,
            &path,
            json!({"title": "Changed in the web app", "interval": 3}),
        )
        .await
        .expect(StatusCode::OK);
    // Someone also joined a role outside the file: kept, and said so.
    let (role_id, _) = first_role(&text);
    let roles = server.all(&key, &server.roles_path()).await;
    let role = roles.iter().find(|role| role["id"] == json!(role_id)).unwrap();
    let has = |email: &str| role["members"].to_string().contains(email);
    let joiner = [MEMBER, crate::support::ADMIN, crate::support::OWNER]
        .into_iter()
        .find(|email| !has(email))
        .unwrap();
    let members = server
        .all(
            &key,
            &format!("/api/organizations/{}/members/", server.organization),
        )
        .await;
    let uuid = members
        .iter()
        .find(|member| member["user"]["email"] == json!(joiner))
        .unwrap()["user"]["uuid"]
        .clone();
    server
        .post(
            &key,
            &format!("{}{role_id}/role_memberships/", server.roles_path()),
            json!({"user_uuid": uuid}),
        )
        .await
        .expect(StatusCode::CREATED);

    let run = plan(&server, &key, &file, &[]).await;
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    let shown = redacted(&run.stdout, &file, &[]);
    assert!(shown.contains("~ subscription \""), "{shown}");
    assert!(shown.contains(&format!("({sub_id})\n")), "{shown}");
    assert!(
        shown.contains("    title: \"Changed in the web app\" → "),
        "{shown}"
    );
    assert!(shown.contains("    interval: 3 → 1\n"), "{shown}");
    assert!(
        shown.contains("1 role member on the server and not in the file is kept (--prune removes them)."),
        "{shown}"
    );
    assert!(
        shown.ends_with("Plan: 0 to add, 1 to change, 0 to remove.\n"),
        "{shown}"
    );

    // With --prune, the newcomer goes; roles stay unless named.
    let run = plan(&server, &key, &file, &["--prune"]).await;
    assert_eq!(run.code, 2);
    assert!(
        run.stdout.contains(&format!("    - member {joiner}\n")),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .ends_with("Plan: 0 to add, 2 to change, 0 to remove.\n"),
        "{}",
        run.stdout
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prune_removes_only_what_it_should() {
    let server = TestServer::demo_at(seeded(), 0).await;
    let key = server.key(&["*"]);
    let file = Workspace::new("org.toml");
    let text = export(&server, &key, &file, &[]).await;
    // Drop the last role and the last subscription from the file.
    let last_role = text.rfind("\n[[roles]]\n").unwrap();
    let after_role = last_role + 1 + text[last_role + 1..].find("\n\n").unwrap();
    let last_sub = text.rfind("[[subscriptions]]\n").unwrap();
    let comment_start = text[..last_sub].rfind("\n\n").unwrap();
    let dropped_sub: i64 = text[last_sub..].lines().nth(1).unwrap()[5..].parse().unwrap();
    let edited = format!("{}{}", &text[..last_role], &text[after_role..comment_start + 1]);
    file.write(&edited);

    let run = plan(&server, &key, &file, &[]).await.ok();
    assert!(
        run.stdout
            .contains("1 role on the server and not in the file is kept (--prune=roles removes them).")
    );
    assert!(
        run.stdout
            .contains("1 subscription on the server and not in the file is kept")
    );

    let run = plan(&server, &key, &file, &["--prune"]).await;
    assert_eq!(run.code, 2);
    assert!(
        run.stdout.contains(&format!("({dropped_sub}) (soft delete)\n")),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("- role"), "{}", run.stdout);
    assert!(
        run.stdout
            .ends_with("Plan: 0 to add, 0 to change, 1 to remove.\n"),
        "{}",
        run.stdout
    );

    let run = plan(&server, &key, &file, &["--prune=roles"]).await;
    assert_eq!(run.code, 2);
    assert_eq!(
        format!("\n{}", run.stdout).matches("\n- role \"").count(),
        1,
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .ends_with("Plan: 0 to add, 0 to change, 2 to remove.\n"),
        "{}",
        run.stdout
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invalid_file_gives_every_error_with_its_line() {
    let server = TestServer::demo_at(seeded(), 0).await;
    let key = server.key(&["*"]);
    let file = Workspace::new("org.toml");
    let header = format!(
        "[orgdeck]\nhost = \"{}\"\norganization = \"{}\"\nproject = {}\n",
        server.base, server.organization, server.project
    );
    // Offline problems: all at once, with lines.
    file.write(&format!(
        "{header}\n[[roles]]\nname = \"Support\"\ncolor = \"red\"\nmembers = [\n  \"no-at-sign\",\n]\n\n[[subscriptions]]\ninsight = 1\ntarget_type = \"email\"\ntarget_value = \"ops@hedgebox.dev\"\nfrequency = \"fortnightly\"\ninterval = 0\nstart_date = \"next monday\"\n"
    ));
    let run = plan(&server, &key, &file, &[]).await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stdout.is_empty());
    let shown = redacted(&run.stderr, &file, &[]);
    insta::assert_snapshot!("plan_of_invalid_file", shown);

    // Server-side problems: people who are not members, unknown insights.
    file.write(&format!(
        "{header}\n[[roles]]\nname = \"Support\"\nmembers = [\n  \"{MEMBER}\",\n  \"{OUTSIDER}\",\n]\n\n[[subscriptions]]\ninsight = \"nosuchid\"\ntarget_type = \"email\"\ntarget_value = \"ops@hedgebox.dev\"\nfrequency = \"daily\"\nstart_date = \"2026-12-07T09:00:00Z\"\n\n[[subscriptions]]\ninsight = {DEMO_INSIGHT}\ntarget_type = \"slack\"\ntarget_value = \"#no-such-channel\"\nintegration = {DEMO_SLACK}\nfrequency = \"daily\"\nstart_date = \"2026-12-07T09:00:00Z\"\n"
    ));
    let run = plan(&server, &key, &file, &[]).await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    let shown = redacted(&run.stderr, &file, &[]);
    assert!(shown.contains("FILE has 3 problems"), "{shown}");
    assert!(
        shown.contains("FILE: line 20, column 1: there is no Slack channel \"#no-such-channel\" through"),
        "{shown}"
    );
    assert!(
        shown.contains(&format!(
            "FILE: line 10, column 3: {OUTSIDER} is not a member of the organization"
        )),
        "{shown}"
    );
    assert!(
        shown.contains("FILE: line 13, column 1: insight: there is no insight with the short id nosuchid"),
        "{shown}"
    );

    // A channel the integration has passes: the plan creates it.
    let exported = Workspace::new("exported.toml");
    let text = export(&server, &key, &exported, &["--subscriptions"]).await;
    let slack_at = text.find("target_type = \"slack\"\n").unwrap();
    let channel_line = text[slack_at..].lines().nth(1).unwrap();
    assert!(channel_line.starts_with("target_value = "), "{channel_line}");
    file.write(&format!(
        "{header}\n[[subscriptions]]\ninsight = {DEMO_INSIGHT}\ntarget_type = \"slack\"\n{channel_line}\nintegration = {DEMO_SLACK}\nfrequency = \"daily\"\nstart_date = \"2026-12-07T09:00:00Z\"\n"
    ));
    let run = plan(&server, &key, &file, &[]).await;
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stdout.starts_with("+ subscription"), "{}", run.stdout);

    // Another organization's file is refused.
    file.write(&header.replace(&server.organization, "00000000-0000-0000-0000-000000000000"));
    let run = plan(&server, &key, &file, &[]).await;
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .contains("the file is of organization 00000000-0000-0000-0000-000000000000"),
        "{}",
        run.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_subscriptions_export_and_plan_quickly() {
    let server = TestServer::demo_at(seeded(), 10_000).await;
    let key = server.key(&["*"]);
    let file = Workspace::new("org.toml");
    let started = Instant::now();
    let text = export(&server, &key, &file, &[]).await;
    let exported = started.elapsed();
    // A tenth of the generated ones are soft-deleted: not exported.
    assert_eq!(text.matches("[[subscriptions]]").count(), 9_000 + 95);
    let started = Instant::now();
    let run = plan(&server, &key, &file, &[]).await.ok();
    let planned = started.elapsed();
    assert!(run.stdout.starts_with("No changes"), "{}", run.stdout);
    // A debug build on a shared machine: generous; the release figures are in the README.
    assert!(
        exported.as_secs() < 60 && planned.as_secs() < 60,
        "{exported:?} {planned:?}"
    );
}

/// The exported file with the first role renamed and given a member, the
/// first subscription's schedule changed, and a new subscription without an
/// id (after a comment); returns the edited text and the first role's id.
fn edited(text: &str, new_subscription: &str) -> (String, String) {
    let (role_id, role_name) = first_role(text);
    let role_block_start = text.find(&format!("id = \"{role_id}\"")).unwrap();
    let role_block_end = role_block_start + text[role_block_start..].find("\n\n").unwrap();
    let role_block = &text[role_block_start..role_block_end];
    let newcomer = [MEMBER, crate::support::ADMIN, crate::support::OWNER]
        .into_iter()
        .find(|email| !role_block.contains(email))
        .unwrap();
    let new_block = if role_block.contains("members = []") {
        role_block.replace("members = []", &format!("members = [\n  \"{newcomer}\",\n]"))
    } else {
        role_block.replace("members = [\n", &format!("members = [\n  \"{newcomer}\",\n"))
    }
    .replace(
        &format!("name = \"{role_name}\""),
        &format!("name = \"{role_name} (renamed)\""),
    );
    let first_sub = text.find("[[subscriptions]]\n").unwrap();
    let interval_at = first_sub + text[first_sub..].find("interval = ").unwrap();
    let interval_end = interval_at + text[interval_at..].find('\n').unwrap();
    let edited = format!(
        "{}{}{}interval = 2{}\n# A new one, reviewed in the plan.\n[[subscriptions]]\n{new_subscription}",
        &text[..role_block_start],
        new_block,
        &text[role_block_end..interval_at],
        &text[interval_end..],
    );
    (edited, role_id)
}

const NEW_SUBSCRIPTION: &str = "title = \"Weekly active users, Mondays\"\ninsight = 1\ntarget_type = \"email\"\ntarget_value = \"elif.demir@hedgebox.dev\"\nfrequency = \"weekly\"\nbyweekday = [\"monday\"]\nstart_date = \"2026-12-07T09:00:00Z\"\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn apply_does_the_plan_writes_new_ids_back_and_then_finds_nothing() {
    let server = TestServer::demo_at(seeded(), 0).await;
    let key = server.key(&["*"]);
    let file = Workspace::new("org.toml");
    let text = export(&server, &key, &file, &[]).await;
    let (text, role_id) = edited(&text, NEW_SUBSCRIPTION);
    file.write(&text);

    // --read-only refuses; "no" changes nothing.
    let run = orgdeck(&server, &key, &["apply", "--read-only", file.arg()], None).await;
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("--read-only"), "{}", run.stderr);
    let run = orgdeck(&server, &key, &["apply", file.arg()], Some("no\n")).await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("not applied: nothing was changed"),
        "{}",
        run.stderr
    );
    assert_eq!(plan(&server, &key, &file, &[]).await.code, 2);

    let record = Workspace::new("record.json");
    let run = orgdeck(
        &server,
        &key,
        &["apply", file.arg(), "--record", record.arg()],
        Some("yes\n"),
    )
    .await;
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let shown = redacted(&run.stdout, &file, &[(role_id.clone(), "ROLE-ID")]);
    let new_id: i64 = {
        let at = shown
            .find("✓ create subscription \"Weekly active users, Mondays\" (")
            .unwrap();
        let rest = &shown[at..];
        rest[rest.find('(').unwrap() + 1..rest.find(')').unwrap()]
            .parse()
            .unwrap()
    };
    let shown = shown.replace(&format!("({new_id})"), "(NEW-ID)");
    insta::assert_snapshot!("apply_of_edits", shown);

    // The new id is in the file, after its comment, the rest as it was.
    let after = file.read();
    assert_eq!(
        after,
        text.replace(
            "# A new one, reviewed in the plan.\n[[subscriptions]]\n",
            &format!("# A new one, reviewed in the plan.\n[[subscriptions]]\nid = {new_id}\n")
        )
    );
    let recorded: serde_json::Value = serde_json::from_str(&record.read()).unwrap();
    let steps = recorded["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 4);
    assert!(steps.iter().all(|step| step["ok"] == json!(true)));

    // What the server holds now: no test delivery was sent on the save.
    let created = server
        .get(&key, &format!("{}{new_id}/", server.subscriptions_path()))
        .await;
    let created = created.expect(StatusCode::OK);
    assert_eq!(created["byweekday"], json!(["monday"]));
    let deliveries = server
        .get(
            &key,
            &format!("{}{new_id}/deliveries/", server.subscriptions_path()),
        )
        .await;
    assert_eq!(deliveries.json["results"], json!([]), "{}", deliveries.text);

    // A second plan and a second apply find nothing to do.
    let run = plan(&server, &key, &file, &[]).await.ok();
    assert!(run.stdout.starts_with("No changes"), "{}", run.stdout);
    let run = orgdeck(&server, &key, &["apply", "--yes", file.arg()], None)
        .await
        .ok();
    assert_eq!(run.stdout, "Nothing to do: the server matches the file.\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_step_leaves_the_others_done_and_exits_1() {
    // One insight at most in a dashboard's export: the second new
    // subscription is refused by the server, past the offline checks.
    let server = TestServer::demo_with(|options| options.export_cap = 1).await;
    let key = server.key(&["*"]);
    let file = Workspace::new("org.toml");
    let text = export(&server, &key, &file, &["--subscriptions"]).await;
    let refused = format!(
        "title = \"Too many insights\"\ndashboard = {}\nexport_insights = [1, 2]\ntarget_type = \"email\"\ntarget_value = \"{MEMBER}\"\nfrequency = \"daily\"\nstart_date = \"2026-12-07T09:00:00Z\"\n",
        crate::support::DEMO_DASHBOARD
    );
    file.write(&format!(
        "{text}\n[[subscriptions]]\n{refused}\n[[subscriptions]]\n{NEW_SUBSCRIPTION}"
    ));
    let run = orgdeck(&server, &key, &["apply", "--yes", file.arg()], None).await;
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("✗ create subscription \"Too many insights\": "),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("✓ create subscription \"Weekly active users, Mondays\" ("),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains(
            "1 of 2 steps failed (the others were done):\n  create subscription \"Too many insights\": "
        ),
        "{}",
        run.stderr
    );
    // The one done has its id in the file; the failed one is still to add.
    let after = file.read();
    assert_eq!(
        after.matches("\nid = ").count(),
        text.matches("\nid = ").count() + 1
    );
    let run = plan(&server, &key, &file, &[]).await;
    assert_eq!(run.code, 2);
    assert!(
        run.stdout
            .ends_with("Plan: 1 to add, 0 to change, 0 to remove.\n"),
        "{}",
        run.stdout
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn apply_with_prune_soft_deletes_and_removes_roles_only_when_named() {
    let server = TestServer::demo_at(seeded(), 0).await;
    let key = server.key(&["*"]);
    let file = Workspace::new("org.toml");
    let text = export(&server, &key, &file, &[]).await;
    let last_role = text.rfind("\n[[roles]]\n").unwrap();
    let after_role = last_role + 1 + text[last_role + 1..].find("\n\n").unwrap();
    let last_sub = text.rfind("[[subscriptions]]\n").unwrap();
    let comment_start = text[..last_sub].rfind("\n\n").unwrap();
    let dropped_sub: i64 = text[last_sub..].lines().nth(1).unwrap()[5..].parse().unwrap();
    file.write(&format!(
        "{}{}",
        &text[..last_role],
        &text[after_role..comment_start + 1]
    ));

    let run = orgdeck(&server, &key, &["apply", "--yes", "--prune", file.arg()], None).await;
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("✓ soft-delete subscription"),
        "{}",
        run.stdout
    );
    // Soft: still there, marked deleted.
    let gone = server
        .get(&key, &format!("{}{dropped_sub}/", server.subscriptions_path()))
        .await;
    assert_eq!(gone.expect(StatusCode::OK)["deleted"], json!(true));
    assert_eq!(server.all(&key, &server.roles_path()).await.len(), 8);

    let run = orgdeck(
        &server,
        &key,
        &["apply", "--yes", "--prune=roles", file.arg()],
        None,
    )
    .await;
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("✓ delete role \""), "{}", run.stdout);
    assert_eq!(server.all(&key, &server.roles_path()).await.len(), 7);
    let run = plan(&server, &key, &file, &["--prune=roles"]).await.ok();
    assert!(run.stdout.starts_with("No changes"), "{}", run.stdout);

    // Another organization's file is refused before anything is written.
    file.write(
        &file
            .read()
            .replace(&server.organization, "00000000-0000-0000-0000-000000000000"),
    );
    let run = orgdeck(&server, &key, &["apply", "--yes", file.arg()], None).await;
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("the file is of organization 00000000"),
        "{}",
        run.stderr
    );
}

/// The README's "As code" section is this session, as printed: an export,
/// an edit, its plan, the apply and the plan after it. `UPDATE_README=1`
/// writes it there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readmes_as_code_section_is_a_real_session() {
    let server = TestServer::demo_at(seeded(), 0).await;
    let key = server.key(&["*"]);
    let file = Workspace::new("hedgebox.toml");
    let exported = export(&server, &key, &file, &[]).await;
    let (text, role_id) = edited(&exported, NEW_SUBSCRIPTION);
    file.write(&text);
    let planned = plan(&server, &key, &file, &[]).await;
    assert_eq!(planned.code, 2);
    let applied = orgdeck(&server, &key, &["apply", file.arg()], Some("yes\n")).await;
    assert_eq!(applied.code, 0, "{}", applied.stderr);
    let after = file.read();
    let again = plan(&server, &key, &file, &[]).await.ok();

    let head: String = exported
        .lines()
        .take(16)
        .map(|line| format!("{line}\n"))
        .collect();
    let tail = |text: &str| -> String {
        let at = text.find("# A new one").unwrap();
        text[at..].to_string()
    };
    let session = format!(
        "$ orgdeck export hedgebox.toml\n$ head -n 16 hedgebox.toml\n{head}\
         $ $EDITOR hedgebox.toml   # rename Contractors, add Elif, interval 2 on subscription 2, and at the end:\n\
         $ tail -n 9 hedgebox.toml\n{}\
         $ orgdeck plan hedgebox.toml; echo \"exit $?\"\n{}exit 2\n\
         $ orgdeck apply hedgebox.toml\n{}\
         $ tail -n 10 hedgebox.toml\n{}\
         $ orgdeck plan hedgebox.toml\n{}",
        tail(&text),
        planned.stdout,
        applied
            .stdout
            .replacen("\n\n✓", &format!("\n{}yes\n\n✓", applied.stderr), 1),
        tail(&after),
        again.stdout,
    );
    let session = session
        .replace(&server.base, "http://127.0.0.1:8010")
        .replace(&server.organization, "0192f0c4-5b1e-7c3a-9d2f-4e6a8b0c1d2e")
        .replace(&role_id, "0192f0c4-6a2b-7d4e-8f10-2b3c4d5e6f70");
    let block = format!("<!-- as-code:start -->\n```text\n{session}```\n<!-- as-code:end -->");
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    let readme = std::fs::read_to_string(path).unwrap();
    let start = readme
        .find("<!-- as-code:start -->")
        .expect("the README has an As code session");
    let end = readme.find("<!-- as-code:end -->").unwrap() + "<!-- as-code:end -->".len();
    if std::env::var_os("UPDATE_README").is_some() {
        std::fs::write(path, format!("{}{block}{}", &readme[..start], &readme[end..])).unwrap();
    } else {
        assert_eq!(&readme[start..end], block, "run with UPDATE_README=1 to write it");
    }
}

/// An insight deleted between the check and the apply (while apply asks):
/// its subscription's step fails, the others are done, exit 1.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_insight_deleted_midway_fails_its_step_alone() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let server = TestServer::demo_at(seeded(), 0).await;
    let key = server.key(&["*"]);
    let file = Workspace::new("org.toml");
    let text = export(&server, &key, &file, &["--subscriptions"]).await;
    let doomed: i64 = server
        .running
        .db
        .read_blocking(|c| {
            Ok(
                c.query_row("SELECT MAX(id) FROM insights WHERE project_id = 1", [], |r| {
                    r.get(0)
                })?,
            )
        })
        .unwrap();
    assert_ne!(doomed, DEMO_INSIGHT);
    let on_doomed = NEW_SUBSCRIPTION
        .replace("insight = 1", &format!("insight = {doomed}"))
        .replace("Weekly active users, Mondays", "On the doomed insight");
    file.write(&format!(
        "{text}\n[[subscriptions]]\n{on_doomed}\n[[subscriptions]]\n{NEW_SUBSCRIPTION}"
    ));

    let dir = tempfile::tempdir().unwrap();
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_orgdeck"))
        .args(["apply", file.arg()])
        .env("ORGDECK_HOST", &server.base)
        .env("ORGDECK_API_KEY", &key)
        .env("ORGDECK_LOG", dir.path().join("log"))
        .env("ORGDECK_CONFIG", dir.path().join("none.toml"))
        .env_remove("ORGDECK_ORG")
        .env_remove("ORGDECK_PROJECT")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let mut asked = Vec::new();
    while !String::from_utf8_lossy(&asked).contains("Apply these changes?") {
        let mut chunk = [0u8; 256];
        let read = stderr.read(&mut chunk).await.unwrap();
        assert!(
            read > 0,
            "apply ended without asking: {}",
            String::from_utf8_lossy(&asked)
        );
        asked.extend_from_slice(&chunk[..read]);
    }
    // Checked and planned: now the insight goes.
    server
        .running
        .db
        .write_blocking(|tx| Ok(tx.execute("DELETE FROM insights WHERE id = ?1", [doomed])?))
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"yes\n").await.unwrap();
    drop(stdin);
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).await.unwrap();
    let output = child.wait_with_output().await.unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(1), "{stdout}{rest}");
    assert!(
        stdout.contains("✗ create subscription \"On the doomed insight\": "),
        "{stdout}"
    );
    assert!(
        stdout.contains("✓ create subscription \"Weekly active users, Mondays\" ("),
        "{stdout}"
    );
    assert!(
        rest.contains(
            "1 of 2 steps failed (the others were done):\n  create subscription \"On the doomed insight\": "
        ),
        "{rest}"
    );
    // The done one has its id in the file; the other has none.
    let after = file.read();
    assert_eq!(
        after.matches("\nid = ").count(),
        text.matches("\nid = ").count() + 1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_role_is_created_with_its_members_and_its_id_written_back() {
    let server = TestServer::demo_at(seeded(), 0).await;
    let key = server.key(&["*"]);
    let file = Workspace::new("roles.json");
    orgdeck(
        &server,
        &key,
        &["export", "--roles", "-o", "json", file.arg()],
        None,
    )
    .await
    .ok();
    let mut document: serde_json::Value = serde_json::from_str(&file.read()).unwrap();
    document["roles"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "Night shift", "members": [MEMBER, crate::support::ADMIN]}));
    file.write(&serde_json::to_string_pretty(&document).unwrap());

    let run = orgdeck(&server, &key, &["apply", "--yes", file.arg()], None).await;
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("+ role \"Night shift\"\n    + member "),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("✓ create role \"Night shift\" ("),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains(&format!("✓ add {MEMBER} to role \"Night shift\"\n")),
        "{}",
        run.stdout
    );

    let after: serde_json::Value = serde_json::from_str(&file.read()).unwrap();
    let created = after["roles"].as_array().unwrap().last().unwrap().clone();
    let id = created["id"].as_str().unwrap().to_string();
    // The id comes first; the entry is otherwise as written.
    assert_eq!(created.as_object().unwrap().keys().next().unwrap(), "id");
    let role = server.get(&key, &format!("{}{id}/", server.roles_path())).await;
    assert_eq!(role.expect(StatusCode::OK)["name"], "Night shift");
    let run = plan(&server, &key, &file, &[]).await.ok();
    assert!(run.stdout.starts_with("No changes"), "{}", run.stdout);
}
