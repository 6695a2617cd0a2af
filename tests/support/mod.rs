//! Shared by the test binaries: a real reference server on 127.0.0.1 port 0
//! with a temporary database, keys of any scope for any demo user, and a
//! small HTTP helper that keeps status and body together.
#![allow(dead_code)]

pub mod hostile;
pub mod proxy;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use orgdeck::api::{ApiKey, Client, ClientConfig, RetryPolicy};

use orgdeck::server::store::{directory, keys};
use orgdeck::server::{self, RateLimit, RunningServer, Seed, ServeOptions};
use reqwest::{Method, StatusCode};
use serde_json::Value;

pub const OWNER: &str = "ada.okafor@hedgebox.dev";
pub const ADMIN: &str = "bruno.lindqvist@hedgebox.dev";
pub const MEMBER: &str = "elif.demir@hedgebox.dev";
pub const INACTIVE: &str = "victor.hale@hedgebox.dev";
pub const OUTSIDER: &str = "xena@partner.example";
/// The demo's person who left last month: still an active member, who
/// receives three e-mail subscriptions (one alone) and created two.
pub const LEAVER: &str = "ingrid.halvorsen@hedgebox.dev";

/// The flavor the suites run against in-process: today's PostHog
/// (posthog.md), as `orgdeck serve` and `orgdeck demo` default to. What
/// only the seed flavor does (api.md, compat.md) has its own, smaller suite
/// (tests/server/seed.rs).
pub const SUITE_FLAVOR: server::Flavor = server::Flavor::Current;

/// Ids of the demo's first project (src/server/demo): its first insight
/// ("Weekly active users"), its first dashboard ("Company KPIs", whose tiles
/// hold the insights in `DEMO_DASHBOARD_INSIGHTS`), and its working Slack
/// integration (the project's other one is revoked). The server suite's
/// `the_demo_ids_the_suites_use_are_the_demo_s` checks them.
pub const DEMO_INSIGHT: i64 = 1;
pub const DEMO_INSIGHT_NAME: &str = "Weekly active users";
pub const DEMO_DASHBOARD: i64 = 1;
pub const DEMO_DASHBOARD_NAME: &str = "Company KPIs";
pub const DEMO_DASHBOARD_INSIGHTS: [i64; 3] = [1, 2, 3];
pub const DEMO_SLACK: i64 = 2;

/// The fixed moment that tests showing dates seed the demo data from, so
/// that what they show never changes with the day the suite runs.
pub fn seeded() -> chrono::DateTime<chrono::Utc> {
    orgdeck::api::time::parse_datetime("2026-11-22T08:00:00Z").unwrap()
}

pub struct TestServer {
    pub running: RunningServer,
    pub base: String,
    pub organization: String,
    pub project: i64,
    pub http: reqwest::Client,
    _dir: tempfile::TempDir,
}

impl TestServer {
    pub async fn demo() -> TestServer {
        Self::start(Seed::Demo, 0).await
    }

    /// The demo on the seed flavor (`--api seed`): the service as api.md
    /// and compat.md describe it, for what only older servers do.
    pub async fn seed() -> TestServer {
        Self::demo_with(|options| options.flavor = server::Flavor::Seed).await
    }

    pub async fn start(seed: Seed, generate_subscriptions: u64) -> TestServer {
        Self::start_with(seed, generate_subscriptions, None).await
    }

    pub async fn start_with(
        seed: Seed,
        generate_subscriptions: u64,
        rate_limit: Option<RateLimit>,
    ) -> TestServer {
        Self::demo_with(|options| {
            options.seed = seed;
            options.generate_subscriptions = generate_subscriptions;
            options.rate_limit = rate_limit;
        })
        .await
    }

    /// The demo server on the system's clock, with options changed by `change`.
    pub async fn demo_with(change: impl FnOnce(&mut ServeOptions)) -> TestServer {
        let dir = tempfile::tempdir().unwrap();
        let mut options = ServeOptions {
            listen: "127.0.0.1:0".parse().unwrap(),
            db: dir.path().join("test.sqlite"),
            seed: Seed::Demo,
            generate_subscriptions: 0,
            generate_members: 0,
            rate_limit: None,
            delay: None,
            clock: orgdeck::clock::Clock::system(),
            public_url: None,
            read_timeouts: Default::default(),
            flavor: SUITE_FLAVOR,
            subscription_limit: None,
            max_limit: None,
            export_cap: orgdeck::server::DEFAULT_EXPORT_CAP,
            access: Default::default(),
            keys_listed: false,
        };
        change(&mut options);
        Self::launch(options, dir).await
    }

    /// The demo data laid out from a fixed moment, so that what shows it
    /// never changes with the date.
    pub async fn demo_at(
        seed_time: chrono::DateTime<chrono::Utc>,
        generate_subscriptions: u64,
    ) -> TestServer {
        let dir = tempfile::tempdir().unwrap();
        let options = ServeOptions {
            listen: "127.0.0.1:0".parse().unwrap(),
            db: dir.path().join("test.sqlite"),
            seed: Seed::Demo,
            generate_subscriptions,
            generate_members: 0,
            rate_limit: None,
            delay: None,
            clock: orgdeck::clock::Clock::manual(seed_time),
            public_url: None,
            read_timeouts: Default::default(),
            flavor: SUITE_FLAVOR,
            subscription_limit: None,
            max_limit: None,
            export_cap: orgdeck::server::DEFAULT_EXPORT_CAP,
            access: Default::default(),
            keys_listed: false,
        };
        Self::launch(options, dir).await
    }

    async fn launch(options: ServeOptions, dir: tempfile::TempDir) -> TestServer {
        let running = server::start(options).await.unwrap();
        TestServer {
            base: running.ready.base_url.clone(),
            organization: running.ready.organization_id.clone(),
            project: running.ready.project_id,
            running,
            http: reqwest::Client::new(),
            _dir: dir,
        }
    }

    /// A key of the user with this e-mail address holding `scopes`.
    pub fn key_for(&self, email: &str, scopes: &[&str]) -> String {
        let db = self.running.db.clone();
        let user = db
            .read_blocking(|c| directory::user_by_email(c, email))
            .unwrap()
            .unwrap_or_else(|| panic!("no user {email}"));
        let scopes: Vec<String> = scopes.iter().map(|s| s.to_string()).collect();
        db.write_blocking(|tx| keys::mint(tx, user, "test", &scopes))
            .unwrap()
    }

    /// A key of the user with this e-mail address, limited to some
    /// organizations or projects.
    pub fn restricted_key(&self, email: &str, scopes: &[&str], restrictions: keys::Restrictions) -> String {
        let db = self.running.db.clone();
        let user = db
            .read_blocking(|c| directory::user_by_email(c, email))
            .unwrap()
            .unwrap_or_else(|| panic!("no user {email}"));
        let scopes: Vec<String> = scopes.iter().map(|s| s.to_string()).collect();
        db.write_blocking(|tx| keys::mint_restricted(tx, user, "test", &scopes, &restrictions))
            .unwrap()
    }

    /// A key of the organization's owner.
    pub fn key(&self, scopes: &[&str]) -> String {
        self.key_for(OWNER, scopes)
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    pub fn roles_path(&self) -> String {
        format!("/api/organizations/{}/roles/", self.organization)
    }

    pub fn subscriptions_path(&self) -> String {
        format!("/api/projects/{}/subscriptions/", self.project)
    }

    pub async fn call(&self, method: Method, key: Option<&str>, path: &str, body: Option<Value>) -> Reply {
        let mut request = self.http.request(method, self.url(path));
        if let Some(key) = key {
            request = request.bearer_auth(key);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        Reply::read(request.send().await.unwrap()).await
    }

    pub async fn get(&self, key: &str, path: &str) -> Reply {
        self.call(Method::GET, Some(key), path, None).await
    }

    pub async fn post(&self, key: &str, path: &str, body: Value) -> Reply {
        self.call(Method::POST, Some(key), path, Some(body)).await
    }

    pub async fn patch(&self, key: &str, path: &str, body: Value) -> Reply {
        self.call(Method::PATCH, Some(key), path, Some(body)).await
    }

    pub async fn delete(&self, key: &str, path: &str) -> Reply {
        self.call(Method::DELETE, Some(key), path, None).await
    }

    /// Every row of a list, following `next` links.
    pub async fn all(&self, key: &str, path: &str) -> Vec<Value> {
        let mut rows = Vec::new();
        let mut url = Some(self.url(path));
        while let Some(next) = url {
            let reply = Reply::read(self.http.get(&next).bearer_auth(key).send().await.unwrap()).await;
            reply.expect(StatusCode::OK);
            rows.extend(reply.json["results"].as_array().unwrap().iter().cloned());
            url = reply.json["next"].as_str().map(str::to_string);
        }
        rows
    }
}

/// A response: status, raw body and (when it parses) JSON.
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub text: String,
    pub json: Value,
}

impl Reply {
    pub async fn read(response: reqwest::Response) -> Reply {
        let status = response.status();
        let text = response.text().await.unwrap();
        let json = serde_json::from_str(&text).unwrap_or(Value::Null);
        Reply { status, text, json }
    }

    #[track_caller]
    pub fn expect(&self, status: StatusCode) -> &Value {
        assert_eq!(self.status, status, "body: {}", self.text);
        &self.json
    }

    /// Asserts the PostHog error body: status, type, code and attr.
    #[track_caller]
    pub fn expect_error(&self, status: StatusCode, kind: &str, code: &str, attr: Option<&str>) -> &str {
        assert_eq!(self.status, status, "body: {}", self.text);
        let body = self
            .json
            .as_object()
            .unwrap_or_else(|| panic!("not an error body: {}", self.text));
        let mut keys: Vec<&str> = body.keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["attr", "code", "detail", "type"], "body: {}", self.text);
        assert_eq!(body["type"], kind, "body: {}", self.text);
        assert_eq!(body["code"], code, "body: {}", self.text);
        assert_eq!(body["attr"].as_str(), attr, "body: {}", self.text);
        body["detail"].as_str().unwrap()
    }
}

impl TestServer {
    /// Sends raw bytes with a content type, for bodies that are not JSON.
    pub async fn call_raw(
        &self,
        method: Method,
        key: &str,
        path: &str,
        body: Vec<u8>,
        content_type: &str,
    ) -> Reply {
        let request = self
            .http
            .request(method, self.url(path))
            .bearer_auth(key)
            .header("Content-Type", content_type)
            .body(body);
        Reply::read(request.send().await.unwrap()).await
    }
}

/// An API client for `base` with short retry delays, so that retry tests
/// run in well under a second.
pub fn client_for(base: &str, key: &str) -> Client {
    let mut config = ClientConfig::new(base, ApiKey::new(key));
    config.retry = RetryPolicy {
        attempts: 4,
        base_delay: Duration::from_millis(20),
        max_delay: Duration::from_secs(2),
    };
    Client::new(config).unwrap()
}

impl TestServer {
    /// A client of this server with an all-scopes key of the owner.
    pub fn client(&self) -> Client {
        client_for(&self.base, &self.key(&["*"]))
    }
}

/// A child process killed when dropped, so that a failing test leaves no
/// server behind (holding the test runner's output open).
pub struct KillOnDrop(pub Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Runs `orgdeck serve ARGS` and reads its ready line.
/// `orgdeck serve` with the demo data on `db`, on a free port of 127.0.0.1.
pub fn spawn_demo_serve(db: &std::path::Path, log: &std::path::Path) -> (Child, serde_json::Value) {
    let db = db.to_string_lossy();
    spawn_serve(&["--listen", "127.0.0.1:0", "--seed", "demo", "--db", &db], log)
}

pub fn spawn_serve(args: &[&str], log: &std::path::Path) -> (Child, serde_json::Value) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_orgdeck"))
        .arg("serve")
        .args(args)
        .env("ORGDECK_LOG", log)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let ready = serde_json::from_str(&line).unwrap_or_else(|_| panic!("ready line: {line:?}"));
    (child, ready)
}
