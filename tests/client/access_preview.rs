//! Changes to access previewed by who gains and who loses (issue 32), the
//! CLI against the reference server: a seeded run of changes of every kind
//! (rules set and removed for roles, members and everyone, people added to
//! and taken out of roles, levels changed) in both resolution modes, each
//! previewed and then checked by the command against what the server
//! resolves after it (`access_control_members`); the switch preview against
//! the difference the server resolves once the organization switches;
//! Terraform's locked rules refused before anything is sent; `--dry-run`
//! changing nothing; and a change that takes access away asking once more,
//! Enter meaning no.

use reqwest::StatusCode;
use serde_json::{Value, json};
use std::collections::BTreeSet;

use crate::cli::{Run, orgdeck_at};
use crate::support::TestServer;

async fn run(server: &TestServer, key: &str, args: &[&str], stdin: Option<&str>) -> Run {
    orgdeck_at(&server.base, key, args, stdin, &[("COLUMNS", "200".as_ref())]).await
}

async fn most_specific(server: &TestServer, owner: &str, on: bool) {
    let path = format!("/api/organizations/{}/", server.organization);
    server
        .patch(owner, &path, json!({"uses_most_specific_access_resolution": on}))
        .await
        .expect(StatusCode::OK);
}

/// A small seeded generator (the suite's runs repeat exactly).
struct Seeded(u64);

impl Seeded {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }
}

const ROLES: [&str; 5] = ["Engineering", "Product", "Contractors", "Support", "Data"];
const PEOPLE: [&str; 4] = [
    "amara.eze@hedgebox.dev",
    "ivan.petrov@hedgebox.dev",
    "mateo.garcia@hedgebox.dev",
    "elif.demir@hedgebox.dev",
];
const RESOURCES: [&str; 4] = ["dashboard", "feature_flag", "insight", "notebook"];

/// One generated change, as a command line on Hedgebox Mobile (project 2,
/// whose rules Terraform does not lock).
fn change(seeded: &mut Seeded, held: &mut BTreeSet<(String, String)>) -> Vec<String> {
    let mut args: Vec<String> = Vec::new();
    match seeded.below(4) {
        0 | 1 => {
            let unset = seeded.below(4) == 0;
            args.extend(["access", if unset { "unset" } else { "set" }, "--project", "2"].map(String::from));
            match seeded.below(3) {
                0 => args.extend(["--role".into(), seeded.pick(&ROLES).into()]),
                1 => args.extend(["--member".into(), seeded.pick(&PEOPLE).into()]),
                _ => args.push("--everyone".into()),
            }
            let on_project = seeded.below(3) == 0;
            if !on_project {
                args.extend(["--resource".into(), seeded.pick(&RESOURCES).into()]);
            }
            if !unset {
                let levels: &[&str] = if on_project {
                    &["none", "member", "admin"]
                } else {
                    &["none", "viewer", "editor", "manager"]
                };
                args.push(seeded.pick(levels).into());
            }
        }
        2 => {
            let (role, person) = (seeded.pick(&ROLES).to_string(), seeded.pick(&PEOPLE).to_string());
            let key = (role.clone(), person.clone());
            let verb = if held.remove(&key) {
                "remove"
            } else {
                held.insert(key);
                "add"
            };
            args.extend(["members", verb, "--role", &role, "--email", &person].map(String::from));
        }
        _ => {
            let person = seeded.pick(&PEOPLE);
            let level = seeded.pick(&["member", "admin"]);
            args.extend(["people", "level", person, level].map(String::from));
        }
    }
    args.push("--yes".into());
    args
}

/// Every change of a seeded run, made through the CLI in one mode: each is
/// previewed, made, and its preview matches what the server then resolves.
async fn changes_match_the_server(most_specific_mode: bool, seed: u64) {
    let server = TestServer::demo().await;
    let owner = server.key(&["*"]);
    most_specific(&server, &owner, most_specific_mode).await;
    let mut seeded = Seeded(seed);
    // Who starts in which role, so that members add and remove alternate.
    let mut held: BTreeSet<(String, String)> = BTreeSet::new();
    for role in ROLES {
        let listed = run(
            &server,
            &owner,
            &["members", "list", "--role", role, "-o", "json"],
            None,
        )
        .await;
        for member in listed.json().as_array().unwrap() {
            if let Some(email) = member["user"]["email"].as_str() {
                held.insert((role.to_string(), email.to_string()));
            }
        }
    }
    let mut checked = 0;
    for _ in 0..14 {
        let args = change(&mut seeded, &mut held);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let done = run(&server, &owner, &args, None).await;
        // An owner cannot change their own level: the only refusal expected.
        if done.code != 0 {
            assert!(done.stderr.contains("403"), "{args:?}: {}", done.stderr);
            continue;
        }
        assert!(
            !done.stderr.contains("otherwise than previewed"),
            "{args:?} (most-specific {most_specific_mode}): {}\n{}",
            done.stdout,
            done.stderr
        );
        if done.stderr.contains("as previewed") {
            checked += 1;
        }
    }
    assert!(checked >= 6, "only {checked} changes were checked");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn previews_equal_the_server_s_levels_while_the_highest_rule_wins() {
    for seed in [3, 17] {
        changes_match_the_server(false, seed).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn previews_equal_the_server_s_levels_once_the_most_specific_rule_wins() {
    for seed in [5, 29] {
        changes_match_the_server(true, seed).await;
    }
}

/// Every (email, project, resource, level) the server resolves now.
async fn levels(server: &TestServer, key: &str) -> BTreeSet<(String, i64, String, String)> {
    let mut all = BTreeSet::new();
    for project in [1, 2] {
        let answer = server
            .get(key, &format!("/api/projects/{project}/access_control_members"))
            .await;
        for row in answer.expect(StatusCode::OK)["results"].as_array().unwrap() {
            let email = row["user"]["email"].as_str().unwrap().to_string();
            let level = |entry: &Value| {
                entry["effective_access_level"]
                    .as_str()
                    .unwrap_or("-")
                    .to_string()
            };
            all.insert((email.clone(), project, "project".into(), level(&row["project"])));
            for (resource, entry) in row["resources"].as_object().unwrap() {
                all.insert((email.clone(), project, resource.clone(), level(entry)));
            }
        }
    }
    all
}

#[tokio::test]
async fn the_switch_preview_is_what_the_server_resolves_after_the_switch() {
    let server = TestServer::demo().await;
    let owner = server.key(&["*"]);
    let preview = run(&server, &owner, &["access", "switch-preview", "-o", "json"], None).await;
    assert_eq!(preview.code, 2, "{}", preview.stderr);
    let preview = preview.json();
    assert_eq!(
        (preview["from"].as_str(), preview["to"].as_str()),
        (Some("highest-wins"), Some("most-specific"))
    );
    let previewed: BTreeSet<(String, i64, String, String)> = preview["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|line| {
            (
                line["email"].as_str().unwrap().to_string(),
                line["project"]["id"].as_i64().unwrap(),
                line["resource"].as_str().unwrap().to_string(),
                line["after_switch"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    // Ivan and Mateo, as the demo tells.
    assert!(previewed.contains(&(
        "ivan.petrov@hedgebox.dev".into(),
        1,
        "project".into(),
        "member".into()
    )));
    assert!(previewed.contains(&(
        "mateo.garcia@hedgebox.dev".into(),
        2,
        "project".into(),
        "none".into()
    )));
    let before = levels(&server, &owner).await;
    most_specific(&server, &owner, true).await;
    let after = levels(&server, &owner).await;
    let changed: BTreeSet<_> = after.difference(&before).cloned().collect();
    assert_eq!(changed, previewed);

    // Switched, nothing more changes by switching to where it is: the way
    // back is previewed, and a table says it in words.
    let back = run(&server, &owner, &["access", "switch-preview"], None).await;
    assert_eq!(back.code, 2, "{}", back.stderr);
    assert!(
        back.stdout
            .contains("resolves access most-specific; switching to highest-wins"),
        "{}",
        back.stdout
    );
    assert!(back.stdout.contains("fix: give"), "{}", back.stdout);
}

#[tokio::test]
async fn rules_terraform_owns_are_refused_before_anything_is_sent() {
    let server = TestServer::demo().await;
    let owner = server.key(&["*"]);
    let roles_before = server.all(&owner, &server.roles_path()).await.len();
    // Finance's rule on the board pack is Terraform's, and Web locks it.
    let finance = run(&server, &owner, &["roles", "delete", "Finance", "--yes"], None).await;
    assert_eq!(finance.code, 1, "{}", finance.stdout);
    assert!(
        finance.stderr.contains("refused before sending anything")
            && finance.stderr.contains("role Finance's rule on dashboard")
            && finance.stderr.contains("managed by Terraform"),
        "{}",
        finance.stderr
    );
    assert_eq!(server.all(&owner, &server.roles_path()).await.len(), roles_before);
    // Everyone's rule on insights is Terraform's too.
    let rules_before = server
        .get(&owner, "/api/projects/1/resource_access_controls")
        .await
        .json;
    let insight = run(
        &server,
        &owner,
        &[
            "access",
            "set",
            "--project",
            "1",
            "--everyone",
            "--resource",
            "insight",
            "editor",
            "--yes",
        ],
        None,
    )
    .await;
    assert_eq!(insight.code, 1);
    assert!(
        insight
            .stderr
            .contains("Terraform manages everyone's rule on insights"),
        "{}",
        insight.stderr
    );
    let removing = run(
        &server,
        &owner,
        &[
            "access",
            "unset",
            "--project",
            "1",
            "--everyone",
            "--resource",
            "insight",
            "--yes",
        ],
        None,
    )
    .await;
    assert_eq!(removing.code, 1);
    assert_eq!(
        server
            .get(&owner, "/api/projects/1/resource_access_controls")
            .await
            .json,
        rules_before,
        "nothing was sent"
    );
    // A new subject's rule on the same resource is allowed, as PostHog allows it.
    let support = run(
        &server,
        &owner,
        &[
            "access",
            "set",
            "--project",
            "1",
            "--role",
            "Support",
            "--resource",
            "insight",
            "viewer",
            "--yes",
        ],
        None,
    )
    .await;
    assert_eq!(support.code, 0, "{}", support.stderr);
    // Levels out of bounds are PostHog's refusals, before sending.
    let toolbar = run(
        &server,
        &owner,
        &[
            "access",
            "set",
            "--project",
            "2",
            "--everyone",
            "--resource",
            "toolbar",
            "editor",
        ],
        None,
    )
    .await;
    assert_eq!(toolbar.code, 2);
    assert!(
        toolbar
            .stderr
            .contains("Access level cannot be set above the maximum 'viewer' for toolbar."),
        "{}",
        toolbar.stderr
    );
    let project = run(
        &server,
        &owner,
        &["access", "set", "--project", "2", "--everyone", "viewer"],
        None,
    )
    .await;
    assert!(
        project
            .stderr
            .contains("Invalid access level. Must be one of: none, member, admin"),
        "{}",
        project.stderr
    );
}

#[tokio::test]
async fn a_dry_run_changes_nothing_and_a_loss_asks_once_more() {
    let server = TestServer::demo().await;
    let owner = server.key(&["*"]);
    let before = server.get(&owner, "/api/projects/2/access_controls").await.json;
    let dry = run(
        &server,
        &owner,
        &[
            "access",
            "set",
            "--project",
            "2",
            "--everyone",
            "member",
            "--dry-run",
        ],
        None,
    )
    .await;
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    assert!(
        dry.stdout.contains("Dry run: nothing was changed."),
        "{}",
        dry.stdout
    );
    assert!(
        dry.stdout
            .contains("project none → member in Hedgebox Mobile (2)"),
        "{}",
        dry.stdout
    );
    let dry_json = run(
        &server,
        &owner,
        &["roles", "delete", "On-call", "--dry-run", "-o", "json"],
        None,
    )
    .await;
    assert_eq!(dry_json.code, 0, "{}", dry_json.stderr);
    let effect = &dry_json.json()["preview"];
    assert_eq!(effect["losing"], 1);
    assert_eq!(effect["lines"][0]["email"], "tomas.novak@hedgebox.dev");
    assert_eq!(
        server.get(&owner, "/api/projects/2/access_controls").await.json,
        before
    );

    // Deleting On-call cuts Tomás off Mobile: asked once more, Enter is no.
    let roles = server.all(&owner, &server.roles_path()).await.len();
    let declined = run(&server, &owner, &["roles", "delete", "On-call"], Some("\n")).await;
    assert_eq!(declined.code, 1);
    assert!(
        declined.stderr.contains("1 person loses access. Go on?"),
        "{}",
        declined.stderr
    );
    assert!(
        declined
            .stdout
            .contains("Tomás Novák <tomas.novak@hedgebox.dev>: project member → none in Hedgebox Mobile (2)"),
        "{}",
        declined.stdout
    );
    assert_eq!(server.all(&owner, &server.roles_path()).await.len(), roles);
    let confirmed = run(&server, &owner, &["roles", "delete", "On-call"], Some("yes\n")).await;
    assert_eq!(confirmed.code, 0, "{}", confirmed.stderr);
    assert!(confirmed.stderr.contains("as previewed"), "{}", confirmed.stderr);
    assert_eq!(server.all(&owner, &server.roles_path()).await.len(), roles - 1);

    // A change nobody loses by is not asked about.
    let gain = run(
        &server,
        &owner,
        &[
            "members",
            "add",
            "--role",
            "Support",
            "--email",
            "amara.eze@hedgebox.dev",
        ],
        Some(""),
    )
    .await;
    assert_eq!(gain.code, 0, "{}", gain.stderr);
    assert!(!gain.stderr.contains("Go on?"), "{}", gain.stderr);
    assert!(
        gain.stdout
            .contains("project none → member in Hedgebox Mobile (2)"),
        "{}",
        gain.stdout
    );
}
