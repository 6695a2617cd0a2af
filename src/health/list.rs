//! What a look learns without asking for one delivery: the project's
//! subscriptions, read whole in large pages (PostHog sets no largest
//! `limit`, posthog.md 4, so 90,000 subscriptions are 90 requests), and
//! its Slack integrations, whose state settles the health of every Slack
//! subscription posting through a revoked or missing one.
//!
//! This is the one place a look reads lists: the pages go through the
//! client's whole-list reading (`Client::for_each_page`: a list that ends
//! early or repeats rows refused, one that changes while read read again,
//! an endless one stopped), and
//! each row is kept in a few dozen bytes ([`Listed`]) however much the
//! server sent of it.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use chrono::{DateTime, Utc};

use super::budget::Pacer;
use super::index::fingerprint;
use crate::api::health::{Connection, recipients};
use crate::api::{Client, FetchAll, List, Subscription, SubscriptionFilter, SubscriptionState, TargetType};

/// Subscriptions asked for per page.
pub const PAGE: u64 = 1_000;

/// Pages in flight at once: two, so that each may take half the answer
/// limit (`--max-answer-mib`), a page of a thousand with a title of 30 MB
/// among them included.
const PAGES_AT_ONCE: usize = 2;

/// Times the list is read again when it changed while it was read.
const TRIES: usize = 3;

/// What a look keeps of a listed subscription.
#[derive(Debug, Clone, PartialEq)]
pub struct Listed {
    pub id: i64,
    /// Its title, else what it delivers (as PostHog's web app shows it).
    pub title: Box<str>,
    pub target_type: Option<TargetType>,
    pub target_value: Box<str>,
    pub enabled: Option<bool>,
    pub next_delivery_date: Option<DateTime<Utc>>,
    pub created_at: Option<DateTime<Utc>>,
    pub integration_id: Option<i64>,
    /// Its Slack integration's state (`Working` for other targets).
    pub connection: Connection,
    pub recipients: u32,
    pub fingerprint: u64,
}

impl Listed {
    /// The bytes it holds, for the command's budget (`--max-held-mib`).
    fn bytes(&self) -> u64 {
        (std::mem::size_of::<Listed>() + self.title.len() + self.target_value.len()) as u64
    }

    fn new(subscription: &Subscription, connection: Connection) -> Listed {
        let title = subscription
            .title
            .clone()
            .filter(|title| !title.trim().is_empty())
            .or_else(|| subscription.resource_name.clone())
            .unwrap_or_else(|| format!("#{}", subscription.id));
        Listed {
            id: subscription.id,
            title: title.into(),
            target_type: subscription.target_type.clone(),
            target_value: subscription.target_value.clone().unwrap_or_default().into(),
            enabled: subscription.enabled,
            next_delivery_date: subscription.next_delivery_date,
            created_at: subscription.created_at,
            integration_id: subscription.integration_id,
            connection,
            recipients: recipients(
                subscription.target_type.as_ref(),
                subscription.target_value.as_deref(),
            ),
            fingerprint: fingerprint(subscription),
        }
    }

    /// The fields the health judgements read, as a subscription.
    pub fn subscription(&self) -> Subscription {
        Subscription {
            id: self.id,
            title: Some(self.title.to_string()),
            target_type: self.target_type.clone(),
            target_value: Some(self.target_value.to_string()),
            enabled: self.enabled,
            next_delivery_date: self.next_delivery_date,
            created_at: self.created_at,
            integration_id: self.integration_id,
            ..Subscription::default()
        }
    }

    /// "email a@x.dev", "slack #ops".
    pub fn target(&self) -> String {
        match &self.target_type {
            Some(kind) if self.target_value.is_empty() => kind.as_str().to_string(),
            Some(kind) => format!("{} {}", kind.as_str(), self.target_value),
            None => String::new(),
        }
    }

    pub fn is_slack(&self) -> bool {
        self.target_type == Some(TargetType::Slack)
    }
}

/// The subscriptions in each state as the list said, for the console's
/// state filters: their ids, and the rows themselves of every state but
/// active (those are few; active ones are found on any page).
#[derive(Debug, Clone, Default)]
pub struct States {
    /// When the list was read.
    pub at: Option<DateTime<Utc>>,
    pub total: u64,
    pub counts: HashMap<SubscriptionState, u64>,
    /// The rows of each state but active, as the server sent them, at most
    /// [`States::HELD`] in all; past it, `cut` says so.
    pub rows: HashMap<SubscriptionState, Vec<Subscription>>,
    pub cut: bool,
}

impl States {
    /// The most rows held for the state filters.
    pub const HELD: usize = 20_000;

    /// Counts a subscription in, and holds it when not active: the bytes
    /// that took.
    fn add(&mut self, subscription: &Subscription, now: DateTime<Utc>) -> u64 {
        let state = subscription.state(now);
        *self.counts.entry(state).or_default() += 1;
        if state == SubscriptionState::Active {
            return 0;
        }
        let held: usize = self.rows.values().map(Vec::len).sum();
        if held >= Self::HELD {
            self.cut = true;
            return 0;
        }
        self.rows.entry(state).or_default().push(subscription.clone());
        let text = |text: &Option<String>| text.as_ref().map_or(0, String::len);
        (std::mem::size_of::<Subscription>()
            + text(&subscription.title)
            + text(&subscription.target_value)
            + text(&subscription.resource_name)) as u64
    }
}

/// The list as read.
#[derive(Debug, Default)]
pub struct Read {
    pub rows: Vec<Listed>,
    /// Whether the integrations were read (else every Slack connection is
    /// `Unknown`).
    pub integrations: bool,
    /// Kept when asked for.
    pub states: Option<States>,
}

/// How the list is read.
pub struct Reading<'a> {
    pub client: &'a Client,
    pub project: &'a str,
    pub pacer: &'a Pacer,
    pub requests: &'a AtomicU64,
    pub stop: &'a AtomicBool,
    pub max_rows: u64,
    /// Keep the states and the rows of every state but active.
    pub keep_states: bool,
    pub now: DateTime<Utc>,
}

impl Reading<'_> {
    /// The project's Slack integrations, by id: whether each is broken.
    /// `None` when they cannot be read (a key without `integration:read`).
    pub async fn integrations(&self) -> Option<(HashMap<i64, bool>, bool)> {
        self.pacer.acquire().await;
        self.requests.fetch_add(1, Ordering::Relaxed);
        match self.client.integrations(self.project, "slack").await {
            Ok(page) => {
                // A project has a handful; a list longer than a page says
                // nothing of the ids it did not send.
                let whole = page.next.is_none();
                let broken = page
                    .results
                    .iter()
                    .map(|integration| (integration.id, integration.is_broken()))
                    .collect();
                Some((broken, whole))
            }
            Err(error) => {
                tracing::info!(%error, "the Slack integrations cannot be read; Slack subscriptions are judged by their deliveries");
                None
            }
        }
    }

    /// Every subscription of the project (not deleted), read whole, told
    /// to `progress` (rows read, rows in all) as pages arrive; `None` when
    /// stopped.
    pub async fn subscriptions(
        &self,
        integrations: Option<&(HashMap<i64, bool>, bool)>,
        progress: Arc<dyn Fn(u64, u64) + Send + Sync>,
    ) -> Result<Option<Read>, crate::api::Error> {
        let list = List::subscriptions(self.project, &SubscriptionFilter::default());
        let connection = |subscription: &Subscription| -> Connection {
            if subscription.target_type != Some(TargetType::Slack) {
                return Connection::Working;
            }
            let Some((broken, whole)) = integrations else {
                return Connection::Unknown;
            };
            match subscription.integration_id.map(|id| broken.get(&id)) {
                None => Connection::Missing,
                Some(Some(true)) => Connection::Revoked,
                Some(Some(false)) => Connection::Working,
                Some(None) if *whole => Connection::Missing,
                Some(None) => Connection::Unknown,
            }
        };
        for attempt in 0..TRIES {
            if self.stop.load(Ordering::Relaxed) {
                return Ok(None);
            }
            // The budget is asked once for the list's first page; the
            // pages after it are counted as they are sent (a look's list is
            // a few dozen requests, well within any minute's budget) and
            // told to the budget once the list is read.
            self.pacer.acquire().await;
            let sent = Arc::new(AtomicU64::new(0));
            let counted = {
                let progress = progress.clone();
                move |read: u64, total: u64| progress(read, total)
            };
            let options = FetchAll {
                page_size: PAGE,
                concurrency: PAGES_AT_ONCE,
                progress: Some(Arc::new(counted)),
                max_rows: Some(self.max_rows),
                // Called once before each request the read sends (its
                // sink is handed rows in runs, not pages).
                pace: Some(Arc::new({
                    let sent = sent.clone();
                    move || {
                        sent.fetch_add(1, Ordering::Relaxed);
                        Box::pin(std::future::ready(()))
                    }
                })),
            };
            let mut read = Read {
                integrations: integrations.is_some(),
                states: self.keep_states.then(|| States {
                    at: Some(self.now),
                    ..States::default()
                }),
                ..Read::default()
            };
            let mut held = 0u64;
            let streamed = self
                .client
                .for_each_page(&list, &options, |rows: Vec<Subscription>| {
                    for subscription in &rows {
                        if subscription.deleted {
                            continue;
                        }
                        let listed = Listed::new(subscription, connection(subscription));
                        held += listed.bytes();
                        read.rows.push(listed);
                        if let Some(states) = read.states.as_mut() {
                            held += states.add(subscription, self.now);
                        }
                    }
                    // What a look keeps counts against what one command
                    // may hold, as a list read whole does.
                    if held > self.client.max_held() {
                        return Err(Stopped::Failed(crate::api::Error::TooMuchHeld {
                            request: crate::api::RequestLabel {
                                method: "GET".into(),
                                path: list.path(),
                            },
                            limit: self.client.max_held(),
                            rows: read.rows.len() as u64,
                        }));
                    }
                    if self.stop.load(Ordering::Relaxed) {
                        return Err(Stopped::Stopped);
                    }
                    Ok(())
                })
                .await;
            let pages = sent.load(Ordering::Relaxed).max(1);
            self.requests.fetch_add(pages, Ordering::Relaxed);
            for _ in 1..pages {
                self.pacer.record();
            }
            match streamed {
                Ok(_whole) => {}
                Err(Stopped::Stopped) => return Ok(None),
                Err(Stopped::Failed(crate::api::Error::Incomplete(incomplete)))
                    if incomplete.changed_to.is_some() && attempt + 1 < TRIES =>
                {
                    tracing::info!("the subscriptions changed while they were read; reading them again");
                    continue;
                }
                // Ended early, repeated rows or changed each time: a look
                // never judges half a list.
                Err(Stopped::Failed(error)) => return Err(error),
            }
            if let Some(states) = read.states.as_mut() {
                states.total = read.rows.len() as u64;
            }
            return Ok(Some(read));
        }
        // Each try returns, the last whatever it found.
        Ok(None)
    }
}

enum Stopped {
    Stopped,
    Failed(crate::api::Error),
}

impl From<crate::api::Error> for Stopped {
    fn from(error: crate::api::Error) -> Self {
        Stopped::Failed(error)
    }
}
