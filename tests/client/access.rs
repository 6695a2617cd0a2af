//! The typed client of access control against the reference server: every
//! endpoint read and written, both shapes PostHog has sent of the inherited
//! level (the older one injected by the proxy), and the settings answers
//! read a row at a time within the client's bounds.

use std::time::Duration;

use orgdeck::api::access::levels::AccessLevel;
use orgdeck::api::access::{
    AccessTarget, FeatureFlag, ManagementClaim, MemberAccess, Notebook, RoleAccess, Source, Subject,
    SubjectKind,
};
use orgdeck::api::{ApiKey, Client, ClientConfig, Error, List, RetryPolicy};
use serde_json::Value;

use crate::support::TestServer;
use crate::support::proxy::{Fault, FaultProxy};

const WEB: &str = "1";
const MOBILE: &str = "2";

fn client_with(base: &str, key: &str, change: impl FnOnce(&mut ClientConfig)) -> Client {
    let mut config = ClientConfig::new(base, ApiKey::new(key));
    config.retry = RetryPolicy {
        attempts: 2,
        base_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(50),
    };
    change(&mut config);
    Client::new(config).unwrap()
}

#[tokio::test]
async fn every_endpoint_through_the_typed_client() {
    let server = TestServer::demo().await;
    let client = server.client();
    let project = client.access_controls(WEB, AccessTarget::Project).await.unwrap();
    assert_eq!(project.inherited_access, Some(None));
    assert_eq!(project.user_access_level, Some(AccessLevel::Admin));
    assert!(project.access_controls.iter().all(|rule| rule.rule().is_some()));
    let board = client
        .access_controls(WEB, AccessTarget::dashboard("12"))
        .await
        .unwrap();
    assert!(board.access_controls.iter().all(|rule| rule.is_managed()));
    let inherited = board.inherited_access.flatten().unwrap();
    assert_eq!(inherited.source, Source::SystemDefault);
    let resource = client.resource_access_controls(WEB).await.unwrap();
    assert_eq!(resource.inherited_access, None);
    assert!(
        resource
            .access_controls
            .iter()
            .all(|rule| rule.resource_id.is_none())
    );

    // Every member, a row at a time.
    let mut rows = 0;
    let header = client
        .access_control_members(WEB, None, |row: MemberAccess| {
            rows += 1;
            assert_eq!(row.resources.len(), 34);
            Ok::<_, Error>(())
        })
        .await
        .unwrap();
    assert_eq!(rows, 40);
    assert!(header.can_edit);
    let members = client
        .all(&List::members("@current"), &Default::default())
        .await
        .unwrap();
    let ivan = members
        .iter()
        .find(|member| member.user.email == "ivan.petrov@hedgebox.dev")
        .unwrap();
    let row = client.member_access(WEB, &ivan.id).await.unwrap().unwrap();
    assert_eq!(row.project.effective_access_level, Some(AccessLevel::Admin));
    assert_eq!(row.project.access_level, Some(AccessLevel::Member));
    let inherited = row.project.inherited("project").unwrap();
    assert_eq!(inherited.source_subject, Some(SubjectKind::Role));
    let mut roles = Vec::new();
    client
        .access_control_roles(MOBILE, None, |row: RoleAccess| {
            roles.push((row.role_name, row.project.effective_access_level));
            Ok::<_, Error>(())
        })
        .await
        .unwrap();
    assert!(roles.contains(&("Contractors".to_string(), Some(AccessLevel::None))));
    assert!(roles.contains(&("Engineering".to_string(), Some(AccessLevel::Member))));

    let defaults = client.access_control_defaults(WEB).await.unwrap();
    assert_eq!(defaults.project_access_level, Some(AccessLevel::Member));
    assert_eq!(defaults.resource_access_levels.len(), 34);
    let users = client
        .users_with_access(MOBILE, AccessTarget::Project)
        .await
        .unwrap();
    assert_eq!(users.total_count, users.users.len() as u64);
    let everyone = client.object_rules(WEB, &Subject::Everyone).await.unwrap();
    assert_eq!(everyone.results.len(), 2);

    // Objects: notebooks by short id, flags by id.
    let notebooks: Vec<Notebook> = client
        .all(&List::notebooks(WEB), &Default::default())
        .await
        .unwrap()
        .into_vec();
    let interviews = notebooks
        .iter()
        .find(|notebook| notebook.title.as_deref() == Some("Onboarding interviews"))
        .unwrap();
    let fetched = client.notebook(WEB, &interviews.short_id).await.unwrap();
    assert_eq!(fetched.id, interviews.id);
    let flags: Vec<FeatureFlag> = client
        .all(&List::feature_flags(WEB), &Default::default())
        .await
        .unwrap()
        .into_vec();
    assert_eq!(flags.len(), 3);
    assert_eq!(
        client.feature_flag(WEB, flags[0].id).await.unwrap().key,
        flags[0].key
    );
    let found = client
        .search_objects(WEB, "notebook", Some("interviews"), None)
        .await
        .unwrap();
    assert_eq!(found.results[0].id, interviews.id);

    // Writes: a rule set, read back, removed.
    let marketing = client
        .all(&List::roles("@current"), &Default::default())
        .await
        .unwrap()
        .into_iter()
        .find(|role| role.name == "Marketing")
        .unwrap();
    let subject = Subject::Role(marketing.id.clone());
    let written = client
        .set_access_control(
            WEB,
            AccessTarget::notebook(&interviews.short_id),
            &subject,
            Some(AccessLevel::Viewer),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(written.subject(), Some(subject.clone()));
    let removed = client
        .set_object_rule(WEB, "notebook", &interviews.id, &subject, None)
        .await
        .unwrap();
    assert_eq!(removed, None);
    let resource_rule = client
        .set_resource_access_control(WEB, "survey", &subject, Some(AccessLevel::Editor))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(resource_rule.access_level, Some(AccessLevel::Editor));
    let refused = client
        .set_resource_access_control(WEB, "toolbar", &subject, Some(AccessLevel::Editor))
        .await
        .unwrap_err();
    assert_eq!(refused.status(), Some(400));

    // Terraform's claim and the lock.
    let state = client
        .claim_access_control(
            WEB,
            &ManagementClaim {
                resource: "survey".into(),
                role: Some(marketing.id.clone()),
                managed_by: Some("terraform".into()),
                ..ManagementClaim::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(state.managed_by.as_deref(), Some("terraform"));
    assert!(state.managed_at.is_some());
    assert!(
        client
            .management_settings(WEB)
            .await
            .unwrap()
            .lock_terraform_managed_rules
    );
    assert!(
        !client
            .set_terraform_lock(WEB, false)
            .await
            .unwrap()
            .lock_terraform_managed_rules
    );

    // The organization's mode.
    let organization = client.set_access_resolution("@current", true).await.unwrap();
    assert_eq!(organization.uses_most_specific_access_resolution, Some(true));
    let row = client.member_access(WEB, &ivan.id).await.unwrap().unwrap();
    assert_eq!(row.project.effective_access_level, Some(AccessLevel::Member));
}

/// The mid-2026 shape of a settings cell: `inherited_access_level` and its
/// reason in place of the `inherited_access` object.
fn older_shape(cell: &mut Value) {
    let Some(inherited) = cell.get("inherited_access").cloned() else {
        return;
    };
    let object = cell.as_object_mut().unwrap();
    object.remove("inherited_access");
    let reason = match (inherited["source"].as_str(), inherited["source_subject"].as_str()) {
        (Some("org_admin"), _) => Value::from("organization_admin"),
        (_, Some("role")) => Value::from("role_override"),
        (_, Some("default")) => Value::from("project_default"),
        _ => Value::Null,
    };
    object.insert("inherited_access_level".into(), inherited["access_level"].clone());
    object.insert("inherited_access_level_reason".into(), reason);
}

#[tokio::test]
async fn both_shapes_of_the_inherited_level_read_alike() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let proxy = FaultProxy::start(&server.base).await;
    let client = client_with(&proxy.base, &key, |_| {});
    let reply = server
        .get(&key, &format!("/api/projects/{WEB}/access_control_members"))
        .await;
    let newer = reply.json.clone();
    let mut older = newer.clone();
    for row in older["results"].as_array_mut().unwrap() {
        older_shape(&mut row["project"]);
        for cell in row["resources"].as_object_mut().unwrap().values_mut() {
            older_shape(cell);
        }
    }
    let read = |client: Client| async move {
        let mut rows = Vec::new();
        client
            .access_control_members(WEB, None, |row: MemberAccess| {
                rows.push(row);
                Ok::<_, Error>(())
            })
            .await
            .unwrap();
        rows
    };
    proxy.push(Fault::Answer(200, older.to_string()));
    let from_older = read(client.clone()).await;
    let from_newer = read(client).await;
    assert_eq!(from_older.len(), 40);
    assert_eq!(from_older.len(), from_newer.len());
    for (old, new) in from_older.iter().zip(&from_newer) {
        assert!(old.project.inherited_access.is_none() && old.project.inherited_access_level.is_some());
        let pairs = std::iter::once(("project", &old.project, &new.project)).chain(
            old.resources
                .iter()
                .zip(new.resources.iter())
                .map(|((resource, old), (_, new))| (resource, old, new)),
        );
        for (resource, old, new) in pairs {
            let (old, new) = (old.inherited(resource).unwrap(), new.inherited(resource).unwrap());
            assert_eq!(old.access_level, new.access_level, "{resource}");
            assert_eq!(old.source_subject, new.source_subject, "{resource}");
            // The older shape does not tell a rule's scope from the built-in
            // default's without a reason; the level and subject agree.
            if new.source == Source::OrgAdmin {
                assert_eq!(old.source, Source::OrgAdmin);
            }
        }
    }
}

#[tokio::test]
async fn settings_answers_are_read_within_the_client_s_bounds() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let few_rows = client_with(&server.base, &key, |config| config.max_rows = 10);
    let error = few_rows
        .access_control_members(WEB, None, |_: MemberAccess| Ok::<_, Error>(()))
        .await
        .unwrap_err();
    assert!(matches!(error, Error::TooManyRows { limit: 10, .. }), "{error}");
    // Decoded as it arrives, never held whole, an answer may be 64 times
    // --max-answer-mib on the wire, and no more.
    let few_bytes = client_with(&server.base, &key, |config| config.max_answer = 1024);
    let error = few_bytes
        .access_control_members(WEB, None, |_: MemberAccess| Ok::<_, Error>(()))
        .await
        .unwrap_err();
    assert!(
        matches!(error, Error::TooLargeStreamed { limit: 65_536, .. }),
        "{error}"
    );
    // A sink that has seen enough stops the reading.
    let client = client_with(&server.base, &key, |_| {});
    let mut seen = 0;
    let stopped = client
        .access_control_members(WEB, None, |_: MemberAccess| {
            seen += 1;
            if seen == 3 {
                Err(Error::Invalid("enough".into()))
            } else {
                Ok(())
            }
        })
        .await;
    assert!(matches!(stopped, Err(Error::Invalid(_))));
    assert_eq!(seen, 3);
    // An answer that is not the API's says so.
    let proxy = FaultProxy::start(&server.base).await;
    proxy.push(Fault::Answer(
        200,
        r#"{"results": [{"organization_membership_id": 5"#.into(),
    ));
    let broken = client_with(&proxy.base, &key, |_| {})
        .access_control_members(WEB, None, |_: MemberAccess| Ok::<_, Error>(()))
        .await
        .unwrap_err();
    assert!(matches!(broken, Error::Decode { .. }), "{broken}");
}
