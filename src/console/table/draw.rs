//! Drawing the table of a list, whatever it is: only the rows in its
//! window are drawn; rows not yet loaded show as placeholders until their
//! page arrives. It draws what it is passed (the list through [`Drawn`],
//! what the shell says of it in a [`Look`], the [`ViewCx`] and the area),
//! and names nothing above the table's floor: the shell lends it the list
//! shown (`shell/draw/list.rs`).

use chrono::{DateTime, Utc};
use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Cell, Paragraph, Row, Table, TableState};

use super::columns;
use crate::console::kit::column::{Column, Sort};
use crate::console::kit::fit::fit;
use crate::console::kit::theme::Theme;
use crate::console::kit::view::ViewCx;
use unicode_width::UnicodeWidthStr;

/// Before a marked row.
pub const MARK: &str = "●";

/// A list as its table draws it: where its rows and cursor are, how many
/// it has and how they came, its columns and sort, each row's cells and
/// marks, and what it says when it has none. Type-erased, as the table
/// drawn is whichever list is shown.
pub trait Drawn {
    /// Rows in the view (filtered or not).
    fn len(&self) -> u64;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The first row drawn.
    fn top(&self) -> u64;
    fn cursor(&self) -> u64;
    /// Rows the server says the list has, once it has said.
    fn count(&self) -> Option<u64>;
    /// Whether [`Drawn::count`] is the list's length, or a row more while
    /// there is more (a list paged by cursor).
    fn count_is_exact(&self) -> bool;
    /// Rows a narrowing has looked through so far.
    fn scanned(&self) -> Option<u64>;
    /// Whether the narrowing stopped at its limit.
    fn scan_stopped(&self) -> bool;
    fn is_loading(&self) -> bool;
    fn has_failed(&self) -> bool;
    /// Whether any row has arrived (before a filter).
    fn has_loaded_rows(&self) -> bool;
    fn columns(&self) -> &'static [Column];
    fn sort(&self) -> Option<&'static Sort>;
    /// The cells of the `shown`th row, `None` while its page is on its way.
    fn cells(&self, shown: u64, view: &ViewCx) -> Option<Vec<Span<'static>>>;
    /// How many rows are marked.
    fn marked(&self) -> usize;
    fn is_marked(&self, shown: u64) -> bool;
    /// What the list says in its bottom border, if anything.
    fn status(&self, view: &ViewCx) -> Option<Line<'static>>;
    /// What an empty list says.
    fn empty(&self) -> &'static str;
}

/// What the shell says of the table it has drawn: its heading, and
/// whether the server is out of reach.
pub struct Look {
    /// The name in the top border.
    pub heading: String,
    /// Set while the server cannot be reached: the rows are what it said
    /// last.
    pub stale: Option<Stale>,
}

/// The rows are what the server said last.
pub struct Stale {
    /// Since when.
    pub since: DateTime<Utc>,
    /// Which server, why, and when it is tried again, in words.
    pub line: String,
}

/// The table's border: its heading and where the cursor is, stale since
/// when, and the list's status at the bottom. A page that is not a table
/// draws itself inside it.
pub fn block<L: Drawn + ?Sized>(list: &L, look: &Look, view: &ViewCx, width: u16) -> Block<'static> {
    let theme = view.theme;
    let mut title = title(&look.heading, list, theme, width);
    // While the server is away, the rows are what it said last.
    if let Some(stale) = &look.stale {
        title.push_span(Span::styled(
            format!(
                "stale since {} {} ",
                view.in_zone(stale.since, "%H:%M"),
                view.zone_label()
            ),
            theme.warning,
        ));
    }
    let mut block = Block::bordered().border_type(BorderType::Rounded).title(title);
    if let Some(status) = list.status(view) {
        block = block.title_bottom(status);
    }
    block
}

/// Draws `list` in `area`: its rows in the window, or what it says when
/// it has none.
pub fn draw<L: Drawn + ?Sized>(frame: &mut Frame, area: Rect, table: &L, look: &Look, view: &ViewCx) {
    let theme = view.theme;
    let block = block(table, look, view, area.width);
    let height = area.height.saturating_sub(3) as u64;
    if table.is_empty() {
        let text = empty_text(table, look);
        frame.render_widget(
            Paragraph::new(Line::styled(format!(" {text}"), theme.dim)).block(block),
            area,
        );
        return;
    }
    // Rows the server may have changed since it went away are dimmed.
    let stale = match look.stale {
        Some(_) => theme.dim.add_modifier(Modifier::DIM),
        None => Style::new(),
    };
    let window = table.top()..(table.top() + height).min(table.len());
    let cells: Vec<Option<Vec<Span<'static>>>> = window.clone().map(|at| table.cells(at, view)).collect();
    let columns = table.columns();
    let natural = natural_widths(table, &cells, view);
    // Less the column of marks, and its spacing, when rows are marked.
    let marking = table.marked() > 0;
    let marks_column = if marking { 2 } else { 0 };
    let room = area.width.saturating_sub(2 + marks_column);
    let planned = columns::plan(columns, &natural, area.width, room);
    let rows = rows(table, window.clone(), cells, &planned, stale, theme);
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

/// What a list with no rows to draw says: why, or that it is on its way.
fn empty_text<L: Drawn + ?Sized>(table: &L, look: &Look) -> String {
    match (table.count(), &look.stale) {
        (None, Some(stale)) => crate::text::printable(&stale.line).into_owned(),
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
    }
}

/// Each column as wide as the widest of its header and cells on screen.
fn natural_widths<L: Drawn + ?Sized>(
    table: &L,
    cells: &[Option<Vec<Span<'static>>>],
    view: &ViewCx,
) -> Vec<u16> {
    let mut natural: Vec<u16> = table
        .columns()
        .iter()
        .map(|column| u16::try_from(header(column, table, view).width()).unwrap_or(u16::MAX))
        .collect();
    for row in cells.iter().flatten() {
        for (width, cell) in natural.iter_mut().zip(row) {
            *width = (*width).max(u16::try_from(cell.width()).unwrap_or(u16::MAX));
        }
    }
    natural
}

/// The rows in the window, their cells fitted to the columns planned;
/// a row not yet loaded is a placeholder.
fn rows<L: Drawn + ?Sized>(
    table: &L,
    window: std::ops::Range<u64>,
    cells: Vec<Option<Vec<Span<'static>>>>,
    planned: &[(usize, u16)],
    stale: Style,
    theme: &Theme,
) -> Vec<Row<'static>> {
    let marking = table.marked() > 0;
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
    window
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
        .collect()
}

/// A column's header, with ▲ or ▼ where the sort in force is by it.
fn header<L: Drawn + ?Sized>(column: &Column, table: &L, view: &ViewCx) -> String {
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
fn title<'a, L: Drawn + ?Sized>(name: &str, table: &L, theme: &Theme, width: u16) -> Line<'a> {
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
