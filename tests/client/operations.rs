//! Every typed operation of the client against the reference server.

use orgdeck::api::time::parse_datetime;
use orgdeck::api::{
    Error, Frequency, List, ListOrText, ResourceType, RoleInput, SubscriptionFilter, SubscriptionInput,
    TargetType, Weekday,
};

use crate::support::{DEMO_INSIGHT, MEMBER, TestServer, client_for};

#[tokio::test]
async fn roles_round_trip() {
    let server = TestServer::demo().await;
    let client = server.client();
    let org = server.organization.as_str();
    let page = client.page(&List::roles(org), 3, 0).await.unwrap();
    assert_eq!((page.count, page.results.len()), (8, 3));
    assert!(page.next.is_some());

    // Today's PostHog ignores an access level (posthog.md 5): the role
    // comes back without one, saying whether it is the default.
    let input = RoleInput {
        name: Some("Reviewers".into()),
        feature_flags_access_level: Some(21),
    };
    let created = client.create_role(org, &input).await.unwrap();
    assert_eq!(
        (
            created.name.as_str(),
            created.feature_flags_access_level,
            created.is_default
        ),
        ("Reviewers", None, Some(false))
    );
    assert_eq!(created.members, Some(ListOrText::List(vec![])));
    assert_eq!(created.associated_flags, None);
    assert_eq!(client.role("@current", &created.id).await.unwrap(), created);

    let renamed = client
        .update_role(
            org,
            &created.id,
            &RoleInput {
                name: Some("Code reviewers".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(
        (renamed.name.as_str(), renamed.is_default),
        ("Code reviewers", Some(false))
    );

    let clash = client
        .create_role(
            org,
            &RoleInput {
                name: Some("code REVIEWERS".into()),
                ..Default::default()
            },
        )
        .await;
    let refusal = clash.unwrap_err().refusal().cloned().unwrap();
    assert_eq!(
        (refusal.status, refusal.code.as_str(), refusal.attr.as_deref()),
        (400, "unique", Some("name"))
    );

    client.delete_role(org, &created.id).await.unwrap();
    let gone = client.role(org, &created.id).await.unwrap_err();
    assert_eq!(gone.status(), Some(404));
}

/// An older server (the seed flavor) keeps access levels and flags: the
/// client reads and writes them.
#[tokio::test]
async fn roles_with_access_levels_on_an_older_server() {
    let server = TestServer::seed().await;
    let client = server.client();
    let org = server.organization.as_str();
    let roles = client.all(&List::roles(org), &Default::default()).await.unwrap();
    assert_eq!(
        roles
            .iter()
            .map(|role| role.feature_flags_access_level)
            .take(3)
            .collect::<Vec<_>>(),
        [Some(37), Some(37), Some(21)]
    );
    assert!(roles.iter().all(|role| role.is_default.is_none()));
    assert!(
        roles
            .iter()
            .all(|role| matches!(role.associated_flags, Some(ListOrText::List(_))))
    );
    let input = RoleInput {
        name: Some("Reviewers".into()),
        feature_flags_access_level: Some(21),
    };
    let created = client.create_role(org, &input).await.unwrap();
    assert_eq!(created.feature_flags_access_level, Some(21));
    let renamed = client
        .update_role(
            org,
            &created.id,
            &RoleInput {
                name: Some("Code reviewers".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(
        (renamed.name.as_str(), renamed.feature_flags_access_level),
        ("Code reviewers", Some(21)),
        "only the name was sent"
    );
}

#[tokio::test]
async fn members_are_assigned_and_removed() {
    let server = TestServer::demo().await;
    let client = server.client();
    let org = server.organization.as_str();
    let roles = client.all(&List::roles(org), &Default::default()).await.unwrap();
    let contractors = roles.iter().find(|role| role.name == "Contractors").unwrap();
    let people = client
        .all(&List::members(org), &Default::default())
        .await
        .unwrap();
    let elif = people.iter().find(|member| member.user.email == MEMBER).unwrap();

    let membership = client
        .add_member(org, &contractors.id, &elif.user.uuid)
        .await
        .unwrap();
    assert_eq!(membership.user.as_ref().unwrap().email, MEMBER);
    assert_eq!(membership.organization_member.as_ref().unwrap().level, 1);
    let listed = client
        .all(&List::memberships(org, &contractors.id), &Default::default())
        .await
        .unwrap();
    assert_eq!(listed.into_vec(), vec![membership.typed.clone()]);

    let again = client
        .add_member(org, &contractors.id, &elif.user.uuid)
        .await
        .unwrap_err();
    assert_eq!(
        again.refusal().unwrap().detail,
        "User is already part of the role."
    );
    client
        .remove_member(org, &contractors.id, &membership.id)
        .await
        .unwrap();
    assert!(
        client
            .all(&List::memberships(org, &contractors.id), &Default::default())
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn subscriptions_round_trip_with_soft_delete() {
    let server = TestServer::demo().await;
    let client = server.client();
    let project = server.project.to_string();
    // What today's PostHog needs: an interval, and something to deliver.
    let input = SubscriptionInput {
        insight: Some(Some(DEMO_INSIGHT)),
        target_type: Some(TargetType::Email),
        target_value: Some("oncall@hedgebox.dev".into()),
        frequency: Some(Frequency::Monthly),
        interval: Some(1),
        byweekday: Some(Some(vec![Weekday::Monday, Weekday::Thursday])),
        bysetpos: Some(Some(1)),
        start_date: parse_datetime("2026-01-05T07:30:00Z"),
        title: Some(Some("First of the month".into())),
        ..Default::default()
    };
    let created = client.create_subscription(&project, &input).await.unwrap();
    assert_eq!(
        created.summary.as_deref(),
        Some("sent every month on the first day")
    );
    assert_eq!(created.byweekday, Some(vec![Weekday::Monday, Weekday::Thursday]));
    assert!(created.next_delivery_date.is_some());
    assert_eq!(
        (created.delivers(), created.enabled, created.is_enabled()),
        (Some(ResourceType::Insight), Some(true), true)
    );

    let changed = SubscriptionInput {
        interval: Some(2),
        title: Some(None),
        ..Default::default()
    };
    let updated = client
        .update_subscription(&project, created.id, &changed)
        .await
        .unwrap();
    assert_eq!((updated.interval, updated.title.clone()), (Some(2), None));
    assert_eq!(
        updated.summary.as_deref(),
        Some("sent every 2 months on the first day")
    );
    assert_eq!(updated.target_value, created.target_value);

    let deleted = client
        .soft_delete_subscription(&project, created.id)
        .await
        .unwrap();
    assert!(deleted.deleted);
    let hidden = client
        .all(
            &List::subscriptions(&project, &SubscriptionFilter::default()),
            &Default::default(),
        )
        .await
        .unwrap();
    assert!(!hidden.iter().any(|s| s.id == created.id));
    let shown = SubscriptionFilter {
        deleted: true,
        ..Default::default()
    };
    let deleted_ones = client
        .all(&List::subscriptions(&project, &shown), &Default::default())
        .await
        .unwrap();
    assert!(deleted_ones.iter().any(|s| s.id == created.id));
    assert!(
        !client
            .restore_subscription(&project, created.id)
            .await
            .unwrap()
            .deleted
    );

    // The API's DELETE is refused and changes nothing; the error says what to do.
    let refused = client
        .hard_delete_subscription(&project, created.id)
        .await
        .unwrap_err();
    assert_eq!(refused.status(), Some(405));
    assert!(refused.to_string().contains("soft-deleted"), "{refused}");
    assert!(!client.subscription(&project, created.id).await.unwrap().deleted);
}

#[tokio::test]
async fn filters_reach_the_server() {
    let server = TestServer::demo().await;
    let client = server.client();
    let project = server.project.to_string();
    let filter = SubscriptionFilter {
        target_type: Some("slack".into()),
        search: Some("kpi".into()),
        ordering: Some("next_delivery_date".into()),
        ..Default::default()
    };
    let rows = client
        .all(&List::subscriptions(&project, &filter), &Default::default())
        .await
        .unwrap();
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|s| s.target_type == Some(TargetType::Slack)));
    assert!(
        rows.iter()
            .all(|s| { s.title.as_deref().unwrap().to_lowercase().contains("kpi") })
    );
    let dates: Vec<_> = rows.iter().filter_map(|s| s.next_delivery_date).collect();
    assert!(dates.windows(2).all(|pair| pair[0] <= pair[1]));
}

#[tokio::test]
async fn pickers_and_the_current_key() {
    let server = TestServer::demo().await;
    let key = server.key(&[
        "organization:read",
        "project:read",
        "dashboard:read",
        "insight:read",
    ]);
    let client = client_for(&server.base, &key);
    let organizations = client
        .all(&List::organizations(), &Default::default())
        .await
        .unwrap();
    assert_eq!(organizations[0].id, server.organization);
    assert_eq!(organizations[0].membership_level, Some(15));
    let projects = client.all(&List::projects(), &Default::default()).await.unwrap();
    assert_eq!(projects.len(), 2);
    let current = client.organization("@current").await.unwrap();
    assert_eq!(
        (current.id.as_str(), current.name.as_str()),
        (server.organization.as_str(), "Hedgebox Inc.")
    );
    let current = client.project("@current").await.unwrap();
    assert_eq!(current.id, server.project);
    assert_eq!(client.project("424242").await.unwrap_err().status(), Some(404));
    let project = server.project.to_string();
    assert!(
        client
            .all(&List::dashboards(&project), &Default::default())
            .await
            .unwrap()
            .len()
            > 3
    );
    assert!(
        client
            .all(&List::insights(&project), &Default::default())
            .await
            .unwrap()
            .len()
            > 3
    );
    let current = client.current_key().await.unwrap();
    assert_eq!(current.scopes.len(), 4);
    let refused = client
        .all(&List::members("@current"), &Default::default())
        .await
        .unwrap_err();
    let Error::Api(refusal) = &refused else {
        panic!("{refused:?}")
    };
    assert_eq!(refusal.missing_scope(), Some("organization_member:read"));
    let line = refused.to_string();
    assert!(
        line.contains("'organization_member:read' scope") && !line.contains('\n'),
        "{line}"
    );
    assert!(!line.contains(&key), "no key in errors");
}
