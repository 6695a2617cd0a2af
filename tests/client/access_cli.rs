//! `orgdeck access person|role|who|review` as admins use them, against the
//! reference server: each source of a level in both resolution modes
//! (`serve --access-resolution most-specific` and the organization's
//! switch), Hedgebox's stories asked as an admin would, a plan without
//! access control, members the caller may not see, a project the key may
//! not read, keys PostHog will not list, and the review: stable from run
//! to run, and its diff after changes made through the API.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::cli::{Run, orgdeck_at};
use crate::support::proxy::FaultProxy;
use crate::support::{ADMIN, MEMBER, OWNER, TestServer};

const AMARA: &str = "amara.eze@hedgebox.dev"; // in no role
const IVAN: &str = "ivan.petrov@hedgebox.dev"; // own rule member on Web, Engineering admin
const ROSA: &str = "rosa.martinez@hedgebox.dev"; // Marketing
const PRIYA: &str = "priya.raman@hedgebox.dev"; // manages the retention cohort by her own rule
const TOMAS: &str = "tomas.novak@hedgebox.dev"; // made the Board pack; Finance, On-call
const DIEGO: &str = "diego.fernandez@hedgebox.dev"; // Engineering
const MATEO: &str = "mateo.garcia@hedgebox.dev"; // Support; his own rule takes him off Mobile

async fn run(server: &TestServer, key: &str, args: &[&str]) -> Run {
    orgdeck_at(&server.base, key, args, None, &[("COLUMNS", "200".as_ref())]).await
}

/// `access person EMAIL -o json`, which must succeed.
async fn person(server: &TestServer, key: &str, email: &str) -> Value {
    let run = run(server, key, &["access", "person", email, "-o", "json"]).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.json()
}

/// A project of a person's answer, by id.
fn project(access: &Value, id: i64) -> &Value {
    access["projects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|project| project["project"]["id"] == id)
        .unwrap_or_else(|| panic!("no project {id} in {access}"))
}

/// A resource's line in a project, or `None` when it is at the default.
fn resource<'a>(project: &'a Value, name: &str) -> Option<&'a Value> {
    project["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|line| line["resource"] == name)
}

/// (level, why) of a line.
fn said(line: &Value) -> (String, String) {
    (
        line["level"].as_str().unwrap_or("-").to_string(),
        line["why"].as_str().unwrap().to_string(),
    )
}

fn pair(level: &str, why: &str) -> (String, String) {
    (level.to_string(), why.to_string())
}

async fn most_specific(server: &TestServer, owner: &str, on: bool) {
    let path = format!("/api/organizations/{}/", server.organization);
    server
        .patch(owner, &path, json!({"uses_most_specific_access_resolution": on}))
        .await
        .expect(StatusCode::OK);
}

async fn join_role(server: &TestServer, owner: &str, role: &str, email: &str) {
    let roles = server.all(owner, &server.roles_path()).await;
    let role = roles.iter().find(|found| found["name"] == role).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let member = server
        .get(
            owner,
            &format!(
                "/api/organizations/{}/members/?email={email}",
                server.organization
            ),
        )
        .await;
    let uuid = member.json["results"][0]["user"]["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    server
        .post(
            owner,
            &format!("{}{role}/role_memberships/", server.roles_path()),
            json!({"user_uuid": uuid}),
        )
        .await
        .expect(StatusCode::CREATED);
}

/// Every source of a level, read through `access person` while the
/// highest rule wins, then once the most specific one does.
#[tokio::test]
async fn each_source_of_access_in_both_modes() {
    let server = TestServer::demo().await;
    let owner = server.key(&["*"]);

    // An organization admin bypasses every rule: Mobile's closed to everyone.
    let bruno = person(&server, &owner, ADMIN).await;
    assert_eq!(
        said(&project(&bruno, 2)["project_level"]),
        pair("admin", "organization admin")
    );
    assert_eq!(
        said(resource(project(&bruno, 1), "dashboard").unwrap()),
        pair("manager", "organization admin")
    );
    // A role's rule: Engineering administers Web; Ivan's own rule (member) is outranked.
    let ivan = person(&server, &owner, IVAN).await;
    let web = project(&ivan, 1);
    assert_eq!(said(&web["project_level"]), pair("admin", "role Engineering"));
    assert_eq!(web["project_level"]["own"], "member");
    assert_eq!(
        web["project_level"]["outranked"],
        json!([{"by": "own rule", "level": "member"}])
    );
    assert_eq!(web["project_level"]["default"], "member");
    // Two roles at the same level are both named.
    assert_eq!(
        said(&project(&ivan, 2)["project_level"]),
        pair("member", "roles Engineering, On-call")
    );
    // A resource-wide rule of a role, and everyone's beneath it.
    let diego = person(&server, &owner, DIEGO).await;
    let flags = resource(project(&diego, 1), "feature_flag").unwrap();
    assert_eq!(said(flags), pair("editor", "role Engineering"));
    assert_eq!(
        (flags["default"].as_str(), flags["default_why"].as_str()),
        (Some("viewer"), Some("everyone"))
    );
    // Everyone's rule, and the built-in default, for someone in no role.
    let amara = person(&server, &owner, AMARA).await;
    let web = project(&amara, 1);
    assert_eq!(said(&web["project_level"]), pair("member", "everyone"));
    assert!(resource(web, "dashboard").is_none(), "at the project's default");
    let others = web["others"].as_array().unwrap();
    let at = |why: &str, name: &str| {
        others.iter().any(|group| {
            group["why"] == why && group["resources"].as_array().unwrap().iter().any(|r| r == name)
        })
    };
    assert!(
        at("built-in default", "dashboard") && at("everyone", "insight"),
        "{others:?}"
    );
    assert_eq!(
        said(&project(&amara, 2)["project_level"]),
        pair("none", "everyone")
    );
    // Object rules: her own (Priya manages the retention cohort), a role's
    // (Tomás's Finance views the Board pack), and what the server gives
    // them there (Tomás made it: he is its creator).
    let priya = person(&server, &owner, PRIYA).await;
    let rules = project(&priya, 1)["object_rules"].as_array().unwrap().clone();
    let cohort = rules
        .iter()
        .find(|rule| rule["name"] == "Retention cohort")
        .unwrap();
    assert_eq!(
        (cohort["rule"].as_str(), cohort["by"].as_str()),
        (Some("manager"), Some("own rule"))
    );
    assert_eq!(cohort["effective"], "manager");
    let tomas = person(&server, &owner, TOMAS).await;
    let rules = project(&tomas, 1)["object_rules"].as_array().unwrap().clone();
    let board = rules.iter().find(|rule| rule["name"] == "Board pack").unwrap();
    assert_eq!(
        (board["rule"].as_str(), board["by"].as_str()),
        (Some("viewer"), Some("role Finance"))
    );
    assert_eq!(
        (board["effective"].as_str(), board["effective_source"].as_str()),
        (Some("manager"), Some("creator"))
    );
    let incident = rules.iter().find(|rule| rule["resource"] == "notebook").unwrap();
    assert_eq!(
        (incident["by"].as_str(), incident["effective"].as_str()),
        (Some("role On-call"), Some("editor"))
    );
    // A role's rule on one object that denies: Marketing and the new-checkout flag.
    let rosa = person(&server, &owner, ROSA).await;
    let flag = &project(&rosa, 1)["object_rules"][0];
    assert_eq!(
        (flag["name"].as_str(), flag["rule"].as_str()),
        (Some("new-checkout"), Some("none"))
    );
    assert_eq!(flag["effective"], "none");

    // The same people once the most specific rule wins.
    most_specific(&server, &owner, true).await;
    let ivan = person(&server, &owner, IVAN).await;
    assert_eq!(ivan["organization"]["mode"], "most-specific");
    let web = project(&ivan, 1);
    assert_eq!(said(&web["project_level"]), pair("member", "own rule"));
    assert_eq!(
        web["project_level"]["outranked"],
        json!([{"by": "role Engineering", "level": "admin"}])
    );
    let mateo = person(&server, &owner, MATEO).await;
    assert_eq!(
        said(&project(&mateo, 2)["project_level"]),
        pair("none", "own rule")
    );
    let bruno = person(&server, &owner, ADMIN).await;
    assert_eq!(
        said(&project(&bruno, 2)["project_level"]),
        pair("admin", "organization admin")
    );

    // The table says the same in words.
    let table = run(&server, &owner, &["access", "person", IVAN]).await.ok();
    assert!(
        table.stdout.contains("Hedgebox Web (1): member · own rule"),
        "{}",
        table.stdout
    );
    assert!(
        table.stdout.contains("role Engineering: admin"),
        "{}",
        table.stdout
    );
    assert!(
        table.stdout.contains("resolves access by the most specific rule"),
        "{}",
        table.stdout
    );
}

/// A server started in the most-specific mode reads the same as one
/// switched to it.
#[tokio::test]
async fn a_server_resolving_most_specific_first() {
    let server = TestServer::demo_with(|options| {
        options.access.resolution = orgdeck::api::access::Mode::MostSpecific;
    })
    .await;
    let owner = server.key(&["*"]);
    let mateo = person(&server, &owner, MATEO).await;
    assert_eq!(
        said(&project(&mateo, 2)["project_level"]),
        pair("none", "own rule")
    );
    let outranked = &project(&mateo, 2)["project_level"]["outranked"];
    assert_eq!(outranked, &json!([{"by": "role Support", "level": "member"}]));
    // One project alone with the global --project.
    let run = run(
        &server,
        &owner,
        &["access", "person", MATEO, "--project", "2", "-o", "json"],
    )
    .await;
    assert_eq!(run.json()["projects"].as_array().unwrap().len(), 1);
}

/// "Why can the contractor see our feature flags?": the agency's first
/// contractor joins; Contractors' rule says none, but while the highest
/// rule wins everyone's viewer does; once the most specific wins, the role
/// decides. `access role` and `access who` tell the same story.
#[tokio::test]
async fn why_can_the_contractor_see_the_feature_flags() {
    let server = TestServer::demo().await;
    let owner = server.key(&["*"]);
    join_role(&server, &owner, "Contractors", AMARA).await;
    let amara = person(&server, &owner, AMARA).await;
    assert_eq!(amara["roles"][0]["name"], "Contractors");
    let flags = resource(project(&amara, 1), "feature_flag").expect("a rule of her role is about flags");
    assert_eq!(said(flags), pair("viewer", "everyone"));
    assert_eq!(
        flags["outranked"],
        json!([{"by": "role Contractors", "level": "none"}])
    );
    assert_eq!(
        said(&project(&amara, 2)["project_level"]),
        pair("none", "role Contractors")
    );

    let role = run(&server, &owner, &["access", "role", "contractors", "-o", "json"])
        .await
        .ok()
        .json();
    assert_eq!(role["role"]["members"][0]["email"], AMARA);
    let web = role["projects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["project"]["id"] == 1)
        .unwrap();
    let flags = web["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["resource"] == "feature_flag")
        .unwrap();
    assert_eq!(
        (flags["own"].as_str(), flags["level"].as_str()),
        (Some("none"), Some("viewer"))
    );
    let table = run(&server, &owner, &["access", "role", "Contractors"])
        .await
        .ok();
    assert!(
        table
            .stdout
            .contains("Role Contractors · 1 member: Amara Eze <amara.eze@hedgebox.dev>"),
        "{}",
        table.stdout
    );

    most_specific(&server, &owner, true).await;
    let amara = person(&server, &owner, AMARA).await;
    let flags = resource(project(&amara, 1), "feature_flag").unwrap();
    assert_eq!(said(flags), pair("none", "role Contractors"));

    // Who can see the new-checkout flag: not Marketing.
    let who = run(
        &server,
        &owner,
        &["access", "who", "--feature-flag", "new-checkout", "-o", "json"],
    )
    .await
    .ok()
    .json();
    let emails: Vec<&str> = who["users"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["email"].as_str().unwrap())
        .collect();
    assert!(
        emails.contains(&DIEGO) && !emails.contains(&ROSA) && !emails.contains(&AMARA),
        "{emails:?}"
    );
}

/// "Who can open the Board pack?": Finance, its maker and the admins, by
/// name and how.
#[tokio::test]
async fn who_reaches_the_board_pack_and_mobile() {
    let server = TestServer::demo().await;
    let owner = server.key(&["*"]);
    let who = run(
        &server,
        &owner,
        &[
            "access",
            "who",
            "--dashboard",
            "board PACK",
            "--project",
            "1",
            "-o",
            "json",
        ],
    )
    .await
    .ok()
    .json();
    assert_eq!(who["target"]["name"], "Board pack");
    let how = |email: &str| {
        who["users"]
            .as_array()
            .unwrap()
            .iter()
            .find(|user| user["email"] == email)
            .map(|user| {
                (
                    user["level"].as_str().unwrap().to_string(),
                    user["how"].as_str().unwrap().to_string(),
                )
            })
    };
    assert_eq!(how(TOMAS), Some(pair("manager", "created it")));
    assert_eq!(
        how("fatima.alsayed@hedgebox.dev"),
        Some(pair("viewer", "role Finance (viewer, managed by Terraform)"))
    );
    assert_eq!(how(OWNER), Some(pair("manager", "organization admin")));
    assert_eq!(how(MEMBER), None, "Product's Elif is not among them");
    let table = run(&server, &owner, &["access", "who", "--project", "2"])
        .await
        .ok();
    assert!(
        table.stdout.contains("reach the project Hedgebox Mobile (2):"),
        "{}",
        table.stdout
    );
    assert!(
        table.stdout.contains("Jade Nguyen") && table.stdout.contains("own rule (admin)"),
        "{}",
        table.stdout
    );
    assert!(!table.stdout.contains("Amara Eze"), "{}", table.stdout);
    // Ivan's own rule on Hedgebox Web is `member` (his role makes him its
    // admin): PostHog calls that source `project_admin`, which he is not
    // by that rule, so the words say what the rule is.
    let kpis = run(
        &server,
        &owner,
        &["access", "who", "--dashboard", "1", "-o", "json"],
    )
    .await
    .ok()
    .json();
    let ivan = kpis["users"]
        .as_array()
        .unwrap()
        .iter()
        .find(|user| user["email"] == "ivan.petrov@hedgebox.dev")
        .unwrap();
    assert_eq!(ivan["how"], "their own rule on the project", "{ivan}");
    // A name nobody has is refused, saying so.
    let missing = run(&server, &owner, &["access", "who", "--dashboard", "Nope"])
        .await
        .fails(2);
    assert!(
        missing.stderr.contains("is called \"Nope\""),
        "{}",
        missing.stderr
    );
}

/// A plan without access control: the levels are the built-in defaults,
/// and the person's page says the stored rules are not enforced.
#[tokio::test]
async fn a_plan_without_access_control_says_so() {
    let server = TestServer::demo_with(|options| {
        options.access.plan = orgdeck::api::access::Plan {
            access_control: false,
            role_based_access: true,
        };
    })
    .await;
    let owner = server.key(&["*"]);
    let amara = person(&server, &owner, AMARA).await;
    let mobile = project(&amara, 2);
    assert_eq!(said(&mobile["project_level"]), pair("admin", "built-in default"));
    assert!(
        mobile["notes"][0]
            .as_str()
            .unwrap()
            .contains("a plan without access control"),
        "{mobile}"
    );
    let table = run(&server, &owner, &["access", "person", AMARA]).await.ok();
    assert!(
        table
            .stdout
            .contains("note: the server reads no access rule here"),
        "{}",
        table.stdout
    );
    // PostHog's organization says its plan: that is believed first.
    let proxy = FaultProxy::start(&server.base).await;
    let organization = server
        .get(&owner, &format!("/api/organizations/{}/", server.organization))
        .await
        .json;
    let mut said_plan = organization.clone();
    said_plan["available_product_features"] = json!([{"key": "role_based_access", "name": "RBAC"}]);
    proxy.answer_matching("GET /api/organizations/@current/ ", 200, &said_plan.to_string());
    let run = orgdeck_at(
        &proxy.base,
        &owner,
        &["access", "person", ADMIN, "-o", "json"],
        None,
        &[],
    )
    .await;
    let bruno = run.json();
    assert_eq!(bruno["organization"]["access_control"], false);
    assert!(
        project(&bruno, 1)["notes"][0]
            .as_str()
            .unwrap()
            .contains("a plan without access control")
    );
}

/// Members the caller may not see, and a project the key may not read,
/// are said in words, per project.
#[tokio::test]
async fn hidden_members_and_unreadable_projects_are_said() {
    let server = TestServer::demo().await;
    let owner = server.key(&["*"]);
    server
        .patch(
            &owner,
            &format!("/api/organizations/{}/", server.organization),
            json!({"members_can_see_org_members": false}),
        )
        .await
        .expect(StatusCode::OK);
    let elif = server.key_for(MEMBER, &["*"]);
    let ada = person(&server, &elif, OWNER).await;
    for project in ada["projects"].as_array().unwrap() {
        assert!(
            project["unknown"].as_str().unwrap().starts_with("hidden:"),
            "{project}"
        );
    }
    let table = run(&server, &elif, &["access", "person", OWNER]).await.ok();
    assert!(
        table
            .stdout
            .contains("unknown: hidden: the organization hides its members"),
        "{}",
        table.stdout
    );
    // Amara does not reach Mobile: asked about it, the server refuses.
    let amara = server.key_for(AMARA, &["*"]);
    let run = run(
        &server,
        &amara,
        &["access", "person", IVAN, "--project", "2", "-o", "json"],
    )
    .await;
    let ivan = run.json();
    assert_eq!(
        project(&ivan, 2)["unknown"],
        "not readable with this key: You don't have access to the project."
    );
    // A notebook whose every rule is `none` for the key's user is hidden
    // from them (a 404): said as hidden, not as a missing object.
    let priya = self::run(&server, &owner, &["access", "person", PRIYA])
        .await
        .ok();
    let line = priya
        .stdout
        .lines()
        .find(|line| line.contains("Q4 pricing experiment"))
        .unwrap_or_else(|| panic!("{}", priya.stdout));
    assert!(
        line.contains("hidden from this key's user (no rule lets them see it)") && !line.contains("404"),
        "{line}"
    );
}

/// Strips the one line that differs between two reviews of an unchanged
/// organization: when each was taken.
fn without_time(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("taken_at") {
            Some(at) => line[..at].to_string(),
            None => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The review: every member and project, stable from run to run, in JSON
/// and CSV; its diff after changes made through the API tells who gained
/// and who lost what, exit 2; nothing changed, exit 0; a file that is not
/// a review, exit 1.
#[tokio::test]
async fn the_review_is_stable_and_its_diff_tells_what_changed() {
    let server = TestServer::demo().await;
    let owner = server.key(&["*"]);
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
    for (format, first, second) in [("json", "a.json", "b.json"), ("csv", "a.csv", "b.csv")] {
        run(
            &server,
            &owner,
            &["access", "review", "-o", format, "--out", &path(first)],
        )
        .await;
        let done = run(
            &server,
            &owner,
            &["access", "review", "-o", format, "--out", &path(second)],
        )
        .await;
        assert_eq!(done.code, 0, "{}", done.stderr);
        assert!(
            done.stderr.contains("reviewed 40 members in 2 projects"),
            "{}",
            done.stderr
        );
        let (a, b) = (
            std::fs::read_to_string(path(first)).unwrap(),
            std::fs::read_to_string(path(second)).unwrap(),
        );
        assert_eq!(without_time(&a), without_time(&b), "{format}");
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path(first)).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "a review names everyone: owner-only");
    }
    let review: Value = serde_json::from_str(&std::fs::read_to_string(path("a.json")).unwrap()).unwrap();
    assert_eq!(review["members"].as_array().unwrap().len(), 40);
    assert_eq!(review["resolution"], "highest-wins");
    assert!(review["host"].as_str().unwrap().starts_with("http://127.0.0.1:"));
    let web = &review["projects"][0];
    assert_eq!(
        web["defaults"]["project"],
        json!({"level": "member", "source": "everyone"})
    );
    let ivan = web["access"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["email"] == IVAN)
        .unwrap();
    assert_eq!(
        ivan["cells"]["project"],
        json!({"level": "admin", "source": "role Engineering"})
    );
    assert_eq!(
        ivan["cells"].as_object().unwrap().len(),
        35,
        "the project and every resource"
    );
    let csv = std::fs::read_to_string(path("a.csv")).unwrap();
    assert!(csv.starts_with("# orgdeck access review\n"));
    assert!(csv.contains("\n# resolution: highest-wins\n"));
    assert!(csv.lines().any(|line| line.starts_with(&format!(
        "{IVAN},Ivan Petrov,,,,,1,Hedgebox Web,,admin,role Engineering,"
    ))));
    let text = run(&server, &owner, &["access", "review"]).await;
    assert!(
        text.stdout.contains("Access review of Hedgebox Inc."),
        "{}",
        text.stdout
    );

    // Nothing changed: exit 0 against either file.
    for old in ["a.json", "a.csv"] {
        let same = run(&server, &owner, &["access", "review", "--diff", &path(old)]).await;
        assert_eq!(same.code, 0, "{old}: {} {}", same.stdout, same.stderr);
        assert!(
            same.stdout.starts_with("No change in access since "),
            "{}",
            same.stdout
        );
    }

    // Changes through the API: Amara joins Contractors, the organization
    // resolves most-specific-first, and Rosa becomes an admin.
    join_role(&server, &owner, "Contractors", AMARA).await;
    most_specific(&server, &owner, true).await;
    let rosa = server
        .get(
            &owner,
            &format!("/api/organizations/{}/members/?email={ROSA}", server.organization),
        )
        .await;
    let rosa_uuid = rosa.json["results"][0]["user"]["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    server
        .patch(
            &owner,
            &format!("/api/organizations/{}/members/{rosa_uuid}/", server.organization),
            json!({"level": 8}),
        )
        .await
        .expect(StatusCode::OK);
    for old in ["a.json", "a.csv"] {
        let diff = run(&server, &owner, &["access", "review", "--diff", &path(old)]).await;
        assert_eq!(diff.code, 2, "{old}: {}", diff.stderr);
        let lines: Vec<&str> = diff.stdout.lines().collect();
        let has = |wanted: &str| lines.iter().any(|line| line.contains(wanted));
        assert!(
            has("gained   amara.eze@hedgebox.dev  organization  roles: role Contractors"),
            "{lines:#?}"
        );
        assert!(
            has(
                "lost     amara.eze@hedgebox.dev  Hedgebox Web (1)  feature flags: viewer · everyone → none · role Contractors"
            ),
            "{lines:#?}"
        );
        assert!(
            has(
                "lost     ivan.petrov@hedgebox.dev  Hedgebox Web (1)  project: admin · role Engineering → member · own rule"
            ),
            "{lines:#?}"
        );
        assert!(
            has("gained   rosa.martinez@hedgebox.dev  organization  level: member → admin"),
            "{lines:#?}"
        );
        assert!(
            has(
                "gained   rosa.martinez@hedgebox.dev  Hedgebox Mobile (2)  project: none · everyone → admin · organization admin"
            ),
            "{lines:#?}"
        );
        assert!(diff.stderr.contains("changes since"), "{}", diff.stderr);
    }
    let json = run(
        &server,
        &owner,
        &["access", "review", "--diff", &path("a.json"), "-o", "json"],
    )
    .await;
    assert_eq!(json.code, 2);
    let changes = json.json();
    assert!(
        changes
            .as_array()
            .unwrap()
            .iter()
            .any(|change| change["email"] == IVAN
                && change["what"] == "project"
                && change["change"] == "lost")
    );
    // With --out, the new snapshot is kept in the old one's format, and
    // compares equal with the server right after.
    let kept = path("c.csv");
    let diff = run(
        &server,
        &owner,
        &["access", "review", "--diff", &path("a.csv"), "--out", &kept],
    )
    .await;
    assert_eq!(diff.code, 2);
    let again = run(&server, &owner, &["access", "review", "--diff", &kept]).await;
    assert_eq!(again.code, 0, "{} {}", again.stdout, again.stderr);
    // Not a review: exit 1, saying so.
    std::fs::write(path("other.txt"), "hello\n").unwrap();
    let bad = run(
        &server,
        &owner,
        &["access", "review", "--diff", &path("other.txt")],
    )
    .await;
    assert_eq!(bad.code, 1, "{}", bad.stderr);
    assert!(bad.stderr.contains("not a review"), "{}", bad.stderr);
}

/// Keys today's PostHog will not list for a personal API key are said to
/// be unknown, asked once; and -o csv is for the review alone.
#[tokio::test]
async fn keys_posthog_will_not_list_are_unknown_not_guessed() {
    let server = TestServer::demo().await;
    let owner = server.key(&["*"]);
    let proxy = FaultProxy::start(&server.base).await;
    proxy.answer_matching(
        "/scoped_api_keys/",
        403,
        r#"{"type":"authentication_error","code":"permission_denied","detail":"This action does not support personal API key access.","attr":null}"#,
    );
    let run = orgdeck_at(
        &proxy.base,
        &owner,
        &["access", "review", "-o", "json"],
        None,
        &[],
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let review = run.json();
    for member in review["members"].as_array().unwrap() {
        assert_eq!(
            member["personal_keys"],
            "unknown: not listable with a personal API key"
        );
    }
    let asked = proxy
        .requests()
        .iter()
        .filter(|line| line.contains("scoped_api_keys"))
        .count();
    assert_eq!(asked, 1, "asked once, then known for all");
    let csv = orgdeck_at(&server.base, &owner, &["roles", "list", "-o", "csv"], None, &[]).await;
    assert_eq!(csv.code, 2);
    assert!(
        csv.stderr.contains("-o csv is for `orgdeck access review`"),
        "{}",
        csv.stderr
    );
}

/// Ctrl-C stops a review between requests: exit 1, saying so, and the
/// file it was to write is left as it was.
#[tokio::test]
async fn ctrl_c_stops_a_review_and_keeps_the_old_file() {
    let server = TestServer::demo().await;
    let owner = server.key(&["*"]);
    let proxy = FaultProxy::start(&server.base).await;
    proxy.set_latency(std::time::Duration::from_millis(150));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("review.json");
    std::fs::write(&out, "the last quarter's\n").unwrap();
    let child = tokio::process::Command::new(env!("CARGO_BIN_EXE_orgdeck"))
        .args(["access", "review", "-o", "json", "--out"])
        .arg(&out)
        .env("ORGDECK_HOST", &proxy.base)
        .env("ORGDECK_API_KEY", &owner)
        .env("ORGDECK_LOG", dir.path().join("log"))
        .env("ORGDECK_CONFIG", dir.path().join("none.toml"))
        .env_remove("ORGDECK_ORG")
        .env_remove("ORGDECK_PROJECT")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    // Once it has asked for something, it is reading.
    while proxy.requests().is_empty() {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let pid = child.id().unwrap() as libc::pid_t;
    // SAFETY: kill has no memory effects; the child is ours and not reaped.
    unsafe { libc::kill(pid, libc::SIGINT) };
    let output = tokio::time::timeout(std::time::Duration::from_secs(10), child.wait_with_output())
        .await
        .expect("it stops at once")
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("stopped (Ctrl-C)"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "the last quarter's\n");
    let left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name != "log" && name != "review.json")
        .collect();
    assert!(left.is_empty(), "no temporary file is left: {left:?}");
}
