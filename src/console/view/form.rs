//! Forms and confirmations, drawn over the screen.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph, Wrap};

use super::theme::Theme;
use crate::console::form::{Form, Value};

/// A box of `width` by `height` in the middle of the screen.
fn centered(screen: Rect, width: u16, height: u16) -> Rect {
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

const LABEL: usize = 16;

pub fn draw(frame: &mut Frame, form: &Form, theme: &Theme) {
    let mut lines = Vec::new();
    if let Some(error) = &form.error {
        lines.push(Line::styled(format!(" {error}"), theme.error));
        lines.push(Line::raw(""));
    }
    let mut cursor = None;
    for (index, field) in form.fields.iter().enumerate() {
        let focused = index == form.focus;
        let marker = if focused { "›" } else { " " };
        let value = match &field.value {
            Value::Select { .. } => format!("◂ {} ▸", field.shown()),
            Value::Text { .. } => field.shown(),
        };
        if focused && let Value::Text { input, .. } = &field.value {
            cursor = Some((lines.len() as u16, (LABEL + 3 + input.visual_cursor()) as u16));
        }
        let style = if focused { theme.accent } else { theme.dim };
        lines.push(Line::from(vec![
            Span::styled(format!("{marker} {:<LABEL$} ", field.label), style),
            Span::raw(value),
        ]));
        if let Some(error) = &field.error {
            lines.push(Line::styled(format!("  {:<LABEL$} {error}", ""), theme.error));
        }
    }
    lines.push(Line::raw(""));
    let hint = if form.saving {
        "saving…".to_string()
    } else if form.confirm_discard {
        "unsaved changes: Esc again discards them, any other key goes on editing".to_string()
    } else {
        "Tab next field · ←/→ change a choice · Enter or Ctrl-S save · Esc cancel".to_string()
    };
    lines.push(Line::styled(
        format!(" {hint}"),
        if form.confirm_discard {
            theme.warning
        } else {
            theme.dim
        },
    ));
    let screen = frame.area();
    let area = centered(screen, 76, lines.len() as u16 + 2);
    frame.render_widget(Clear, area);
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .title(format!(" {} ", form.title));
    frame.render_widget(Paragraph::new(lines).block(block), area);
    if let Some((row, column)) = cursor
        && row + 1 < area.height
        && column + 1 < area.width
    {
        frame.set_cursor_position((area.x + 1 + column, area.y + 1 + row));
    }
}

pub fn confirm(frame: &mut Frame, question: &str, theme: &Theme) {
    let lines = vec![
        Line::raw(format!(" {question}")),
        Line::raw(""),
        Line::styled(" y or Enter: yes · n or Esc: no", theme.dim),
    ];
    let area = centered(frame.area(), 72, 6);
    frame.render_widget(Clear, area);
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .border_style(theme.warning)
        .title(" Are you sure? ");
    frame.render_widget(
        Paragraph::new(lines).block(block).wrap(Wrap { trim: false }),
        area,
    );
}
