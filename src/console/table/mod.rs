//! The console's floor 2: the machinery of a virtual table that knows
//! nothing of what its rows are. [`paging::VirtualList`] holds a list's
//! pages by offset and asks for the ones around the cursor (or holds a
//! list whole); [`rows::Rows`] keeps the cursor, the scroll position and a
//! local filtered or sorted view; [`marks::Marks`] keeps the rows chosen
//! for a bulk action by id; [`listing::Listing`] is what every list says
//! about its rows (columns, cells, detail, identity, filter and sorts),
//! which each screen implements above. Of the console it names the kit
//! alone (the architecture test keeps it so).
//!
//! [`Table`] is a list on screen: its list (a [`listing::Listing`] with the
//! [`Hooks`] that say how its rows arrive and are narrowed), its rows and
//! what the user did to it (filter typed, sort chosen, marks, the row to
//! find again after a refresh), and the pages it takes in
//! ([`Table::receive`]). What a table asks the server and where it stands
//! among the screens are the screens' (`screens::list::Resource`, which
//! each list in its screen's folder fills in), which is why the table is generic over
//! the list alone and not over its request: it takes pages of its rows,
//! whoever asked for them. Marking its rows is `marking.rs`.
//!
//! Drawing a table is here too (`draw.rs`, its columns' widths in
//! `columns.rs`): it draws whatever list it is lent through
//! [`draw::Drawn`], in the area and [`ViewCx`](crate::console::kit::view::ViewCx)
//! it is given.

pub mod columns;
pub mod draw;
pub mod hooks;
pub mod listing;
pub mod marking;
pub mod marks;
pub mod pager;
pub mod paging;
pub mod rows;

use crate::api::Page;
use crate::console::kit::column::Sort;
use crate::console::kit::latest::Ticket;
use hooks::Hooks;
use marking::Marking;
use marks::Marks;
use pager::Pager;
use rows::Rows;

/// The longest list filtered or sorted in the console as a whole.
const LOCAL_VIEW_LIMIT: u64 = 5_000;

pub struct Table<R: Hooks> {
    /// The list: what its rows are ([`listing::Listing`]) and its hooks.
    pub resource: R,
    /// How its rows arrive (by offset, by cursor, held whole), and what
    /// that has taught of the list so far.
    pub pager: R::Pager,
    pub rows: Rows<R::Row>,
    /// The filter as typed with `/`.
    pub filter: String,
    /// Which of the resource's sorts is in force; 0 is the server's order.
    pub sort: usize,
    /// After a refresh: the id of the row the cursor was on.
    pub refocus: Option<String>,
    /// The rows marked for a bulk action, by id.
    pub marks: Marks<R::Row>,
    /// `*` waiting for pages to mark their rows.
    pub(crate) marking: Option<Marking>,
    /// What a `*` that waited for pages has to say, once.
    pub(crate) mark_news: Option<Result<String, String>>,
}

impl<R: Hooks> Default for Table<R> {
    fn default() -> Self {
        Table {
            resource: R::default(),
            pager: R::Pager::default(),
            rows: Rows::default(),
            filter: String::new(),
            sort: 0,
            refocus: None,
            marks: Marks::default(),
            marking: None,
            mark_news: None,
        }
    }
}

impl<R: Hooks> Table<R> {
    /// Whether its pages are asked for by the server's links ([`Pager`]).
    pub const BY_CURSOR: bool = R::Pager::BY_CURSOR;

    pub fn selected(&self) -> Option<&R::Row> {
        self.rows.selected()
    }

    pub fn selected_id(&self) -> Option<String> {
        self.rows.selected().map(R::id)
    }

    /// Recomputes the local view from the filter and sort.
    pub fn apply_view(&mut self, height: u64) {
        // Once the server has searched for the text, its answer is the view.
        let filter = match self.resource.searched() {
            Some(searched) if searched == self.filter.trim() => "",
            _ => self.filter.as_str(),
        };
        let sort = self.sort_in_force().filter(|sort| sort.ordering.is_none());
        let order = sort.map(|sort| move |a: &R::Row, b: &R::Row| R::compare(a, b, sort));
        let resource = &self.resource;
        self.rows.apply_view(
            filter,
            |row: &R::Row, needle: &str| {
                resource.keeps(row) && (needle.is_empty() || R::matches(row, needle))
            },
            order.as_ref().map(|order| order as rows::Order<'_, R::Row>),
            resource.narrowed(),
        );
        self.rows.scroll(height);
    }

    /// A narrowed list looks through its rows from the top, a page at a
    /// time, while the resource says the next page may hold more of them
    /// and up to its limit; far pages are never dropped meanwhile.
    pub fn scan(&mut self) -> Vec<u64> {
        let list = &mut self.rows.list;
        let end = list.prefix_end();
        let done = list.is_loading()
            || list
                .count()
                .is_some_and(|count| end >= count && list.has_answered())
            || end >= self.resource.scan_limit();
        let past_them = end
            .checked_sub(1)
            .and_then(|last| list.get(last))
            .is_some_and(|last| !self.resource.scan_on(last));
        if done || past_them {
            return Vec::new();
        }
        list.want_page(end / paging::PAGE_SIZE)
    }

    /// Keeps the cursor on the row with this id as pages arrive: where a
    /// page of this generation holds it, the cursor goes there; while it
    /// may still be in a page to come (stale or in flight), it is looked
    /// for again then; a row gone from the list leaves the cursor where it
    /// is. Rows arriving never move the cursor by position alone.
    pub fn follow(&mut self, id: String, height: u64) {
        let list = &self.rows.list;
        if self
            .rows
            .index(self.rows.cursor)
            .is_some_and(|index| !list.is_stale(index) && list.get(index).is_some_and(|row| R::id(row) == id))
        {
            return;
        }
        match list.fresh_position(|row| R::id(row) == id) {
            Some(index) => {
                self.rows.select_index(index, height);
            }
            None if list.has_stale() || list.is_loading() => self.refocus = Some(id),
            None => {}
        }
    }

    pub fn sort_in_force(&self) -> Option<&'static Sort> {
        self.resource.sorts().get(self.sort).filter(|_| self.sort > 0)
    }

    /// Takes a page of its rows; `false` when it is for an older
    /// generation.
    pub fn receive(&mut self, generation: Ticket, offset: u64, page: Page<R::Row>, height: u64) -> bool {
        if generation != self.rows.list.generation() {
            return false;
        }
        // The row the cursor is on now (the user may have moved since a
        // refresh was sent), unless one is already being looked for.
        let sought = self.refocus.take();
        let before = sought.clone().or_else(|| self.selected_id());
        let count = self.pager.counted(offset, &page);
        let rows = &mut self.rows;
        let accepted = rows.list.receive(generation, offset, count, page.results);
        if !accepted {
            self.refocus = sought;
            return false;
        }
        if rows.view.is_none() && rows.cursor >= rows.len() {
            rows.cursor = rows.len().saturating_sub(1);
        }
        // A local view's positions are of the rows before this page.
        if self.rows.view.is_some() {
            self.apply_view(height);
        }
        if let Some(id) = before {
            self.follow(id, height);
        }
        self.resource.loaded(&self.rows);
        if R::MARKS {
            self.marks_seen(generation, offset);
        }
        true
    }

    /// The offsets to fetch for a window of `height` rows (all of a small
    /// list filtered or sorted locally); they are marked in flight.
    pub fn wanted(&mut self, height: u64) -> Vec<u64> {
        if self.resource.narrowed() {
            return self.scan();
        }
        // Lists the server searches, or pages by cursor, are never loaded whole.
        let fill_limit = (self.resource.searched().is_none() && !Self::BY_CURSOR).then_some(LOCAL_VIEW_LIMIT);
        self.rows.wanted(height, fill_limit, !Self::BY_CURSOR)
    }

    pub fn move_to(&mut self, position: i64, height: u64) {
        // The user chose a row: no refresh pulls the cursor back to another.
        self.refocus = None;
        self.rows.move_to(position, height)
    }

    /// Starts over: a new generation, from the top or where the cursor is.
    pub fn restart(&mut self, from_start: bool) {
        self.marking_stopped(None, None);
        if from_start {
            // Other rows (another filter, order or state): the old ones go.
            self.rows.list.restart();
            self.refocus = None;
        } else {
            // The same rows again: the old ones stay, as stale, until theirs
            // come back. A list paged by cursor knows only its first page's
            // link from here on, so only that page is kept.
            self.rows.list.refresh();
            if Self::BY_CURSOR {
                self.rows.list.keep_first(1);
            }
        }
        self.pager.restart();
        if from_start || Self::BY_CURSOR {
            self.rows.cursor = 0;
            self.rows.top = 0;
        }
    }

    /// Another list in this one's place: nothing loaded, no filter.
    pub fn clear(&mut self) {
        self.rows.clear();
        self.filter.clear();
        self.refocus = None;
        self.marks.clear();
        self.marking = None;
        self.resource.search_on_server("");
    }

    pub fn failed(&mut self, generation: Ticket, offset: u64) -> bool {
        self.marking_stopped(Some(generation), Some(offset));
        self.rows.list.failed(generation, offset)
    }

    /// A failed request that means an empty list (a 404 where the server
    /// has no such list): taken as an empty answer, `true`.
    pub fn answered_with(&mut self, generation: Ticket, offset: u64, error: &crate::api::Error) -> bool {
        // Only the first page can say the list is not there at all; a later
        // one failing (an expired link) is a failure.
        if offset != 0 || generation != self.rows.list.generation() || !self.resource.answered_with(error) {
            return false;
        }
        self.pager.ended_empty();
        self.rows.list.receive(generation, offset, 0, Vec::new())
    }

    /// Remembers the selected row, to find it again once a refresh answers.
    pub fn remember_selected(&mut self) {
        self.refocus = self.selected_id();
    }

    pub fn set_filter(&mut self, text: String) {
        self.filter = text;
        self.refocus = None;
        self.rows.cursor = 0;
        self.rows.top = 0;
    }

    /// The next sort; `true` when the server must fetch in that order.
    pub fn cycle_sort(&mut self) -> bool {
        let sorts = self.resource.sorts();
        self.sort = (self.sort + 1) % sorts.len().max(1);
        let sort = sorts.get(self.sort).copied();
        let reload = sort.is_some_and(|sort| self.resource.order_on_server(&sort));
        if reload {
            self.rows.cursor = 0;
            self.rows.top = 0;
        }
        reload
    }

    /// Whether the filter typed differs from what the server searched, for
    /// lists the server searches.
    pub fn search_pending(&self) -> bool {
        self.resource
            .searched()
            .is_some_and(|searched| searched != self.filter.trim())
    }

    /// Hands the filter to the server; `true` when the list must start over.
    pub fn search(&mut self) -> bool {
        let text = self.filter.trim().to_string();
        if !self.resource.search_on_server(&text) {
            return false;
        }
        self.rows.view = None;
        self.restart(true);
        true
    }

    /// For a narrowed list whose look stopped short of the end: how many
    /// rows it looked through.
    pub fn scanned(&self) -> Option<u64> {
        if !self.resource.narrowed() {
            return None;
        }
        let end = self.rows.list.prefix_end();
        self.rows.list.count().filter(|count| end < *count).map(|_| end)
    }

    /// Whether that look stopped at its limit (and may be asked to go on).
    pub fn scan_stopped(&self) -> bool {
        self.scanned()
            .is_some_and(|end| end >= self.resource.scan_limit() && !self.rows.list.is_loading())
    }

    /// Whether the row shown at a position is marked.
    pub fn is_marked(&self, shown: u64) -> bool {
        !self.marks.is_empty()
            && self
                .rows
                .row(shown)
                .is_some_and(|row| self.marks.contains(&R::id(row)))
    }

    /// Unmarks every row; says how many were marked.
    pub fn clear_marks(&mut self) -> usize {
        self.marking = None;
        self.marks.clear()
    }

    /// Unmarks these rows (done by a bulk action).
    pub fn unmark(&mut self, ids: &[String]) {
        self.marks.retain(|id| !ids.iter().any(|done| done == id));
    }
}
