use std::collections::HashSet;
use std::time::{Duration, Instant};

use orgdeck::server::{self, Seed, ServeOptions};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{DEMO_INSIGHT, Reply, TestServer};

#[tokio::test]
async fn data_survives_a_restart_on_the_same_file() {
    let dir = tempfile::tempdir().unwrap();
    let options = ServeOptions {
        listen: "127.0.0.1:0".parse().unwrap(),
        db: dir.path().join("kept.sqlite"),
        seed: Seed::Demo,
        generate_subscriptions: 0,
        generate_members: 0,
        rate_limit: None,
        delay: None,
        clock: orgdeck::clock::Clock::system(),
        public_url: None,
        read_timeouts: Default::default(),
        flavor: Default::default(),
        subscription_limit: None,
        max_limit: None,
        export_cap: orgdeck::server::DEFAULT_EXPORT_CAP,
        access: Default::default(),
        keys_listed: false,
    };
    let first = server::start(options.clone()).await.unwrap();
    let key = first.ready.api_key.clone().expect("a fresh demo mints a key");
    let http = reqwest::Client::new();
    let roles = format!("{}/api/organizations/@current/roles/", first.ready.base_url);
    let created = http
        .post(&roles)
        .bearer_auth(&key)
        .json(&json!({"name": "Kept"}))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), StatusCode::CREATED);
    let before: Value = http
        .get(&roles)
        .bearer_auth(&key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let organization = first.ready.organization_id.clone();
    first.stop().await.unwrap();

    let second = server::start(options).await.unwrap();
    assert_eq!(second.ready.api_key, None, "seeding happens once");
    assert_eq!(second.ready.organization_id, organization);
    let roles = format!("{}/api/organizations/@current/roles/", second.ready.base_url);
    let after: Value = http
        .get(&roles)
        .bearer_auth(&key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(after["results"], before["results"]);
    assert_eq!(after["count"], 9);
}

/// Writes are acknowledged only once committed: killing the server with
/// SIGKILL in the middle of a stream of writes loses none that were
/// acknowledged and leaves a file that passes SQLite's integrity check.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_server_keeps_every_acknowledged_write() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("killed.sqlite");
    let log = dir.path().join("log.txt");
    let (mut child, ready) = crate::support::spawn_demo_serve(&db, &log);
    let key = ready["api_key"].as_str().unwrap().to_string();
    let base = ready["base_url"].as_str().unwrap().to_string();
    let http = reqwest::Client::new();

    let writers: Vec<_> = (0..8)
        .map(|writer| {
            let (http, key, base) = (http.clone(), key.clone(), base.clone());
            tokio::spawn(async move {
                let mut acknowledged = Vec::new();
                for n in 0.. {
                    let name = format!("w{writer}-{n}");
                    let sent = http
                        .post(format!("{base}/api/organizations/@current/roles/"))
                        .bearer_auth(&key)
                        .json(&json!({"name": name}))
                        .send()
                        .await;
                    match sent {
                        Ok(response) if response.status() == StatusCode::CREATED => acknowledged.push(name),
                        _ => break,
                    }
                }
                acknowledged
            })
        })
        .collect();
    let started = Instant::now();
    tokio::time::sleep(Duration::from_millis(700)).await;
    child.kill().unwrap(); // SIGKILL: no chance to clean up
    child.wait().unwrap();
    let mut acknowledged = Vec::new();
    for writer in writers {
        acknowledged.extend(writer.await.unwrap());
    }
    assert!(
        acknowledged.len() > 20,
        "only {} writes in {:?}",
        acknowledged.len(),
        started.elapsed()
    );

    let check = rusqlite::Connection::open(&db).unwrap();
    let integrity: String = check
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
    drop(check);

    let (mut child, ready) = crate::support::spawn_demo_serve(&db, &log);
    let base = ready["base_url"].as_str().unwrap();
    let mut names = HashSet::new();
    let mut url = Some(format!("{base}/api/organizations/@current/roles/?limit=500"));
    while let Some(next) = url {
        let page: Value = http
            .get(&next)
            .bearer_auth(&key)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        for role in page["results"].as_array().unwrap() {
            names.insert(role["name"].as_str().unwrap().to_string());
        }
        url = page["next"].as_str().map(str::to_string);
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let lost: Vec<&String> = acknowledged
        .iter()
        .filter(|name| !names.contains(*name))
        .collect();
    assert!(lost.is_empty(), "acknowledged but lost: {lost:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_concurrent_creates_make_fifty_rows() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let count_of = |reply: Reply| reply.json["count"].as_i64().unwrap();
    let subscriptions_before = count_of(server.get(&key, &server.subscriptions_path()).await);
    let roles_before = count_of(server.get(&key, &server.roles_path()).await);

    let mut tasks = Vec::new();
    for n in 0..50 {
        let http = server.http.clone();
        let subs = server.url(&server.subscriptions_path());
        let roles = server.url(&server.roles_path());
        let key = key.clone();
        tasks.push(tokio::spawn(async move {
            let body = json!({"target_type": "email", "target_value": format!("c{n}@example.com"),
                              "frequency": "weekly", "interval": 1, "start_date": "2026-03-01T08:00:00Z",
                              "insight": DEMO_INSIGHT});
            let sub = http
                .post(subs)
                .bearer_auth(&key)
                .json(&body)
                .send()
                .await
                .unwrap();
            let role = http
                .post(roles)
                .bearer_auth(&key)
                .json(&json!({"name": format!("Team {n}")}))
                .send()
                .await
                .unwrap();
            let id: Value = sub.json().await.unwrap();
            (id["id"].as_i64().unwrap(), role.status())
        }));
    }
    let mut ids = HashSet::new();
    for task in tasks {
        let (id, role_status) = task.await.unwrap();
        assert_eq!(role_status, StatusCode::CREATED);
        ids.insert(id);
    }
    assert_eq!(ids.len(), 50);
    assert_eq!(
        count_of(server.get(&key, &server.subscriptions_path()).await),
        subscriptions_before + 50
    );
    assert_eq!(
        count_of(server.get(&key, &server.roles_path()).await),
        roles_before + 50
    );

    // Fifty creates of the same name: exactly one wins.
    let mut same = Vec::new();
    for _ in 0..50 {
        let http = server.http.clone();
        let roles = server.url(&server.roles_path());
        let key = key.clone();
        same.push(tokio::spawn(async move {
            http.post(roles)
                .bearer_auth(&key)
                .json(&json!({"name": "Highlander"}))
                .send()
                .await
                .unwrap()
                .status()
        }));
    }
    let mut created = 0;
    for task in same {
        match task.await.unwrap() {
            StatusCode::CREATED => created += 1,
            status => assert_eq!(status, StatusCode::BAD_REQUEST),
        }
    }
    assert_eq!(created, 1);
}
