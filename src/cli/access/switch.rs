//! `orgdeck access switch-preview`: what switching the organization to the
//! other resolution mode would change (posthog.md 16.6; PostHog moves
//! organizations to "the most specific rule wins" from 1 October 2026):
//! every member, project and resource whose level differs between the two
//! modes, the rule that makes the difference, and a fix that keeps today's
//! level. Exit 0 when nothing changes, 2 when something does, 1 on an
//! error.

use super::super::Exit;
use super::super::connection::Connection;
use super::super::output::{self, Format};
use super::super::preview::Session;
use super::{ProgressLine, failed};
use crate::access::preview::world::Projects;
use crate::access::preview::{Switch, switch};

pub async fn run(connection: Connection, format: Format, project_flag: Option<String>) -> anyhow::Result<()> {
    let progress = ProgressLine::new();
    progress.say("reading the rules of every project…");
    let projects = match &project_flag {
        Some(project) => Projects::One(project),
        None => Projects::All,
    };
    let session = Session::open(&connection, projects).await;
    progress.clear();
    let session = session.map_err(failed)?;
    let found = switch(&session.read.world);
    match format {
        Format::Json => output::print_json(&found)?,
        Format::Table => output::print(&text(&found, &session))?,
    }
    if found.lines.is_empty() {
        Ok(())
    } else {
        Err(Exit {
            code: 2,
            message: format!(
                "switching to {} changes the access of {}",
                found.to,
                super::super::preview::people(found.people)
            ),
        }
        .into())
    }
}

fn text(found: &Switch, session: &Session) -> String {
    crate::access::preview::switch_told::text(found, &session.read.directory.organization.name)
}
