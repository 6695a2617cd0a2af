//! The Access tab drawn: a line of headings, then a line a row, the name
//! column frozen on the left and as many columns after it as fit, scrolled
//! sideways so that the cursor's column is always in view. Only the rows
//! on screen are drawn (the rows are virtual); each cell is its level in
//! a style by level (none red, member and viewer plain, editor accented,
//! admin and manager bold; `·` dim while unread, `?` where the server does
//! not say), the cursor's cell highlighted.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use super::state::Access;
use crate::access::grid::Level;
use crate::api::access::levels::AccessLevel;
use crate::console::kit::cell::styled;
use crate::console::kit::fit::fit;
use crate::console::kit::theme::Theme;
use crate::console::kit::view::ViewCx;

/// The widest the name column grows.
const NAME_WIDTH: usize = 30;
/// A column's width, a space before it included: as wide as the longest
/// heading needs, between these.
const COLUMN_WIDTH: (usize, usize) = (9, 21);

/// The width of every column: the longest heading's, a space before it,
/// within [`COLUMN_WIDTH`].
fn column_width(access: &Access) -> usize {
    (access.longest_heading + 1).clamp(COLUMN_WIDTH.0, COLUMN_WIDTH.1)
}

/// The style of a level.
pub fn style_of(level: Level, theme: &Theme) -> Style {
    match level.access() {
        Some(AccessLevel::None) => theme.error.remove_modifier(Modifier::BOLD),
        Some(AccessLevel::Member | AccessLevel::Viewer) => Style::new(),
        Some(AccessLevel::Editor) => theme.ok,
        Some(AccessLevel::Admin | AccessLevel::Manager) => theme.header,
        Some(AccessLevel::Other(_)) | None if level == Level::UNSAID => theme.warning,
        Some(AccessLevel::Other(_)) | None => theme.dim,
    }
}

/// The first column drawn after the name column, from `left` as before,
/// so that `cursor` is in view, and how many are drawn: as many columns
/// of `width` as fit in `room`.
pub fn window(left: usize, cursor: usize, count: usize, room: usize, width: usize) -> (usize, usize) {
    let fits = (room / width.max(1)).max(1);
    let mut left = left.min(count.saturating_sub(1));
    if cursor < left {
        left = cursor;
    } else if cursor >= left + fits {
        left = cursor + 1 - fits;
    }
    (left, fits.min(count.saturating_sub(left)))
}

pub fn draw(access: &Access, frame: &mut Frame, area: Rect, block: Block, view: &ViewCx) {
    let theme = view.theme;
    let inner = block.inner(area);
    let width = usize::from(inner.width);
    let height = usize::from(inner.height);
    let name_width = (width / 3).clamp(8, NAME_WIDTH);
    let columns = access.columns();
    let column_width = column_width(access);
    let (left, fits) = window(
        access.left.get(),
        access.column,
        columns.len(),
        width.saturating_sub(name_width),
        column_width,
    );
    access.left.set(left);
    let drawn = columns.get(left..left + fits).unwrap_or_default();
    let mut lines: Vec<Line<'static>> = Vec::with_capacity(height);
    // The headings, with arrows where columns lie beyond the edges.
    let mut heading = vec![styled(
        format!(
            "{:<name_width$}",
            fit(if left > 0 { "◀ NAME" } else { "NAME" }, name_width)
        ),
        theme.header,
    )];
    for (at, column) in drawn.iter().enumerate() {
        let style = if left + at == access.column {
            theme.accent
        } else {
            theme.header
        };
        let label = fit(&access.heading_of(*column), column_width - 1);
        heading.push(styled(
            format!(" {label:<width$}", width = column_width - 1),
            style,
        ));
    }
    if left + fits < columns.len() {
        heading.push(styled(" ▶", theme.dim));
    }
    lines.push(Line::from(heading));
    let rows = height.saturating_sub(1) as u64;
    for shown in access.top..(access.top + rows).min(access.len_shown()) {
        let Some((place, subject)) = access.row(shown) else {
            break;
        };
        let on_cursor = shown == access.cursor;
        let mut name = subject.name.clone();
        if subject.admin {
            name.push_str(" ★");
        }
        let name_style = if on_cursor { theme.selected } else { Style::new() };
        let mut spans = vec![styled(
            format!("{:<name_width$}", fit(&name, name_width.saturating_sub(1))),
            name_style,
        )];
        for (at, column) in drawn.iter().enumerate() {
            let (level, _) = access.cell_of(place, *column);
            let style = if on_cursor && left + at == access.column {
                theme.selected
            } else {
                style_of(level, theme)
            };
            spans.push(Span::raw(" "));
            spans.push(Span::styled(
                format!("{:<width$}", level.name(), width = column_width - 1),
                style,
            ));
        }
        lines.push(Line::from(spans));
    }
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

impl Access {
    /// How many rows are shown.
    pub fn len_shown(&self) -> u64 {
        self.shown.len() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_follows_the_cursor_column() {
        // 5 columns of 11 fit in 55.
        assert_eq!(window(0, 0, 20, 55, 11), (0, 5));
        assert_eq!(window(0, 7, 20, 55, 11), (3, 5));
        assert_eq!(window(3, 4, 20, 55, 11), (3, 5));
        assert_eq!(window(3, 1, 20, 55, 11), (1, 5));
        assert_eq!(window(0, 19, 20, 55, 11), (15, 5));
        assert_eq!(window(0, 0, 2, 55, 11), (0, 2));
        assert_eq!(window(0, 0, 0, 55, 11), (0, 0));
        assert_eq!(window(0, 0, 20, 55, 21), (0, 2));
    }
}
