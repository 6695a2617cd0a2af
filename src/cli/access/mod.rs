//! `orgdeck access person|role|who|review|set|unset|switch-preview`: what
//! each person can reach and why, what a role grants, who reaches a thing,
//! the access review, changes to the rules (previewed by who gains and who
//! loses), and what the switch to the other resolution mode would change.
//! Thin: each command reads through `crate::access` and prints what it
//! returns; this module holds what they share (pacing flags, Ctrl-C,
//! progress on stderr).

mod person;
mod review;
mod role;
mod set;
mod switch;
mod who;

use std::io::{IsTerminal, Write};

use clap::{Args, Subcommand};

use super::connection::Connection;
use super::output::Requested;
use crate::access::read::{ReadError, ReadOptions, Reader, Stop};

use crate::access::read::SMALL_ANSWERS_AT_ONCE;
use crate::health::budget::Budget;

#[derive(Debug, Subcommand)]
pub enum AccessCommand {
    /// What a person can reach, and why: in every project (or the one of
    /// the global --project), their project level and where it comes from
    /// (organization admin, their own rule, role NAME, everyone, the
    /// built-in default), each resource whose level is not the project's
    /// default or that a rule naming them or their roles is about (with
    /// rules that are outranked), and each object rule naming them or
    /// their roles with the level the server gives them there.
    Person(person::PersonArgs),
    /// What a role grants in each project: its project access, its rules
    /// on resources and objects and what they come to, and its members.
    Role(role::RoleArgs),
    /// Who reaches a project, a dashboard, an insight or a feature flag,
    /// at what level, and how (users_with_access), by name.
    Who(who::WhoArgs),
    /// A snapshot of everyone's access for an access review (SOC 2): each
    /// member's level, roles, last login and personal keys, and their
    /// level and its source on every project and resource; with --diff,
    /// what changed since an earlier snapshot (exit 0 nothing, 2 changes,
    /// 1 error).
    Review(review::ReviewArgs),
    /// Set a rule: for a role, a member or everyone, on the project (the
    /// global --project), a resource of it, or one dashboard or insight.
    /// The level is checked before sending; who gains and who loses access
    /// is shown first, and a change that takes access away asks once more
    /// (Enter means no). A rule Terraform manages under the project's lock
    /// is refused before sending.
    Set(set::SetArgs),
    /// Remove a rule (what applies is then what the other rules say), with
    /// the same preview, question and checks as `set`.
    Unset(set::UnsetArgs),
    /// What switching the organization to the other resolution mode would
    /// change: every member, project and resource whose level differs, the
    /// rule that makes the difference, and the fix that keeps today's
    /// level (exit 0 nothing changes, 2 something does, 1 error).
    SwitchPreview,
}

impl AccessCommand {
    /// Whether the command bounds each request rather than the whole run
    /// (a review of a large organization takes as long as its reads).
    pub fn is_long(&self) -> bool {
        matches!(self, AccessCommand::Review(_))
    }

    /// Whether the command changes anything (refused under --read-only).
    pub fn writes(&self) -> bool {
        match self {
            AccessCommand::Set(args) => !args.dry_run(),
            AccessCommand::Unset(args) => !args.dry_run(),
            _ => false,
        }
    }

    /// Whether `-o csv` means something to it.
    pub fn takes_csv(&self) -> bool {
        matches!(self, AccessCommand::Review(_))
    }
}

/// How many requests at once and how fast.
#[derive(Debug, Clone, Args)]
pub struct Pace {
    /// Requests in flight at once [default: 32 for person, role and who,
    /// whose answers are a few KB each; 16 for review, which reads three
    /// projects' large answers at a time besides].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=64))]
    concurrency: Option<u16>,
    /// The most requests: N/min, N/hour, both, or none
    /// [default: 400/min,4000/hour, under PostHog Cloud's limits].
    #[arg(long, value_name = "RATE", value_parser = |text: &str| text.parse::<Budget>())]
    budget: Option<Budget>,
}

impl Pace {
    fn options(&self, default: usize) -> ReadOptions {
        ReadOptions {
            concurrency: self.concurrency.map_or(default, usize::from),
            budget: self.budget.unwrap_or_default(),
        }
    }
}

/// Runs an access command.
pub async fn run(
    command: AccessCommand,
    connection: Connection,
    requested: Requested,
    project_flag: Option<String>,
) -> anyhow::Result<()> {
    match command {
        AccessCommand::Person(args) => person::run(args, connection, requested, project_flag).await,
        AccessCommand::Role(args) => role::run(args, connection, requested, project_flag).await,
        AccessCommand::Who(args) => who::run(args, connection, requested).await,
        AccessCommand::Review(args) => review::run(args, connection, requested).await,
        AccessCommand::Set(args) => set::set(args, connection, format(requested)).await,
        AccessCommand::Unset(args) => set::unset(args, connection, format(requested)).await,
        AccessCommand::SwitchPreview => switch::run(connection, format(requested), project_flag).await,
    }
}

/// Table or JSON (csv is refused before, for commands that do not take it).
fn format(requested: Requested) -> super::output::Format {
    requested.format().unwrap_or(super::output::Format::Table)
}

/// A reader for a command, paced by its flags, stopped by Ctrl-C; the
/// guard ends the watch.
fn reader(connection: &Connection, pace: &Pace, concurrency: usize) -> (Reader, CtrlC) {
    stoppable_reader(connection, pace.options(concurrency))
}

/// A reader stopped by Ctrl-C, for any command that reads access (the
/// previews of changes too); the guard ends the watch.
pub(in crate::cli) fn stoppable_reader(connection: &Connection, options: ReadOptions) -> (Reader, CtrlC) {
    let stop = Stop::new();
    let watch = stop.clone();
    let task = tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            watch.stop();
        }
    });
    let reader = Reader::new(&connection.client, options, crate::clock::Clock::system(), stop);
    (reader, CtrlC(task))
}

/// Stops watching for Ctrl-C when dropped.
pub(in crate::cli) struct CtrlC(tokio::task::JoinHandle<()>);

impl Drop for CtrlC {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A read's failure, for the command's error.
fn failed(error: ReadError) -> anyhow::Error {
    match error {
        ReadError::Stopped => {
            anyhow::anyhow!("stopped (Ctrl-C) before the end; what was read is not complete")
        }
        ReadError::Api(error) => error.into(),
    }
}

/// A progress line on stderr, rewritten in place; only on a terminal.
struct ProgressLine {
    shown: bool,
}

impl ProgressLine {
    fn new() -> ProgressLine {
        ProgressLine {
            shown: std::io::stderr().is_terminal(),
        }
    }

    fn say(&self, text: &str) {
        if self.shown {
            let mut stderr = std::io::stderr().lock();
            let _ = write!(stderr, "\r\x1b[2K{text}");
            let _ = stderr.flush();
        }
    }

    fn clear(&self) {
        if self.shown {
            let mut stderr = std::io::stderr().lock();
            let _ = write!(stderr, "\r\x1b[2K");
            let _ = stderr.flush();
        }
    }
}

/// The projects to read: the one --project names, else all.
fn chosen_projects(
    directory: &crate::access::directory::Directory,
    project_flag: Option<&str>,
) -> Option<Vec<crate::access::directory::ProjectRef>> {
    let wanted = project_flag?.trim();
    let project =
        directory
            .project(wanted)
            .cloned()
            .unwrap_or_else(|| crate::access::directory::ProjectRef {
                id: wanted.parse().unwrap_or_default(),
                name: format!("project {wanted}"),
            });
    Some(vec![project])
}

pub(super) use crate::access::words::{resolution, resource_name};

/// A refusal to find what was named, as a usage error.
fn not_found(message: String) -> anyhow::Error {
    super::UsageError(message).into()
}
