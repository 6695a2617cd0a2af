//! How access is read: every request through one [`Reader`], which keeps a
//! few in flight at once, paces them under PostHog Cloud's limits with
//! Health's budget (posthog.md 12: 480 a minute and 4,800 an hour per
//! key), counts them for progress, and stops promptly when told (Ctrl-C
//! in the CLI, Esc in the console): a request in flight is dropped, none
//! is started after.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use tokio::sync::{Notify, Semaphore};

use crate::api::{Client, Error};
use crate::clock::Clock;
use crate::health::budget::{Budget, Pacer};

/// Requests in flight at once by default. Fewer would do for pacing, but a
/// person's access across 20 projects is some 120 requests of a few KB,
/// and each costs a round trip.
pub const CONCURRENCY: usize = 16;

/// Requests in flight at once where each answer is a few KB (a person's
/// access asked `?member_id=`, a role's `?role_id=`, `users_with_access`):
/// `access person|role|who` and the console's pages that say the same.
pub const SMALL_ANSWERS_AT_ONCE: usize = 32;

/// A stop asked for from outside: between requests, or during one.
#[derive(Default)]
pub struct Stop {
    flag: AtomicBool,
    notify: Notify,
}

impl Stop {
    pub fn new() -> Arc<Stop> {
        Arc::new(Stop::default())
    }

    /// Asks every read to stop.
    pub fn stop(&self) {
        self.flag.store(true, Ordering::SeqCst);
        self.notify.notify_waiters();
    }

    pub fn is_stopped(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }

    /// Resolves once a stop is asked for.
    pub async fn stopped(&self) {
        loop {
            let notified = self.notify.notified();
            if self.is_stopped() {
                return;
            }
            notified.await;
        }
    }
}

/// Why a read gave nothing.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The server or the connection failed.
    #[error(transparent)]
    Api(#[from] Error),
    /// A stop was asked for.
    #[error("stopped")]
    Stopped,
}

impl ReadError {
    /// The API's error, if that is what it was.
    pub fn api(&self) -> Option<&Error> {
        match self {
            ReadError::Api(error) => Some(error),
            ReadError::Stopped => None,
        }
    }
}

pub type ReadResult<T> = Result<T, ReadError>;

/// How a read goes about it.
#[derive(Debug, Clone, Copy)]
pub struct ReadOptions {
    /// Requests in flight at once.
    pub concurrency: usize,
    /// Requests a minute and an hour.
    pub budget: Budget,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            concurrency: CONCURRENCY,
            budget: Budget::default(),
        }
    }
}

/// Sends every request of an access read: a few at a time, paced, counted
/// and stoppable.
pub struct Reader {
    client: Client,
    slots: Semaphore,
    /// Shared with other reads of the same key where they run at once
    /// (the console's: one budget however many screens read).
    pacer: Arc<Pacer>,
    stop: Arc<Stop>,
    requests: AtomicU64,
}

impl Reader {
    pub fn new(client: &Client, options: ReadOptions, clock: Clock, stop: Arc<Stop>) -> Reader {
        Reader {
            client: client.clone(),
            slots: Semaphore::new(options.concurrency.max(1)),
            pacer: Arc::new(Pacer::new(options.budget, clock)),
            stop,
            requests: AtomicU64::new(0),
        }
    }

    /// A reader whose requests count against `pacer`'s budget together
    /// with every other reader given it.
    pub fn paced_by(client: &Client, concurrency: usize, pacer: Arc<Pacer>, stop: Arc<Stop>) -> Reader {
        Reader {
            client: client.clone(),
            slots: Semaphore::new(concurrency.max(1)),
            pacer,
            stop,
            requests: AtomicU64::new(0),
        }
    }

    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Requests sent so far.
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    pub fn is_stopped(&self) -> bool {
        self.stop.is_stopped()
    }

    /// Counts `pages` more requests a list read in one slot made, and
    /// waits as the budget says, so that what follows stays within it.
    pub async fn charge(&self, pages: u64) -> ReadResult<()> {
        for _ in 0..pages {
            if self.is_stopped() {
                return Err(ReadError::Stopped);
            }
            tokio::select! {
                biased;
                () = self.stop.stopped() => return Err(ReadError::Stopped),
                () = self.pacer.acquire() => {}
            }
            self.requests.fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    }

    /// Sends one request when a slot is free and the budget allows; a stop
    /// ends the wait or the request itself.
    pub async fn read<T, F>(&self, request: impl FnOnce(Client) -> F) -> ReadResult<T>
    where
        F: Future<Output = crate::api::error::Result<T>>,
    {
        let sent = async {
            // The semaphore is never closed: acquiring fails only then.
            let _slot = self.slots.acquire().await.map_err(|_| ReadError::Stopped)?;
            if self.is_stopped() {
                return Err(ReadError::Stopped);
            }
            self.pacer.acquire().await;
            if self.is_stopped() {
                return Err(ReadError::Stopped);
            }
            self.requests.fetch_add(1, Ordering::Relaxed);
            request(self.client.clone()).await.map_err(ReadError::Api)
        };
        tokio::select! {
            biased;
            () = self.stop.stopped() => Err(ReadError::Stopped),
            result = sent => result,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_stop_ends_reads_waiting_and_in_flight() {
        let client = Client::new(crate::api::ClientConfig::new(
            "http://127.0.0.1:9",
            crate::api::ApiKey::new("phx_test"),
        ))
        .unwrap();
        let stop = Stop::new();
        let reader = Reader::new(
            &client,
            ReadOptions {
                concurrency: 1,
                budget: Budget::UNLIMITED,
            },
            Clock::system(),
            stop.clone(),
        );
        let never = reader.read(|_| std::future::pending::<crate::api::error::Result<()>>());
        let stopper = async {
            tokio::task::yield_now().await;
            stop.stop();
        };
        let (read, ()) = tokio::join!(never, stopper);
        assert!(matches!(read, Err(ReadError::Stopped)));
        assert_eq!(reader.requests(), 1);
        let after = reader.read(|_| async { Ok(()) }).await;
        assert!(matches!(after, Err(ReadError::Stopped)));
        assert_eq!(reader.requests(), 1, "nothing is sent after a stop");
    }
}
