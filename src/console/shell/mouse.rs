//! The mouse, as lazygit and k9s users expect it: a click on a tab shows
//! it, a click on a row selects it (and on the row already selected, opens
//! it, as Enter does), the wheel scrolls the table or the detail pane under
//! it. Only on the plain screen: a form, a question or a popup takes keys
//! alone. Off with `--no-mouse` or `mouse = false`.

use ratatui::crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};

use super::draw::layout;
use super::{App, Effect, Mode};

/// Rows one turn of the wheel moves.
const WHEEL_ROWS: i64 = 3;
/// The table's top border and its column header, above the first row.
const ABOVE_ROWS: u16 = 2;

impl App {
    pub(super) fn mouse(&mut self, event: MouseEvent) -> Vec<Effect> {
        // A terminal may report clicks it was never asked for.
        if !self.context.mouse || !matches!(self.mode, Mode::Normal) {
            return Vec::new();
        }
        let areas = layout::areas(Rect::new(0, 0, self.window.size.0, self.window.size.1));
        let at = Position::new(event.column, event.row);
        let over_detail = self.has_detail_pane() && areas.detail.is_some_and(|detail| detail.contains(at));
        match event.kind {
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                let down = event.kind == MouseEventKind::ScrollDown;
                self.window.dirty = true;
                if over_detail {
                    self.overlays.scroll.detail = if down {
                        let last = super::draw::detail::scroll_limit(self);
                        self.overlays
                            .scroll
                            .detail
                            .saturating_add(WHEEL_ROWS as u16)
                            .min(last)
                    } else {
                        self.overlays.scroll.detail.saturating_sub(WHEEL_ROWS as u16)
                    };
                    return Vec::new();
                }
                if areas.table.contains(at) {
                    return self.move_by(if down { WHEEL_ROWS } else { -WHEEL_ROWS });
                }
                Vec::new()
            }
            MouseEventKind::Down(MouseButton::Left) => {
                // The tabs are the header's second line.
                if areas.header.height >= 2 && event.row == areas.header.y + 1 {
                    return match super::draw::tab_at(self, event.column) {
                        Some(tab) => {
                            self.window.dirty = true;
                            self.switch(tab)
                        }
                        None => Vec::new(),
                    };
                }
                let first = areas.table.y + ABOVE_ROWS;
                let last = areas.table.y + areas.table.height.saturating_sub(1);
                if !areas.table.contains(at) || event.row < first || event.row >= last {
                    return Vec::new();
                }
                let table = self.screens.shown(self.shown());
                let position = table.top() + u64::from(event.row - first);
                if position >= table.len() {
                    return Vec::new();
                }
                self.window.dirty = true;
                if position == table.cursor() {
                    return self.open();
                }
                self.move_by(position as i64 - table.cursor() as i64)
            }
            _ => Vec::new(),
        }
    }
}
