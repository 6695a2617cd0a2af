use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::support::{OUTSIDER, TestServer};

#[tokio::test]
async fn requests_without_a_valid_key_are_refused() {
    let server = TestServer::demo().await;
    let path = server.roles_path();
    let missing = server.call(Method::GET, None, &path, None).await;
    assert_eq!(
        missing.expect_error(
            StatusCode::UNAUTHORIZED,
            "authentication_error",
            "not_authenticated",
            None
        ),
        "Authentication credentials were not provided."
    );
    let wrong = server.get("phx_not_a_real_key", &path).await;
    assert_eq!(
        wrong.expect_error(
            StatusCode::UNAUTHORIZED,
            "authentication_error",
            "authentication_failed",
            None
        ),
        "Personal API key found in request Authorization header is invalid."
    );
    let basic = server
        .http
        .get(server.url(&path))
        .header("Authorization", "Basic abc")
        .send()
        .await
        .unwrap();
    crate::support::Reply::read(basic).await.expect_error(
        StatusCode::UNAUTHORIZED,
        "authentication_error",
        "not_authenticated",
        None,
    );
}

/// Every endpoint with the scope it needs.
pub fn endpoints(
    server: &TestServer,
    role: &str,
    membership: &str,
    subscription: i64,
) -> Vec<(Method, String, Option<Value>, &'static str)> {
    let roles = server.roles_path();
    let subs = server.subscriptions_path();
    let project = server.project;
    vec![
        (Method::GET, roles.clone(), None, "organization:read"),
        (
            Method::POST,
            roles.clone(),
            Some(json!({"name": "Scoped"})),
            "organization:write",
        ),
        (Method::GET, format!("{roles}{role}/"), None, "organization:read"),
        (
            Method::PATCH,
            format!("{roles}{role}/"),
            Some(json!({"name": "Renamed by scope"})),
            "organization:write",
        ),
        (
            Method::GET,
            format!("{roles}{role}/role_memberships/"),
            None,
            "organization:read",
        ),
        (
            Method::POST,
            format!("{roles}{role}/role_memberships/"),
            Some(json!({"user_uuid": uuid::Uuid::new_v4().to_string()})),
            "organization:write",
        ),
        (
            Method::DELETE,
            format!("{roles}{role}/role_memberships/{membership}/"),
            None,
            "organization:write",
        ),
        (
            Method::DELETE,
            format!("{roles}{role}/"),
            None,
            "organization:write",
        ),
        (Method::GET, subs.clone(), None, "subscription:read"),
        (
            Method::POST,
            subs.clone(),
            Some(
                json!({"target_type": "slack", "target_value": "#x", "frequency": "daily", "start_date": "2026-01-01T00:00:00Z"}),
            ),
            "subscription:write",
        ),
        (
            Method::GET,
            format!("{subs}{subscription}/"),
            None,
            "subscription:read",
        ),
        (
            Method::PATCH,
            format!("{subs}{subscription}/"),
            Some(json!({"title": "scoped"})),
            "subscription:write",
        ),
        (
            Method::DELETE,
            format!("{subs}{subscription}/"),
            None,
            "subscription:write",
        ),
        (
            Method::GET,
            "/api/organizations/".into(),
            None,
            "organization:read",
        ),
        (Method::GET, "/api/projects/".into(), None, "project:read"),
        (
            Method::GET,
            "/api/organizations/@current/".into(),
            None,
            "organization:read",
        ),
        (
            Method::GET,
            format!("/api/projects/{project}/"),
            None,
            "project:read",
        ),
        (
            Method::GET,
            format!("/api/organizations/{}/members/", server.organization),
            None,
            "organization_member:read",
        ),
        (
            Method::GET,
            format!("/api/projects/{project}/dashboards/"),
            None,
            "dashboard:read",
        ),
        (
            Method::GET,
            format!("/api/projects/{project}/insights/"),
            None,
            "insight:read",
        ),
    ]
}

#[tokio::test]
async fn every_endpoint_checks_its_scope() {
    let server = TestServer::demo().await;
    let admin = server.key(&["*"]);
    let roles = server.get(&admin, &server.roles_path()).await.json["results"].clone();
    let role = roles[0]["id"].as_str().unwrap().to_string();
    let membership = roles[0]["members"][0]["id"].as_str().unwrap().to_string();
    let subscription = server.get(&admin, &server.subscriptions_path()).await.json["results"][0]["id"]
        .as_i64()
        .unwrap();

    // Without the scope: 403 naming it, and nothing changes. A key whose
    // scope list is empty holds no scope at all (posthog.md 3), though
    // `@current` shows it as ["*"].
    let unrelated = server.key(&["feature_flag:read"]);
    let empty = server.key(&[]);
    // A deactivated user's key is no key (posthog.md 1).
    let inactive = server.key_for(crate::support::INACTIVE, &["*"]);
    for (method, path, body, scope) in endpoints(&server, &role, &membership, subscription) {
        for key in [&unrelated, &empty] {
            let reply = server.call(method.clone(), Some(key), &path, body.clone()).await;
            let detail = reply.expect_error(
                StatusCode::FORBIDDEN,
                "authentication_error",
                "permission_denied",
                None,
            );
            assert_eq!(
                detail,
                format!("API key missing required scope '{scope}'"),
                "{method} {path}"
            );
        }
        let reply = server.call(method.clone(), Some(&inactive), &path, body).await;
        reply.expect_error(
            StatusCode::UNAUTHORIZED,
            "authentication_error",
            "authentication_failed",
            None,
        );
    }
    assert_eq!(server.get(&admin, &server.roles_path()).await.json["count"], 8);

    // With exactly the scope: never a 401 or 403. The reads also pass with
    // the matching :write scope, and everything with '*'.
    for (method, path, body, scope) in endpoints(&server, &role, &membership, subscription) {
        let mut keys = vec![server.key(&[scope])];
        if let Some(object) = scope.strip_suffix(":read") {
            keys.push(server.key(&[&format!("{object}:write")]));
        }
        for key in keys {
            let reply = server.call(method.clone(), Some(&key), &path, body.clone()).await;
            assert!(
                reply.status != StatusCode::FORBIDDEN && reply.status != StatusCode::UNAUTHORIZED,
                "{method} {path} with {scope}: {} {}",
                reply.status,
                reply.text
            );
        }
    }
}

#[tokio::test]
async fn the_current_key_needs_no_scope_and_shows_no_secret() {
    let server = TestServer::demo().await;
    let key = server.key(&["subscription:read", "organization:read"]);
    let reply = server.get(&key, "/api/personal_api_keys/@current/").await;
    let current = reply.expect(StatusCode::OK);
    assert_eq!(
        current["scopes"],
        json!(["subscription:read", "organization:read"])
    );
    for field in [
        "id",
        "label",
        "mask_value",
        "scopes",
        "scoped_organizations",
        "scoped_teams",
    ] {
        assert!(current.get(field).is_some(), "{field}");
    }
    assert!(
        !reply.text.contains(&key[8..]),
        "the key itself is never sent back"
    );
    assert!(current["mask_value"].as_str().unwrap().starts_with("phx_..."));
    let empty = server.key(&[]);
    assert_eq!(
        server.get(&empty, "/api/personal_api_keys/@current").await.json["scopes"],
        json!(["*"])
    );
}

#[tokio::test]
async fn organizations_are_resolved_and_checked() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    for organization in [uuid::Uuid::new_v4().to_string(), "not-an-org".into(), "42".into()] {
        let reply = server
            .get(&key, &format!("/api/organizations/{organization}/roles/"))
            .await;
        assert_eq!(
            reply.expect_error(StatusCode::NOT_FOUND, "invalid_request", "not_found", None),
            "Organization not found."
        );
    }
    let by_current = server.get(&key, "/api/organizations/@current/roles/").await;
    let by_id = server.get(&key, &server.roles_path()).await;
    assert_eq!(by_current.json["results"], by_id.json["results"]);
    let projects = server
        .get(&key, "/api/projects/@current/subscriptions/?limit=1")
        .await;
    assert_eq!(
        projects.json["count"],
        server.get(&key, &server.subscriptions_path()).await.json["count"]
    );

    let outsider = server.key_for(OUTSIDER, &["*"]);
    server.get(&outsider, &server.roles_path()).await.expect_error(
        StatusCode::FORBIDDEN,
        "authentication_error",
        "permission_denied",
        None,
    );
    // @current of a user with no organization is nothing to find.
    server
        .get(&outsider, "/api/organizations/@current/roles/")
        .await
        .expect_error(StatusCode::NOT_FOUND, "invalid_request", "not_found", None);
}

#[tokio::test]
async fn pickers_list_what_the_console_needs() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let organizations = server.get(&key, "/api/organizations/").await;
    let organizations = organizations.expect(StatusCode::OK);
    assert_eq!(organizations["count"], 1);
    assert_eq!(organizations["results"][0]["id"], server.organization.as_str());
    let projects = server.get(&key, "/api/projects/").await;
    assert_eq!(projects.expect(StatusCode::OK)["count"], 2);
    let members = server
        .all(
            &key,
            &format!("/api/organizations/{}/members/?limit=5", server.organization),
        )
        .await;
    assert!(members.len() >= 20);
    let levels: std::collections::HashSet<i64> =
        members.iter().map(|m| m["level"].as_i64().unwrap()).collect();
    assert_eq!(levels, [1, 8, 15].into());
    serde_json::from_value::<Vec<orgdeck::api::OrganizationMember>>(Value::Array(members)).unwrap();
    // One of each by id or `@current`: what the console's header names.
    for path in [
        "/api/organizations/@current/".to_string(),
        format!("/api/organizations/{}/", server.organization),
    ] {
        let organization = server.get(&key, &path).await;
        assert_eq!(
            organization.expect(StatusCode::OK)["name"],
            "Hedgebox Inc.",
            "{path}"
        );
    }
    for path in [
        "/api/projects/@current/".to_string(),
        format!("/api/projects/{}/", server.project),
    ] {
        let project = server.get(&key, &path).await;
        let project = project.expect(StatusCode::OK);
        assert_eq!(project["id"], server.project, "{path}");
        assert_eq!(project["organization"], server.organization.as_str());
    }
    let unknown = server.get(&key, "/api/projects/424242/").await;
    unknown.expect_error(StatusCode::NOT_FOUND, "invalid_request", "not_found", None);
    let unknown = server
        .get(&key, "/api/organizations/00000000-0000-4000-8000-000000000000/")
        .await;
    unknown.expect_error(StatusCode::NOT_FOUND, "invalid_request", "not_found", None);
    for catalog in ["dashboards", "insights"] {
        let page = server
            .get(&key, &format!("/api/projects/{}/{catalog}/", server.project))
            .await;
        let page = page.expect(StatusCode::OK);
        assert!(page["count"].as_i64().unwrap() > 3);
        assert!(page["results"][0]["id"].is_i64() && page["results"][0]["name"].is_string());
    }
}

#[tokio::test]
async fn keys_are_stored_only_as_a_hash() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let stored: Vec<String> = server
        .running
        .db
        .read_blocking(|c| {
            let mut statement =
                c.prepare("SELECT secure_value || mask_value || scopes FROM personal_api_keys")?;
            Ok(statement.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?)
        })
        .unwrap();
    assert!(stored.iter().all(|row| !row.contains(&key[4..])));
    assert!(stored.iter().all(|row| row.starts_with("sha256$")));
}
