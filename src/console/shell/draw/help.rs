//! The help: every key that works on the screen (from the keymap, so it
//! never drifts from behaviour), where the log file is, and the commands.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph};

use crate::console::kit::theme::Theme;
use crate::console::shell::App;
use crate::console::shell::command;
use crate::console::widgets::popup;

/// Columns of the help box, borders included.
const WIDTH: u16 = 76;

/// The help's lines, wrapped to `width` columns.
pub fn lines(app: &App, theme: &Theme, width: usize) -> Vec<Line<'static>> {
    let mut lines: Vec<Line<'static>> = app
        .keymap
        .help(app.shown())
        .into_iter()
        .map(|(keys, what, action)| {
            let mut spans = vec![
                Span::styled(format!(" {keys:<16}"), theme.accent),
                Span::raw(what),
            ];
            if let Some(reason) = app.unavailable(action) {
                spans.push(Span::styled(format!("  (unavailable: {reason})"), theme.dim));
            }
            Line::from(spans)
        })
        .collect();
    lines.push(Line::raw(""));
    lines.push(Line::from(vec![
        Span::styled(" log file        ", theme.dim),
        Span::raw(app.overlays.log_path.display().to_string()),
    ]));
    lines.push(Line::raw(""));
    lines.push(Line::from(vec![
        Span::styled(" :  Tab ↑ ↓     ", theme.accent),
        Span::raw("Tab completes a command or its argument; ↑/↓ walk what was run"),
    ]));
    for (name, what) in command::commands() {
        if command::is_alias(name) {
            continue;
        }
        lines.push(Line::from(vec![
            Span::styled(format!(" :{name:<15}"), theme.accent),
            Span::raw(what),
        ]));
    }
    // A long log path goes on under itself rather than being cut, each
    // line ending at one of its slashes.
    crate::console::kit::wrap::wrap(lines, width)
}

/// Where the help is drawn, for lines of text.
fn area(screen: Rect, lines: usize) -> Rect {
    let height = u16::try_from(lines + 2).unwrap_or(u16::MAX);
    popup::centered(screen, screen.width.min(WIDTH), height)
}

/// How far the help scrolls: to where its last line is at the bottom.
pub fn scroll_limit(app: &App) -> u16 {
    let screen = Rect::new(0, 0, app.window.size.0, app.window.size.1);
    let inner = usize::from(screen.width.min(WIDTH).saturating_sub(2));
    let count = lines(app, &Theme::plain(), inner).len();
    let shown = usize::from(area(screen, count).height.saturating_sub(2));
    u16::try_from(count.saturating_sub(shown)).unwrap_or(u16::MAX)
}

pub fn draw(frame: &mut Frame, app: &App, theme: &Theme) {
    let screen = frame.area();
    let inner = usize::from(screen.width.min(WIDTH).saturating_sub(2));
    let lines = lines(app, theme, inner);
    let area = area(screen, lines.len());
    popup::clear(frame, area);
    let title = format!(" keys: {} ", app.screens.shown(app.shown()).title());
    frame.render_widget(
        Paragraph::new(lines).scroll((app.overlays.scroll.help, 0)).block(
            Block::bordered()
                .title(title)
                .title_bottom(Line::styled(
                    " ↑/↓ PgUp/PgDn scroll · any other key closes this help ",
                    theme.dim,
                ))
                .border_type(BorderType::Rounded),
        ),
        area,
    );
}
