//! The table of the list shown, whatever it is: only the rows in its
//! window are drawn; rows not yet loaded show as placeholders until their
//! page arrives.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Cell, Paragraph, Row, Table, TableState};

use super::columns;
use crate::console::app::App;
use crate::console::kit::column::Column;
use crate::console::kit::fit::fit;
use crate::console::kit::theme::Theme;
use crate::console::kit::view::ViewCx;
use crate::console::screens::list::List;
use crate::console::screens::shown::Shown;
use unicode_width::UnicodeWidthStr;

/// Before a marked row.
pub const MARK: &str = "●";

pub fn draw(frame: &mut Frame, area: Rect, app: &App, view: &ViewCx) {
    let theme = view.theme;
    let table = app.screens.shown(app.shown());
    // A tab whose own list needs a row first shows its parent's, to choose.
    let heading = if app.navigation.tab != app.shown() && !app.screens.shown(app.navigation.tab).is_open() {
        format!("Choose a {}", table.noun())
    } else {
        table.heading()
    };
    let mut title = title(&heading, table, theme, area.width);
    // While the server is away, the rows are what it said last.
    if let Some(offline) = &app.offline {
        title.push_span(Span::styled(
            format!(
                "stale since {} {} ",
                view.in_zone(offline.since, "%H:%M"),
                view.zone_label()
            ),
            theme.warning,
        ));
    }
    let mut block = Block::bordered().border_type(BorderType::Rounded).title(title);
    if let Some(status) = table.status(view) {
        block = block.title_bottom(status);
    }
    let height = area.height.saturating_sub(3) as u64;
    if table.is_empty() {
        let text = match (table.count(), &app.offline) {
            (None, Some(offline)) => crate::text::printable(&offline.line(app.now)).into_owned(),
            (None, None) if table.has_failed() => "could not load: r tries again".into(),
            (None, None) => "loading…".into(),
            // A narrowing still looking through the list has found none yet.
            (Some(total), _) if table.is_loading() && table.scanned().is_some() => format!(
                "looking through the list: {} of {} so far, none of them yet",
                crate::text::thousands(table.scanned().unwrap_or(0)),
                crate::text::thousands(total)
            ),
            (Some(_), _) if table.has_loaded_rows() => "nothing here matches the filter: / changes it".into(),
            (Some(_), _) => table.empty().to_string(),
        };
        frame.render_widget(
            Paragraph::new(Line::styled(format!(" {text}"), theme.dim)).block(block),
            area,
        );
        return;
    }
    // A page that is not a table (a person's, an offboarding) draws itself.
    let table = match table {
        Shown::Page(page) => {
            page.draw(frame, area, block, view);
            return;
        }
        Shown::List(table) => table,
    };
    // Rows the server may have changed since it went away are dimmed.
    let stale = match app.offline {
        Some(_) => theme.dim.add_modifier(Modifier::DIM),
        None => Style::new(),
    };
    let window = table.top()..(table.top() + height).min(table.len());
    let cells: Vec<Option<Vec<Span<'static>>>> = window.clone().map(|at| table.cells(at, view)).collect();
    let columns = table.columns();
    // Each column as wide as the widest of its header and cells on screen.
    let mut natural: Vec<u16> = columns
        .iter()
        .map(|column| u16::try_from(header(column, table, view).width()).unwrap_or(u16::MAX))
        .collect();
    for row in cells.iter().flatten() {
        for (width, cell) in natural.iter_mut().zip(row) {
            *width = (*width).max(u16::try_from(cell.width()).unwrap_or(u16::MAX));
        }
    }
    // Less the column of marks, and its spacing, when rows are marked.
    let marking = table.marked() > 0;
    let marks_column = if marking { 2 } else { 0 };
    let room = area.width.saturating_sub(2 + marks_column);
    let planned = columns::plan(columns, &natural, area.width, room);
    // A cell too long for its column is cut with an ellipsis, never silently.
    let fitted = |spans: Vec<Span<'static>>| -> Vec<Cell<'static>> {
        planned
            .iter()
            .map(|(index, width)| {
                let span = spans.get(*index).cloned().unwrap_or_default();
                let content = fit(&span.content, usize::from(*width));
                Cell::from(Span::styled(content, span.style))
            })
            .collect()
    };
    // With rows marked, a column of marks comes first: ● on each marked row,
    // which is drawn in the marks' style too.
    let rows: Vec<Row> = window
        .clone()
        .zip(cells)
        .map(|(at, cells_of_row)| {
            let marked = marking && table.is_marked(at);
            let mut row_cells = Vec::new();
            if marking {
                row_cells.push(Cell::from(if marked { MARK } else { " " }));
            }
            match cells_of_row {
                Some(spans) => {
                    row_cells.extend(fitted(spans));
                    let row = Row::new(row_cells);
                    if marked {
                        row.style(theme.marked)
                    } else {
                        row.style(stale)
                    }
                }
                None => {
                    row_cells.push(Cell::from("…"));
                    Row::new(row_cells).style(theme.dim)
                }
            }
        })
        .collect();
    let mut widths: Vec<Constraint> = planned
        .iter()
        .map(|(_, width)| Constraint::Length(*width))
        .collect();
    let mut headers: Vec<Cell> = planned
        .iter()
        .map(|(index, width)| Cell::from(fit(&header(&columns[*index], table, view), usize::from(*width))))
        .collect();
    if marking {
        widths.insert(0, Constraint::Length(1));
        headers.insert(0, Cell::from(""));
    }
    let header = Row::new(headers).style(theme.header);
    let widget = Table::new(rows, widths)
        .header(header)
        .block(block)
        .column_spacing(columns::SPACING)
        .row_highlight_style(theme.selected);
    let mut state =
        TableState::default().with_selected(Some((table.cursor().saturating_sub(window.start)) as usize));
    frame.render_stateful_widget(widget, area, &mut state);
}

/// A column's header, with ▲ or ▼ where the sort in force is by it.
fn header(column: &Column, table: &dyn List, view: &ViewCx) -> String {
    match table.sort() {
        Some(sort)
            if sort
                .column
                .is_some_and(|sorted| column.header.starts_with(sorted)) =>
        {
            let arrow = if sort.descending { "▼" } else { "▲" };
            format!("{} {arrow}", view.zoned_header(column.header))
        }
        _ => view.zoned_header(column.header).into_owned(),
    }
}

/// The table's name and where the cursor is, in the top border of a table
/// `width` wide: the name is what is cut.
fn title<'a>(name: &str, table: Shown<'_>, theme: &Theme, width: u16) -> Line<'a> {
    let rows_shown = table.len();
    // A cursor-paged list is a row longer than what arrived while there is
    // more (a filtered view of it holds only rows that arrived).
    let (rows_known, more) = match table.count_is_exact() {
        true => (rows_shown, ""),
        false if table.count() == Some(rows_shown) => (rows_shown.saturating_sub(1), "+"),
        false => (rows_shown, "+"),
    };
    let filtered = match (table.count(), table.scanned()) {
        (Some(total), Some(scanned)) if table.scan_stopped() => {
            format!(" match in the first {scanned} of {total} · L: more")
        }
        (Some(total), Some(scanned)) => format!(" match in the first {scanned} of {total}"),
        (Some(total), None) if total != rows_shown => format!(" of {total}"),
        _ => String::new(),
    };
    let position = match (rows_known, filtered.is_empty()) {
        (0, true) => String::new(),
        (0, false) => " 0".to_string(),
        _ => format!(" {}/{rows_known}{more}", (table.cursor() + 1).min(rows_known)),
    };
    let place = format!("{position}{filtered} ");
    // The corners, and a space before the name.
    let room = usize::from(width).saturating_sub(3 + place.width());
    Line::from(vec![
        Span::styled(
            format!(" {}", fit(&crate::text::printable(name), room)),
            theme.accent,
        ),
        Span::raw(place),
    ])
}
