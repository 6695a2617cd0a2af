//! The health board's look against the reference server on an injected
//! clock: what a second look reads, a look under the server's rate limit,
//! two processes sharing one index, a damaged index, and `subs health` as
//! scripts and cron use it.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use chrono::{DateTime, Duration, Utc};
use orgdeck::api::health::Health;
use orgdeck::api::{Client, Exchange, List, Subscription, SubscriptionFilter};
use orgdeck::clock::Clock;
use orgdeck::health::budget::Budget;
use orgdeck::health::index::Index;
use orgdeck::health::{HealthRow, Look, LookEvent, LookOptions, LookSummary};
use orgdeck::server::store::{directory, keys};
use orgdeck::server::{RateLimit, Seed};
use serde_json::{Value, json};

use crate::support::{TestServer, seeded};

/// The demo on a manual clock, and a client of it.
async fn demo(rate_limit: Option<RateLimit>) -> (TestServer, Clock, Client) {
    let clock = Clock::manual(seeded());
    let shared = clock.clone();
    let server = TestServer::demo_with(move |options| {
        options.clock = shared;
        options.rate_limit = rate_limit;
    })
    .await;
    let client = server.client();
    (server, clock, client)
}

/// One look with `options`, its rows by id and its summary.
async fn look(
    client: &Client,
    project: &str,
    clock: &Clock,
    index: &mut Index,
    options: LookOptions,
) -> (HashMap<i64, HealthRow>, LookSummary) {
    let look = Look {
        client,
        project,
        clock: clock.clone(),
        options,
        stop: Arc::new(AtomicBool::new(false)),
    };
    let mut rows = HashMap::new();
    let summary = look
        .run(index, |event| {
            if let LookEvent::Row(row) = event {
                rows.insert(row.id, row);
            }
        })
        .await
        .unwrap();
    (rows, summary)
}

fn unlimited() -> LookOptions {
    LookOptions {
        budget: Budget::UNLIMITED,
        ..LookOptions::default()
    }
}

/// Every subscription of the project, by id.
async fn listed(client: &Client, project: &str) -> HashMap<i64, Subscription> {
    let list = List::subscriptions(project, &SubscriptionFilter::default());
    client
        .all(&list, &orgdeck::api::FetchAll::default())
        .await
        .unwrap()
        .into_iter()
        .map(|subscription| (subscription.id, subscription))
        .collect()
}

/// Waits (in real time, a few milliseconds at a time) until the server's
/// delivery task has caught up with the clock: no enabled subscription is
/// due within the hour it still delivers.
async fn deliveries_done(client: &Client, project: &str, now: DateTime<Utc>) {
    for _ in 0..500 {
        let due = listed(client, project).await.values().any(|subscription| {
            subscription.enabled != Some(false)
                && subscription
                    .next_delivery_date
                    .is_some_and(|next| next <= now && next > now - Duration::hours(1))
        });
        if !due {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("the delivery task never caught up");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_look_reads_only_what_changed() {
    let (server, clock, client) = demo(None).await;
    let project = server.project.to_string();
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::open(dir.path(), &server.base, &project).unwrap();
    let (first_rows, first) = look(&client, &project, &clock, &mut index, unlimited()).await;
    let pages = first.total.div_ceil(100);
    assert_eq!(first.read, first.total, "a first look reads every subscription");
    assert_eq!(first.requests, pages + first.total);
    let before = listed(&client, &project).await;

    // One hour of deliveries.
    clock.advance(Duration::hours(1));
    deliveries_done(&client, &project, clock.now()).await;
    let after = listed(&client, &project).await;
    let changed: HashSet<i64> = after
        .values()
        .filter(|now| {
            let then = &before[&now.id];
            then.next_delivery_date != now.next_delivery_date || then.enabled != now.enabled
        })
        .map(|subscription| subscription.id)
        .collect();
    assert!(!changed.is_empty(), "something was delivered in the hour");
    let unhealthy: HashSet<i64> = first_rows
        .values()
        .filter(|row| row.health.is_unhealthy())
        .map(|row| row.id)
        .collect();
    let due: HashSet<i64> = after
        .values()
        .filter(|subscription| {
            subscription.enabled != Some(false)
                && subscription
                    .next_delivery_date
                    .is_some_and(|next| next + Duration::minutes(15) < clock.now())
        })
        .map(|subscription| subscription.id)
        .collect();
    let expected: HashSet<i64> = changed.union(&unhealthy).chain(due.iter()).copied().collect();
    let (second_rows, second) = look(&client, &project, &clock, &mut index, unlimited()).await;
    assert_eq!(second.read as usize, expected.len());
    assert_eq!(second.requests, pages + second.read);
    assert!(
        second.requests * 4 < first.requests,
        "{} requests after {}",
        second.requests,
        first.requests
    );
    // Every subscription is on the board, read or remembered.
    assert_eq!(second_rows.len(), after.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_look_under_the_server_s_rate_limit_is_never_throttled() {
    let limit = RateLimit {
        per_minute: 30,
        per_hour: 90,
    };
    let (server, clock, client) = demo(Some(limit)).await;
    let throttled = Arc::new(AtomicU64::new(0));
    let client = client.observed(Arc::new({
        let throttled = throttled.clone();
        move |exchange: &Exchange| {
            if exchange.status == Some(429) {
                throttled.fetch_add(1, Ordering::Relaxed);
            }
        }
    }));
    // Time moves while the look waits on its budget, as it would on a
    // real clock: the server's limit counts on the same clock.
    let done = Arc::new(AtomicBool::new(false));
    let driver = tokio::spawn({
        let (clock, done) = (clock.clone(), done.clone());
        async move {
            while !done.load(Ordering::Relaxed) {
                clock.advance(Duration::milliseconds(500));
                tokio::time::sleep(std::time::Duration::from_millis(1)).await;
            }
        }
    });
    let project = server.project.to_string();
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::open(dir.path(), &server.base, &project).unwrap();
    let started = clock.now();
    let options = LookOptions {
        budget: "25/min,80/hour".parse().unwrap(),
        ..LookOptions::default()
    };
    let (rows, summary) = look(&client, &project, &clock, &mut index, options).await;
    done.store(true, Ordering::Relaxed);
    driver.await.unwrap();
    assert_eq!(throttled.load(Ordering::Relaxed), 0, "no request was throttled");
    assert_eq!(rows.len() as u64, summary.total);
    // More requests than the hour allows: the look waited for the next hour.
    let minutes = (clock.now() - started).num_minutes();
    assert!(
        summary.requests > 80 && minutes >= 60,
        "{} requests in {minutes} min",
        summary.requests
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn looks_that_share_an_index_keep_both_and_a_damaged_one_starts_again() {
    let dir = tempfile::tempdir().unwrap();
    let (host, project) = ("http://127.0.0.1:1", "1");
    let entry = |health: Health, at: DateTime<Utc>| orgdeck::health::index::Entry {
        fingerprint: String::new(),
        looked_at: at,
        assessment: orgdeck::api::health::Assessment {
            health,
            since: None,
            streak: 0,
            last_delivery: None,
            failed_recipients: Vec::new(),
            fix: None,
        },
    };
    let mut one = Index::open(dir.path(), host, project).unwrap();
    let mut two = Index::open(dir.path(), host, project).unwrap();
    one.record(1, entry(Health::Ok, seeded()));
    one.record(3, entry(Health::Ok, seeded()));
    two.record(2, entry(Health::Failing, seeded()));
    two.record(3, entry(Health::Partial, seeded() + Duration::minutes(1)));
    one.save().unwrap();
    two.save().unwrap();
    let both = Index::open(dir.path(), host, project).unwrap();
    assert_eq!(both.len(), 3);
    assert_eq!(both.entry(1).unwrap().assessment.health, Health::Ok);
    assert_eq!(both.entry(2).unwrap().assessment.health, Health::Failing);
    assert_eq!(
        both.entry(3).unwrap().assessment.health,
        Health::Partial,
        "the newer look wins"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(both.path()).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "owner-only: {mode:o}");
    }
    // A subscription no longer listed is forgotten, on disk too, though
    // the file it was read from still had it.
    let mut three = Index::open(dir.path(), host, project).unwrap();
    three.keep_only(&HashSet::from([1, 3]));
    three.save().unwrap();
    let after = Index::open(dir.path(), host, project).unwrap();
    assert_eq!((after.len(), after.entry(2)), (2, None));
    // Damaged: set aside, and the index starts again.
    std::fs::write(both.path(), b"{\"version\": 1, \"entries\": [garbage").unwrap();
    let fresh = Index::open(dir.path(), host, project).unwrap();
    assert!(fresh.is_empty());
    assert!(both.path().with_extension("json.unreadable").exists());
    // Another version's: the same.
    std::fs::write(both.path(), serde_json::to_vec(&json!({"version": 99})).unwrap()).unwrap();
    assert!(Index::open(dir.path(), host, project).unwrap().is_empty());
}

/// `subs health` through the real binary, with a state directory that
/// lasts across runs.
async fn health(
    server: &TestServer,
    key: &str,
    state: &std::path::Path,
    args: &[&str],
) -> (i32, String, String) {
    let args: Vec<&str> = ["subs", "health", "--budget", "none"]
        .iter()
        .chain(args)
        .copied()
        .collect();
    let env = [
        ("ORGDECK_STATE_DIR", state.as_os_str()),
        ("COLUMNS", std::ffi::OsStr::new("200")),
    ];
    let run = crate::cli::orgdeck_at(&server.base, key, &args, None, &env).await;
    (run.code, run.stdout, run.stderr)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subs_health_pages_with_its_exit_code_and_prints_json() {
    let server = TestServer::demo().await;
    let key = server.key(&["subscription:read"]);
    let state = tempfile::tempdir().unwrap();
    // Two processes at once share the index.
    let (a, b) = tokio::join!(
        health(&server, &key, state.path(), &["--check"]),
        health(&server, &key, state.path(), &["-o", "json", "--all"])
    );
    assert_eq!(a.0, 3, "the demo has failures: {}", a.2);
    assert!(a.2.contains("failing, partial or auto-disabled"), "{}", a.2);
    assert!(
        a.1.contains("partial") && a.1.contains("auto-disabled"),
        "{}",
        a.1
    );
    assert_eq!(b.0, 0, "{}", b.2);
    let rows: Vec<Value> = serde_json::from_str(&b.1).unwrap();
    // The keys in the order they are written.
    let first = &b.1[b.1.find('{').unwrap()..];
    let mut keys: Vec<(usize, &str)> = rows[0]
        .as_object()
        .unwrap()
        .keys()
        .map(|key| (first.find(&format!("\"{key}\":")).unwrap(), key.as_str()))
        .collect();
    keys.sort();
    let keys: Vec<&str> = keys.into_iter().map(|(_, key)| key).collect();
    assert_eq!(
        keys,
        [
            "id",
            "title",
            "health",
            "since",
            "streak",
            "last_delivery",
            "failed_recipients",
            "next_delivery_date",
            "fix"
        ]
    );
    // Worst first.
    let healths: Vec<Health> = rows
        .iter()
        .map(|row| serde_json::from_value(row["health"].clone()).unwrap())
        .collect();
    assert!(healths.windows(2).all(|pair| pair[0] <= pair[1]), "{healths:?}");
    let partial = rows.iter().find(|row| row["health"] == "partial").unwrap();
    assert!(partial["failed_recipients"][0]["error"].is_string(), "{partial}");
    let failing_only = health(&server, &key, state.path(), &["--state", "partial", "-o", "json"]).await;
    let failing_only: Vec<Value> = serde_json::from_str(&failing_only.1).unwrap();
    assert!(!failing_only.is_empty() && failing_only.iter().all(|row| row["health"] == "partial"));

    // A project with nothing failing: exit 0.
    let quiet = TestServer::demo_with(|options| options.seed = Seed::None).await;
    let db = quiet.running.db.clone();
    let owner = db.read_blocking(directory::first_owner).unwrap().unwrap();
    let key = db
        .write_blocking(|tx| keys::mint(tx, owner, "test", &["*".to_string()]))
        .unwrap();
    let state = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = health(&quiet, &key, state.path(), &["--check", "--all"]).await;
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("0 of 0 subscriptions shown"), "{stdout}");
}

/// `subs resume` reads the subscription again: one the server pauses at
/// once (its Slack integration is revoked) is said to be, and why, with
/// exit 1; one that stays resumed exits 0.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_says_when_the_server_pauses_it_again() {
    let server = TestServer::demo().await;
    let key = server.key(&["subscription:write"]);
    // #13 "Daily signups" posts through the revoked integration.
    let run = crate::cli::orgdeck(&server, &key, &["subs", "resume", "13"], None).await;
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("resumed subscription 13, but the server paused it again"),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains("paused it again") && run.stderr.contains("Slack integration revoked"),
        "{}",
        run.stderr
    );
    // A paused e-mail one resumes and stays resumed.
    let paused = server
        .get(&key, &format!("{}?limit=200", server.subscriptions_path()))
        .await
        .json["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| {
            row["enabled"] == false && row["target_type"] == "email" && !row["next_delivery_date"].is_null()
        })
        .map(|row| row["id"].to_string())
        .expect("a paused e-mail subscription in the demo");
    let run = crate::cli::orgdeck(&server, &key, &["subs", "resume", &paused], None).await;
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("next delivery"), "{}", run.stdout);
}
