//! What the server remembers between requests, for one generation of the
//! data.
//!
//! Every commit moves the data to a new generation, and what was remembered
//! of the old one (counts, whole answers, verified keys, the projects a key
//! may reach, the positions of lists) is forgotten. The generation is a
//! sequence lock: the writer makes it odd just before a commit and even
//! just after, so a read that finds the same even generation before and
//! after its work saw exactly that generation's data, and may trust and
//! remember what it read. A commit made by another process (a tool beside
//! the server, `orgdeck keys create`) is seen through SQLite's
//! `data_version` on a connection kept for watching, and moves the
//! generation too.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use rusqlite::Connection;
use rusqlite::types::Value as SqlValue;

use super::keys::KeyRecord;
use super::keyset::Positions;
use super::lock;
use super::rows;
use crate::server::error::ApiResult;

/// Counts remembered at most, per generation.
const COUNTS: usize = 256;

/// Verified keys, and projects keys may reach, remembered at most.
const KEYS: usize = 1024;

/// The most bytes of answers kept at once (about 350 pages of 100
/// subscriptions).
const ANSWER_BYTES: usize = 32 * 1024 * 1024;

/// Everything remembered, and the generation it belongs to.
pub struct Memory {
    /// Even while the data is settled, odd while a commit is under way.
    generation: AtomicU64,
    /// A connection that only watches for commits by other processes.
    watch: Mutex<Watch>,
    counts: Scoped<HashMap<String, u64>>,
    answers: Scoped<Answers>,
    keys: Scoped<HashMap<String, KeyRecord>>,
    /// The project a key reaches, by the key's id and the project as the
    /// path names it (`@current` or an id).
    projects: Scoped<HashMap<(String, String), i64>>,
    pub(super) positions: Scoped<Positions>,
}

struct Watch {
    connection: Connection,
    /// SQLite's `data_version` after the last commit this process knows of.
    seen: i64,
}

impl Watch {
    fn data_version(&self) -> Option<i64> {
        self.connection
            .prepare_cached("PRAGMA data_version")
            .and_then(|mut statement| statement.query_row([], |row| row.get(0)))
            .ok()
    }
}

impl Memory {
    pub(super) fn new(watch: Connection) -> Memory {
        let watch = Watch {
            connection: watch,
            seen: 0,
        };
        let seen = watch.data_version().unwrap_or(0);
        Memory {
            generation: AtomicU64::new(0),
            watch: Mutex::new(Watch { seen, ..watch }),
            counts: Scoped::default(),
            answers: Scoped::default(),
            keys: Scoped::default(),
            projects: Scoped::default(),
            positions: Scoped::default(),
        }
    }

    /// Called by the writer just before it commits.
    pub(super) fn commit_begins(&self) {
        self.generation.fetch_add(1, Ordering::SeqCst);
    }

    /// Called by the writer once its commit is done (or failed): its own
    /// commit is not taken for another process's.
    pub(super) fn commit_ends(&self) {
        {
            let mut watch = lock(&self.watch);
            if let Some(version) = watch.data_version() {
                watch.seen = version;
            }
        }
        self.generation.fetch_add(1, Ordering::SeqCst);
    }

    /// The caches of the generation the data is in now, for one read:
    /// none while a commit is under way, or when another process has
    /// committed since the last look (everything remembered is forgotten).
    pub fn snapshot(&self) -> Snapshot<'_> {
        let moved = {
            let mut watch = lock(&self.watch);
            match watch.data_version() {
                Some(version) if version != watch.seen => {
                    watch.seen = version;
                    true
                }
                Some(_) => false,
                // Cannot tell: trust nothing remembered.
                None => true,
            }
        };
        if moved {
            // Even stays even, odd stays odd.
            self.generation.fetch_add(2, Ordering::SeqCst);
            return self.forgetful();
        }
        let generation = self.generation.load(Ordering::SeqCst);
        Snapshot {
            memory: self,
            generation: generation.is_multiple_of(2).then_some(generation),
        }
    }

    /// A view that neither uses nor keeps anything remembered.
    pub fn forgetful(&self) -> Snapshot<'_> {
        Snapshot {
            memory: self,
            generation: None,
        }
    }

    fn is_current(&self, generation: u64) -> bool {
        self.generation.load(Ordering::SeqCst) == generation
    }
}

/// Something remembered for one generation; emptied when a newer one is
/// first asked about.
pub(super) struct Scoped<T> {
    inner: Mutex<(u64, T)>,
}

impl<T: Default> Default for Scoped<T> {
    fn default() -> Self {
        Scoped {
            inner: Mutex::new((0, T::default())),
        }
    }
}

impl<T: Default> Scoped<T> {
    /// `look` on what generation `generation` remembers; `None` when a
    /// newer generation is already remembered (the asker is behind).
    fn get<R>(&self, generation: u64, look: impl FnOnce(&mut T) -> R) -> Option<R> {
        let mut inner = lock(&self.inner);
        if inner.0 < generation {
            *inner = (generation, T::default());
        }
        (inner.0 == generation).then(|| look(&mut inner.1))
    }
}

/// The caches of one generation of the data, as one read sees them. A
/// read whose generation is unknown (`None`: a commit under way, or a
/// retry that trusts nothing) uses and keeps nothing.
#[derive(Clone, Copy)]
pub struct Snapshot<'a> {
    memory: &'a Memory,
    generation: Option<u64>,
}

impl<'a> Snapshot<'a> {
    /// Whether the data is still in the generation this read started in:
    /// then everything it read is of that generation.
    pub fn still_current(&self) -> bool {
        self.generation
            .is_none_or(|generation| self.memory.is_current(generation))
    }

    /// Whether this read uses what is remembered.
    pub fn remembers(&self) -> bool {
        self.generation.is_some()
    }

    /// `look` on a cache of this read's generation, when there is one.
    pub(super) fn get<T: Default, R>(&self, scoped: &Scoped<T>, look: impl FnOnce(&mut T) -> R) -> Option<R> {
        scoped.get(self.generation?, look)
    }

    /// `keep` on a cache of this read's generation, when the data is still
    /// in it: what this read found is then of that generation.
    pub(super) fn keep<T: Default>(&self, scoped: &Scoped<T>, keep: impl FnOnce(&mut T)) {
        let Some(generation) = self.generation else {
            return;
        };
        let mut inner = lock(&scoped.inner);
        if inner.0 < generation {
            *inner = (generation, T::default());
        }
        // Checked under the lock: a commit that began since cannot have
        // been seen by the reads that found what is kept.
        if inner.0 == generation && self.memory.is_current(generation) {
            keep(&mut inner.1);
        }
    }

    pub(super) fn positions(&self) -> &'a Scoped<Positions> {
        &self.memory.positions
    }

    /// The count remembered for `key`, or the one `count` finds.
    pub fn count_or(&self, key: String, count: impl FnOnce() -> ApiResult<u64>) -> ApiResult<u64> {
        if let Some(Some(known)) = self.get(&self.memory.counts, |counts| counts.get(&key).copied()) {
            return Ok(known);
        }
        let value = count()?;
        self.keep(&self.memory.counts, |counts| {
            if counts.len() >= COUNTS {
                counts.clear();
            }
            counts.insert(key, value);
        });
        Ok(value)
    }

    /// The rows `FROM ... WHERE ...` (`from_where`, bound to `values`)
    /// finds, counted once a generation.
    pub fn count(&self, connection: &Connection, from_where: &str, values: &[SqlValue]) -> ApiResult<u64> {
        let count_sql = format!("SELECT COUNT(*) {from_where}");
        self.count_or(format!("{count_sql} {values:?}"), || {
            Ok(connection
                .prepare_cached(&count_sql)?
                .query_row(rusqlite::params_from_iter(values.iter()), rows::count_at)?)
        })
    }

    /// The whole answer remembered for `key`, if any.
    pub fn answer(&self, key: &str) -> Option<bytes::Bytes> {
        self.get(&self.memory.answers, |answers| answers.by_key.get(key).cloned())
            .flatten()
    }

    /// The answer remembered for `key`, or the one `answer` makes
    /// (remembered while there is room).
    pub fn answer_or(
        &self,
        key: String,
        answer: impl FnOnce() -> ApiResult<bytes::Bytes>,
    ) -> ApiResult<bytes::Bytes> {
        if let Some(known) = self.answer(&key) {
            return Ok(known);
        }
        let made = answer()?;
        if made.len() <= ANSWER_BYTES {
            self.keep(&self.memory.answers, |answers| answers.insert(key, made.clone()));
        }
        Ok(made)
    }

    /// The key stored with this hash, as verified in this generation.
    pub fn key(&self, secure_value: &str) -> Option<KeyRecord> {
        self.get(&self.memory.keys, |keys| keys.get(secure_value).cloned())
            .flatten()
    }

    /// Remembers a key found by its hash (a key not found is not
    /// remembered: one minted meanwhile by another process is found).
    pub fn keep_key(&self, secure_value: &str, key: &KeyRecord) {
        self.keep(&self.memory.keys, |keys| {
            if keys.len() >= KEYS {
                keys.clear();
            }
            keys.insert(secure_value.to_string(), key.clone());
        });
    }

    /// The project `raw` names that the key may reach, as checked in this
    /// generation.
    pub fn project(&self, key_id: &str, raw: &str) -> Option<i64> {
        self.get(&self.memory.projects, |projects| {
            projects.get(&(key_id.to_string(), raw.to_string())).copied()
        })
        .flatten()
    }

    /// Remembers that the key may reach the project `raw` names.
    pub fn keep_project(&self, key_id: &str, raw: &str, project: i64) {
        self.keep(&self.memory.projects, |projects| {
            if projects.len() >= KEYS {
                projects.clear();
            }
            projects.insert((key_id.to_string(), raw.to_string()), project);
        });
    }
}

/// Whole answers to list requests: the same question (after the caller's
/// key and access are checked afresh) gets the same bytes without reading
/// and serialising 100 rows again. Bounded in bytes (emptied when full).
#[derive(Default)]
struct Answers {
    bytes: usize,
    by_key: HashMap<String, bytes::Bytes>,
}

impl Answers {
    fn insert(&mut self, key: String, answer: bytes::Bytes) {
        // Full: start again rather than keep the oldest answers forever.
        if self.bytes + answer.len() > ANSWER_BYTES {
            self.by_key.clear();
            self.bytes = 0;
        }
        self.bytes += answer.len();
        if let Some(replaced) = self.by_key.insert(key, answer) {
            self.bytes -= replaced.len();
        }
    }
}
