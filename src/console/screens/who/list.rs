//! `:who`'s list: everyone who reaches the thing asked about, highest
//! level first, as `orgdeck access who` lists them (LEVEL, NAME, EMAIL,
//! HOW, ORG LEVEL, in its words). The rows are held whole, one answer
//! (`users_with_access` is not paged); what was asked about, the read
//! under way and why it failed are the screen's state.

use std::cmp::Ordering;

use ratatui::text::{Line, Span};

use crate::access::who::{Thing, WhoAccess, WhoLine};
use crate::access::words;
use crate::console::kit::cell::{contains, styled, text};
use crate::console::kit::column::{Column, Sort};
use crate::console::kit::detail::field;
use crate::console::kit::latest::Latest;
use crate::console::kit::scope::Scope;
use crate::console::kit::view::ViewCx;
use crate::console::screens::list::Resource;
use crate::console::screens::person::ask::Stopper;
use crate::console::screens::{Held, Screen, ScreenId};
use crate::console::table::hooks::Hooks;
use crate::console::table::listing::Listing;

/// What `:who` asked about and what it knows of it.
#[derive(Debug, Default)]
pub struct Who {
    /// The project and the thing asked about, once asked.
    pub asked: Option<(String, Thing)>,
    /// Only the latest read's answer is taken.
    pub(super) reads: Latest,
    /// What stops the read under way, while one is.
    pub(super) stop: Option<Stopper>,
    /// Whom the answer is about: "8 people reach dashboard …".
    pub heading: Option<String>,
    /// When the server counts more than it listed.
    pub note: Option<String>,
    pub error: Option<String>,
}

impl Who {
    /// A read under way.
    pub fn is_reading(&self) -> bool {
        self.stop.is_some()
    }

    /// A read starts: its ticket (an earlier one's answer is dropped) and
    /// what stops it (an earlier one is stopped).
    pub fn start(&mut self, project: String, thing: Thing) -> (crate::console::kit::latest::Ticket, Stopper) {
        self.stop_reading();
        let stop = Stopper::default();
        self.stop = Some(stop.clone());
        self.asked = Some((project, thing));
        self.heading = None;
        self.note = None;
        self.error = None;
        (self.reads.issue(), stop)
    }

    /// The read under way stops, and its answer, late, is dropped.
    pub fn stop_reading(&mut self) {
        if let Some(stop) = self.stop.take() {
            stop.0.stop();
        }
        self.reads.issue();
    }

    /// Another organization or connection: nothing asked of the old one
    /// stays, and an answer from it still on its way is dropped.
    pub fn forget(&mut self) {
        self.stop_reading();
        let reads = std::mem::take(&mut self.reads);
        *self = Who {
            reads,
            ..Who::default()
        };
    }

    /// Whether this answer is the latest read's.
    pub fn wants(&self, msg: &super::Msg) -> bool {
        match msg {
            super::Msg::Read { ticket, .. } => self.reads.is_current(*ticket),
        }
    }

    /// What was asked about, in words: `dashboard "Board pack"`.
    pub fn asked_words(&self) -> String {
        match &self.asked {
            None => "nothing yet".into(),
            Some((project, Thing::Project)) => format!("project {project}"),
            Some((_, Thing::Dashboard(wanted))) => format!("dashboard \"{wanted}\""),
            Some((_, Thing::Insight(wanted))) => format!("insight \"{wanted}\""),
            Some((_, Thing::FeatureFlag(wanted))) => format!("feature flag \"{wanted}\""),
        }
    }

    /// The answer arrived: what the heading and the note say.
    pub fn answered(&mut self, who: &WhoAccess) {
        self.heading = Some(words::who_heading(who));
        self.note = words::who_count_note(who);
        self.error = None;
    }
}

const COLUMNS: [Column; 5] = [
    Column::content("LEVEL"),
    Column::fill("NAME", 2, 12),
    Column::fill("EMAIL", 2, 16).drops(2),
    Column::fill("HOW", 3, 16),
    Column::content("ORG LEVEL").drops(1),
];

/// As read: highest level first, then by name (the server's levels).
const AS_READ: Sort = Sort {
    label: "level",
    column: None,
    descending: false,
    ordering: None,
};

const SORTS: [Sort; 2] = [AS_READ, Sort::local("name", "NAME", false)];

impl Listing for Who {
    type Row = WhoLine;
    const NOUN: &'static str = "person";

    fn columns(&self) -> &'static [Column] {
        &COLUMNS
    }

    fn cells(&self, row: &WhoLine, view: &ViewCx) -> Vec<Span<'static>> {
        let mut cells: Vec<Span<'static>> = words::who_row(row).into_iter().map(text).collect();
        if let Some(level) = cells.first_mut()
            && row.level == crate::api::access::levels::AccessLevel::None
        {
            *level = styled(row.level.to_string(), view.theme.dim);
        }
        cells
    }

    fn detail(&self, row: &WhoLine, view: &ViewCx) -> (String, Vec<Line<'static>>) {
        let theme = view.theme;
        let mut lines = vec![
            field("level", row.level.to_string(), theme),
            field("how", row.how.clone(), theme),
            field("server says", row.source.as_str().replace('_', " "), theme),
            field("name", words::who_name(row), theme),
            field("email", row.email.clone(), theme),
            field(
                "org level",
                row.organization_level.clone().unwrap_or_else(|| "-".into()),
                theme,
            ),
            field("user", row.user_uuid.clone(), theme),
            field(
                "membership",
                row.membership_id.clone().unwrap_or_else(|| "-".into()),
                theme,
            ),
        ];
        if let Some(manager) = &row.managed_by {
            lines.push(field("managed by", manager.clone(), theme));
        }
        lines.push(Line::raw(""));
        lines.push(Line::styled(" Enter opens their page", theme.dim));
        (words::who_name(row), lines)
    }

    fn id(row: &WhoLine) -> String {
        row.user_uuid.clone()
    }

    fn matches(row: &WhoLine, needle: &str) -> bool {
        contains(&row.name, needle)
            || contains(&row.email, needle)
            || contains(&row.how, needle)
            || contains(&row.level.to_string(), needle)
    }

    fn sorts(&self) -> &'static [Sort] {
        &SORTS
    }

    fn compare(a: &WhoLine, b: &WhoLine, sort: &Sort) -> Ordering {
        match sort.label {
            "name" => a.name.to_lowercase().cmp(&b.name.to_lowercase()),
            // As read (a stable sort keeps the server's order).
            _ => Ordering::Equal,
        }
    }
}

impl Screen for Who {
    const ID: ScreenId = ScreenId::Who;
    const TITLE: &'static str = "Who";
    const TAB: ScreenId = ScreenId::People;
    const PARENT: Option<ScreenId> = Some(ScreenId::People);
    const WRITE_SCOPE: &'static str = "access_control:write";
    // Shown by `:who`, a command of the command line's own (it takes words).
    const COMMANDS: &'static [(&'static str, &'static str)] = &[];
}

impl Hooks for Who {
    type Pager = crate::console::table::pager::Whole;
}

impl Resource for Who {
    type Request = Held<WhoLine>;

    fn heading(&self) -> String {
        match (&self.heading, self.is_reading()) {
            (_, true) => format!("Who · reading who reaches {}…", self.asked_words()),
            (Some(heading), false) => format!("Who · {heading}"),
            (None, false) => format!("Who · {}", self.asked_words()),
        }
    }

    fn is_open(&self) -> bool {
        self.asked.is_some()
    }

    /// Back leaves it: the read under way stops, its answer is dropped.
    fn close(&mut self) {
        self.stop_reading();
    }

    /// Nothing to fetch by page: a read sends the rows.
    fn query(&self, _scope: Scope) -> Option<Held<WhoLine>> {
        None
    }

    fn empty(&self) -> &'static str {
        match (self.is_reading(), &self.error) {
            (true, _) => "reading who reaches it…",
            (false, Some(_)) => "who reaches it could not be read: r tries again",
            (false, None) if self.asked.is_none() => {
                ":who, :who dashboard NAME, :who insight NAME, :who flag KEY"
            }
            (false, None) => "nobody reaches it",
        }
    }

    fn status(&self, view: &ViewCx) -> Option<Line<'static>> {
        let theme = view.theme;
        if let Some(error) = &self.error {
            return Some(Line::from(styled(format!(" {error} "), theme.error)));
        }
        self.note
            .as_ref()
            .map(|note| Line::styled(format!(" {note} "), theme.dim))
            .or_else(|| {
                (!self.is_reading() && self.asked.is_some())
                    .then(|| Line::styled(" Enter opens their page · r reads again ", theme.dim))
            })
    }
}
