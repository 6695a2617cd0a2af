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

/// A role as today's PostHog shows it (posthog.md 5): no access level and
/// no flags, but whether it is the organization's default.
fn assert_role(role: &Value) {
    for field in ["id", "name", "created_at", "created_by", "members", "is_default"] {
        assert!(role.get(field).is_some(), "role lacks {field}: {role}");
    }
    for field in ["feature_flags_access_level", "associated_flags"] {
        assert!(role.get(field).is_none(), "role has {field}: {role}");
    }
    assert!(role["is_default"].is_boolean(), "{role}");
    uuid::Uuid::parse_str(role["id"].as_str().unwrap()).unwrap();
    orgdeck::api::time::parse_datetime(role["created_at"].as_str().unwrap()).unwrap();
    assert_user(&role["created_by"]);
    for membership in role["members"].as_array().unwrap() {
        assert_membership(membership);
    }
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
    assert_eq!(roles[0]["members"].as_array().unwrap().len(), 11);
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
    assert_eq!(role["is_default"], false);
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
    // An access level sent is ignored (posthog.md 5).
    let renamed = renamed.expect(StatusCode::OK);
    assert_role(renamed);
    assert_eq!(renamed["name"], "External auditors");

    // Another capitalisation of its own name is allowed.
    let recased = server
        .patch(&key, &path, json!({"name": "EXTERNAL AUDITORS"}))
        .await;
    assert_eq!(recased.expect(StatusCode::OK)["name"], "EXTERNAL AUDITORS");

    // A body of ignored fields changes nothing.
    let level_only = server
        .patch(&key, &path, json!({"feature_flags_access_level": 37}))
        .await;
    let level_only = level_only.expect(StatusCode::OK);
    assert_role(level_only);
    assert_eq!(level_only["name"], "EXTERNAL AUDITORS");

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
    assert_eq!(server.get(&key, &memberships).await.json["count"], 11);
    let path = format!("{}{engineering}/", server.roles_path());
    assert_eq!(server.delete(&key, &path).await.status, StatusCode::NO_CONTENT);
    // Today's PostHog lists no memberships for a role that is not there
    // (posthog.md 6), rather than answering 404.
    let listed = server.get(&key, &memberships).await;
    assert_eq!(listed.expect(StatusCode::OK)["results"], json!([]));
    assert_eq!(listed.json["count"], 0);
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
        (json!({"name": ["a"]}), "invalid_input", "name"),
        (json!({"name": "engineering"}), "unique", "name"),
        // An access level is ignored, whatever it is: the name still counts.
        (
            json!({"name": "engineering", "feature_flags_access_level": 5}),
            "unique",
            "name",
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
    // 200 characters is the limit, not past it; unknown fields are ignored,
    // and so is an access level of any kind (posthog.md 5, 14-9).
    let long = server
        .post(&key, &path, json!({"name": "y".repeat(200), "colour": "teal"}))
        .await;
    long.expect(StatusCode::CREATED);
    for (name, level) in [("Five", json!(5)), ("Text", json!("abc")), ("Null", Value::Null)] {
        let created = server
            .post(
                &key,
                &path,
                json!({"name": name, "feature_flags_access_level": level}),
            )
            .await;
        assert_role(created.expect(StatusCode::CREATED));
    }
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

/// A role listed with more members than the server writes at a time (it
/// streams them from where the last chunk ended, along their order): each
/// role of the list embeds its members whole, once each, in the order of
/// its memberships list and as the role read alone shows them, across
/// chunk boundaries that fall inside runs of members who joined at the
/// same moment.
#[tokio::test]
async fn a_listed_role_embeds_every_member_across_the_chunks_it_is_written_in() {
    let server = TestServer::demo_with(|options| options.generate_members = 1_234).await;
    let key = server.key(&["*"]);
    let roles = server.roles_path();
    let created = server.post(&key, &roles, json!({"name": "Everyone here"})).await;
    let role = created.expect(StatusCode::CREATED)["id"]
        .as_str()
        .unwrap()
        .to_string();
    {
        let role = role.clone();
        server
            .running
            .db
            .write_blocking(move |tx| {
                tx.execute(
                    "INSERT INTO role_memberships (id, role_id, organization_member_id, user_id, joined_at, updated_at)
                     SELECT lower(hex(randomblob(16))), ?1, m.id, m.user_id,
                            '2026-0' || (1 + m.rowid % 3) || '-01T00:00:00.000000Z',
                            '2026-01-01T00:00:00.000000Z'
                     FROM organization_members m",
                    [&role],
                )?;
                Ok(())
            })
            .unwrap();
    }
    let memberships = server
        .get(&key, &format!("{roles}{role}/role_memberships/?limit=100000"))
        .await
        .expect(StatusCode::OK)
        .clone();
    let memberships = memberships["results"].as_array().unwrap().clone();
    assert!(memberships.len() > 1_234, "{} memberships", memberships.len());
    let alone = server
        .get(&key, &format!("{roles}{role}/"))
        .await
        .expect(StatusCode::OK)
        .clone();
    for page in ["", "?limit=1", "?limit=1&offset=1"] {
        let listed = server
            .get(&key, &format!("{roles}{page}"))
            .await
            .expect(StatusCode::OK)
            .clone();
        for listed in listed["results"].as_array().unwrap() {
            let id = listed["id"].as_str().unwrap();
            let own = server
                .get(&key, &format!("{roles}{id}/role_memberships/?limit=100000"))
                .await
                .expect(StatusCode::OK)
                .clone();
            assert_eq!(listed["members"], own["results"], "{page}: role {id}");
            if id == role {
                assert_eq!(listed["members"].as_array().unwrap(), &memberships);
                assert_eq!(listed, &alone);
            } else {
                let keys: Vec<&String> = listed.as_object().unwrap().keys().collect();
                let alone_keys: Vec<String> = server
                    .get(&key, &format!("{roles}{id}/"))
                    .await
                    .expect(StatusCode::OK)
                    .as_object()
                    .unwrap()
                    .keys()
                    .cloned()
                    .collect();
                assert_eq!(keys, alone_keys.iter().collect::<Vec<_>>(), "role {id}");
            }
        }
    }
}
