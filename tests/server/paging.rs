use std::collections::HashSet;

use reqwest::StatusCode;

use crate::support::TestServer;

#[tokio::test]
async fn walking_every_page_repeats_and_skips_nothing() {
    let server = TestServer::demo().await;
    let key = server.key(&["subscription:read"]);
    let whole = server
        .get(&key, &format!("{}?limit=100000", server.subscriptions_path()))
        .await;
    let whole = whole.json["results"].as_array().unwrap().clone();
    for limit in [7, 100] {
        let walked = server
            .all(&key, &format!("{}?limit={limit}", server.subscriptions_path()))
            .await;
        assert_eq!(walked, whole, "pages of {limit}");
    }
    let ids: HashSet<i64> = whole.iter().map(|row| row["id"].as_i64().unwrap()).collect();
    assert_eq!(ids.len(), whole.len());
}

#[tokio::test]
async fn links_are_absolute_and_keep_other_parameters() {
    let server = TestServer::demo().await;
    let key = server.key(&["subscription:read"]);
    let path = server.subscriptions_path();
    let first = server
        .get(&key, &format!("{path}?target_type=email&limit=10"))
        .await;
    let first = first.expect(StatusCode::OK);
    assert_eq!(first["previous"], serde_json::Value::Null);
    assert_eq!(
        first["next"],
        format!("{}{path}?target_type=email&limit=10&offset=10", server.base).as_str()
    );
    let second = server
        .get(&key, &format!("{path}?target_type=email&limit=10&offset=10"))
        .await;
    assert_eq!(
        second.json["previous"],
        format!("{}{path}?target_type=email&limit=10", server.base).as_str()
    );
    let third = server.get(&key, &format!("{path}?limit=10&offset=25")).await;
    assert_eq!(
        third.json["previous"],
        format!("{}{path}?limit=10&offset=15", server.base).as_str()
    );
    let count = third.json["count"].as_u64().unwrap();
    let last = server
        .get(&key, &format!("{path}?limit=10&offset={}", count - 3))
        .await;
    assert_eq!(last.json["next"], serde_json::Value::Null);
    assert_eq!(last.json["results"].as_array().unwrap().len(), 3);
    let beyond = server
        .get(&key, &format!("{path}?limit=10&offset={}", count + 50))
        .await;
    assert_eq!(beyond.expect(StatusCode::OK)["results"], serde_json::json!([]));
}

#[tokio::test]
async fn bad_paging_values_fall_back_to_the_defaults() {
    // More rows than the default page holds.
    let server = TestServer::start(orgdeck::server::Seed::Demo, 50).await;
    let key = server.key(&["subscription:read"]);
    let path = server.subscriptions_path();
    let default = server.get(&key, &path).await.json["results"].clone();
    assert_eq!(default.as_array().unwrap().len(), 100);
    for query in [
        "limit=0",
        "limit=-4",
        "limit=abc",
        "offset=-1",
        "offset=x",
        "limit=&offset=",
        "limit=1e3",
    ] {
        let reply = server.get(&key, &format!("{path}?{query}")).await;
        assert_eq!(reply.expect(StatusCode::OK)["results"], default, "{query}");
    }
}

#[tokio::test]
async fn every_path_works_with_and_without_a_trailing_slash() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let role = server.get(&key, &server.roles_path()).await.json["results"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let subscription = server.get(&key, &server.subscriptions_path()).await.json["results"][0]["id"].clone();
    let paths = [
        "/api/organizations/".to_string(),
        "/api/projects/".into(),
        "/api/personal_api_keys/@current/".into(),
        format!("/api/organizations/{}/members/", server.organization),
        server.roles_path(),
        format!("{}{role}/", server.roles_path()),
        format!("{}{role}/role_memberships/", server.roles_path()),
        server.subscriptions_path(),
        format!("{}{subscription}/", server.subscriptions_path()),
        format!("/api/projects/{}/dashboards/", server.project),
        format!("/api/projects/{}/insights/", server.project),
    ];
    for path in paths {
        let with_slash = server.get(&key, &path).await;
        let without = server.get(&key, path.trim_end_matches('/')).await;
        assert_eq!(with_slash.status, StatusCode::OK, "{path}");
        assert_eq!(without.status, StatusCode::OK, "{path} without its slash");
        assert_eq!(with_slash.json["results"], without.json["results"], "{path}");
    }
}
