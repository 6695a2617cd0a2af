//! The reference server under load: `cargo bench --bench server`.
//!
//! Starts the release binary as its own process (today's flavor, the demo
//! data and 100,000 synthetic subscriptions) and measures over HTTP on
//! 127.0.0.1, each scenario from 16 concurrent keep-alive connections:
//! requests per second and the latency p50/p99 of
//! - the first page of the list (what a console opens on);
//! - pages across the whole list;
//! - searches (a mix of common words and rare numbers, each term through
//!   the trigram index);
//! - a filter (`target_type=slack`) and two orderings
//!   (`next_delivery_date`, `-title`);
//! - pages and searches never asked twice, which no remembered answer
//!   helps (the others are answered again from memory until a write).
//!
//! It also times the start with and without the 100,000 generated rows, and
//! the server's CPU time while it idles with no delivery due.
//!
//! The same server holds 50,000 generated members (issue 22): their first
//! page (remembered, and counted afresh after a write each time), searches
//! that find a few and searches that find a thousand, each never asked twice.
//!
//! The load generator (reqwest on tokio) shares the machine's cores with the
//! server, so the figures are conservative. `BENCH_SECONDS` sets the length
//! of each scenario (default 5).

// A benchmark's setup that fails has nothing to measure: it stops there, loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
#[path = "../tests/support/mod.rs"]
mod support;

use common::cpu_time;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const SUBSCRIPTIONS: u64 = 100_000;
const MEMBERS: u64 = 50_000;
const CONNECTIONS: usize = 16;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index]
}

/// Starts `orgdeck serve` on a fresh database; the time to its ready line.
fn start(
    dir: &std::path::Path,
    name: &str,
    generate: u64,
) -> (std::process::Child, serde_json::Value, Duration) {
    let db = dir.join(format!("{name}.sqlite"));
    let count = generate.to_string();
    let members = if generate > 0 { MEMBERS } else { 0 }.to_string();
    let started = Instant::now();
    let (server, ready) = support::spawn_serve(
        &[
            "--listen",
            "127.0.0.1:0",
            "--seed",
            "demo",
            "--generate-subscriptions",
            &count,
            "--generate-members",
            &members,
            "--db",
            &db.to_string_lossy(),
        ],
        &dir.join(format!("{name}.log")),
    );
    (server, ready, started.elapsed())
}

struct Figures {
    per_second: f64,
    /// The server's CPU time per answered request: what the server itself
    /// costs, whatever else the machine is doing.
    cpu_per_request: Duration,
    p50: Duration,
    p99: Duration,
    failed: u64,
}

/// `CONNECTIONS` clients request `urls` in turn for `seconds`.
async fn load(urls: Vec<String>, key: &str, seconds: u64, server: u32) -> Figures {
    let times = Arc::new(Mutex::new(Vec::new()));
    let failed = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let urls = Arc::new(urls);
    let mut tasks = Vec::new();
    for connection in 0..CONNECTIONS {
        // One client per task: 16 separate keep-alive connections.
        let http = reqwest::Client::new();
        let (times, failed, stop, urls) = (times.clone(), failed.clone(), stop.clone(), urls.clone());
        let key = key.to_string();
        tasks.push(tokio::spawn(async move {
            let mut mine = Vec::new();
            let mut n = connection;
            while !stop.load(Ordering::Relaxed) {
                let url = &urls[n % urls.len()];
                n += CONNECTIONS;
                let at = Instant::now();
                match http.get(url).bearer_auth(&key).send().await {
                    Ok(response) if response.status().is_success() => {
                        let _ = response.bytes().await;
                        mine.push(at.elapsed());
                    }
                    _ => {
                        failed.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
            times.lock().expect("times").extend(mine);
        }));
    }
    let at = Instant::now();
    let cpu_from = cpu_time(server);
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    stop.store(true, Ordering::Relaxed);
    for task in tasks {
        let _ = task.await;
    }
    let elapsed = at.elapsed().as_secs_f64();
    let cpu = cpu_time(server).saturating_sub(cpu_from);
    let mut times = std::mem::take(&mut *times.lock().expect("times"));
    times.sort();
    Figures {
        cpu_per_request: cpu / (times.len().max(1) as u32),
        per_second: times.len() as f64 / elapsed,
        p50: percentile(&times, 0.5),
        p99: percentile(&times, 0.99),
        failed: failed.load(Ordering::Relaxed),
    }
}

fn main() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let (mut bare, _, bare_start) = start(dir.path(), "bare", 0);
    let _ = bare.kill();
    let _ = bare.wait();
    let (mut server, ready, full_start) = start(dir.path(), "bench", SUBSCRIPTIONS);
    println!(
        "start: demo alone {bare_start:.2?}; with {SUBSCRIPTIONS} generated subscriptions {full_start:.2?} \
         (generating: {:.2?})",
        full_start.saturating_sub(bare_start)
    );
    let base = ready["base_url"].as_str().expect("base_url").to_string();
    let key = ready["api_key"].as_str().expect("api_key").to_string();
    let list = format!("{base}/api/projects/@current/subscriptions/");
    let seconds: u64 = std::env::var("BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let count = reqwest::Client::new()
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

        let idle_from = cpu_time(server.id());
        tokio::time::sleep(Duration::from_secs(seconds)).await;
        println!(
            "idle {seconds} s, no delivery due: {:?} CPU",
            cpu_time(server.id()).saturating_sub(idle_from)
        );

        let common = [
            "synthetic",
            "weekly",
            "revenue",
            "growth review",
            "report 7",
            "funnel",
            "zz",
            "churn",
        ];
        let searches: Vec<String> = (0..400u64)
            .map(|n| {
                let search = if n % 2 == 0 {
                    common[(n / 2) as usize % common.len()].to_string()
                } else {
                    format!("report {}", (n * 7919) % SUBSCRIPTIONS)
                };
                format!("{list}?search={}", search.replace(' ', "%20"))
            })
            .collect();
        let scenarios: Vec<(&str, Vec<String>)> = vec![
            ("first page", vec![list.clone()]),
            (
                "pages across the list",
                (0..count)
                    .step_by(997)
                    .map(|offset| format!("{list}?offset={offset}"))
                    .collect(),
            ),
            ("search", searches),
            // Never the same question twice: no remembered answer helps.
            (
                "distinct pages (uncached)",
                (0..20_000u64).map(|n| format!("{list}?offset={}", (n * 4_099) % count)).collect(),
            ),
            (
                "distinct searches (uncached)",
                (0..20_000u64)
                    .map(|n| format!("{list}?search=report%20{}", (n * 7_919 + 13) % SUBSCRIPTIONS))
                    .collect(),
            ),
            ("target_type=slack", vec![format!("{list}?target_type=slack")]),
            (
                "ordering=next_delivery_date",
                vec![format!("{list}?ordering=next_delivery_date")],
            ),
            ("ordering=-title", vec![format!("{list}?ordering=-title")]),
        ];
        println!("\n{CONNECTIONS} connections, {seconds} s each, pages of 100:");
        for (label, urls) in scenarios {
            let figures = load(urls, &key, seconds, server.id()).await;
            println!(
                "  {label:<28} {:>6.0} requests/s  p50 {:>9.2?}  p99 {:>9.2?}  server CPU {:>8.2?}/request  ({} failed)",
                figures.per_second, figures.p50, figures.p99, figures.cpu_per_request, figures.failed
            );
        }
        members(&base, &key, seconds, server.id()).await;
    });
    let _ = server.kill();
    let _ = server.wait();
}

/// The members list at 50,000 people: what each answer costs the server.
async fn members(base: &str, key: &str, seconds: u64, server: u32) {
    let organization = reqwest::Client::new()
        .get(format!("{base}/api/organizations/@current/"))
        .bearer_auth(key)
        .send()
        .await
        .expect("organization")
        .json::<serde_json::Value>()
        .await
        .expect("json")["id"]
        .as_str()
        .expect("id")
        .to_string();
    let list = format!("{base}/api/organizations/{organization}/members/");
    let names = [
        "amelia", "aiko", "chen", "garcia", "nguyen", "olsen", "patel", "smith", "kowal", "elena",
    ];
    let scenarios: Vec<(&str, Vec<String>)> = vec![
        ("members: first page", vec![list.clone()]),
        (
            "members: a few found (uncached)",
            (0..20_000u64)
                .map(|n| format!("{list}?search=.{}@", 1_000 + (n * 7_919) % 49_000))
                .collect(),
        ),
        (
            "members: ~1,000 found (cached)",
            names.iter().map(|name| format!("{list}?search={name}")).collect(),
        ),
    ];
    println!("\n{MEMBERS} generated members, {CONNECTIONS} connections, {seconds} s each, pages of 100:");
    for (label, urls) in scenarios {
        let figures = load(urls, key, seconds, server).await;
        println!(
            "  {label:<34} {:>6.0} requests/s  p50 {:>9.2?}  p99 {:>9.2?}  server CPU {:>8.2?}/request  ({} failed)",
            figures.per_second, figures.p50, figures.p99, figures.cpu_per_request, figures.failed
        );
    }
    // Counted afresh: a write before each page empties what the server
    // remembers. The writes alone are timed too, and taken away.
    let http = reqwest::Client::new();
    let someone = http
        .get(format!("{list}?search=.1234@"))
        .bearer_auth(key)
        .send()
        .await
        .expect("someone")
        .json::<serde_json::Value>()
        .await
        .expect("json")["results"][0]["user"]["uuid"]
        .as_str()
        .expect("uuid")
        .to_string();
    let write = || {
        http.patch(format!("{list}{someone}/"))
            .bearer_auth(key)
            .json(&serde_json::json!({"level": 1}))
            .send()
    };
    const ROUNDS: u32 = 400;
    let from = cpu_time(server);
    for _ in 0..ROUNDS {
        write().await.expect("write");
    }
    let writes = cpu_time(server).saturating_sub(from);
    for (label, url) in [
        ("first page", list.clone()),
        ("a search finding ~1,000", format!("{list}?search=elena")),
        ("a search finding none", format!("{list}?search=zzzz")),
    ] {
        let from = cpu_time(server);
        let started = Instant::now();
        for _ in 0..ROUNDS {
            write().await.expect("write");
            let page = http.get(&url).bearer_auth(key).send().await.expect("page");
            assert!(page.status().is_success());
            let _ = page.bytes().await;
        }
        let both = cpu_time(server).saturating_sub(from);
        println!(
            "  members: {label:<24} counted afresh (after a write): server CPU {:>8.2?}/request, \
             {:.2?} a write and a read",
            both.saturating_sub(writes) / ROUNDS,
            started.elapsed() / ROUNDS
        );
    }
}
