//! The console as a person uses it, measured: `cargo bench --bench console_session`.
//!
//! Runs the release binary's reference server with 100,000 synthetic
//! subscriptions, and the console in a pseudo-terminal of 200x50 against it
//! (read back through a vt100 parser), and reports:
//! - how long after start the first rows are on screen, and after `3` the
//!   first subscriptions;
//! - how long after `G` the last row is on screen;
//! - how long after `o` the overdue ones are, and after Enter on one its
//!   deliveries;
//! - CPU time, context switches and bytes drawn over 10 s of idling on the
//!   roles (no relative time on screen: nothing may wake), and over 61 s on
//!   the subscriptions (their "in 3m" ticks once a minute);
//! - CPU time and bytes drawn for 200 `j` presses that arrive together
//!   (drawn once per burst, not once per key);
//! - resident memory after paging through every one of the rows.

// A benchmark's setup that fails has nothing to measure: it stops there, loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../tests/support/mod.rs"]
mod support;

use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

const ROWS: u16 = 50;
const COLUMNS: u16 = 200;

struct Screen {
    parser: Arc<Mutex<vt100::Parser>>,
    bytes: Arc<AtomicU64>,
}

impl Screen {
    fn text(&self) -> String {
        self.parser.lock().expect("parser").screen().contents()
    }

    /// Waits until `done` holds for the screen; returns how long it took.
    fn wait(&self, what: &str, done: impl Fn(&str) -> bool) -> Duration {
        let started = Instant::now();
        while !done(&self.text()) {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "never saw {what}:\n{}",
                self.text()
            );
            std::thread::sleep(Duration::from_micros(500));
        }
        started.elapsed()
    }
}

/// utime + stime in clock ticks (1/100 s), and context switches of all threads.
fn usage(pid: u32) -> (u64, u64) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let fields: Vec<&str> = stat.rsplit(')').next().unwrap_or("").split_whitespace().collect();
    let ticks = fields
        .get(11..13)
        .map(|f| f.iter().filter_map(|t| t.parse::<u64>().ok()).sum())
        .unwrap_or(0);
    let mut switches = 0;
    if let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) {
        for task in tasks.flatten() {
            let status = std::fs::read_to_string(task.path().join("status")).unwrap_or_default();
            switches += status
                .lines()
                .filter(|line| line.contains("ctxt_switches"))
                .filter_map(|line| line.split_whitespace().nth(1)?.parse::<u64>().ok())
                .sum::<u64>();
        }
    }
    (ticks, switches)
}

/// Nanoseconds on a CPU, summed over the process's threads (schedstat:
/// finer than the 10 ms ticks of `stat`).
fn cpu_nanos(pid: u32) -> u64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("schedstat")).ok())
        .filter_map(|line| line.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

fn memory(pid: u32, field: &str) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find(|line| line.starts_with(field))
        .map(|line| line.split_whitespace().skip(1).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "?".into())
}

/// The cursor's position and the count from the subscriptions table's title.
fn position(screen: &str) -> Option<(u64, u64)> {
    let rest = screen
        .split("Subscriptions ")
        .skip(1)
        .find(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))?;
    let (at, rest) = rest.split_once('/')?;
    let count: String = rest.chars().take_while(char::is_ascii_digit).collect();
    Some((at.trim().parse().ok()?, count.parse().ok()?))
}

fn main() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let db = dir.path().join("session.sqlite");
    let (mut server, ready) = support::spawn_serve(
        &[
            "--listen",
            "127.0.0.1:0",
            "--seed",
            "demo",
            "--generate-subscriptions",
            "100000",
            "--db",
            &db.to_string_lossy(),
        ],
        &dir.path().join("server.log"),
    );

    let size = |n| NonZeroU16::new(n).expect("not zero");
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: ROWS,
            cols: COLUMNS,
            pixel_width: 0,
            pixel_height: 0,
        })
        .expect("pty");
    let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_orgdeck"));
    command.env("ORGDECK_HOST", ready["base_url"].as_str().expect("base_url"));
    command.env("ORGDECK_API_KEY", ready["api_key"].as_str().expect("api_key"));
    command.env("ORGDECK_LOG", dir.path().join("console.log"));
    command.env("TERM", "xterm-256color");
    let parser = Arc::new(Mutex::new(vt100::Parser::new(size(ROWS), size(COLUMNS), 0)));
    let bytes = Arc::new(AtomicU64::new(0));
    let mut reader = pair.master.try_clone_reader().expect("reader");
    let (feed, counted) = (parser.clone(), bytes.clone());
    std::thread::spawn(move || {
        let mut buffer = [0u8; 65536];
        while let Ok(read) = reader.read(&mut buffer) {
            if read == 0 {
                break;
            }
            counted.fetch_add(read as u64, Ordering::Relaxed);
            feed.lock().expect("parser").process(&buffer[..read]);
        }
    });
    let started = Instant::now();
    let mut console = pair.slave.spawn_command(command).expect("console");
    let pid = console.process_id().expect("pid");
    let mut keys = pair.master.take_writer().expect("writer");
    let mut press = |text: &str| {
        keys.write_all(text.as_bytes()).expect("keys");
        keys.flush().expect("flush");
    };
    let screen = Screen { parser, bytes };

    screen.wait("the roles", |s| s.contains("Engineering"));
    println!(
        "first rows (roles) on screen {:.0?} after start",
        started.elapsed()
    );
    press("3");
    let first = screen.wait("the first subscriptions", |s| s.contains("Synthetic report"));
    let (_, count) = position(&screen.text()).expect("a count");
    println!("first subscriptions on screen {first:.0?} after pressing 3 ({count} rows)");
    press("G");
    let last = screen.wait("the last row", |s| {
        position(s) == Some((count, count)) && !s.contains("│…")
    });
    println!("last row on screen {last:.0?} after pressing G");
    press("g");
    screen.wait("the first row", |s| {
        position(s) == Some((1, count)) && !s.contains("│…")
    });

    // On-call: the overdue ones in one key, among all of them (ordered by
    // next delivery, they come first: the look stops after them).
    let narrowing = Instant::now();
    press("o");
    screen.wait("the overdue ones", |s| {
        s.contains("Subscriptions · overdue") && s.contains("match in the first") && !s.contains("│…")
    });
    let header = screen
        .text()
        .lines()
        .find(|line| line.contains("Subscriptions · overdue"))
        .and_then(|line| line.split('─').find(|part| part.contains("overdue")))
        .map(|part| part.trim_matches(|c: char| !c.is_alphanumeric()).to_string())
        .unwrap_or_default();
    println!(
        "o: the overdue ones on screen {:.0?} after pressing it ({header})",
        narrowing.elapsed()
    );
    let opening = Instant::now();
    press("\r");
    screen.wait("a subscription's deliveries", |s| {
        s.contains("› deliveries") && (s.contains("TIME (UTC)") || s.contains("no deliveries yet"))
    });
    println!(
        "Enter: its deliveries on screen {:.0?} after pressing it",
        opening.elapsed()
    );
    press("q");
    screen.wait("back on the overdue ones", |s| {
        s.contains("Subscriptions · overdue")
    });
    press("o");
    screen.wait("every subscription", |s| {
        position(s) == Some((1, count)) && !s.contains("│…")
    });

    // 200 `j` arriving together: handled, then drawn once per burst.
    std::thread::sleep(Duration::from_millis(500));
    let (cpu, drawn) = (cpu_nanos(pid), screen.bytes.load(Ordering::Relaxed));
    let burst = Instant::now();
    press(&"j".repeat(200));
    screen.wait("row 201", |s| position(s) == Some((201, count)));
    let shown = burst.elapsed();
    std::thread::sleep(Duration::from_millis(300));
    println!(
        "200 j at once: row 201 on screen after {shown:.0?}, {:.1} ms of CPU, {} bytes drawn",
        (cpu_nanos(pid) - cpu) as f64 / 1e6,
        screen.bytes.load(Ordering::Relaxed) - drawn
    );
    press("g");
    screen.wait("the first row", |s| {
        position(s) == Some((1, count)) && !s.contains("│…")
    });

    let idle = |what: &str, seconds: u64| {
        std::thread::sleep(Duration::from_millis(500));
        let (ticks, switches) = usage(pid);
        let (cpu, drawn) = (cpu_nanos(pid), screen.bytes.load(Ordering::Relaxed));
        std::thread::sleep(Duration::from_secs(seconds));
        let (ticks_after, switches_after) = usage(pid);
        println!(
            "idle {seconds} s on {what}: {:.1} ms of CPU ({} ms by ticks), {} context switches, {} bytes drawn",
            (cpu_nanos(pid) - cpu) as f64 / 1e6,
            (ticks_after - ticks) * 10,
            switches_after - switches,
            screen.bytes.load(Ordering::Relaxed) - drawn
        );
    };
    idle("the subscriptions (relative times shown)", 61);
    press("1");
    screen.wait("the roles", |s| s.contains("Engineering"));
    idle("the roles (no relative time)", 10);
    press("3");
    screen.wait("the subscriptions", |s| position(s).is_some());

    let scrolling = Instant::now();
    let mut presses = 0;
    loop {
        let (at, _) = position(&screen.text()).unwrap_or((0, count));
        if at >= count {
            break;
        }
        press("\x1b[6~"); // PgDn
        presses += 1;
        screen.wait("the next page", |s| {
            position(s).is_some_and(|(now, _)| now > at) && !s.contains("│…")
        });
    }
    println!(
        "paged through all {count} rows ({presses} PgDn, every page drawn) in {:.1?}: resident {} (peak {})",
        scrolling.elapsed(),
        memory(pid, "VmRSS"),
        memory(pid, "VmHWM")
    );

    press("q");
    let quitting = Instant::now();
    while console.try_wait().ok().flatten().is_none() && quitting.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = server.kill();
    let _ = server.wait();
}
