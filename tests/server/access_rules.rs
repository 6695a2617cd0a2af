//! Writing rules as PostHog validates them (posthog.md 16.1-16.2, its
//! tests' texts and status codes): levels and bounds per resource, the
//! subject, who may write, upserts and removals, the cap on objects with
//! rules, scopes, and the settings endpoints' refusals.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::access::{Access, MOBILE, WEB};
use crate::support::{MEMBER, TestServer};

fn project_rules() -> String {
    format!("/api/projects/{WEB}/access_controls")
}

fn resource_rules() -> String {
    format!("/api/projects/{WEB}/resource_access_controls")
}

#[tokio::test]
async fn levels_and_bounds_per_resource() {
    let access = Access::demo().await;
    let owner = &access.owner;
    let refusals = [
        (
            project_rules(),
            json!({"access_level": "bad"}),
            "Invalid access level. Must be one of: none, member, admin",
        ),
        (
            project_rules(),
            json!({"access_level": "viewer"}),
            "Invalid access level. Must be one of: none, member, admin",
        ),
        (
            resource_rules(),
            json!({"resource": "dashboard", "access_level": "admin"}),
            "Invalid access level. Must be one of: none, viewer, editor, manager",
        ),
        (
            resource_rules(),
            json!({"resource": "action", "access_level": "none"}),
            "Access level cannot be set below the minimum 'viewer' for action.",
        ),
        (
            resource_rules(),
            json!({"resource": "activity_log", "access_level": "editor"}),
            "Access level cannot be set above the maximum 'viewer' for activity_log.",
        ),
        (
            resource_rules(),
            json!({"resource": "toolbar", "access_level": "manager"}),
            "Access level cannot be set above the maximum 'viewer' for toolbar.",
        ),
    ];
    for (path, body, text) in refusals {
        let reply = access.put(owner, &path, body.clone()).await;
        let detail = reply.expect_error(
            StatusCode::BAD_REQUEST,
            "validation_error",
            "invalid_input",
            Some("access_level"),
        );
        assert_eq!(detail, text, "{body}");
    }
    for level in ["viewer", "editor", "manager"] {
        access
            .put(
                owner,
                &resource_rules(),
                json!({"resource": "action", "access_level": level}),
            )
            .await
            .expect(StatusCode::OK);
    }
    let unknown = access
        .put(
            owner,
            &resource_rules(),
            json!({"resource": "webhooks", "access_level": "viewer"}),
        )
        .await;
    let detail = unknown.expect_error(
        StatusCode::BAD_REQUEST,
        "validation_error",
        "invalid_input",
        Some("resource"),
    );
    assert!(
        detail.starts_with("Invalid resource. Must be one of: ('action', 'access_control',"),
        "{detail}"
    );
    let missing = access.put(owner, &project_rules(), json!({})).await;
    missing.expect_error(
        StatusCode::BAD_REQUEST,
        "validation_error",
        "required",
        Some("access_level"),
    );
    let no_resource = access
        .put(owner, &resource_rules(), json!({"access_level": "viewer"}))
        .await;
    no_resource.expect_error(
        StatusCode::BAD_REQUEST,
        "validation_error",
        "required",
        Some("resource"),
    );
}

#[tokio::test]
async fn subjects_of_a_rule() {
    let access = Access::demo().await;
    let owner = &access.owner;
    let member = access.membership(MEMBER).await;
    let role = access.role("Finance").await;
    let both = access
        .put(
            owner,
            &project_rules(),
            json!({"access_level": "member", "organization_member": member, "role": role}),
        )
        .await;
    let detail = both.expect_error(StatusCode::BAD_REQUEST, "validation_error", "invalid_input", None);
    assert_eq!(
        detail,
        "You can not scope an access control to both a member and a role."
    );

    let malformed = access
        .put(
            owner,
            &project_rules(),
            json!({"access_level": "member", "organization_member": "not-a-valid-uuid"}),
        )
        .await;
    let detail = malformed.expect_error(
        StatusCode::BAD_REQUEST,
        "validation_error",
        "invalid_input",
        Some("organization_member"),
    );
    assert!(
        !detail.contains("UUID") && detail.contains("organization member id"),
        "{detail}"
    );
    assert!(detail.contains("/api/organizations/"), "{detail}");

    let nobody = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
    let unknown = access
        .put(
            owner,
            &project_rules(),
            json!({"access_level": "member", "organization_member": nobody}),
        )
        .await;
    let detail = unknown.expect_error(
        StatusCode::BAD_REQUEST,
        "validation_error",
        "does_not_exist",
        Some("organization_member"),
    );
    assert_eq!(
        detail,
        format!("Invalid pk \"{nobody}\" - object does not exist.")
    );
    let bad_role = access
        .put(
            owner,
            &project_rules(),
            json!({"access_level": "member", "role": "sales"}),
        )
        .await;
    let detail = bad_role.expect_error(
        StatusCode::BAD_REQUEST,
        "validation_error",
        "invalid_input",
        Some("role"),
    );
    assert_eq!(detail, "“sales” is not a valid UUID.");

    // A role and a member of another organization.
    let (foreign_role, foreign_member) = another_organization(&access.server);
    let refused = access
        .put(
            owner,
            &project_rules(),
            json!({"access_level": "admin", "role": foreign_role}),
        )
        .await;
    let detail = refused.expect_error(StatusCode::BAD_REQUEST, "validation_error", "invalid_input", None);
    assert_eq!(
        detail,
        "The role must belong to the same organization as this project."
    );
    let refused = access
        .put(
            owner,
            &project_rules(),
            json!({"access_level": "admin", "organization_member": foreign_member}),
        )
        .await;
    let detail = refused.expect_error(StatusCode::BAD_REQUEST, "validation_error", "invalid_input", None);
    assert_eq!(
        detail,
        "The member must belong to the same organization as this project."
    );
}

/// An organization of another company with a role and a member.
fn another_organization(server: &TestServer) -> (String, String) {
    server
        .running
        .db
        .write_blocking(|tx| {
            let organization = "0190ffff-0000-7000-8000-000000000001";
            tx.execute(
                "INSERT INTO organizations (id, name, slug, created_at) VALUES (?1, 'Other', 'other', '2026-01-01T00:00:00.000000Z')",
                [organization],
            )?;
            let role = "0190ffff-0000-7000-8000-000000000002";
            tx.execute(
                "INSERT INTO roles (id, organization_id, name, name_key, feature_flags_access_level, created_at)
                 VALUES (?1, ?2, 'Foreign role', 'foreign role', 21, '2026-01-01T00:00:00.000000Z')",
                [role, organization],
            )?;
            let member = "0190ffff-0000-7000-8000-000000000003";
            tx.execute(
                "INSERT INTO organization_members (id, organization_id, user_id, level, joined_at, updated_at)
                 VALUES (?1, ?2, 1, 1, '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z')",
                [member, organization],
            )?;
            Ok((role.to_string(), member.to_string()))
        })
        .unwrap()
}

#[tokio::test]
async fn who_may_write_and_what_a_write_answers() {
    let access = Access::demo().await;
    let owner = &access.owner;
    // A plain member of Web (everyone's rule: member) reaches no admin level.
    let elif = access.key_of(MEMBER);
    let refused = access
        .put(&elif, &project_rules(), json!({"access_level": "admin"}))
        .await;
    let detail = refused.expect_error(
        StatusCode::FORBIDDEN,
        "authentication_error",
        "permission_denied",
        None,
    );
    assert_eq!(detail, "You do not have admin access to this resource.");
    let refused = access
        .put(
            &elif,
            &resource_rules(),
            json!({"resource": "dashboard", "access_level": "none"}),
        )
        .await;
    refused.expect_error(
        StatusCode::FORBIDDEN,
        "authentication_error",
        "permission_denied",
        None,
    );
    // Editing a dashboard is not managing its rules: that takes its creator,
    // an explicit project admin, an organization admin or its manager.
    let rosa = access.key_of("rosa.martinez@hedgebox.dev");
    let growth = format!("/api/projects/{WEB}/dashboards/2/access_controls");
    let seen = access.get(&rosa, &growth).await;
    assert_eq!(seen.expect(StatusCode::OK)["user_access_level"], "editor");
    assert_eq!(seen.json["user_can_edit_access_levels"], false);
    let refused = access
        .put(&rosa, &growth, json!({"access_level": "viewer"}))
        .await;
    let detail = refused.expect_error(
        StatusCode::FORBIDDEN,
        "authentication_error",
        "permission_denied",
        None,
    );
    assert_eq!(detail, "Must be manager to modify dashboard permissions.");
    // Chiara made it: she may.
    let chiara = access.key_of("chiara.rossi@hedgebox.dev");
    access
        .put(&chiara, &growth, json!({"access_level": "viewer"}))
        .await
        .expect(StatusCode::OK);
    // PostHog's deprecated name answers as resource_access_controls.
    let deprecated = access
        .get(owner, &format!("/api/projects/{WEB}/global_access_controls"))
        .await;
    assert_eq!(
        deprecated.expect(StatusCode::OK),
        &access.get(owner, &resource_rules()).await.json
    );
    // Jade administers Mobile by her own rule: she may change its rules.
    let jade = access.key_of("jade.nguyen@hedgebox.dev");
    let mobile = format!("/api/projects/{MOBILE}/resource_access_controls");
    access
        .put(
            &jade,
            &mobile,
            json!({"resource": "survey", "access_level": "viewer"}),
        )
        .await
        .expect(StatusCode::OK);
    // Someone with the project at admin by everyone's rule alone is no explicit admin.
    let product = access.key_of("hana.sato@hedgebox.dev");
    let refused = access
        .put(
            &product,
            &format!("/api/projects/{MOBILE}/access_controls"),
            json!({"access_level": "member"}),
        )
        .await;
    refused.expect_error(
        StatusCode::FORBIDDEN,
        "authentication_error",
        "permission_denied",
        None,
    );

    // A write answers the rule; null removes it, 204 with no body.
    let member = access.membership(MEMBER).await;
    let written = access
        .put(
            owner,
            &resource_rules(),
            json!({"resource": "survey", "access_level": "editor", "organization_member": member}),
        )
        .await;
    let rule = written.expect(StatusCode::OK).clone();
    assert_eq!(rule["resource"], "survey");
    assert_eq!(rule["resource_id"], Value::Null);
    assert_eq!(rule["organization_member"], member.as_str());
    assert_eq!(rule["role"], Value::Null);
    assert_eq!(rule["access_level"], "editor");
    assert!(rule["created_by"].is_i64() && rule["created_at"].is_string());
    // Again: the same rule, updated.
    let again = access
        .put(
            owner,
            &resource_rules(),
            json!({"resource": "survey", "access_level": "viewer", "organization_member": member}),
        )
        .await;
    assert_eq!(again.expect(StatusCode::OK)["created_at"], rule["created_at"]);
    let listed = access.get(owner, &resource_rules()).await;
    let surveys: Vec<&Value> = listed.expect(StatusCode::OK)["access_controls"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|rule| rule["resource"] == "survey")
        .collect();
    assert_eq!(surveys.len(), 1);
    assert_eq!(listed.json["default_access_level"], "editor");
    assert_eq!(
        listed.json.get("inherited_access"),
        None,
        "resource-wide: no inherited level"
    );
    let removed = access
        .put(
            owner,
            &resource_rules(),
            json!({"resource": "survey", "access_level": null, "organization_member": member}),
        )
        .await;
    assert_eq!(removed.status, StatusCode::NO_CONTENT);
    assert!(removed.text.is_empty());
    // The project's own answer has a null inherited level.
    let project = access.get(owner, &project_rules()).await;
    assert_eq!(project.expect(StatusCode::OK)["inherited_access"], Value::Null);
    assert_eq!(
        project.json["available_access_levels"],
        json!(["none", "member", "admin"])
    );
}

#[tokio::test]
async fn objects_are_their_urls_and_resource_rules_the_project_s() {
    let access = Access::demo().await;
    let owner = &access.owner;
    let (_, short) = access.notebook(WEB, "Onboarding interviews").await;
    let on_notebook = access
        .put(
            owner,
            &format!("/api/projects/{WEB}/notebooks/{short}/resource_access_controls"),
            json!({"resource": "project", "access_level": "admin"}),
        )
        .await;
    let detail = on_notebook.expect_error(StatusCode::BAD_REQUEST, "validation_error", "invalid_input", None);
    assert_eq!(
        detail,
        "Resource-level access controls can only be configured for projects."
    );
    let spoofed = access
        .put(
            owner,
            &resource_rules(),
            json!({"resource": "dashboard", "resource_id": "3", "access_level": "none"}),
        )
        .await;
    let detail = spoofed.expect_error(
        StatusCode::FORBIDDEN,
        "authentication_error",
        "permission_denied",
        None,
    );
    assert_eq!(
        detail,
        "Cannot modify access controls for a resource different from the URL target."
    );
    // The object-rule endpoint names objects by primary key.
    let (notebook_id, _) = access.notebook(WEB, "Onboarding interviews").await;
    let path = format!("/api/projects/{WEB}/access_control_object_rules");
    let member = access.membership(MEMBER).await;
    access
        .put(
            owner,
            &path,
            json!({"resource": "notebook", "resource_id": notebook_id, "access_level": "viewer", "organization_member": member}),
        )
        .await
        .expect(StatusCode::OK);
    let rows = access
        .get(
            owner,
            &format!("/api/projects/{WEB}/access_control_member_objects?member_id={member}"),
        )
        .await;
    assert_eq!(
        rows.expect(StatusCode::OK)["results"],
        json!([{"resource": "notebook", "resource_id": notebook_id, "name": "Onboarding interviews", "short_id": null, "access_level": "viewer"}])
    );
    for (body, status, text) in [
        (
            json!({"resource": "webhook", "resource_id": "1", "access_level": "viewer"}),
            StatusCode::BAD_REQUEST,
            "resource does not support object access rules",
        ),
        (
            json!({"resource": "notebook", "access_level": "viewer"}),
            StatusCode::BAD_REQUEST,
            "resource_id is required",
        ),
        (
            json!({"resource": "dashboard", "resource_id": "999999", "access_level": "viewer"}),
            StatusCode::NOT_FOUND,
            "Not found.",
        ),
    ] {
        let reply = access.put(owner, &path, body).await;
        assert_eq!(reply.status, status, "{}", reply.text);
        assert_eq!(reply.json["detail"], text);
    }
    // An object the caller cannot see answers 404, not 403.
    let board_pack = format!("/api/projects/{WEB}/dashboards/12/access_controls");
    let elif = access.key_of(MEMBER);
    access.get(&elif, &board_pack).await.expect(StatusCode::FORBIDDEN);
    let hidden = access
        .put(
            &elif,
            &path,
            json!({"resource": "dashboard", "resource_id": "12", "access_level": "viewer"}),
        )
        .await;
    assert_eq!(hidden.status, StatusCode::NOT_FOUND, "{}", hidden.text);
}

#[tokio::test]
async fn at_most_a_thousand_objects_of_a_resource_carry_rules() {
    let access = Access::demo().await;
    // 1,000 dashboards' worth of rules, as if written one by one.
    access
        .server
        .running
        .db
        .write_blocking(|tx| {
            for n in 0..1000 {
                tx.execute(
                    "INSERT INTO access_controls (id, project_id, resource, resource_id, access_level, created_at, updated_at)
                     VALUES (?1, 2, 'dashboard', ?2, 'viewer', '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z')",
                    rusqlite::params![format!("cap-{n}"), format!("gone-{n}")],
                )?;
            }
            Ok(())
        })
        .unwrap();
    let path = |id: i64| format!("/api/projects/{MOBILE}/dashboards/{id}/access_controls");
    // Mobile's first dashboard (id 9): a new object with rules, refused.
    let refused = access
        .put(&access.owner, &path(9), json!({"access_level": "viewer"}))
        .await;
    let detail = refused.expect_error(StatusCode::BAD_REQUEST, "validation_error", "invalid_input", None);
    assert_eq!(
        detail,
        "Reached the limit of 1000 dashboards with access control overrides."
    );
    // A resource-wide rule is not capped, nor are other resources.
    access
        .put(
            &access.owner,
            &format!("/api/projects/{MOBILE}/resource_access_controls"),
            json!({"resource": "dashboard", "access_level": "viewer"}),
        )
        .await
        .expect(StatusCode::OK);
}

#[tokio::test]
async fn scopes_and_the_settings_endpoints_refusals() {
    let access = Access::demo().await;
    let reader = access.server.key(&["project:read"]);
    for path in [
        project_rules(),
        resource_rules(),
        format!("/api/projects/{WEB}/access_control_members"),
    ] {
        let refused = access.get(&reader, &path).await;
        let detail = refused.expect_error(
            StatusCode::FORBIDDEN,
            "authentication_error",
            "permission_denied",
            None,
        );
        assert_eq!(detail, "API key missing required scope 'access_control:read'");
    }
    let read_only = access.server.key(&["access_control:read"]);
    access
        .get(&read_only, &project_rules())
        .await
        .expect(StatusCode::OK);
    let refused = access
        .put(&read_only, &project_rules(), json!({"access_level": "admin"}))
        .await;
    let detail = refused.expect_error(
        StatusCode::FORBIDDEN,
        "authentication_error",
        "permission_denied",
        None,
    );
    assert_eq!(detail, "API key missing required scope 'access_control:write'");
    let writer = access.server.key(&["access_control:write"]);
    access
        .put(&writer, &project_rules(), json!({"access_level": "member"}))
        .await
        .expect(StatusCode::OK);

    let owner = &access.owner;
    let missing = access
        .get(
            owner,
            &format!("/api/projects/{WEB}/access_control_member_objects"),
        )
        .await;
    let detail = missing.expect_error(StatusCode::BAD_REQUEST, "validation_error", "invalid_input", None);
    assert_eq!(detail, "member_id is required");
    let missing = access
        .get(owner, &format!("/api/projects/{WEB}/access_control_role_objects"))
        .await;
    assert_eq!(missing.json["detail"], "role_id is required");
    let (foreign_role, foreign_member) = another_organization(&access.server);
    for path in [
        format!("/api/projects/{WEB}/access_control_members?member_id={foreign_member}"),
        format!("/api/projects/{WEB}/access_control_member_objects?member_id={foreign_member}"),
        format!("/api/projects/{WEB}/access_control_roles?role_id={foreign_role}"),
        format!("/api/projects/{WEB}/access_control_role_objects?role_id={foreign_role}"),
        format!("/api/projects/{WEB}/access_control_members?member_id=nonsense"),
    ] {
        let reply = access.get(owner, &path).await;
        reply.expect_error(StatusCode::NOT_FOUND, "invalid_request", "not_found", None);
    }
    let search = access
        .get(
            owner,
            &format!("/api/projects/{WEB}/access_control_object_search?resource=webhook"),
        )
        .await;
    let detail = search.expect_error(StatusCode::BAD_REQUEST, "validation_error", "invalid_input", None);
    assert_eq!(detail, "resource does not support object access rules");
}

#[tokio::test]
async fn deleting_a_role_deletes_its_rules() {
    let access = Access::demo().await;
    let owner = &access.owner;
    let contractors = access.role("Contractors").await;
    let rules_of = |project: i64| {
        let access = &access;
        let contractors = contractors.clone();
        async move {
            let mut found = 0;
            for path in [
                format!("/api/projects/{project}/access_controls"),
                format!("/api/projects/{project}/resource_access_controls"),
            ] {
                let reply = access.get(&access.owner, &path).await;
                found += reply.expect(StatusCode::OK)["access_controls"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|rule| rule["role"] == contractors.as_str())
                    .count();
            }
            found
        }
    };
    assert_eq!(rules_of(WEB).await + rules_of(MOBILE).await, 2);
    access
        .server
        .delete(owner, &format!("{}{contractors}/", access.server.roles_path()))
        .await
        .expect(StatusCode::NO_CONTENT);
    assert_eq!(rules_of(WEB).await + rules_of(MOBILE).await, 0);
}
