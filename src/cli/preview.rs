//! The preview every change that can move access shows first (`access
//! set|unset`, `members add|remove`, `roles delete`, `people level`,
//! `people offboard`, `plan` and `apply`): who
//! gains and who loses what, computed by `crate::access::preview` from the
//! rules read from the server; a change that takes access away from anyone
//! asks once more, naming how many lose it, Enter meaning no; `--dry-run`
//! prints it and changes nothing, `--yes` answers for scripts. After the
//! change, the preview is checked against what the server resolves, and a
//! difference is said. The preview's words are `access::preview::told`,
//! which the console shows too.
//!
//! A server whose rules cannot be read (an older PostHog, a key without
//! `access_control:read`) gets a note that there is no preview, and the
//! command goes on as it did before previews; `--dry-run` then fails.

use std::io::{BufRead as _, Write as _};

use clap::Args;

use super::connection::Connection;
use super::output::{self, Format};
use super::{Exit, UsageError};
use crate::access::directory::People;
pub use crate::access::preview::told::{people, text};
use crate::access::preview::world::{self, Projects, Read};
use crate::access::preview::{Change, Effect, World};
use crate::access::read::{ReadError, ReadOptions, Reader};
use crate::text::{plural, printable};

/// Requests at once while reading the rules.
const AT_ONCE: usize = 8;

/// `--dry-run` and `--yes` of a change that moves access.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct PreviewArgs {
    /// Print who would gain and who would lose access, and change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Do not ask, even when someone loses access (for scripts).
    #[arg(long)]
    pub yes: bool,
}

/// The rules read, ready to preview changes on.
pub struct Session {
    pub reader: Reader,
    pub read: Read,
    _ctrl_c: super::access::CtrlC,
}

impl Session {
    /// Reads the organization, its people, roles and the rules of the
    /// projects asked for.
    pub async fn open(connection: &Connection, projects: Projects<'_>) -> Result<Session, ReadError> {
        Session::open_for(connection, projects, &People::Everyone).await
    }

    /// [`Session::open`] for a change about `people` alone (an offboarding,
    /// a level, role memberships): only they are kept of the members.
    pub async fn open_for(
        connection: &Connection,
        projects: Projects<'_>,
        people: &People,
    ) -> Result<Session, ReadError> {
        let (reader, ctrl_c) = Session::reader(connection);
        let read = World::read(&reader, &connection.organization, projects, people).await?;
        Ok(Session {
            reader,
            read,
            _ctrl_c: ctrl_c,
        })
    }

    /// The reader a session reads through, stopped by Ctrl-C.
    fn reader(connection: &Connection) -> (Reader, super::access::CtrlC) {
        super::access::stoppable_reader(
            connection,
            ReadOptions {
                concurrency: AT_ONCE,
                ..ReadOptions::default()
            },
        )
    }

    /// [`Session::open_for`] of one person whose roles were read already
    /// ([`World::read_of`]).
    pub async fn open_of(
        connection: &Connection,
        person: crate::access::directory::Person,
        roles: Vec<crate::access::directory::RoleInfo>,
    ) -> Result<Session, ReadError> {
        let (reader, ctrl_c) = Session::reader(connection);
        let read = World::read_of(&reader, &connection.organization, Projects::All, person, roles).await?;
        Ok(Session {
            reader,
            read,
            _ctrl_c: ctrl_c,
        })
    }

    /// Opens a session for a change, or says why there is no preview and
    /// returns `None` (a dry run cannot go on without one).
    pub async fn open_or_note(
        connection: &Connection,
        projects: Projects<'_>,
        people: &People,
        args: &PreviewArgs,
    ) -> anyhow::Result<Option<Session>> {
        match Session::open_for(connection, projects, people).await {
            Ok(session) => Ok(Some(session)),
            Err(ReadError::Stopped) => Err(anyhow::anyhow!("stopped (Ctrl-C): nothing was changed")),
            Err(ReadError::Api(error)) if args.dry_run => Err(anyhow::anyhow!(
                "no preview: the access rules could not be read ({error}); nothing was changed"
            )),
            Err(ReadError::Api(error)) => {
                // Logged, not said: the command goes on as it did before previews.
                tracing::info!(
                    "no preview of who gains or loses access: the access rules could not be read ({error})"
                );
                Ok(None)
            }
        }
    }
}

/// What the preview decided.
pub enum Decision {
    /// Make the change.
    Go,
    /// A dry run: the preview was printed, nothing is to change.
    DryRun,
}

/// Prints the preview of `change` and asks when someone loses access.
/// `Err` when the answer is no, or a rule the change needs is Terraform's
/// under a lock.
pub fn show_and_ask(
    world: &World,
    change: &Change,
    args: &PreviewArgs,
    format: Format,
    what: &str,
) -> anyhow::Result<(Effect, Decision)> {
    let effect = crate::access::preview::preview(world, change);
    for note in &world.notes {
        eprintln!("orgdeck: note: {}", printable(note));
    }
    if !effect.locked.is_empty() {
        return Err(Exit {
            code: 1,
            message: crate::access::preview::told::locked_text(&effect.locked),
        }
        .into());
    }
    // Nothing moves: said on a dry run, else the command stays as quiet as it was.
    if effect.lines.is_empty() && !args.dry_run {
        return Ok((effect, Decision::Go));
    }
    match (format, args.dry_run) {
        (Format::Json, true) => {
            output::print_json(&serde_json::json!({"dry_run": true, "change": what, "preview": effect}))?;
            return Ok((effect, Decision::DryRun));
        }
        (Format::Json, false) => eprint!("{}", text(&effect, what)),
        (Format::Table, _) => output::print(&text(&effect, what))?,
    }
    if args.dry_run {
        output::print("Dry run: nothing was changed.\n")?;
        return Ok((effect, Decision::DryRun));
    }
    if effect.losing > 0 && !args.yes && !confirmed(&effect)? {
        return Err(Exit {
            code: 1,
            message: "nothing was changed (only 'yes' goes on)".into(),
        }
        .into());
    }
    Ok((effect, Decision::Go))
}

/// Asks once more on the terminal (stderr), naming how many lose access;
/// only "yes" (or "y") goes on, Enter means no.
pub fn confirmed(effect: &Effect) -> anyhow::Result<bool> {
    eprint!(
        "{} Type yes to go on, Enter means no: ",
        crate::access::preview::told::losing_question(effect.losing)
    );
    std::io::stderr().flush()?;
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    Ok(matches!(line.trim().to_lowercase().as_str(), "yes" | "y"))
}

/// Where the server's levels after a change differ from its preview, a
/// warning on stderr with each difference.
pub fn warn_differences(checked: &world::Checked) {
    eprintln!(
        "orgdeck: warning: the server resolves {} level{} otherwise than previewed:",
        checked.differences.len(),
        plural(checked.differences.len())
    );
    for difference in &checked.differences {
        eprintln!("orgdeck: warning:   {}", printable(difference));
    }
}

/// After the change: the server's levels against the preview, said on
/// stderr; the check itself failing is a warning too (the change is made).
pub async fn check(session: &Session, change: &Change, effect: &Effect) -> Option<world::Checked> {
    match world::check(&session.reader, &session.read.world, change, effect).await {
        Ok(checked) => {
            if let Some(mode) = checked.server_mode {
                eprintln!(
                    "orgdeck: note: the server's levels after the change are those of the {mode} mode: the organization resolves access that way"
                );
            }
            if checked.differences.is_empty() {
                eprintln!(
                    "orgdeck: checked: the server's {} level{} after the change are as previewed",
                    checked.compared,
                    plural(checked.compared)
                );
            } else {
                warn_differences(&checked);
            }
            Some(checked)
        }
        Err(error) => {
            eprintln!(
                "orgdeck: warning: the change is made, but the server's levels could not be read to check the preview: {}",
                printable(&error.to_string())
            );
            None
        }
    }
}

/// A name a command line gave that the directory does not hold.
pub fn unknown(message: String) -> anyhow::Error {
    UsageError(message).into()
}
