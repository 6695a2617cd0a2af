//! Rules that Terraform owns (posthog.md 16.7, PostHog's
//! `test_access_control_management.py`): stamped when Terraform writes them,
//! refused to anyone else under the project's lock, claimed and released,
//! the lock turned on and off, and the role delete the lock refuses (15-14).

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::access::{Access, WEB};
use crate::support::{MEMBER, Reply};

const TERRAFORM_UA: &str = "posthog/terraform-provider 1.2.3";
const LOCKED: &str = "Terraform manages this access control rule. Change it in your Terraform configuration, \
                      or turn off the Terraform lock in project settings.";

impl Access {
    /// A PUT sent as the Terraform provider sends it.
    async fn put_as_terraform(&self, path: &str, body: Value) -> Reply {
        let request = self
            .server
            .http
            .request(Method::PUT, self.server.url(path))
            .bearer_auth(&self.owner)
            .header("User-Agent", TERRAFORM_UA)
            .json(&body);
        Reply::read(request.send().await.unwrap()).await
    }

    async fn board_pack_rules(&self) -> Vec<Value> {
        let reply = self
            .get(
                &self.owner,
                &format!("/api/projects/{WEB}/dashboards/12/access_controls"),
            )
            .await;
        reply.expect(StatusCode::OK)["access_controls"]
            .as_array()
            .unwrap()
            .clone()
    }
}

fn board_pack() -> String {
    format!("/api/projects/{WEB}/dashboards/12/access_controls")
}

#[tokio::test]
async fn locked_rules_refuse_everyone_but_terraform() {
    let access = Access::demo().await;
    let finance = access.role("Finance").await;
    // The demo's board pack: both rules Terraform's, and Web locks them.
    let rules = access.board_pack_rules().await;
    assert!(
        rules.iter().all(|rule| rule["managed_by"] == "terraform"),
        "{rules:?}"
    );
    for level in [json!("editor"), Value::Null] {
        let refused = access
            .put(
                &access.owner,
                &board_pack(),
                json!({"access_level": level, "role": finance}),
            )
            .await;
        let detail = refused.expect_error(
            StatusCode::FORBIDDEN,
            "authentication_error",
            "permission_denied",
            None,
        );
        assert_eq!(detail, LOCKED);
    }
    assert!(
        access
            .board_pack_rules()
            .await
            .iter()
            .any(|rule| rule["role"] == finance.as_str() && rule["access_level"] == "viewer")
    );
    // A rule for a subject Terraform does not declare stays writable, unmanaged.
    let data = access.role("Data").await;
    let written = access
        .put(
            &access.owner,
            &board_pack(),
            json!({"access_level": "viewer", "role": data}),
        )
        .await;
    assert_eq!(written.expect(StatusCode::OK).get("managed_by"), None);
    // Terraform itself changes its rules, and keeps them stamped.
    let changed = access
        .put_as_terraform(&board_pack(), json!({"access_level": "editor", "role": finance}))
        .await;
    assert_eq!(changed.expect(StatusCode::OK)["managed_by"], "terraform");
    assert!(changed.json["managed_at"].is_string());
    access
        .put_as_terraform(&board_pack(), json!({"access_level": null, "role": data}))
        .await
        .expect(StatusCode::NO_CONTENT);
    // Terraform's write stamps a rule it never wrote before.
    let member = access.membership(MEMBER).await;
    let stamped = access
        .put_as_terraform(
            &board_pack(),
            json!({"access_level": "viewer", "organization_member": member}),
        )
        .await;
    assert_eq!(stamped.expect(StatusCode::OK)["managed_by"], "terraform");
}

#[tokio::test]
async fn claims_releases_and_the_lock_setting() {
    let access = Access::demo().await;
    let settings = format!("/api/projects/{WEB}/access_control_management_settings");
    let claim = format!("/api/projects/{WEB}/access_control_management");
    let current = access.get(&access.owner, &settings).await;
    assert_eq!(
        current.expect(StatusCode::OK),
        &json!({"lock_terraform_managed_rules": true, "has_terraform_managed_rules": true})
    );
    let finance = access.role("Finance").await;
    let target = json!({"resource": "dashboard", "resource_id": "12", "role": finance, "managed_by": null});
    // Releasing Terraform's claim from the web would be a way round the lock.
    let refused = access.put(&access.owner, &claim, target.clone()).await;
    assert_eq!(
        refused.expect_error(
            StatusCode::FORBIDDEN,
            "authentication_error",
            "permission_denied",
            None
        ),
        LOCKED
    );
    // Terraform releases it; then the web may change it.
    let released = access.put_as_terraform(&claim, target.clone()).await;
    assert_eq!(
        released.expect(StatusCode::OK),
        &json!({"managed_by": null, "managed_at": null})
    );
    access
        .put(
            &access.owner,
            &board_pack(),
            json!({"access_level": "editor", "role": finance}),
        )
        .await
        .expect(StatusCode::OK);
    // Claiming a rule Terraform never wrote stamps it.
    let claimed = access
        .put(
            &access.owner,
            &claim,
            json!({"resource": "dashboard", "resource_id": "12", "role": finance, "managed_by": "terraform"}),
        )
        .await;
    assert_eq!(claimed.expect(StatusCode::OK)["managed_by"], "terraform");
    // What the claim refuses.
    let nothing = access
        .put(
            &access.owner,
            &claim,
            json!({"resource": "survey", "managed_by": "terraform"}),
        )
        .await;
    let detail = nothing.expect_error(StatusCode::NOT_FOUND, "invalid_request", "not_found", None);
    assert_eq!(detail, "No access control rule matches that target.");
    let member = access.membership(MEMBER).await;
    let both = access
        .put(
            &access.owner,
            &claim,
            json!({"resource": "dashboard", "role": finance, "organization_member": member, "managed_by": null}),
        )
        .await;
    let detail = both.expect_error(StatusCode::BAD_REQUEST, "validation_error", "invalid_input", None);
    assert_eq!(detail, "A rule cannot target both a member and a role.");
    let choice = access
        .put(
            &access.owner,
            &claim,
            json!({"resource": "dashboard", "managed_by": "pulumi"}),
        )
        .await;
    choice.expect_error(
        StatusCode::BAD_REQUEST,
        "validation_error",
        "invalid_choice",
        Some("managed_by"),
    );
    let elif = access.key_of(MEMBER);
    let not_admin = access.put(&elif, &claim, target.clone()).await;
    let detail = not_admin.expect_error(
        StatusCode::FORBIDDEN,
        "authentication_error",
        "permission_denied",
        None,
    );
    assert_eq!(
        detail,
        "Must be an Organization admin to manage access control ownership."
    );
    let not_admin = access
        .server
        .patch(&elif, &settings, json!({"lock_terraform_managed_rules": false}))
        .await;
    not_admin.expect(StatusCode::FORBIDDEN);

    // The lock off: managed rules are editable from the web again.
    let unlocked = access
        .server
        .patch(
            &access.owner,
            &settings,
            json!({"lock_terraform_managed_rules": false}),
        )
        .await;
    assert_eq!(
        unlocked.expect(StatusCode::OK),
        &json!({"lock_terraform_managed_rules": false, "has_terraform_managed_rules": true})
    );
    access
        .put(
            &access.owner,
            &board_pack(),
            json!({"access_level": "viewer", "role": finance}),
        )
        .await
        .expect(StatusCode::OK);
    let bad = access
        .server
        .patch(
            &access.owner,
            &settings,
            json!({"lock_terraform_managed_rules": "maybe"}),
        )
        .await;
    bad.expect_error(
        StatusCode::BAD_REQUEST,
        "validation_error",
        "invalid_input",
        Some("lock_terraform_managed_rules"),
    );
}

#[tokio::test]
async fn a_role_whose_delete_would_drop_a_locked_rule_stays() {
    let access = Access::demo().await;
    let finance = access.role("Finance").await;
    let path = format!("{}{finance}/", access.server.roles_path());
    let refused = access.server.delete(&access.owner, &path).await;
    let detail = refused.expect_error(
        StatusCode::FORBIDDEN,
        "authentication_error",
        "permission_denied",
        None,
    );
    assert_eq!(detail, LOCKED);
    access.get(&access.owner, &path).await.expect(StatusCode::OK);
    // Unlocked, the role goes, and its rules with it.
    access
        .server
        .patch(
            &access.owner,
            &format!("/api/projects/{WEB}/access_control_management_settings"),
            json!({"lock_terraform_managed_rules": false}),
        )
        .await
        .expect(StatusCode::OK);
    access
        .server
        .delete(&access.owner, &path)
        .await
        .expect(StatusCode::NO_CONTENT);
    assert!(
        !access
            .board_pack_rules()
            .await
            .iter()
            .any(|rule| rule["role"] == finance.as_str())
    );
}
