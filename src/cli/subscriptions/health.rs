//! `orgdeck subs health`: the health of every subscription of the project,
//! worst first, from a look that reads only what changed since the last
//! one (`crate::health`). `--check` exits 3 when any is failing, partial or
//! auto-disabled, for cron or a monitoring system to page on.

use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use serde::Serialize;

use super::super::Exit;
use super::super::output::{self, Column, Format, fixed, flexible};
use crate::api::Client;
use crate::api::health::{FailedRecipient, Health};
use crate::config::state_dir;
use crate::console::view::format::when as minute;
use crate::health::budget::Budget;
use crate::health::index::Index;
use crate::health::{HealthRow, Look, LookEvent, LookOptions, tally};
use crate::text::{printable, thousands};

/// The flags of `subs health`.
#[derive(Debug, Clone, clap::Args)]
pub struct HealthArgs {
    /// Only these healths (comma list): failing, partial, auto-disabled, unsupported,
    /// overdue, paused, ended, unknown, new, ok.
    #[arg(long, value_name = "HEALTH,...", value_delimiter = ',', value_parser = parse_health)]
    state: Vec<Health>,
    /// Every subscription, the healthy ones too (by default: those that need someone).
    #[arg(long)]
    all: bool,
    /// Read every subscription's deliveries, whatever the last look learnt.
    #[arg(long)]
    full: bool,
    /// Exit 3 when any subscription is failing, partial or auto-disabled (0 otherwise).
    #[arg(long)]
    check: bool,
    /// Requests in flight at once.
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..=64))]
    concurrency: u16,
    /// The most requests the look may make: N/min, N/hour, both, or none
    /// [default: 400/min,4000/hour, under PostHog Cloud's limits].
    #[arg(long, value_name = "RATE", value_parser = |text: &str| text.parse::<Budget>())]
    budget: Option<Budget>,
}

fn parse_health(text: &str) -> Result<Health, String> {
    text.parse()
}

/// The healths shown without `--all` or `--state`: those that need someone.
const NEEDS_SOMEONE: [Health; 5] = [
    Health::Failing,
    Health::Partial,
    Health::AutoDisabled,
    Health::Unsupported,
    Health::Overdue,
];

/// One line of `-o json`.
#[derive(Serialize)]
struct JsonRow<'a> {
    id: i64,
    title: &'a str,
    health: Health,
    since: Option<String>,
    streak: u32,
    last_delivery: Option<String>,
    failed_recipients: &'a [FailedRecipient],
    next_delivery_date: Option<String>,
    fix: Option<&'a str>,
}

const COLUMNS: [Column; 8] = [
    fixed("HEALTH"),
    fixed("SINCE (UTC)"),
    fixed("STREAK"),
    fixed("ID"),
    flexible("TITLE"),
    flexible("TARGET"),
    flexible("FAILED FOR"),
    flexible("FIX"),
];

pub async fn run(
    client: &Client,
    host: &str,
    project: &str,
    args: HealthArgs,
    max_rows: u64,
    format: Format,
) -> anyhow::Result<()> {
    // The index is kept per project as named (`@current` too: subscription
    // ids are unique across projects, and a look forgets those it no
    // longer lists).
    let mut index = Index::open(&state_dir(), host, project)?;
    let stop = Arc::new(AtomicBool::new(false));
    let look = Look {
        client,
        project,
        clock: crate::clock::Clock::system(),
        options: LookOptions {
            concurrency: usize::from(args.concurrency),
            budget: args.budget.unwrap_or_default(),
            full: args.full,
            max_rows,
        },
        stop: stop.clone(),
    };
    // Ctrl-C stops the look between requests; what it learnt is kept.
    let stopper = tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    });
    let progress = std::io::stderr().is_terminal();
    let mut rows: Vec<HealthRow> = Vec::new();
    let mut failing = 0u64;
    let summary = look
        .run(&mut index, |event| match event {
            LookEvent::Row(row) => {
                failing += u64::from(row.health.pages());
                rows.push(row);
            }
            LookEvent::Progress {
                done,
                total,
                requests,
            } if progress => {
                let mut stderr = std::io::stderr().lock();
                let _ = write!(
                    stderr,
                    "\r\x1b[2Kchecked {} of {} · {failing} failing so far · {} requests",
                    thousands(done),
                    thousands(total),
                    thousands(requests)
                );
                let _ = stderr.flush();
            }
            _ => {}
        })
        .await;
    stopper.abort();
    if progress {
        eprint!("\r\x1b[2K");
    }
    let summary = summary?;
    rows.sort_by(HealthRow::order);
    let paging = rows.iter().filter(|row| row.health.pages()).count();
    let shown: Vec<&HealthRow> = rows
        .iter()
        .filter(|row| {
            if !args.state.is_empty() {
                args.state.contains(&row.health)
            } else {
                args.all || NEEDS_SOMEONE.contains(&row.health)
            }
        })
        .collect();
    match format {
        Format::Json => {
            let json: Vec<JsonRow> = shown.iter().map(|row| json_row(row)).collect();
            output::print_json(&json)?;
        }
        Format::Table => {
            let cells: Vec<Vec<String>> = shown.iter().map(|row| cells(row)).collect();
            let mut text = output::table(&COLUMNS, &cells, output::output_width());
            let counts: Vec<String> = tally(rows.iter())
                .into_iter()
                .map(|(health, count)| format!("{count} {health}"))
                .collect();
            text.push_str(&format!(
                "{} of {} subscriptions shown · {} · {} requests{}\n",
                shown.len(),
                rows.len(),
                if counts.is_empty() {
                    "none".into()
                } else {
                    counts.join(" · ")
                },
                summary.requests,
                if summary.no_history {
                    " · this server keeps no delivery history"
                } else {
                    ""
                }
            ));
            output::print(&text)?;
        }
    }
    if summary.stopped {
        eprintln!(
            "orgdeck: stopped after {} of {} subscriptions; what was learnt is kept, and the next look goes on from there",
            summary.read, summary.total
        );
    }
    if args.check && paging > 0 {
        return Err(Exit {
            code: 3,
            message: format!("{paging} subscriptions are failing, partial or auto-disabled"),
        }
        .into());
    }
    Ok(())
}

fn stamp(at: Option<chrono::DateTime<chrono::Utc>>) -> Option<String> {
    at.map(|at| at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}

fn json_row(row: &HealthRow) -> JsonRow<'_> {
    JsonRow {
        id: row.id,
        title: &row.title,
        health: row.health,
        since: stamp(row.since),
        streak: row.streak,
        last_delivery: stamp(row.last_delivery),
        failed_recipients: &row.failed_recipients,
        next_delivery_date: stamp(row.next_delivery_date),
        fix: row.fix.as_deref(),
    }
}

fn cells(row: &HealthRow) -> Vec<String> {
    let failed = row
        .failed_recipients
        .first()
        .map(|first| {
            let more = row.failed_recipients.len() - 1;
            format!(
                "{}: {}{}",
                printable(&first.recipient),
                printable(&first.error),
                if more > 0 {
                    format!(" (+{more})")
                } else {
                    String::new()
                }
            )
        })
        .unwrap_or_default();
    vec![
        row.health.to_string(),
        minute(row.since),
        if row.streak > 0 {
            row.streak.to_string()
        } else {
            String::new()
        },
        row.id.to_string(),
        row.title.clone(),
        row.target.clone(),
        failed,
        row.fix.clone().unwrap_or_default(),
    ]
}
