//! A look across a project: the health of every subscription, what is
//! known at once first, then the rest, the likely-bad first.
//!
//! PostHog keeps delivery history per subscription only, and limits a key
//! to 480 requests a minute and 4,800 an hour (posthog.md 12): reading
//! every subscription's deliveries takes 19 hours at 90,000 whatever the
//! code does. So a look goes in two steps.
//!
//! 1. **The list** (`list.rs`), read whole in pages of 1,000, with the
//!    project's Slack integrations: everything it settles is told at once,
//!    with no delivery read (unsupported, auto-disabled, paused, ended,
//!    overdue, a Slack target whose integration is revoked or missing:
//!    `api::health::from_fields`), and so is everything the index
//!    (`index.rs`) remembers of subscriptions whose fields have not
//!    changed since their deliveries were read.
//! 2. **The deliveries** of the rest, in order of how likely each is to be
//!    failing or partial ([`priority`]: unhealthy or unreadable last time,
//!    changed since, a Slack target, many recipients, looked at long ago or
//!    never), a few at a time, paced by the budget (`budget.rs`), each
//!    result written to the index as it comes, so that a look stopped
//!    anywhere (Esc, Ctrl-C, `--max-requests`, a server gone) is gone on
//!    from by the next one.
//!
//! Every step says how far it has come ([`Coverage`]): how many
//! subscriptions are known of how many, the requests made and left, and
//! how long a complete look takes at the budget in force. A look is
//! complete only when every subscription's health is known; nothing that
//! shows a look's result may say "all clear" before that.

pub mod budget;
pub mod index;
pub mod list;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Duration, Utc};
use futures_util::StreamExt;
use serde::Serialize;

use crate::api::health::{Assessment, FailedRecipient, Health, assess, from_fields};
use crate::api::{Client, Subscription, TransportKind};
use crate::clock::Clock;
use budget::{Budget, Pacer};
use index::{Entry, Index, Known, LastLook};
use list::{Listed, Reading};

/// A subscription unhealthy (or unreadable) at the last look is read again
/// once its entry is older than this, even with its fields unchanged: a
/// test delivery sent to check a fix moves none of them.
pub const RECHECK_AFTER: Duration = Duration::minutes(15);

/// How many of the most likely a look's estimate names ("the 1,000 most
/// likely checked in ~3 min").
pub const LIKELY: u64 = 1_000;

/// Tries of a delivery read that gets no answer in time.
const TRIES: u32 = 3;

/// Results written to the index at once, at most; and the longest they wait.
const FLUSH_EVERY: usize = 32;
const FLUSH_AFTER: std::time::Duration = std::time::Duration::from_secs(1);

/// Delivery reads in flight at once under a budget: PostHog Cloud counts
/// requests, not connections, so more at once would only wait longer for
/// the budget.
pub const AT_ONCE: usize = 8;
/// In flight at once without a budget (a server of one's own): the look's
/// time is then its round trips, and a thousand reads 100 ms away take
/// about 6 s at 16 rather than 13 s at 8.
pub const AT_ONCE_UNBUDGETED: usize = 16;

impl LookOptions {
    /// What a look sends at once by default under `budget`.
    pub fn concurrency_for(budget: Budget) -> usize {
        if budget == Budget::UNLIMITED {
            AT_ONCE_UNBUDGETED
        } else {
            AT_ONCE
        }
    }
}

/// How a look goes about it.
#[derive(Debug, Clone)]
pub struct LookOptions {
    /// Requests in flight at once.
    pub concurrency: usize,
    pub budget: Budget,
    /// Read every subscription's deliveries, whatever the index says.
    pub full: bool,
    /// The most subscriptions a look takes on; past it the look fails.
    pub max_rows: u64,
    /// The most delivery requests the look makes (the list is always read
    /// whole); `None`: as many as a complete look needs.
    pub max_requests: Option<u64>,
    /// Tell the list's states and keep the rows of every state but active
    /// ([`LookEvent::States`]), for the console's state filters.
    pub keep_states: bool,
}

impl Default for LookOptions {
    fn default() -> Self {
        LookOptions {
            concurrency: AT_ONCE,
            budget: Budget::default(),
            full: false,
            max_rows: 1_000_000,
            max_requests: None,
            keep_states: false,
        }
    }
}

/// One subscription's line on the board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HealthRow {
    pub id: i64,
    /// Its title, else what it delivers (as PostHog's web app shows it).
    pub title: String,
    pub target: String,
    pub health: Health,
    pub since: Option<DateTime<Utc>>,
    pub streak: u32,
    pub last_delivery: Option<DateTime<Utc>>,
    pub failed_recipients: Vec<FailedRecipient>,
    pub next_delivery_date: Option<DateTime<Utc>>,
    pub fix: Option<String>,
    /// Unhealthy now and not so at the previous look.
    #[serde(skip)]
    pub newly: bool,
    /// Not known yet: its deliveries are still to be read (its health is
    /// `unknown` until they are).
    #[serde(skip)]
    pub pending: bool,
}

impl HealthRow {
    fn new(listed: &Listed, assessment: Assessment, before: Option<Health>) -> HealthRow {
        let newly = assessment.health.is_unhealthy()
            && assessment.health != Health::Unknown
            && before.is_some_and(|before| before != assessment.health);
        HealthRow {
            id: listed.id,
            title: listed.title.to_string(),
            target: listed.target(),
            health: assessment.health,
            since: assessment.since,
            streak: assessment.streak,
            last_delivery: assessment.last_delivery,
            failed_recipients: assessment.failed_recipients,
            next_delivery_date: listed.next_delivery_date,
            fix: assessment.fix,
            newly,
            pending: false,
        }
    }

    /// A subscription whose deliveries are still to be read.
    fn pending(listed: &Listed, before: Option<Health>) -> HealthRow {
        let fix = match before {
            Some(before) if before.is_unhealthy() && before != Health::Unknown => {
                format!("not looked at again yet (last look: {before})")
            }
            _ => "not looked at yet".into(),
        };
        HealthRow {
            pending: true,
            ..HealthRow::new(listed, unknown(Some(fix)), None)
        }
    }

    /// Worst first, then the longest-standing, then by id.
    pub fn order(&self, other: &HealthRow) -> std::cmp::Ordering {
        self.health
            .cmp(&other.health)
            .then_with(|| self.pending.cmp(&other.pending))
            .then_with(|| self.since.cmp(&other.since))
            .then_with(|| self.id.cmp(&other.id))
    }
}

fn unknown(fix: Option<String>) -> Assessment {
    Assessment {
        health: Health::Unknown,
        since: None,
        streak: 0,
        last_delivery: None,
        failed_recipients: Vec::new(),
        fix,
    }
}

/// How far a look has come, and how far it has to go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Coverage {
    /// Subscriptions listed (known once the list is read).
    pub total: u64,
    /// Of them, those whose health is known: settled by the list,
    /// remembered unchanged, or read by this look.
    pub known: u64,
    /// Delivery requests still to make for a complete look.
    pub left: u64,
    /// Requests this look made, the list's included.
    pub requests: u64,
    pub budget: Budget,
    /// The time to a complete look at the budget in force and the pace so
    /// far; `None` when nothing is left.
    pub complete_in: Option<Duration>,
    /// The next of the [`LIKELY`] most likely, and the time to them, while
    /// the look has not reached them all.
    pub likely: Option<(u64, Duration)>,
}

impl Coverage {
    /// Every subscription's health is known.
    pub fn is_complete(&self) -> bool {
        self.known >= self.total && self.left == 0
    }

    /// Not known yet.
    pub fn not_yet(&self) -> u64 {
        self.total.saturating_sub(self.known)
    }

    /// Known, in whole percent: never 100 before it is complete.
    pub fn percent(&self) -> u64 {
        if self.total == 0 {
            return 100;
        }
        let percent = (self.known * 100 + self.total / 2) / self.total;
        if self.is_complete() { 100 } else { percent.min(99) }
    }

    /// "looked at 2,699 of 90,095 · 87,396 not yet", or "looked at all 90,095".
    pub fn looked_at(&self) -> String {
        use crate::text::thousands;
        if self.is_complete() {
            format!("looked at all {}", thousands(self.total))
        } else {
            format!(
                "looked at {} of {} · {} not yet",
                thousands(self.known),
                thousands(self.total),
                thousands(self.not_yet())
            )
        }
    }

    /// "1,234 requests, 87,396 left at 400/min, 4,000/h: complete in ~22 h;
    /// the 1,000 most likely in ~2 min".
    pub fn estimate(&self) -> String {
        use crate::text::thousands;
        let mut text = format!("{} requests", thousands(self.requests));
        if let Some(complete_in) = self.complete_in {
            text.push_str(&format!(
                ", {} left at {}: complete in {}",
                thousands(self.left),
                self.budget.words(),
                budget::about(complete_in)
            ));
            if let Some((_, likely_in)) = self.likely {
                text.push_str(&format!(
                    "; the {} most likely in {}",
                    thousands(LIKELY),
                    budget::about(likely_in)
                ));
            }
        }
        text
    }
}

/// What a look tells as it goes.
#[derive(Debug, Clone)]
pub enum LookEvent {
    /// Pages of the list arriving: rows read, rows in all.
    Listing { read: u64, total: u64 },
    /// The list is read: what it and the index tell follows as rows, then
    /// the reads of the rest.
    Listed(Coverage),
    /// One subscription's health: from the list, from the index, from its
    /// deliveries, or pending (still to be read).
    Row(HealthRow),
    /// A delivery read ended.
    Progress(Coverage),
    /// The list's states, when asked for.
    States(Box<list::States>),
}

/// How a look ended.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LookSummary {
    pub coverage: Coverage,
    /// Subscriptions whose deliveries were read.
    pub read: u64,
    /// Whose deliveries could not be read (an error the server gave).
    pub unreadable: u64,
    /// Stopped before the end (Esc, Ctrl-C).
    pub stopped: bool,
    /// Ended at `--max-requests`.
    pub capped: bool,
    /// The server keeps no delivery history (an older PostHog).
    pub no_history: bool,
    /// The server stopped answering during the reads, or the command's
    /// deadline passed: why.
    pub cut: Option<crate::api::Error>,
    /// What went wrong that still left the whole list.
    pub warnings: Vec<String>,
}

impl LookSummary {
    /// Every subscription's health is known.
    pub fn complete(&self) -> bool {
        self.coverage.is_complete()
            && self.unreadable == 0
            && !self.stopped
            && !self.capped
            && !self.no_history
            && self.cut.is_none()
    }

    /// Why it is not complete, in words; `None` when it is.
    pub fn short_of(&self) -> Option<String> {
        if self.complete() {
            return None;
        }
        Some(if let Some(cut) = &self.cut {
            match cut.unreachable() {
                Some(unreachable) => format!(
                    "the server stopped answering ({}: {})",
                    unreachable.server, unreachable.reason
                ),
                None => format!("the reads failed: {cut}"),
            }
        } else if self.stopped {
            "stopped before the end".into()
        } else if self.capped && self.read == 0 && self.unreadable == 0 {
            "only the list was read".into()
        } else if self.capped {
            "stopped at the request limit".into()
        } else if self.no_history {
            "this server keeps no delivery history".into()
        } else if self.unreadable > 0 {
            format!(
                "{} could not be read",
                crate::text::counted(self.unreadable as usize, "subscription")
            )
        } else {
            "not every subscription was reached".into()
        })
    }
}

/// Why a look failed before it could list anything.
#[derive(Debug, thiserror::Error)]
pub enum LookError {
    #[error("{0}")]
    Api(#[from] crate::api::Error),
    #[error("{0:#}")]
    Index(#[from] anyhow::Error),
}

impl LookError {
    /// The server was not reached (for the console: offline, tried again).
    pub fn unreachable(&self) -> Option<crate::api::Unreachable> {
        match self {
            LookError::Api(error) => error.unreachable(),
            LookError::Index(_) => None,
        }
    }
}

/// A look's dependencies.
pub struct Look<'a> {
    pub client: &'a Client,
    pub project: &'a str,
    pub clock: Clock,
    pub options: LookOptions,
    /// Set to stop the look between requests.
    pub stop: Arc<AtomicBool>,
}

/// What a listed subscription needs.
enum Step {
    /// Its fields settle its health. Since when, and who the last delivery
    /// failed for, come from its deliveries: remembered by the index when
    /// the fields are unchanged, else read once the rest are known
    /// (`read`), which a complete look does not wait for.
    Settled { assessment: Assessment, read: bool },
    /// The index's entry says it, the fields being unchanged.
    Remembered,
    /// Its deliveries must be read; the higher the sooner.
    Pending(i64),
}

/// Where the reads of settled subscriptions' details go: after every
/// pending one.
const DETAILS: i64 = -1_000_000;

/// A settled health with what its deliveries tell of it: the last
/// delivery and who it failed for, and since when and how many in a row
/// where the deliveries agree on the health. The health and the fix stay
/// the fields' (a Slack integration revoked after the last delivery went
/// out is failing, whatever that delivery did).
fn detailed(settled: &Assessment, read: &Assessment) -> Assessment {
    let mut merged = settled.clone();
    merged.last_delivery = read.last_delivery;
    merged.failed_recipients = read.failed_recipients.clone();
    if read.health == settled.health {
        merged.since = read.since.or(settled.since);
        merged.streak = read.streak;
    }
    merged
}

/// How likely a subscription is to be failing or partial, as far as the
/// list and the last look tell: unhealthy or unreadable last time first,
/// then changed since (it was delivered, or its target changed), a Slack
/// target (a channel archived, the app removed), each recipient past the
/// first (one bad address makes it partial), and the time since it was
/// last looked at (never: as if a week ago).
pub fn priority(listed: &Listed, known: Option<&Known>, now: DateTime<Utc>) -> i64 {
    let mut score = match known {
        Some(known) if known.health.is_unhealthy() && known.health != Health::Unknown => 1_000,
        Some(known) if known.unreadable || known.health == Health::Unknown => 900,
        Some(known) if known.fingerprint != listed.fingerprint => 300,
        Some(_) => 0,
        None => 0,
    };
    if listed.is_slack() {
        score += 100;
    }
    score += 60 * i64::from(listed.recipients.saturating_sub(1).min(5));
    let hours = known.map_or(168, |known| (now - known.looked_at).num_hours().clamp(0, 168));
    score + hours * 50 / 168
}

impl Look<'_> {
    /// Looks at every subscription of the project, telling `on_event` as
    /// it goes, and records what it learnt in `index` as it learns it.
    /// Fails only when the list cannot be read (or the index opened);
    /// anything after that ends the look with what it learnt, said in
    /// the summary.
    pub async fn run(
        &self,
        index: &mut Index,
        mut on_event: impl FnMut(LookEvent),
    ) -> Result<LookSummary, LookError> {
        let pacer = Pacer::new(self.options.budget, self.clock.clone());
        let requests = AtomicU64::new(0);
        let mut summary = LookSummary {
            coverage: Coverage {
                budget: self.options.budget,
                ..Coverage::default()
            },
            ..LookSummary::default()
        };
        let reading = Reading {
            client: self.client,
            project: self.project,
            pacer: &pacer,
            requests: &requests,
            stop: &self.stop,
            max_rows: self.options.max_rows,
            keep_states: self.options.keep_states,
            now: self.clock.now(),
        };
        let integrations = reading.integrations().await;
        let mut told = |event: LookEvent| on_event(event);
        let (pages_tx, mut pages_rx) = tokio::sync::mpsc::unbounded_channel::<(u64, u64)>();
        let progress: Arc<dyn Fn(u64, u64) + Send + Sync> = Arc::new(move |read, total| {
            let _ = pages_tx.send((read, total));
        });
        let read = {
            let listing = reading.subscriptions(integrations.as_ref(), progress);
            tokio::pin!(listing);
            loop {
                tokio::select! {
                    biased;
                    Some((read, total)) = pages_rx.recv() => told(LookEvent::Listing { read, total }),
                    read = &mut listing => break read,
                }
            }
        };
        while let Ok((read, total)) = pages_rx.try_recv() {
            told(LookEvent::Listing { read, total });
        }
        let Some(read) = read? else {
            summary.stopped = true;
            summary.coverage.requests = requests.load(Ordering::Relaxed);
            return Ok(summary);
        };
        if let Some(states) = read.states {
            told(LookEvent::States(Box::new(states)));
        }
        let rows = read.rows;
        let now = self.clock.now();

        // What the list and the index tell.
        let known = index.known()?;
        let listed: HashMap<i64, usize> = rows.iter().enumerate().map(|(at, row)| (row.id, at)).collect();
        let gone: Vec<i64> = known
            .keys()
            .filter(|id| !listed.contains_key(id))
            .copied()
            .collect();
        if let Err(error) = index.forget(&gone) {
            summary.warnings.push(format!("the health index: {error:#}"));
        }
        let steps: Vec<Step> = rows
            .iter()
            .map(|row| self.step(row, known.get(&row.id), now))
            .collect();
        let mut plan: Vec<(i64, usize)> = steps
            .iter()
            .enumerate()
            .filter_map(|(at, step)| match step {
                Step::Pending(score) => Some((*score, at)),
                Step::Settled { read: true, .. } => Some((DETAILS, at)),
                _ => None,
            })
            .collect();
        // Most likely first; among equals the newest first.
        plan.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| rows[b.1].id.cmp(&rows[a.1].id)));
        let pending = steps
            .iter()
            .filter(|step| matches!(step, Step::Pending(_)))
            .count();
        summary.coverage.total = rows.len() as u64;
        summary.coverage.known = (rows.len() - pending) as u64;
        summary.coverage.left = pending as u64;
        summary.coverage.requests = requests.load(Ordering::Relaxed);
        let pace = Pace::new(self.options.concurrency);
        self.estimate(&mut summary.coverage, &pacer, &pace, 0);
        told(LookEvent::Listed(summary.coverage));
        for (row, step) in rows.iter().zip(&steps) {
            let before = known.get(&row.id).map(|known| known.health);
            match step {
                Step::Settled {
                    assessment,
                    read: true,
                } => told(LookEvent::Row(HealthRow::new(row, assessment.clone(), before))),
                Step::Pending(_) => told(LookEvent::Row(HealthRow::pending(row, before))),
                Step::Settled { read: false, .. } | Step::Remembered => {}
            }
        }
        index.each(|id, entry| {
            let Some(&at) = listed.get(&id) else {
                return;
            };
            let before = Some(entry.assessment.health);
            match &steps[at] {
                Step::Remembered => {
                    told(LookEvent::Row(HealthRow::new(
                        &rows[at],
                        entry.assessment,
                        before,
                    )));
                }
                Step::Settled {
                    assessment,
                    read: false,
                } => told(LookEvent::Row(HealthRow::new(
                    &rows[at],
                    detailed(assessment, &entry.assessment),
                    before,
                ))),
                _ => {}
            }
        })?;
        told(LookEvent::Progress(summary.coverage));

        // The deliveries of the rest, the most likely first.
        let most = self.options.max_requests.map_or(plan.len(), |most| {
            plan.len().min(usize::try_from(most).unwrap_or(usize::MAX))
        });
        let no_history = AtomicBool::new(false);
        let cut: Mutex<Option<crate::api::Error>> = Mutex::new(None);
        let halted = AtomicBool::new(false);
        let plan = &plan;
        let rows_ref = &rows;
        let mut reads = futures_util::stream::iter(0..most)
            .map(|at| {
                let at = plan[at].1;
                let listed: &Listed = &rows_ref[at];
                let (pacer, requests, no_history, halted) = (&pacer, &requests, &no_history, &halted);
                async move {
                    let go_on = || !self.stop.load(Ordering::Relaxed) && !halted.load(Ordering::Relaxed);
                    if !go_on() {
                        return (at, None);
                    }
                    if no_history.load(Ordering::Relaxed) {
                        return (at, Some(Read::NoHistory));
                    }
                    // The wait for the budget is not the request's: its
                    // timeout starts when it is sent.
                    pacer.acquire().await;
                    if !go_on() {
                        return (at, None);
                    }
                    (
                        at,
                        Some(read_deliveries(self.client, self.project, listed.id, requests).await),
                    )
                }
            })
            .buffer_unordered(self.options.concurrency.max(1));
        let mut pending: Vec<(i64, Entry)> = Vec::new();
        let mut flushed = std::time::Instant::now();
        let mut done = 0u64;
        // Reads in a row that got no answer in time.
        let mut silent = 0u64;
        while let Some((at, read)) = reads.next().await {
            let Some(read) = read else {
                continue;
            };
            let listed = &rows[at];
            let settled = match &steps[at] {
                Step::Settled { assessment, .. } => Some(assessment),
                _ => None,
            };
            let now = self.clock.now();
            let before = known.get(&listed.id).map(|known| known.health);
            let assessment = match read {
                Read::Deliveries(deliveries, elapsed) => {
                    silent = 0;
                    pace.took(elapsed);
                    summary.read += 1;
                    Some(assess(&listed.subscription(), Some(&deliveries), now))
                }
                Read::NoHistory => {
                    no_history.store(true, Ordering::Relaxed);
                    None
                }
                Read::Failed(error) => {
                    let timed_out = matches!(
                        error,
                        crate::api::Error::Transport {
                            kind: TransportKind::Timeout,
                            ..
                        }
                    );
                    silent = if timed_out { silent + 1 } else { 0 };
                    // No connection, or no answer to many reads in a row:
                    // the server is gone. One slow read is that read's.
                    // Past the command's deadline (--deadline) nothing more
                    // is sent: the rest waits for the next look too.
                    let gone = matches!(error, crate::api::Error::Deadline { .. })
                        || error.unreachable().is_some()
                            && (!timed_out || silent >= 2 * self.options.concurrency.max(1) as u64);
                    if gone {
                        // The server went away: the rest waits for the next look.
                        halted.store(true, Ordering::Relaxed);
                        let mut cut = cut.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                        cut.get_or_insert(error);
                        None
                    } else {
                        summary.unreadable += u64::from(settled.is_none());
                        Some(unknown(Some(format!(
                            "its deliveries could not be read: {}",
                            crate::text::printable(&error.to_string())
                        ))))
                    }
                }
            };
            done += 1;
            let assessment = match (settled, assessment) {
                // The details of a settled one: its health stays known.
                (Some(settled), Some(read)) if read.health != Health::Unknown => {
                    Some(detailed(settled, &read))
                }
                (Some(_), _) => None,
                (None, assessment) => assessment,
            };
            if let Some(assessment) = assessment {
                if settled.is_none() {
                    if assessment.health != Health::Unknown {
                        summary.coverage.known += 1;
                    }
                    summary.coverage.left = summary.coverage.left.saturating_sub(1);
                }
                pending.push((
                    listed.id,
                    Entry {
                        fingerprint: listed.fingerprint,
                        looked_at: now,
                        assessment: assessment.clone(),
                    },
                ));
                told(LookEvent::Row(HealthRow::new(listed, assessment, before)));
            }
            summary.coverage.requests = requests.load(Ordering::Relaxed);
            self.estimate(&mut summary.coverage, &pacer, &pace, done);
            told(LookEvent::Progress(summary.coverage));
            if pending.len() >= FLUSH_EVERY || flushed.elapsed() >= FLUSH_AFTER {
                self.flush(index, &mut pending, &mut summary.warnings);
                flushed = std::time::Instant::now();
            }
        }
        drop(reads);
        self.flush(index, &mut pending, &mut summary.warnings);
        summary.no_history = no_history.load(Ordering::Relaxed);
        summary.cut = cut
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        summary.stopped = self.stop.load(Ordering::Relaxed) && summary.coverage.left > 0;
        summary.capped = !summary.stopped
            && summary.cut.is_none()
            && summary.coverage.left > 0
            && (most as u64) < plan.len() as u64;
        summary.coverage.requests = requests.load(Ordering::Relaxed);
        self.estimate(&mut summary.coverage, &pacer, &pace, done);
        let last = LastLook {
            at: self.clock.now(),
            requests: summary.coverage.requests,
            complete: summary.complete(),
        };
        if let Err(error) = index.finished(last) {
            summary.warnings.push(format!("the health index: {error:#}"));
        }
        Ok(summary)
    }

    /// What a listed subscription needs, given what the last look learnt.
    fn step(&self, listed: &Listed, known: Option<&Known>, now: DateTime<Utc>) -> Step {
        let fields = Subscription {
            target_type: listed.target_type.clone(),
            enabled: listed.enabled,
            next_delivery_date: listed.next_delivery_date,
            ..Subscription::default()
        };
        if let Some(assessment) = from_fields(&fields, listed.connection, now) {
            let remembered =
                known.is_some_and(|known| known.fingerprint == listed.fingerprint && !known.unreadable);
            return Step::Settled {
                assessment,
                read: !remembered || self.options.full,
            };
        }
        let Some(found) = known.filter(|_| !self.options.full) else {
            return Step::Pending(priority(listed, known, now));
        };
        let recheck =
            (found.health.is_unhealthy() || found.unreadable) && found.looked_at < now - RECHECK_AFTER;
        if found.fingerprint != listed.fingerprint || found.unreadable || recheck {
            Step::Pending(priority(listed, known, now))
        } else {
            Step::Remembered
        }
    }

    /// Writes the results gathered; a failure is told, and the look goes on.
    fn flush(&self, index: &mut Index, pending: &mut Vec<(i64, Entry)>, warnings: &mut Vec<String>) {
        if let Err(error) = index.record(pending) {
            let warning = format!("the health index: {error:#}");
            tracing::warn!("{warning}");
            if !warnings.contains(&warning) {
                warnings.push(warning);
            }
        }
        pending.clear();
    }

    /// The time to a complete look, and to the most likely ones, at the
    /// budget in force and the pace so far.
    fn estimate(&self, coverage: &mut Coverage, pacer: &Pacer, pace: &Pace, done: u64) {
        let time = |n: u64| pacer.floor(n).max(pace.time_for(n));
        coverage.complete_in = (coverage.left > 0).then(|| time(coverage.left));
        coverage.likely = (done < LIKELY && coverage.left > LIKELY - done).then(|| {
            let n = LIKELY - done;
            (n, time(n))
        });
    }
}

/// How a delivery read ended.
enum Read {
    Deliveries(Vec<crate::api::Delivery>, std::time::Duration),
    NoHistory,
    Failed(crate::api::Error),
}

/// One subscription's newest deliveries. A read that gets no answer in
/// time is tried again, [`TRIES`] in all; then its error names the time
/// it took.
async fn read_deliveries(client: &Client, project: &str, id: i64, requests: &AtomicU64) -> Read {
    let mut tries = 0;
    loop {
        tries += 1;
        requests.fetch_add(1, Ordering::Relaxed);
        let started = std::time::Instant::now();
        match client.deliveries(project, id, None).await {
            Ok(page) => return Read::Deliveries(page.results, started.elapsed()),
            // An older PostHog keeps no history: the same for all.
            Err(error) if error.keeps_no_history() => return Read::NoHistory,
            Err(crate::api::Error::Transport {
                kind: TransportKind::Timeout,
                ..
            }) if tries < TRIES => continue,
            Err(error) => {
                if tries > 1 {
                    tracing::info!(id, tries, elapsed = ?started.elapsed(), "no answer in time");
                }
                return Read::Failed(error);
            }
        }
    }
}

/// The pace of the reads so far: the mean time of one, and how many go at
/// once.
struct Pace {
    concurrency: u64,
    mean: Mutex<Option<f64>>,
}

impl Pace {
    fn new(concurrency: usize) -> Pace {
        Pace {
            concurrency: concurrency.max(1) as u64,
            mean: Mutex::new(None),
        }
    }

    fn took(&self, elapsed: std::time::Duration) {
        let mut mean = self
            .mean
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let seconds = elapsed.as_secs_f64();
        *mean = Some(match *mean {
            None => seconds,
            Some(mean) => mean * 0.9 + seconds * 0.1,
        });
    }

    /// `n` reads at this pace (a tenth of a second each until one is timed).
    fn time_for(&self, n: u64) -> Duration {
        let mean = self
            .mean
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .unwrap_or(0.1);
        let seconds = mean * n.div_ceil(self.concurrency) as f64;
        Duration::milliseconds((seconds * 1000.0) as i64)
    }
}

/// Counts of each health, worst first, for a header: "3 failing · 1
/// partial · 112 ok".
pub fn tally<'a>(rows: impl IntoIterator<Item = &'a HealthRow>) -> Vec<(Health, usize)> {
    let mut counts = std::collections::BTreeMap::new();
    for row in rows {
        if row.pending {
            continue;
        }
        *counts.entry(row.health).or_insert(0usize) += 1;
    }
    counts.into_iter().collect()
}
