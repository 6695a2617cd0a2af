//! Today's PostHog (`--api current`, posthog.md): the sections served so
//! far, word for word, beside what the seed flavor keeps (api.md,
//! compat.md).

use orgdeck::server::Flavor;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::support::{INACTIVE, OWNER, TestServer};

async fn current() -> TestServer {
    TestServer::demo_with(|options| options.flavor = Flavor::Current).await
}

async fn seed() -> TestServer {
    TestServer::demo_with(|options| options.flavor = Flavor::Seed).await
}

/// §5: roles have no access level (a sent one is ignored) and say whether
/// they are the default.
#[tokio::test]
async fn roles_have_no_access_level_and_say_which_is_the_default() {
    let server = current().await;
    let key = server.key(&["*"]);
    let created = server
        .post(
            &key,
            &server.roles_path(),
            json!({"name": "Night shift", "feature_flags_access_level": 99}),
        )
        .await;
    let role = created.expect(StatusCode::CREATED).clone();
    assert!(role.get("feature_flags_access_level").is_none(), "{role}");
    assert!(role.get("associated_flags").is_none(), "{role}");
    assert_eq!(role["is_default"], false);
    let id = role["id"].as_str().unwrap().to_string();
    let organization = server.organization.clone();
    let default_id = id.clone();
    server
        .running
        .db
        .write_blocking(move |tx| {
            tx.execute(
                "UPDATE organizations SET default_role_id = ?1 WHERE id = ?2",
                [&default_id, &organization],
            )?;
            Ok(())
        })
        .unwrap();
    let listed = server.all(&key, &server.roles_path()).await;
    let defaults: Vec<&Value> = listed.iter().filter(|role| role["is_default"] == true).collect();
    assert_eq!(defaults.len(), 1);
    assert_eq!(defaults[0]["id"], id.as_str());
    assert!(
        listed
            .iter()
            .all(|role| role.get("feature_flags_access_level").is_none())
    );
    let renamed = server
        .patch(
            &key,
            &format!("{}{id}/", server.roles_path()),
            json!({"name": "Nights"}),
        )
        .await;
    assert_eq!(renamed.expect(StatusCode::OK)["is_default"], true);
    // Uniqueness keeps its words.
    let twice = server
        .post(&key, &server.roles_path(), json!({"name": "NIGHTS"}))
        .await;
    let detail = twice.expect_error(
        StatusCode::BAD_REQUEST,
        "validation_error",
        "unique",
        Some("name"),
    );
    assert_eq!(detail, "There is already a role with this name.");
    // The client reads it as a role without an access level.
    let role: orgdeck::api::Role = serde_json::from_value(renamed.json.clone()).unwrap();
    assert_eq!(
        (role.feature_flags_access_level, role.is_default),
        (None, Some(true))
    );

    // The seed flavor keeps the access level and has no default.
    let server = seed().await;
    let key = server.key(&["*"]);
    let created = server
        .post(&key, &server.roles_path(), json!({"name": "Night shift"}))
        .await;
    let role = created.expect(StatusCode::CREATED);
    assert_eq!(role["feature_flags_access_level"], 37);
    assert!(role.get("is_default").is_none(), "{role}");
}

/// §6: retrieve, "Role does not exist.", an unknown role's list is empty,
/// no update.
#[tokio::test]
async fn memberships_are_retrieved_and_refused_in_todays_words() {
    let server = current().await;
    let key = server.key(&["*"]);
    let roles = server.get(&key, &server.roles_path()).await.json["results"].clone();
    let role = roles[0]["id"].as_str().unwrap();
    let membership = &roles[0]["members"][0];
    let path = format!("{}{role}/role_memberships/", server.roles_path());
    let one = server
        .get(&key, &format!("{path}{}/", membership["id"].as_str().unwrap()))
        .await;
    assert_eq!(one.expect(StatusCode::OK), membership);
    let missing = server
        .get(&key, &format!("{path}{}/", uuid::Uuid::new_v4()))
        .await;
    missing.expect_error(StatusCode::NOT_FOUND, "invalid_request", "not_found", None);
    let patch = server
        .patch(
            &key,
            &format!("{path}{}/", membership["id"].as_str().unwrap()),
            json!({}),
        )
        .await;
    assert_eq!(patch.status, StatusCode::METHOD_NOT_ALLOWED);

    let unknown = format!(
        "{}{}/role_memberships/",
        server.roles_path(),
        uuid::Uuid::new_v4()
    );
    let listed = server.get(&key, &unknown).await;
    assert_eq!(listed.expect(StatusCode::OK)["count"], 0);
    let refused = server
        .post(
            &key,
            &unknown,
            json!({"user_uuid": uuid::Uuid::new_v4().to_string()}),
        )
        .await;
    let detail = refused.expect_error(StatusCode::BAD_REQUEST, "validation_error", "invalid_input", None);
    assert_eq!(detail, "Role does not exist.");

    // The seed flavor too has the retrieve and refuses an unknown role in
    // the same words (compat.md's header); listing one is its 404.
    let server = seed().await;
    let key = server.key(&["*"]);
    let roles = server.get(&key, &server.roles_path()).await.json["results"].clone();
    let role = roles[0]["id"].as_str().unwrap();
    let membership = &roles[0]["members"][0];
    let id = membership["id"].as_str().unwrap();
    let path = format!("{}{role}/role_memberships/{id}/", server.roles_path());
    assert_eq!(server.get(&key, &path).await.expect(StatusCode::OK), membership);
    let unknown = format!(
        "{}{}/role_memberships/",
        server.roles_path(),
        uuid::Uuid::new_v4()
    );
    assert_eq!(server.get(&key, &unknown).await.status, StatusCode::NOT_FOUND);
    let refused = server
        .post(
            &key,
            &unknown,
            json!({"user_uuid": uuid::Uuid::new_v4().to_string()}),
        )
        .await;
    let detail = refused.expect_error(StatusCode::BAD_REQUEST, "validation_error", "invalid_input", None);
    assert_eq!(detail, "Role does not exist.");
}

/// §7: no inactive users or bots; `email`, `updated_after`, `order`,
/// `search` and its limit.
#[tokio::test]
async fn members_leave_out_the_inactive_and_filter_as_today() {
    let server = current().await;
    let key = server.key(&["*"]);
    let path = format!("/api/organizations/{}/members/", server.organization);
    let everyone = server.all(&key, &path).await;
    let emails: Vec<&str> = everyone
        .iter()
        .map(|member| member["user"]["email"].as_str().unwrap())
        .collect();
    assert!(!emails.contains(&INACTIVE), "{emails:?}");
    assert!(emails.contains(&OWNER));
    // §7 and §13: when each last logged in, and the role people gave.
    for member in &everyone {
        let last_login = member["last_login"]
            .as_str()
            .unwrap_or_else(|| panic!("{member}"));
        assert!(
            orgdeck::api::time::parse_datetime(last_login).is_some(),
            "{last_login}"
        );
    }
    let roles: Vec<&Value> = everyone
        .iter()
        .map(|member| &member["user"]["role_at_organization"])
        .filter(|role| role.is_string())
        .collect();
    assert!(
        !roles.is_empty() && roles.len() < everyone.len(),
        "some gave one: {roles:?}"
    );
    let joined: Vec<&str> = everyone
        .iter()
        .map(|member| member["joined_at"].as_str().unwrap())
        .collect();
    assert!(joined.windows(2).all(|pair| pair[0] >= pair[1]), "newest first");
    let oldest_first = server.all(&key, &format!("{path}?order=joined_at")).await;
    assert_eq!(oldest_first.first(), everyone.last());

    let by_email = server.get(&key, &format!("{path}?email={OWNER}")).await;
    let by_email = by_email.expect(StatusCode::OK);
    assert_eq!(by_email["count"], 1);
    assert_eq!(by_email["results"][0]["user"]["email"], OWNER);
    let search = server.get(&key, &format!("{path}?search=OKAFOR")).await;
    assert_eq!(search.expect(StatusCode::OK)["count"], 1);
    let blank = server.get(&key, &format!("{path}?search=%20%20")).await;
    assert_eq!(blank.expect(StatusCode::OK)["count"], everyone.len());
    let long = server
        .get(&key, &format!("{path}?search={}", "a".repeat(201)))
        .await;
    let detail = long.expect_error(
        StatusCode::BAD_REQUEST,
        "validation_error",
        "invalid_input",
        Some("search"),
    );
    assert_eq!(detail, "Search query must be 200 characters or fewer.");
    let future = server
        .get(&key, &format!("{path}?updated_after=2999-01-01T00:00:00Z"))
        .await;
    assert_eq!(future.expect(StatusCode::OK)["count"], 0);
    let past = server
        .get(&key, &format!("{path}?updated_after=2000-01-01T00:00:00Z"))
        .await;
    assert_eq!(past.expect(StatusCode::OK)["count"], everyone.len());

    // The seed flavor has none of the filters, but leaves out inactive
    // users and lists the newest first too (compat.md's header).
    let server = seed().await;
    let key = server.key(&["*"]);
    let path = format!("/api/organizations/{}/members/", server.organization);
    let seeded = server.all(&key, &path).await;
    assert!(!seeded.iter().any(|member| member["user"]["email"] == INACTIVE));
    let joined: Vec<&str> = seeded
        .iter()
        .map(|member| member["joined_at"].as_str().unwrap())
        .collect();
    assert!(joined.windows(2).all(|pair| pair[0] >= pair[1]), "newest first");
    let by_email = server.get(&key, &format!("{path}?email={OWNER}")).await;
    assert_eq!(by_email.expect(StatusCode::OK)["count"], seeded.len());
}

/// §1: every project path answers under /api/environments/ too.
#[tokio::test]
async fn environments_are_another_name_for_projects() {
    let server = current().await;
    let key = server.key(&["*"]);
    let project = server.project;
    for (method, tail) in [
        (Method::GET, "subscriptions/?limit=1"),
        (Method::GET, "dashboards/"),
        (Method::GET, "insights/"),
        (Method::GET, ""),
    ] {
        let projects = server
            .call(
                method.clone(),
                Some(&key),
                &format!("/api/projects/{project}/{tail}"),
                None,
            )
            .await;
        let environments = server
            .call(
                method,
                Some(&key),
                &format!("/api/environments/{project}/{tail}"),
                None,
            )
            .await;
        assert_eq!(
            environments.status,
            StatusCode::OK,
            "{tail}: {}",
            environments.text
        );
        assert_eq!(environments.json["count"], projects.json["count"], "{tail}");
    }
    let insight = server
        .get(&key, &format!("/api/projects/{project}/insights/"))
        .await
        .json["results"][0]["id"]
        .clone();
    let created = server
        .post(
            &key,
            &format!("/api/environments/{project}/subscriptions/"),
            json!({
                "insight": insight,
                "target_type": "email",
                "target_value": "oncall@hedgebox.dev",
                "frequency": "daily",
                "interval": 1,
                "start_date": "2026-12-01T09:00:00Z",
            }),
        )
        .await;
    let id = created.expect(StatusCode::CREATED)["id"].as_i64().unwrap();
    let seen = server
        .get(&key, &format!("/api/projects/{project}/subscriptions/{id}/"))
        .await;
    seen.expect(StatusCode::OK);

    // The seed flavor has no such paths.
    let server = seed().await;
    let key = server.key(&["*"]);
    let missing = server
        .get(
            &key,
            &format!("/api/environments/{}/subscriptions/", server.project),
        )
        .await;
    missing.expect_error(StatusCode::NOT_FOUND, "invalid_request", "not_found", None);
}
