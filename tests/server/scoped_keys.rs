//! Keys limited to organizations or projects (`scoped_organizations`,
//! `scoped_teams`): every endpoint and method with an unscoped key, keys
//! scoped to this organization or another, keys scoped to one project or
//! the other, and stored lists that do not parse (posthog.md §1).

use orgdeck::server::store::keys::Restrictions;
use reqwest::StatusCode;
use serde_json::Value;

use crate::auth::endpoints;
use crate::support::{OWNER, TestServer};

/// What part of the API a path belongs to, as PostHog's key checks see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Under `/api/organizations/{id}/`.
    Organization,
    /// Under `/api/projects/{id}/`.
    Project,
    /// `/api/organizations/` and `/api/projects/`: lists filtered by the key.
    Listing,
}

fn kind(path: &str) -> Kind {
    match path {
        "/api/organizations/" | "/api/projects/" => Kind::Listing,
        _ if path.starts_with("/api/organizations/") => Kind::Organization,
        _ if path.starts_with("/api/projects/") => Kind::Project,
        _ => panic!("unclassified path {path}"),
    }
}

/// A second organization the owner belongs to, with one project:
/// what a key scoped elsewhere is scoped to.
fn second_organization(server: &TestServer) -> (String, i64) {
    let id = uuid::Uuid::new_v4().to_string();
    let organization = id.clone();
    let project = server
        .running
        .db
        .write_blocking(move |tx| {
            tx.execute(
                "INSERT INTO organizations (id, name, slug, created_at)
                 VALUES (?1, 'Elsewhere Ltd', 'elsewhere', '2026-01-01T00:00:00Z')",
                [&organization],
            )?;
            tx.execute(
                "INSERT INTO projects (organization_id, name, created_at)
                 VALUES (?1, 'Elsewhere project', '2026-01-01T00:00:00Z')",
                [&organization],
            )?;
            let project = tx.last_insert_rowid();
            tx.execute(
                "INSERT INTO organization_members (id, organization_id, user_id, level, joined_at, updated_at)
                 SELECT ?1, ?2, id, 15, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'
                 FROM users WHERE email = ?3",
                rusqlite::params![uuid::Uuid::new_v4().to_string(), organization, OWNER],
            )?;
            Ok(project)
        })
        .unwrap();
    (id, project)
}

/// The demo's second project, in the same organization as the first.
async fn other_project(server: &TestServer, key: &str) -> i64 {
    let projects = server.get(key, "/api/projects/").await;
    projects.expect(StatusCode::OK)["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|project| project["id"].as_i64().unwrap())
        .find(|&id| id != server.project)
        .expect("the demo has a second project")
}

/// A role, one of its memberships and a subscription, for the paths.
async fn targets(server: &TestServer, key: &str) -> (String, String, i64) {
    let roles = server.get(key, &server.roles_path()).await.json["results"].clone();
    let role = roles[0]["id"].as_str().unwrap().to_string();
    let membership = roles[0]["members"][0]["id"].as_str().unwrap().to_string();
    let subscription = server.get(key, &server.subscriptions_path()).await.json["results"][0]["id"]
        .as_i64()
        .unwrap();
    (role, membership, subscription)
}

#[track_caller]
fn refused(reply: &crate::support::Reply, detail: &str, what: &str) {
    assert_eq!(
        reply.expect_error(
            StatusCode::FORBIDDEN,
            "authentication_error",
            "permission_denied",
            None
        ),
        detail,
        "{what}"
    );
}

#[track_caller]
fn let_through(reply: &crate::support::Reply, what: &str) {
    assert!(
        reply.status != StatusCode::FORBIDDEN && reply.status != StatusCode::UNAUTHORIZED,
        "{what}: {} {}",
        reply.status,
        reply.text
    );
}

fn ids(page: &Value) -> Vec<Value> {
    page["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["id"].clone())
        .collect()
}

#[tokio::test]
async fn keys_scoped_to_an_organization_reach_it_alone() {
    let server = TestServer::demo().await;
    let admin = server.key(&["*"]);
    let (elsewhere, elsewhere_project) = second_organization(&server);
    let (role, membership, subscription) = targets(&server, &admin).await;
    let here = Restrictions {
        organizations: vec![server.organization.clone()],
        projects: vec![],
    };
    let there = Restrictions {
        organizations: vec![elsewhere.clone()],
        projects: vec![],
    };
    let scoped_here = server.restricted_key(OWNER, &["*"], here);
    let scoped_there = server.restricted_key(OWNER, &["*"], there);
    let foreign = format!(
        "API key does not have access to the requested organization: ID {}.",
        server.organization
    );

    // Reads first, writes last (the matrix deletes what it reads).
    for (method, path, body, _) in endpoints(&server, &role, &membership, subscription) {
        let what = format!("{method} {path}");
        let elsewhere_reply = server
            .call(method.clone(), Some(&scoped_there), &path, body.clone())
            .await;
        match kind(&path) {
            Kind::Organization | Kind::Project => refused(&elsewhere_reply, &foreign, &what),
            Kind::Listing => {
                // The lists hold only what the key reaches.
                let page = elsewhere_reply.expect(StatusCode::OK);
                let expected: Vec<Value> = if path == "/api/projects/" {
                    vec![elsewhere_project.into()]
                } else {
                    vec![elsewhere.clone().into()]
                };
                assert_eq!(ids(page), expected, "{what}");
            }
        }
        let_through(
            &server
                .call(method.clone(), Some(&scoped_here), &path, body.clone())
                .await,
            &what,
        );
        let_through(&server.call(method, Some(&admin), &path, body).await, &what);
    }
    // The other organization's own project is within the key's reach.
    let theirs = server
        .get(
            &scoped_there,
            &format!("/api/projects/{elsewhere_project}/subscriptions/"),
        )
        .await;
    assert_eq!(theirs.expect(StatusCode::OK)["count"], 0);
    let roles_there = server
        .get(&scoped_there, &format!("/api/organizations/{elsewhere}/roles/"))
        .await;
    roles_there.expect(StatusCode::OK);
}

#[tokio::test]
async fn keys_scoped_to_a_project_reach_it_and_no_organization_endpoint() {
    let server = TestServer::demo().await;
    let admin = server.key(&["*"]);
    let other = other_project(&server, &admin).await;
    let (role, membership, subscription) = targets(&server, &admin).await;
    let only = |project: i64| Restrictions {
        organizations: vec![],
        projects: vec![project],
    };
    let this_project = server.restricted_key(OWNER, &["*"], only(server.project));
    let other_project = server.restricted_key(OWNER, &["*"], only(other));

    for (method, path, body, _) in endpoints(&server, &role, &membership, subscription) {
        let what = format!("{method} {path}");
        let mine = server
            .call(method.clone(), Some(&this_project), &path, body.clone())
            .await;
        let not_mine = server
            .call(method.clone(), Some(&other_project), &path, body.clone())
            .await;
        match kind(&path) {
            Kind::Organization => {
                for reply in [&mine, &not_mine] {
                    refused(
                        reply,
                        "API keys with scoped projects are only supported on project-based endpoints.",
                        &what,
                    );
                }
            }
            Kind::Project => {
                let_through(&mine, &what);
                refused(
                    &not_mine,
                    &format!(
                        "API key does not have access to the requested project: ID {}.",
                        server.project
                    ),
                    &what,
                );
            }
            Kind::Listing if path == "/api/projects/" => {
                assert_eq!(ids(mine.expect(StatusCode::OK)), [Value::from(server.project)]);
                assert_eq!(ids(not_mine.expect(StatusCode::OK)), [Value::from(other)]);
            }
            Kind::Listing => {
                assert_eq!(
                    ids(mine.expect(StatusCode::OK)),
                    [Value::from(server.organization.clone())]
                );
            }
        }
    }
    // `@current` resolves first, then the key's projects apply.
    let current = server
        .get(&other_project, "/api/projects/@current/subscriptions/")
        .await;
    refused(
        &current,
        &format!(
            "API key does not have access to the requested project: ID {}.",
            server.project
        ),
        "@current",
    );
}

#[tokio::test]
async fn stored_lists_that_do_not_parse_grant_nothing() {
    let server = TestServer::demo().await;
    let admin = server.key(&["*"]);
    let (role, membership, subscription) = targets(&server, &admin).await;
    let damage = |column: &'static str, value: &'static str| {
        let key = server.key(&["*"]);
        let tail = key[key.len() - 4..].to_string();
        server
            .running
            .db
            .write_blocking(move |tx| {
                tx.execute(
                    &format!("UPDATE personal_api_keys SET {column} = ?1 WHERE mask_value LIKE ?2"),
                    [value.to_string(), format!("%...{tail}")],
                )?;
                Ok(())
            })
            .unwrap();
        key
    };
    let scopes = damage("scopes", "*");
    let organizations = damage("scoped_organizations", "{not json");
    let teams = damage("scoped_teams", "[\"1\"");
    for (method, path, body, scope) in endpoints(&server, &role, &membership, subscription) {
        let what = format!("{method} {path}");
        let reply = server
            .call(method.clone(), Some(&scopes), &path, body.clone())
            .await;
        refused(
            &reply,
            &format!("API key missing required scope '{scope}'"),
            &what,
        );
        let reply = server
            .call(method.clone(), Some(&organizations), &path, body.clone())
            .await;
        match kind(&path) {
            Kind::Organization | Kind::Project => assert_eq!(reply.status, StatusCode::FORBIDDEN, "{what}"),
            Kind::Listing => assert_eq!(reply.expect(StatusCode::OK)["count"], 0, "{what}"),
        }
        let reply = server.call(method, Some(&teams), &path, body).await;
        match kind(&path) {
            Kind::Organization | Kind::Project => assert_eq!(reply.status, StatusCode::FORBIDDEN, "{what}"),
            Kind::Listing => assert_eq!(reply.expect(StatusCode::OK)["count"], 0, "{what}"),
        }
    }
}

#[tokio::test]
async fn a_non_member_hears_drf_s_words() {
    let server = TestServer::demo().await;
    let outsider = server.key_for(crate::support::OUTSIDER, &["*"]);
    refused(
        &server.get(&outsider, &server.roles_path()).await,
        "You do not have permission to perform this action.",
        "roles of an organization the caller is not in",
    );
    refused(
        &server.get(&outsider, &server.subscriptions_path()).await,
        "You don't have access to the project.",
        "subscriptions of a project the caller is not in",
    );
}
