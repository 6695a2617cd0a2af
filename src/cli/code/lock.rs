//! The lock beside an as-code file, and the journal of its creates.
//!
//! `FILE.lock` (beside the file, or beside the file a link names) is held
//! by one `apply` at a time through `flock(2)`: the kernel lets it go on
//! any exit, kill -9 included, so a lock is never stale while held and a
//! lock file left behind by a dead process is taken over at once. A
//! second apply of the same file refuses at once, naming the first from
//! what the file says (pid, host, since).
//!
//! The lock file is also the journal of subscriptions being created, one
//! JSON line each, flushed to disk before the create is sent: if the
//! process dies before the new id is in the file, the next apply finds the
//! line and looks for the subscription (same fields, made by the key's
//! user) before planning, so nothing is created twice. Lines:
//! `{"holder": {...}}`, `{"sending": {...}}`, `{"answered": {"index", "id"}}`
//! (made, id not yet in the file), `{"settled": {"index"}}` (in the file,
//! or not made). A clean exit with nothing unsettled removes the file.

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The most bytes of a lock file read.
const MAX_LOCK_BYTES: u64 = 16 * 1024 * 1024;

/// Who holds (or held) the lock.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Holder {
    pub pid: u32,
    pub host: String,
    pub since: DateTime<Utc>,
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "pid {} on {} since {}",
            self.pid,
            crate::text::printable(&self.host),
            self.since.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        )
    }
}

/// A subscription create sent (or about to be) and not yet settled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sending {
    /// Its place among the file's subscriptions.
    pub index: usize,
    /// What people call it.
    pub label: String,
    /// The entry as the file held it (its fields, for finding it again).
    pub entry: Value,
    /// The create's body.
    pub body: Value,
    pub host: String,
    pub project: i64,
    pub at: DateTime<Utc>,
    /// The id, when the server answered and the file could not take it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<i64>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Line {
    Holder(Holder),
    Sending(Sending),
    Answered { index: usize, id: i64 },
    Settled { index: usize },
}

/// The lock, held: released (the file removed when nothing is unsettled)
/// when dropped, and by the kernel on any exit.
pub struct Lock {
    path: PathBuf,
    file: std::fs::File,
    unsettled: std::collections::BTreeMap<usize, Sending>,
}

/// The lock's path for an as-code file: beside the file a link names.
pub fn path_for(file: &Path) -> PathBuf {
    let target = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    let mut name = target.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    target.with_file_name(name)
}

/// The journal's creates not settled, read without taking the lock (for
/// `plan`'s warning).
pub fn unsettled(file: &Path) -> Vec<Sending> {
    let bytes = crate::config::files::read_bounded(&path_for(file), MAX_LOCK_BYTES)
        .ok()
        .flatten()
        .unwrap_or_default();
    read_lines(&bytes).1.into_values().collect()
}

/// The last holder and the unsettled creates a journal holds.
fn read_lines(bytes: &[u8]) -> (Option<Holder>, std::collections::BTreeMap<usize, Sending>) {
    let mut holder = None;
    let mut unsettled = std::collections::BTreeMap::new();
    // A last line cut short by a crash is no line: it was never flushed,
    // so its create was never sent.
    for line in String::from_utf8_lossy(bytes).lines() {
        match serde_json::from_str::<Line>(line) {
            Ok(Line::Holder(found)) => holder = Some(found),
            Ok(Line::Sending(sending)) => {
                unsettled.insert(sending.index, sending);
            }
            Ok(Line::Answered { index, id }) => {
                if let Some(sending) = unsettled.get_mut(&index) {
                    sending.id = Some(id);
                }
            }
            Ok(Line::Settled { index }) => {
                unsettled.remove(&index);
            }
            Err(_) => {}
        }
    }
    (holder, unsettled)
}

/// How the lock was taken.
pub struct Taken {
    pub lock: Lock,
    /// The holder of a lock file left behind, when there was one.
    pub left_by: Option<Holder>,
}

fn host_name() -> String {
    #[cfg(unix)]
    {
        let mut buffer = [0u8; 256];
        // SAFETY: the buffer is valid for its length; gethostname writes
        // at most that many bytes.
        let done = unsafe { libc::gethostname(buffer.as_mut_ptr().cast(), buffer.len()) };
        if done == 0 {
            let end = buffer.iter().position(|byte| *byte == 0).unwrap_or(buffer.len());
            return String::from_utf8_lossy(&buffer[..end]).into_owned();
        }
    }
    "this machine".into()
}

/// Reads of the lock file, 2 ms apart, for the line of a holder that has
/// the lock and has not written it yet (at most 100 ms).
const HOLDER_LINE_TRIES: usize = 50;

impl Lock {
    /// Takes the lock of `file`, or refuses at once naming who holds it.
    pub fn take(file: &Path) -> anyhow::Result<Taken> {
        let path = path_for(file);
        for _ in 0..10 {
            let mut handle =
                crate::config::files::create_private(&path, crate::config::files::Create::Append)
                    .map_err(|error| anyhow::anyhow!("cannot lock {}: {error}", file.display()))?;
            let mut bytes = Vec::new();
            // The holder's lines, read through the same handle.
            if let Ok(mut reader) = std::fs::File::open(&path) {
                let _ = (&mut reader).take(MAX_LOCK_BYTES).read_to_end(&mut bytes);
            }
            if !try_lock(&handle) {
                let (mut holder, _) = read_lines(&bytes);
                // The holder writes its line just after it takes the lock:
                // read again for a moment, so that it is named.
                for _ in 0..HOLDER_LINE_TRIES {
                    if holder.is_some() {
                        break;
                    }
                    std::thread::sleep(std::time::Duration::from_millis(2));
                    let mut again = Vec::new();
                    if let Ok(mut reader) = std::fs::File::open(&path) {
                        let _ = (&mut reader).take(MAX_LOCK_BYTES).read_to_end(&mut again);
                    }
                    holder = read_lines(&again).0;
                }
                let who = holder.map_or_else(|| "another process".to_string(), |holder| holder.to_string());
                anyhow::bail!(
                    "{} is being applied by {who} (lock {}); nothing was done: wait for it to finish",
                    file.display(),
                    path.display()
                );
            }
            // The file may have been removed and made again by a holder
            // that finished meanwhile: hold the one at the path, or try again.
            if !same_file(&handle, &path) {
                continue;
            }
            let (left_by, unsettled) = read_lines(&bytes);
            let holder = Holder {
                pid: std::process::id(),
                host: host_name(),
                since: Utc::now(),
            };
            append(&mut handle, &Line::Holder(holder))
                .map_err(|error| anyhow::anyhow!("cannot write the lock {}: {error}", path.display()))?;
            return Ok(Taken {
                lock: Lock {
                    path,
                    file: handle,
                    unsettled,
                },
                left_by,
            });
        }
        anyhow::bail!("cannot lock {}: its lock file keeps changing", file.display())
    }

    /// The creates a process that died left unsettled.
    pub fn unsettled(&self) -> Vec<Sending> {
        self.unsettled.values().cloned().collect()
    }

    /// Records a create about to be sent, on disk before it is sent.
    pub fn sending(&mut self, sending: &Sending) -> std::io::Result<()> {
        append(&mut self.file, &Line::Sending(sending.clone()))?;
        self.unsettled.insert(sending.index, sending.clone());
        Ok(())
    }

    /// Records the id of a create whose id the file could not take.
    pub fn answered(&mut self, index: usize, id: i64) -> std::io::Result<()> {
        append(&mut self.file, &Line::Answered { index, id })?;
        if let Some(sending) = self.unsettled.get_mut(&index) {
            sending.id = Some(id);
        }
        Ok(())
    }

    /// Records a create settled: its id in the file, or it was not made.
    pub fn settled(&mut self, index: usize) -> std::io::Result<()> {
        append(&mut self.file, &Line::Settled { index })?;
        self.unsettled.remove(&index);
        Ok(())
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        // Removed while still held, so nobody takes a file on its way out
        // (a taker checks that it holds the file at the path).
        if self.unsettled.is_empty() {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

fn append(file: &mut std::fs::File, line: &Line) -> std::io::Result<()> {
    let mut text = serde_json::to_string(line).map_err(std::io::Error::other)?;
    text.push('\n');
    file.write_all(text.as_bytes())?;
    file.sync_data()
}

#[cfg(unix)]
fn try_lock(file: &std::fs::File) -> bool {
    use std::os::fd::AsRawFd;
    // SAFETY: flock on a file descriptor this process owns and keeps open.
    unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}

#[cfg(not(unix))]
fn try_lock(_file: &std::fs::File) -> bool {
    true
}

#[cfg(unix)]
fn same_file(file: &std::fs::File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::symlink_metadata(path)) {
        (Ok(held), Ok(there)) => held.dev() == there.dev() && held.ino() == there.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_file: &std::fs::File, _path: &Path) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_holder_at_a_time_and_the_journal_survives() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("org.toml");
        std::fs::write(&file, "").unwrap();
        let Taken { mut lock, left_by } = Lock::take(&file).unwrap();
        assert_eq!(left_by, None);
        // A second taker (another open file, as another process has) is refused.
        let error = Lock::take(&file).err().unwrap().to_string();
        assert!(
            error.contains(&format!("is being applied by pid {}", std::process::id())),
            "{error}"
        );
        let sending = Sending {
            index: 3,
            label: "Weekly".into(),
            entry: serde_json::json!({"title": "Weekly"}),
            body: serde_json::json!({"title": "Weekly"}),
            host: "h".into(),
            project: 1,
            at: Utc::now(),
            id: None,
        };
        lock.sending(&sending).unwrap();
        lock.sending(&Sending {
            index: 4,
            ..sending.clone()
        })
        .unwrap();
        lock.settled(4).unwrap();
        // As if killed: the file stays, unheld, with one create unsettled.
        std::mem::forget(lock);
        assert_eq!(unsettled(&file).len(), 1);
    }

    #[test]
    fn a_lock_left_behind_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("org.toml");
        let left = Holder {
            pid: 999_999,
            host: "elsewhere".into(),
            since: Utc::now(),
        };
        let mut text = serde_json::to_string(&Line::Holder(left.clone())).unwrap();
        text.push_str("\n{\"sending\": {\"ind");
        std::fs::write(path_for(&file), text).unwrap();
        let taken = Lock::take(&file).unwrap();
        assert_eq!(taken.left_by, Some(left));
        assert!(taken.lock.unsettled().is_empty());
        drop(taken);
        assert!(!path_for(&file).exists());
    }
}
