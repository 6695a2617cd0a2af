//! The list shown, lent to the table's drawing (`table/draw.rs`): its
//! heading as the shell names it (a tab whose own list needs a row first
//! shows its parent's, to choose), whether the server is away, and the
//! list itself through [`Drawn`]. A page that is not a table (a person's,
//! an offboarding) draws itself inside the table's border.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::console::app::App;
use crate::console::kit::column::{Column, Sort};
use crate::console::kit::view::ViewCx;
use crate::console::lists::AnyTable;
use crate::console::table;
use crate::console::table::draw::{Drawn, Look, Stale};

pub fn draw(frame: &mut Frame, area: Rect, app: &App, view: &ViewCx) {
    let list = app.screens.get(app.shown());
    let heading = if app.navigation.tab != app.shown() && !app.screens.get(app.navigation.tab).is_open() {
        format!("Choose a {}", list.noun())
    } else {
        list.heading()
    };
    let look = Look {
        heading,
        stale: app.connection.offline.as_ref().map(|offline| Stale {
            since: offline.since,
            line: offline.line(app.window.now),
        }),
    };
    if !AnyTable::is_empty(list)
        && let Some(page) = app.screens.page(app.shown())
    {
        page.draw(
            frame,
            area,
            table::draw::block(list, &look, view, area.width),
            view,
        );
        return;
    }
    table::draw::draw(frame, area, list, &look, view);
}

/// Any list, as its table draws it.
impl Drawn for dyn AnyTable + '_ {
    fn len(&self) -> u64 {
        AnyTable::len(self)
    }
    fn top(&self) -> u64 {
        AnyTable::top(self)
    }
    fn cursor(&self) -> u64 {
        AnyTable::cursor(self)
    }
    fn count(&self) -> Option<u64> {
        AnyTable::count(self)
    }
    fn count_is_exact(&self) -> bool {
        AnyTable::count_is_exact(self)
    }
    fn scanned(&self) -> Option<u64> {
        AnyTable::scanned(self)
    }
    fn scan_stopped(&self) -> bool {
        AnyTable::scan_stopped(self)
    }
    fn is_loading(&self) -> bool {
        AnyTable::is_loading(self)
    }
    fn has_failed(&self) -> bool {
        AnyTable::has_failed(self)
    }
    fn has_loaded_rows(&self) -> bool {
        AnyTable::has_loaded_rows(self)
    }
    fn columns(&self) -> &'static [Column] {
        AnyTable::columns(self)
    }
    fn sort(&self) -> Option<&'static Sort> {
        AnyTable::sort(self)
    }
    fn cells(&self, shown: u64, view: &ViewCx) -> Option<Vec<Span<'static>>> {
        AnyTable::cells(self, shown, view)
    }
    fn marked(&self) -> usize {
        AnyTable::marked(self)
    }
    fn is_marked(&self, shown: u64) -> bool {
        AnyTable::is_marked(self, shown)
    }
    fn status(&self, view: &ViewCx) -> Option<Line<'static>> {
        AnyTable::status(self, view)
    }
    fn empty(&self) -> &'static str {
        AnyTable::empty(self)
    }
}
