//! What the walks of whole lists keep, as counted against
//! `--max-held-mib` (issue 33): a compact entry a row, never the server's
//! objects. PostHog's roles embed every membership; `people list` holds
//! a user's number and a role's place a membership, the offboarding
//! profile and its preview, `export` and `plan` an id or an address a
//! membership (and the preview a compact member), and
//! `export` and `plan` 24 bytes of id and place a subscription set aside,
//! so that an organization twice as large costs twice the bytes of its
//! rows, and the default budget is not spent on the server's JSON.

use orgdeck::people::{Keep, LightIndex, RoleIndex, read_roles};

use super::apply::Workspace;
use super::cli::orgdeck;
use crate::support::{TestServer, client_for};

/// A server of `rows` subscriptions and members, in ten roles (each member
/// in one to three).
async fn server_of(rows: u64) -> TestServer {
    TestServer::demo_with(|options| {
        options.generate_subscriptions = rows;
        options.generate_members = rows;
        options.access.generate_roles = 10;
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_role_index_keeps_48_bytes_a_membership_at_any_size() {
    let mut held = Vec::new();
    for rows in [1_500u64, 3_000] {
        let server = server_of(rows).await;
        let key = server.key(&["*"]);
        let client = client_for(&server.base, &key).with_holding();
        let index = RoleIndex::load(&client, "@current", &|_, _| {}).await.unwrap();
        assert!(
            index.people_with_a_role() as u64 >= rows,
            "every member holds a role"
        );
        held.push((rows, client.held()));
    }
    let [(small, at_small), (large, at_large)] = held[..] else {
        unreachable!()
    };
    // One to three memberships a member, each its user and its id as
    // numbers, when it began and its role: 48 bytes (the roles' embedded
    // members, some 450 bytes each, cut out; each membership's text, some
    // 160, never held).
    let per_row = (at_large - at_small) / (large - small);
    assert!(
        (48..=144).contains(&per_row),
        "{per_row} bytes a member ({at_small} at {small}, {at_large} at {large})"
    );
    assert!(at_large <= 2 * at_small + 64 * 1024, "{at_small} then {at_large}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn people_list_keeps_20_bytes_a_membership_and_less_for_a_role_or_no_role() {
    // What `people list` holds of the memberships, counted as kept: its
    // user as a number and its role's place (20 bytes), or for the people
    // in no role, who holds one (16 bytes, each once in the end), or for
    // the members of one role, theirs once that role is read.
    let mut held = Vec::new();
    for rows in [1_500u64, 3_000] {
        let server = server_of(rows).await;
        let key = server.key(&["*"]);
        let client = client_for(&server.base, &key);
        let full = RoleIndex::load(&client, "@current", &|_, _| {}).await.unwrap();
        let first = full.roles[0].id.clone();
        let mut of = Vec::new();
        for keep in [Keep::Everyone, Keep::Holders, Keep::MembersOf(first.clone())] {
            let client = client.with_holding();
            let roles = read_roles(&client, "@current").await.unwrap();
            let roles_held = client.held();
            let index = LightIndex::load(&client, "@current", roles, keep.clone(), &|_, _| {})
                .await
                .unwrap();
            // The rows as the full index gives them.
            let page = server
                .get(&key, "/api/organizations/@current/members/?limit=20&offset=600")
                .await;
            for member in page.expect(reqwest::StatusCode::OK)["results"]
                .as_array()
                .unwrap()
            {
                let uuid = member["user"]["uuid"].as_str().unwrap();
                let roles: Vec<String> = full.of(uuid).into_iter().map(|role| role.id).collect();
                let listed = index
                    .listed(uuid)
                    .map(|roles| roles.into_iter().map(|role| role.id).collect::<Vec<_>>());
                let expected = match &keep {
                    Keep::Everyone => Some(roles),
                    Keep::Holders => roles.is_empty().then(Vec::new),
                    Keep::MembersOf(id) => roles.contains(id).then_some(roles),
                };
                assert_eq!(listed, expected, "{keep:?} {uuid}");
            }
            of.push(client.held() - roles_held);
        }
        held.push((rows, of));
    }
    let [(small, ref at_small), (large, ref at_large)] = held[..] else {
        unreachable!()
    };
    // One to three memberships a member.
    let per_member = |keep: usize| (at_large[keep] - at_small[keep]) / (large - small);
    assert!(
        (20..=60).contains(&per_member(0)),
        "{} bytes a member for everyone ({at_small:?} at {small}, {at_large:?} at {large})",
        per_member(0)
    );
    assert!(
        (16..=48).contains(&per_member(1)),
        "{} bytes a member for no role",
        per_member(1)
    );
    assert!(
        at_large[2] * 3 < at_large[0] * 2,
        "a role's members alone: {at_large:?}"
    );
    assert!(
        at_large[0] <= 2 * at_small[0] + 64 * 1024,
        "{at_small:?} then {at_large:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_role_index_of_one_person_holds_theirs_alone_and_knows_every_role_s_size() {
    let server = server_of(1_500).await;
    let key = server.key(&["*"]);
    let client = client_for(&server.base, &key).with_holding();
    let whole = RoleIndex::load(&client, "@current", &|_, _| {}).await.unwrap();
    let everyone = client.held();
    let page = server
        .get(&key, "/api/organizations/@current/members/?limit=3&offset=700")
        .await;
    let page = page.expect(reqwest::StatusCode::OK);
    for member in page["results"].as_array().unwrap() {
        let uuid = member["user"]["uuid"].as_str().unwrap();
        let client = client_for(&server.base, &key).with_holding();
        let theirs = RoleIndex::load_of(&client, "@current", uuid, &|_, _| {})
            .await
            .unwrap();
        assert!(!whole.of(uuid).is_empty(), "every member holds a role");
        assert_eq!(theirs.of(uuid), whole.of(uuid));
        assert_eq!(theirs.people_with_a_role(), 1);
        for role in &whole.roles {
            assert_eq!(theirs.size(&role.id), whole.size(&role.id), "{}", role.name);
        }
        // A byte a membership passed over, where everyone's held 48.
        assert!(client.held() * 8 < everyone, "{} of {everyone}", client.held());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn export_and_plan_keep_a_compact_entry_a_row() {
    // 3,000 subscriptions and members, 6,000 memberships: in 4 MiB, some
    // 1.4 KB a row, all of it counted (the server's objects alone, as
    // counted before, were some 7 MiB: refused).
    let server = server_of(3_000).await;
    let key = server.key(&["*"]);
    let file = Workspace::new("org.toml");
    orgdeck(
        &server,
        &key,
        &["--max-held-mib", "4", "export", file.arg()],
        None,
    )
    .await
    .ok();
    let text = file.read();
    assert!(
        text.matches("[[subscriptions]]").count() >= 2_700,
        "the subscriptions exported"
    );
    let planned = orgdeck(&server, &key, &["--max-held-mib", "4", "plan", file.arg()], None).await;
    assert_eq!(planned.code, 0, "nothing to do: {}", planned.stderr);
    // And the budget is a budget: a quarter of it is refused, saying so.
    let refused = orgdeck(&server, &key, &["--max-held-mib", "1", "plan", file.arg()], None).await;
    assert_eq!(refused.code, 1);
    assert!(refused.stderr.contains("--max-held-mib"), "{}", refused.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn export_sets_its_subscriptions_aside_and_holds_their_ids_alone() {
    // 6,000 subscriptions held as entries would be some 3 MiB; set aside,
    // their ids and places are 24 bytes each: 0.25 MiB is room enough, in
    // TOML and in JSON, and every one of them is written, in id order.
    let server = server_of(6_000).await;
    let key = server.key(&["*"]);
    for format in ["table", "json"] {
        let file = Workspace::new(if format == "json" {
            "subs.json"
        } else {
            "subs.toml"
        });
        let exported = orgdeck(
            &server,
            &key,
            &[
                "--max-held-mib",
                "0.25",
                "-o",
                format,
                "export",
                "--subscriptions",
                file.arg(),
            ],
            None,
        )
        .await;
        assert_eq!(exported.code, 0, "{format}: {}", exported.stderr);
        let text = file.read();
        let ids: Vec<i64> = if format == "json" {
            let json: serde_json::Value = serde_json::from_str(&text).unwrap();
            json["subscriptions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|entry| entry["id"].as_i64().unwrap())
                .collect()
        } else {
            text.lines()
                .filter_map(|line| line.strip_prefix("id = "))
                .map(|id| id.parse().unwrap())
                .collect()
        };
        assert!(ids.len() >= 5_000, "{format}: {} exported", ids.len());
        assert!(
            ids.windows(2).all(|pair| pair[0] < pair[1]),
            "{format}: in id order"
        );
    }
    // The budget still binds what is held: the index of 6,000 is 144 KB.
    let file = Workspace::new("refused.toml");
    let refused = orgdeck(
        &server,
        &key,
        &["--max-held-mib", "0.05", "export", "--subscriptions", file.arg()],
        None,
    )
    .await;
    assert_eq!(refused.code, 1, "{}", refused.stdout);
    assert!(refused.stderr.contains("--max-held-mib"), "{}", refused.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_sets_the_servers_subscriptions_aside_and_holds_their_ids_alone() {
    // 6,000 subscriptions held as entries would be some 3 MiB; set aside
    // as plan reads them, their ids and places are 24 bytes each: 0.25 MiB
    // is room enough for a plan of an edited file, the same plan as ever.
    let server = server_of(6_000).await;
    let key = server.key(&["*"]);
    let file = Workspace::new("subs.toml");
    let exported = orgdeck(&server, &key, &["export", "--subscriptions", file.arg()], None).await;
    assert_eq!(exported.code, 0, "{}", exported.stderr);
    let text = file.read();
    let mut parts: Vec<String> = text.split("\n[[subscriptions]]\n").map(str::to_string).collect();
    assert!(parts.len() > 5_000, "{} exported", parts.len() - 1);
    let id_of = |entry: &str| -> i64 {
        entry
            .lines()
            .find_map(|line| line.strip_prefix("id = "))
            .unwrap()
            .parse()
            .unwrap()
    };
    // One renamed, one left out of the file, one copied without its id (a
    // new one).
    let renamed = id_of(&parts[10]);
    parts[10] = parts[10]
        .lines()
        .filter(|line| !line.starts_with("title = "))
        .map(|line| match line.strip_prefix("id = ") {
            Some(_) => format!("{line}\ntitle = \"Renamed by the test\""),
            None => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n";
    let left_out = id_of(&parts[5]);
    parts.remove(5);
    let email = (20..parts.len())
        .find(|at| parts[*at].contains("target_type = \"email\""))
        .unwrap();
    let new: String = parts[email]
        .lines()
        .filter(|line| !line.starts_with("id = ") && !line.starts_with("title = "))
        .map(|line| format!("{line}\n"))
        .collect();
    parts.push(format!("title = \"Made by the test\"\n{new}"));
    file.write(&parts.join("\n[[subscriptions]]\n"));
    let planned = orgdeck(
        &server,
        &key,
        &["--max-held-mib", "0.25", "plan", file.arg()],
        None,
    )
    .await;
    assert_eq!(planned.code, 2, "{}", planned.stderr);
    assert!(
        planned
            .stdout
            .contains(&format!("~ subscription \"Renamed by the test\" ({renamed})")),
        "{}",
        planned.stdout
    );
    assert!(planned.stdout.contains("+ subscription \"Made by the test\""));
    assert!(
        planned
            .stdout
            .contains("1 subscription on the server and not in the file is kept"),
        "{}",
        planned.stdout
    );
    assert!(
        planned
            .stdout
            .contains("Plan: 1 to add, 1 to change, 0 to remove."),
        "{}",
        planned.stdout
    );
    let pruned = orgdeck(
        &server,
        &key,
        &["--max-held-mib", "0.25", "plan", "--prune", file.arg()],
        None,
    )
    .await;
    assert_eq!(pruned.code, 2, "{}", pruned.stderr);
    assert!(
        pruned.stdout.contains(&format!("({left_out}) (soft delete)")),
        "{}",
        pruned.stdout
    );
    assert!(
        pruned
            .stdout
            .contains("Plan: 1 to add, 1 to change, 1 to remove."),
        "{}",
        pruned.stdout
    );
    // The budget still binds what is held: the index of 6,000 is 144 KB.
    let refused = orgdeck(
        &server,
        &key,
        &["--max-held-mib", "0.05", "plan", file.arg()],
        None,
    )
    .await;
    assert_eq!(refused.code, 1, "{}", refused.stdout);
    assert!(refused.stderr.contains("--max-held-mib"), "{}", refused.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_offboarding_holds_a_compact_index_and_its_preview_the_person_alone() {
    // 3,000 members in 6,000 memberships: the profile's role index holds
    // the person's memberships alone, read from the members each role of
    // the list embeds as they arrive (it held 48 bytes a membership, some
    // 0.3 MiB, and a page of memberships being read); the preview, the
    // person alone (it held a compact row of every member and membership,
    // some 2 MiB, and before that the roles with every member embedded,
    // more than 8). 0.25 MiB is room enough for both; 0.05 is not (the
    // subscriptions' pages), and says so.
    let server = server_of(3_000).await;
    let key = server.key(&["*"]);
    let page = server
        .get(&key, "/api/organizations/@current/members/?limit=1&offset=1500")
        .await;
    let someone = page.expect(reqwest::StatusCode::OK)["results"][0]["user"]["email"]
        .as_str()
        .unwrap()
        .to_string();
    let offboard = |budget: &'static str| {
        let (server, key, someone) = (&server, &key, someone.clone());
        async move {
            orgdeck(
                server,
                key,
                &[
                    "--max-held-mib",
                    budget,
                    "people",
                    "offboard",
                    &someone,
                    "--dry-run",
                ],
                None,
            )
            .await
        }
    };
    let previewed = offboard("0.25").await;
    assert_eq!(previewed.code, 0, "{}", previewed.stderr);
    assert!(!previewed.stderr.contains("no preview"), "{}", previewed.stderr);
    assert!(
        previewed.stdout.contains("Their access once offboarded"),
        "{}",
        previewed.stdout
    );
    let refused = offboard("0.05").await;
    assert_ne!(refused.code, 0, "{}", refused.stdout);
    assert!(refused.stderr.contains("--max-held-mib"), "{}", refused.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_preview_about_some_people_holds_them_alone_and_previews_what_the_whole_does() {
    // The demo's access stories (roles that restrict, own rules, admins,
    // someone in no role): for each person, every change about them alone
    // previewed from a world read for them alone and from the whole
    // organization gives the same lines, and the world read for them
    // holds them and their memberships, nobody else.
    use orgdeck::access::directory::People;
    use orgdeck::access::preview::world::Projects;
    use orgdeck::access::preview::{Change, World, preview};
    use orgdeck::access::read::{ReadOptions, Reader, Stop};

    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let client = client_for(&server.base, &key);
    // A server of the test's own: no pacing to PostHog Cloud's limits (some
    // 80 worlds are read, over a thousand requests).
    let options = ReadOptions {
        budget: orgdeck::health::budget::Budget::UNLIMITED,
        ..ReadOptions::default()
    };
    let reader = Reader::new(&client, options, orgdeck::clock::Clock::system(), Stop::new());
    let whole = World::read(&reader, "@current", Projects::All, &People::Everyone)
        .await
        .unwrap()
        .world;
    assert!(
        whole.people.len() >= 8 && whole.roles.len() >= 3,
        "the demo has people and roles"
    );
    let mut moved = 0;
    for person in &whole.people {
        let only = People::only([person.membership_id.as_str()], [person.user_uuid.as_str()], []);
        let theirs = World::read(&reader, "@current", Projects::All, &only)
            .await
            .unwrap()
            .world;
        assert_eq!(theirs.people, std::slice::from_ref(person));
        let held: usize = theirs.roles.iter().map(|role| role.members.len()).sum();
        let holds = whole.roles.iter().filter(|role| role.holds(person)).count();
        assert_eq!(held, holds, "{}: their memberships alone", person.email);
        // Known already (an offboarding's member): the members are not walked.
        let known = People::Known(vec![person.clone()]);
        let known = World::read(&reader, "@current", Projects::All, &known)
            .await
            .unwrap()
            .world;
        assert_eq!(known.people, theirs.people);
        assert_eq!(known.roles, theirs.roles);
        // Their roles from the offboarding's role index of them, read once:
        // the roles are not read again, and the world is the same.
        let index = RoleIndex::load_of(&client, "@current", &person.user_uuid, &|_, _| {})
            .await
            .unwrap();
        let held = orgdeck::access::directory::roles_held(&index, person);
        let indexed = World::read_of(&reader, "@current", Projects::All, person.clone(), held)
            .await
            .unwrap()
            .world;
        assert_eq!(indexed.people, theirs.people);
        assert_eq!(
            indexed.roles, theirs.roles,
            "{}: roles from the index",
            person.email
        );
        let id = person.membership_id.clone();
        let mut changes = vec![
            Change::Offboard {
                membership_id: id.clone(),
                remove_from_organization: false,
            },
            Change::Offboard {
                membership_id: id.clone(),
                remove_from_organization: true,
            },
            Change::Level {
                membership_id: id.clone(),
                level: if person.level >= 8 { 1 } else { 8 },
            },
        ];
        for role in &whole.roles {
            changes.push(if role.holds(person) {
                Change::Leave {
                    role_id: role.id.clone(),
                    membership_id: id.clone(),
                }
            } else {
                Change::Join {
                    role_id: role.id.clone(),
                    membership_id: id.clone(),
                }
            });
        }
        for change in &changes {
            let expected = preview(&whole, change);
            moved += expected.lines.len();
            assert_eq!(preview(&theirs, change), expected, "{}: {change:?}", person.email);
            assert_eq!(
                preview(&indexed, change),
                expected,
                "{}: {change:?}",
                person.email
            );
        }
    }
    assert!(moved > 0, "some change moves someone's access");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_access_review_decodes_each_answer_as_it_arrives() {
    // 1,500 members: the project's access_control_members answer, every
    // member times every resource, is some 13 MiB. Read whole it was
    // refused past 2 MiB of --max-answer-mib; decoded as it arrives and
    // set aside, it is never held, and every member is written, in e-mail
    // order, as the review always wrote them.
    let server = server_of(1_500).await;
    let key = server.key(&["*"]);
    let file = Workspace::new("review.json");
    let reviewed = orgdeck(
        &server,
        &key,
        &[
            "--max-answer-mib",
            "2",
            "access",
            "review",
            "-o",
            "json",
            "--out",
            file.arg(),
            "--budget",
            "none",
        ],
        None,
    )
    .await;
    assert_eq!(reviewed.code, 0, "{}", reviewed.stderr);
    let review: serde_json::Value = serde_json::from_str(&file.read()).unwrap();
    let members: Vec<&str> = review["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|member| member["email"].as_str().unwrap())
        .collect();
    assert!(members.len() >= 1_500, "{} members", members.len());
    let projects = review["projects"].as_array().unwrap();
    assert!(!projects.is_empty());
    for project in projects {
        let access: Vec<&serde_json::Value> = project["access"].as_array().unwrap().iter().collect();
        let emails: Vec<&str> = access.iter().map(|row| row["email"].as_str().unwrap()).collect();
        assert_eq!(emails, members, "every member, in the members' order");
        assert!(
            access
                .iter()
                .all(|row| row["unknown"].is_null() && row["cells"]["project"]["level"].is_string()),
            "every member's access read"
        );
    }
    // The wire is bounded still: 64 times a limit of 0.1 MiB is less than
    // the answer, and the read stops, saying so; the rows handed over are
    // counted, never the answer.
    let project = projects[0]["id"].as_i64().unwrap().to_string();
    let client = client_for(&server.base, &key).with_max_answer(2 << 20);
    let mut rows = 0;
    client
        .access_control_members(&project, None, |_: orgdeck::api::access::MemberAccess| {
            rows += 1;
            Ok::<_, orgdeck::api::Error>(())
        })
        .await
        .unwrap();
    assert_eq!(rows, members.len());
    let refused = client
        .with_max_answer(100 << 10)
        .access_control_members(&project, None, |_: orgdeck::api::access::MemberAccess| {
            Ok::<_, orgdeck::api::Error>(())
        })
        .await
        .unwrap_err();
    let said = refused.to_string();
    assert!(
        said.contains("--max-answer-mib") && said.contains("as it arrives"),
        "{said}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_access_review_sets_its_members_aside_and_holds_a_compact_index() {
    // 1,500 members, some 3,000 memberships: the review held every member
    // and every role's membership as text (some 1.1 MB counted; refused
    // at 0.5 MiB, 218 memberships into the second role). It sets the
    // members aside in e-mail order and holds their ids as numbers and
    // their roles as places: within 0.5 MiB, a page in flight at a time,
    // with each member's name and roles where they were.
    let server = server_of(1_500).await;
    let key = server.key(&["*"]);
    let review = |format: &'static str, budget: &'static str| {
        let (server, key) = (&server, &key);
        async move {
            let file = Workspace::new(&format!("review.{format}"));
            let reviewed = orgdeck(
                server,
                key,
                &[
                    "--max-held-mib",
                    budget,
                    "--max-answer-mib",
                    "2",
                    "access",
                    "review",
                    "-o",
                    format,
                    "--out",
                    file.arg(),
                    "--budget",
                    "none",
                ],
                None,
            )
            .await;
            // Nothing is written when the review is refused.
            let written = std::fs::read_to_string(&file.path).unwrap_or_default();
            (reviewed, written)
        }
    };
    let (reviewed, json) = review("json", "0.5").await;
    assert_eq!(reviewed.code, 0, "{}", reviewed.stderr);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let members = json["members"].as_array().unwrap();
    assert!(members.len() >= 1_500, "{} members", members.len());
    let emails: Vec<String> = members
        .iter()
        .map(|member| member["email"].as_str().unwrap().to_lowercase())
        .collect();
    assert!(
        emails.windows(2).all(|pair| pair[0] < pair[1]),
        "by address, each once"
    );
    // Every role's members hold it, and the roles are as the server says.
    let client = client_for(&server.base, &key);
    let index = RoleIndex::load(&client, "@current", &|_, _| {}).await.unwrap();
    let users: std::collections::HashMap<String, String> = client
        .all(&orgdeck::api::List::members("@current"), &Default::default())
        .await
        .unwrap()
        .into_vec()
        .into_iter()
        .map(|member| (member.id.to_lowercase(), member.user.uuid))
        .collect();
    let mut with_roles = 0;
    for member in members {
        let roles: Vec<&str> = member["roles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|role| role.as_str().unwrap())
            .collect();
        with_roles += usize::from(!roles.is_empty());
        let membership = member["membership_id"].as_str().unwrap();
        let expected: Vec<String> = index
            .of(&users[membership])
            .into_iter()
            .map(|role| role.name)
            .collect();
        assert_eq!(roles, expected, "{membership}");
    }
    assert!(with_roles >= 1_500, "{with_roles} members with a role");
    // CSV repeats each member's name on their project rows.
    let (reviewed, csv) = review("csv", "0.5").await;
    assert_eq!(reviewed.code, 0, "{}", reviewed.stderr);
    let names: std::collections::HashMap<String, String> = members
        .iter()
        .map(|member| {
            let (email, name) = (
                member["email"].as_str().unwrap(),
                member["name"].as_str().unwrap(),
            );
            (email.to_string(), name.to_string())
        })
        .collect();
    let mut project_rows = 0;
    for line in csv
        .lines()
        .filter(|line| !line.starts_with('#') && !line.contains('"'))
    {
        let cells: Vec<&str> = line.split(',').collect();
        // A project's row: its id in the seventh column, a member's address.
        if cells.len() > 7 && !cells[6].is_empty() && names.contains_key(cells[0]) {
            assert_eq!(cells[1], names[cells[0]], "{line}");
            project_rows += 1;
        }
    }
    assert!(project_rows >= 1_000, "{project_rows} project rows checked");
    // The budget still binds: a page of 1,000 members in flight is more
    // than 0.1 MiB.
    let (refused, _) = review("json", "0.1").await;
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(refused.stderr.contains("--max-held-mib"), "{}", refused.stderr);
}
