//! The screen on show, as the shell asks of it: a list ([`List`], its
//! rows' type erased) or a page that is not a table (a person's, an
//! offboarding: [`Page`], its lines its own). The holder hands one out by
//! [`super::ScreenId`] (`Screens::shown`, `Screens::shown_mut`), and the
//! shell asks it what any screen answers (its place among the screens,
//! where the cursor is, the filter, the row or line under the cursor); what
//! only a list does (pages of rows, sorts, marks) it asks of the list
//! alone (`Screens::list`). A page answers for itself that it has no sort,
//! no marks and nothing to fetch: here, once, rather than in each page.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Block;

use crate::console::kit::column::Sort;
use crate::console::kit::page::PageLines;
use crate::console::kit::view::ViewCx;
use crate::console::screens::keys::Action;
use crate::console::screens::list::List;
use crate::console::screens::{Ctx, Screen, ScreenId};

/// A screen's place among the screens, as its [`Screen`] constants say
/// it (what a `&dyn` cannot read from its type) and what one of its rows
/// is called: one answer for the tabs, back, the help's title and the
/// scope its writes need.
#[derive(Debug, Clone, Copy)]
pub struct Place {
    pub title: &'static str,
    /// What one row (or line) is called ("Choose a role").
    pub noun: &'static str,
    pub tab: ScreenId,
    pub parent: Option<ScreenId>,
    pub write_scope: &'static str,
    /// Actions whose writes need another scope ([`Screen::ACTION_SCOPES`]).
    pub action_scopes: &'static [(Action, &'static str)],
}

impl Place {
    /// The place of screen `S`, whose rows are `noun`s.
    pub fn of<S: Screen>(noun: &'static str) -> Place {
        Place {
            title: S::TITLE,
            noun,
            tab: S::TAB,
            parent: S::PARENT,
            write_scope: S::WRITE_SCOPE,
            action_scopes: S::ACTION_SCOPES,
        }
    }
}

/// A screen on show that holds and draws its own lines.
pub trait Page {
    /// Its place among the screens ([`Place::of`]).
    fn place(&self) -> Place;
    /// The title of its frame.
    fn heading(&self) -> String;
    /// Whether it has whom it shows.
    fn is_open(&self) -> bool;
    /// Back leaves it: whom it shows forgotten (unless it must be come
    /// back to), its filter cleared.
    fn close(&mut self);
    /// Its lines, where the cursor is, its filter.
    fn lines(&self) -> &dyn PageLines;
    fn lines_mut(&mut self) -> &mut dyn PageLines;
    /// Said when it has no lines.
    fn empty(&self) -> &'static str;
    /// A line under it (gathering again, an error, its run's progress).
    fn status(&self, view: &ViewCx) -> Option<Line<'static>>;
    /// The line under the cursor told in full (`v`), if there is one.
    fn detail(&self, view: &ViewCx) -> Option<(String, Vec<Line<'static>>)>;

    /// Draws itself inside `block` (its border, title and status line are
    /// the shell's, as for a list).
    fn draw(&self, frame: &mut Frame, area: Rect, block: Block, view: &ViewCx);

    /// Whether Space is its own key here (an offboarding's options)
    /// rather than a list's mark, which a page takes none of.
    fn takes_space(&self) -> bool {
        false
    }

    /// Space, where it is the page's own.
    fn space(&mut self, _ctx: &mut Ctx) {}
}

/// The screen on show, to read.
#[derive(Clone, Copy)]
pub enum Shown<'a> {
    List(&'a dyn List),
    Page(&'a dyn Page),
}

/// The screen on show, to move in.
pub enum ShownMut<'a> {
    List(&'a mut dyn List),
    Page(&'a mut dyn Page),
}

impl<'a> Shown<'a> {
    /// The list, if the screen is one.
    pub fn list(self) -> Option<&'a dyn List> {
        match self {
            Shown::List(table) => Some(table),
            Shown::Page(_) => None,
        }
    }

    /// The page, if the screen is one.
    pub fn page(self) -> Option<&'a dyn Page> {
        match self {
            Shown::List(_) => None,
            Shown::Page(page) => Some(page),
        }
    }

    /// Its place among the screens.
    pub fn place(self) -> Place {
        match self {
            Shown::List(table) => table.place(),
            Shown::Page(page) => page.place(),
        }
    }

    pub fn title(self) -> &'static str {
        self.place().title
    }

    /// What one row is called ("Choose a role").
    pub fn noun(self) -> &'static str {
        self.place().noun
    }

    pub fn tab(self) -> ScreenId {
        self.place().tab
    }

    pub fn parent(self) -> Option<ScreenId> {
        self.place().parent
    }

    pub fn is_open(self) -> bool {
        match self {
            Shown::List(table) => table.is_open(),
            Shown::Page(page) => page.is_open(),
        }
    }

    pub fn heading(self) -> String {
        match self {
            Shown::List(table) => table.heading(),
            Shown::Page(page) => page.heading(),
        }
    }

    /// The scope `action`'s write needs here: its own, if the screen
    /// names one for it, else the screen's.
    pub fn write_scope(self, action: Action) -> &'static str {
        let place = self.place();
        place
            .action_scopes
            .iter()
            .find(|(named, _)| *named == action)
            .map_or(place.write_scope, |(_, scope)| scope)
    }

    /// How many rows (or lines) there are, once known.
    pub fn count(self) -> Option<u64> {
        match self {
            Shown::List(table) => table.count(),
            Shown::Page(page) => page.lines().count(),
        }
    }

    /// Rows (or lines) shown, under the filter.
    pub fn len(self) -> u64 {
        match self {
            Shown::List(table) => table.len(),
            Shown::Page(page) => page.lines().len(),
        }
    }

    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    pub fn cursor(self) -> u64 {
        match self {
            Shown::List(table) => table.cursor(),
            Shown::Page(page) => page.lines().cursor(),
        }
    }

    pub fn top(self) -> u64 {
        match self {
            Shown::List(table) => table.top(),
            Shown::Page(page) => page.lines().top(),
        }
    }

    /// Whether rows are on their way (a page is gathered whole, by its own
    /// request, which its status line tells).
    pub fn is_loading(self) -> bool {
        self.list().is_some_and(|table| table.is_loading())
    }

    pub fn has_failed(self) -> bool {
        self.list().is_some_and(|table| table.has_failed())
    }

    /// Whether rows (or lines) are held that the filter hides.
    pub fn has_loaded_rows(self) -> bool {
        match self {
            Shown::List(table) => table.has_loaded_rows(),
            Shown::Page(page) => page.lines().has_loaded_rows(),
        }
    }

    pub fn filter(self) -> &'a str {
        match self {
            Shown::List(table) => table.filter(),
            Shown::Page(page) => page.lines().filter(),
        }
    }

    /// The order in force, for a list sorted by one.
    pub fn sort(self) -> Option<&'static Sort> {
        self.list().and_then(|table| table.sort())
    }

    pub fn state(self) -> Option<&'static str> {
        self.list().and_then(|table| table.state())
    }

    /// See [`List::scanned`].
    pub fn scanned(self) -> Option<u64> {
        self.list().and_then(|table| table.scanned())
    }

    pub fn scan_stopped(self) -> bool {
        self.list().is_some_and(|table| table.scan_stopped())
    }

    /// Whether [`Shown::count`] is the length: a page's always is.
    pub fn count_is_exact(self) -> bool {
        self.list().is_none_or(|table| table.count_is_exact())
    }

    /// A line under the table or page, if it has one.
    pub fn status(self, view: &ViewCx) -> Option<Line<'static>> {
        match self {
            Shown::List(table) => table.status(view),
            Shown::Page(page) => page.status(view),
        }
    }

    /// Said when it is empty.
    pub fn empty(self) -> &'static str {
        match self {
            Shown::List(table) => table.empty(),
            Shown::Page(page) => page.empty(),
        }
    }

    /// The id of the row (or line) under the cursor: what `y` copies.
    pub fn selected_id(self) -> Option<String> {
        match self {
            Shown::List(table) => table.selected_id(),
            Shown::Page(page) => page.lines().selected_id(),
        }
    }

    /// Its JSON: what `Y` copies.
    pub fn selected_json(self) -> Option<String> {
        match self {
            Shown::List(table) => table.selected_json(),
            Shown::Page(page) => page.lines().selected_json(),
        }
    }

    /// The selected row's (or line's) detail, or its JSON.
    pub fn detail(self, json: bool, view: &ViewCx) -> Option<(String, Vec<Line<'static>>)> {
        match self {
            Shown::List(table) => table.detail(json, view),
            Shown::Page(page) if json => {
                let lines = page.lines();
                let (id, json) = (lines.selected_id()?, lines.selected_json()?);
                let lines = json
                    .lines()
                    .map(|line| Line::raw(crate::text::printable(line).into_owned()))
                    .collect();
                Some((format!("#{id}"), lines))
            }
            Shown::Page(page) => page.detail(view),
        }
    }

    /// Whether it shows times relative to now, redrawn as minutes pass.
    pub fn shows_relative_times(self) -> bool {
        self.list().is_some_and(|table| table.shows_relative_times())
    }

    /// How many rows are marked.
    pub fn marked(self) -> usize {
        self.list().map_or(0, |table| table.marked())
    }

    /// Whether rows can be marked for bulk actions: never a page's lines.
    pub fn takes_marks(self) -> bool {
        self.list().is_some_and(|table| table.takes_marks())
    }
}

impl ShownMut<'_> {
    /// The list, if the screen is one.
    pub fn list(&mut self) -> Option<&mut dyn List> {
        match self {
            ShownMut::List(table) => Some(&mut **table),
            ShownMut::Page(_) => None,
        }
    }

    /// Leaves it: its parent's row (or whom the page shows) forgotten, its
    /// filter cleared.
    pub fn close(&mut self) {
        match self {
            ShownMut::List(table) => table.close(),
            ShownMut::Page(page) => page.close(),
        }
    }

    pub fn move_to(&mut self, position: i64, height: u64) {
        match self {
            ShownMut::List(table) => table.move_to(position, height),
            ShownMut::Page(page) => page.lines_mut().move_to(position, height),
        }
    }

    pub fn scroll(&mut self, height: u64) {
        match self {
            ShownMut::List(table) => table.scroll(height),
            ShownMut::Page(page) => page.lines_mut().scroll(height),
        }
    }

    pub fn set_filter(&mut self, text: String) {
        match self {
            ShownMut::List(table) => table.set_filter(text),
            ShownMut::Page(page) => page.lines_mut().set_filter(text),
        }
    }

    /// Recomputes what the filter (and a list's sort) shows.
    pub fn apply_view(&mut self, height: u64) {
        match self {
            ShownMut::List(table) => table.apply_view(height),
            ShownMut::Page(page) => page.lines_mut().apply_view(height),
        }
    }

    /// Unmarks every row; how many were marked (a page marks none).
    pub fn clear_marks(&mut self) -> usize {
        self.list().map_or(0, |table| table.clear_marks())
    }
}
