//! The health board's look: `cargo bench --bench health`.
//!
//! - about 1,000 subscriptions through a proxy that holds every read and
//!   write 50 ms (100 ms a round trip, a distant PostHog): a first look
//!   without a budget (`--budget off`, 16 at a time), then a second after
//!   an hour of deliveries, the requests it makes against the first's;
//!   then a first look under the default budget on the system's clock,
//!   against the floor that budget sets;
//! - 90,000 subscriptions through the same proxy: the answer of the list
//!   alone (no delivery read), its time and requests;
//! - about 10,000 subscriptions paced by the default budget (400 a minute,
//!   4,000 an hour) on a manual clock that moves while the look waits,
//!   against PostHog Cloud's limits on the same clock: none throttled.
//!
//! `--proxy HOST:PORT` runs the proxy alone (its address on stdout) for
//! measuring the `orgdeck` binary through it: `farm-bench -- orgdeck subs
//! health --host http://…`. The server runs in this process on its own
//! runtime.

// A benchmark's setup that fails has nothing to measure: it stops there, loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration as StdDuration, Instant};

use chrono::{DateTime, Duration, Utc};
use orgdeck::api::{ApiKey, Client, ClientConfig, Exchange};
use orgdeck::clock::Clock;
use orgdeck::health::budget::Budget;
use orgdeck::health::index::Index;
use orgdeck::health::{Look, LookOptions, LookSummary};
use orgdeck::server::store::{directory, keys};
use orgdeck::server::{self, RunningServer, Seed, ServeOptions};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

struct Fixture {
    running: RunningServer,
    _runtime: tokio::runtime::Runtime,
    _dir: tempfile::TempDir,
    key: String,
}

fn server(seed: Seed, generate: u64, clock: Clock, rate_limit: Option<server::RateLimit>) -> Fixture {
    let dir = tempfile::tempdir().expect("temporary directory");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("server runtime");
    let running = runtime
        .block_on(server::start(ServeOptions {
            listen: "127.0.0.1:0".parse().expect("address"),
            db: dir.path().join("bench.sqlite"),
            seed,
            generate_subscriptions: generate,
            generate_members: 0,
            rate_limit,
            delay: None,
            clock,
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
    Fixture {
        running,
        _runtime: runtime,
        _dir: dir,
        key,
    }
}

/// A TCP proxy that adds 50 ms each way: every chunk goes on 50 ms after
/// it arrived, the chunks behind it not held up any longer.
async fn slow_proxy(upstream: String) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("address"));
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let upstream = upstream.clone();
            tokio::spawn(async move {
                let Ok(server) = TcpStream::connect(&upstream).await else {
                    return;
                };
                let (client_read, client_write) = client.into_split();
                let (server_read, server_write) = server.into_split();
                tokio::spawn(relay(client_read, server_write));
                relay(server_read, client_write).await;
            });
        }
    });
    base
}

async fn relay(mut from: tokio::net::tcp::OwnedReadHalf, mut to: tokio::net::tcp::OwnedWriteHalf) {
    let (chunks, mut arriving) = tokio::sync::mpsc::unbounded_channel::<(tokio::time::Instant, Vec<u8>)>();
    tokio::spawn(async move {
        let mut buffer = vec![0u8; 64 * 1024];
        loop {
            match from.read(&mut buffer).await {
                Ok(0) | Err(_) => return,
                Ok(read) => {
                    let due = tokio::time::Instant::now() + StdDuration::from_millis(50);
                    if chunks.send((due, buffer[..read].to_vec())).is_err() {
                        return;
                    }
                }
            }
        }
    });
    while let Some((due, chunk)) = arriving.recv().await {
        tokio::time::sleep_until(due).await;
        if to.write_all(&chunk).await.is_err() {
            return;
        }
    }
}

fn client(base: &str, key: &str) -> Client {
    Client::new(ClientConfig::new(base, ApiKey::new(key))).expect("client")
}

async fn look(
    client: &Client,
    clock: &Clock,
    index: &mut Index,
    options: LookOptions,
) -> (LookSummary, StdDuration) {
    let started = Instant::now();
    let look = Look {
        client,
        project: "1",
        clock: clock.clone(),
        options,
        stop: Arc::new(AtomicBool::new(false)),
    };
    let summary = look.run(index, |_| {}).await.expect("look");
    (summary, started.elapsed())
}

/// Resident memory of this process, in KiB.
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|line| line.starts_with("VmRSS:"))
                .and_then(|line| line.split_whitespace().nth(1).map(str::to_string))
        })
        .and_then(|kib| kib.parse().ok())
        .unwrap_or(0)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|arg| arg == "--list") {
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    if let Some(at) = args.iter().position(|arg| arg == "--proxy") {
        let upstream = args.get(at + 1).cloned().expect("--proxy HOST:PORT");
        runtime.block_on(async {
            println!("{}", slow_proxy(upstream).await);
            std::future::pending::<()>().await;
        });
        return;
    }
    let start: DateTime<Utc> = orgdeck::api::time::parse_datetime("2026-11-25T08:00:00Z").expect("date");

    // A thousand, far away.
    let clock = Clock::manual(start);
    let fixture = server(Seed::Demo, 1_006, clock.clone(), None);
    let upstream = fixture
        .running
        .ready
        .base_url
        .trim_start_matches("http://")
        .to_string();
    runtime.block_on(async {
        let proxy = slow_proxy(upstream).await;
        let client = client(&proxy, &fixture.key);
        let dir = tempfile::tempdir().expect("dir");
        let mut index = Index::open(dir.path(), &proxy, "1").expect("index");
        let options = LookOptions {
            budget: Budget::UNLIMITED,
            concurrency: LookOptions::concurrency_for(Budget::UNLIMITED),
            ..LookOptions::default()
        };
        let (first, took) = look(&client, &clock, &mut index, options.clone()).await;
        println!(
            "first look, {} subscriptions, 100 ms round trips, no budget: {:.1} s, {} requests, complete: {}, unknown: {}",
            first.coverage.total,
            took.as_secs_f64(),
            first.coverage.requests,
            first.complete(),
            first.unreadable
        );
        clock.advance(Duration::hours(1));
        // Let the server's delivery task record the hour.
        tokio::time::sleep(StdDuration::from_secs(2)).await;
        let (second, took) = look(&client, &clock, &mut index, options).await;
        println!(
            "second look after an hour of deliveries: {} requests ({:.1} % of the first), {} deliveries read, {:.1} s",
            second.coverage.requests,
            100.0 * second.coverage.requests as f64 / first.coverage.requests as f64,
            second.read,
            took.as_secs_f64()
        );
    });
    drop(fixture);

    // The same first look under the default budget, on the system's clock.
    let fixture = server(Seed::Demo, 1_006, Clock::system(), None);
    let upstream = fixture
        .running
        .ready
        .base_url
        .trim_start_matches("http://")
        .to_string();
    runtime.block_on(async {
        let proxy = slow_proxy(upstream).await;
        let client = client(&proxy, &fixture.key);
        let dir = tempfile::tempdir().expect("dir");
        let mut index = Index::open(dir.path(), &proxy, "1").expect("index");
        let (budgeted, took) = look(&client, &Clock::system(), &mut index, LookOptions::default()).await;
        let floor = Budget::default().floor(budgeted.coverage.requests);
        let floor = floor.to_std().unwrap_or_default();
        println!(
            "first look under the default budget (400/min, 4,000/h): {:.1} s for {} requests, the budget's floor {:.1} s (+{:.1} %), complete: {}",
            took.as_secs_f64(),
            budgeted.coverage.requests,
            floor.as_secs_f64(),
            100.0 * (took.as_secs_f64() / floor.as_secs_f64().max(0.001) - 1.0),
            budgeted.complete()
        );
    });
    drop(fixture);

    // Ninety thousand, far away: what the list alone tells.
    let clock = Clock::manual(start);
    let fixture = server(Seed::Demo, 100_000, clock.clone(), None);
    let upstream = fixture
        .running
        .ready
        .base_url
        .trim_start_matches("http://")
        .to_string();
    runtime.block_on(async {
        let proxy = slow_proxy(upstream).await;
        let client = client(&proxy, &fixture.key);
        let dir = tempfile::tempdir().expect("dir");
        let mut index = Index::open(dir.path(), &proxy, "1").expect("index");
        let options = LookOptions {
            max_requests: Some(0),
            ..LookOptions::default()
        };
        let (listed, took) = look(&client, &clock, &mut index, options).await;
        println!(
            "the list alone at {} subscriptions, 100 ms round trips: {:.1} s, {} requests, {} known at once; {}",
            listed.coverage.total,
            took.as_secs_f64(),
            listed.coverage.requests,
            listed.coverage.known,
            listed.coverage.estimate()
        );
    });
    drop(fixture);

    // Ten thousand, paced by the default budget on a clock that moves
    // while the look waits, against PostHog Cloud's own limits on the same
    // clock: not one request may be throttled.
    let clock = Clock::manual(start);
    let fixture = server(
        Seed::Demo,
        11_111,
        clock.clone(),
        Some(server::RateLimit::POSTHOG),
    );
    runtime.block_on(async {
        let throttled = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let observed = client(&fixture.running.ready.base_url, &fixture.key).observed(Arc::new({
            let throttled = throttled.clone();
            move |exchange: &Exchange| {
                if exchange.status == Some(429) {
                    throttled.fetch_add(1, Ordering::Relaxed);
                }
            }
        }));
        let done = Arc::new(AtomicBool::new(false));
        let driver = tokio::spawn({
            let (clock, done) = (clock.clone(), done.clone());
            async move {
                while !done.load(Ordering::Relaxed) {
                    clock.advance(Duration::seconds(1));
                    tokio::time::sleep(StdDuration::from_micros(200)).await;
                }
            }
        });
        let dir = tempfile::tempdir().expect("dir");
        let mut index = Index::open(dir.path(), "bench", "1").expect("index");
        let before = rss_kib();
        let began = clock.now();
        let (summary, took) = look(&observed, &clock, &mut index, LookOptions::default()).await;
        let after = rss_kib();
        done.store(true, Ordering::Relaxed);
        let _ = driver.await;
        println!(
            "look at {} subscriptions under the default budget and PostHog Cloud's limits (480/min, 4,800/hour): {} requests, {} throttled, over {} min of the clock ({:.1} s here), complete: {}; this process (server included) grew by {:.1} MiB; the index is {} KiB",
            summary.coverage.total,
            summary.coverage.requests,
            throttled.load(Ordering::Relaxed),
            (clock.now() - began).num_minutes(),
            took.as_secs_f64(),
            summary.complete(),
            after.saturating_sub(before) as f64 / 1024.0,
            std::fs::metadata(index.path()).map(|meta| meta.len() / 1024).unwrap_or(0)
        );
    });
}
