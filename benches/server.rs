//! The reference server under load: `cargo bench --bench server`.
//!
//! Starts the release binary as its own process with 100,000 synthetic
//! subscriptions and measures, over HTTP on 127.0.0.1:
//! - the latency of a page of 100 at the first, middle and last offset
//!   (sequential requests; p50, p99, max);
//! - the throughput of the list endpoint from 16 concurrent connections.
//!
//! The load generator (reqwest on tokio) shares the machine's cores with the
//! server, so the figures are conservative. Set `BENCH_SECONDS` to change the
//! length of the throughput run (default 10).

#[path = "../tests/support/mod.rs"]
mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

const SUBSCRIPTIONS: u64 = 100_000;
const CONNECTIONS: usize = 16;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index]
}

fn main() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let db = dir.path().join("bench.sqlite");
    let started = Instant::now();
    let count = SUBSCRIPTIONS.to_string();
    let (mut server, ready) = support::spawn_serve(
        &[
            "--listen",
            "127.0.0.1:0",
            "--seed",
            "demo",
            "--generate-subscriptions",
            &count,
            "--db",
            &db.to_string_lossy(),
        ],
        &dir.path().join("log"),
    );
    println!(
        "server ready with {} subscriptions in {:.2?} (seeding and generating included)",
        SUBSCRIPTIONS,
        started.elapsed()
    );
    let base = ready["base_url"].as_str().expect("base_url").to_string();
    let key = ready["api_key"].as_str().expect("api_key").to_string();
    let list = format!("{base}/api/projects/@current/subscriptions/");

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let http = reqwest::Client::new();
        let count = http
            .get(format!("{list}?limit=1"))
            .bearer_auth(&key)
            .send()
            .await
            .expect("count")
            .json::<serde_json::Value>()
            .await
            .expect("json")["count"]
            .as_u64()
            .expect("count");
        println!("list count (not deleted): {count}");

        println!("\npage latency, limit=100, 300 sequential requests each:");
        for (label, offset) in [("first", 0), ("middle", count / 2), ("last", count - 100)] {
            let url = format!("{list}?limit=100&offset={offset}");
            let mut times = Vec::new();
            for _ in 0..300 {
                let at = Instant::now();
                let response = http.get(&url).bearer_auth(&key).send().await.expect("request");
                assert!(response.status().is_success());
                let body = response.bytes().await.expect("body");
                assert!(body.len() > 10_000);
                times.push(at.elapsed());
            }
            times.sort();
            println!(
                "  {label:<6} offset {offset:>6}: p50 {:>8.2?}  p99 {:>8.2?}  max {:>8.2?}",
                percentile(&times, 0.5),
                percentile(&times, 0.99),
                times[times.len() - 1]
            );
        }

        let seconds: u64 = std::env::var("BENCH_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(10);
        for (label, offsets) in [("first page", vec![0]), ("pages across the list", (0..count).step_by(997).collect())] {
            let done = Arc::new(AtomicU64::new(0));
            let failed = Arc::new(AtomicU64::new(0));
            let stop = Arc::new(AtomicBool::new(false));
            let offsets = Arc::new(offsets);
            let mut tasks = Vec::new();
            for connection in 0..CONNECTIONS {
                // One client per task: 16 separate keep-alive connections.
                let http = reqwest::Client::new();
                let (done, failed, stop, offsets) = (done.clone(), failed.clone(), stop.clone(), offsets.clone());
                let (list, key) = (list.clone(), key.clone());
                tasks.push(tokio::spawn(async move {
                    let mut n = connection;
                    while !stop.load(Ordering::Relaxed) {
                        let offset = offsets[n % offsets.len()];
                        n += CONNECTIONS;
                        let url = format!("{list}?limit=100&offset={offset}");
                        match http.get(&url).bearer_auth(&key).send().await {
                            Ok(response) if response.status().is_success() => {
                                let _ = response.bytes().await;
                                done.fetch_add(1, Ordering::Relaxed);
                            }
                            _ => {
                                failed.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                    }
                }));
            }
            let at = Instant::now();
            tokio::time::sleep(Duration::from_secs(seconds)).await;
            stop.store(true, Ordering::Relaxed);
            for task in tasks {
                let _ = task.await;
            }
            let elapsed = at.elapsed().as_secs_f64();
            println!(
                "\nthroughput, {CONNECTIONS} connections, {label}, {seconds} s: {:.0} requests/s ({} ok, {} failed)",
                done.load(Ordering::Relaxed) as f64 / elapsed,
                done.load(Ordering::Relaxed),
                failed.load(Ordering::Relaxed)
            );
        }
    });
    let _ = server.kill();
    let _ = server.wait();
}
