//! Shared by the suites of today's deliveries, integrations and delivery
//! task: the demo in the current flavor on a manual clock that the test
//! moves, and small helpers over its API.

use std::future::Future;
use std::time::Duration as StdDuration;

use chrono::{DateTime, Utc};
use orgdeck::clock::Clock;
use orgdeck::server::Flavor;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{Reply, TestServer, seeded};

/// The demo in today's flavor, seeded at [`seeded`] on a clock that stands
/// still until the test moves it.
pub struct Today {
    pub server: TestServer,
    pub clock: Clock,
    /// An all-scopes key of the owner.
    pub key: String,
}

impl Today {
    pub async fn start() -> Today {
        let clock = Clock::manual(seeded());
        let shared = clock.clone();
        let server = TestServer::demo_with(move |options| {
            options.flavor = Flavor::Current;
            options.clock = shared;
        })
        .await;
        let key = server.key(&["*"]);
        Today { server, clock, key }
    }

    pub fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }

    /// `/api/projects/:id/` followed by `tail`.
    pub fn path(&self, tail: &str) -> String {
        format!("/api/projects/{}/{tail}", self.server.project)
    }

    pub fn subscription_path(&self, id: i64) -> String {
        self.path(&format!("subscriptions/{id}/"))
    }

    pub fn deliveries_path(&self, id: i64) -> String {
        self.path(&format!("subscriptions/{id}/deliveries/"))
    }

    pub async fn get(&self, path: &str) -> Reply {
        self.server.get(&self.key, path).await
    }

    /// The project's insights, in id order.
    pub async fn insights(&self) -> Vec<i64> {
        let reply = self.get(&self.path("insights/?limit=1000")).await;
        reply.expect(StatusCode::OK)["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|insight| insight["id"].as_i64().unwrap())
            .collect()
    }

    /// Creates an insight subscription with `changes` over a daily e-mail
    /// one to `target` starting on 1 December 2026 at 09:00 (days ahead of
    /// the clock), and returns it.
    pub async fn create(&self, target: &str, changes: Value) -> Value {
        let mut body = json!({
            "insight": self.insights().await[0],
            "target_type": "email",
            "target_value": target,
            "frequency": "daily",
            "interval": 1,
            "start_date": "2026-12-01T09:00:00Z",
        });
        for (field, value) in changes.as_object().unwrap() {
            body[field] = value.clone();
        }
        let created = self
            .server
            .post(&self.key, &self.path("subscriptions/"), body)
            .await;
        created.expect(StatusCode::CREATED).clone()
    }

    pub async fn patch(&self, id: i64, body: Value) -> Value {
        let reply = self
            .server
            .patch(&self.key, &self.subscription_path(id), body)
            .await;
        reply.expect(StatusCode::OK).clone()
    }

    pub async fn subscription(&self, id: i64) -> Value {
        self.get(&self.subscription_path(id))
            .await
            .expect(StatusCode::OK)
            .clone()
    }

    /// Every delivery of a subscription, newest first, following `next`.
    pub async fn deliveries(&self, id: i64) -> Vec<Value> {
        self.walk(&self.server.url(&self.deliveries_path(id))).await
    }

    /// Every row from the page at `url` on, following `next` links.
    pub async fn walk(&self, url: &str) -> Vec<Value> {
        let mut rows = Vec::new();
        let mut next = Some(url.to_string());
        while let Some(url) = next {
            let page = self.page(&url).await;
            rows.extend(page["results"].as_array().unwrap().iter().cloned());
            next = page["next"].as_str().map(str::to_string);
            assert!(rows.len() < 10_000, "the walk never ends");
        }
        rows
    }

    /// One page of deliveries at an absolute URL.
    pub async fn page(&self, url: &str) -> Value {
        let response = self
            .server
            .http
            .get(url)
            .bearer_auth(&self.key)
            .send()
            .await
            .unwrap();
        Reply::read(response).await.expect(StatusCode::OK).clone()
    }
}

/// Polls `check` every 20 ms until it gives a value, for at most 10 seconds
/// (the delivery task answers in milliseconds; the bound only keeps a
/// broken task from hanging the suite).
pub async fn eventually<T, F, Fut>(what: &str, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + StdDuration::from_secs(10);
    loop {
        if let Some(found) = check().await {
            return found;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(StdDuration::from_millis(20)).await;
    }
}

/// The keys of a JSON object, sorted.
pub fn keys(value: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = value
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {value}"))
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    keys
}

pub fn date(value: &Value) -> DateTime<Utc> {
    orgdeck::api::time::parse_datetime(value.as_str().unwrap_or_else(|| panic!("not a date: {value}")))
        .unwrap_or_else(|| panic!("not a date: {value}"))
}
