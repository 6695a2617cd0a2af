//! The figures of issue 31 (req 10) for the console's Access tab, through
//! a proxy holding each request and each answer 50 ms (a 100 ms round
//! trip), on the demo grown to 1,000 members, 50 roles and 20 projects
//! with rules: the time to the first cells (the first project read), to
//! the whole grid (every project, every resource), the requests it took,
//! the bytes its cells hold and the peak memory of the test process
//! (read first straight to the server, before the proxy, which runs in
//! the test process, holds answers of its own). Against
//! the release build:
//!
//! ```sh
//! cargo test --release --test console -- --ignored access_grid_figures --nocapture
//! ```

use std::time::{Duration, Instant};

use orgdeck::console::kit::theme::Theme;
use orgdeck::console::screens::ScreenId;
use orgdeck::console::{Context, Driver};
use ratatui::crossterm::event::KeyCode;

use crate::support::proxy::FaultProxy;
use crate::support::{KillOnDrop, client_for, spawn_serve};

/// The process's peak resident memory, in MiB (`VmHWM`).
fn peak_mib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|kib| kib.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kib| kib / 1024)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement: run it against the release build (see the module's comment)"]
async fn access_grid_figures() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("big.sqlite");
    let log = dir.path().join("serve.log");
    let (child, ready) = spawn_serve(
        &[
            "--listen",
            "127.0.0.1:0",
            "--seed",
            "demo",
            "--db",
            db.to_str().unwrap(),
            "--generate-members",
            "960",
            "--generate-roles",
            "42",
            "--generate-projects",
            "18",
        ],
        &log,
    );
    let _server = KillOnDrop(child);
    let base = ready["base_url"].as_str().unwrap().to_string();
    let key = ready["api_key"].as_str().unwrap().to_string();
    // The console alone first (the server is a process of its own): its
    // peak memory, before the proxy's buffers join the process's.
    let (alone, _, _) = grid(&base, &key).await;
    let alone_peak = peak_mib();
    eprintln!("access grid straight to the server: complete {alone:?}, peak {alone_peak} MiB");
    let proxy = FaultProxy::start(&base).await;
    proxy.set_latency(Duration::from_millis(50));
    let (complete, first, said) = grid(&proxy.base, &key).await;
    eprintln!("access grid through the proxy: first cells {first:?}, complete {complete:?}, {said}");
    assert!(first < Duration::from_secs(1), "first cells in {first:?}");
    assert!(complete < Duration::from_secs(10), "complete in {complete:?}");
    assert!(alone_peak < 100, "peak {alone_peak} MiB");
}

/// The console on `host`, the Access tab shown and read whole: the time
/// to the whole grid, to its first cells, and what it says of itself.
async fn grid(host: &str, key: &str) -> (Duration, Duration, String) {
    let context = Context {
        host: "reference server".into(),
        organization: "@current".into(),
        project: "@current".into(),
        ..Context::default()
    };
    let mut driver = Driver::new(client_for(host, key), context, (200, 50), Theme::plain());
    driver.start();
    assert!(driver.settle(Duration::from_secs(60)).await);
    let before = peak_mib();

    let started = Instant::now();
    driver.press(KeyCode::Char('5'));
    let mut first = None;
    let mut framed = None;
    let mut draws = Duration::ZERO;
    let complete = loop {
        let message = tokio::time::timeout(Duration::from_secs(60), driver.next_message())
            .await
            .expect("the grid is read within a minute")
            .expect("the console runs");
        driver.send(message);
        let loaded = driver.app.screens.access.loaded();
        if framed.is_none() && loaded.frame.is_some() {
            framed = Some(started.elapsed());
        }
        if first.is_none() && loaded.done > 0 {
            first = Some(started.elapsed());
        }
        if loaded.asked && !loaded.is_reading() {
            break started.elapsed();
        }
        // The screen is drawn as the loop draws it, at most once a message.
        let drawing = Instant::now();
        let _ = driver.screen();
        draws += drawing.elapsed();
    };
    let screen = driver.screen();
    assert!(!screen.contains(" ·  "), "every cell is read: {screen}");
    let access = &driver.app.screens.access;
    let loaded = access.loaded();
    assert_eq!(driver.app.shown(), ScreenId::Access);
    assert!(loaded.error.is_none(), "{:?}", loaded.error);
    let total = loaded.total().unwrap();
    assert_eq!(total, 20);
    assert_eq!(loaded.done, 20);
    let people = loaded.subjects().len();
    assert!(people >= 1_000, "{people}");
    let first = first.unwrap();
    let said = format!(
        "rows and columns in {:?}, {people} people x {total} projects x {} columns, {} requests, cells {} KiB, drawing {draws:?} in all, \
         peak {} MiB (before the tab: {before} MiB); {}",
        framed.unwrap_or_default(),
        orgdeck::access::grid::column_count(),
        loaded.requests,
        loaded.heap_bytes() / 1024,
        peak_mib(),
        access.heading(),
    );
    (complete, first, said)
}
