//! The health board's look against the reference server on an injected
//! clock: what the list alone settles (no delivery asked), the likely-bad
//! asked first (counted through a proxy), a capped look gone on from by
//! the next, a second look after a delivery cycle, a look under the
//! server's rate limit, a read with no answer, and the server going away
//! mid-look.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Duration, Utc};
use orgdeck::api::health::Health;
use orgdeck::api::{Client, Exchange, List, Subscription, SubscriptionFilter, TargetType};
use orgdeck::clock::Clock;
use orgdeck::health::budget::Budget;
use orgdeck::health::index::Index;
use orgdeck::health::{Coverage, HealthRow, Look, LookEvent, LookOptions, LookSummary};
use orgdeck::server::{RateLimit, Seed};

use crate::support::proxy::{Fault, FaultProxy};
use crate::support::{TestServer, client_for, seeded};

/// The demo (or a bare project) with `generated` subscriptions more, on a
/// manual clock, and a client of it.
async fn server(seed: Seed, generated: u64, rate_limit: Option<RateLimit>) -> (TestServer, Clock, Client) {
    let clock = Clock::manual(seeded());
    let shared = clock.clone();
    let server = TestServer::demo_with(move |options| {
        options.seed = seed;
        options.clock = shared;
        options.generate_subscriptions = generated;
        options.rate_limit = rate_limit;
    })
    .await;
    let client = client_for(&server.base, &owner_key(&server));
    (server, clock, client)
}

/// What one look told: the last row of each subscription, the coverage
/// when the list was read, and the summary.
struct Seen {
    rows: HashMap<i64, HealthRow>,
    listed: Option<Coverage>,
    summary: LookSummary,
}

async fn look(
    client: &Client,
    project: &str,
    clock: &Clock,
    index: &mut Index,
    options: LookOptions,
) -> Seen {
    let look = Look {
        client,
        project,
        clock: clock.clone(),
        options,
        stop: Arc::new(AtomicBool::new(false)),
    };
    let mut rows = HashMap::new();
    let mut listed = None;
    let summary = look
        .run(index, |event| match event {
            LookEvent::Row(row) => {
                rows.insert(row.id, row);
            }
            LookEvent::Listed(coverage) => listed = Some(coverage),
            _ => {}
        })
        .await
        .unwrap();
    Seen {
        rows,
        listed,
        summary,
    }
}

fn unlimited() -> LookOptions {
    LookOptions {
        budget: Budget::UNLIMITED,
        ..LookOptions::default()
    }
}

/// A client that writes down the path of every request it sends, in the
/// order they end.
fn recording(client: &Client) -> (Client, Arc<Mutex<Vec<String>>>) {
    let paths = Arc::new(Mutex::new(Vec::new()));
    let observed = client.observed(Arc::new({
        let paths = paths.clone();
        move |exchange: &Exchange| paths.lock().unwrap().push(exchange.request.path.clone())
    }));
    (observed, paths)
}

/// The subscriptions whose deliveries these paths (or request lines) read,
/// in order.
fn deliveries_read<'a>(lines: impl IntoIterator<Item = &'a String>) -> Vec<i64> {
    lines
        .into_iter()
        .filter_map(|line| {
            let path = line
                .split_whitespace()
                .find(|part| part.starts_with('/'))
                .unwrap_or(line);
            let rest = path.split("/subscriptions/").nth(1)?;
            let (id, tail) = rest.split_once('/')?;
            tail.starts_with("deliveries").then(|| id.parse().ok()).flatten()
        })
        .collect()
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
async fn the_list_alone_classifies_ten_thousand_without_asking_for_a_delivery() {
    let (server, clock, client) = server(Seed::Demo, 11_111, None).await;
    let (client, paths) = recording(&client);
    let project = server.project.to_string();
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::open(dir.path(), &server.base, &project).unwrap();
    let options = LookOptions {
        max_requests: Some(0),
        ..LookOptions::default()
    };
    let seen = look(&client, &project, &clock, &mut index, options).await;
    let paths = paths.lock().unwrap().clone();
    let subscriptions = listed(&client, &project).await;
    let total = subscriptions.len() as u64;
    assert!(total > 10_000, "{total}");
    assert_eq!(
        deliveries_read(&paths),
        Vec::<i64>::new(),
        "no delivery was asked for"
    );
    // The integrations, and the list in pages of 1,000 (one asked ahead
    // past the end, at most).
    let pages = total.div_ceil(1_000);
    assert!(
        (1 + pages..=2 + pages).contains(&(paths.len() as u64)),
        "{paths:?}"
    );
    // What the look says it asked is what it sent.
    assert_eq!(seen.summary.coverage.requests, paths.len() as u64);
    assert_eq!(seen.rows.len() as u64, total, "every subscription has its row");
    // What the fields settle, each as the list says.
    let now = clock.now();
    for subscription in subscriptions.values() {
        let row = &seen.rows[&subscription.id];
        let enabled = subscription.enabled != Some(false);
        let expected = match (
            &subscription.target_type,
            enabled,
            subscription.next_delivery_date,
        ) {
            (Some(TargetType::Webhook | TargetType::Other(_)), _, _) => Some(Health::Unsupported),
            // The old workspace's integration is revoked (the demo's #2 is the working one).
            (Some(TargetType::Slack), false, _) if subscription.integration_id != Some(2) => {
                Some(Health::AutoDisabled)
            }
            (Some(TargetType::Slack), true, _) if subscription.integration_id != Some(2) => {
                Some(Health::Failing)
            }
            (_, false, _) => Some(Health::Paused),
            (_, true, None) => Some(Health::Ended),
            (_, true, Some(next)) if next + Duration::minutes(15) < now => Some(Health::Overdue),
            _ => None,
        };
        match expected {
            Some(health) => assert_eq!((row.health, row.pending), (health, false), "#{}", subscription.id),
            None => assert_eq!(
                (row.health, row.pending),
                (Health::Unknown, true),
                "#{}",
                subscription.id
            ),
        }
    }
    let settled = seen.rows.values().filter(|row| !row.pending).count() as u64;
    assert!(
        settled >= 10,
        "the demo's stories are settled by the list: {settled}"
    );
    let summary = &seen.summary;
    assert!(!summary.complete());
    assert_eq!(summary.short_of().as_deref(), Some("only the list was read"));
    assert_eq!(summary.coverage.known, settled);
    assert_eq!(summary.coverage.left, total - settled);
    let listed = seen.listed.unwrap();
    assert_eq!(
        (listed.known, listed.left),
        (summary.coverage.known, summary.coverage.left)
    );
    // Under the default budget the rest takes hours, and the estimate says so.
    assert!(
        summary.coverage.estimate().contains("complete in ~"),
        "{}",
        summary.coverage.estimate()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_likely_bad_are_asked_first() {
    let (server, clock, _) = server(Seed::Demo, 2_000, None).await;
    let proxy = FaultProxy::start(&server.base).await;
    let client = client_for(&proxy.base, &server.key(&["*"]));
    let project = server.project.to_string();
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::open(dir.path(), &server.base, &project).unwrap();
    let one_at_a_time = LookOptions {
        concurrency: 1,
        ..unlimited()
    };
    let first = look(&client, &project, &clock, &mut index, one_at_a_time.clone()).await;
    assert!(first.summary.complete(), "{:?}", first.summary.short_of());
    let asked = deliveries_read(&proxy.requests());
    // The generated subscriptions' seeded history: one in 400 partial, one in
    // 400 failing (src/server/demo/generate.rs), each mailing several people.
    let generated_bad: HashSet<i64> = first
        .rows
        .values()
        .filter(|row| {
            row.title.starts_with("Synthetic") && matches!(row.health, Health::Failing | Health::Partial)
        })
        .map(|row| row.id)
        .collect();
    assert_eq!(generated_bad.len(), 10, "the seeded history");
    let first_asked: HashSet<i64> = asked.iter().take(40).copied().collect();
    assert!(
        generated_bad.is_subset(&first_asked),
        "of {} requests, the first 40 missed {:?}",
        asked.len(),
        generated_bad.difference(&first_asked).collect::<Vec<_>>()
    );

    // After a delivery cycle, the next look asks the unhealthy ones first.
    let read_first: HashSet<i64> = asked.iter().copied().collect();
    let unhealthy: HashSet<i64> = first
        .rows
        .values()
        .filter(|row| read_first.contains(&row.id) && matches!(row.health, Health::Failing | Health::Partial))
        .map(|row| row.id)
        .collect();
    clock.advance(Duration::hours(1));
    deliveries_done(&client, &project, clock.now()).await;
    let before = proxy.requests().len();
    let second = look(&client, &project, &clock, &mut index, one_at_a_time).await;
    assert!(second.summary.complete());
    let asked: Vec<i64> = deliveries_read(&proxy.requests()[before..]);
    let first_asked: HashSet<i64> = asked.iter().take(unhealthy.len()).copied().collect();
    assert_eq!(first_asked, unhealthy, "the unhealthy of the last look first");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_look_capped_at_50_is_gone_on_from_by_the_next() {
    let (server, clock, client) = server(Seed::Demo, 2_000, None).await;
    let (client, paths) = recording(&client);
    let project = server.project.to_string();
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::open(dir.path(), &server.base, &project).unwrap();
    let capped = LookOptions {
        max_requests: Some(50),
        ..unlimited()
    };
    let first = look(&client, &project, &clock, &mut index, capped.clone()).await;
    let read_first: Vec<i64> = deliveries_read(paths.lock().unwrap().iter());
    assert_eq!(read_first.len(), 50);
    let summary = &first.summary;
    assert!(summary.capped && !summary.complete());
    assert_eq!(
        summary.short_of().as_deref(),
        Some("stopped at the request limit")
    );
    let settled = first.listed.unwrap().known;
    assert_eq!(summary.coverage.known, settled + 50);
    assert_eq!(summary.coverage.left, summary.coverage.total - settled - 50);

    paths.lock().unwrap().clear();
    let second = look(&client, &project, &clock, &mut index, capped).await;
    let read_second: Vec<i64> = deliveries_read(paths.lock().unwrap().iter());
    assert_eq!(read_second.len(), 50);
    let overlap: Vec<&i64> = read_second.iter().filter(|id| read_first.contains(id)).collect();
    assert!(overlap.is_empty(), "read twice: {overlap:?}");
    assert_eq!(
        second.summary.coverage.known,
        settled + 100,
        "what the first learnt is kept"
    );

    paths.lock().unwrap().clear();
    let third = look(&client, &project, &clock, &mut index, unlimited()).await;
    let read_third = deliveries_read(paths.lock().unwrap().iter());
    assert!(third.summary.complete());
    let total = third.summary.coverage.total;
    // The rest, then the details of those the list settled.
    assert_eq!(read_third.len() as u64, total - 100);
    let all: HashSet<i64> = read_first
        .iter()
        .chain(&read_second)
        .chain(&read_third)
        .copied()
        .collect();
    assert_eq!(all.len() as u64, total, "each read once across the three");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_look_after_a_delivery_cycle_reads_only_what_changed() {
    let (server, clock, client) = server(Seed::Demo, 0, None).await;
    let project = server.project.to_string();
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::open(dir.path(), &server.base, &project).unwrap();
    let first = look(&client, &project, &clock, &mut index, unlimited()).await;
    assert!(first.summary.complete());
    let total = first.summary.coverage.total;
    // All the list leaves, then the details of what it settled.
    assert_eq!(first.summary.read, total, "a first look reads each once");
    assert_eq!(first.summary.coverage.requests, 1 + 1 + first.summary.read);
    let before = listed(&client, &project).await;

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
    let unhealthy: HashSet<i64> = first
        .rows
        .values()
        .filter(|row| row.health.is_unhealthy())
        .map(|row| row.id)
        .collect();
    let (client, paths) = recording(&client);
    let second = look(&client, &project, &clock, &mut index, unlimited()).await;
    assert!(second.summary.complete());
    let read: HashSet<i64> = deliveries_read(paths.lock().unwrap().iter())
        .into_iter()
        .collect();
    let expected: HashSet<i64> = changed.union(&unhealthy).copied().collect();
    assert!(
        read.is_subset(&expected),
        "read beyond what changed: {:?}",
        read.difference(&expected)
    );
    assert!(
        second.summary.coverage.requests * 4 < first.summary.coverage.requests,
        "{} requests after {}",
        second.summary.coverage.requests,
        first.summary.coverage.requests
    );
    assert_eq!(
        second.rows.len(),
        after.len(),
        "every subscription is on the board"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_look_under_the_server_s_rate_limit_is_never_throttled() {
    let limit = RateLimit {
        per_minute: 30,
        per_hour: 90,
    };
    let (server, clock, client) = server(Seed::Demo, 0, Some(limit)).await;
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
    let seen = look(&client, &project, &clock, &mut index, options).await;
    done.store(true, Ordering::Relaxed);
    driver.await.unwrap();
    assert_eq!(throttled.load(Ordering::Relaxed), 0, "no request was throttled");
    assert!(seen.summary.complete());
    assert_eq!(seen.rows.len() as u64, seen.summary.coverage.total);
    // More requests than the hour allows: the look waited for the next hour.
    let minutes = (clock.now() - started).num_minutes();
    assert!(
        seen.summary.coverage.requests > 80 && minutes >= 60,
        "{} requests in {minutes} min",
        seen.summary.coverage.requests
    );
}

/// An all-scopes key of the first owner (a bare project's is not the demo's).
pub fn owner_key(server: &TestServer) -> String {
    use orgdeck::server::store::{directory, keys};
    let db = server.running.db.clone();
    let owner = db.read_blocking(directory::first_owner).unwrap().unwrap();
    db.write_blocking(|tx| keys::mint(tx, owner, "test", &["*".to_string()]))
        .unwrap()
}

/// One subscription of a bare project, healthy, through a proxy.
async fn one_healthy() -> (TestServer, Clock, FaultProxy, Client) {
    let (server, clock, _) = server(Seed::None, 1, None).await;
    let proxy = FaultProxy::start(&server.base).await;
    let mut config =
        orgdeck::api::ClientConfig::new(&proxy.base, orgdeck::api::ApiKey::new(owner_key(&server)));
    config.timeout = std::time::Duration::from_millis(300);
    config.retry.base_delay = std::time::Duration::from_millis(20);
    let client = Client::new(config).unwrap();
    (server, clock, proxy, client)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_with_no_answer_is_tried_again_then_named_with_its_time() {
    let (server, clock, proxy, client) = one_healthy().await;
    let project = server.project.to_string();
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::open(dir.path(), &server.base, &project).unwrap();
    proxy.push_on("/deliveries/", Fault::Hang);
    let seen = look(&client, &project, &clock, &mut index, unlimited()).await;
    assert!(seen.summary.complete(), "{:?}", seen.summary.short_of());
    assert_eq!(deliveries_read(&proxy.requests()).len(), 2, "tried again");
    assert!(seen.rows.values().all(|row| row.health == Health::Ok));

    for _ in 0..3 {
        proxy.push_on("/deliveries/", Fault::Hang);
    }
    let full = LookOptions {
        full: true,
        ..unlimited()
    };
    let seen = look(&client, &project, &clock, &mut index, full).await;
    assert_eq!(seen.summary.unreadable, 1);
    assert!(!seen.summary.complete());
    let row = seen.rows.values().next().unwrap();
    assert_eq!(row.health, Health::Unknown);
    let fix = row.fix.clone().unwrap();
    assert!(
        fix.contains("could not be read") && fix.contains("0.3 s"),
        "{fix}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_going_away_cuts_a_look_and_the_next_goes_on() {
    let (server, clock, _) = server(Seed::Demo, 0, None).await;
    let proxy = FaultProxy::start(&server.base).await;
    let client = client_for(&proxy.base, &server.key(&["*"]));
    let project = server.project.to_string();
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::open(dir.path(), &server.base, &project).unwrap();
    // The first read's connection breaks, each of its four tries.
    for _ in 0..4 {
        proxy.push_on("/deliveries/", Fault::ForwardThenDrop);
    }
    let one_at_a_time = LookOptions {
        concurrency: 1,
        ..unlimited()
    };
    let cut = look(&client, &project, &clock, &mut index, one_at_a_time.clone()).await;
    assert!(
        cut.summary
            .cut
            .as_ref()
            .and_then(|error| error.unreachable())
            .is_some()
    );
    assert!(!cut.summary.complete());
    assert!(
        cut.summary
            .short_of()
            .unwrap()
            .starts_with("the server stopped answering")
    );
    assert_eq!(cut.summary.read, 0, "nothing read after it went away");
    let again = look(&client, &project, &clock, &mut index, one_at_a_time).await;
    assert!(again.summary.complete());
}
