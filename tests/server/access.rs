//! Access control resolved as posthog.md 16.6 says, checked through the API
//! in both modes: each source of access (an organization admin's bypass,
//! an object's creator, a member's own rule, a role's, everyone's, a
//! resource-wide rule, an object rule, the built-in default), and the
//! organization's switch between the modes.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::support::{ADMIN, OWNER, Reply, TestServer};

/// The demo with helpers to name its people, roles and objects.
pub struct Access {
    pub server: TestServer,
    /// The owner's all-scopes key.
    pub owner: String,
}

pub const WEB: i64 = 1;
pub const MOBILE: i64 = 2;

impl Access {
    pub async fn demo() -> Access {
        Self::with(TestServer::demo().await)
    }

    pub fn with(server: TestServer) -> Access {
        let owner = server.key(&["*"]);
        Access { server, owner }
    }

    /// An all-scopes key of the demo person with this address.
    pub fn key_of(&self, email: &str) -> String {
        self.server.key_for(email, &["*"])
    }

    pub async fn get(&self, key: &str, path: &str) -> Reply {
        self.server.get(key, path).await
    }

    pub async fn put(&self, key: &str, path: &str, body: Value) -> Reply {
        self.server.call(Method::PUT, Some(key), path, Some(body)).await
    }

    /// The membership id of the person with this address.
    pub async fn membership(&self, email: &str) -> String {
        let path = format!(
            "/api/organizations/{}/members/?email={email}",
            self.server.organization
        );
        let reply = self.get(&self.owner, &path).await;
        reply.expect(StatusCode::OK)["results"][0]["id"]
            .as_str()
            .unwrap_or_else(|| panic!("no member {email}: {}", reply.text))
            .to_string()
    }

    /// The id of the role with this name.
    pub async fn role(&self, name: &str) -> String {
        self.server
            .all(&self.owner, &self.server.roles_path())
            .await
            .into_iter()
            .find(|role| role["name"] == name)
            .unwrap_or_else(|| panic!("no role {name}"))["id"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// A notebook's short id by its title (seen by the owner or not: read
    /// as its creator would be unnecessary, the store is the truth).
    pub async fn notebook(&self, project: i64, title: &str) -> (String, String) {
        let title = title.to_string();
        self.server
            .running
            .db
            .read_blocking(move |connection| {
                Ok(connection.query_row(
                    "SELECT id, short_id FROM notebooks WHERE project_id = ?1 AND title = ?2",
                    rusqlite::params![project, title],
                    |row| Ok((row.get(0)?, row.get(1)?)),
                )?)
            })
            .unwrap()
    }

    /// One member's settings row in a project, as `key` sees it.
    pub async fn member_row(&self, key: &str, project: i64, email: &str) -> Value {
        let member = self.membership(email).await;
        let path = format!("/api/projects/{project}/access_control_members?member_id={member}");
        let reply = self.get(key, &path).await;
        let rows = reply.expect(StatusCode::OK)["results"]
            .as_array()
            .unwrap()
            .clone();
        assert_eq!(rows.len(), 1, "{}", reply.text);
        rows[0].clone()
    }

    /// The effective level and the inherited level's source of a member's
    /// cell (`project` or a resource).
    pub async fn cell(&self, project: i64, email: &str, what: &str) -> (Value, Value) {
        let row = self.member_row(&self.owner, project, email).await;
        let cell = if what == "project" {
            row["project"].clone()
        } else {
            row["resources"][what].clone()
        };
        (
            cell["effective_access_level"].clone(),
            cell["inherited_access"].clone(),
        )
    }

    /// Switches the organization's resolution mode.
    pub async fn most_specific(&self, on: bool) {
        let path = format!("/api/organizations/{}/", self.server.organization);
        let reply = self
            .server
            .patch(
                &self.owner,
                &path,
                json!({"uses_most_specific_access_resolution": on}),
            )
            .await;
        assert_eq!(
            reply.expect(StatusCode::OK)["uses_most_specific_access_resolution"],
            on
        );
    }
}

const GUSTAVO: &str = "gustavo.mendes@hedgebox.dev"; // Engineering alone
const ROSA: &str = "rosa.martinez@hedgebox.dev"; // Marketing alone
const AMARA: &str = "amara.eze@hedgebox.dev"; // in no role
const HANA: &str = "hana.sato@hedgebox.dev"; // Product; created "Onboarding interviews"

#[tokio::test]
async fn each_source_of_a_resource_level_in_both_modes() {
    let access = Access::demo().await;
    let owner = access.owner.clone();
    let engineering = access.role("Engineering").await;
    let gustavo = access.membership(GUSTAVO).await;
    let rules = format!("/api/projects/{WEB}/resource_access_controls");
    for body in [
        json!({"resource": "survey", "access_level": "viewer"}),
        json!({"resource": "survey", "access_level": "editor", "role": engineering}),
        json!({"resource": "survey", "access_level": "none", "organization_member": gustavo}),
    ] {
        access.put(&owner, &rules, body).await.expect(StatusCode::OK);
    }
    // Highest wins: Engineering's editor over Gustavo's own none.
    let (level, inherited) = access.cell(WEB, GUSTAVO, "survey").await;
    assert_eq!(level, "editor");
    assert_eq!(inherited["source"], "resource");
    assert_eq!(inherited["source_subject"], "role");
    // Everyone's rule, for someone in no role and someone in another one.
    for email in [ROSA, AMARA] {
        let (level, inherited) = access.cell(WEB, email, "survey").await;
        assert_eq!(level, "viewer", "{email}");
        assert_eq!(inherited["source_subject"], "default", "{email}");
    }
    // An organization admin bypasses every rule.
    let (level, inherited) = access.cell(WEB, ADMIN, "survey").await;
    assert_eq!(level, "manager");
    assert_eq!(inherited["source"], "org_admin");
    // No rule anywhere: the built-in default.
    let (level, inherited) = access.cell(WEB, AMARA, "experiment").await;
    assert_eq!(level, "editor");
    assert_eq!(inherited["source"], "system_default");
    assert_eq!(inherited["source_subject"], Value::Null);

    // Most specific wins: Gustavo's own rule, lower as it is.
    access.most_specific(true).await;
    let (level, inherited) = access.cell(WEB, GUSTAVO, "survey").await;
    assert_eq!(level, "none");
    assert_eq!(
        inherited["access_level"], "editor",
        "without his rule, his role's"
    );
    let (level, _) = access.cell(WEB, ROSA, "survey").await;
    assert_eq!(level, "viewer");
    // A role's rule below everyone's takes Engineering under it.
    access
        .put(
            &owner,
            &rules,
            json!({"resource": "survey", "access_level": null, "organization_member": gustavo}),
        )
        .await
        .expect(StatusCode::NO_CONTENT);
    access
        .put(
            &owner,
            &rules,
            json!({"resource": "survey", "access_level": "manager"}),
        )
        .await
        .expect(StatusCode::OK);
    assert_eq!(access.cell(WEB, GUSTAVO, "survey").await.0, "editor");
    access.most_specific(false).await;
    assert_eq!(access.cell(WEB, GUSTAVO, "survey").await.0, "manager");
}

#[tokio::test]
async fn each_source_of_an_object_level_in_both_modes() {
    let access = Access::demo().await;
    let owner = access.owner.clone();
    let (notebook_id, short) = access.notebook(WEB, "Onboarding interviews").await;
    let object = format!("/api/projects/{WEB}/notebooks/{short}/access_controls");
    let level_of = |key: String| {
        let access = &access;
        let object = object.clone();
        async move { access.get(&key, &object).await }
    };
    let rosa = access.key_of(ROSA);
    // No rule: the built-in default, editor.
    let seen = level_of(rosa.clone()).await;
    assert_eq!(seen.expect(StatusCode::OK)["user_access_level"], "editor");
    assert_eq!(seen.json["inherited_access"]["source"], "system_default");
    assert_eq!(seen.json["user_can_edit_access_levels"], false);
    // The object's rule for everyone says none, a resource-wide rule viewer.
    access
        .put(&owner, &object, json!({"access_level": "none"}))
        .await
        .expect(StatusCode::OK);
    access
        .put(
            &owner,
            &format!("/api/projects/{WEB}/resource_access_controls"),
            json!({"resource": "notebook", "access_level": "viewer"}),
        )
        .await
        .expect(StatusCode::OK);
    // Highest wins: the resource-wide rule beats the object's rule for everyone.
    let seen = level_of(rosa.clone()).await;
    assert_eq!(seen.expect(StatusCode::OK)["user_access_level"], "viewer");
    // What everyone falls back to without the object's own rule: the resource's.
    assert_eq!(seen.json["inherited_access"]["source"], "resource");
    assert_eq!(seen.json["inherited_access"]["source_display_name"], Value::Null);
    // Its creator keeps the highest level, and may change its rules.
    let hana = level_of(access.key_of(HANA)).await;
    assert_eq!(hana.expect(StatusCode::OK)["user_access_level"], "manager");
    assert_eq!(hana.json["user_can_edit_access_levels"], true);
    // Most specific: the object's own rule first, and Rosa is refused.
    access.most_specific(true).await;
    let refused = level_of(rosa.clone()).await;
    let detail = refused.expect_error(
        StatusCode::FORBIDDEN,
        "authentication_error",
        "permission_denied",
        None,
    );
    assert_eq!(detail, "You do not have viewer access to this resource.");
    // A role's rule on the object decides before everyone's, in both modes.
    let marketing = access.role("Marketing").await;
    access
        .put(
            &owner,
            &object,
            json!({"access_level": "editor", "role": marketing}),
        )
        .await
        .expect(StatusCode::OK);
    for most_specific in [true, false] {
        access.most_specific(most_specific).await;
        let seen = level_of(rosa.clone()).await;
        assert_eq!(seen.expect(StatusCode::OK)["user_access_level"], "editor");
    }
    // A member's own rule on it, manager, lets them change its rules.
    let amara = access.membership(AMARA).await;
    access
        .put(
            &owner,
            &object,
            json!({"access_level": "manager", "organization_member": amara}),
        )
        .await
        .expect(StatusCode::OK);
    let seen = level_of(access.key_of(AMARA)).await;
    assert_eq!(seen.expect(StatusCode::OK)["user_access_level"], "manager");
    assert_eq!(seen.json["user_can_edit_access_levels"], true);
    // Who reaches it, and how, highest first.
    let users = access
        .get(
            &owner,
            &format!("/api/projects/{WEB}/notebooks/{short}/users_with_access"),
        )
        .await;
    let users = users.expect(StatusCode::OK)["users"].as_array().unwrap().clone();
    let source_of = |email_uuid: &str| {
        users
            .iter()
            .find(|user| user["user_id"] == email_uuid)
            .map(|user| (user["access_level"].clone(), user["access_source"].clone()))
    };
    let uuid = |email: &str| {
        access
            .server
            .running
            .db
            .read_blocking(|connection| {
                Ok(
                    connection.query_row("SELECT uuid FROM users WHERE email = ?1", [email], |row| {
                        row.get::<_, String>(0)
                    })?,
                )
            })
            .unwrap()
    };
    assert_eq!(source_of(&uuid(HANA)), Some(("manager".into(), "creator".into())));
    assert_eq!(
        source_of(&uuid(AMARA)),
        Some(("manager".into(), "explicit_member".into()))
    );
    assert_eq!(
        source_of(&uuid(ROSA)),
        Some(("editor".into(), "explicit_role".into()))
    );
    assert_eq!(
        source_of(&uuid(OWNER)),
        Some(("manager".into(), "organization_admin".into()))
    );
    // Gustavo: the resource-wide rule beats the object's rule for everyone.
    assert_eq!(
        source_of(&uuid(GUSTAVO)),
        Some(("viewer".into(), "default".into()))
    );
    let levels: Vec<&str> = users
        .iter()
        .map(|user| user["access_level"].as_str().unwrap())
        .collect();
    let mut sorted = levels.clone();
    sorted.sort_by_key(|level| {
        std::cmp::Reverse(
            ["none", "viewer", "editor", "manager"]
                .iter()
                .position(|l| l == level),
        )
    });
    assert_eq!(levels, sorted, "highest first");
    // In the most-specific mode the object's rule for everyone leaves him out.
    access.most_specific(true).await;
    let users = access
        .get(
            &owner,
            &format!("/api/projects/{WEB}/notebooks/{short}/users_with_access"),
        )
        .await;
    let users = users.expect(StatusCode::OK)["users"].as_array().unwrap().clone();
    assert!(!users.iter().any(|user| user["user_id"] == uuid(GUSTAVO)));
    // The settings search finds it by id for the owner, an admin.
    let found = access
        .get(
            &owner,
            &format!("/api/projects/{WEB}/access_control_object_search?resource=notebook&id={short}"),
        )
        .await;
    assert_eq!(found.expect(StatusCode::OK)["results"][0]["id"], notebook_id);
}

#[tokio::test]
async fn project_access_from_each_source_in_both_modes() {
    let access = Access::demo().await;
    // Ivan's own rule (member) and Engineering's (admin) on Hedgebox Web.
    let ivan = "ivan.petrov@hedgebox.dev";
    let (level, inherited) = access.cell(WEB, ivan, "project").await;
    assert_eq!(level, "admin");
    assert_eq!(inherited["source_subject"], "role");
    // Everyone's rule on Web: member.
    assert_eq!(access.cell(WEB, AMARA, "project").await.0, "member");
    // Mateo's own rule takes him off Mobile; Support's puts him on it.
    let mateo = "mateo.garcia@hedgebox.dev";
    assert_eq!(access.cell(MOBILE, mateo, "project").await.0, "member");
    access.most_specific(true).await;
    assert_eq!(access.cell(WEB, ivan, "project").await.0, "member");
    assert_eq!(access.cell(MOBILE, mateo, "project").await.0, "none");
    // What the gate enforces: Mateo's key cannot reach Mobile any more.
    let key = access.key_of(mateo);
    let refused = access
        .get(&key, &format!("/api/projects/{MOBILE}/subscriptions/"))
        .await;
    let detail = refused.expect_error(
        StatusCode::FORBIDDEN,
        "authentication_error",
        "permission_denied",
        None,
    );
    assert_eq!(detail, "You don't have access to the project.");
    let projects = access.get(&key, "/api/projects/").await;
    let ids: Vec<i64> = projects.expect(StatusCode::OK)["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|project| project["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [WEB]);
    access.most_specific(false).await;
    access
        .get(&key, &format!("/api/projects/{MOBILE}/subscriptions/"))
        .await
        .expect(StatusCode::OK);
}

#[tokio::test]
async fn the_server_s_default_mode_and_an_organization_s_own() {
    let server = TestServer::demo_with(|options| {
        options.access.resolution = orgdeck::api::access::Mode::MostSpecific;
    })
    .await;
    let access = Access::with(server);
    let organization = access
        .get(
            &access.owner,
            &format!("/api/organizations/{}/", access.server.organization),
        )
        .await;
    assert_eq!(
        organization.expect(StatusCode::OK)["uses_most_specific_access_resolution"],
        true
    );
    assert_eq!(
        access.cell(WEB, "ivan.petrov@hedgebox.dev", "project").await.0,
        "member"
    );
    // The organization's own choice wins over the server's default.
    access.most_specific(false).await;
    assert_eq!(
        access.cell(WEB, "ivan.petrov@hedgebox.dev", "project").await.0,
        "admin"
    );
    // Only admins switch it.
    let plain = access.key_of("elif.demir@hedgebox.dev");
    let refused = access
        .server
        .patch(
            &plain,
            &format!("/api/organizations/{}/", access.server.organization),
            json!({"uses_most_specific_access_resolution": true}),
        )
        .await;
    let detail = refused.expect_error(
        StatusCode::FORBIDDEN,
        "authentication_error",
        "permission_denied",
        None,
    );
    assert_eq!(detail, "Your organization access level is insufficient.");
    let bad = access
        .server
        .patch(
            &access.owner,
            &format!("/api/organizations/{}/", access.server.organization),
            json!({"uses_most_specific_access_resolution": "sometimes"}),
        )
        .await;
    bad.expect_error(
        StatusCode::BAD_REQUEST,
        "validation_error",
        "invalid_input",
        Some("uses_most_specific_access_resolution"),
    );
}
