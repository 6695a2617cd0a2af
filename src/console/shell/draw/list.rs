//! The list shown, lent to the table's drawing (`table/draw.rs`): its
//! heading as the shell names it (a tab whose own list needs a row first
//! shows its parent's, to choose), whether the server is away, and the
//! list itself through [`Drawn`]. A page that is not a table (a person's,
//! an offboarding) draws itself inside the table's border.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::console::kit::column::{Column, Sort};
use crate::console::kit::view::ViewCx;
use crate::console::screens::shown::Shown;
use crate::console::shell::App;
use crate::console::table;
use crate::console::table::draw::{Drawn, Look, Stale};

pub fn draw(frame: &mut Frame, area: Rect, app: &App, view: &ViewCx) {
    let shown = app.screens.shown(app.shown());
    let heading = if app.navigation.tab != app.shown() && !app.screens.shown(app.navigation.tab).is_open() {
        format!("Choose a {}", shown.noun())
    } else {
        shown.heading()
    };
    let look = Look {
        heading,
        stale: app.connection.offline.as_ref().map(|offline| Stale {
            since: offline.since,
            line: offline.line(app.window.now),
        }),
    };
    if let Shown::Page(page) = shown
        && !shown.is_empty()
    {
        page.draw(
            frame,
            area,
            table::draw::block(&shown, &look, view, area.width),
            view,
        );
        return;
    }
    table::draw::draw(frame, area, &shown, &look, view);
}

/// Whatever screen is shown, as the table draws it: a list's rows, or a
/// page's border and what it says while it has no lines (the page draws
/// its lines itself).
impl Drawn for Shown<'_> {
    fn len(&self) -> u64 {
        Shown::len(*self)
    }
    fn top(&self) -> u64 {
        Shown::top(*self)
    }
    fn cursor(&self) -> u64 {
        Shown::cursor(*self)
    }
    fn count(&self) -> Option<u64> {
        Shown::count(*self)
    }
    fn count_is_exact(&self) -> bool {
        Shown::count_is_exact(*self)
    }
    fn scanned(&self) -> Option<u64> {
        Shown::scanned(*self)
    }
    fn scan_stopped(&self) -> bool {
        Shown::scan_stopped(*self)
    }
    fn is_loading(&self) -> bool {
        Shown::is_loading(*self)
    }
    fn has_failed(&self) -> bool {
        Shown::has_failed(*self)
    }
    fn has_loaded_rows(&self) -> bool {
        Shown::has_loaded_rows(*self)
    }
    fn columns(&self) -> &'static [Column] {
        self.list().map_or(&[], |list| list.columns())
    }
    fn sort(&self) -> Option<&'static Sort> {
        Shown::sort(*self)
    }
    fn cells(&self, shown: u64, view: &ViewCx) -> Option<Vec<Span<'static>>> {
        self.list()?.cells(shown, view)
    }
    fn marked(&self) -> usize {
        Shown::marked(*self)
    }
    fn is_marked(&self, shown: u64) -> bool {
        self.list().is_some_and(|list| list.is_marked(shown))
    }
    fn status(&self, view: &ViewCx) -> Option<Line<'static>> {
        Shown::status(*self, view)
    }
    fn empty(&self) -> &'static str {
        Shown::empty(*self)
    }
}
