//! The record of an offboarding, written as it goes: a journal of JSON
//! lines in a file only its owner reads (0600, in a 0700 directory, never
//! through a link). The first line opens it (who, where, by whom, the
//! plan) before any step runs; each step that ends is appended and flushed
//! to the disk before the next is reported; the last line closes it with
//! the outcome. A run that cannot write its opening line does not start.
//!
//! A run killed at any moment leaves a record of every step it finished,
//! unclosed; the next run of the same offboarding (the same person,
//! organization and host) finds that record and goes on in it: a
//! `resumed` line with its own plan, then its steps, then the close. So
//! does the next run after one that was interrupted or had steps fail: an
//! offboarding keeps one record until a run completes it. A record another
//! run is writing is locked, and a second run refuses it.
//!
//! Lines: `{"event": "started" | "resumed", "kind", "version", "at",
//! "organization", "host", "person", "by", "options", "warnings", "plan"}`,
//! `{"event": "step", "at", "number", …the step}` (its number in the plan
//! of the line that opened the run) and `{"event": "closed", "at",
//! "outcome", "summary"}`. A line a crash cut short does not parse; readers
//! skip it, and the next run starts on a line of its own.

use std::fs::{File, TryLockError};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::offboard::{Options, Plan, Status, Step};
use super::profile::Person;
use super::session::Session;
use crate::config::files::{self, Create};

pub const KIND: &str = "orgdeck offboarding record";
pub const VERSION: u32 = 2;
/// The most of a record's opening line read when looking for one to go on in.
const OPENING_LIMIT: u64 = 64 << 20;
/// The most of a record's end read to see whether it was closed.
const TAIL: u64 = 64 << 10;
/// Records of the person looked at, newest first, for one to go on in.
const CANDIDATES: usize = 64;

/// Where a run's record goes.
#[derive(Debug, Clone, Copy)]
pub enum RecordAt<'a> {
    /// The state directory's `offboarding/`: the unfinished record of the
    /// same offboarding there, else a new file named by the person and the
    /// time.
    StateDir(&'a Path),
    /// A file the user named (`--record FILE`): gone on in when it holds
    /// the unfinished record of the same offboarding, else created or
    /// emptied.
    File(&'a Path),
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Every step ran and none failed.
    Completed,
    /// Every step ran; some failed.
    Failed,
    /// Stopped before every step ran.
    Interrupted,
}

impl Outcome {
    pub fn of(plan: &Plan) -> Outcome {
        if plan.steps.iter().any(|step| step.status == Status::Planned) {
            Outcome::Interrupted
        } else if plan.failed() > 0 {
            Outcome::Failed
        } else {
            Outcome::Completed
        }
    }
}

/// A record being written.
#[derive(Debug)]
pub struct Journal {
    file: File,
    pub path: PathBuf,
    /// It goes on in the record of an earlier run that did not complete.
    pub resumed: bool,
    /// Steps this run has written.
    pub steps_written: usize,
}

/// The line that opens a run.
#[derive(Serialize)]
struct Opening<'a> {
    event: &'static str,
    kind: &'static str,
    version: u32,
    at: DateTime<Utc>,
    organization: &'a str,
    host: &'a str,
    person: &'a Person,
    by: Value,
    options: Options,
    warnings: &'a [String],
    plan: &'a [Step],
}

/// What says whose a record is, read back from its first line.
#[derive(Deserialize)]
struct Whose {
    kind: String,
    organization: String,
    host: String,
    person: WhosePerson,
}

#[derive(Deserialize)]
struct WhosePerson {
    email: String,
}

/// The offboarding a record must be of to be gone on in.
struct Identity<'a> {
    organization: &'a str,
    host: &'a str,
    email: &'a str,
}

impl Journal {
    /// The record for a run of `plan` in `session`, its opening line
    /// written and flushed: an earlier run's unfinished record of the same
    /// offboarding goes on, else a new one starts. Every error names the
    /// path; when there is one, no step may run.
    pub fn open(at: RecordAt<'_>, session: &Session, host: &str, plan: &Plan) -> io::Result<Journal> {
        let identity = Identity {
            organization: &session.organization_id,
            host,
            email: &plan.person.email,
        };
        let (file, path, resumed) = match at {
            RecordAt::StateDir(state) => match go_on_in(&state.join("offboarding"), &identity)? {
                Some((file, path)) => (file, path, true),
                None => {
                    let path = default_record_path(state, &plan.person.email, session.started_at);
                    let file =
                        files::create_private(&path, Create::New).map_err(|error| at_path(&path, error))?;
                    lock(&file, &path)?;
                    (file, path, false)
                }
            },
            RecordAt::File(path) => {
                let file =
                    files::create_private(path, Create::Append).map_err(|error| at_path(path, error))?;
                lock(&file, path)?;
                if is_unfinished_record_of(&file, &identity).map_err(|error| at_path(path, error))? {
                    (file, path.to_path_buf(), true)
                } else {
                    file.set_len(0).map_err(|error| at_path(path, error))?;
                    (file, path.to_path_buf(), false)
                }
            }
        };
        let mut journal = Journal {
            file,
            path,
            resumed,
            steps_written: 0,
        };
        let opening = Opening {
            event: if resumed { "resumed" } else { "started" },
            kind: KIND,
            version: VERSION,
            at: session.started_at,
            organization: &session.organization_id,
            host,
            person: &plan.person,
            by: session.by(),
            options: plan.options,
            warnings: &plan.warnings,
            plan: &plan.steps,
        };
        let opened = journal.end_a_cut_line().and_then(|()| journal.append(&opening));
        if let Err(error) = opened {
            // A record begun here and not written is not left behind empty.
            if !resumed && matches!(at, RecordAt::StateDir(_)) {
                let _ = std::fs::remove_file(&journal.path);
            }
            return Err(at_path(&journal.path, error));
        }
        if let Some(dir) = journal.path.parent() {
            sync_dir(dir);
        }
        Ok(journal)
    }

    /// Appends a step that ended (`number`: its place in the plan, from 1)
    /// and flushes it to the disk. An error is the system's (the record's
    /// path is [`Journal::path`]).
    pub fn step(&mut self, number: usize, step: &Step, at: DateTime<Utc>) -> io::Result<()> {
        #[derive(Serialize)]
        struct Line<'a> {
            event: &'static str,
            at: DateTime<Utc>,
            number: usize,
            #[serde(flatten)]
            step: &'a Step,
        }
        self.append(&Line {
            event: "step",
            at,
            number,
            step,
        })?;
        self.steps_written += 1;
        Ok(())
    }

    /// Closes the run with its outcome and counts.
    pub fn close(&mut self, plan: &Plan, at: DateTime<Utc>) -> io::Result<Outcome> {
        let outcome = Outcome::of(plan);
        self.append(&json!({
            "event": "closed",
            "at": at,
            "outcome": outcome,
            "summary": plan.summary(),
        }))?;
        Ok(outcome)
    }

    /// One line, written whole, then flushed to the disk.
    fn append(&mut self, value: &impl Serialize) -> io::Result<()> {
        let mut line = safe_line(value)?;
        line.push('\n');
        self.file.write_all(line.as_bytes())?;
        self.file.sync_data()
    }

    /// A record a crash cut in the middle of a line gets the line ended,
    /// so that this run's lines stand on their own.
    fn end_a_cut_line(&mut self) -> io::Result<()> {
        let length = self.file.metadata()?.len();
        if length == 0 {
            return Ok(());
        }
        let mut last = [0u8; 1];
        self.file.seek(SeekFrom::Start(length - 1))?;
        self.file.read_exact(&mut last)?;
        if last[0] != b'\n' {
            self.file.write_all(b"\n")?;
        }
        Ok(())
    }
}

/// The unfinished record of this offboarding in `dir`, locked for this run;
/// an error when another run holds it.
fn go_on_in(dir: &Path, identity: &Identity<'_>) -> io::Result<Option<(File, PathBuf)>> {
    match std::fs::symlink_metadata(dir) {
        Ok(metadata) if metadata.is_dir() => {}
        Ok(_) => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} is not a directory", dir.display()),
            ));
        }
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(at_path(dir, error)),
    }
    let prefix = format!("{}-", safe_name(identity.email));
    let mut candidates: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|error| at_path(dir, error))?
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            (name.starts_with(&prefix) && name.ends_with(".jsonl")).then(|| dir.join(name))
        })
        .collect();
    // The names end with the time they were begun: newest first.
    candidates.sort_unstable_by(|a, b| b.cmp(a));
    for path in candidates.into_iter().take(CANDIDATES) {
        // Only a regular file already there is looked into (never a link).
        if !std::fs::symlink_metadata(&path).is_ok_and(|metadata| metadata.is_file()) {
            continue;
        }
        let Ok(file) = files::create_private(&path, Create::Append) else {
            continue;
        };
        let unfinished =
            |file: &File| is_unfinished_record_of(file, identity).map_err(|error| at_path(&path, error));
        if !unfinished(&file)? {
            continue;
        }
        // Held by another run: refused. Taken: looked at again, in case
        // the run that held it completed it meanwhile.
        lock(&file, &path)?;
        if unfinished(&file)? {
            return Ok(Some((file, path)));
        }
    }
    Ok(None)
}

/// Whether `file` holds a record of this offboarding whose last run did not
/// complete it: not closed (a kill), or closed interrupted or with failed
/// steps.
fn is_unfinished_record_of(mut file: &File, identity: &Identity<'_>) -> io::Result<bool> {
    file.seek(SeekFrom::Start(0))?;
    let mut first = Vec::new();
    BufReader::new(file.take(OPENING_LIMIT)).read_until(b'\n', &mut first)?;
    let Ok(whose) = serde_json::from_slice::<Whose>(first.trim_ascii()) else {
        return Ok(false);
    };
    if whose.kind != KIND
        || whose.organization != identity.organization
        || whose.host != identity.host
        || !whose.person.email.eq_ignore_ascii_case(identity.email)
    {
        return Ok(false);
    }
    let length = file.metadata()?.len();
    file.seek(SeekFrom::Start(length.saturating_sub(TAIL)))?;
    let mut tail = Vec::new();
    file.take(TAIL).read_to_end(&mut tail)?;
    let completed = tail
        .split(|byte| *byte == b'\n')
        .rev()
        .map(<[u8]>::trim_ascii)
        .find(|line| !line.is_empty())
        .and_then(|line| serde_json::from_slice::<Value>(line).ok())
        .is_some_and(|line| line["event"] == "closed" && line["outcome"] == "completed");
    Ok(!completed)
}

/// Takes the record for this run; another run holding it is an error.
fn lock(file: &File, path: &Path) -> io::Result<()> {
    match file.try_lock() {
        Ok(()) => Ok(()),
        Err(TryLockError::WouldBlock) => Err(io::Error::new(
            io::ErrorKind::WouldBlock,
            format!(
                "another offboarding of the same person is running and writing {}",
                path.display()
            ),
        )),
        Err(TryLockError::Error(error)) => Err(at_path(path, error)),
    }
}

/// The error, naming the path unless it does already.
fn at_path(path: &Path, error: io::Error) -> io::Error {
    let shown = path.display().to_string();
    if error.to_string().contains(&shown) {
        error
    } else {
        io::Error::new(error.kind(), format!("{shown}: {error}"))
    }
}

/// Flushes a directory's entries, so that a new record survives a crash.
fn sync_dir(dir: &Path) {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    if let Ok(handle) = File::open(dir) {
        let _ = handle.sync_all();
    }
}

/// One compact JSON line, the characters a terminal would act on escaped
/// (`\uXXXX`), so that `cat` of a record shows what a server wrote as text.
fn safe_line(value: &impl Serialize) -> io::Result<String> {
    let compact = serde_json::to_string(value).map_err(io::Error::other)?;
    let mut line = String::with_capacity(compact.len());
    for c in compact.chars() {
        // Outside strings JSON is plain ASCII, so every such character is
        // inside one, where an escape is the same text.
        if crate::text::is_unsafe(c) {
            for unit in c.encode_utf16(&mut [0; 2]) {
                line.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            line.push(c);
        }
    }
    Ok(line)
}

/// An e-mail address as a file name: what is not a letter, a digit or one
/// of `@.-_` becomes `_`.
fn safe_name(email: &str) -> String {
    email
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "@.-_".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Where a record goes by default: the state directory's `offboarding/`,
/// named by the person and the time.
pub fn default_record_path(state_dir: &Path, email: &str, at: DateTime<Utc>) -> PathBuf {
    state_dir.join("offboarding").join(format!(
        "{}-{}.jsonl",
        safe_name(email),
        at.format("%Y%m%dT%H%M%S%.3fZ")
    ))
}

/// A run in one piece, for `-o json` and the console: who, when, by whom,
/// how it ended, and every step.
#[derive(Debug, Clone, Serialize)]
pub struct Record<'a> {
    pub kind: &'static str,
    pub version: u32,
    pub organization: &'a str,
    pub host: &'a str,
    pub person: &'a Person,
    /// The owner of the key that ran it.
    pub by: Value,
    pub started_at: DateTime<Utc>,
    pub finished_at: DateTime<Utc>,
    pub options: Options,
    pub outcome: Outcome,
    pub summary: Value,
    pub warnings: &'a [String],
    pub steps: &'a [Step],
}

impl Plan {
    /// Counts for a record and the last line; `planned` are the steps not run.
    pub fn summary(&self) -> Value {
        json!({
            "done": self.count(Status::Done),
            "unchanged": self.count(Status::Unchanged),
            "failed": self.count(Status::Failed),
            "planned": self.count(Status::Planned),
            "noted": self.count(Status::Noted),
        })
    }
}

impl<'a> Record<'a> {
    /// The run of `plan` in `session`, ended at `finished_at`.
    pub fn of(plan: &'a Plan, session: &'a Session, host: &'a str, finished_at: DateTime<Utc>) -> Record<'a> {
        Record {
            kind: KIND,
            version: VERSION,
            organization: &session.organization_id,
            host,
            person: &plan.person,
            by: session.by(),
            started_at: session.started_at,
            finished_at,
            options: plan.options,
            outcome: Outcome::of(plan),
            summary: plan.summary(),
            warnings: &plan.warnings,
            steps: &plan.steps,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_named_by_the_person_and_the_time() {
        let at = DateTime::parse_from_rfc3339("2026-11-25T10:00:00Z")
            .unwrap()
            .to_utc();
        let path = default_record_path(Path::new("/s"), "a/b@x.io", at);
        assert_eq!(
            path,
            Path::new("/s/offboarding/a_b@x.io-20261125T100000.000Z.jsonl")
        );
    }

    #[test]
    fn a_line_escapes_what_a_terminal_would_act_on() {
        let line = safe_line(&json!({"title": "a\u{202e}b\u{9b}c\nd\u{1F600}"})).unwrap();
        assert_eq!(line, r#"{"title":"a\u202eb\u009bc\nd😀"}"#);
        let back: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(back["title"], "a\u{202e}b\u{9b}c\nd\u{1F600}");
    }
}
