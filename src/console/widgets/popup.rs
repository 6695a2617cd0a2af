//! What every box drawn over the screen shares: its place in the middle,
//! text wrapped to its width, a clean edge over wide characters, and the
//! confirmation asked before a write.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, BorderType, Clear, Paragraph};

use super::question::Answer;
use crate::console::kit::theme::Theme;

/// The width of a form's labels.
pub const LABEL: usize = 16;
/// Text columns inside a box.
pub const WIDTH: usize = 72;

/// A box of `width` by `height` in the middle of the screen.
pub fn centered(screen: Rect, width: u16, height: u16) -> Rect {
    let [_, vertical, _] = Layout::vertical([
        Constraint::Fill(1),
        Constraint::Length(height.min(screen.height)),
        Constraint::Fill(1),
    ])
    .areas(screen);
    let [_, area, _] = Layout::horizontal([
        Constraint::Fill(1),
        Constraint::Length(width.min(screen.width)),
        Constraint::Fill(1),
    ])
    .areas(vertical);
    area
}

/// Empties `area` for a box drawn over whatever is there. A wide character
/// (emoji, CJK) just left of the box would reach into its left border: the
/// terminal draws both of its columns and ratatui then skips the border's
/// cell, so the border is lost. Such a character gives way to a space, and
/// so does the second half of one the box cut at its right edge.
pub fn clear(frame: &mut Frame, area: Rect) {
    use unicode_width::UnicodeWidthStr;
    frame.render_widget(Clear, area);
    let buffer = frame.buffer_mut();
    let bounds = buffer.area;
    for y in area.top()..area.bottom() {
        if area.x > bounds.x {
            let cell = &mut buffer[(area.x - 1, y)];
            if cell.symbol().width() > 1 {
                cell.set_symbol(" ");
            }
        }
        if area.right() < bounds.right() {
            let cell = &mut buffer[(area.right(), y)];
            if cell.symbol().is_empty() {
                cell.set_symbol(" ");
            }
        }
    }
}

/// Splits text into lines of at most `width` characters, at spaces where
/// it can.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
        while line.chars().count() > width {
            let rest: String = line.chars().skip(width).collect();
            lines.push(line.chars().take(width).collect());
            line = rest;
        }
    }
    lines.push(line);
    lines
}

/// A question before a write, with its answers drawn under it and the one
/// Enter gives highlighted (see [`super::question`]).
pub fn confirm(frame: &mut Frame, question: &str, highlighted: Answer, theme: &Theme) {
    let mut lines: Vec<Line> = question
        .lines()
        // Names in a question come from a server: shown, never sent raw.
        .flat_map(|paragraph| wrap(&crate::text::printable(paragraph), WIDTH - 2))
        .map(|line| Line::raw(format!(" {line}")))
        .collect();
    lines.push(Line::raw(""));
    lines.push(super::question::answers(highlighted, theme));
    let height = (lines.len() as u16 + 2).min(frame.area().height);
    let area = centered(frame.area(), WIDTH as u16 + 2, height);
    clear(frame, area);
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .border_style(theme.warning)
        .title(" Are you sure? ");
    // A question taller than the screen keeps its answers in sight.
    let inner = height.saturating_sub(2);
    let scroll = (lines.len() as u16).saturating_sub(inner);
    frame.render_widget(Paragraph::new(lines).block(block).scroll((scroll, 0)), area);
}

#[cfg(test)]
mod tests {
    use super::wrap;

    #[test]
    fn long_text_wraps_at_spaces_and_long_words_are_cut() {
        assert_eq!(wrap("one two three", 7), ["one two", "three"]);
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap("", 5), [""]);
    }

    #[test]
    fn a_question_shows_a_server_s_text_escaped() {
        let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(100, 20)).unwrap();
        let theme = crate::console::kit::theme::Theme::plain();
        terminal
            .draw(|frame| {
                super::confirm(
                    frame,
                    "Pause #1 \"\u{1b}[2Jgone\u{202e}\"?",
                    super::Answer::Yes,
                    &theme,
                )
            })
            .unwrap();
        let buffer = terminal.backend().buffer();
        let shown: String = buffer.content().iter().map(|cell| cell.symbol()).collect();
        assert!(
            !shown.contains('\u{1b}') && !shown.contains('\u{202e}'),
            "{shown}"
        );
        assert!(shown.contains("gone"), "{shown}");
    }
}
