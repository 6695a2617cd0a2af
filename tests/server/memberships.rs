use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::roles::assert_membership;
use crate::support::{INACTIVE, MEMBER, OUTSIDER, Reply, TestServer};

fn user_uuid(server: &TestServer, email: &str) -> String {
    let email = email.to_string();
    server
        .running
        .db
        .read_blocking(move |c| {
            Ok(c.query_row("SELECT uuid FROM users WHERE email = ?1", [&email], |r| r.get(0))?)
        })
        .unwrap()
}

async fn role_path(server: &TestServer, key: &str, index: usize) -> String {
    let roles = server.get(key, &server.roles_path()).await.json["results"].clone();
    format!(
        "{}{}/role_memberships/",
        server.roles_path(),
        roles[index]["id"].as_str().unwrap()
    )
}

#[tokio::test]
async fn list_in_joining_order_with_every_field() {
    let server = TestServer::demo().await;
    let key = server.key(&["organization:read"]);
    let path = role_path(&server, &key, 0).await;
    let page = server.get(&key, &path).await;
    let page = page.expect(StatusCode::OK);
    assert_eq!(page["count"], 11);
    let rows = page["results"].as_array().unwrap();
    rows.iter().for_each(assert_membership);
    let joined: Vec<&str> = rows.iter().map(|r| r["joined_at"].as_str().unwrap()).collect();
    let mut sorted = joined.clone();
    sorted.sort();
    assert_eq!(joined, sorted);
    serde_json::from_value::<Vec<orgdeck::api::RoleMembership>>(page["results"].clone()).unwrap();
}

#[tokio::test]
async fn assign_then_remove_a_user() {
    let server = TestServer::demo().await;
    let key = server.key(&["organization:write"]);
    let path = role_path(&server, &key, 6).await; // Finance: two members
    let uuid = user_uuid(&server, MEMBER);
    let created = server.post(&key, &path, json!({"user_uuid": uuid})).await;
    let membership = created.expect(StatusCode::CREATED).clone();
    assert_membership(&membership);
    assert_eq!(membership["user"]["email"], MEMBER);
    assert_eq!(membership["organization_member"]["level"], 1);
    assert_eq!(server.get(&key, &path).await.json["count"], 3);

    let again = server.post(&key, &path, json!({"user_uuid": uuid})).await;
    assert_eq!(
        again.expect_error(StatusCode::BAD_REQUEST, "validation_error", "invalid_input", None),
        "User is already part of the role."
    );

    let member_path = format!("{path}{}/", membership["id"].as_str().unwrap());
    let removed = server.delete(&key, &member_path).await;
    assert_eq!(removed.status, StatusCode::NO_CONTENT);
    assert!(removed.text.is_empty());
    assert_eq!(server.get(&key, &path).await.json["count"], 2);
    server.delete(&key, &member_path).await.expect_error(
        StatusCode::NOT_FOUND,
        "invalid_request",
        "not_found",
        None,
    );
}

#[tokio::test]
async fn only_active_members_of_the_organization_can_be_assigned() {
    let server = TestServer::demo().await;
    let key = server.key(&["organization:write"]);
    let path = role_path(&server, &key, 7).await;
    for uuid in [
        uuid::Uuid::new_v4().to_string(),
        user_uuid(&server, INACTIVE),
        user_uuid(&server, OUTSIDER),
    ] {
        let reply = server.post(&key, &path, json!({"user_uuid": uuid})).await;
        assert_eq!(
            reply.expect_error(StatusCode::BAD_REQUEST, "validation_error", "invalid_input", None),
            "User does not exist."
        );
    }
    server.post(&key, &path, json!({})).await.expect_error(
        StatusCode::BAD_REQUEST,
        "validation_error",
        "required",
        Some("user_uuid"),
    );
    server
        .post(&key, &path, json!({"user_uuid": "nope"}))
        .await
        .expect_error(
            StatusCode::BAD_REQUEST,
            "validation_error",
            "invalid_input",
            Some("user_uuid"),
        );
}

/// Today's PostHog retrieves a membership; nothing updates one (posthog.md 6).
#[tokio::test]
async fn memberships_are_retrieved_but_never_updated() {
    let server = TestServer::demo().await;
    let key = server.key(&["organization:read"]);
    let path = role_path(&server, &key, 0).await;
    let first = server.get(&key, &path).await.json["results"][0].clone();
    let member_path = format!("{path}{}/", first["id"].as_str().unwrap());
    let retrieved = server.get(&key, &member_path).await;
    let retrieved = retrieved.expect(StatusCode::OK);
    assert_membership(retrieved);
    assert_eq!(retrieved, &first);
    // Another role's path does not reach it.
    let other = role_path(&server, &key, 1).await;
    server
        .get(&key, &format!("{other}{}/", first["id"].as_str().unwrap()))
        .await
        .expect_error(StatusCode::NOT_FOUND, "invalid_request", "not_found", None);

    let key = server.key(&["*"]);
    for method in [Method::PATCH, Method::PUT] {
        let reply = server
            .call(
                method.clone(),
                Some(&key),
                &member_path,
                Some(json!({"user_uuid": "x"})),
            )
            .await;
        let detail = reply.expect_error(
            StatusCode::METHOD_NOT_ALLOWED,
            "invalid_request",
            "method_not_allowed",
            None,
        );
        assert_eq!(detail, format!("Method \"{method}\" not allowed."));
    }
}

/// An unknown role lists no memberships, and takes none: "Role does not
/// exist." comes before anything about the user (posthog.md 6).
#[tokio::test]
async fn an_unknown_role_has_no_memberships() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let path = format!(
        "{}{}/role_memberships/",
        server.roles_path(),
        uuid::Uuid::new_v4()
    );
    let listed = server.get(&key, &path).await;
    let listed = listed.expect(StatusCode::OK);
    assert_eq!(
        (listed["count"].as_i64(), listed["results"].clone()),
        (Some(0), json!([]))
    );
    for user in [user_uuid(&server, MEMBER), uuid::Uuid::new_v4().to_string()] {
        let refused = server.post(&key, &path, json!({"user_uuid": user})).await;
        let detail = refused.expect_error(StatusCode::BAD_REQUEST, "validation_error", "invalid_input", None);
        assert_eq!(detail, "Role does not exist.");
    }
}

#[tokio::test]
async fn members_cannot_assign() {
    let server = TestServer::demo().await;
    let member = server.key_for(MEMBER, &["*"]);
    let path = role_path(&server, &member, 7).await;
    let uuid = user_uuid(&server, MEMBER);
    server
        .post(&member, &path, json!({"user_uuid": uuid}))
        .await
        .expect_error(
            StatusCode::FORBIDDEN,
            "authentication_error",
            "permission_denied",
            None,
        );
}

/// The members' count is kept by triggers (schema 8): it stays what the
/// rows say through removals, deactivations and new members.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_members_count_follows_removals_deactivations_and_new_members() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let path = format!("/api/organizations/{}/members/", server.organization);
    let counted = |reply: &Reply| reply.json["count"].as_u64().unwrap();
    let listed = server.all(&key, &path).await.len() as u64;
    let first = server.get(&key, &format!("{path}?limit=1")).await;
    assert_eq!(counted(&first), listed);
    assert_eq!(listed, 40);

    // A removal.
    let leaver = server
        .get(&key, &format!("{path}?email={}", crate::support::LEAVER))
        .await;
    let uuid = leaver.json["results"][0]["user"]["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    server
        .delete(&key, &format!("{path}{uuid}/"))
        .await
        .expect(StatusCode::NO_CONTENT);
    assert_eq!(counted(&server.get(&key, &format!("{path}?limit=1")).await), 39);

    // A deactivation, and a member coming back, straight in the database.
    server
        .running
        .db
        .write_blocking(|tx| {
            tx.execute(
                "UPDATE users SET is_active = 0 WHERE email = ?1",
                [crate::support::MEMBER],
            )?;
            Ok(())
        })
        .unwrap();
    assert_eq!(counted(&server.get(&key, &format!("{path}?limit=1")).await), 38);
    assert_eq!(server.all(&key, &path).await.len(), 38);
    server
        .running
        .db
        .write_blocking(|tx| {
            tx.execute(
                "UPDATE users SET is_active = 1 WHERE email = ?1",
                [crate::support::MEMBER],
            )?;
            Ok(())
        })
        .unwrap();
    assert_eq!(counted(&server.get(&key, &format!("{path}?limit=1")).await), 39);
    // The count from the table matches a count of the rows.
    let (kept, rows): (i64, i64) = server
        .running
        .db
        .read_blocking(|c| {
            Ok((
                c.query_row("SELECT people FROM organization_people", [], |r| r.get(0))?,
                c.query_row(
                    "SELECT COUNT(*) FROM organization_members m JOIN users u ON u.id = m.user_id
                     WHERE u.is_active = 1 AND u.email NOT LIKE '%@posthogbot.user'",
                    [],
                    |r| r.get(0),
                )?,
            ))
        })
        .unwrap();
    assert_eq!((kept, rows), (39, 39));
}
