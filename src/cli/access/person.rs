//! `orgdeck access person EMAIL`: what a person can reach, and why.

use super::super::output::{self, Column, Requested, fixed, flexible};
use super::super::{UsageError, connection::Connection};
use super::{Pace, ProgressLine, chosen_projects, failed, reader, resolution};
use crate::access::directory::{self, Directory, People};
use crate::access::person::{Known, Outcome, PersonAccess};
use crate::access::words;
use crate::text::printable;

#[derive(Debug, Clone, clap::Args)]
pub struct PersonArgs {
    /// Their e-mail address (any case).
    email: String,
    #[command(flatten)]
    pace: Pace,
}

pub async fn run(
    args: PersonArgs,
    connection: Connection,
    requested: Requested,
    project_flag: Option<String>,
) -> anyhow::Result<()> {
    let (reader, _ctrl_c) = reader(&connection, &args.pace, super::SMALL_ANSWERS_AT_ONCE);
    let progress = ProgressLine::new();
    progress.say("reading the organization…");
    // The person first: of the roles' memberships, only theirs are kept.
    let person = directory::person(&reader, &connection.organization, &args.email)
        .await
        .map_err(failed)?;
    let people = People::Known(person.iter().cloned().collect());
    let directory = Directory::load_for(&reader, &connection.organization, &people)
        .await
        .map_err(failed)?;
    let person = person.ok_or_else(|| {
        UsageError(format!(
            "no member of {} has the address {}",
            printable(&directory.organization.name),
            printable(args.email.trim())
        ))
    })?;
    let projects = chosen_projects(&directory, project_flag.as_deref());
    let access = PersonAccess::read(&reader, &directory, person, projects, &|done, total| {
        progress.say(&format!(
            "reading access: {done} of {total} projects · {} requests",
            reader.requests()
        ));
    })
    .await;
    progress.clear();
    let access = access.map_err(failed)?;
    tracing::info!(requests = reader.requests(), "access person");
    match requested {
        Requested::Json => output::print_json(&access),
        _ => output::print(&page(&access)),
    }
}

/// The person's access as people read it.
fn page(access: &PersonAccess) -> String {
    let person = &access.person;
    let roles = if access.roles.is_empty() {
        "no role".to_string()
    } else {
        format!(
            "roles: {}",
            access
                .roles
                .iter()
                .map(|role| role.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let mut out = format!(
        "{} · {} of {} · {roles}\n{} {}.\n",
        printable(&person.label()),
        person.level_name(),
        printable(&access.organization.name),
        printable(&access.organization.name),
        resolution(&access.organization)
    );
    if access.projects.is_empty() {
        out.push_str("\nThe key lists no project of the organization.\n");
    }
    for project in &access.projects {
        out.push('\n');
        match &project.outcome {
            Outcome::Unknown(unknown) => out.push_str(&format!(
                "{}: unknown: {}\n",
                printable(&project.project.label()),
                printable(&unknown.unknown)
            )),
            Outcome::Known(known) => out.push_str(&known_project(&project.project.label(), known)),
        }
    }
    out
}

const COLUMNS: [Column; 5] = [
    fixed("WHAT"),
    fixed("LEVEL"),
    flexible("WHY"),
    flexible("PROJECT DEFAULT"),
    flexible("RULES OUTRANKED"),
];

const OBJECT_COLUMNS: [Column; 5] = [
    flexible("OBJECT RULE"),
    fixed("RULE"),
    flexible("BY"),
    fixed("THEIR LEVEL"),
    flexible("HOW"),
];

pub(super) fn known_project(label: &str, known: &Known) -> String {
    let mut out = format!("{}\n", printable(&words::project_line(label, &known.project)));
    for note in &known.notes {
        out.push_str(&format!("  {}\n", printable(&words::note_line(note))));
    }
    for line in output::table(&COLUMNS, &words::person_rows(known), output::output_width()).lines() {
        out.push_str(&format!("  {line}\n"));
    }
    if let Some(others) = words::person_rest(known) {
        out.push_str(&format!("  {others}\n"));
    }
    if !known.object_rules.is_empty() {
        let rows: Vec<Vec<String>> = known.object_rules.iter().map(words::object_row).collect();
        for line in output::table(&OBJECT_COLUMNS, &rows, output::output_width()).lines() {
            out.push_str(&format!("  {line}\n"));
        }
    }
    out
}
