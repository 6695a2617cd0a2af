//! Access in words: what `orgdeck access person|role|who` print and the
//! console's person page, role page and `:who` show, said once so that the
//! two faces say the same things the same way. Each returns plain text
//! (the face makes it safe for its terminal); none recomputes a level: the
//! words are of what the server resolved ([`super::person`],
//! [`super::role`], [`super::who`]).

use super::directory::Organization;
use super::explain::Why;
use super::person::{Known, Line, ObjectLine, Others};
use super::role::{RoleGrants, RoleKnown};
use super::who::{WhoAccess, WhoLine};
use crate::api::access::Mode;
use crate::api::access::levels::{PROJECT, display_name};

/// The columns of a project's lines of a person's access.
pub const PERSON_COLUMNS: [&str; 5] = ["WHAT", "LEVEL", "WHY", "PROJECT DEFAULT", "RULES OUTRANKED"];

/// The columns of the object rules that name a person or their roles.
pub const OBJECT_COLUMNS: [&str; 5] = ["OBJECT RULE", "RULE", "BY", "THEIR LEVEL", "HOW"];

/// The columns of a project's lines of what a role grants.
pub const ROLE_COLUMNS: [&str; 5] = ["WHAT", "ITS RULE", "MEMBERS GET", "WHY", "PROJECT DEFAULT"];

/// The columns of a role's object rules.
pub const ROLE_OBJECT_COLUMNS: [&str; 2] = ["OBJECT RULE", "LEVEL"];

/// What a role's page says it shows.
pub const ROLE_GRANTS_MEAN: &str =
    "What its members get from it and from everyone's rules (their own rules and other roles aside).";

/// The resolution mode in words, for a header line.
pub fn resolution(organization: &Organization) -> String {
    match organization.mode {
        Some(Mode::HighestWins) => "resolves access by the highest rule (highest-wins)".into(),
        Some(Mode::MostSpecific) => "resolves access by the most specific rule (most-specific)".into(),
        None => "does not say how it resolves access (PostHog does not tell)".into(),
    }
}

/// "Hedgebox Inc. resolves access by the highest rule (highest-wins)."
pub fn organization_line(organization: &Organization) -> String {
    format!("{} {}.", organization.name, resolution(organization))
}

/// A resource in words: "feature flags", "project".
pub fn resource_name(resource: &str) -> String {
    if resource == PROJECT {
        "project".into()
    } else {
        display_name(resource)
    }
}

/// An object in words: `dashboard "Board pack"`.
pub fn object_name(resource: &str, name: Option<&str>, id: &str) -> String {
    format!(
        "{} \"{}\"",
        display_name(resource).trim_end_matches('s'),
        name.unwrap_or(id)
    )
}

/// A project's first line: "Hedgebox Web (1): member · everyone".
pub fn project_line(label: &str, project: &Line) -> String {
    format!("{label}: {} · {}", project.cell.level_name(), project.cell.why)
}

/// A project a read said nothing of: "Hedgebox Web (1): unknown: …".
pub fn unknown_line(label: &str, unknown: &str) -> String {
    format!("{label}: unknown: {unknown}")
}

/// A note of a project: "note: …".
pub fn note_line(note: &str) -> String {
    format!("note: {note}")
}

/// The resources at the project's default, in a line.
pub fn others_line(others: &[Others]) -> Option<String> {
    if others.is_empty() {
        return None;
    }
    let groups: Vec<String> = others
        .iter()
        .map(|group| {
            let which = if group.resources.len() <= 3 {
                group
                    .resources
                    .iter()
                    .map(|resource| resource_name(resource))
                    .collect::<Vec<_>>()
                    .join(", ")
            } else {
                crate::text::counted(group.resources.len(), "resource")
            };
            format!("{which} at {} ({})", group.level, group.why)
        })
        .collect();
    Some(format!(
        "the rest as the project's default: {}",
        groups.join("; ")
    ))
}

/// A line's reason, with the rules of it Terraform manages said: "role
/// Finance (managed by Terraform: role Finance)", "…, lock off: …" when
/// the project's lock is off.
pub fn why_with_terraform(line: &Line) -> String {
    if line.terraform.is_empty() {
        line.cell.why.to_string()
    } else {
        format!(
            "{} ({}: {})",
            line.cell.why,
            super::terraform_mark(line.terraform_lock),
            line.terraform.join(", ")
        )
    }
}

/// `words` with who manages the rule said, when another tool does:
/// "role Finance (managed by Terraform)", and "…, lock off" when the
/// project's Terraform lock is off (a write is still allowed).
pub fn with_manager(words: String, managed_by: Option<&str>, locked: bool) -> String {
    match managed_by {
        None => words,
        Some(manager) if manager.eq_ignore_ascii_case("terraform") => {
            format!("{words} ({})", super::terraform_mark(locked))
        }
        Some(manager) => format!("{words} (managed by {manager})"),
    }
}

/// Whether a person's project is all an organization admin's: then one
/// row says so for every resource ([`admin_row`]).
pub fn all_admin(known: &Known) -> bool {
    known.project.cell.why == Why::OrganizationAdmin
        && known
            .resources
            .iter()
            .all(|line| line.cell.why == Why::OrganizationAdmin)
}

/// The row that stands for every resource of an organization admin.
pub fn admin_row() -> Vec<String> {
    vec![
        "every resource".into(),
        "highest".into(),
        Why::OrganizationAdmin.to_string(),
        String::new(),
        String::new(),
    ]
}

/// The rows of a person's project ([`PERSON_COLUMNS`]): the project, then
/// each resource worth telling (or one row for an organization admin).
pub fn person_rows(known: &Known) -> Vec<Vec<String>> {
    let mut rows = vec![person_row(&known.project)];
    if all_admin(known) {
        rows.push(admin_row());
    } else {
        rows.extend(known.resources.iter().map(person_row));
    }
    rows
}

/// The line under a person's project's rows: the rest at the default
/// (nothing for an organization admin).
pub fn person_rest(known: &Known) -> Option<String> {
    if all_admin(known) {
        None
    } else {
        others_line(&known.others)
    }
}

/// One row of a person's access ([`PERSON_COLUMNS`]).
pub fn person_row(line: &Line) -> Vec<String> {
    vec![
        resource_name(&line.resource),
        line.cell.level_name().to_string(),
        why_with_terraform(line),
        format!("{} ({})", line.default, line.default_why),
        // An organization admin's level bypasses every rule.
        line.outranked
            .iter()
            .filter(|_| line.cell.why != Why::OrganizationAdmin)
            .map(|note| format!("{}: {}", note.by, note.level))
            .collect::<Vec<_>>()
            .join(", "),
    ]
}

/// One object rule naming a person or their roles ([`OBJECT_COLUMNS`]).
pub fn object_row(line: &ObjectLine) -> Vec<String> {
    let what = object_name(&line.resource, line.name.as_deref(), &line.resource_id);
    let (level, how) = match (&line.effective, &line.effective_unknown) {
        (Some(level), _) => (
            level.to_string(),
            line.effective_source
                .as_ref()
                .map(|source| source.as_str().replace('_', " "))
                .unwrap_or_else(|| "not among those who reach it".into()),
        ),
        (None, Some(why)) => ("unknown".into(), why.clone()),
        (None, None) => (String::new(), String::new()),
    };
    vec![
        what,
        line.rule.as_ref().map(ToString::to_string).unwrap_or_default(),
        with_manager(line.by.clone(), line.managed_by.as_deref(), line.terraform_lock),
        level,
        how,
    ]
}

/// A role's first line: "Role Contractors · 1 member: Amara Eze <…>".
pub fn role_heading(grants: &RoleGrants) -> String {
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
    format!(
        "Role {} · {}{}",
        role.name,
        crate::text::counted(role.members.len(), "member"),
        if names.is_empty() {
            String::new()
        } else {
            format!(": {}", names.join(", "))
        }
    )
}

/// The rows of a role's project ([`ROLE_COLUMNS`]): the project, then each
/// resource it has a rule on or whose level is not the default.
pub fn role_rows(known: &RoleKnown) -> Vec<Vec<String>> {
    std::iter::once(&known.project)
        .chain(known.resources.iter())
        .map(role_row)
        .collect()
}

/// One row of what a role grants ([`ROLE_COLUMNS`]).
pub fn role_row(line: &Line) -> Vec<String> {
    let rule = line
        .cell
        .own
        .clone()
        .or_else(|| line.outranked.first().map(|note| note.level.clone()));
    vec![
        resource_name(&line.resource),
        rule.map(|level| level.to_string()).unwrap_or_else(|| "-".into()),
        line.cell.level_name().to_string(),
        why_with_terraform(line),
        format!("{} ({})", line.default, line.default_why),
    ]
}

/// Said of a role's project without object rules.
pub const NO_OBJECT_RULES: &str = "no object rules";

/// One object rule of a role ([`ROLE_OBJECT_COLUMNS`]).
pub fn role_object_row(rule: &ObjectLine) -> Vec<String> {
    vec![
        object_name(&rule.resource, rule.name.as_deref(), &rule.resource_id),
        with_manager(
            rule.rule.as_ref().map(ToString::to_string).unwrap_or_default(),
            rule.managed_by.as_deref(),
            rule.terraform_lock,
        ),
    ]
}

/// What `access who` asked about: `dashboard "Board pack" (12) in
/// Hedgebox Web (1)`, or `the project Hedgebox Web (1)`.
pub fn who_target(who: &WhoAccess) -> String {
    if who.target.resource == PROJECT {
        format!("the project {}", who.project.label())
    } else {
        format!(
            "{} \"{}\" ({}) in {}",
            display_name(&who.target.resource).trim_end_matches('s'),
            who.target.name,
            who.target.id,
            who.project.label()
        )
    }
}

/// "8 people reach dashboard "Board pack" (12) in Hedgebox Web (1)".
pub fn who_heading(who: &WhoAccess) -> String {
    let people = match who.users.len() {
        1 => "1 person reaches".to_string(),
        n => format!("{} people reach", crate::text::thousands(n as u64)),
    };
    format!("{people} {}", who_target(who))
}

/// When the server counts more than it listed.
pub fn who_count_note(who: &WhoAccess) -> Option<String> {
    (who.total_count != who.users.len() as u64).then(|| {
        format!(
            "the server counts {}; it listed {}",
            who.total_count,
            who.users.len()
        )
    })
}

/// One person who reaches the thing (LEVEL, NAME, EMAIL, HOW, ORG LEVEL).
pub fn who_row(user: &WhoLine) -> Vec<String> {
    vec![
        user.level.to_string(),
        who_name(user),
        user.email.clone(),
        user.how.clone(),
        user.organization_level.clone().unwrap_or_default(),
    ]
}

/// A person who reaches the thing, by name (their id when the
/// organization's members do not name them).
pub fn who_name(user: &WhoLine) -> String {
    if user.name.is_empty() {
        user.user_uuid.clone()
    } else {
        user.name.clone()
    }
}
