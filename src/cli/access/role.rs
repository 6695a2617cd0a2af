//! `orgdeck access role NAME`: what a role grants in each project.

use super::super::connection::Connection;
use super::super::output::{self, Column, Requested, fixed, flexible};
use super::{
    Pace, ProgressLine, chosen_projects, failed, not_found, others_line, reader, resolution, resource_name,
};
use crate::access::directory::Directory;
use crate::access::person::Line;
use crate::access::role::{RoleGrants, RoleKnown, RoleOutcome};
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
    let role = &grants.role;
    let names: Vec<String> = role
        .members
        .iter()
        .map(|member| {
            if member.email.is_empty() || member.name == member.email {
                member.name.clone()
            } else {
                format!("{} <{}>", member.name, member.email)
            }
        })
        .collect();
    let mut out = format!(
        "Role {} · {}{}\n{} {}.\n",
        printable(&role.name),
        crate::text::counted(role.members.len(), "member"),
        if names.is_empty() {
            String::new()
        } else {
            format!(": {}", printable(&names.join(", ")))
        },
        printable(&grants.organization.name),
        resolution(&grants.organization)
    );
    out.push_str(
        "What its members get from it and from everyone's rules (their own rules and other roles aside).\n",
    );
    for project in &grants.projects {
        out.push('\n');
        match &project.outcome {
            RoleOutcome::Unknown(unknown) => out.push_str(&format!(
                "{}: unknown: {}\n",
                printable(&project.project.label()),
                printable(&unknown.unknown)
            )),
            RoleOutcome::Known(known) => out.push_str(&known_project(&project.project.label(), known)),
        }
    }
    out
}

fn known_project(label: &str, known: &RoleKnown) -> String {
    let mut out = format!(
        "{}: {} · {}\n",
        printable(label),
        known.project.cell.level_name(),
        known.project.cell.why
    );
    for note in &known.notes {
        out.push_str(&format!("  note: {}\n", printable(note)));
    }
    let rows: Vec<Vec<String>> = std::iter::once(&known.project)
        .chain(known.resources.iter())
        .map(row)
        .collect();
    for line in output::table(&COLUMNS, &rows, output::output_width()).lines() {
        out.push_str(&format!("  {line}\n"));
    }
    if let Some(others) = others_line(&known.others) {
        out.push_str(&format!("  {others}\n"));
    }
    if known.object_rules.is_empty() {
        out.push_str("  no object rules\n");
    } else {
        let rows: Vec<Vec<String>> = known
            .object_rules
            .iter()
            .map(|rule| {
                vec![
                    format!(
                        "{} \"{}\"",
                        crate::api::access::levels::display_name(&rule.resource).trim_end_matches('s'),
                        rule.name.clone().unwrap_or_else(|| rule.resource_id.clone())
                    ),
                    super::with_manager(
                        rule.rule.as_ref().map(ToString::to_string).unwrap_or_default(),
                        rule.managed_by.as_deref(),
                        rule.terraform_lock,
                    ),
                ]
            })
            .collect();
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

fn row(line: &Line) -> Vec<String> {
    let rule = line
        .cell
        .own
        .clone()
        .or_else(|| line.outranked.first().map(|note| note.level.clone()));
    vec![
        resource_name(&line.resource),
        rule.map(|level| level.to_string()).unwrap_or_else(|| "-".into()),
        line.cell.level_name().to_string(),
        super::why_with_terraform(line),
        format!("{} ({})", line.default, line.default_why),
    ]
}
