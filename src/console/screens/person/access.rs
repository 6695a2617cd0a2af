//! A person's page's Access section (issue 31 req 3): what `orgdeck
//! access person` says of them, in the same words (`crate::access::words`),
//! read in the background once their page is gathered, a project's answer
//! at a time ("access: 7 of 20 projects"). Levels are the server's, never
//! recomputed here. Also the lines such a section is made of ([`Said`]),
//! which a role's page shows too, and how they are drawn; a project's or
//! a resource's row carries the rule `e` edits on it (the one it names).

use ratatui::text::Span;
use serde::Serialize;
use unicode_width::UnicodeWidthStr;

use crate::access::directory::ProjectRef;
use crate::access::explain::Why;
use crate::access::person::{Known, Line, Outcome, PersonAccess};
use crate::access::words;
use crate::api::access::Subject;
use crate::console::kit::cell::{styled, text};
use crate::console::kit::view::ViewCx;
use crate::console::screens::access::edit::Target;

/// What the section knows: the read under way and how far it came, what
/// it read, or why it could not.
#[derive(Debug, Default)]
pub struct Section {
    /// Under way: (projects read, projects in all), once the projects are known.
    pub reading: Option<Option<(usize, usize)>>,
    pub access: Option<Box<PersonAccess>>,
    pub error: Option<String>,
}

/// What a line of an access section is, for how it is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A project's first line: its level and why.
    Project,
    /// The columns of the rows under it.
    Columns,
    Row,
    /// A note, the rest at the default, a count.
    Note,
    /// What could not be read.
    Warning,
}

/// A line of an access section, as said.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Said {
    pub kind: Kind,
    pub text: String,
    /// The rule `e` edits on this line (a project's or a resource's row):
    /// the one the line names.
    #[serde(skip)]
    pub edit: Option<Box<Target>>,
}

impl crate::console::kit::page::PageItem for Said {
    fn id(&self) -> String {
        self.text.clone()
    }
}

impl Said {
    pub fn new(kind: Kind, text: impl Into<String>) -> Said {
        Said {
            kind,
            text: text.into(),
            edit: None,
        }
    }
}

/// The section's heading: "Access (2 projects)", or how far the read came.
pub fn heading(section: &Section) -> String {
    match (&section.reading, &section.access) {
        (Some(Some((done, total))), _) => format!("Access · reading: {done} of {total} projects"),
        (Some(None), _) => "Access · reading…".into(),
        (None, Some(access)) => format!(
            "Access ({})",
            crate::text::counted(access.projects.len(), "project")
        ),
        (None, None) => "Access".into(),
    }
}

/// The section's lines under its heading.
pub fn lines(section: &Section) -> Vec<Said> {
    let mut said = Vec::new();
    if let Some(error) = &section.error {
        said.push(Said::new(
            Kind::Warning,
            format!("their access could not be read: {error} · r tries again"),
        ));
    }
    let Some(access) = &section.access else {
        if section.error.is_none() {
            said.push(Said::new(Kind::Note, progress(section)));
        }
        return said;
    };
    said.push(Said::new(
        Kind::Note,
        words::organization_line(&access.organization),
    ));
    if access.projects.is_empty() {
        said.push(Said::new(
            Kind::Warning,
            "The key lists no project of the organization.",
        ));
    }
    for project in &access.projects {
        let label = project.project.label();
        match &project.outcome {
            Outcome::Unknown(unknown) => said.push(Said::new(
                Kind::Warning,
                words::unknown_line(&label, &unknown.unknown),
            )),
            Outcome::Known(known) => said.extend(known_project(&project.project, known, access)),
        }
    }
    said
}

/// "access: 7 of 20 projects", while the read is under way.
pub fn progress(section: &Section) -> String {
    match section.reading {
        Some(Some((done, total))) => format!("access: {done} of {total} projects · Esc leaves"),
        Some(None) | None => "access: reading the organization's projects…".into(),
    }
}

fn known_project(project: &ProjectRef, known: &Known, access: &PersonAccess) -> Vec<Said> {
    let label = project.label();
    let mut said = vec![Said::new(
        Kind::Project,
        words::project_line(&label, &known.project),
    )];
    said.extend(
        known
            .notes
            .iter()
            .map(|note| Said::new(Kind::Note, words::note_line(note))),
    );
    let mut rows = table(&words::PERSON_COLUMNS, &words::person_rows(known));
    if !words::all_admin(known) {
        let lines = std::iter::once(&known.project).chain(known.resources.iter());
        for (row, line) in rows.iter_mut().skip(1).zip(lines) {
            row.edit = Some(Box::new(person_target(project, line, access)));
        }
    }
    said.extend(rows);
    if let Some(rest) = words::person_rest(known) {
        said.push(Said::new(Kind::Note, rest));
    }
    if !known.object_rules.is_empty() {
        let rows: Vec<Vec<String>> = known.object_rules.iter().map(words::object_row).collect();
        said.extend(table(&words::OBJECT_COLUMNS, &rows));
    }
    said
}

/// The rule a line of a person's access names: the role's whose rule
/// gives it, everyone's, else their own.
fn person_target(project: &ProjectRef, line: &Line, access: &PersonAccess) -> Target {
    let person = &access.person;
    let named = match &line.cell.why {
        Why::Roles(names) => names
            .first()
            .and_then(|name| access.roles.iter().find(|role| &role.name == name))
            .map(|role| (Subject::Role(role.id.clone()), role.name.clone())),
        Why::Everyone => Some((Subject::Everyone, "everyone".to_string())),
        _ => None,
    };
    let (subject, whom) =
        named.unwrap_or_else(|| (Subject::Member(person.membership_id.clone()), person.label()));
    Target {
        project: project.clone(),
        resource: line.resource.clone(),
        subject,
        whom,
        preselect: None,
    }
}

/// Rows under their columns, each column as wide as its widest cell
/// (what the CLI's tables do, without cutting: a page wraps its lines).
pub fn table(columns: &[&str], rows: &[Vec<String>]) -> Vec<Said> {
    let mut widths: Vec<usize> = columns.iter().map(|column| column.width()).collect();
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(crate::text::printable(cell).width());
        }
    }
    let line = |cells: &mut dyn Iterator<Item = &str>| -> String {
        let padded: Vec<String> = cells
            .zip(&widths)
            .map(|(cell, width)| {
                let shown = crate::text::printable(cell);
                format!("{shown}{}", " ".repeat(width.saturating_sub(shown.width())))
            })
            .collect();
        padded.join("  ").trim_end().to_string()
    };
    let mut said = vec![Said::new(Kind::Columns, line(&mut columns.iter().copied()))];
    said.extend(
        rows.iter()
            .map(|row| Said::new(Kind::Row, line(&mut row.iter().map(String::as_str)))),
    );
    said
}

/// A line of an access section, as spans: a project's line in the
/// accent, the columns and notes dim, what could not be read a warning.
pub fn spans(said: &Said, view: &ViewCx) -> Vec<Span<'static>> {
    let theme = view.theme;
    match said.kind {
        Kind::Project => vec![text("  "), styled(said.text.clone(), theme.accent)],
        Kind::Columns => vec![text("    "), styled(said.text.clone(), theme.dim)],
        Kind::Row => vec![text("    "), text(said.text.clone())],
        Kind::Note => vec![text("    "), styled(said.text.clone(), theme.dim)],
        Kind::Warning => vec![text("  "), styled(said.text.clone(), theme.warning)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_aligns_its_columns_by_their_widest_cell() {
        let said = table(
            &["WHAT", "LEVEL"],
            &[
                vec!["project".into(), "member".into()],
                vec!["feature flags".into(), "none".into()],
            ],
        );
        let texts: Vec<&str> = said.iter().map(|said| said.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "WHAT           LEVEL",
                "project        member",
                "feature flags  none"
            ]
        );
        assert_eq!(said[0].kind, Kind::Columns);
        assert_eq!(said[1].kind, Kind::Row);
    }

    #[test]
    fn a_read_under_way_says_how_far_it_came() {
        let mut section = Section {
            reading: Some(None),
            ..Section::default()
        };
        assert_eq!(heading(&section), "Access · reading…");
        section.reading = Some(Some((7, 20)));
        assert_eq!(heading(&section), "Access · reading: 7 of 20 projects");
        assert_eq!(lines(&section)[0].text, "access: 7 of 20 projects · Esc leaves");
        section.reading = None;
        section.error = Some("403".into());
        assert_eq!(
            lines(&section)[0].text,
            "their access could not be read: 403 · r tries again"
        );
    }
}
