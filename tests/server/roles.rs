use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{ADMIN, MEMBER, TestServer};

const USER_FIELDS: [&str; 8] = [
    "id",
    "uuid",
    "distinct_id",
    "first_name",
    "last_name",
    "email",
    "is_email_verified",
    "hedgehog_config",
];

fn assert_user(user: &Value) {
    for field in USER_FIELDS {
        assert!(user.get(field).is_some(), "user lacks {field}: {user}");
    }
    assert!(user["id"].is_i64());
    uuid::Uuid::parse_str(user["uuid"].as_str().unwrap()).unwrap();
}

pub fn assert_membership(membership: &Value) {
    for field in [
        "id",
        "role_id",
        "organization_member",
        "user",
        "joined_at",
        "updated_at",
    ] {
        assert!(
            membership.get(field).is_some(),
            "membership lacks {field}: {membership}"
        );
    }
    let member = &membership["organization_member"];
    for field in [
        "id",
        "user",
        "level",
        "joined_at",
        "updated_at",
        "is_2fa_enabled",
        "has_social_auth",
    ] {
        assert!(member.get(field).is_some(), "member lacks {field}: {member}");
    }
    assert_user(&membership["user"]);
    assert_user(&member["user"]);
}

fn assert_role(role: &Value) {
    for field in [
        "id",
        "name",
        "feature_flags_access_level",
        "created_at",
        "created_by",
        "members",
        "associated_flags",
    ] {
        assert!(role.get(field).is_some(), "role lacks {field}: {role}");
    }
    uuid::Uuid::parse_str(role["id"].as_str().unwrap()).unwrap();
    orgdeck::api::time::parse_datetime(role["created_at"].as_str().unwrap()).unwrap();
    assert_user(&role["created_by"]);
    for membership in role["members"].as_array().unwrap() {
        assert_membership(membership);
    }
    assert!(role["associated_flags"].is_array());
    // The shared model decodes what the server sends.
    serde_json::from_value::<orgdeck::api::Role>(role.clone()).unwrap();
}

#[tokio::test]
async fn list_shows_every_field_in_creation_order() {
    let server = TestServer::demo().await;
    let key = server.key(&["organization:read"]);
    let page = server.get(&key, &server.roles_path()).await;
    let page = page.expect(StatusCode::OK);
    assert_eq!(page["count"], 8);
    assert!(page["next"].is_null() && page["previous"].is_null());
    let roles = page["results"].as_array().unwrap();
    roles.iter().for_each(assert_role);
    let names: Vec<&str> = roles.iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(&names[..3], ["Engineering", "Product", "Marketing"]);
    assert_eq!(roles[0]["members"].as_array().unwrap().len(), 7);
}

#[tokio::test]
async fn create_retrieve_rename_and_delete() {
    let server = TestServer::demo().await;
    let key = server.key(&["organization:write"]);
    let created = server
        .post(&key, &server.roles_path(), json!({"name": "  Auditors  "}))
        .await;
    let role = created.expect(StatusCode::CREATED).clone();
    assert_role(&role);
    assert_eq!(role["name"], "Auditors", "names are trimmed");
    assert_eq!(role["feature_flags_access_level"], 37, "the default level");
    assert_eq!(role["members"], json!([]));
    assert_eq!(role["created_by"]["email"], crate::support::OWNER);

    let path = format!("{}{}/", server.roles_path(), role["id"].as_str().unwrap());
    assert_eq!(
        server.get(&key, &path).await.expect(StatusCode::OK)["name"],
        "Auditors"
    );

    let renamed = server
        .patch(
            &key,
            &path,
            json!({"name": "External auditors", "feature_flags_access_level": 21}),
        )
        .await;
    let renamed = renamed.expect(StatusCode::OK);
    assert_eq!(
        (
            renamed["name"].as_str(),
            renamed["feature_flags_access_level"].as_i64()
        ),
        (Some("External auditors"), Some(21))
    );

    // Another capitalisation of its own name is allowed.
    let recased = server
        .patch(&key, &path, json!({"name": "EXTERNAL AUDITORS"}))
        .await;
    assert_eq!(recased.expect(StatusCode::OK)["name"], "EXTERNAL AUDITORS");

    // A partial update leaves the other field alone.
    let level_only = server
        .patch(&key, &path, json!({"feature_flags_access_level": 37}))
        .await;
    assert_eq!(level_only.expect(StatusCode::OK)["name"], "EXTERNAL AUDITORS");

    let deleted = server.delete(&key, &path).await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT);
    assert!(deleted.text.is_empty());
    server
        .get(&key, &path)
        .await
        .expect_error(StatusCode::NOT_FOUND, "invalid_request", "not_found", None);
    server.delete(&key, &path).await.expect_error(
        StatusCode::NOT_FOUND,
        "invalid_request",
        "not_found",
        None,
    );
}

#[tokio::test]
async fn deleting_a_role_takes_its_memberships() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let roles = server.get(&key, &server.roles_path()).await.json["results"].clone();
    let engineering = roles[0]["id"].as_str().unwrap().to_string();
    let memberships = format!("{}{engineering}/role_memberships/", server.roles_path());
    assert_eq!(server.get(&key, &memberships).await.json["count"], 7);
    let path = format!("{}{engineering}/", server.roles_path());
    assert_eq!(server.delete(&key, &path).await.status, StatusCode::NO_CONTENT);
    server.get(&key, &memberships).await.expect_error(
        StatusCode::NOT_FOUND,
        "invalid_request",
        "not_found",
        None,
    );
    let left: i64 = server
        .running
        .db
        .read_blocking(|c| {
            Ok(c.query_row(
                "SELECT COUNT(*) FROM role_memberships WHERE role_id = ?1",
                [&engineering],
                |r| r.get(0),
            )?)
        })
        .unwrap();
    assert_eq!(left, 0);
}

#[tokio::test]
async fn validation_errors_name_their_field() {
    let server = TestServer::demo().await;
    let key = server.key(&["organization:write"]);
    let path = server.roles_path();
    let cases = [
        (json!({}), "required", "name"),
        (json!({"name": null}), "null", "name"),
        (json!({"name": "   "}), "blank", "name"),
        (json!({"name": "x".repeat(201)}), "max_length", "name"),
        (json!({"name": ["a"]}), "invalid", "name"),
        (json!({"name": "engineering"}), "unique", "name"),
        (
            json!({"name": "New", "feature_flags_access_level": 5}),
            "invalid_choice",
            "feature_flags_access_level",
        ),
        (
            json!({"name": "New", "feature_flags_access_level": "abc"}),
            "invalid_choice",
            "feature_flags_access_level",
        ),
        (
            json!({"name": "New", "feature_flags_access_level": null}),
            "null",
            "feature_flags_access_level",
        ),
    ];
    for (body, code, attr) in cases {
        let reply = server.post(&key, &path, body.clone()).await;
        reply.expect_error(StatusCode::BAD_REQUEST, "validation_error", code, Some(attr));
    }
    let detail = server.post(&key, &path, json!({"name": "ENGINEERING"})).await;
    assert_eq!(
        detail.expect_error(
            StatusCode::BAD_REQUEST,
            "validation_error",
            "unique",
            Some("name")
        ),
        "There is already a role with this name."
    );
    // 200 characters is the limit, not past it; unknown fields are ignored.
    let long = server
        .post(&key, &path, json!({"name": "y".repeat(200), "colour": "teal"}))
        .await;
    long.expect(StatusCode::CREATED);
    // Renaming onto another role's name clashes too.
    let product = server.get(&key, &path).await.json["results"][1]["id"]
        .as_str()
        .unwrap()
        .to_string();
    server
        .patch(&key, &format!("{path}{product}"), json!({"name": "Engineering"}))
        .await
        .expect_error(
            StatusCode::BAD_REQUEST,
            "validation_error",
            "unique",
            Some("name"),
        );
}

#[tokio::test]
async fn writes_need_an_admin_and_reads_do_not() {
    let server = TestServer::demo().await;
    let member = server.key_for(MEMBER, &["organization:write"]);
    let path = server.roles_path();
    server.get(&member, &path).await.expect(StatusCode::OK);
    let refused = server.post(&member, &path, json!({"name": "Mine"})).await;
    assert_eq!(
        refused.expect_error(
            StatusCode::FORBIDDEN,
            "authentication_error",
            "permission_denied",
            None
        ),
        "Your organization access level is insufficient."
    );
    let admin = server.key_for(ADMIN, &["organization:write"]);
    server
        .post(&admin, &path, json!({"name": "Admins may"}))
        .await
        .expect(StatusCode::CREATED);
}

#[tokio::test]
async fn unknown_and_malformed_role_ids_are_not_found() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    for id in [
        uuid::Uuid::new_v4().to_string(),
        "not-a-uuid".to_string(),
        "1".to_string(),
    ] {
        let path = format!("{}{id}/", server.roles_path());
        server.get(&key, &path).await.expect_error(
            StatusCode::NOT_FOUND,
            "invalid_request",
            "not_found",
            None,
        );
        server
            .patch(&key, &path, json!({"name": "x"}))
            .await
            .expect_error(StatusCode::NOT_FOUND, "invalid_request", "not_found", None);
    }
}
