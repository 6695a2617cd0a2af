//! A list as the screens see it: [`Resource`], what a list says besides
//! its rows and its table's hooks (its request for a page, its heading and
//! words), and [`List`], what the shell asks of the list on show, its rows'
//! type erased. The table itself ([`Table`]: rows, marks, filter, sort,
//! the pages it takes) is the table floor's.
//!
//! Why a type-erased view of a list is kept: the shell does the same few
//! things to whatever list is shown (moves its cursor, filters and sorts
//! it, marks its rows, asks for the pages its window needs and lands their
//! answers, draws its rows in columns), and six lists answer them alike
//! through their [`Table`]; one trait object the holder hands out by
//! [`super::ScreenId`] (`Screens::list`) keeps a match of six arms out of
//! each of those places. What it no longer carries: the pages that are not
//! tables (a person's, an offboarding: [`super::shown::Page`]), each
//! screen's place among the screens as five questions (one [`Place`]),
//! and whatever a single screen asks of its own table, which its folder
//! calls on the table itself (`Table::apply_view`, a role's members
//! closed on news). Issue 30 cut it from 54 methods to 50.

use ratatui::text::{Line, Span};

use super::shown::Place;
use super::{PageRequest, Screen, ScreenRequest};
use crate::console::kit::cell::pretty;
use crate::console::kit::column::{Column, Sort};
use crate::console::kit::latest::Ticket;
use crate::console::kit::scope::Scope;
use crate::console::kit::view::ViewCx;
use crate::console::table::Table;
use crate::console::table::hooks::Hooks;
use crate::console::table::marking::MarkAll;
use crate::console::table::pager::{Asks, Pager};

/// What a list must say about itself besides its rows ([`Listing`]), how
/// they arrive and are narrowed ([`Hooks`], the table floor's) and its
/// place among the screens ([`Screen`]): what it asks the server, and its
/// words and hooks on screen.
pub trait Resource: Hooks + Screen {
    /// What it asks the server for a page of its rows: its own request
    /// type, whose answer the compiler knows holds these rows ([`Held`](super::Held) for
    /// a list held whole). Its [`Hooks::Pager`] says where a later page
    /// starts ([`Asks`]).
    type Request: PageRequest<Row = Self::Row>;

    /// The heading of its table.
    fn heading(&self) -> String {
        Self::TITLE.to_string()
    }

    /// Whether it has what it shows: a list opened from another has its
    /// parent's row.
    fn is_open(&self) -> bool {
        true
    }

    /// Forgets the parent's row: back leaves the list.
    fn close(&mut self) {}

    /// What to ask the server for its first page (its pager says where a
    /// later one starts); `None` when there is nothing to list yet (the
    /// members of no role).
    fn query(&self, scope: Scope) -> Option<Self::Request>;

    /// Said when the list is empty.
    fn empty(&self) -> &'static str;

    /// What the footer says is in force besides filter and sort.
    fn state(&self) -> Option<&'static str> {
        None
    }

    /// Whether rows show times relative to now ("in 3h", overdue), which
    /// must be redrawn as the minutes pass.
    fn shows_relative_times(&self) -> bool {
        false
    }

    /// A line under the table (a look's progress), if the list has one.
    fn status(&self, _view: &ViewCx) -> Option<Line<'static>> {
        None
    }
}

/// What the shell asks of the list on show, whatever its rows.
pub trait List {
    /// Its place among the screens: title, tab, parent, write scope, and
    /// what a row is called.
    fn place(&self) -> Place;
    fn is_open(&self) -> bool;
    /// Leaves the list: its parent's row forgotten, its filter cleared.
    fn close(&mut self);
    fn heading(&self) -> String;
    /// The server's count, once known.
    fn count(&self) -> Option<u64>;
    /// Rows shown (after a local filter).
    fn len(&self) -> u64;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    fn cursor(&self) -> u64;
    fn top(&self) -> u64;
    fn generation(&self) -> Ticket;
    fn is_loading(&self) -> bool;
    fn has_failed(&self) -> bool;
    /// Whether rows are loaded that the filter hides.
    fn has_loaded_rows(&self) -> bool;
    /// Its request for a page, as the effects carry it; `None` when there
    /// is nothing to ask (the members of no role, a list held whole).
    fn query(&self, scope: Scope) -> Option<ScreenRequest>;
    /// The request of the page at `offset` (a cursor, for lists paged by one).
    fn query_at(&self, scope: Scope, offset: u64) -> Option<ScreenRequest>;
    /// The offsets to fetch for a window of `height` rows (all of a small
    /// list filtered or sorted locally); they are marked in flight.
    fn wanted(&mut self, height: u64) -> Vec<u64>;
    fn move_to(&mut self, position: i64, height: u64);
    fn scroll(&mut self, height: u64);
    /// Starts over: a new generation, from the top or where the cursor is.
    fn restart(&mut self, from_start: bool);
    /// Another list in this one's place: nothing loaded, no filter.
    fn clear(&mut self);
    fn failed(&mut self, generation: Ticket, offset: u64) -> bool;
    /// A failed request that means an empty list (a 404 where the server
    /// has no such list): taken as an empty answer, `true`.
    fn answered_with(&mut self, generation: Ticket, offset: u64, error: &crate::api::Error) -> bool;
    fn selected_id(&self) -> Option<String>;
    fn selected_json(&self) -> Option<String>;
    /// Remembers the selected row, to find it again once a refresh answers.
    fn remember_selected(&mut self);
    fn filter(&self) -> &str;
    fn set_filter(&mut self, text: String);
    /// Recomputes the local view from the filter and sort.
    fn apply_view(&mut self, height: u64);
    /// The next sort; `true` when the server must fetch in that order.
    fn cycle_sort(&mut self) -> bool;
    fn sort(&self) -> Option<&'static Sort>;
    /// Whether the filter typed differs from what the server searched, for
    /// lists the server searches.
    fn search_pending(&self) -> bool;
    /// Hands the filter to the server; `true` when the list must start over.
    fn search(&mut self) -> bool;
    fn columns(&self) -> &'static [Column];
    /// The cells of the row shown at a position, when loaded.
    fn cells(&self, shown: u64, view: &ViewCx) -> Option<Vec<Span<'static>>>;
    fn empty(&self) -> &'static str;
    /// The selected row's detail, or its JSON.
    fn detail(&self, json: bool, view: &ViewCx) -> Option<(String, Vec<Line<'static>>)>;
    fn shows_relative_times(&self) -> bool;
    fn state(&self) -> Option<&'static str>;
    /// For a narrowed list whose look stopped short of the end: how many
    /// rows it looked through.
    fn scanned(&self) -> Option<u64>;
    /// Whether that look stopped at its limit (and may be asked to go on).
    fn scan_stopped(&self) -> bool;
    /// Whether [`List::count`] is the length (not one row more while a
    /// cursor-paged list has more).
    fn count_is_exact(&self) -> bool;
    /// A line under the table, if the list has one.
    fn status(&self, view: &ViewCx) -> Option<Line<'static>>;
    /// Whether rows can be marked for bulk actions.
    fn takes_marks(&self) -> bool;
    /// How many rows are marked.
    fn marked(&self) -> usize;
    /// Whether the row shown at a position is marked.
    fn is_marked(&self, shown: u64) -> bool;
    /// Space: marks or unmarks the row under the cursor; `Ok(true)` when
    /// it is marked now.
    fn toggle_mark(&mut self) -> Result<bool, String>;
    /// `*`: every row the filter shows.
    fn mark_all(&mut self) -> MarkAll;
    /// What a `*` that waited for pages says once it is done (`Ok`), or
    /// stopped short (`Err`).
    fn mark_news(&mut self) -> Option<Result<String, String>>;
    /// Unmarks every row; says how many were marked.
    fn clear_marks(&mut self) -> usize;
    /// Unmarks these rows (done by a bulk action).
    fn unmark(&mut self, ids: &[String]);
}

impl<R: Resource> List for Table<R>
where
    R::Pager: Asks<R::Request>,
{
    fn place(&self) -> Place {
        Place::of::<R>(R::NOUN)
    }

    fn is_open(&self) -> bool {
        self.resource.is_open()
    }

    fn close(&mut self) {
        self.resource.close();
        self.pager.restart();
        self.filter.clear();
        // The marks were of the parent's row left (a role's members).
        if R::PARENT.is_some() {
            self.marks.clear();
        }
    }

    fn heading(&self) -> String {
        self.resource.heading()
    }

    fn count(&self) -> Option<u64> {
        self.rows.list.count()
    }

    fn len(&self) -> u64 {
        self.rows.len()
    }

    fn cursor(&self) -> u64 {
        self.rows.cursor
    }

    fn top(&self) -> u64 {
        self.rows.top
    }

    fn generation(&self) -> Ticket {
        self.rows.list.generation()
    }

    fn is_loading(&self) -> bool {
        self.rows.list.is_loading()
    }

    fn has_failed(&self) -> bool {
        self.rows.list.has_failed()
    }

    fn has_loaded_rows(&self) -> bool {
        self.rows.list.loaded().next().is_some()
    }

    fn query(&self, scope: Scope) -> Option<ScreenRequest> {
        self.resource.query(scope).map(PageRequest::into_screen)
    }

    fn query_at(&self, scope: Scope, offset: u64) -> Option<ScreenRequest> {
        self.pager
            .request_at(self.resource.query(scope)?, offset)
            .map(PageRequest::into_screen)
    }

    fn wanted(&mut self, height: u64) -> Vec<u64> {
        Table::wanted(self, height)
    }

    fn move_to(&mut self, position: i64, height: u64) {
        Table::move_to(self, position, height)
    }

    fn scroll(&mut self, height: u64) {
        self.rows.scroll(height)
    }

    fn restart(&mut self, from_start: bool) {
        Table::restart(self, from_start)
    }

    fn clear(&mut self) {
        Table::clear(self)
    }

    fn failed(&mut self, generation: Ticket, offset: u64) -> bool {
        Table::failed(self, generation, offset)
    }

    fn answered_with(&mut self, generation: Ticket, offset: u64, error: &crate::api::Error) -> bool {
        Table::answered_with(self, generation, offset, error)
    }

    fn selected_id(&self) -> Option<String> {
        Table::selected_id(self)
    }

    fn selected_json(&self) -> Option<String> {
        self.rows.selected().map(pretty)
    }

    fn remember_selected(&mut self) {
        Table::remember_selected(self)
    }

    fn filter(&self) -> &str {
        &self.filter
    }

    fn set_filter(&mut self, text: String) {
        Table::set_filter(self, text)
    }

    fn apply_view(&mut self, height: u64) {
        Table::apply_view(self, height)
    }

    fn cycle_sort(&mut self) -> bool {
        Table::cycle_sort(self)
    }

    fn sort(&self) -> Option<&'static Sort> {
        self.sort_in_force()
    }

    fn search_pending(&self) -> bool {
        Table::search_pending(self)
    }

    fn search(&mut self) -> bool {
        Table::search(self)
    }

    fn columns(&self) -> &'static [Column] {
        self.resource.columns()
    }

    fn cells(&self, shown: u64, view: &ViewCx) -> Option<Vec<Span<'static>>> {
        self.rows.row(shown).map(|row| self.resource.cells(row, view))
    }

    fn empty(&self) -> &'static str {
        self.resource.empty()
    }

    fn detail(&self, json: bool, view: &ViewCx) -> Option<(String, Vec<Line<'static>>)> {
        let row = self.rows.selected()?;
        if json {
            let lines = pretty(row)
                .lines()
                .map(|line| Line::raw(crate::text::printable(line).into_owned()))
                .collect();
            return Some((format!("#{}", R::id(row)), lines));
        }
        Some(self.resource.detail(row, view))
    }

    fn shows_relative_times(&self) -> bool {
        self.resource.shows_relative_times()
    }

    fn state(&self) -> Option<&'static str> {
        self.resource.state()
    }

    fn scanned(&self) -> Option<u64> {
        Table::scanned(self)
    }

    fn scan_stopped(&self) -> bool {
        Table::scan_stopped(self)
    }

    fn count_is_exact(&self) -> bool {
        self.pager.count_is_exact()
    }

    fn status(&self, view: &ViewCx) -> Option<Line<'static>> {
        self.resource.status(view)
    }

    fn takes_marks(&self) -> bool {
        R::MARKS
    }

    fn marked(&self) -> usize {
        self.marks.len()
    }

    fn is_marked(&self, shown: u64) -> bool {
        Table::is_marked(self, shown)
    }

    fn toggle_mark(&mut self) -> Result<bool, String> {
        if !R::MARKS {
            return Err(no_marks::<R>());
        }
        Table::toggle_mark(self)
    }

    fn mark_all(&mut self) -> MarkAll {
        if !R::MARKS {
            return MarkAll::Refused(no_marks::<R>());
        }
        Table::mark_all(self)
    }

    fn mark_news(&mut self) -> Option<Result<String, String>> {
        self.mark_news.take()
    }

    fn clear_marks(&mut self) -> usize {
        Table::clear_marks(self)
    }

    fn unmark(&mut self, ids: &[String]) {
        Table::unmark(self, ids)
    }
}

/// Why Space and `*` mark nothing on a list that takes no marks.
fn no_marks<R: Resource>() -> String {
    format!("the {} take no marks", R::TITLE.to_lowercase())
}
