//! Every `--dry-run` of issue 32 req 2 (`access set|unset`, `members
//! add|remove`, `people level`, `roles delete`, `people offboard`) prints
//! the preview of who gains and who loses and changes nothing on the
//! reference server: the project's rules, the roles with their members and
//! the members with their levels are the same after each. `plan
//! --dry-run` is accepted and prints the same plan as `plan`.

use serde_json::Value;

use crate::cli::orgdeck_at;
use crate::support::TestServer;

/// What a change could touch: Mobile's and Web's rules, the roles and
/// their members, the members and their levels.
async fn state(server: &TestServer, key: &str) -> Vec<Value> {
    let mut state = Vec::new();
    for path in [
        "/api/projects/1/access_controls",
        "/api/projects/2/access_controls",
        "/api/projects/1/resource_access_controls",
        "/api/projects/2/resource_access_controls",
    ] {
        state.push(server.get(key, path).await.json);
    }
    for role in server.all(key, &server.roles_path()).await {
        let id = role["id"].as_str().unwrap().to_string();
        state.push(role);
        let members = server
            .all(key, &format!("{}{id}/role_memberships/", server.roles_path()))
            .await;
        state.push(Value::Array(members));
    }
    let members = server
        .all(
            key,
            &format!("/api/organizations/{}/members/", server.organization),
        )
        .await;
    state.push(Value::Array(
        members
            .iter()
            .map(|member| serde_json::json!([member["user"]["email"], member["level"]]))
            .collect(),
    ));
    state
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_dry_run_prints_the_preview_and_changes_nothing() {
    let server = TestServer::demo().await;
    let owner = server.key(&["*"]);
    let before = state(&server, &owner).await;
    let runs: [(&[&str], &str); 7] = [
        (
            &[
                "access",
                "set",
                "--project",
                "2",
                "--role",
                "On-call",
                "none",
                "--dry-run",
            ],
            "tomas.novak@hedgebox.dev",
        ),
        (
            &[
                "access",
                "unset",
                "--project",
                "2",
                "--role",
                "On-call",
                "--dry-run",
            ],
            "tomas.novak@hedgebox.dev",
        ),
        (
            &[
                "members",
                "add",
                "--role",
                "Contractors",
                "--email",
                "amara.eze@hedgebox.dev",
                "--dry-run",
            ],
            "amara.eze@hedgebox.dev",
        ),
        (
            &[
                "members",
                "remove",
                "--role",
                "On-call",
                "--email",
                "tomas.novak@hedgebox.dev",
                "--dry-run",
            ],
            "tomas.novak@hedgebox.dev",
        ),
        (
            &["people", "level", "amara.eze@hedgebox.dev", "admin", "--dry-run"],
            "amara.eze@hedgebox.dev",
        ),
        (
            &["roles", "delete", "On-call", "--dry-run"],
            "tomas.novak@hedgebox.dev",
        ),
        (
            &["people", "offboard", "tomas.novak@hedgebox.dev", "--dry-run"],
            "tomas.novak@hedgebox.dev",
        ),
    ];
    for (args, named) in runs {
        let run = orgdeck_at(&server.base, &owner, args, None, &[("COLUMNS", "200".as_ref())]).await;
        assert_eq!(run.code, 0, "{args:?}: {}{}", run.stdout, run.stderr);
        assert!(
            run.stdout.contains(named) && run.stdout.contains(" → "),
            "{args:?} previews nobody's change: {}",
            run.stdout
        );
        assert!(
            run.stdout.to_lowercase().contains("dry run")
                || run.stdout.contains("nothing was changed")
                || run.stdout.contains("Nothing was changed"),
            "{args:?} does not say it changed nothing: {}",
            run.stdout
        );
        assert_eq!(state(&server, &owner).await, before, "{args:?} changed something");
    }
}

/// `plan --dry-run` (req 2): plan changes nothing, so `--dry-run` is
/// accepted for symmetry and prints the same plan, preview included, with
/// the same exit code; the server is the same after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_accepts_dry_run_and_prints_the_same_plan() {
    let server = TestServer::demo().await;
    let owner = server.key(&["*"]);
    let file = crate::apply::Workspace::new("dry.toml");
    let run = crate::cli::orgdeck(&server, &owner, &["export", file.arg(), "--access"], None).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = file.read();
    let block = "[[access]]\nproject = 2\nresource = \"project\"\nrole = \"On-call\"\nlevel = \"member\"\n";
    assert!(text.contains(block), "{text}");
    file.write(&text.replace(block, &block.replace("\"member\"", "\"none\"")));
    let before = state(&server, &owner).await;
    let plain = crate::cli::orgdeck(&server, &owner, &["plan", file.arg()], None).await;
    let dry = crate::cli::orgdeck(&server, &owner, &["plan", file.arg(), "--dry-run"], None).await;
    assert_eq!(plain.code, 2, "{}{}", plain.stdout, plain.stderr);
    assert_eq!(dry.code, plain.code, "{}", dry.stderr);
    assert_eq!(dry.stdout, plain.stdout);
    assert!(
        dry.stdout.contains("Tomás Novák") && dry.stdout.contains(" → "),
        "{}",
        dry.stdout
    );
    assert_eq!(
        state(&server, &owner).await,
        before,
        "plan --dry-run changed something"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_preview_tells_a_person_s_resources_moving_alike_in_one_line() {
    // Made an admin, Rahul bypasses every rule: of each project's resources,
    // those going editor → manager for that reason are one line naming
    // them, the one going viewer → manager (insights, in Web) another, and
    // the project's own line stands alone. -o json keeps a line for each.
    let server = TestServer::demo().await;
    let owner = server.key(&["*"]);
    let args = [
        "people",
        "level",
        "rahul.mehta@hedgebox.dev",
        "admin",
        "--dry-run",
    ];
    let run = orgdeck_at(&server.base, &owner, &args, None, &[]).await;
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let moved: Vec<&str> = run
        .stdout
        .lines()
        .filter(|line| line.starts_with("  + "))
        .collect();
    assert!(moved.len() <= 6, "{}", run.stdout);
    let web = moved
        .iter()
        .find(|line| line.contains("editor → manager in Hedgebox Web"))
        .expect("Web's resources in one line");
    assert!(
        web.contains(" resources (actions, customer analytics, dashboards,") && !web.contains("insights,"),
        "{web}"
    );
    assert!(
        moved
            .iter()
            .any(|line| line.contains(": insights viewer → manager in Hedgebox Web")),
        "{}",
        run.stdout
    );
    assert!(
        moved
            .iter()
            .any(|line| line.contains(": project member → admin in Hedgebox Mobile")),
        "{}",
        run.stdout
    );
    let json = orgdeck_at(
        &server.base,
        &owner,
        &[&args[..], &["-o", "json"]].concat(),
        None,
        &[],
    )
    .await;
    let value: Value = serde_json::from_str(&json.stdout).unwrap_or_else(|_| panic!("{}", json.stdout));
    let lines = value["preview"]["lines"]
        .as_array()
        .or_else(|| value["lines"].as_array())
        .map_or(0, Vec::len);
    assert!(lines > 60, "every line in JSON: {}", json.stdout);
}
