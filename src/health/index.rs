//! What earlier looks learnt, kept on disk per host and project: each
//! subscription's health, when it was looked at, and a fingerprint of the
//! fields that, when they change, mean its deliveries must be read again.
//!
//! One SQLite file in the state directory (`health/<digest>.sqlite`),
//! updated in place, a row at a time: a look that reads one subscription's
//! deliveries writes that subscription's row and nothing else, so a look's
//! cost stays the same per subscription however large the project, and a
//! look stopped at any moment (Esc, Ctrl-C, kill -9) keeps every result
//! written so far: the next look goes on from there. The path is checked
//! before SQLite opens it (no link followed, no FIFO or device, a bounded
//! size, owner-only, in an owner-only directory; `config::files`), and
//! SQLite is told not to follow a link either.
//!
//! Two orgdeck processes may look at once: SQLite serialises their writes,
//! and of two looks at one subscription the newer wins. A file that is not
//! an index this version can read (damaged, another layout, another host
//! or project) is set aside and the index starts again empty.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use chrono::{DateTime, Utc};
use rusqlite::{Connection, OpenFlags, OptionalExtension, params};
use sha2::{Digest, Sha256};

use crate::api::Subscription;
use crate::api::health::{Assessment, Health};

/// The layout of the file (SQLite's `user_version`); another number is
/// another layout.
const VERSION: i64 = 2;

/// The largest index file opened: far above what a million subscriptions
/// take (about 300 bytes each).
const MAX_BYTES: u64 = 4 * 1024 * 1024 * 1024;

/// How long a write waits for another process's.
const BUSY: Duration = Duration::from_secs(10);

/// What a look learnt about one subscription.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The fields whose change means new deliveries may be there.
    pub fingerprint: u64,
    pub looked_at: DateTime<Utc>,
    pub assessment: Assessment,
}

/// What the index knows of a subscription without its assessment: what a
/// look needs to decide whether, and how soon, to read it again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Known {
    pub fingerprint: u64,
    pub looked_at: DateTime<Utc>,
    pub health: Health,
    /// Its deliveries could not be read last time.
    pub unreadable: bool,
}

/// The fields a delivery, a pause or a new target changes: a look reads
/// the deliveries again only when these differ from the last look's. A
/// stable hash (FNV-1a), the same in every version and on every machine.
pub fn fingerprint(subscription: &Subscription) -> u64 {
    let text = format!(
        "{}|{:?}|{}|{}|{:?}|{}",
        subscription
            .next_delivery_date
            .map(|at| at.to_rfc3339())
            .unwrap_or_default(),
        subscription.enabled,
        subscription.target_type.as_ref().map_or("", |kind| kind.as_str()),
        subscription.target_value.as_deref().unwrap_or(""),
        subscription.integration_id,
        subscription.deleted,
    );
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// How the last look that ended went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LastLook {
    pub at: DateTime<Utc>,
    pub requests: u64,
    /// It reached every subscription.
    pub complete: bool,
}

/// The index of one host and project.
#[derive(Debug)]
pub struct Index {
    path: PathBuf,
    connection: Connection,
}

impl Index {
    /// The index of `host` and `project` in `dir`, or an empty one when
    /// there is none yet (or none that this version can read). A link, a
    /// FIFO or a device at its path is refused, with the path and why.
    pub fn open(dir: &Path, host: &str, project: &str) -> anyhow::Result<Index> {
        let digest = Sha256::digest(format!("{host}\n{project}").as_bytes());
        let stem = &hex::encode(digest)[..20];
        let health = dir.join("health");
        let path = health.join(format!("{stem}.sqlite"));
        // The JSON index of earlier versions is only a cache: it goes.
        for old in ["json", "lock", "json.unreadable"] {
            remove_if_file(&health.join(format!("{stem}.{old}")));
        }
        make_private(&path)?;
        match Self::connect(&path, host, project) {
            Ok(connection) => Ok(Index { path, connection }),
            Err(why) => {
                tracing::warn!(path = %path.display(), "the health index {why:#}; starting again");
                let aside = path.with_extension("sqlite.unreadable");
                std::fs::rename(&path, &aside)
                    .with_context(|| format!("cannot set {} aside", path.display()))?;
                for suffix in ["-wal", "-shm", "-journal"] {
                    remove_if_file(&PathBuf::from(format!("{}{suffix}", path.display())));
                }
                make_private(&path)?;
                let connection = Self::connect(&path, host, project)
                    .with_context(|| format!("cannot make the health index {}", path.display()))?;
                Ok(Index { path, connection })
            }
        }
    }

    /// Opens (or makes) the file and checks it is this host's and
    /// project's index of this layout.
    fn connect(path: &Path, host: &str, project: &str) -> anyhow::Result<Connection> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NOFOLLOW
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let connection = Connection::open_with_flags(path, flags)?;
        connection.busy_timeout(BUSY)?;
        // Written by one look at a time, read whole at the next: the
        // write-ahead log keeps each write small, and a crash loses at
        // most the last of them, never the file.
        connection.pragma_update(None, "journal_mode", "WAL")?;
        connection.pragma_update(None, "synchronous", "NORMAL")?;
        let version: i64 = connection.pragma_query_value(None, "user_version", |row| row.get(0))?;
        if version == 0 {
            connection.execute_batch(
                "BEGIN IMMEDIATE;
                 CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                 CREATE TABLE IF NOT EXISTS entries (
                     id INTEGER PRIMARY KEY,
                     fingerprint INTEGER NOT NULL,
                     looked_at INTEGER NOT NULL,
                     health TEXT NOT NULL,
                     unreadable INTEGER NOT NULL DEFAULT 0,
                     assessment TEXT NOT NULL
                 );
                 COMMIT;",
            )?;
            let tx = connection.unchecked_transaction()?;
            let set = |key: &str, value: &str| {
                tx.execute(
                    "INSERT OR IGNORE INTO meta (key, value) VALUES (?1, ?2)",
                    params![key, value],
                )
            };
            set("host", host)?;
            set("project", project)?;
            tx.pragma_update(None, "user_version", VERSION)?;
            tx.commit()?;
        } else if version != VERSION {
            anyhow::bail!("was written by another version (layout {version})");
        }
        let meta = |key: &str| -> rusqlite::Result<Option<String>> {
            connection
                .query_row("SELECT value FROM meta WHERE key = ?1", [key], |row| row.get(0))
                .optional()
        };
        if meta("host")?.as_deref() != Some(host) || meta("project")?.as_deref() != Some(project) {
            anyhow::bail!("is another host's or project's");
        }
        Ok(connection)
    }

    /// The file, for messages.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What the index knows of every subscription, without assessments.
    pub fn known(&self) -> anyhow::Result<HashMap<i64, Known>> {
        let mut statement = self
            .connection
            .prepare_cached("SELECT id, fingerprint, looked_at, health, unreadable FROM entries")?;
        let rows = statement.query_map([], |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, i64>(1)?,
                row.get::<_, i64>(2)?,
                row.get::<_, String>(3)?,
                row.get::<_, bool>(4)?,
            ))
        })?;
        let mut known = HashMap::new();
        for row in rows {
            let (id, fingerprint, looked_at, health, unreadable) = row?;
            // A row this version cannot read is as good as none.
            let (Some(looked_at), Ok(health)) = (from_millis(looked_at), health.parse::<Health>()) else {
                continue;
            };
            known.insert(
                id,
                Known {
                    fingerprint: fingerprint as u64,
                    looked_at,
                    health,
                    unreadable,
                },
            );
        }
        Ok(known)
    }

    /// One subscription's entry.
    pub fn entry(&self, id: i64) -> anyhow::Result<Option<Entry>> {
        let mut statement = self
            .connection
            .prepare_cached("SELECT fingerprint, looked_at, assessment FROM entries WHERE id = ?1")?;
        let found = statement
            .query_row([id], |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    row.get::<_, i64>(1)?,
                    row.get::<_, String>(2)?,
                ))
            })
            .optional()?;
        Ok(
            found
                .and_then(|(fingerprint, looked_at, assessment)| decode(fingerprint, looked_at, &assessment)),
        )
    }

    /// Every entry, handed to `each` one at a time (nothing gathered).
    pub fn each(&self, mut each: impl FnMut(i64, Entry)) -> anyhow::Result<()> {
        let mut statement = self
            .connection
            .prepare_cached("SELECT id, fingerprint, looked_at, assessment FROM entries")?;
        let mut rows = statement.query([])?;
        while let Some(row) = rows.next()? {
            let id: i64 = row.get(0)?;
            let assessment: String = row.get(3)?;
            if let Some(entry) = decode(row.get(1)?, row.get(2)?, &assessment) {
                each(id, entry);
            }
        }
        Ok(())
    }

    pub fn len(&self) -> anyhow::Result<usize> {
        let count: i64 = self
            .connection
            .query_row("SELECT count(*) FROM entries", [], |row| row.get(0))?;
        Ok(usize::try_from(count).unwrap_or(0))
    }

    pub fn is_empty(&self) -> anyhow::Result<bool> {
        Ok(self.len()? == 0)
    }

    /// Writes these entries in one transaction; of two looks at one
    /// subscription (this process's and another's), the newer stays.
    pub fn record(&mut self, entries: &[(i64, Entry)]) -> anyhow::Result<()> {
        if entries.is_empty() {
            return Ok(());
        }
        let tx = self.connection.transaction()?;
        {
            let mut upsert = tx.prepare_cached(
                "INSERT INTO entries (id, fingerprint, looked_at, health, unreadable, assessment)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT (id) DO UPDATE SET
                     fingerprint = excluded.fingerprint, looked_at = excluded.looked_at,
                     health = excluded.health, unreadable = excluded.unreadable,
                     assessment = excluded.assessment
                 WHERE excluded.looked_at >= entries.looked_at",
            )?;
            for (id, entry) in entries {
                let assessment = serde_json::to_string(&entry.assessment)?;
                upsert.execute(params![
                    id,
                    entry.fingerprint as i64,
                    entry.looked_at.timestamp_millis(),
                    entry.assessment.health.as_str(),
                    entry.assessment.health == Health::Unknown,
                    assessment,
                ])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Forgets these subscriptions (no longer listed).
    pub fn forget(&mut self, ids: &[i64]) -> anyhow::Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let tx = self.connection.transaction()?;
        {
            let mut delete = tx.prepare_cached("DELETE FROM entries WHERE id = ?1")?;
            for id in ids {
                delete.execute([id])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Records how a look ended.
    pub fn finished(&mut self, look: LastLook) -> anyhow::Result<()> {
        let tx = self.connection.transaction()?;
        for (key, value) in [
            ("looked_at", look.at.timestamp_millis().to_string()),
            ("requests", look.requests.to_string()),
            ("complete", look.complete.to_string()),
        ] {
            tx.execute(
                "INSERT INTO meta (key, value) VALUES (?1, ?2)
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                params![key, value],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    /// How the last look that ended went, if one did.
    pub fn last_look(&self) -> anyhow::Result<Option<LastLook>> {
        let meta = |key: &str| -> anyhow::Result<Option<String>> {
            Ok(self
                .connection
                .query_row("SELECT value FROM meta WHERE key = ?1", [key], |row| row.get(0))
                .optional()?)
        };
        let at = meta("looked_at")?
            .and_then(|millis| millis.parse().ok())
            .and_then(from_millis);
        Ok(at.map(|at| LastLook {
            at,
            requests: meta("requests")
                .ok()
                .flatten()
                .and_then(|n| n.parse().ok())
                .unwrap_or(0),
            complete: meta("complete").ok().flatten().is_some_and(|done| done == "true"),
        }))
    }
}

fn from_millis(millis: i64) -> Option<DateTime<Utc>> {
    DateTime::from_timestamp_millis(millis)
}

fn decode(fingerprint: i64, looked_at: i64, assessment: &str) -> Option<Entry> {
    Some(Entry {
        fingerprint: fingerprint as u64,
        looked_at: from_millis(looked_at)?,
        assessment: serde_json::from_str(assessment).ok()?,
    })
}

/// Checks the index's path (a regular file or none, no link) and makes an
/// empty file there, owner-only, when there is none: SQLite then takes it
/// as an empty database, and makes its log files with the same mode.
fn make_private(path: &Path) -> anyhow::Result<()> {
    use crate::config::files::{Create, check_private, create_private};
    let context = || format!("cannot use the health index {}", path.display());
    check_private(path, MAX_BYTES).with_context(context)?;
    match create_private(path, Create::New) {
        Ok(_) => Ok(()),
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(error) => Err(error).with_context(context),
    }
}

/// Removes a regular file (never what a link points to), quietly.
fn remove_if_file(path: &Path) {
    if std::fs::symlink_metadata(path).is_ok_and(|meta| meta.is_file()) {
        let _ = std::fs::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(health: Health, at: DateTime<Utc>) -> Entry {
        Entry {
            fingerprint: 7,
            looked_at: at,
            assessment: Assessment {
                health,
                since: None,
                streak: 0,
                last_delivery: None,
                failed_recipients: Vec::new(),
                fix: None,
            },
        }
    }

    fn at(minute: i64) -> DateTime<Utc> {
        crate::api::time::parse_datetime("2026-11-25T12:00:00Z").unwrap() + chrono::Duration::minutes(minute)
    }

    #[test]
    fn two_processes_keep_both_and_the_newer_look_wins() {
        let dir = tempfile::tempdir().unwrap();
        let (host, project) = ("http://127.0.0.1:1", "1");
        let mut one = Index::open(dir.path(), host, project).unwrap();
        let mut two = Index::open(dir.path(), host, project).unwrap();
        one.record(&[(1, entry(Health::Ok, at(0))), (3, entry(Health::Ok, at(0)))])
            .unwrap();
        two.record(&[
            (2, entry(Health::Failing, at(0))),
            (3, entry(Health::Partial, at(1))),
        ])
        .unwrap();
        // An older look of 3 comes late: the newer stays.
        one.record(&[(3, entry(Health::Ok, at(0)))]).unwrap();
        let both = Index::open(dir.path(), host, project).unwrap();
        assert_eq!(both.len().unwrap(), 3);
        let known = both.known().unwrap();
        assert_eq!(known[&1].health, Health::Ok);
        assert_eq!(known[&2].health, Health::Failing);
        assert_eq!(known[&3].health, Health::Partial, "the newer look wins");
        assert_eq!(both.entry(3).unwrap().unwrap().looked_at, at(1));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(both.path()).unwrap().permissions().mode();
            assert_eq!(mode & 0o077, 0, "owner-only: {mode:o}");
            let dir_mode = std::fs::metadata(both.path().parent().unwrap())
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(dir_mode & 0o077, 0, "owner-only directory: {dir_mode:o}");
        }
        let mut three = Index::open(dir.path(), host, project).unwrap();
        three.forget(&[2]).unwrap();
        assert_eq!(three.entry(2).unwrap(), None);
        three
            .finished(LastLook {
                at: at(5),
                requests: 12,
                complete: true,
            })
            .unwrap();
        assert_eq!(
            Index::open(dir.path(), host, project)
                .unwrap()
                .last_look()
                .unwrap(),
            Some(LastLook {
                at: at(5),
                requests: 12,
                complete: true
            })
        );
    }

    #[test]
    fn a_damaged_or_foreign_index_is_set_aside() {
        let dir = tempfile::tempdir().unwrap();
        let (host, project) = ("http://127.0.0.1:1", "1");
        let mut index = Index::open(dir.path(), host, project).unwrap();
        index.record(&[(1, entry(Health::Ok, at(0)))]).unwrap();
        let path = index.path().to_path_buf();
        drop(index);
        std::fs::write(&path, b"{\"version\": 1, \"entries\": [garbage").unwrap();
        let fresh = Index::open(dir.path(), host, project).unwrap();
        assert!(fresh.is_empty().unwrap());
        assert!(path.with_extension("sqlite.unreadable").exists());
    }

    #[cfg(unix)]
    #[test]
    fn a_link_a_fifo_or_a_device_at_the_index_path_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (host, project) = ("http://127.0.0.1:1", "1");
        let path = Index::open(dir.path(), host, project)
            .unwrap()
            .path()
            .to_path_buf();
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
        let error = format!("{:#}", Index::open(dir.path(), host, project).unwrap_err());
        assert!(error.contains("symbolic link"), "{error}");
        std::fs::remove_file(&path).unwrap();
        let name = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a C string made just above.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        let error = format!("{:#}", Index::open(dir.path(), host, project).unwrap_err());
        assert!(error.contains("not a regular file"), "{error}");
    }
}
