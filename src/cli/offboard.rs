//! `orgdeck people offboard EMAIL`: the plan printed, with the preview of
//! who loses what access (`cli::preview`); the key checked
//! against every step (its user's level, its scopes and limits), a plan it
//! cannot finish refused before anything changes; one question; then the
//! steps four at a time, each written to the record (a journal, see
//! `people::journal`) and flushed as it ends. Ctrl-C, SIGTERM or SIGHUP
//! lets the steps under way end, closes the record and exits 128 + the
//! signal; a second one exits at once, the record holding every step that
//! ended. A record that cannot be written stops the run: before the first
//! step, nothing is done; later, no step starts and the command says which
//! ended without being written.

use std::io::{BufRead as _, Write as _};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

use serde_json::json;

use super::connection::Connection;
use super::output::{self, Format};
use super::preview::Session as PreviewSession;
use super::{Exit, people};
use crate::access::preview::{Change, Effect};
use crate::access::read::ReadError;
use crate::people::offboard::{self, Journal, Options, Outcome, Plan, RecordAt, Session, Status, Step};
use crate::text::{plural, printable};

#[derive(Debug, clap::Args)]
pub struct OffboardArgs {
    /// Their e-mail address.
    email: String,
    /// Print the plan and the preview of their access, and change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Run without asking.
    #[arg(long)]
    yes: bool,
    /// Pause the subscriptions they created (else they are kept running).
    #[arg(long)]
    pause_created: bool,
    /// Soft-delete the subscriptions that mail them alone (else paused).
    #[arg(long)]
    delete_sole: bool,
    /// Finally remove them from the organization (an owner is made admin first).
    #[arg(long)]
    remove_from_organization: bool,
    /// Write the record here (default: the state directory's offboarding/);
    /// an unfinished record of the same offboarding there is gone on in,
    /// anything else replaced. A symbolic link is refused.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
}

pub async fn run(connection: &Connection, format: Format, args: OffboardArgs) -> anyhow::Result<()> {
    let client = &connection.client;
    let options = Options {
        pause_created: args.pause_created,
        delete_sole: args.delete_sole,
        remove_from_organization: args.remove_from_organization,
    };
    let (profile, roles) = people::profile_and_roles(connection, &args.email).await?;
    let mut plan = offboard::plan(&profile, options);
    if format == Format::Table {
        output::print(&plan_text(&plan))?;
    }
    if plan.changes() == 0 {
        return match format {
            Format::Json => {
                output::print_json(&json!({"dry_run": args.dry_run, "plan": plan, "missing": []}))
            }
            Format::Table if args.dry_run => output::print("\nDry run: nothing was changed.\n"),
            Format::Table => output::print("\nNothing to do: every step is done already.\n"),
        };
    }
    let opened = Session::open(
        client,
        &connection.organization,
        &plan,
        crate::clock::system_now(),
    )
    .await;
    let access = access_preview(connection, &profile, &roles, &plan, &args, format).await?;
    if args.dry_run {
        return dry_run(
            &plan,
            opened,
            access.as_ref().map(|(_, _, effect)| effect),
            format,
        );
    }
    let session = opened?;
    if let Some(why) = session.caller.scopes_unknown() {
        eprintln!(
            "orgdeck: warning: the key's scopes could not be read ({}): the server judges them",
            printable(why)
        );
    }
    let missing = session.missing(&plan);
    if !missing.is_empty() {
        return Err(Exit {
            code: 1,
            message: printable(&format!(
                "this key cannot do every step of the plan, so nothing was changed: {}",
                missing.join("; ")
            ))
            .into_owned(),
        }
        .into());
    }
    if !args.yes && !confirmed(&plan)? {
        return Err(Exit {
            code: 1,
            message: "not offboarded: nothing was changed (answer yes to go on)".into(),
        }
        .into());
    }
    // Taking access away asks once more, naming how many lose it.
    if let Some((_, _, effect)) = &access
        && effect.losing > 0
        && !args.yes
        && !super::preview::confirmed(effect)?
    {
        return Err(Exit {
            code: 1,
            message: "not offboarded: nothing was changed (only 'yes' goes on)".into(),
        }
        .into());
    }
    let host = client.base_url().as_str();
    let state_dir = crate::config::state_dir();
    let at = match &args.record {
        Some(path) => RecordAt::File(path),
        None => RecordAt::StateDir(&state_dir),
    };
    let mut journal = Journal::open(at, &session, host, &plan).map_err(|error| Exit {
        code: 1,
        message: format!("nothing was changed: the record cannot be written: {error}"),
    })?;
    if format == Format::Table {
        output::print("\n")?;
        if journal.resumed {
            output::print(&format!(
                "Going on in the unfinished record {}\n",
                journal.path.display()
            ))?;
        }
    }

    let stop = Arc::new(AtomicBool::new(false));
    let signal = Arc::new(AtomicI32::new(0));
    let listener = stop_on_signals(stop.clone(), signal.clone())?;
    let mut unwritten: Option<(std::io::Error, Vec<usize>)> = None;
    let mut report = |at: usize, step: &Step| {
        if format == Format::Table {
            let _ = output::print(&format!("{:>3}. {}", at + 1, step_line(step)));
        }
        match &mut unwritten {
            Some((_, steps)) => steps.push(at),
            None => {
                if let Err(error) = journal.step(at + 1, step, crate::clock::system_now()) {
                    unwritten = Some((error, vec![at]));
                    stop.store(true, Ordering::SeqCst);
                }
            }
        }
    };
    offboard::run(
        client,
        &session.organization_id,
        &mut plan,
        session.today,
        &stop,
        &mut report,
    )
    .await;
    listener.abort();

    let written = journal.steps_written;
    let closed = match unwritten {
        Some(failure) => Err(failure),
        None => journal
            .close(&plan, crate::clock::system_now())
            .map_err(|error| (error, Vec::new())),
    };
    let counts = format!(
        "{} done, {} already so, {} failed{}",
        plan.count(Status::Done),
        plan.count(Status::Unchanged),
        plan.failed(),
        match plan.count(Status::Planned) {
            0 => String::new(),
            left => format!(", {left} not run"),
        }
    );
    let outcome = match closed {
        Ok(outcome) => outcome,
        Err((error, steps)) => {
            if format == Format::Table {
                output::print(&format!("\n{counts}.\n"))?;
            }
            return Err(record_failed(&plan, &journal, written, &error, &steps).into());
        }
    };
    // Their access checked against the server's, once every step is done.
    if let Some((preview, change, effect)) = &access
        && plan.failed() == 0
        && plan.count(Status::Planned) == 0
    {
        check_access(preview, change, effect, format).await?;
    }
    let record = offboard::Record::of(&plan, &session, host, crate::clock::system_now());
    match format {
        Format::Json => output::print_json(&json!({
            "record_file": journal.path,
            "resumed": journal.resumed,
            "record": record,
        }))?,
        Format::Table => output::print(&format!("\n{counts}. Record: {}\n", journal.path.display()))?,
    }
    // Only a signal leaves steps not run once the record is closed.
    let received = match signal.load(Ordering::SeqCst) {
        0 => libc::SIGINT,
        number => number,
    };
    if outcome == Outcome::Interrupted {
        let left = plan.count(Status::Planned);
        return Err(Exit {
            code: 128u8.saturating_add(u8::try_from(received).unwrap_or(0)),
            message: format!(
                "interrupted: {left} step{} not run (those under way ended and are in the record); run it again to finish",
                plural(left)
            ),
        }
        .into());
    }
    if plan.failed() > 0 {
        let failed: Vec<String> = plan
            .steps
            .iter()
            .filter(|step| step.status == Status::Failed)
            .map(|step| format!("{}: {}", step.description, step.error.as_deref().unwrap_or("")))
            .collect();
        return Err(Exit {
            code: 1,
            message: printable(&format!(
                "{} of {} steps failed (the others were done; run it again to finish): {}",
                plan.failed(),
                plan.changes(),
                failed.join("; ")
            ))
            .into_owned(),
        }
        .into());
    }
    Ok(())
}

/// The preview of who loses what access when they leave their roles (and
/// the organization, when asked), printed under the plan; `None` when
/// they hold no membership or the rules cannot be read (then said on a
/// dry run, and the offboarding goes on without it).
async fn access_preview(
    connection: &Connection,
    profile: &crate::people::profile::Profile,
    roles: &crate::people::RoleIndex,
    plan: &Plan,
    args: &OffboardArgs,
    format: Format,
) -> anyhow::Result<Option<(PreviewSession, Change, Effect)>> {
    let Some(member) = &profile.member else {
        return Ok(None);
    };
    let leaves_roles = plan
        .steps
        .iter()
        .any(|step| matches!(step.action, offboard::Action::LeaveRole { .. }));
    if !leaves_roles && !args.remove_from_organization {
        return Ok(None);
    }
    // The offboarding moves their access alone: only they are read, and
    // their roles are those the plan was made from (read once).
    let person = crate::access::directory::Person::from_member(member);
    let held = crate::access::directory::roles_held(roles, &person);
    let session = match PreviewSession::open_of(connection, person, held).await {
        Ok(session) => session,
        Err(ReadError::Stopped) => anyhow::bail!("stopped (Ctrl-C): nothing was changed"),
        // The offboarding goes on without it, as it did before previews.
        Err(ReadError::Api(error)) => {
            if args.dry_run {
                eprintln!(
                    "orgdeck: note: no preview of their access: the access rules could not be read ({})",
                    printable(&error.to_string())
                );
            }
            tracing::info!("no preview of the offboarding's access: {error}");
            return Ok(None);
        }
    };
    let change = Change::Offboard {
        membership_id: member.id.to_lowercase(),
        remove_from_organization: args.remove_from_organization,
    };
    let effect = crate::access::preview::preview(&session.read.world, &change);
    for note in &session.read.world.notes {
        eprintln!("orgdeck: note: {}", printable(note));
    }
    let what = format!("Their access once offboarded ({})", plan.person.email);
    match format {
        Format::Table => output::print(&format!("\n{}", super::preview::text(&effect, &what)))?,
        Format::Json if !args.dry_run => eprint!("{}", super::preview::text(&effect, &what)),
        Format::Json => {}
    }
    Ok(Some((session, change, effect)))
}

/// Their access after the offboarding against the preview: as previewed,
/// said with the counts (stdout); a difference, or a check that could not
/// be made, a warning on stderr (the offboarding is done).
async fn check_access(
    preview: &PreviewSession,
    change: &Change,
    effect: &Effect,
    format: Format,
) -> anyhow::Result<()> {
    match crate::access::preview::world::check(&preview.reader, &preview.read.world, change, effect).await {
        Ok(checked) if checked.differences.is_empty() => {
            if format == Format::Table {
                let mut said = Vec::new();
                if checked.compared > 0 {
                    said.push(format!(
                        "the server's {} level{} after the offboarding are as previewed",
                        checked.compared,
                        plural(checked.compared)
                    ));
                }
                if checked.unlisted > 0 {
                    said.push(format!(
                        "no project's access lists them any more ({} project{} read)",
                        checked.unlisted,
                        plural(checked.unlisted)
                    ));
                }
                if !said.is_empty() {
                    output::print(&format!("Checked: {}.\n", said.join("; ")))?;
                }
            }
        }
        Ok(checked) => super::preview::warn_differences(&checked),
        Err(error) => eprintln!(
            "orgdeck: warning: offboarded, but the server's levels could not be read to check the preview: {}",
            printable(&error.to_string())
        ),
    }
    Ok(())
}

/// `--dry-run`: the plan, the preview of who loses what access, and what
/// the key lacks to run it (a check that could not be made is said, not
/// fatal).
fn dry_run(
    plan: &Plan,
    session: crate::api::error::Result<Session>,
    access: Option<&Effect>,
    format: Format,
) -> anyhow::Result<()> {
    let (missing, unchecked) = match &session {
        Ok(session) => (session.missing(plan), None),
        Err(error) => (Vec::new(), Some(error.to_string())),
    };
    if let Some(why) = &unchecked {
        eprintln!(
            "orgdeck: warning: cannot check what the key may do: {}",
            printable(why)
        );
    }
    match format {
        Format::Json => {
            output::print_json(&json!({"dry_run": true, "plan": plan, "missing": missing, "preview": access}))
        }
        Format::Table => {
            let mut text = String::new();
            if !missing.is_empty() {
                text.push_str("\nThis key cannot do every step:\n");
                for lack in &missing {
                    text.push_str(&format!("  - {}\n", printable(lack)));
                }
            }
            text.push_str("\nDry run: nothing was changed.\n");
            output::print(&text)
        }
    }
}

/// The run stopped because its record could not be written: what it holds,
/// and what ended that it does not.
fn record_failed(
    plan: &Plan,
    journal: &Journal,
    written: usize,
    error: &std::io::Error,
    steps: &[usize],
) -> Exit {
    let not_held: Vec<String> = steps
        .iter()
        .map(|&at| {
            let step = &plan.steps[at];
            format!("{}. {} ({})", at + 1, step.description, status_word(step.status))
        })
        .collect();
    let left = plan.count(Status::Planned);
    let mut message = format!(
        "the record {} could not be written ({error}), so the run stopped: it holds {written} step{} of this run",
        journal.path.display(),
        plural(written)
    );
    if !not_held.is_empty() {
        message.push_str(&format!("; ended but not in it: {}", not_held.join("; ")));
    }
    if left > 0 {
        message.push_str(&format!("; {left} step{} not run", plural(left)));
    }
    message.push_str("; once it can be written, run it again to finish");
    Exit {
        code: 1,
        message: printable(&message).into_owned(),
    }
}

fn status_word(status: Status) -> &'static str {
    match status {
        Status::Done => "done",
        Status::Unchanged => "already so",
        Status::Failed => "failed",
        Status::Noted => "noted",
        Status::Planned => "not run",
    }
}

/// While the steps run, SIGINT, SIGTERM and SIGHUP stop it: the first sets
/// `stop` (the steps under way end, none starts) and keeps its number in
/// `signal`; a second ends the process at once, as the user asks.
fn stop_on_signals(
    stop: Arc<AtomicBool>,
    signal: Arc<AtomicI32>,
) -> anyhow::Result<tokio::task::JoinHandle<()>> {
    use tokio::signal::unix::{SignalKind, signal as listen};
    let mut interrupt = listen(SignalKind::interrupt())?;
    let mut terminate = listen(SignalKind::terminate())?;
    let mut hangup = listen(SignalKind::hangup())?;
    Ok(tokio::spawn(async move {
        loop {
            let number = tokio::select! {
                _ = interrupt.recv() => libc::SIGINT,
                _ = terminate.recv() => libc::SIGTERM,
                _ = hangup.recv() => libc::SIGHUP,
            };
            if signal.swap(number, Ordering::SeqCst) != 0 {
                eprintln!("\norgdeck: stopped at once; the record holds every step that ended");
                std::process::exit(128 + number);
            }
            stop.store(true, Ordering::SeqCst);
            eprintln!(
                "\norgdeck: stopping: the steps under way end, then the record is closed (again to stop at once)"
            );
        }
    }))
}

/// The plan, a numbered line a step.
fn plan_text(plan: &Plan) -> String {
    let mut out = format!(
        "Offboarding {} <{}>: {} change{}\n",
        printable(&plan.person.name),
        printable(&plan.person.email),
        plan.changes(),
        plural(plan.changes())
    );
    for warning in &plan.warnings {
        out.push_str(&format!("  ! {}\n", printable(warning)));
    }
    for (at, step) in plan.steps.iter().enumerate() {
        let mark = if step.writes() { "•" } else { "·" };
        out.push_str(&format!(
            "{:>3}. {mark} {}\n",
            at + 1,
            printable(&step.description)
        ));
    }
    out
}

/// A step's outcome, one line.
pub fn step_line(step: &Step) -> String {
    let text = printable(&step.description);
    match step.status {
        Status::Done => format!("✓ {text}\n"),
        Status::Unchanged => format!("= {text} (already so)\n"),
        Status::Failed => format!(
            "✗ {text}: {}\n",
            printable(step.error.as_deref().unwrap_or("failed"))
        ),
        Status::Noted | Status::Planned => String::new(),
    }
}

/// Asks once on the terminal (stderr) and reads the answer from stdin.
fn confirmed(plan: &Plan) -> anyhow::Result<bool> {
    eprint!(
        "Offboard {}: {} change{}. Only 'yes' goes on: ",
        printable(&plan.person.email),
        plan.changes(),
        plural(plan.changes())
    );
    std::io::stderr().flush()?;
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    Ok(line.trim() == "yes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_step_says_why_and_a_noted_one_prints_nothing() {
        let mut step = Step {
            action: offboard::Action::Note,
            description: "keep #1".into(),
            status: Status::Noted,
            before: None,
            after: None,
            error: None,
        };
        assert_eq!(step_line(&step), "");
        step.status = Status::Failed;
        step.error = Some("404 not_found: Not found.".into());
        assert_eq!(step_line(&step), "✗ keep #1: 404 not_found: Not found.\n");
    }
}
