//! `orgdeck apply FILE` and `orgdeck apply PLAN`.
//!
//! With a file: the lock beside it taken (a second apply of it refuses at
//! once), the creates an interrupted apply left unanswered settled first,
//! then the plan, shown and asked once (`--yes` does not ask), then its
//! steps, each checked against the server just before (see `run`), so an
//! edit made while the question waited is never overwritten.
//!
//! With a plan saved by `plan FILE --save PLAN`: that plan exactly, as
//! Terraform applies a saved plan (without asking again: saving it was the
//! review), refused whole when too old, for another host, organization or
//! project, or when its file changed since.
//!
//! Either way, before the first step (and before asking) the key is checked
//! for every step the plan holds (see `caller`): a plan the key cannot make
//! whole is refused whole, naming what is missing.

use std::io::{BufRead as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde_json::json;

use super::diff::{Live, Plan, Prune};
use super::file::{self, CodeFile, Header, Seen};
use super::lock::{Holder, Lock, Taken};
use super::pace::Pace;
use super::run::{Outcome, Reads, Runner};
use super::saved::{self, SavedPlan};
use super::steps::{self, Step};
use super::writeback::{NewId, Writeback};
use super::{failure, read_file};
use crate::cli::connection::Connection;
use crate::cli::output::{self, Format};
use crate::text::printable;

#[derive(Debug, clap::Args)]
pub struct ApplyArgs {
    /// The file of `orgdeck export`, edited (TOML or JSON), or a plan saved
    /// by `orgdeck plan FILE --save PLAN`.
    file: PathBuf,
    /// Also remove what is not in the file: role members and subscriptions
    /// (soft delete, never a hard one); `--prune=roles` deletes roles too.
    /// A saved plan holds its own.
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "members", value_enum)]
    prune: Option<Prune>,
    /// Apply without asking.
    #[arg(long)]
    yes: bool,
    /// Write each step and its result to this file, as JSON (owner-only;
    /// a symbolic link there is refused).
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
}

fn failed(error: anyhow::Error) -> anyhow::Error {
    failure(format!("{error:#}"))
}

pub async fn apply(args: ApplyArgs, connection: Connection, format: Format) -> anyhow::Result<()> {
    // A saved plan is JSON: only a JSON file is read whole to tell.
    if file::is_json_file(&args.file).map_err(failure)?
        && saved::is_saved_plan(&file::read_text(&args.file).map_err(failure)?)
    {
        return apply_saved(args, connection, format).await;
    }
    let Taken { mut lock, left_by } = Lock::take(&args.file).map_err(failed)?;
    say_taken_over(&args.file, left_by);
    // Read again under the lock: what a finished apply wrote is in it.
    // Its text is not held: the ids are written by a copy from the disk.
    let (wanted, read) = read_file(&args.file)?;
    let (mut live, _) = super::fetch(
        &connection,
        wanted.roles.is_some(),
        wanted.subscriptions.is_some(),
    )
    .await?;
    super::access_rules::read_into(&connection, &mut live, wanted.access.is_some()).await?;
    let read_at = tokio::time::Instant::now();
    let (read, wanted) = settle_unsettled(
        &connection,
        &args.file,
        &mut lock,
        &live.file.header,
        read,
        wanted,
    )
    .await?;
    let plan = super::checked_plan(&connection.client, &args.file, &wanted, &live, args.prune).await?;
    if plan.is_empty() {
        return match format {
            Format::Json => output::print_json(&json!({"plan": plan.to_json(), "steps": []})),
            Format::Table => output::print("Nothing to do: the server matches the file.\n"),
        };
    }
    let project = live.file.header.project.to_string();
    let today = if steps::writes_subscriptions(&plan) {
        connection.client.is_todays_posthog(&project).await?
    } else {
        false
    };
    let current = live.subscriptions_of(&plan)?;
    let steps = steps::build(&plan, &wanted, &live, &current, today)?;
    super::access_rules::read_for_preview(&connection, &mut live, &wanted, &plan).await;
    let preview = super::access_rules::preview(&wanted, &live, &plan);
    if format == Format::Table {
        output::print(&super::access_rules::with_preview(
            plan.to_text(),
            preview.as_ref(),
        ))?;
    }
    refuse_what_the_key_cannot(&connection, &live.file.header, &steps).await?;
    if !args.yes && !confirmed()? {
        return Err(failure(
            "not applied: nothing was changed (answer yes to apply)".into(),
        ));
    }
    // Taking access away asks once more, naming how many lose it.
    if let Some(effect) = preview.as_ref().filter(|effect| effect.losing > 0)
        && !args.yes
        && !crate::cli::preview::confirmed(effect)?
    {
        return Err(failure(
            "not applied: nothing was changed (only 'yes' goes on)".into(),
        ));
    }
    // Asked, the answer may come after any edit: every step reads again.
    // Not asked, what the plan read counts for the steps of the next
    // seconds (run::FRESH).
    let reads = Reads {
        at: read_at,
        roles: Some(role_reads(&live, &steps)?),
        // Those its steps act on: a step looks up its own alone.
        subscriptions: Some(std::sync::Arc::new(
            current
                .iter()
                .map(|(id, entry)| (*id, steps::numeric_entry(entry, &live.insights)))
                .collect(),
        )),
    };
    let listed = live.listed();
    let applying = Applying {
        connection: &connection,
        path: &args.file,
        header: &live.file.header,
        listed,
        record: args.record.as_deref(),
        format,
    };
    let reads = args.yes.then_some(reads);
    applying.run(lock, read, &wanted, &plan, &steps, reads).await
}

/// `apply PLAN`.
async fn apply_saved(args: ApplyArgs, connection: Connection, format: Format) -> anyhow::Result<()> {
    if args.prune.is_some() {
        return Err(failure(format!(
            "--prune is for a file: the plan {} holds its own removals",
            args.file.display()
        )));
    }
    let saved = SavedPlan::load(&args.file).map_err(failed)?;
    saved
        .check_age(&args.file, crate::clock::Clock::system().now())
        .map_err(failed)?;
    let client = &connection.client;
    let (organization, project) = tokio::try_join!(
        client.organization(&connection.organization),
        client.project(&connection.project),
    )?;
    let header = Header {
        host: client.base_url().as_str().trim_end_matches('/').to_string(),
        organization: organization.id.clone(),
        project: project.id,
    };
    saved
        .check_target(&args.file, &header.host, &header.organization, header.project)
        .map_err(failed)?;
    let Taken { mut lock, left_by } = Lock::take(&saved.file).map_err(failed)?;
    say_taken_over(&saved.file, left_by);
    let (wanted, read) = read_file(&saved.file)?;
    let (read, wanted) = settle_unsettled(&connection, &saved.file, &mut lock, &header, read, wanted).await?;
    saved.check_file(&args.file, &wanted).map_err(failed)?;
    if format == Format::Table {
        output::print(&format!(
            "The plan {}, made at {} for {}:\n{}",
            printable(&args.file.display().to_string()),
            saved.made_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            printable(&saved.file.display().to_string()),
            saved.plan.to_text()
        ))?;
    }
    refuse_what_the_key_cannot(&connection, &header, &saved.steps).await?;
    let applying = Applying {
        connection: &connection,
        path: &saved.file,
        header: &header,
        listed: saved.listed,
        record: args.record.as_deref(),
        format,
    };
    applying
        .run(lock, read, &wanted, &saved.plan, &saved.steps, None)
        .await
}

/// Refuses the whole plan, before its first step and before asking, when
/// the key cannot make every step (exit 1, naming what is missing and the
/// steps it stops), as offboarding does.
async fn refuse_what_the_key_cannot(
    connection: &Connection,
    header: &Header,
    steps: &[Step],
) -> anyhow::Result<()> {
    let missing =
        super::caller::missing(&connection.client, &header.organization, header.project, steps).await;
    if missing.is_empty() {
        return Ok(());
    }
    Err(failure(format!(
        "not applied: nothing was changed, because this key cannot make every step:\n  {}",
        missing
            .iter()
            .map(|line| printable(line))
            .collect::<Vec<_>>()
            .join("\n  ")
    )))
}

/// A lock left by a process that no longer holds it, said on stderr.
fn say_taken_over(file: &Path, left_by: Option<Holder>) {
    if let Some(holder) = left_by.filter(|holder| holder.pid != std::process::id()) {
        eprintln!(
            "orgdeck: note: took over the lock of {} left by {holder}, which no longer holds it",
            printable(&file.display().to_string())
        );
    }
}

/// Asks once on the terminal (stderr) and reads the answer from stdin.
fn confirmed() -> anyhow::Result<bool> {
    eprint!("Apply these changes? Only 'yes' applies them: ");
    std::io::stderr().flush()?;
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    Ok(line.trim() == "yes")
}

/// The roles as the plan read them, each with the memberships its steps
/// need and no more: all of a role a step deletes or changes (compared
/// whole just before, or told when it is refused), those of the
/// addresses a step adds or removes, none of the others'.
fn role_reads(
    live: &Live,
    steps: &[Step],
) -> std::io::Result<std::collections::HashMap<String, steps::RoleRead>> {
    let needs = steps::RoleNeeds::of(steps);
    live.file
        .roles
        .iter()
        .flatten()
        .filter_map(|role| role.id.as_deref())
        .map(|id| {
            let mut read = steps::role_read_bare(live, id);
            match needs.of_role(id) {
                Some(None) => read.members = live.members.role(id)?,
                Some(Some(emails)) => {
                    read.members = live.members.role_of(id, |email| emails.contains(email))?
                }
                None => {}
            }
            Ok((id.to_string(), read))
        })
        .collect()
}

/// The creates an apply that died left unanswered, settled before
/// anything is planned: each looked for (same fields, made by the key's
/// user since just before it was sent), its id written into the file when
/// found. What was read of the file and its reading, as they now are.
async fn settle_unsettled(
    connection: &Connection,
    path: &Path,
    lock: &mut Lock,
    header: &Header,
    read: Seen,
    wanted: CodeFile,
) -> anyhow::Result<(Seen, CodeFile)> {
    let unsettled = lock.unsettled();
    if unsettled.is_empty() {
        return Ok((read, wanted));
    }
    let mut writeback = Writeback::new(path, read, &wanted);
    let entries = wanted.subscriptions.clone().unwrap_or_default();
    let mut taken: Vec<bool> = entries.iter().map(|entry| entry.id.is_some()).collect();
    for sending in unsettled {
        let at = sending.at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let label = printable(&sending.label).into_owned();
        if sending.host != header.host || sending.project != header.project {
            return Err(failure(format!(
                "{} holds a create of subscription \"{label}\" sent to project {} of {} by an apply interrupted at {at}; apply the file there first (--host, --project), so that it is not made twice",
                path.display(),
                sending.project,
                printable(&sending.host)
            )));
        }
        let id = match sending.id {
            Some(id) => Some(id),
            None => {
                let since = sending.at
                    - chrono::Duration::from_std(crate::api::creates::LOOK_BACK).unwrap_or_default();
                let project = header.project.to_string();
                connection
                    .client
                    .find_subscription(&project, &sending.body, since)
                    .await
                    .map_err(|error| {
                        failure(format!(
                            "cannot tell whether subscription \"{label}\", sent by an apply interrupted at {at}, was made ({error}); nothing was applied: run apply again when the server answers"
                        ))
                    })?
                    .map(|made| made.id)
            }
        };
        let Some(id) = id else {
            eprintln!(
                "orgdeck: note: subscription \"{label}\" of the apply interrupted at {at} was not made"
            );
            lock.settled(sending.index)?;
            continue;
        };
        if entries.iter().any(|entry| entry.id == Some(id)) {
            lock.settled(sending.index)?;
            continue;
        }
        // Its entry: at its place if it is still the same, else the first
        // entry without an id that is.
        let same = |index: usize| {
            !taken[index] && serde_json::Value::Object(steps::as_written(&entries[index])) == sending.entry
        };
        let place = Some(sending.index)
            .filter(|index| *index < entries.len() && same(*index))
            .or_else(|| (0..entries.len()).find(|index| same(*index)));
        match place {
            Some(index) => {
                writeback
                    .write(&NewId::Subscription { index, id })
                    .map_err(|error| failure(format!("{error}; nothing was applied")))?;
                taken[index] = true;
                eprintln!(
                    "orgdeck: note: subscription \"{label}\" was made as {id} by the apply interrupted at {at}; its id is now in {}",
                    printable(&path.display().to_string())
                );
            }
            None => eprintln!(
                "orgdeck: warning: subscription {id} \"{label}\" was made by the apply interrupted at {at}, but no entry of {} without an id matches it now; it stays on the server (a `plan --prune` lists it)",
                printable(&path.display().to_string())
            ),
        }
        lock.settled(sending.index)?;
    }
    drop(writeback);
    let (wanted, read) = read_file(path)?;
    Ok((read, wanted))
}

/// Where and how the steps are applied.
struct Applying<'a> {
    connection: &'a Connection,
    path: &'a Path,
    header: &'a Header,
    listed: u64,
    record: Option<&'a Path>,
    format: Format,
}

impl Applying<'_> {
    async fn run(
        &self,
        lock: Lock,
        read: Seen,
        wanted: &CodeFile,
        plan: &Plan,
        steps: &[Step],
        reads: Option<Reads>,
    ) -> anyhow::Result<()> {
        // The record is opened first: one that cannot be written stops
        // the apply before any step.
        let mut record = match self.record {
            Some(path) => Some((
                path,
                crate::config::files::create_private(path, crate::config::files::Create::Truncate)
                    .map_err(|error| failure(format!("cannot write the record: {error}")))?,
            )),
            None => None,
        };
        let project = self.header.project.to_string();
        let runner = Runner {
            client: &self.connection.client,
            pace: Pace::cloud(),
            organization: &self.header.organization,
            project: &project,
            host: &self.header.host,
            project_id: self.header.project,
            lock: Mutex::new(lock),
            writeback: Mutex::new(Writeback::new(self.path, read, wanted)),
            role_ids: wanted
                .roles
                .iter()
                .flatten()
                .map(|role| role.id.clone())
                .collect(),
            subscription_ids: wanted
                .subscriptions
                .iter()
                .flatten()
                .map(|entry| entry.id)
                .collect(),
            listed: self.listed,
            format: self.format,
        };
        let outcomes = runner.run(steps, reads).await;
        // The lock goes now (its journal kept if a create is unsettled).
        drop(runner);
        if let Some((path, file)) = record.as_mut() {
            let mut text = crate::text::to_safe_json(&json!({"file": self.path, "steps": outcomes}))?;
            text.push('\n');
            file.write_all(text.as_bytes())
                .and_then(|()| file.sync_all())
                .map_err(|error| failure(format!("cannot write the record {}: {error}", path.display())))?;
        }
        if self.format == Format::Json {
            output::print_json(&json!({"plan": plan.to_json(), "steps": outcomes}))?;
        }
        report(&outcomes, self.format)
    }
}

/// Exit 0 when every step is done (or was already), else 1 naming those
/// that were not.
fn report(outcomes: &[Outcome], format: Format) -> anyhow::Result<()> {
    let failed: Vec<&Outcome> = outcomes.iter().filter(|outcome| !outcome.ok).collect();
    if failed.is_empty() {
        if format == Format::Table {
            output::print(&format!("\nApplied: {} steps done.\n", outcomes.len()))?;
        }
        return Ok(());
    }
    let mut message = format!(
        "{} of {} steps failed (the others were done):",
        failed.len(),
        outcomes.len()
    );
    for outcome in failed {
        message.push_str(&format!(
            "\n  {}: {}",
            printable(&outcome.step),
            printable(outcome.error.as_deref().unwrap_or_default())
        ));
    }
    Err(failure(message))
}
