//! The table of the list shown, whatever it is: only the rows in its
//! window are drawn; rows not yet loaded show as placeholders until their
//! page arrives.

use ratatui::Frame;
use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Cell, Paragraph, Row, Table, TableState};

use super::fit::fit;
use super::theme::Theme;
use crate::console::app::App;
use crate::console::lists::{AnyTable, Column};

/// Before a marked row.
pub const MARK: &str = "●";

pub fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let table = app.lists.get(app.shown());
    // A tab whose own list needs a row first shows its parent's, to choose.
    let heading = if app.tab != app.shown() && !app.lists.get(app.tab).is_open() {
        format!("Choose a {}", table.noun())
    } else {
        table.heading()
    };
    let mut title = title(&heading, table, theme);
    // While the server is away, the rows are what it said last.
    if let Some(offline) = &app.offline {
        title.push_span(Span::styled(
            format!("stale since {} UTC ", offline.since.format("%H:%M")),
            theme.warning,
        ));
    }
    let mut block = Block::bordered().border_type(BorderType::Rounded).title(title);
    if let Some(status) = table.status(app.now, theme) {
        block = block.title_bottom(status);
    }
    let height = area.height.saturating_sub(3) as u64;
    if table.is_empty() {
        let text = match (table.count(), &app.offline) {
            (None, Some(offline)) => crate::text::printable(&offline.line(app.now)).into_owned(),
            (None, None) if table.has_failed() => "could not load: r tries again".into(),
            (None, None) => "loading…".into(),
            (Some(_), _) if table.has_loaded_rows() => "nothing here matches the filter: / changes it".into(),
            (Some(_), _) => table.empty().to_string(),
        };
        frame.render_widget(
            Paragraph::new(Line::styled(format!(" {text}"), theme.dim)).block(block),
            area,
        );
        return;
    }
    if table.wraps() {
        page(frame, area, app, table, block, theme);
        return;
    }
    // Rows the server may have changed since it went away are dimmed.
    let stale = match app.offline {
        Some(_) => theme.dim.add_modifier(Modifier::DIM),
        None => Style::new(),
    };
    let columns = table.columns();
    let shown: Vec<bool> = columns.iter().map(|column| column.shown_at(area.width)).collect();
    let keep = |cells: Vec<Span<'static>>| -> Vec<Span<'static>> {
        cells
            .into_iter()
            .zip(&shown)
            .filter(|(_, shown)| **shown)
            .map(|(cell, _)| cell)
            .collect()
    };
    let visible: Vec<&Column> = columns
        .iter()
        .zip(&shown)
        .filter(|(_, shown)| **shown)
        .map(|(column, _)| column)
        .collect();
    // The widths the table gives its columns, worked out here so that a
    // cell too long for its column is cut with an ellipsis, never silently
    // (less the column of marks, and its spacing, when rows are marked).
    let marks_column = if table.marked() > 0 { 2 } else { 0 };
    let inner = Rect::new(0, 0, area.width.saturating_sub(2 + marks_column), 1);
    let widths: Vec<u16> = Layout::horizontal(visible.iter().map(|column| column.width))
        .flex(Flex::Start)
        .spacing(1)
        .split(inner)
        .iter()
        .map(|cell| cell.width)
        .collect();
    let fitted = |spans: Vec<Span<'static>>| -> Vec<Cell<'static>> {
        keep(spans)
            .into_iter()
            .zip(&widths)
            .map(|(span, width)| {
                let content = fit(&span.content, usize::from(*width));
                Cell::from(Span::styled(content, span.style))
            })
            .collect()
    };
    let window = table.top()..(table.top() + height).min(table.len());
    // With rows marked, a column of marks comes first: ● on each marked row,
    // which is drawn in the marks' style too.
    let marking = table.marked() > 0;
    let rows: Vec<Row> = window
        .clone()
        .map(|at| {
            let marked = marking && table.is_marked(at);
            let mut cells = Vec::new();
            if marking {
                cells.push(Cell::from(if marked { MARK } else { " " }));
            }
            match table.cells(at, app.now, theme) {
                Some(spans) => {
                    cells.extend(fitted(spans));
                    let row = Row::new(cells);
                    if marked {
                        row.style(theme.marked)
                    } else {
                        row.style(stale)
                    }
                }
                None => {
                    cells.push(Cell::from("…"));
                    Row::new(cells).style(theme.dim)
                }
            }
        })
        .collect();
    let mut widths: Vec<Constraint> = widths.iter().map(|width| Constraint::Length(*width)).collect();
    let mut headers: Vec<Cell> = visible
        .iter()
        .map(|column| Cell::from(header(column, table)))
        .collect();
    if marking {
        widths.insert(0, Constraint::Length(1));
        headers.insert(0, Cell::from(""));
    }
    let header = Row::new(headers).style(theme.header);
    let widget = Table::new(rows, widths)
        .header(header)
        .block(block)
        .column_spacing(1)
        .row_highlight_style(theme.selected);
    let mut state =
        TableState::default().with_selected(Some((table.cursor().saturating_sub(window.start)) as usize));
    frame.render_stateful_widget(widget, area, &mut state);
}

/// A column's header, with ▲ or ▼ where the sort in force is by it.
fn header(column: &Column, table: &dyn AnyTable) -> String {
    match table.sort() {
        Some(sort)
            if sort
                .column
                .is_some_and(|sorted| column.header.starts_with(sorted)) =>
        {
            let arrow = if sort.descending { "▼" } else { "▲" };
            format!("{} {arrow}", column.header)
        }
        _ => column.header.to_string(),
    }
}

fn title<'a>(name: &str, table: &dyn AnyTable, theme: &Theme) -> Line<'a> {
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
    Line::from(vec![
        Span::styled(format!(" {}", crate::text::printable(name)), theme.accent),
        Span::raw(format!("{position}{filtered} ")),
    ])
}

/// A page's lines (a person's, an offboarding): each row whole, wrapped to
/// the width, the cursor's row highlighted and kept on screen.
fn page(frame: &mut Frame, area: Rect, app: &App, table: &dyn AnyTable, block: Block, theme: &Theme) {
    let width = usize::from(area.width.saturating_sub(2));
    let height = usize::from(area.height.saturating_sub(2));
    let mut lines: Vec<Line<'static>> = Vec::new();
    let mut cursor_end = 0;
    for at in 0..table.len() {
        let Some(spans) = table.cells(at, app.now, theme) else {
            lines.push(Line::styled("…", theme.dim));
            continue;
        };
        let mut line = Line::from(spans);
        let selected = at == table.cursor();
        if selected {
            line = line.style(theme.selected);
        }
        lines.extend(super::detail::wrap(vec![line], width));
        if selected {
            cursor_end = lines.len();
        }
    }
    let scroll = u16::try_from(cursor_end.saturating_sub(height)).unwrap_or(u16::MAX);
    frame.render_widget(Paragraph::new(lines).block(block).scroll((scroll, 0)), area);
}
