//! A look across a project: the health of every subscription, asking the
//! server as little as it can.
//!
//! PostHog keeps delivery history per subscription only, and limits a key
//! to 480 requests a minute and 4,800 an hour (posthog.md 12), so a board
//! that read every subscription's deliveries at every look could not
//! scale. A look lists the subscriptions (one request per 100) and reads
//! the deliveries only of those whose fields show something happened since
//! the last look (a delivery moves `next_delivery_date`; a pause, a new
//! target or integration changes theirs), those not healthy last time,
//! those due (a missed delivery is found by looking), and those not looked
//! at for a day; the rest keep what the index (`index.rs`) remembers. The
//! reads go a few at a time, paced by a budget (`budget.rs`), and every
//! result is handed on as it arrives; a stop ends the look between
//! requests, keeping what it learnt.

pub mod budget;
pub mod index;

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use chrono::{DateTime, Duration, Utc};
use futures_util::StreamExt;
use serde::Serialize;

use crate::api::health::{Assessment, FailedRecipient, Health, assess};
use crate::api::{Client, FetchAll, List, Subscription, SubscriptionFilter};
use crate::clock::Clock;
use budget::{Budget, Pacer};
use index::{Entry, Index, fingerprint};

/// Subscriptions listed per request.
const PAGE_SIZE: u64 = 100;

/// A subscription whose deliveries were read longer ago than this is read
/// again, whatever else.
pub const MAX_AGE: Duration = Duration::days(1);

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
}

impl Default for LookOptions {
    fn default() -> Self {
        LookOptions {
            concurrency: 8,
            budget: Budget::default(),
            full: false,
            max_rows: 1_000_000,
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
}

impl HealthRow {
    fn new(subscription: &Subscription, assessment: Assessment, before: Option<Health>) -> HealthRow {
        let title = subscription
            .title
            .clone()
            .filter(|title| !title.trim().is_empty())
            .or_else(|| subscription.resource_name.clone())
            .unwrap_or_else(|| format!("#{}", subscription.id));
        let target = match (&subscription.target_type, &subscription.target_value) {
            (Some(kind), Some(value)) => format!("{} {value}", kind.as_str()),
            (Some(kind), None) => kind.as_str().to_string(),
            _ => String::new(),
        };
        let newly = assessment.health.is_unhealthy()
            && assessment.health != Health::Unknown
            && before.is_some_and(|before| before != assessment.health);
        HealthRow {
            id: subscription.id,
            title,
            target,
            health: assessment.health,
            since: assessment.since,
            streak: assessment.streak,
            last_delivery: assessment.last_delivery,
            failed_recipients: assessment.failed_recipients,
            next_delivery_date: subscription.next_delivery_date,
            fix: assessment.fix,
            newly,
        }
    }

    /// Worst first, then the longest-standing, then by id.
    pub fn order(&self, other: &HealthRow) -> std::cmp::Ordering {
        self.health
            .cmp(&other.health)
            .then_with(|| self.since.cmp(&other.since))
            .then_with(|| self.id.cmp(&other.id))
    }
}

/// What a look tells as it goes.
#[derive(Debug, Clone)]
pub enum LookEvent {
    /// The list is read: this many subscriptions, of which `to_read` need
    /// their deliveries read.
    Listed { total: u64, to_read: u64 },
    /// One subscription's health, from the index or from its deliveries.
    Row(HealthRow),
    /// Progress: subscriptions done, of all, and requests made.
    Progress { done: u64, total: u64, requests: u64 },
}

/// How a look ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LookSummary {
    pub total: u64,
    /// Subscriptions whose deliveries were read.
    pub read: u64,
    pub requests: u64,
    /// Stopped before the end.
    pub stopped: bool,
    /// The server keeps no delivery history (an older PostHog).
    pub no_history: bool,
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

impl Look<'_> {
    /// Looks at every subscription of the project, telling `on_event` as
    /// it goes, and records what it learnt in `index` (saved as it goes
    /// and at the end, stopped or not).
    pub async fn run(
        &self,
        index: &mut Index,
        mut on_event: impl FnMut(LookEvent),
    ) -> anyhow::Result<LookSummary> {
        let pacer = Arc::new(Pacer::new(self.options.budget, self.clock.clone()));
        let requests = AtomicU64::new(0);
        let mut summary = LookSummary::default();
        let subscriptions = match self.list(&pacer, &requests).await? {
            Some(subscriptions) => subscriptions,
            None => {
                summary.stopped = true;
                summary.requests = requests.load(Ordering::Relaxed);
                return Ok(summary);
            }
        };
        let now = self.clock.now();
        summary.total = subscriptions.len() as u64;
        let listed: HashSet<i64> = subscriptions.iter().map(|subscription| subscription.id).collect();
        index.keep_only(&listed);
        let (to_read, known): (Vec<&Subscription>, Vec<&Subscription>) =
            subscriptions.iter().partition(|subscription| {
                self.options.full || needs_reading(subscription, index.entry(subscription.id), now)
            });
        on_event(LookEvent::Listed {
            total: summary.total,
            to_read: to_read.len() as u64,
        });
        let mut done = 0u64;
        for subscription in known {
            if let Some(entry) = index.entry(subscription.id) {
                let row = HealthRow::new(
                    subscription,
                    entry.assessment.clone(),
                    Some(entry.assessment.health),
                );
                on_event(LookEvent::Row(row));
                done += 1;
            }
        }
        on_event(LookEvent::Progress {
            done,
            total: summary.total,
            requests: requests.load(Ordering::Relaxed),
        });
        let no_history = AtomicBool::new(false);
        // By position, not by reference: a closure over `&Subscription` is
        // taken for every lifetime, and its future then is not `Send`
        // (the console runs a look on a task).
        let to_read = &to_read;
        let mut reads = futures_util::stream::iter(0..to_read.len())
            .map(|at| {
                let subscription: &Subscription = to_read[at];
                let (pacer, requests, no_history) = (&pacer, &requests, &no_history);
                async move {
                    if self.stop.load(Ordering::Relaxed) {
                        return (subscription, None);
                    }
                    if no_history.load(Ordering::Relaxed) {
                        return (subscription, Some(Ok(None)));
                    }
                    pacer.acquire().await;
                    if self.stop.load(Ordering::Relaxed) {
                        return (subscription, None);
                    }
                    requests.fetch_add(1, Ordering::Relaxed);
                    let read = self.client.deliveries(self.project, subscription.id, None).await;
                    let read = match read {
                        Ok(page) => Ok(Some(page.results)),
                        // An older PostHog keeps no history: the same for all.
                        Err(error) if error.keeps_no_history() => {
                            no_history.store(true, Ordering::Relaxed);
                            Ok(None)
                        }
                        Err(error) => Err(error),
                    };
                    (subscription, Some(read))
                }
            })
            .buffer_unordered(self.options.concurrency.max(1));
        let mut since_save = 0;
        while let Some((subscription, read)) = reads.next().await {
            let Some(read) = read else {
                summary.stopped = true;
                continue;
            };
            let now = self.clock.now();
            let before = index.entry(subscription.id).map(|entry| entry.assessment.health);
            let assessment = match read {
                Ok(deliveries) => assess(subscription, deliveries.as_deref(), now),
                Err(error) => {
                    // One that cannot be read is told, and looked at again next time.
                    let mut unknown = assess(subscription, None, now);
                    unknown.health = Health::Unknown;
                    unknown.fix = Some(format!(
                        "its deliveries could not be read: {}",
                        crate::text::printable(&error.to_string())
                    ));
                    unknown
                }
            };
            summary.read += 1;
            index.record(
                subscription.id,
                Entry {
                    fingerprint: fingerprint(subscription),
                    looked_at: now,
                    assessment: assessment.clone(),
                },
            );
            on_event(LookEvent::Row(HealthRow::new(subscription, assessment, before)));
            done += 1;
            on_event(LookEvent::Progress {
                done,
                total: summary.total,
                requests: requests.load(Ordering::Relaxed),
            });
            since_save += 1;
            if since_save >= 200 {
                index.save()?;
                since_save = 0;
            }
        }
        summary.requests = requests.load(Ordering::Relaxed);
        summary.no_history = no_history.load(Ordering::Relaxed);
        if !summary.stopped {
            index.finished(self.clock.now(), summary.requests);
        }
        index.save()?;
        Ok(summary)
    }

    /// Every subscription of the project (not deleted), a page of 100 at a
    /// time, paced, read whole (or refused) by the paging of the API;
    /// `None` when stopped.
    async fn list(
        &self,
        pacer: &Arc<Pacer>,
        requests: &AtomicU64,
    ) -> anyhow::Result<Option<Vec<Subscription>>> {
        let list = List::subscriptions(self.project, &SubscriptionFilter::default());
        let pacer = pacer.clone();
        let options = FetchAll {
            page_size: PAGE_SIZE,
            concurrency: 1,
            max_rows: Some(self.options.max_rows),
            pace: Some(Arc::new(move || {
                let pacer = pacer.clone();
                Box::pin(async move { pacer.acquire().await })
            })),
            ..FetchAll::default()
        };
        let listed = self
            .client
            .gather(&list, &options, |page: Vec<Subscription>| {
                requests.fetch_add(1, Ordering::Relaxed);
                if self.stop.load(Ordering::Relaxed) {
                    return Err(Listing::Stopped);
                }
                // Only what a look needs is kept, so that memory stays small
                // however many subscriptions there are.
                Ok(page.into_iter().map(slim).collect())
            })
            .await;
        match listed {
            Ok(rows) => Ok(Some(rows.into_vec())),
            Err(Listing::Stopped) => Ok(None),
            Err(Listing::Failed(error)) => Err(error.into()),
        }
    }
}

/// Why listing the subscriptions ended early.
enum Listing {
    Stopped,
    Failed(crate::api::Error),
}

impl From<crate::api::Error> for Listing {
    fn from(error: crate::api::Error) -> Self {
        Listing::Failed(error)
    }
}

/// Whether a subscription's deliveries must be read, given what the last
/// look learnt.
fn needs_reading(subscription: &Subscription, entry: Option<&Entry>, now: DateTime<Utc>) -> bool {
    let Some(entry) = entry else {
        return true;
    };
    let due = subscription.next_delivery_date.is_some_and(|next| {
        next + crate::api::health::OVERDUE_AFTER < now && subscription.enabled != Some(false)
    });
    entry.fingerprint != fingerprint(subscription)
        || entry.assessment.health.is_unhealthy()
        || entry.looked_at < now - MAX_AGE
        || due
}

/// The fields a look keeps of a subscription.
fn slim(subscription: Subscription) -> Subscription {
    Subscription {
        id: subscription.id,
        title: subscription.title,
        resource_name: subscription.resource_name,
        target_type: subscription.target_type,
        target_value: subscription.target_value,
        enabled: subscription.enabled,
        deleted: subscription.deleted,
        next_delivery_date: subscription.next_delivery_date,
        created_at: subscription.created_at,
        integration_id: subscription.integration_id,
        ..Subscription::default()
    }
}

/// Counts of each health, worst first, for a header: "3 failing · 1
/// partial · 112 ok".
pub fn tally<'a>(rows: impl IntoIterator<Item = &'a HealthRow>) -> Vec<(Health, usize)> {
    let mut counts = std::collections::BTreeMap::new();
    for row in rows {
        *counts.entry(row.health).or_insert(0usize) += 1;
    }
    counts.into_iter().collect()
}
