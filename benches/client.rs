//! The client: `cargo bench --bench client`.
//!
//! - decoding a page of 100 subscriptions, as a reference server sends it;
//! - fetching all 10,000 subscriptions of a reference server (100 pages of
//!   100) with the concurrent whole-list fetch, and following `next` one
//!   page at a time, in the same run: once on plain loopback, once with the
//!   server holding each answer 2 ms (`serve --delay 2`, the round trip to a
//!   server in the same cloud region). The server runs in this process on
//!   its own runtime; client and server share the machine's two cores, so on
//!   plain loopback both ways of fetching are bound by CPU, and the CPU time
//!   each takes is printed beside the wall time. `BENCH_CONCURRENCY=N` tries
//!   another number of pages in flight (default: the client's, 8).

// A benchmark's setup that fails has nothing to measure: it stops there, loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use orgdeck::api::{ApiKey, Client, ClientConfig, FetchAll, List, Page, Subscription, SubscriptionFilter};
use orgdeck::server::store::{directory, keys};
use orgdeck::server::{self, RunningServer, Seed, ServeOptions};

struct Fixture {
    _server: RunningServer,
    _server_runtime: tokio::runtime::Runtime,
    _dir: tempfile::TempDir,
    client: Client,
    runtime: tokio::runtime::Runtime,
    list: List<Subscription>,
}

fn fixture(delay: Option<Duration>) -> Fixture {
    let dir = tempfile::tempdir().expect("temporary directory");
    let server_runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("server runtime");
    let running = server_runtime
        .block_on(server::start(ServeOptions {
            listen: "127.0.0.1:0".parse().expect("address"),
            db: dir.path().join("bench.sqlite"),
            seed: Seed::None,
            generate_subscriptions: 11_111, // about 10,000 not soft-deleted
            generate_members: 0,
            rate_limit: None,
            delay,
            clock: orgdeck::clock::Clock::system(),
            public_url: None,
            read_timeouts: Default::default(),
            flavor: Default::default(),
            subscription_limit: None,
            max_limit: None,
            export_cap: orgdeck::server::DEFAULT_EXPORT_CAP,
            access: Default::default(),
            keys_listed: false,
        }))
        .expect("server");
    let db = running.db.clone();
    let owner = db
        .read_blocking(directory::first_owner)
        .expect("owner")
        .expect("an owner");
    let key = db
        .write_blocking(|tx| keys::mint(tx, owner, "bench", &["*".to_string()]))
        .expect("key");
    let client = Client::new(ClientConfig::new(&running.ready.base_url, ApiKey::new(key))).expect("client");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("client runtime");
    let list = List::subscriptions("@current", &SubscriptionFilter::default());
    Fixture {
        _server: running,
        _server_runtime: server_runtime,
        _dir: dir,
        client,
        runtime,
        list,
    }
}

fn decoding(c: &mut Criterion, fixture: &Fixture) {
    let url = fixture
        .client
        .url(&["api", "projects", "@current", "subscriptions"]);
    let body = fixture.runtime.block_on(async {
        let page: Page<Subscription> = fixture.client.page(&fixture.list, 100, 0).await.expect("page");
        assert_eq!(page.results.len(), 100);
        serde_json::to_vec(&page).expect("encode")
    });
    println!("a page of 100 subscriptions from {url} is {} bytes", body.len());
    c.bench_function("decode a page of 100 subscriptions", |b| {
        b.iter(|| {
            let page: Page<Subscription> =
                serde_json::from_slice(std::hint::black_box(&body)).expect("decode");
            page
        })
    });
}

fn fetching(c: &mut Criterion, fixture: &Fixture, label: &str) {
    let count = fixture
        .runtime
        .block_on(fixture.client.page(&fixture.list, 1, 0))
        .expect("count")
        .count;
    println!("the list holds {count} subscriptions ({label})");
    let mut group = c.benchmark_group(format!("fetch every subscription, {label}"));
    group.sample_size(20).measurement_time(Duration::from_secs(10));
    let concurrent = FetchAll {
        concurrency: std::env::var("BENCH_CONCURRENCY")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(FetchAll::default().concurrency),
        ..FetchAll::default()
    };
    group.bench_function("concurrent whole-list fetch", |b| {
        b.iter(|| {
            let rows = fixture
                .runtime
                .block_on(fixture.client.all(&fixture.list, &concurrent))
                .expect("all");
            assert_eq!(rows.len() as u64, count);
        })
    });
    group.bench_function("following next", |b| {
        b.iter(|| {
            let rows = fixture
                .runtime
                .block_on(fixture.client.all_by_next(&fixture.list, 100))
                .expect("next");
            assert_eq!(rows.len() as u64, count);
        })
    });
    group.finish();

    // The ratio, measured side by side in this run.
    let time = |concurrent_fetch: bool| {
        let started = Instant::now();
        for _ in 0..10 {
            fixture.runtime.block_on(async {
                if concurrent_fetch {
                    fixture.client.all(&fixture.list, &concurrent).await.expect("all");
                } else {
                    fixture
                        .client
                        .all_by_next(&fixture.list, 100)
                        .await
                        .expect("next");
                }
            });
        }
        started.elapsed() / 10
    };
    let cpu = || {
        let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
        let fields: Vec<&str> = stat.rsplit(')').next().unwrap_or("").split_whitespace().collect();
        let ticks: f64 = fields
            .get(11..13)
            .map(|f| f.iter().filter_map(|t| t.parse::<f64>().ok()).sum())
            .unwrap_or(0.0);
        Duration::from_secs_f64(ticks / 100.0)
    };
    let before = cpu();
    let fast = time(true);
    let middle = cpu();
    let slow = time(false);
    let after = cpu();
    println!(
        "cpu per run: concurrent {:.2?}, following next {:.2?}",
        (middle - before) / 10,
        (after - middle) / 10
    );
    println!(
        "whole list of {count}, {label}: concurrent {fast:.2?}, following next {slow:.2?}: {:.1}x faster",
        slow.as_secs_f64() / fast.as_secs_f64()
    );
}

fn benches(c: &mut Criterion) {
    let local = fixture(None);
    decoding(c, &local);
    fetching(c, &local, "loopback");
    drop(local);
    let regional = fixture(Some(Duration::from_millis(2)));
    fetching(c, &regional, "2 ms per answer");
}

criterion_group!(client, benches);
criterion_main!(client);
