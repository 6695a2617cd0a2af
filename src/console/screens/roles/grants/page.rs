//! A role's page: whom it shows, the read of what the role grants (its
//! ticket, what stops it, how far it came) and its lines, the same as
//! `orgdeck access role NAME` prints, laid out with the words of a
//! person's Access section ([`Said`]).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Block;

use crate::access::directory::ProjectRef;
use crate::access::role::{RoleGrants, RoleKnown, RoleOutcome};
use crate::access::words;
use crate::api::access::Subject;
use crate::console::kit::cell::styled;
use crate::console::kit::latest::{Latest, Ticket};
use crate::console::kit::page::{Lines, PageLines};
use crate::console::kit::view::ViewCx;
use crate::console::screens::access::edit::Target;
use crate::console::screens::members::list::ChosenRole;
use crate::console::screens::person::access::{Kind, Said, spans, table};
use crate::console::screens::person::ask::Stopper;
use crate::console::screens::shown::{Page, Place};
use crate::console::screens::{Screen, ScreenId};

/// What a role grants, as read.
#[derive(Debug, Default)]
pub struct Grants {
    pub role: Option<ChosenRole>,
    /// Under way: (projects read, in all), once the projects are known.
    pub reading: Option<Option<(usize, usize)>>,
    pub grants: Option<Box<RoleGrants>>,
    pub error: Option<String>,
    pub lines: Lines<Said>,
    reads: Latest,
    stop: Option<Stopper>,
}

impl Screen for Grants {
    const ID: ScreenId = ScreenId::Grants;
    const TITLE: &'static str = "Grants";
    const TAB: ScreenId = ScreenId::Roles;
    const PARENT: Option<ScreenId> = Some(ScreenId::Roles);
    const WRITE_SCOPE: &'static str = "access_control:write";
    // Opened from Roles or a role's members (`w`).
    const COMMANDS: &'static [(&'static str, &'static str)] = &[];
}

impl Grants {
    /// A read of what `role` grants starts (any earlier one stopped, its
    /// answer dropped): its ticket and what stops it.
    pub fn start(&mut self, role: ChosenRole, height: u64) -> (Ticket, Stopper) {
        self.stop_reading();
        if self.role.as_ref() != Some(&role) {
            self.grants = None;
            self.lines.open();
        }
        self.role = Some(role);
        self.reading = Some(None);
        self.error = None;
        let stop = Stopper::default();
        self.stop = Some(stop.clone());
        self.relayout(height);
        (self.reads.issue(), stop)
    }

    /// The read under way stops; its answer, late, is dropped.
    pub fn stop_reading(&mut self) {
        if let Some(stop) = self.stop.take() {
            stop.0.stop();
        }
        self.reads.issue();
        self.reading = None;
    }

    /// Whether this message is the latest read's.
    pub fn wants(&self, msg: &super::Msg) -> bool {
        match msg {
            super::Msg::Progress { ticket, .. } | super::Msg::Read { ticket, .. } => {
                self.reads.is_current(*ticket)
            }
        }
    }

    /// The read came further.
    pub fn progress(&mut self, done: usize, total: usize, height: u64) {
        self.reading = Some(Some((done, total)));
        self.relayout(height);
    }

    /// The read ended.
    pub fn read(&mut self, result: Result<Box<RoleGrants>, String>, height: u64) {
        self.stop = None;
        self.reading = None;
        match result {
            Ok(grants) => {
                self.grants = Some(grants);
                self.error = None;
            }
            Err(error) => self.error = Some(error),
        }
        self.relayout(height);
    }

    fn relayout(&mut self, height: u64) {
        self.lines.hold(said(self), height);
    }

    /// "access: 3 of 20 projects · Esc leaves".
    fn progress_words(&self) -> Option<String> {
        match self.reading? {
            Some((done, total)) => Some(format!("access: {done} of {total} projects · Esc leaves")),
            None => Some("access: reading the organization's projects and roles…".into()),
        }
    }
}

/// The page's lines: the role and its members, then each project.
fn said(page: &Grants) -> Vec<Said> {
    let mut said = Vec::new();
    if let Some(error) = &page.error {
        said.push(Said::new(
            Kind::Warning,
            format!("what it grants could not be read: {error} · r tries again"),
        ));
    }
    let Some(grants) = &page.grants else {
        said.extend(page.progress_words().map(|words| Said::new(Kind::Note, words)));
        return said;
    };
    said.push(Said::new(Kind::Project, words::role_heading(grants)));
    said.push(Said::new(
        Kind::Note,
        words::organization_line(&grants.organization),
    ));
    said.push(Said::new(Kind::Note, words::ROLE_GRANTS_MEAN));
    if grants.projects.is_empty() {
        said.push(Said::new(
            Kind::Warning,
            "The key lists no project of the organization.",
        ));
    }
    for project in &grants.projects {
        let label = project.project.label();
        match &project.outcome {
            RoleOutcome::Unknown(unknown) => said.push(Said::new(
                Kind::Warning,
                words::unknown_line(&label, &unknown.unknown),
            )),
            RoleOutcome::Known(known) => said.extend(known_project(&project.project, known, grants)),
        }
    }
    said
}

fn known_project(project: &ProjectRef, known: &RoleKnown, grants: &RoleGrants) -> Vec<Said> {
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
    let mut rows = table(&words::ROLE_COLUMNS, &words::role_rows(known));
    let lines = std::iter::once(&known.project).chain(known.resources.iter());
    for (row, line) in rows.iter_mut().skip(1).zip(lines) {
        row.edit = Some(Box::new(Target {
            project: project.clone(),
            resource: line.resource.clone(),
            subject: Subject::Role(grants.role.id.clone()),
            whom: grants.role.name.clone(),
            preselect: None,
        }));
    }
    said.extend(rows);
    if let Some(rest) = words::others_line(&known.others) {
        said.push(Said::new(Kind::Note, rest));
    }
    if known.object_rules.is_empty() {
        said.push(Said::new(Kind::Note, words::NO_OBJECT_RULES));
    } else {
        let rows: Vec<Vec<String>> = known.object_rules.iter().map(words::role_object_row).collect();
        said.extend(table(&words::ROLE_OBJECT_COLUMNS, &rows));
    }
    said
}

impl Grants {
    /// The rule `e` edits on the line under the cursor: the role's own
    /// on the project or the resource of a row.
    pub fn edit_target(&self) -> Result<Target, String> {
        match self.lines.selected().and_then(|said| said.edit.as_deref()) {
            Some(target) => Ok(target.clone()),
            None => Err("e edits the role's rule on a project's or a resource's row".into()),
        }
    }
}

impl Page for Grants {
    fn place(&self) -> Place {
        Place::of::<Self>("line")
    }

    fn heading(&self) -> String {
        match &self.role {
            Some(role) => format!("What {} grants", role.name),
            None => Self::TITLE.into(),
        }
    }

    fn is_open(&self) -> bool {
        self.role.is_some()
    }

    /// Back leaves it: the read under way stops, its answer is dropped.
    fn close(&mut self) {
        self.stop_reading();
        let reads = std::mem::take(&mut self.reads);
        *self = Grants {
            reads,
            ..Grants::default()
        };
    }

    fn lines(&self) -> &dyn PageLines {
        &self.lines
    }

    fn lines_mut(&mut self) -> &mut dyn PageLines {
        &mut self.lines
    }

    fn empty(&self) -> &'static str {
        "reading what the role grants…"
    }

    fn status(&self, view: &ViewCx) -> Option<Line<'static>> {
        let theme = view.theme;
        if let Some(error) = &self.error {
            return Some(Line::from(styled(format!(" {error} "), theme.error)));
        }
        self.progress_words()
            .map(|words| Line::styled(format!(" {words} "), theme.dim))
            .or_else(|| {
                self.grants
                    .as_ref()
                    .map(|_| Line::styled(" r reads again · Esc back ", theme.dim))
            })
    }

    fn detail(&self, view: &ViewCx) -> Option<(String, Vec<Line<'static>>)> {
        let said = self.lines.selected()?;
        let _ = view;
        Some((
            Page::heading(self),
            vec![Line::raw(format!(" {}", crate::text::printable(&said.text)))],
        ))
    }

    fn draw(&self, frame: &mut Frame, area: Rect, block: Block, view: &ViewCx) {
        let lines = &self.lines;
        let shown = (0..lines.len()).map(|at| lines.row(at).map(|said| Line::from(spans(said, view))));
        crate::console::kit::page::draw(frame, area, block, shown, lines.cursor(), view);
    }
}
