//! `orgdeck access role NAME`: what a role grants in each project.

use super::super::connection::Connection;
use super::super::output::{self, Column, Requested, fixed, flexible};
use super::{Pace, ProgressLine, chosen_projects, failed, not_found, reader};
use crate::access::directory::Directory;
use crate::access::role::{RoleGrants, RoleKnown, RoleOutcome};
use crate::access::words;
use crate::text::printable;

#[derive(Debug, Clone, clap::Args)]
pub struct RoleArgs {
    /// The role's name (any case) or id.
    name: String,
    #[command(flatten)]
    pace: Pace,
}

pub async fn run(
    args: RoleArgs,
    connection: Connection,
    requested: Requested,
    project_flag: Option<String>,
) -> anyhow::Result<()> {
    let (reader, _ctrl_c) = reader(&connection, &args.pace, super::SMALL_ANSWERS_AT_ONCE);
    let progress = ProgressLine::new();
    progress.say("reading the organization…");
    let directory = Directory::load(&reader, &connection.organization)
        .await
        .map_err(failed)?;
    let Some(role) = directory.role(&args.name) else {
        let names: Vec<&str> = directory.roles.iter().map(|role| role.name.as_str()).collect();
        return Err(not_found(
            printable(&format!(
                "no role \"{}\" in {}; its roles: {}",
                args.name.trim(),
                directory.organization.name,
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            ))
            .into_owned(),
        ));
    };
    let projects = chosen_projects(&directory, project_flag.as_deref());
    let grants = RoleGrants::read(&reader, &directory, role, projects, &|done, total| {
        progress.say(&format!(
            "reading access: {done} of {total} projects · {} requests",
            reader.requests()
        ));
    })
    .await;
    progress.clear();
    let grants = grants.map_err(failed)?;
    match requested {
        Requested::Json => output::print_json(&grants),
        _ => output::print(&page(&grants)),
    }
}

const COLUMNS: [Column; 5] = [
    fixed("WHAT"),
    fixed("ITS RULE"),
    fixed("MEMBERS GET"),
    flexible("WHY"),
    flexible("PROJECT DEFAULT"),
];

fn page(grants: &RoleGrants) -> String {
    let mut out = format!(
        "{}\n{}\n{}\n",
        printable(&words::role_heading(grants)),
        printable(&words::organization_line(&grants.organization)),
        words::ROLE_GRANTS_MEAN
    );
    for project in &grants.projects {
        out.push('\n');
        match &project.outcome {
            RoleOutcome::Unknown(unknown) => out.push_str(&format!(
                "{}\n",
                printable(&words::unknown_line(&project.project.label(), &unknown.unknown))
            )),
            RoleOutcome::Known(known) => out.push_str(&known_project(&project.project.label(), known)),
        }
    }
    out
}

fn known_project(label: &str, known: &RoleKnown) -> String {
    let mut out = format!("{}\n", printable(&words::project_line(label, &known.project)));
    for note in &known.notes {
        out.push_str(&format!("  {}\n", printable(&words::note_line(note))));
    }
    for line in output::table(&COLUMNS, &words::role_rows(known), output::output_width()).lines() {
        out.push_str(&format!("  {line}\n"));
    }
    if let Some(others) = words::others_line(&known.others) {
        out.push_str(&format!("  {others}\n"));
    }
    if known.object_rules.is_empty() {
        out.push_str(&format!("  {}\n", words::NO_OBJECT_RULES));
    } else {
        let rows: Vec<Vec<String>> = known.object_rules.iter().map(words::role_object_row).collect();
        for line in output::table(
            &[flexible("OBJECT RULE"), fixed("LEVEL")],
            &rows,
            output::output_width(),
        )
        .lines()
        {
            out.push_str(&format!("  {line}\n"));
        }
    }
    out
}
