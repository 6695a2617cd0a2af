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
use crate::text::printable;

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
    let organization = &session.read.directory.organization;
    let mut out = format!(
        "{} resolves access {}{}; switching to {}:\n",
        printable(&organization.name),
        found.from,
        if found.mode_known {
            ""
        } else {
            " (assumed: the server does not say, and PostHog enforces it today)"
        },
        found.to
    );
    if found.lines.is_empty() {
        out.push_str("  Nobody's access changes.\n");
        return out;
    }
    out.push_str(&format!(
        "  {} change{} for {}.\n",
        found.lines.len(),
        if found.lines.len() == 1 { "" } else { "s" },
        super::super::preview::people(found.people)
    ));
    let mut last = String::new();
    for line in &found.lines {
        if line.membership_id != last {
            let who = if line.name.is_empty() || line.name == line.email {
                line.email.clone()
            } else {
                format!("{} <{}>", line.name, line.email)
            };
            out.push_str(&format!("  {}\n", printable(&who)));
            last = line.membership_id.clone();
        }
        let thing = if line.resource == crate::api::access::levels::PROJECT {
            "project".to_string()
        } else {
            crate::api::access::levels::display_name(&line.resource)
        };
        out.push_str(&format!(
            "    {thing} {} → {} in {}, because {}\n      fix: {}\n",
            line.today,
            line.after_switch,
            printable(&line.project.label()),
            printable(&line.because),
            printable(&line.fix)
        ));
    }
    out
}
