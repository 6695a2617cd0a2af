//! SQLite storage of the reference server.
//!
//! One file in WAL mode with foreign keys on and a versioned schema. Writes go
//! through a single writer connection, each in an immediate transaction with
//! `synchronous = FULL`, so an acknowledged write survives the process being
//! killed at any moment. Reads use a small pool of reader connections that
//! WAL lets run beside the writer. All database work runs on tokio's blocking
//! threads, never on the async workers.

pub mod access;
pub mod deliveries;
pub mod directory;
pub mod integrations;
pub mod keys;
pub mod keyset;
pub mod member_list;
pub mod members;
pub mod memberships;
pub mod memory;
pub mod objects;
pub mod roles;
pub(crate) mod rows;
mod schema;
pub mod subscription_list;
pub mod subscriptions;

use std::path::Path;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, Transaction, TransactionBehavior};

use super::error::{ApiError, ApiResult};
pub use memory::{Memory, Snapshot};

/// Page cache a connection, in KiB when negative (SQLite's convention).
pub(crate) const CACHE_SIZE: i64 = -32_768;

/// How many reader connections serve requests at once.
const READERS: usize = 4;

/// How many of them searches may hold at once: a search may read every row
/// of a project, and the other readers stay free for everything else (the
/// key check of every request among it), however many searches arrive.
const SEARCHERS: usize = 2;
/// The store, shared by every request handler.
#[derive(Clone)]
pub struct Db {
    inner: Arc<Store>,
}

struct Store {
    writer: Mutex<Connection>,
    readers: Pool,
    searchers: Arc<tokio::sync::Semaphore>,
    memory: Memory,
}

/// Tries of a list read with what is remembered, before one that
/// trusts nothing (commits kept landing while it read).
const REMEMBERING_TRIES: usize = 2;

impl Db {
    /// Opens (creating when needed) and migrates the database at `path`.
    pub fn open(path: &Path) -> anyhow::Result<Db> {
        create_private(path)?;
        let mut writer = open_connection(path)?;
        schema::migrate(&mut writer)?;
        let readers = (0..READERS)
            .map(|_| open_connection(path))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let watch = open_connection(path)?;
        Ok(Db {
            inner: Arc::new(Store {
                writer: Mutex::new(writer),
                readers: Pool::new(readers),
                searchers: Arc::new(tokio::sync::Semaphore::new(SEARCHERS)),
                memory: Memory::new(watch),
            }),
        })
    }

    /// Runs `work` on a reader connection, off the async workers.
    pub async fn read<T, F>(&self, work: F) -> ApiResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> ApiResult<T> + Send + 'static,
    {
        let store = self.inner.clone();
        blocking(move || {
            let connection = store.readers.take();
            work(&connection)
        })
        .await
    }

    /// [`Db::read`] for work that may read a whole list (a search): it
    /// waits for the other searches before it takes a reader.
    pub async fn read_search<T, F>(&self, work: F) -> ApiResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> ApiResult<T> + Send + 'static,
    {
        // The semaphore is never closed, so acquiring fails only in theory.
        // The permit goes with the work, not with this future: a client
        // that hangs up frees no place while its search still runs.
        let permit = self
            .inner
            .searchers
            .clone()
            .acquire_owned()
            .await
            .map_err(|error| ApiError::internal(format!("search gate closed: {error}")))?;
        let store = self.inner.clone();
        blocking(move || {
            let _permit = permit;
            let connection = store.readers.take();
            work(&connection)
        })
        .await
    }

    /// Runs `work` in one immediate transaction on the writer connection and
    /// commits when it succeeds; an error rolls everything back.
    pub async fn write<T, F>(&self, work: F) -> ApiResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Transaction) -> ApiResult<T> + Send + 'static,
    {
        let db = self.clone();
        blocking(move || db.write_blocking(work)).await
    }

    /// The blocking form of [`Db::write`], for start-up work and tools.
    pub fn write_blocking<T>(&self, work: impl FnOnce(&Transaction) -> ApiResult<T>) -> ApiResult<T> {
        let mut connection = lock(&self.inner.writer);
        let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let value = work(&transaction)?;
        // Odd while the commit lands: no read trusts what it remembers
        // then, and a read that began before sees the generation move.
        let memory = &self.inner.memory;
        memory.commit_begins();
        let committed = transaction.commit();
        memory.commit_ends();
        committed?;
        Ok(value)
    }

    /// The blocking form of [`Db::read`].
    pub fn read_blocking<T>(&self, work: impl FnOnce(&Connection) -> ApiResult<T>) -> ApiResult<T> {
        let connection = self.inner.readers.take();
        work(&connection)
    }

    /// What is remembered of the data's generation now (verified keys,
    /// the projects they reach, whole answers), for a read that needs no
    /// connection.
    pub fn snapshot(&self) -> Snapshot<'_> {
        self.inner.memory.snapshot()
    }

    /// Runs `work`, which reads a list, on a reader connection with what
    /// is remembered of the data's generation. When a commit lands while
    /// it reads, what it read may mix two generations with what was
    /// remembered of one: it runs again, and at last in one read
    /// transaction that trusts nothing remembered. `searches` waits for the
    /// other searches first ([`Db::read_search`]).
    pub async fn read_list<T, F>(&self, searches: bool, mut work: F) -> ApiResult<T>
    where
        T: Send + 'static,
        F: FnMut(&Connection, &Snapshot) -> ApiResult<T> + Send + 'static,
    {
        let mut remembering = move |connection: &Connection, memory: &Memory| -> ApiResult<T> {
            for _ in 0..REMEMBERING_TRIES {
                let snapshot = memory.snapshot();
                let value = work(connection, &snapshot)?;
                if snapshot.still_current() {
                    return Ok(value);
                }
            }
            let transaction = connection.unchecked_transaction()?;
            let value = work(&transaction, &memory.forgetful())?;
            transaction.commit()?;
            Ok(value)
        };
        let store = self.inner.clone();
        if searches {
            let store = self.inner.clone();
            return self
                .read_search(move |connection| remembering(connection, &store.memory))
                .await;
        }
        self.read(move |connection| remembering(connection, &store.memory))
            .await
    }
}

/// Runs blocking database work on tokio's blocking pool.
async fn blocking<T: Send + 'static>(work: impl FnOnce() -> ApiResult<T> + Send + 'static) -> ApiResult<T> {
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|join_error| Err(ApiError::internal(format!("database task failed: {join_error}"))))
}

/// Creates the database file readable by its owner alone, when it does not
/// exist yet: it holds key hashes and people's addresses. SQLite gives the
/// `-wal` and `-shm` files the mode of the database file.
fn create_private(path: &Path) -> anyhow::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(error) => Err(anyhow::Error::new(error).context(format!("cannot create {}", path.display()))),
    }
}

/// Prepared statements each connection keeps.
const STATEMENTS: usize = 512;

/// Bytes of the database file each connection maps: the most SQLite maps
/// (its default `SQLITE_MAX_MMAP_SIZE`, just under 2 GiB). Address space,
/// not memory: the pages are the operating system's file cache, shared by
/// every connection. Mapped only up to 256 MiB, an organization of 180,000
/// people (a 625 MB file, its members and memberships past the first 256
/// MB) read every page beyond through the connection's own 32 MiB cache,
/// copied in from the file and soon pushed out again: a list of its roles
/// and every membership cost 2.8 times the server CPU of one of 90,000.
const MMAP_SIZE: i64 = 0x7fff_0000;

fn open_connection(path: &Path) -> anyhow::Result<Connection> {
    let flags =
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let connection = Connection::open_with_flags(path, flags)?;
    connection.busy_timeout(Duration::from_secs(5))?;
    connection.pragma_update(None, "journal_mode", "WAL")?;
    connection.pragma_update(None, "synchronous", "FULL")?;
    connection.pragma_update(None, "foreign_keys", "ON")?;
    // 32 MiB of page cache a connection (the default is 2 MiB): 100,000
    // subscriptions and their indexes stay in memory, and a bulk insert
    // does not evict the pages it is about to touch again.
    connection.pragma_update(None, "cache_size", CACHE_SIZE)?;
    connection.pragma_update(None, "temp_store", "MEMORY")?;
    // Every write empties every reader's page cache (SQLite keeps no list
    // of the pages changed): mapped, the file's pages are read again in
    // place rather than copied in, which is what a search after a write
    // costs at 50,000 members.
    connection.pragma_update(None, "mmap_size", MMAP_SIZE)?;
    // A list read from remembered positions runs a statement per sort term
    // and way (`keyset`): a few lists asked in turn would otherwise keep
    // pushing each other's statements out, and preparing one again costs
    // more than running it.
    connection.set_prepared_statement_cache_capacity(STATEMENTS);
    register_icontains(&connection)?;
    Ok(connection)
}

/// `icontains(text, term)`: whether `text` holds `term`, in any case
/// (Unicode's lower case, as Django's `icontains` compares); null text holds
/// nothing. SQLite's `LIKE` folds ASCII letters alone.
///
/// `holds_all(text, terms)`: whether `text` holds every one of `terms`, a
/// JSON array of strings, in the same sense: one call per row for a whole
/// search, the terms parsed once per statement.
fn register_icontains(connection: &Connection) -> rusqlite::Result<()> {
    use rusqlite::functions::FunctionFlags;
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    connection.create_scalar_function("icontains", 2, flags, |context| {
        let text = context.get_raw(0).as_str_or_null()?;
        let term = context.get_raw(1).as_str()?;
        Ok(text.is_some_and(|text| contains_folded(text, term)))
    })?;
    connection.create_scalar_function("holds_all", 2, flags, |context| {
        let terms = context.get_or_create_aux(1, |value| {
            let json = value.as_str().map_err(|error| error.to_string())?;
            serde_json::from_str::<Vec<String>>(json)
                .map(|terms| terms.iter().map(|term| term.to_lowercase()).collect::<Vec<_>>())
                .map_err(|error| error.to_string())
        })?;
        let text = context.get_raw(0).as_str_or_null()?;
        Ok(text.is_some_and(|text| holds_all(text, &terms)))
    })
}

/// Every term (folded to lower case already) in `text`, case folded; the
/// text is folded at most once.
fn holds_all(text: &str, folded_terms: &[String]) -> bool {
    let mut folded: Option<String> = None;
    folded_terms.iter().all(|term| {
        if text.is_ascii() && term.is_ascii() {
            contains_folded(text, term)
        } else {
            folded
                .get_or_insert_with(|| text.to_lowercase())
                .contains(term.as_str())
        }
    })
}

/// `term` in `text`, case folded; without allocating when both are ASCII.
fn contains_folded(text: &str, term: &str) -> bool {
    if text.is_ascii() && term.is_ascii() {
        let (text, term) = (text.as_bytes(), term.as_bytes());
        term.is_empty()
            || text
                .windows(term.len())
                .any(|window| window.eq_ignore_ascii_case(term))
    } else {
        text.to_lowercase().contains(&term.to_lowercase())
    }
}

/// Locks a mutex, carrying on after a panic elsewhere: the data behind these
/// locks (connections, a cache) stays valid whatever a panicking holder did.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A fixed set of reader connections handed out one at a time.
struct Pool {
    idle: Mutex<Vec<Connection>>,
    returned: Condvar,
}

impl Pool {
    fn new(connections: Vec<Connection>) -> Self {
        Pool {
            idle: Mutex::new(connections),
            returned: Condvar::new(),
        }
    }

    /// Waits for an idle connection.
    fn take(&self) -> Pooled<'_> {
        let mut idle = lock(&self.idle);
        loop {
            if let Some(connection) = idle.pop() {
                return Pooled {
                    pool: self,
                    connection: Some(connection),
                };
            }
            idle = self.returned.wait(idle).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// A connection on loan from the pool; it goes back when dropped.
struct Pooled<'a> {
    pool: &'a Pool,
    connection: Option<Connection>,
}

impl std::ops::Deref for Pooled<'_> {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        // The connection is taken out only in `drop`, so it is here until then.
        self.connection
            .as_ref()
            .unwrap_or_else(|| unreachable!("connection returned before drop"))
    }
}

impl Drop for Pooled<'_> {
    fn drop(&mut self) {
        if let Some(connection) = self.connection.take() {
            lock(&self.pool.idle).push(connection);
            self.pool.returned.notify_one();
        }
    }
}
