//! "managed by Terraform" wherever a rule appears (issue 32 req 5), against
//! the reference server's demo, where Terraform owns everyone's rule on
//! insights in Hedgebox Web and the Board pack's rules (everyone's and
//! Finance's), under Web's lock: `access who`, `access review` (JSON and
//! CSV), and the object-rule lines of `access person` and `access role`;
//! rules Terraform does not own are not marked.

use serde_json::Value;

use crate::cli::{Run, orgdeck_at};
use crate::support::TestServer;

const FATIMA: &str = "fatima.alsayed@hedgebox.dev"; // Finance
const TOMAS: &str = "tomas.novak@hedgebox.dev"; // made the Board pack; Finance
const SVEN: &str = "sven.aalto@hedgebox.dev"; // Data: editor on insights by its rule
const AMARA: &str = "amara.eze@hedgebox.dev"; // in no role

async fn run(server: &TestServer, key: &str, args: &[&str]) -> Run {
    orgdeck_at(&server.base, key, args, None, &[("COLUMNS", "250".as_ref())]).await
}

#[tokio::test]
async fn who_says_the_rule_terraform_manages() {
    let server = TestServer::demo().await;
    let owner = server.key(&["*"]);
    let args = ["access", "who", "--dashboard", "Board pack", "--project", "1"];
    let json = run(&server, &owner, &[&args[..], &["-o", "json"]].concat())
        .await
        .ok()
        .json();
    let user = |email: &str| {
        json["users"]
            .as_array()
            .unwrap()
            .iter()
            .find(|user| user["email"] == email)
            .cloned()
            .unwrap_or_else(|| panic!("{email} not in {json}"))
    };
    let fatima = user(FATIMA);
    assert_eq!(fatima["how"], "role Finance (viewer, managed by Terraform)");
    assert_eq!(fatima["managed_by"], "terraform");
    // Tomas made it: no rule decided, nothing managed is said.
    let tomas = user(TOMAS);
    assert_eq!(tomas["how"], "created it");
    assert!(tomas.get("managed_by").is_none(), "{tomas}");
    let table = run(&server, &owner, &args).await.ok();
    let line = table
        .stdout
        .lines()
        .find(|line| line.contains(FATIMA))
        .unwrap_or_else(|| panic!("{}", table.stdout));
    assert!(
        line.contains("role Finance (viewer, managed by Terraform)"),
        "{line}"
    );
    // The project's own rules are nobody's in Terraform: not marked.
    let project = run(&server, &owner, &["access", "who", "--project", "1"])
        .await
        .ok();
    assert!(!project.stdout.contains("Terraform"), "{}", project.stdout);
}

/// The review's cells say the rules Terraform manages, in JSON and CSV, for
/// the project's defaults and each member's cell.
#[tokio::test]
async fn the_review_says_the_rules_terraform_manages() {
    let server = TestServer::demo().await;
    let owner = server.key(&["*"]);
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
    for format in ["json", "csv"] {
        let done = run(
            &server,
            &owner,
            &["access", "review", "-o", format, "--out", &path(format)],
        )
        .await;
        assert_eq!(done.code, 0, "{}", done.stderr);
    }
    let review: Value = serde_json::from_str(&std::fs::read_to_string(path("json")).unwrap()).unwrap();
    let web = &review["projects"][0];
    assert_eq!(web["name"], "Hedgebox Web");
    assert_eq!(
        web["defaults"]["insight"]["source"],
        "everyone (managed by Terraform: everyone)"
    );
    assert_eq!(web["defaults"]["dashboard"]["source"], "built-in default");
    let cell = |email: &str, resource: &str| {
        web["access"]
            .as_array()
            .unwrap()
            .iter()
            .find(|row| row["email"] == email)
            .unwrap()["cells"][resource]
            .clone()
    };
    assert_eq!(
        cell(AMARA, "insight")["source"],
        "everyone (managed by Terraform: everyone)"
    );
    // Sven's level comes from Data's rule; everyone's, which Terraform
    // manages, also names him.
    assert_eq!(
        cell(SVEN, "insight")["source"],
        "role Data (managed by Terraform: everyone)"
    );
    assert!(
        !cell(SVEN, "feature_flag")["source"]
            .as_str()
            .unwrap()
            .contains("Terraform")
    );
    // Mobile has no rule Terraform manages.
    let mobile = serde_json::to_string(&review["projects"][1]).unwrap();
    assert!(!mobile.contains("Terraform"), "{mobile}");
    let csv = std::fs::read_to_string(path("csv")).unwrap();
    let amara = csv
        .lines()
        .find(|line| line.starts_with(&format!("{AMARA},")) && line.contains(",Hedgebox Web,"))
        .unwrap();
    assert!(
        amara.contains(",viewer,everyone (managed by Terraform: everyone),"),
        "{amara}"
    );
}

/// The object rules of a person and of a role say which of them Terraform
/// manages.
#[tokio::test]
async fn object_rule_lines_say_terraform() {
    let server = TestServer::demo().await;
    let owner = server.key(&["*"]);
    let person = run(
        &server,
        &owner,
        &["access", "person", FATIMA, "--project", "1", "-o", "json"],
    )
    .await
    .ok()
    .json();
    let rules = person["projects"][0]["object_rules"].as_array().unwrap().clone();
    let board = rules
        .iter()
        .find(|rule| rule["name"] == "Board pack")
        .unwrap_or_else(|| panic!("{person}"));
    assert_eq!(board["by"], "role Finance");
    assert_eq!(board["managed_by"], "terraform");
    let table = run(&server, &owner, &["access", "person", FATIMA, "--project", "1"])
        .await
        .ok();
    assert!(
        table.stdout.contains("role Finance (managed by Terraform)"),
        "{}",
        table.stdout
    );
    let role = run(&server, &owner, &["access", "role", "Finance", "--project", "1"])
        .await
        .ok();
    let line = role
        .stdout
        .lines()
        .find(|line| line.contains("dashboard \"Board pack\""))
        .unwrap_or_else(|| panic!("{}", role.stdout));
    assert!(line.contains("viewer (managed by Terraform)"), "{line}");
    let role = run(
        &server,
        &owner,
        &["access", "role", "Finance", "--project", "1", "-o", "json"],
    )
    .await
    .ok()
    .json();
    assert!(
        role.to_string().contains("\"managed_by\":\"terraform\""),
        "{role}"
    );
    // A role whose object rules Terraform does not manage: none marked.
    let priya = run(
        &server,
        &owner,
        &["access", "person", "priya.raman@hedgebox.dev", "--project", "1"],
    )
    .await
    .ok();
    assert!(
        !priya.stdout.contains("(managed by Terraform)"),
        "{}",
        priya.stdout
    );
}

/// The mark tells the lock (req 5): with Hedgebox Web's Terraform lock
/// turned off, a write to Finance's rule is allowed again, and `access
/// who`, `access person` and `access role` say "managed by Terraform, lock
/// off".
#[tokio::test]
async fn who_tells_a_managed_rule_whose_lock_is_off() {
    let server = TestServer::demo().await;
    let owner = server.key(&["*"]);
    let reply = server
        .patch(
            &owner,
            "/api/projects/1/access_control_management_settings",
            serde_json::json!({ "lock_terraform_managed_rules": false }),
        )
        .await;
    assert_eq!(
        reply.json["lock_terraform_managed_rules"], false,
        "{}",
        reply.json
    );
    let args = ["access", "who", "--dashboard", "Board pack", "--project", "1"];
    let json = run(&server, &owner, &[&args[..], &["-o", "json"]].concat())
        .await
        .ok()
        .json();
    let fatima = json["users"]
        .as_array()
        .unwrap()
        .iter()
        .find(|user| user["email"] == FATIMA)
        .cloned()
        .unwrap_or_else(|| panic!("{json}"));
    assert_eq!(
        fatima["how"],
        "role Finance (viewer, managed by Terraform, lock off)"
    );
    let table = run(&server, &owner, &args).await.ok();
    assert!(
        table
            .stdout
            .contains("role Finance (viewer, managed by Terraform, lock off)"),
        "{}",
        table.stdout
    );
    // The object-rule lines of `access person` and `access role` tell it too.
    let person = run(&server, &owner, &["access", "person", FATIMA, "--project", "1"])
        .await
        .ok();
    assert!(
        person
            .stdout
            .contains("role Finance (managed by Terraform, lock off)"),
        "{}",
        person.stdout
    );
    let role = run(&server, &owner, &["access", "role", "Finance", "--project", "1"])
        .await
        .ok();
    let line = role
        .stdout
        .lines()
        .find(|line| line.contains("dashboard \"Board pack\""))
        .unwrap_or_else(|| panic!("{}", role.stdout));
    assert!(line.contains("viewer (managed by Terraform, lock off)"), "{line}");
    // So do the resource lines of `access person` and the review's cells.
    let sven = run(&server, &owner, &["access", "person", SVEN, "--project", "1"])
        .await
        .ok();
    assert!(
        sven.stdout
            .contains("role Data (managed by Terraform, lock off: everyone)"),
        "{}",
        sven.stdout
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("review.json").to_string_lossy().into_owned();
    let done = run(
        &server,
        &owner,
        &["access", "review", "-o", "json", "--out", &out],
    )
    .await;
    assert_eq!(done.code, 0, "{}", done.stderr);
    let review: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(
        review["projects"][0]["defaults"]["insight"]["source"],
        "everyone (managed by Terraform, lock off: everyone)"
    );
}

/// `access set` on a rule Terraform manages: under the project's lock it
/// is refused before anything is sent; with the lock off the change is
/// marked "lock off" and warned that Terraform puts it back.
#[tokio::test]
async fn setting_a_managed_rule_says_the_lock_before_sending() {
    let server = TestServer::demo().await;
    let owner = server.key(&["*"]);
    let everyone_on_insights = |reply: &crate::support::Reply| {
        reply.json["access_controls"]
            .as_array()
            .unwrap()
            .iter()
            .find(|rule| {
                rule["resource"] == "insight"
                    && rule["organization_member"].is_null()
                    && rule["role"].is_null()
            })
            .map(|rule| rule["access_level"].clone())
    };
    let set = [
        "access",
        "set",
        "--project",
        "1",
        "--everyone",
        "--resource",
        "insight",
        "editor",
    ];
    let refused = run(&server, &owner, &[&set[..], &["--yes"]].concat()).await;
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(
        refused
            .stderr
            .contains("refused before sending anything: Terraform manages everyone's rule on insights"),
        "{}",
        refused.stderr
    );
    let rules = server
        .get(&owner, "/api/projects/1/resource_access_controls")
        .await;
    assert_eq!(everyone_on_insights(&rules), Some(Value::from("viewer")));
    server
        .patch(
            &owner,
            "/api/projects/1/access_control_management_settings",
            serde_json::json!({ "lock_terraform_managed_rules": false }),
        )
        .await;
    let dry = run(&server, &owner, &[&set[..], &["--dry-run"]].concat()).await;
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    let said = format!("{}{}", dry.stdout, dry.stderr);
    assert!(
        said.contains("viewer → editor [managed by Terraform, lock off]"),
        "{said}"
    );
    assert!(
        dry.stderr.contains("the next terraform apply puts it back"),
        "{}",
        dry.stderr
    );
    let done = run(&server, &owner, &[&set[..], &["--yes"]].concat()).await;
    assert_eq!(done.code, 0, "{}", done.stderr);
    let rules = server
        .get(&owner, "/api/projects/1/resource_access_controls")
        .await;
    assert_eq!(everyone_on_insights(&rules), Some(Value::from("editor")));
}
