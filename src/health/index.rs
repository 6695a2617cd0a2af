//! What earlier looks learnt, kept on disk per host and project: each
//! subscription's health, when it was looked at, and the fields that, when
//! they change, mean its deliveries must be read again.
//!
//! One JSON file in the state directory, readable by its owner alone. Two
//! orgdeck processes may look at once: the file is only ever replaced
//! whole (written beside it, then renamed over it) under an exclusive lock
//! on a lock file, and a save merges what the other process saved
//! meanwhile, the newer look of each subscription winning. A file that
//! does not parse, or that another version of orgdeck wrote, is set aside
//! and the index starts again empty.

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::api::Subscription;
use crate::api::health::Assessment;

/// The layout of the file; another number is another layout.
const VERSION: u32 = 1;

/// What the last look learnt about one subscription.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The fields whose change means new deliveries may be there.
    pub fingerprint: String,
    pub looked_at: DateTime<Utc>,
    pub assessment: Assessment,
}

/// The fields a delivery, a pause or a new target changes: a look reads
/// the deliveries again only when these differ from the last look's.
pub fn fingerprint(subscription: &Subscription) -> String {
    format!(
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
    )
}

/// The file's content.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Stored {
    version: u32,
    host: String,
    project: String,
    /// When a look last finished.
    looked_at: Option<DateTime<Utc>>,
    /// The requests that look made.
    requests: u64,
    entries: BTreeMap<i64, Entry>,
}

/// The index of one host and project.
#[derive(Debug)]
pub struct Index {
    path: PathBuf,
    stored: Stored,
    /// Subscriptions a look no longer listed: a save does not take them
    /// back from the file.
    forgotten: std::collections::HashSet<i64>,
}

impl Index {
    /// The index of `host` and `project` in `dir`, or an empty one when
    /// there is none yet (or none that this version can read).
    pub fn open(dir: &Path, host: &str, project: &str) -> anyhow::Result<Index> {
        let digest = Sha256::digest(format!("{host}\n{project}").as_bytes());
        let path = dir
            .join("health")
            .join(format!("{}.json", &hex::encode(digest)[..20]));
        let mut index = Index {
            path,
            stored: Stored {
                version: VERSION,
                host: host.to_string(),
                project: project.to_string(),
                ..Stored::default()
            },
            forgotten: std::collections::HashSet::new(),
        };
        let _lock = index.lock()?;
        if let Some(stored) = index.read()? {
            index.stored = stored;
        }
        Ok(index)
    }

    /// The file, for messages.
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn entry(&self, id: i64) -> Option<&Entry> {
        self.stored.entries.get(&id)
    }

    pub fn len(&self) -> usize {
        self.stored.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.stored.entries.is_empty()
    }

    /// When the last look finished, and how many requests it made.
    pub fn last_look(&self) -> Option<(DateTime<Utc>, u64)> {
        self.stored.looked_at.map(|at| (at, self.stored.requests))
    }

    pub fn record(&mut self, id: i64, entry: Entry) {
        self.stored.entries.insert(id, entry);
    }

    /// Forgets the subscriptions that are no longer listed.
    pub fn keep_only(&mut self, listed: &std::collections::HashSet<i64>) {
        let forgotten = &mut self.forgotten;
        self.stored.entries.retain(|id, _| {
            let kept = listed.contains(id);
            if !kept {
                forgotten.insert(*id);
            }
            kept
        });
    }

    /// Marks a look finished.
    pub fn finished(&mut self, at: DateTime<Utc>, requests: u64) {
        self.stored.looked_at = Some(at);
        self.stored.requests = requests;
    }

    /// Writes the index, merged with what another process saved since
    /// (each subscription's newer look wins).
    pub fn save(&mut self) -> anyhow::Result<()> {
        let _lock = self.lock()?;
        if let Some(theirs) = self.read()? {
            for (id, entry) in theirs.entries {
                if self.forgotten.contains(&id) {
                    continue;
                }
                match self.stored.entries.get(&id) {
                    Some(mine) if mine.looked_at >= entry.looked_at => {}
                    _ => {
                        self.stored.entries.insert(id, entry);
                    }
                }
            }
            if self.stored.looked_at < theirs.looked_at {
                self.stored.looked_at = theirs.looked_at;
                self.stored.requests = theirs.requests;
            }
        }
        let dir = self.path.parent().unwrap_or(Path::new("."));
        let mut file = tempfile::NamedTempFile::new_in(dir)
            .with_context(|| format!("cannot write the health index in {}", dir.display()))?;
        serde_json::to_writer(&mut file, &self.stored)?;
        file.flush()?;
        // NamedTempFile is created readable by its owner alone.
        file.persist(&self.path)
            .with_context(|| format!("cannot replace {}", self.path.display()))?;
        Ok(())
    }

    /// The stored index, if one this version can read is there; a damaged
    /// or foreign one is moved aside (and logged) rather than trusted.
    fn read(&self) -> anyhow::Result<Option<Stored>> {
        let text = match fs::read(&self.path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => {
                return Err(error).with_context(|| format!("cannot read {}", self.path.display()));
            }
        };
        match serde_json::from_slice::<Stored>(&text) {
            Ok(stored)
                if stored.version == VERSION
                    && stored.host == self.stored.host
                    && stored.project == self.stored.project =>
            {
                Ok(Some(stored))
            }
            outcome => {
                let why = match outcome {
                    Ok(stored) => format!("written by another version ({})", stored.version),
                    Err(error) => format!("does not parse ({error})"),
                };
                tracing::warn!(path = %self.path.display(), "the health index {why}; starting again");
                let aside = self.path.with_extension("json.unreadable");
                let _ = fs::rename(&self.path, aside);
                Ok(None)
            }
        }
    }

    /// An exclusive lock on the index's lock file, held until dropped.
    fn lock(&self) -> anyhow::Result<Lock> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        crate::config::create_private_dir(dir)?;
        let mut options = OpenOptions::new();
        options.create(true).truncate(false).write(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let path = self.path.with_extension("lock");
        let file = options
            .open(&path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        Lock::exclusive(file)
    }
}

/// A lock on a file, released when dropped (or when the process ends).
struct Lock {
    #[cfg_attr(not(unix), allow(dead_code))]
    file: File,
}

impl Lock {
    fn exclusive(file: File) -> anyhow::Result<Lock> {
        #[cfg(unix)]
        {
            use std::os::fd::AsRawFd;
            // SAFETY: flock on a descriptor this function owns through `file`.
            let status = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
            if status != 0 {
                return Err(std::io::Error::last_os_error()).context("cannot lock the health index");
            }
        }
        Ok(Lock { file })
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        #[cfg(unix)]
        {
            use std::os::fd::AsRawFd;
            // SAFETY: the descriptor is still open: `file` is dropped after this.
            unsafe {
                libc::flock(self.file.as_raw_fd(), libc::LOCK_UN);
            }
        }
    }
}
