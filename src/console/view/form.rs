//! Forms and confirmations, drawn over the screen.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph};

use super::theme::Theme;
use crate::console::form::{Form, Value};
use crate::console::switcher::{Scope, Switcher};

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
/// Text columns inside a form's box.
const WIDTH: usize = 72;

/// Splits text into lines of at most `width` characters, at spaces where
/// it can.
pub(super) fn wrap(text: &str, width: usize) -> Vec<String> {
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

/// What a subscription form's schedule would do: its summary and next
/// deliveries, or a warning when none is left.
pub fn preview(form: &Form, now: chrono::DateTime<chrono::Utc>, theme: &Theme) -> Vec<Line<'static>> {
    let Some(schedule) = crate::console::subscription_form::schedule(form) else {
        return vec![Line::styled(
            " preview: the schedule is not complete yet",
            theme.dim,
        )];
    };
    let mut lines = vec![Line::from(vec![
        Span::styled(format!(" {:<LABEL$}  ", "Preview"), theme.accent),
        Span::raw(schedule.summary()),
    ])];
    let next = schedule.occurrences_after(now + crate::schedule::DELIVERY_LEAD, 5);
    if next.is_empty() {
        lines.push(Line::styled(
            "   no delivery is left in this schedule: the server will refuse it",
            theme.warning,
        ));
    }
    for at in next {
        lines.push(Line::raw(format!(
            "   {}  {}",
            at.format("%a %Y-%m-%d %H:%M UTC"),
            super::format::relative(at, now)
        )));
    }
    lines
}

pub fn draw(frame: &mut Frame, form: &Form, preview: Vec<Line<'static>>, theme: &Theme) {
    let mut lines = Vec::new();
    if let Some(error) = &form.error {
        for line in wrap(error, WIDTH) {
            lines.push(Line::styled(format!(" {line}"), theme.error));
        }
        lines.push(Line::raw(""));
    }
    let mut cursor = None;
    let mut focus_line = 0;
    for (index, field) in form.fields.iter().enumerate() {
        let focused = index == form.focus;
        let marker = if focused { "›" } else { " " };
        let value = match &field.value {
            Value::Select { .. } if !field.typed.is_empty() => {
                format!("◂ {} ▸  search: {}", field.shown(), field.typed)
            }
            Value::Select { .. } => format!("◂ {} ▸", field.shown()),
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
            for line in wrap(error, WIDTH - LABEL - 3) {
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
    let area = centered(screen, WIDTH as u16 + 4, lines.len() as u16 + 2);
    frame.render_widget(Clear, area);
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
    if let Some((row, column)) = cursor.map(|(row, column)| (row.saturating_sub(offset), column))
        && row + 1 < area.height
        && column + 1 < area.width
    {
        frame.set_cursor_position((area.x + 1 + column, area.y + 1 + row));
    }
}

/// A question before a write; one that destroys something says no unless
/// `y` is pressed, so that Enter out of habit keeps everything.
pub fn confirm(frame: &mut Frame, question: &str, destructive: bool, theme: &Theme) {
    let mut lines: Vec<Line> = question
        .lines()
        .flat_map(|paragraph| wrap(paragraph, WIDTH - 2))
        .map(|line| Line::raw(format!(" {line}")))
        .collect();
    lines.push(Line::raw(""));
    let answers = if destructive {
        " y: yes · n, Esc or Enter: no"
    } else {
        " y or Enter: yes · n or Esc: no"
    };
    lines.push(Line::styled(answers, theme.dim));
    let area = centered(frame.area(), WIDTH as u16 + 2, lines.len() as u16 + 2);
    frame.render_widget(Clear, area);
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .border_style(theme.warning)
        .title(" Are you sure? ");
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// The member picker: the search line, the members that match, and the hint.
pub fn picker(frame: &mut Frame, picker: &crate::console::picker::Picker, theme: &Theme) {
    use crate::api::models::level;
    let screen = frame.area();
    let height = screen.height.saturating_sub(4).clamp(8, 30);
    let list_rows = height.saturating_sub(7) as usize;
    let mut lines = Vec::new();
    let cursor;
    match &picker.fallback {
        Some((input, reason)) => {
            for line in wrap(reason, WIDTH) {
                lines.push(Line::styled(format!(" {line}"), theme.warning));
            }
            lines.push(Line::raw(""));
            cursor = Some((lines.len() as u16, 11 + input.visual_cursor() as u16));
            lines.push(Line::from(vec![
                Span::styled(" user UUID ", theme.accent),
                Span::raw(input.value().to_string()),
            ]));
        }
        None => {
            cursor = Some((0, 9 + picker.query.visual_cursor() as u16));
            lines.push(Line::from(vec![
                Span::styled(" search ", theme.accent),
                Span::raw(picker.query.value().to_string()),
            ]));
            lines.push(Line::raw(""));
            match &picker.people {
                None => lines.push(Line::styled(" loading the organization's members…", theme.dim)),
                Some(_) => {
                    let shown = picker.shown();
                    let top = picker.cursor.saturating_sub(list_rows.saturating_sub(1));
                    for (at, member) in shown.iter().enumerate().skip(top).take(list_rows) {
                        let uuid = &member.user.uuid;
                        let in_role = picker.in_role.contains(uuid);
                        let mark = if in_role {
                            "[in role]"
                        } else if picker.chosen.contains(uuid) {
                            "[x]      "
                        } else {
                            "[ ]      "
                        };
                        let text = format!(
                            " {mark} {} <{}>  {}",
                            member.user.display_name(),
                            member.user.email,
                            level::name(member.level)
                        );
                        let style = if at == picker.cursor {
                            theme.selected
                        } else if in_role {
                            theme.dim
                        } else {
                            ratatui::style::Style::new()
                        };
                        lines.push(Line::styled(text, style));
                    }
                    if shown.is_empty() {
                        lines.push(Line::styled(" nobody matches", theme.dim));
                    }
                }
            }
        }
    }
    lines.push(Line::raw(""));
    if let Some(error) = &picker.error {
        lines.push(Line::styled(format!(" {error}"), theme.error));
    }
    let hint = if picker.saving {
        "assigning…".to_string()
    } else if picker.fallback.is_some() {
        "Enter assign · Esc cancel".to_string()
    } else {
        format!(
            "{} chosen · Tab choose · ↑/↓ move · Enter assign · Esc cancel",
            picker.chosen.len()
        )
    };
    lines.push(Line::styled(format!(" {hint}"), theme.dim));
    let area = centered(screen, WIDTH as u16 + 4, lines.len() as u16 + 2);
    frame.render_widget(Clear, area);
    let title = format!(" Assign people to {} ", picker.role_name);
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().border_type(BorderType::Rounded).title(title)),
        area,
    );
    if let Some((row, column)) = cursor
        && row + 1 < area.height
        && column + 1 < area.width
    {
        frame.set_cursor_position((area.x + 1 + column, area.y + 1 + row));
    }
}

/// The picker of `:ctx`, `:org` or `:project`.
pub fn switcher(frame: &mut Frame, switcher: &Switcher, theme: &Theme) {
    let screen = frame.area();
    let height = screen.height.saturating_sub(4).clamp(8, 30);
    let list_rows = height.saturating_sub(7) as usize;
    let noun = switcher.scope.noun();
    let mut lines = vec![
        Line::from(vec![
            Span::styled(" search ", theme.accent),
            Span::raw(switcher.query.value().to_string()),
        ]),
        Line::raw(""),
    ];
    match &switcher.choices {
        None => lines.push(Line::styled(format!(" loading the {noun}s…"), theme.dim)),
        Some(_) => {
            let shown = switcher.shown();
            let top = switcher.cursor.saturating_sub(list_rows.saturating_sub(1));
            for (at, choice) in shown.iter().enumerate().skip(top).take(list_rows) {
                let mark = if choice.id == switcher.current { "●" } else { " " };
                let text = match switcher.scope {
                    Scope::Profile if choice.id.is_empty() => {
                        format!(" {mark} (as started)  {}", choice.name)
                    }
                    Scope::Profile => format!(" {mark} {}  {}", choice.id, choice.name),
                    _ => format!(" {mark} {}  ({})", choice.name, choice.id),
                };
                let style = if at == switcher.cursor {
                    theme.selected
                } else {
                    ratatui::style::Style::new()
                };
                lines.push(Line::styled(text, style));
            }
            if shown.is_empty() && switcher.error.is_none() {
                lines.push(Line::styled(format!(" no {noun} matches"), theme.dim));
            }
        }
    }
    lines.push(Line::raw(""));
    if let Some(error) = &switcher.error {
        for line in wrap(error, WIDTH) {
            lines.push(Line::styled(format!(" {line}"), theme.error));
        }
    }
    lines.push(Line::styled(
        " type to search · ↑/↓ move · Enter switch · Esc cancel",
        theme.dim,
    ));
    let area = centered(screen, WIDTH as u16 + 4, lines.len() as u16 + 2);
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(lines).block(
            Block::bordered()
                .border_type(BorderType::Rounded)
                .title(format!(" Switch {noun} ")),
        ),
        area,
    );
    let column = 9 + switcher.query.visual_cursor() as u16;
    if column + 1 < area.width && area.height > 2 {
        frame.set_cursor_position((area.x + 1 + column, area.y + 1));
    }
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
}
