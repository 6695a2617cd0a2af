//! Hedgebox's access stories (the README's), plans without access control
//! or without role-based access, and members the caller may not see.

use orgdeck::api::access::Plan;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::access::{Access, MOBILE, WEB};
use crate::support::{ADMIN, LEAVER, MEMBER, OWNER, TestServer};

const FATIMA: &str = "fatima.alsayed@hedgebox.dev"; // Finance
const TOMAS: &str = "tomas.novak@hedgebox.dev"; // Finance and On-call
const AMARA: &str = "amara.eze@hedgebox.dev"; // in no role
const ROSA: &str = "rosa.martinez@hedgebox.dev"; // Marketing

async fn dashboard_names(access: &Access, key: &str) -> Vec<String> {
    access
        .server
        .all(key, &format!("/api/projects/{WEB}/dashboards/"))
        .await
        .iter()
        .map(|dashboard| dashboard["name"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn the_board_pack_is_finance_s_alone() {
    let access = Access::demo().await;
    let fatima = access.key_of(FATIMA);
    assert!(
        dashboard_names(&access, &fatima)
            .await
            .contains(&"Board pack".to_string())
    );
    let elif = access.key_of(MEMBER);
    let names = dashboard_names(&access, &elif).await;
    assert!(!names.contains(&"Board pack".to_string()) && names.contains(&"Company KPIs".to_string()));
    // Its tiles are refused too.
    access
        .get(&elif, &format!("/api/projects/{WEB}/dashboards/12/"))
        .await
        .expect(StatusCode::FORBIDDEN);
    access
        .get(&fatima, &format!("/api/projects/{WEB}/dashboards/12/"))
        .await
        .expect(StatusCode::OK);
    // Who reaches it: Finance, and Tomás who made it; as PostHog does, the
    // owner's lists leave it out (her rules deny it) though she may open it.
    let users = access
        .get(
            &access.owner,
            &format!("/api/projects/{WEB}/dashboards/12/users_with_access"),
        )
        .await;
    let sources: Vec<String> = users.expect(StatusCode::OK)["users"]
        .as_array()
        .unwrap()
        .iter()
        .map(|user| user["access_source"].as_str().unwrap().to_string())
        .collect();
    assert!(sources.contains(&"creator".to_string()) && sources.contains(&"explicit_role".to_string()));
    assert!(
        !dashboard_names(&access, &access.owner)
            .await
            .contains(&"Board pack".to_string())
    );
}

#[tokio::test]
async fn mobile_is_closed_but_to_its_teams() {
    let access = Access::demo().await;
    let subscriptions = format!("/api/projects/{MOBILE}/subscriptions/");
    // Someone in no role, and Marketing, cannot reach Mobile; they reach Web.
    for email in [AMARA, ROSA] {
        let key = access.key_of(email);
        access
            .get(&key, &subscriptions)
            .await
            .expect(StatusCode::FORBIDDEN);
        access
            .get(&key, &format!("/api/projects/{WEB}/subscriptions/"))
            .await
            .expect(StatusCode::OK);
    }
    // Product, Data and the organization's admins do.
    for email in [MEMBER, LEAVER, ADMIN, OWNER] {
        let key = access.key_of(email);
        access.get(&key, &subscriptions).await.expect(StatusCode::OK);
    }
    // Contractors: no access to Mobile, none to Web's feature flags.
    let contractors = access.role("Contractors").await;
    let role = |project: i64| {
        let access = &access;
        let contractors = contractors.clone();
        async move {
            let reply = access
                .get(
                    &access.owner,
                    &format!("/api/projects/{project}/access_control_roles?role_id={contractors}"),
                )
                .await;
            reply.expect(StatusCode::OK)["results"][0].clone()
        }
    };
    assert_eq!(role(MOBILE).await["project"]["effective_access_level"], "none");
    assert_eq!(role(MOBILE).await["project"]["access_level"], "none");
    // While the highest rule wins, everyone's viewer beats it; once the most
    // specific one does, the role's own rule decides.
    let web = role(WEB).await;
    assert_eq!(web["resources"]["feature_flag"]["access_level"], "none");
    assert_eq!(
        web["resources"]["feature_flag"]["effective_access_level"],
        "viewer"
    );
    assert_eq!(web["project"]["effective_access_level"], "member");
    access.most_specific(true).await;
    assert_eq!(
        role(WEB).await["resources"]["feature_flag"]["effective_access_level"],
        "none"
    );
    access.most_specific(false).await;
    // Tomás reaches Mobile through On-call alone: deleting On-call cuts him off.
    let tomas = access.key_of(TOMAS);
    access.get(&tomas, &subscriptions).await.expect(StatusCode::OK);
    let on_call = access.role("On-call").await;
    access
        .server
        .delete(
            &access.owner,
            &format!("{}{on_call}/", access.server.roles_path()),
        )
        .await
        .expect(StatusCode::NO_CONTENT);
    access
        .get(&tomas, &subscriptions)
        .await
        .expect(StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn a_membership_that_lowers_access_only_where_the_most_specific_rule_wins() {
    let access = Access::demo().await;
    let contractors = access.role("Contractors").await;
    let amara = access.server.running.db.read_blocking(|connection| {
        Ok(
            connection.query_row("SELECT uuid FROM users WHERE email = ?1", [AMARA], |row| {
                row.get::<_, String>(0)
            })?,
        )
    });
    let path = format!("{}{contractors}/role_memberships/", access.server.roles_path());
    access
        .server
        .post(&access.owner, &path, json!({"user_uuid": amara.unwrap()}))
        .await
        .expect(StatusCode::CREATED);
    assert_eq!(access.cell(WEB, AMARA, "feature_flag").await.0, "viewer");
    access.most_specific(true).await;
    let (level, inherited) = access.cell(WEB, AMARA, "feature_flag").await;
    assert_eq!(level, "none");
    assert_eq!(inherited["source_subject"], "role");
    let key = access.key_of(AMARA);
    let refused = access
        .get(&key, &format!("/api/projects/{WEB}/feature_flags/"))
        .await;
    let detail = refused.expect_error(
        StatusCode::FORBIDDEN,
        "authentication_error",
        "permission_denied",
        None,
    );
    assert_eq!(detail, "You do not have viewer access to this resource.");
}

#[tokio::test]
async fn without_access_control_every_level_is_the_built_in_default() {
    let server = TestServer::demo_with(|options| {
        options.access.plan = Plan {
            access_control: false,
            role_based_access: true,
        };
    })
    .await;
    let access = Access::with(server);
    let amara = access.key_of(AMARA);
    access
        .get(&amara, &format!("/api/projects/{MOBILE}/subscriptions/"))
        .await
        .expect(StatusCode::OK);
    let row = access.member_row(&access.owner, MOBILE, AMARA).await;
    assert_eq!(row["project"]["effective_access_level"], "admin");
    assert_eq!(
        row["project"]["access_level"],
        Value::Null,
        "stored rules are not read"
    );
    assert_eq!(row["project"]["inherited_access"]["source"], "system_default");
    assert_eq!(row["resources"]["dashboard"]["effective_access_level"], "editor");
    let elif = access.key_of(MEMBER);
    assert!(
        dashboard_names(&access, &elif)
            .await
            .contains(&"Board pack".to_string())
    );
    // Admins still bypass.
    let bruno = access.member_row(&access.owner, MOBILE, ADMIN).await;
    assert_eq!(bruno["project"]["inherited_access"]["source"], "org_admin");
}

#[tokio::test]
async fn without_role_based_access_roles_rules_are_ignored_and_refused() {
    let server = TestServer::demo_with(|options| {
        options.access.plan = Plan {
            access_control: true,
            role_based_access: false,
        };
    })
    .await;
    let access = Access::with(server);
    // Product's rule no longer opens Mobile to Elif; Jade's own rule still counts.
    let elif = access.key_of(MEMBER);
    access
        .get(&elif, &format!("/api/projects/{MOBILE}/subscriptions/"))
        .await
        .expect(StatusCode::FORBIDDEN);
    assert_eq!(
        access.cell(MOBILE, "jade.nguyen@hedgebox.dev", "project").await.0,
        "admin"
    );
    let finance = access.role("Finance").await;
    let refused = access
        .put(
            &access.owner,
            &format!("/api/projects/{WEB}/access_controls"),
            json!({"access_level": "admin", "role": finance}),
        )
        .await;
    let detail = refused.expect_error(
        StatusCode::FORBIDDEN,
        "authentication_error",
        "permission_denied",
        None,
    );
    assert_eq!(
        detail,
        "Role-based access controls require the Role-based access feature."
    );
    let member = access.membership(MEMBER).await;
    access
        .put(
            &access.owner,
            &format!("/api/projects/{WEB}/access_controls"),
            json!({"access_level": "admin", "organization_member": member}),
        )
        .await
        .expect(StatusCode::OK);
}

#[tokio::test]
async fn members_the_caller_may_not_see() {
    let access = Access::demo().await;
    let organization = format!("/api/organizations/{}/", access.server.organization);
    access
        .server
        .patch(
            &access.owner,
            &organization,
            json!({"members_can_see_org_members": false}),
        )
        .await
        .expect(StatusCode::OK);
    let elif = access.key_of(MEMBER);
    let listed = access
        .get(&elif, &format!("/api/projects/{MOBILE}/access_control_members"))
        .await;
    let emails: Vec<String> = listed.expect(StatusCode::OK)["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["user"]["email"].as_str().unwrap().to_string())
        .collect();
    // Those a rule grants Mobile (Bruno, through Engineering), not those who
    // reach it as organization admins alone (Ada), nor those without it.
    assert!(emails.contains(&ADMIN.to_string()) && emails.contains(&MEMBER.to_string()));
    assert!(!emails.contains(&OWNER.to_string()) && !emails.contains(&AMARA.to_string()));
    // One member asked for by id: 404 when the caller cannot manage access.
    let owner_member = access.membership(OWNER).await;
    access
        .get(
            &elif,
            &format!("/api/projects/{MOBILE}/access_control_members?member_id={owner_member}"),
        )
        .await
        .expect_error(StatusCode::NOT_FOUND, "invalid_request", "not_found", None);
    // The owner still sees everyone.
    let all = access
        .get(
            &access.owner,
            &format!("/api/projects/{MOBILE}/access_control_members"),
        )
        .await;
    assert_eq!(
        all.expect(StatusCode::OK)["results"].as_array().unwrap().len(),
        40
    );
}

#[tokio::test]
async fn the_settings_answers_hold_every_member_times_every_resource() {
    let access = Access::demo().await;
    let answer = access
        .get(
            &access.owner,
            &format!("/api/projects/{WEB}/access_control_members"),
        )
        .await;
    let answer = answer.expect(StatusCode::OK);
    assert_eq!(
        answer["available_project_levels"],
        json!(["none", "member", "admin"])
    );
    assert_eq!(answer["can_edit"], true);
    let rows = answer["results"].as_array().unwrap();
    assert_eq!(rows.len(), 40, "active members");
    for row in rows {
        let resources = row["resources"].as_object().unwrap();
        assert_eq!(resources.len(), 34);
        assert_eq!(resources.keys().next().unwrap(), "action", "PostHog's order");
        for entry in std::iter::once(&row["project"]).chain(resources.values()) {
            let mut keys: Vec<&str> = entry.as_object().unwrap().keys().map(String::as_str).collect();
            keys.sort_unstable();
            assert_eq!(
                keys,
                [
                    "access_level",
                    "effective_access_level",
                    "inherited_access",
                    "maximum",
                    "minimum"
                ]
            );
        }
    }
    let roles = access
        .get(
            &access.owner,
            &format!("/api/projects/{WEB}/access_control_roles"),
        )
        .await;
    assert_eq!(
        roles.expect(StatusCode::OK)["results"].as_array().unwrap().len(),
        8
    );
    let defaults = access
        .get(
            &access.owner,
            &format!("/api/projects/{WEB}/access_control_defaults"),
        )
        .await;
    let defaults = defaults.expect(StatusCode::OK);
    assert_eq!(defaults["project_access_level"], "member");
    assert_eq!(
        defaults["resource_access_levels"]["feature_flag"]["access_level"],
        "viewer"
    );
    assert_eq!(
        defaults["resource_access_levels"]["dashboard"]["access_level"],
        Value::Null
    );
    assert_eq!(
        defaults["resource_access_levels"]["survey"]["access_level"],
        Value::Null
    );
    assert_eq!(
        defaults["object_rule_resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|entry| entry["resource"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["dashboard", "feature_flag", "insight", "notebook"]
    );
    let everyone = access
        .get(
            &access.owner,
            &format!("/api/projects/{WEB}/access_control_default_objects"),
        )
        .await;
    let names: Vec<&str> = everyone.expect(StatusCode::OK)["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|rule| rule["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Board pack", "Q4 pricing experiment"]);
}

#[tokio::test]
async fn notebooks_and_flags_are_listed_as_their_rules_allow() {
    let access = Access::demo().await;
    let titles = |key: String| {
        let access = &access;
        async move {
            access
                .server
                .all(&key, &format!("/api/projects/{WEB}/notebooks/"))
                .await
                .iter()
                .map(|notebook| notebook["title"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        }
    };
    // Product edits the pricing experiment; Marketing does not see it.
    assert!(
        titles(access.key_of(MEMBER))
            .await
            .contains(&"Q4 pricing experiment".to_string())
    );
    assert!(
        !titles(access.key_of(ROSA))
            .await
            .contains(&"Q4 pricing experiment".to_string())
    );
    // Marketing cannot see the new checkout flag; everyone may view flags.
    let keys = |key: String| {
        let access = &access;
        async move {
            access
                .server
                .all(&key, &format!("/api/projects/{WEB}/feature_flags/"))
                .await
                .iter()
                .map(|flag| {
                    (
                        flag["key"].as_str().unwrap().to_string(),
                        flag["user_access_level"].clone(),
                    )
                })
                .collect::<Vec<_>>()
        }
    };
    let rosa = keys(access.key_of(ROSA)).await;
    assert!(!rosa.iter().any(|(key, _)| key == "new-checkout"));
    assert!(rosa.iter().all(|(_, level)| level == "viewer"), "{rosa:?}");
    let elif = keys(access.key_of(MEMBER)).await;
    assert!(
        elif.iter()
            .any(|(key, level)| key == "new-checkout" && level == "editor"),
        "{elif:?}"
    );
    // One flag, and one notebook by its short id.
    let flag = access
        .get(&access.owner, &format!("/api/projects/{WEB}/feature_flags/1/"))
        .await;
    assert_eq!(flag.expect(StatusCode::OK)["key"], "new-checkout");
    assert_eq!(flag.json["name"], "New checkout flow");
    let (_, short) = access.notebook(WEB, "Q4 pricing experiment").await;
    access
        .get(
            &access.key_of(ROSA),
            &format!("/api/projects/{WEB}/notebooks/{short}/"),
        )
        .await
        .expect(StatusCode::FORBIDDEN);
    let notebook = access
        .get(
            &access.key_of(MEMBER),
            &format!("/api/projects/{WEB}/notebooks/{short}/"),
        )
        .await;
    assert_eq!(notebook.expect(StatusCode::OK)["user_access_level"], "editor");
    access
        .get(&access.owner, &format!("/api/projects/{WEB}/notebooks/nothere/"))
        .await
        .expect(StatusCode::NOT_FOUND);
}

/// The members' settings answer is written a chunk of members at a time:
/// across chunks, every member is there once, in a document that parses,
/// each row as the one-member answer gives it.
#[tokio::test]
async fn the_members_answer_written_in_chunks_holds_every_member_once() {
    let access = Access::with(TestServer::demo_with(|options| options.generate_members = 1_234).await);
    let members = format!(
        "/api/organizations/{}/members/?limit=1",
        access.server.organization
    );
    let count = access.get(&access.owner, &members).await.expect(StatusCode::OK)["count"]
        .as_u64()
        .unwrap();
    assert!(count > 1_234, "{count}");
    let answer = access
        .get(
            &access.owner,
            &format!("/api/projects/{WEB}/access_control_members/"),
        )
        .await;
    let rows = answer.expect(StatusCode::OK)["results"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(rows.len() as u64, count);
    let ids: std::collections::HashSet<&str> = rows
        .iter()
        .map(|row| row["organization_membership_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len() as u64, count, "a member twice");
    assert!(
        answer.json["available_project_levels"].is_array(),
        "{}",
        answer.text.len()
    );
    // Rows either side of the first chunk's end, as each one's own answer.
    for row in [&rows[499], &rows[500], &rows[rows.len() - 1]] {
        let id = row["organization_membership_id"].as_str().unwrap();
        let alone = access
            .get(
                &access.owner,
                &format!("/api/projects/{WEB}/access_control_members/?member_id={id}"),
            )
            .await;
        assert_eq!(&alone.expect(StatusCode::OK)["results"][0], row);
    }
}
