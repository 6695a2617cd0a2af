//! `:switch-preview` as a page: its read (its ticket, what stops it),
//! what it found, and one line a member, project and resource whose
//! level the switch moves, in the CLI's words
//! (`crate::access::preview::switch_told`). Only the lines on screen are
//! drawn, one row each (a switch in a large organization is thousands of
//! lines); `/` keeps the lines whose words hold what is typed.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph};
use serde::Serialize;

use super::msg::Found;
use crate::access::preview::{Switched, switch_told};
use crate::api::access::Subject;
use crate::console::kit::cell::styled;
use crate::console::kit::fit::fit;
use crate::console::kit::latest::{Latest, Stopper, Ticket};
use crate::console::kit::page::{Lines, PageItem, PageLines};
use crate::console::kit::view::ViewCx;
use crate::console::screens::access::edit::Target;
use crate::console::screens::shown::{Page, Place};
use crate::console::screens::{Screen, ScreenId};

/// One line: a person's level that moves on one thing, and its fix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Item {
    pub who: String,
    /// "dashboards editor → viewer in Hedgebox Web (1), because …".
    pub what: String,
    /// "fix: give … their own rule: dashboards editor".
    pub fix: String,
    /// The fix as an edit: their own rule at today's level.
    #[serde(skip)]
    pub edit: Box<Target>,
}

impl PageItem for Item {
    fn id(&self) -> String {
        format!("{}: {}", self.who, self.what)
    }
}

impl Item {
    fn of(line: &Switched) -> Item {
        let who = crate::access::preview::told::who(&line.name, &line.email);
        Item {
            what: switch_told::what(line),
            fix: switch_told::fix(line),
            edit: Box::new(Target {
                project: line.project.clone(),
                resource: line.resource.clone(),
                subject: Subject::Member(line.membership_id.clone()),
                whom: if line.name.is_empty() {
                    line.email.clone()
                } else {
                    line.name.clone()
                },
                preselect: Some(line.today.clone()),
            }),
            who,
        }
    }

    /// The line as drawn.
    pub fn text(&self) -> String {
        format!("{}: {} · {}", self.who, self.what, self.fix)
    }
}

/// The switch preview.
#[derive(Debug, Default)]
pub struct SwitchPreview {
    /// What was found, once read.
    pub found: Option<Box<Found>>,
    /// A read is under way.
    pub reading: bool,
    /// How far it came: (projects read, in all), once known.
    pub progress: Option<(usize, usize)>,
    /// Esc stopped the read.
    pub stopped: bool,
    pub error: Option<String>,
    pub lines: Lines<Item>,
    reads: Latest,
    stop: Option<Stopper>,
}

impl Screen for SwitchPreview {
    const ID: ScreenId = ScreenId::Switch;
    const TITLE: &'static str = "Switch preview";
    const TAB: ScreenId = ScreenId::Access;
    const WRITE_SCOPE: &'static str = "access_control:write";
    const COMMANDS: &'static [(&'static str, &'static str)] = &[(
        "switch-preview",
        "what switching to the other resolution mode changes, and the fixes (Enter edits one)",
    )];
}

impl SwitchPreview {
    /// A read starts (any earlier one stopped, its answer dropped): its
    /// ticket and what stops it.
    pub fn start(&mut self, height: u64) -> (Ticket, Stopper) {
        self.stop_reading();
        self.found = None;
        self.error = None;
        self.stopped = false;
        self.reading = true;
        self.progress = None;
        self.lines.open();
        self.lines.hold(Vec::new(), height);
        let stop = Stopper::default();
        self.stop = Some(stop.clone());
        (self.reads.issue(), stop)
    }

    /// The read under way stops, its answer dropped.
    fn stop_reading(&mut self) {
        if let Some(stop) = self.stop.take() {
            stop.stop();
        }
        self.reads.issue();
        self.reading = false;
    }

    /// Esc: the read under way stops. Whether there was one.
    pub fn stop(&mut self) -> bool {
        if !self.reading {
            return false;
        }
        self.stop_reading();
        self.stopped = true;
        true
    }

    /// Whether this message is the latest read's.
    pub fn wants(&self, msg: &super::Msg) -> bool {
        self.reads.is_current(msg.ticket())
    }

    /// The read ended.
    pub fn read(&mut self, result: Result<Box<Found>, String>, stopped: bool, height: u64) {
        self.stop = None;
        self.reading = false;
        self.stopped = stopped;
        match result {
            Ok(found) => {
                let items = found.switch.lines.iter().map(Item::of).collect();
                self.found = Some(found);
                self.error = None;
                self.lines.hold(items, height);
            }
            Err(_) if stopped => {}
            Err(error) => self.error = Some(error),
        }
    }

    /// "rules: 7 of 20 projects · Esc stops", while the read is under way.
    pub fn progress_words(&self) -> String {
        match self.progress {
            Some((done, total)) => format!("rules: {done} of {total} projects · Esc stops"),
            None => "rules: reading the organization's people and roles… · Esc stops".into(),
        }
    }

    /// Another organization or connection: nothing kept, a read under
    /// way stopped and its answer dropped.
    pub fn forget(&mut self) {
        self.stop_reading();
        let reads = std::mem::take(&mut self.reads);
        *self = SwitchPreview {
            reads,
            ..SwitchPreview::default()
        };
    }

    /// The fix of the line under the cursor, as an edit.
    pub fn edit_target(&self) -> Result<Target, String> {
        match self.lines.selected() {
            Some(item) => Ok((*item.edit).clone()),
            None => Err(String::new()),
        }
    }
}

impl Page for SwitchPreview {
    fn place(&self) -> Place {
        Place::of::<Self>("line")
    }

    fn heading(&self) -> String {
        match (&self.found, self.reading) {
            (_, true) => format!("Switch preview · {}", self.progress_words()),
            // The CLI's heading: the mode, assumed or not, and the count.
            (Some(found), false) => format!(
                "{} {}",
                switch_told::heading(&found.organization, &found.switch),
                switch_told::count(&found.switch)
            ),
            (None, false) if self.stopped => "Switch preview · stopped: r reads again".into(),
            (None, false) => Self::TITLE.into(),
        }
    }

    fn is_open(&self) -> bool {
        true
    }

    /// Back leaves it: the read under way stops, its answer dropped.
    fn close(&mut self) {
        self.forget();
    }

    fn lines(&self) -> &dyn PageLines {
        &self.lines
    }

    fn lines_mut(&mut self) -> &mut dyn PageLines {
        &mut self.lines
    }

    fn empty(&self) -> &'static str {
        if self.reading {
            "reading every project's rules… · Esc stops"
        } else if self.found.is_some() {
            "Nobody's access changes."
        } else {
            "nothing read: r reads every project's rules"
        }
    }

    fn status(&self, view: &ViewCx) -> Option<Line<'static>> {
        let theme = view.theme;
        if let Some(error) = &self.error {
            return Some(Line::from(styled(
                format!(" the rules could not be read: {error} · r tries again "),
                theme.error,
            )));
        }
        if self.reading {
            return Some(Line::styled(format!(" {} ", self.progress_words()), theme.dim));
        }
        let found = self.found.as_ref()?;
        Some(Line::styled(
            format!(
                " {} projects read in {} requests · Enter: edit the fix · r reads again ",
                found.projects, found.requests
            ),
            theme.dim,
        ))
    }

    fn detail(&self, view: &ViewCx) -> Option<(String, Vec<Line<'static>>)> {
        let item = self.lines.selected()?;
        let theme = view.theme;
        let printable = |text: &str| crate::text::printable(text).into_owned();
        Some((
            Page::heading(self),
            vec![
                Line::from(styled(format!(" {}", printable(&item.who)), theme.accent)),
                Line::raw(format!(" {}", printable(&item.what))),
                Line::raw(format!(" {}", printable(&item.fix))),
            ],
        ))
    }

    fn draw(&self, frame: &mut Frame, area: Rect, block: Block, view: &ViewCx) {
        let theme = view.theme;
        let inner = block.inner(area);
        let width = usize::from(inner.width);
        let mut lines: Vec<Line<'static>> = Vec::new();
        let rows = u64::from(inner.height);
        let top = self.lines.top();
        for shown in top..(top + rows).min(self.lines.len()) {
            let Some(item) = self.lines.row(shown) else {
                break;
            };
            let text = fit(&crate::text::printable(&item.text()), width);
            let style = if shown == self.lines.cursor() {
                theme.selected
            } else {
                ratatui::style::Style::new()
            };
            lines.push(Line::styled(text, style));
        }
        frame.render_widget(Paragraph::new(lines).block(block), area);
    }
}
