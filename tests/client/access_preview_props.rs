//! The preview against the server, property-based (issue 32, req 7): on
//! Hedgebox Mobile, a generated set of rules for a few roles, members and
//! everyone on the project and a few resources is written through the
//! API, in a generated resolution mode; then a generated change (a rule
//! set or removed, someone added to or taken out of a role) is made with
//! the CLI, which previews it and checks its preview, after the change,
//! against the levels the server resolves (`access_control_members`). A
//! difference fails the case, and proptest shrinks it to the fewest rules.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use reqwest::Method;
use serde_json::json;

use crate::cli::orgdeck_at;
use crate::support::TestServer;

const ROLES: [&str; 3] = ["Contractors", "Support", "Data"];
const PEOPLE: [&str; 3] = [
    "amara.eze@hedgebox.dev",
    "ivan.petrov@hedgebox.dev",
    "mateo.garcia@hedgebox.dev",
];
const RESOURCES: [&str; 3] = ["project", "dashboard", "feature_flag"];

/// Whom a rule or a change is about: a role, a member, or everyone.
#[derive(Debug, Clone, Copy)]
enum Whom {
    Role(usize),
    Member(usize),
    Everyone,
}

fn whom() -> impl Strategy<Value = Whom> {
    prop_oneof![
        (0..ROLES.len()).prop_map(Whom::Role),
        (0..PEOPLE.len()).prop_map(Whom::Member),
        Just(Whom::Everyone),
    ]
}

/// A rule: whom, on which resource, at which level (by rank).
fn rule() -> impl Strategy<Value = (Whom, usize, usize)> {
    (whom(), 0..RESOURCES.len(), 0..4usize)
}

#[derive(Debug, Clone)]
enum Move {
    Rule(Whom, usize, Option<usize>),
    Join(usize, usize),
}

fn change() -> impl Strategy<Value = Move> {
    prop_oneof![
        (whom(), 0..RESOURCES.len(), proptest::option::of(0..4usize))
            .prop_map(|(whom, resource, level)| Move::Rule(whom, resource, level)),
        (0..ROLES.len(), 0..PEOPLE.len()).prop_map(|(role, person)| Move::Join(role, person)),
    ]
}

fn level(resource: &str, rank: usize) -> &'static str {
    if resource == "project" {
        ["none", "member", "admin", "admin"][rank]
    } else {
        ["none", "viewer", "editor", "manager"][rank]
    }
}

async fn case(most_specific: bool, rules: &[(Whom, usize, usize)], moved: &Move) {
    let server = TestServer::demo().await;
    let owner = server.key(&["*"]);
    server
        .patch(
            &owner,
            &format!("/api/organizations/{}/", server.organization),
            json!({"uses_most_specific_access_resolution": most_specific}),
        )
        .await;
    let roles = server.all(&owner, &server.roles_path()).await;
    let members = server
        .all(
            &owner,
            &format!("/api/organizations/{}/members/", server.organization),
        )
        .await;
    let role_id = |name: &str| roles.iter().find(|role| role["name"] == json!(name)).unwrap()["id"].clone();
    let member_id = |email: &str| {
        members
            .iter()
            .find(|member| member["user"]["email"] == json!(email))
            .unwrap()["id"]
            .clone()
    };
    for (whom, resource, rank) in rules {
        let resource = RESOURCES[*resource];
        let mut body = json!({"access_level": level(resource, *rank)});
        match whom {
            Whom::Role(at) => body["role"] = role_id(ROLES[*at]),
            Whom::Member(at) => body["organization_member"] = member_id(PEOPLE[*at]),
            Whom::Everyone => {}
        }
        let path = if resource == "project" {
            "/api/projects/2/access_controls"
        } else {
            body["resource"] = json!(resource);
            "/api/projects/2/resource_access_controls"
        };
        let reply = server.call(Method::PUT, Some(&owner), path, Some(body)).await;
        assert!(reply.status.is_success(), "{:?}", reply.json);
    }
    let mut args: Vec<String> = Vec::new();
    match moved {
        Move::Rule(whom, resource, rank) => {
            let resource = RESOURCES[*resource];
            args.extend(
                [
                    "access",
                    if rank.is_some() { "set" } else { "unset" },
                    "--project",
                    "2",
                ]
                .map(String::from),
            );
            match whom {
                Whom::Role(at) => args.extend(["--role".into(), ROLES[*at].into()]),
                Whom::Member(at) => args.extend(["--member".into(), PEOPLE[*at].into()]),
                Whom::Everyone => args.push("--everyone".into()),
            }
            if resource != "project" {
                args.extend(["--resource".into(), resource.into()]);
            }
            if let Some(rank) = rank {
                args.push(level(resource, *rank).into());
            }
        }
        Move::Join(role, person) => {
            let listed = server.all(&owner, &server.roles_path()).await;
            let held = listed
                .iter()
                .find(|found| found["name"] == json!(ROLES[*role]))
                .is_some_and(|found| found["members"].to_string().contains(PEOPLE[*person]));
            args.extend(
                [
                    "members",
                    if held { "remove" } else { "add" },
                    "--role",
                    ROLES[*role],
                    "--email",
                    PEOPLE[*person],
                ]
                .map(String::from),
            );
        }
    }
    args.push("--yes".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let done = orgdeck_at(&server.base, &owner, &args, None, &[("COLUMNS", "200".as_ref())]).await;
    assert_eq!(done.code, 0, "{args:?}: {}{}", done.stdout, done.stderr);
    assert!(
        !done.stderr.contains("otherwise than previewed"),
        "{args:?} after {rules:?} (most-specific {most_specific}):\n{}\n{}",
        done.stdout,
        done.stderr
    );
}

#[test]
fn previews_equal_the_server_s_levels_over_generated_rules() {
    let mut runner = TestRunner::new(Config {
        cases: 8,
        max_shrink_iters: 16,
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (any::<bool>(), proptest::collection::vec(rule(), 0..7), change());
    let outcome = runner.run(&strategy, |(most_specific, rules, moved)| {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(case(most_specific, &rules, &moved));
        Ok(())
    });
    if let Err(failure) = outcome {
        panic!("{failure}");
    }
}
