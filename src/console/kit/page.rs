//! A page of lines (a person's, an offboarding), drawn by its screen: each
//! line whole, wrapped to the width, the cursor's line highlighted and
//! kept on screen.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph};

use super::view::ViewCx;
use super::wrap::wrap;

/// Draws `lines` (each a line of the page, `None` for one not yet there)
/// in `block`, the line at `cursor` highlighted and scrolled into view.
pub fn draw(
    frame: &mut Frame,
    area: Rect,
    block: Block,
    lines: impl IntoIterator<Item = Option<Line<'static>>>,
    cursor: u64,
    view: &ViewCx,
) {
    let theme = view.theme;
    let width = usize::from(area.width.saturating_sub(2));
    let height = usize::from(area.height.saturating_sub(2));
    let mut wrapped: Vec<Line<'static>> = Vec::new();
    let mut cursor_end = 0;
    for (at, line) in (0u64..).zip(lines) {
        let Some(mut line) = line else {
            wrapped.push(Line::styled("…", theme.dim));
            continue;
        };
        let selected = at == cursor;
        if selected {
            line = line.style(theme.selected);
        }
        wrapped.extend(wrap(vec![line], width));
        if selected {
            cursor_end = wrapped.len();
        }
    }
    let scroll = u16::try_from(cursor_end.saturating_sub(height)).unwrap_or(u16::MAX);
    frame.render_widget(Paragraph::new(wrapped).block(block).scroll((scroll, 0)), area);
}
