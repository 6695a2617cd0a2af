//! The detail pane: the fields of the selected row as its list describes
//! them, or the raw JSON (`v`).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph};

use crate::console::kit::theme::Theme;
use crate::console::kit::view::ViewCx;
use crate::console::kit::wrap::wrap;
use crate::console::shell::App;
use crate::text::printable;

pub fn draw(frame: &mut Frame, area: Rect, app: &App, view: &ViewCx) {
    let theme = view.theme;
    let (title, lines) = app
        .screens
        .shown(app.shown())
        .detail(app.overlays.detail_json, view)
        .unwrap_or_else(|| {
            (
                "detail".into(),
                vec![Line::styled(" nothing selected", theme.dim)],
            )
        });
    let shown_as = if app.overlays.detail_json {
        "JSON (v: fields)"
    } else {
        "fields (v: JSON)"
    };
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .title(Line::from(vec![
            Span::styled(format!(" {} ", printable(&title)), theme.accent),
            Span::styled(format!("{shown_as} "), theme.dim),
        ]));
    let lines = wrap(lines, usize::from(area.width.saturating_sub(2)));
    // Never past the last line, whatever the size was when J was pressed.
    let last = lines
        .len()
        .saturating_sub(usize::from(area.height.saturating_sub(2)));
    let scroll = app
        .overlays
        .scroll
        .detail
        .min(u16::try_from(last).unwrap_or(u16::MAX));
    // Wrapped above, to the pane's width: ratatui need not wrap again.
    frame.render_widget(Paragraph::new(lines).block(block).scroll((scroll, 0)), area);
}

/// How far the detail scrolls: to where its last line is at the bottom.
pub fn scroll_limit(app: &App) -> u16 {
    let Some(area) = area(app) else {
        return 0;
    };
    let theme = Theme::plain();
    let view = ViewCx {
        theme: &theme,
        zone: app.context.zone,
        now: app.window.now,
    };
    let lines = app
        .screens
        .shown(app.shown())
        .detail(app.overlays.detail_json, &view)
        .map(|(_, lines)| wrap(lines, usize::from(area.width.saturating_sub(2))).len())
        .unwrap_or(0);
    u16::try_from(lines.saturating_sub(usize::from(area.height.saturating_sub(2)))).unwrap_or(u16::MAX)
}

/// Where the detail is drawn: over the table, or in its pane.
pub fn area(app: &App) -> Option<Rect> {
    let screen = Rect::new(0, 0, app.window.size.0, app.window.size.1);
    let areas = super::layout::areas(screen);
    if app.overlays.detail_open {
        return Some(Rect::new(
            0,
            areas.table.y,
            screen.width,
            areas.footer.y.saturating_sub(areas.table.y),
        ));
    }
    areas.detail
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::kit::detail::field;

    #[test]
    fn a_long_value_goes_on_under_itself() {
        let theme = Theme::plain();
        let line = field("target", "email alpha@example.com, beta@example.com", &theme);
        let wrapped: Vec<String> = wrap(vec![line], 36)
            .iter()
            .map(|line| line.spans.iter().map(|span| span.content.as_ref()).collect())
            .collect();
        assert_eq!(
            wrapped,
            [
                " target         email",
                "                alpha@example.com,",
                "                beta@example.com"
            ]
        );
        let id = field("id", "d12078af-b683-421e-b013-89d07bae2212", &theme);
        let wrapped: Vec<String> = wrap(vec![id], 36)
            .iter()
            .map(|line| line.spans.iter().map(|span| span.content.as_ref()).collect())
            .collect();
        assert_eq!(
            wrapped,
            [
                " id             d12078af-b683-421e-b",
                "                013-89d07bae2212"
            ],
            "a word longer than the row is cut where the row ends"
        );
    }
}
