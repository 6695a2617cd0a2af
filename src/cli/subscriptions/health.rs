//! `orgdeck subs health`: the health of every subscription of the project,
//! worst first, from a look that tells what the list settles at once and
//! then reads the deliveries of the rest, the likely-bad first
//! (`crate::health`).
//!
//! On a terminal, each row that needs someone is printed as it is found,
//! and the sorted table at the end; progress and the estimate go to
//! stderr. `-o json` prints one object at the end: `{"complete",
//! "looked_at", "total", "subscriptions": [...]}`. `--check` exits 0 only
//! after a complete look found nothing failing, partial or auto-disabled,
//! 3 when it found some, 4 when the look did not reach every subscription
//! and found none.

use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use serde::Serialize;

use super::super::Exit;
use super::super::output::{self, Column, Format, fixed, flexible};
use crate::api::Client;
use crate::api::health::{FailedRecipient, Health};
use crate::config::state_dir;
use crate::display::{Zone, when};
use crate::health::budget::Budget;
use crate::health::index::Index;
use crate::health::{Coverage, HealthRow, Look, LookEvent, LookOptions, LookSummary};
use crate::text::{printable, thousands};

/// The exit status of `--check` when something is failing, partial or
/// auto-disabled.
pub const UNHEALTHY: u8 = 3;
/// The exit status of `--check` when the look did not reach every
/// subscription and found nothing unhealthy among those it did.
pub const INCOMPLETE: u8 = 4;

/// The flags of `subs health`.
#[derive(Debug, Clone, clap::Args)]
#[command(
    after_long_help = "Exit status with --check: 0 after a complete look found nothing failing, \
partial or auto-disabled; 3 when it found any (the look complete or not); 4 when the look did not reach \
every subscription (stopped, --max-requests, the server gone, deliveries unreadable) and found none among \
those it reached; 1 for any other failure."
)]
pub struct HealthArgs {
    /// Only these healths (comma list): failing, partial, auto-disabled, unsupported,
    /// overdue, paused, ended, unknown, new, ok.
    #[arg(long, value_name = "HEALTH,...", value_delimiter = ',', value_parser = parse_health)]
    state: Vec<Health>,
    /// Every subscription, the healthy ones too (by default: those that need
    /// someone, the new ones, and those whose deliveries could not be read).
    #[arg(long)]
    all: bool,
    /// Read every subscription's deliveries, whatever the last look learnt.
    #[arg(long)]
    full: bool,
    /// Exit 0 only after a complete look found nothing failing, partial or
    /// auto-disabled; 3 when it found some; 4 when the look was not complete
    /// and found none.
    #[arg(long)]
    check: bool,
    /// Stop after N delivery requests (the list is always read whole); the
    /// next look goes on where this one stopped.
    #[arg(long, value_name = "N")]
    max_requests: Option<u64>,
    /// Requests in flight at once [default: 8; 16 with `--budget off`].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=64))]
    concurrency: Option<u16>,
    /// The most requests the look may make: N/min, N/hour, both, or none (also
    /// `off`) [default: 400/min,4000/hour, under PostHog Cloud's limits].
    #[arg(long, value_name = "RATE", value_parser = |text: &str| text.parse::<Budget>())]
    budget: Option<Budget>,
}

fn parse_health(text: &str) -> Result<Health, String> {
    text.parse()
}

/// The healths shown without `--all` or `--state`: those that need
/// someone, and the new ones (never delivered: is it working?).
const SHOWN: [Health; 7] = [
    Health::Failing,
    Health::Partial,
    Health::AutoDisabled,
    Health::Unsupported,
    Health::Overdue,
    Health::Unknown,
    Health::New,
];

/// One row of `-o json`.
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

/// What `-o json` prints.
#[derive(Serialize)]
struct JsonLook<'a> {
    complete: bool,
    looked_at: u64,
    total: u64,
    subscriptions: Vec<JsonRow<'a>>,
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

/// What the look has found so far: the rows shown, and each
/// subscription's health for the counts.
struct Found<'a> {
    args: &'a HealthArgs,
    shown: HashMap<i64, HealthRow>,
    healths: HashMap<i64, Health>,
    /// Unhealthy rows are printed as found (a terminal, a table).
    stream: bool,
    /// Progress on stderr.
    progress: bool,
    progress_shown: bool,
    last_progress: Option<std::time::Instant>,
    coverage: Coverage,
    listing: Option<(u64, u64)>,
}

impl Found<'_> {
    fn shows(&self, row: &HealthRow) -> bool {
        if !self.args.state.is_empty() {
            return self.args.state.contains(&row.health) && (!row.pending || self.args.all);
        }
        self.args.all || (!row.pending && SHOWN.contains(&row.health))
    }

    fn paging(&self) -> usize {
        self.healths.values().filter(|health| health.pages()).count()
    }

    fn take(&mut self, event: LookEvent) {
        match event {
            LookEvent::Listing { read, total } => {
                self.listing = Some((read, total));
                self.draw(false);
            }
            LookEvent::Listed(coverage) | LookEvent::Progress(coverage) => {
                self.coverage = coverage;
                self.listing = None;
                self.draw(false);
            }
            LookEvent::Row(row) => {
                if row.pending {
                    self.healths.remove(&row.id);
                } else {
                    self.healths.insert(row.id, row.health);
                }
                if self.shows(&row) {
                    let before = self.shown.get(&row.id).map(|shown| shown.health);
                    if self.stream && !row.pending && before != Some(row.health) {
                        self.stream_row(&row);
                    }
                    self.shown.insert(row.id, row);
                } else {
                    self.shown.remove(&row.id);
                }
            }
            LookEvent::States(_) => {}
        }
    }

    /// One row as it is found, what fixes it before who it fails for (a
    /// line cut at the terminal's width keeps the fix): "failing  #12
    /// Weekly KPIs → address does not exist: … · b@x: Domain … does not
    /// exist".
    fn stream_row(&mut self, row: &HealthRow) {
        self.clear_progress();
        let mut line = format!("{:<13} #{} {}", row.health.as_str(), row.id, row.title);
        if let Some(fix) = &row.fix {
            line.push_str(&format!(" → {fix}"));
        }
        let failed = failed_for(row);
        if !failed.is_empty() {
            line.push_str(&format!(" · {failed}"));
        }
        let width = output::output_width().unwrap_or(usize::MAX);
        let mut stdout = std::io::stdout().lock();
        let _ = writeln!(stdout, "{}", output::fit(&printable(&line), width));
        let _ = stdout.flush();
        self.draw(true);
    }

    /// The progress line on stderr, at most ten times a second.
    fn draw(&mut self, now: bool) {
        if !self.progress {
            return;
        }
        if !now
            && self
                .last_progress
                .is_some_and(|at| at.elapsed() < std::time::Duration::from_millis(100))
        {
            return;
        }
        self.last_progress = Some(std::time::Instant::now());
        let text = match self.listing {
            Some((read, total)) => format!(
                "listing the subscriptions: {} of {}",
                thousands(read),
                thousands(total)
            ),
            None => format!(
                "{} failing so far · {} · {}",
                self.paging(),
                self.coverage.looked_at(),
                self.coverage.estimate()
            ),
        };
        let width = crossterm::terminal::size()
            .map(|(columns, _)| usize::from(columns).saturating_sub(1))
            .unwrap_or(79);
        let mut stderr = std::io::stderr().lock();
        let _ = write!(stderr, "\r\x1b[2K{}", output::fit(&text, width));
        let _ = stderr.flush();
        self.progress_shown = true;
    }

    fn clear_progress(&mut self) {
        if self.progress_shown {
            eprint!("\r\x1b[2K");
            self.progress_shown = false;
        }
    }
}

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
            concurrency: args.concurrency.map_or_else(
                || LookOptions::concurrency_for(args.budget.unwrap_or_default()),
                usize::from,
            ),
            budget: args.budget.unwrap_or_default(),
            full: args.full,
            max_rows,
            max_requests: args.max_requests,
            keep_states: false,
        },
        stop: stop.clone(),
    };
    // Ctrl-C stops the look between requests; what it learnt is kept.
    let stopper = tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    });
    let mut found = Found {
        args: &args,
        shown: HashMap::new(),
        healths: HashMap::new(),
        stream: format == Format::Table && std::io::stdout().is_terminal(),
        progress: std::io::stderr().is_terminal(),
        progress_shown: false,
        last_progress: None,
        coverage: Coverage::default(),
        listing: None,
    };
    let outcome = look.run(&mut index, |event| found.take(event)).await;
    stopper.abort();
    found.clear_progress();
    let summary = match outcome {
        Ok(summary) => summary,
        Err(error) if args.check => {
            return Err(Exit {
                code: INCOMPLETE,
                message: format!("the look failed, so nothing is known: {error}"),
            }
            .into());
        }
        Err(error) => return Err(error.into()),
    };
    let mut rows: Vec<&HealthRow> = found.shown.values().collect();
    rows.sort_by(|a, b| a.order(b));
    let coverage = summary.coverage;
    match format {
        Format::Json => output::print_json(&JsonLook {
            complete: summary.complete(),
            looked_at: coverage.known,
            total: coverage.total,
            subscriptions: rows.iter().map(|row| json_row(row)).collect(),
        })?,
        Format::Table => {
            if found.stream && !rows.is_empty() {
                output::print("\n")?;
            }
            let cells: Vec<Vec<String>> = rows.iter().map(|row| cells(row)).collect();
            let mut text = output::table(&COLUMNS, &cells, output::output_width());
            text.push_str(&footer(&found, &summary, rows.len()));
            output::print(&text)?;
        }
    }
    for warning in &summary.warnings {
        eprintln!("orgdeck: {}", printable(warning));
    }
    if let Some(why) = summary.short_of() {
        eprintln!(
            "orgdeck: the look is not complete: {}; {}; {}. What was learnt is kept, and the next look goes on from there.",
            printable(&why),
            coverage.looked_at(),
            coverage.estimate()
        );
    }
    let paging = found.paging();
    if args.check && paging > 0 {
        return Err(Exit {
            code: UNHEALTHY,
            message: format!("{paging} subscriptions are failing, partial or auto-disabled"),
        }
        .into());
    }
    if args.check && !summary.complete() {
        return Err(Exit {
            code: INCOMPLETE,
            message: format!(
                "nothing failing among those looked at, but the look is not complete ({})",
                coverage.looked_at()
            ),
        }
        .into());
    }
    if let Some(cut) = &summary.cut {
        anyhow::bail!("the look was cut short: {cut}");
    }
    Ok(())
}

/// "3 of 90,095 subscriptions shown · 3 failing · 2 new · 90,000 ok ·
/// looked at all 90,095 · 1,234 requests".
fn footer(found: &Found, summary: &LookSummary, shown: usize) -> String {
    let mut counts = std::collections::BTreeMap::new();
    for health in found.healths.values() {
        *counts.entry(*health).or_insert(0u64) += 1;
    }
    let counts: Vec<String> = counts
        .into_iter()
        .map(|(health, count)| format!("{} {health}", thousands(count)))
        .collect();
    let coverage = summary.coverage;
    let mut text = format!(
        "{} of {} subscriptions shown · {} · {} · {} requests",
        thousands(shown as u64),
        thousands(coverage.total),
        if counts.is_empty() {
            "none known".into()
        } else {
            counts.join(" · ")
        },
        coverage.looked_at(),
        thousands(coverage.requests),
    );
    if summary.no_history {
        text.push_str(" · this server keeps no delivery history");
    }
    text.push('\n');
    text
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

/// The first recipient it fails for, with the error, and how many more.
fn failed_for(row: &HealthRow) -> String {
    row.failed_recipients
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
        .unwrap_or_default()
}

fn cells(row: &HealthRow) -> Vec<String> {
    vec![
        row.health.to_string(),
        when(row.since, Zone::Utc),
        if row.streak > 0 {
            row.streak.to_string()
        } else {
            String::new()
        },
        row.id.to_string(),
        row.title.clone(),
        row.target.clone(),
        failed_for(row),
        row.fix.clone().unwrap_or_default(),
    ]
}
