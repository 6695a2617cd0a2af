//! Drawing a form: its fields, each with its error beside it, a preview
//! under them, the hint, and "Discard changes?" when it is asked.

use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph};

use super::super::popup::{LABEL, WIDTH, centered, clear, wrap};
use super::super::question::{self, Answer};
use super::{Form, Value};
use crate::console::view::theme::Theme;

/// Draws a form in the middle of the screen, with the lines of `preview`
/// under its fields.
pub fn draw(frame: &mut Frame, form: &Form, preview: Vec<Line<'static>>, theme: &Theme) {
    let mut lines = Vec::new();
    if let Some(error) = &form.error {
        for line in wrap(&crate::text::printable(error), WIDTH) {
            lines.push(Line::styled(format!(" {line}"), theme.error));
        }
        lines.push(Line::raw(""));
    }
    let mut cursor = None;
    let mut focus_line = 0;
    for (index, field) in form.fields.iter().enumerate() {
        if field.hidden {
            continue;
        }
        let focused = index == form.focus;
        let marker = if focused { "›" } else { " " };
        let value = match &field.value {
            Value::Select { .. } if !field.typed.is_empty() => {
                format!("◂ {} ▸  search: {}", field.shown(), field.typed)
            }
            Value::Select { .. } => format!("◂ {} ▸", field.shown()),
            Value::Choices {
                options, chosen, at, ..
            } if field.shown().chars().count() > WIDTH - LABEL - 3 => {
                // Too long for one line: a line each, under the label.
                let count = chosen.iter().filter(|chosen| **chosen).count();
                let style = if focused { theme.accent } else { theme.dim };
                lines.push(Line::from(vec![
                    Span::styled(format!("{marker} {:<LABEL$} ", field.label), style),
                    Span::raw(format!("{count} chosen · ←/→ move, Space chooses")),
                ]));
                if focused {
                    focus_line = u16::try_from(lines.len() + *at).unwrap_or(u16::MAX);
                }
                for (index, ((_, label), chosen)) in options.iter().zip(chosen).enumerate() {
                    let mark = if *chosen { "■" } else { "□" };
                    let pointer = if focused && index == *at { "›" } else { " " };
                    lines.push(Line::raw(format!("  {:<LABEL$} {pointer}{mark} {label}", "")));
                }
                if let Some(error) = &field.error {
                    for line in wrap(&crate::text::printable(error), WIDTH - LABEL - 3) {
                        lines.push(Line::styled(format!("  {:<LABEL$} {line}", ""), theme.error));
                    }
                }
                continue;
            }
            Value::Text { .. } | Value::Choices { .. } => field.shown(),
        };
        if focused && let Value::Text { input, .. } = &field.value {
            cursor = Some((lines.len() as u16, (LABEL + 3 + input.visual_cursor()) as u16));
        }
        if focused {
            focus_line = lines.len() as u16;
        }
        let style = if focused { theme.accent } else { theme.dim };
        lines.push(Line::from(vec![
            Span::styled(format!("{marker} {:<LABEL$} ", field.label), style),
            Span::raw(value),
        ]));
        if let Some(error) = &field.error {
            for line in wrap(&crate::text::printable(error), WIDTH - LABEL - 3) {
                lines.push(Line::styled(format!("  {:<LABEL$} {line}", ""), theme.error));
            }
        }
    }
    if !preview.is_empty() {
        lines.push(Line::raw(""));
        lines.extend(preview);
    }
    lines.push(Line::raw(""));
    let hint = if form.saving {
        "saving…"
    } else {
        "Tab next field · ←/→ change a choice · Enter or Ctrl-S save · Esc cancel"
    };
    lines.push(Line::styled(format!(" {hint}"), theme.dim));
    let screen = frame.area();
    let area = centered(screen, WIDTH as u16 + 4, lines.len() as u16 + 2);
    clear(frame, area);
    // On a small screen the form scrolls to keep the focused field in view.
    let inner = area.height.saturating_sub(2);
    let total = lines.len() as u16;
    let offset = if total > inner {
        focus_line.saturating_sub(inner / 2).min(total - inner)
    } else {
        0
    };
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .title(format!(" {} ", form.title));
    frame.render_widget(Paragraph::new(lines).block(block).scroll((offset, 0)), area);
    if form.confirm_discard {
        discard_question(frame, form, area, theme);
        return;
    }
    if let Some((row, column)) = cursor.map(|(row, column)| (row.saturating_sub(offset), column))
        && row + 1 < area.height
        && column + 1 < area.width
    {
        frame.set_cursor_position((area.x + 1 + column, area.y + 1 + row));
    }
}

/// "Discard changes?" under the form (over it where there is no room),
/// naming the fields changed.
fn discard_question(frame: &mut Frame, form: &Form, under: ratatui::layout::Rect, theme: &Theme) {
    let changed: Vec<&str> = form.changes().iter().map(|(label, _, _)| *label).collect();
    let mut lines: Vec<Line> = wrap(
        &format!("What was typed in {} is lost.", changed.join(", ")),
        WIDTH - 12,
    )
    .into_iter()
    .map(|line| Line::raw(format!(" {line}")))
    .collect();
    lines.push(Line::raw(""));
    lines.push(question::answers(Answer::No, theme));
    let height = lines.len() as u16 + 2;
    let mut area = centered(frame.area(), WIDTH as u16 - 8, height);
    if under.bottom() + height <= frame.area().bottom() {
        area.y = under.bottom();
    }
    clear(frame, area);
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .border_style(theme.warning)
        .title(" Discard changes? ");
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
