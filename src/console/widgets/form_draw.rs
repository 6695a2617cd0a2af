//! Drawing a form: its fields, each with its error beside it, a preview
//! under them, the hint, and "Discard changes?" when it is asked.

use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph};

use super::super::popup::{LABEL, WIDTH, centered, clear, wrap};
use super::super::question::{self, Answer};
use super::{Field, Form, Value};
use crate::console::kit::fit::fit_line;
use crate::console::kit::theme::Theme;

/// Draws a form in the middle of the screen, with the lines of `preview`
/// under its fields. On a screen too short for it all, the fields and the
/// preview scroll inside the box to keep the focused field in view, while
/// the form's error stays at its top and the hint at its bottom; a line
/// too long for the box is wrapped (a choice) or cut with an ellipsis.
pub fn draw(frame: &mut Frame, form: &Form, preview: Vec<Line<'static>>, theme: &Theme) {
    let screen = frame.area();
    let width = (WIDTH as u16 + 4).min(screen.width);
    let inner_width = usize::from(width.saturating_sub(2));
    // What a value has beside its label ("› Label            value").
    let value_room = inner_width.saturating_sub(LABEL + 3).max(1);
    let mut head = error_lines(form, inner_width, theme);
    let FieldLines {
        mut lines,
        cursor,
        focus_line,
        focus_end,
    } = field_lines(form, value_room, theme);
    if !preview.is_empty() {
        lines.push(Line::raw(""));
        lines.extend(preview);
    }
    let hint = if form.saving {
        "saving…"
    } else {
        "Tab next field · ←/→ change a choice · Enter or Ctrl-S save · Esc cancel"
    };
    let hint = Line::styled(format!(" {hint}"), theme.dim);
    let wanted = head.len() + lines.len() + 2 + 2;
    let area = centered(screen, width, u16::try_from(wanted).unwrap_or(u16::MAX));
    clear(frame, area);
    let inner = usize::from(area.height.saturating_sub(2));
    // The hint, with a blank line over it where there is room; the error
    // at the top, as much of it as leaves a line for the fields.
    let mut foot = vec![hint];
    if inner >= lines.len() + head.len() + 2 || inner >= 6 {
        foot.insert(0, Line::raw(""));
    }
    head.truncate(inner.saturating_sub(foot.len() + 1));
    let room = inner.saturating_sub(head.len() + foot.len());
    let offset = scroll_offset(lines.len(), room, focus_line, focus_end);
    let block = form_block(form, offset > 0, offset + room < lines.len(), theme);
    let cut = |lines: Vec<Line<'static>>| -> Vec<Line<'static>> {
        lines
            .into_iter()
            .map(|line| fit_line(line, inner_width))
            .collect()
    };
    let head_lines = head.len();
    let mut all = cut(head);
    all.extend(cut(lines.into_iter().skip(offset).take(room).collect()));
    // The hint sits at the bottom of the box, whatever is above it.
    let filler = inner.saturating_sub(all.len() + foot.len());
    all.extend(std::iter::repeat_n(Line::raw(""), filler));
    all.extend(cut(foot));
    frame.render_widget(Paragraph::new(all).block(block), area);
    if form.confirm_discard {
        discard_question(frame, form, area, theme);
        return;
    }
    let cursor = cursor.and_then(|(row, column)| {
        let row = row.checked_sub(offset).filter(|row| *row < room)? + head_lines;
        Some((u16::try_from(row).ok()?, u16::try_from(column).ok()?))
    });
    if let Some((row, column)) = cursor
        && row + 1 < area.height
        && column + 1 < area.width
    {
        frame.set_cursor_position((area.x + 1 + column, area.y + 1 + row));
    }
}

/// The form's error, wrapped, over its fields (with a blank line under
/// it); none without an error.
fn error_lines(form: &Form, inner_width: usize, theme: &Theme) -> Vec<Line<'static>> {
    let mut head = Vec::new();
    if let Some(error) = &form.error {
        for line in wrap(&crate::text::printable(error), inner_width.saturating_sub(1)) {
            head.push(Line::styled(format!(" {line}"), theme.error));
        }
        head.push(Line::raw(""));
    }
    head
}

/// The lines of a form's fields, and where in them the focused field is.
#[derive(Default)]
struct FieldLines {
    lines: Vec<Line<'static>>,
    /// The text cursor (line, column) in the focused text field.
    cursor: Option<(usize, usize)>,
    /// The focused field's first line, and its last (its error's).
    focus_line: usize,
    focus_end: usize,
}

/// Each field shown: its label and value, and its error under it.
fn field_lines(form: &Form, value_room: usize, theme: &Theme) -> FieldLines {
    let mut fields = FieldLines::default();
    for (index, field) in form.fields.iter().enumerate() {
        if field.hidden {
            continue;
        }
        let focused = index == form.focus;
        let marker = if focused { "›" } else { " " };
        let style = if focused { theme.accent } else { theme.dim };
        let label = Span::styled(format!("{marker} {:<LABEL$} ", field.label), style);
        if focused {
            fields.focus_line = fields.lines.len();
        }
        fields.push_value(field, label, focused, value_room, theme);
        if let Some(error) = &field.error {
            for line in wrap(&crate::text::printable(error), value_room) {
                fields.lines.push(under(&line, theme.error));
            }
        }
        if focused {
            fields.focus_end = fields.lines.len().saturating_sub(1);
        }
    }
    fields
}

impl FieldLines {
    /// A field's label and value: choices too long for a line one a line,
    /// the focused text around its cursor, a select with what matches
    /// what is typed.
    fn push_value(
        &mut self,
        field: &Field,
        label: Span<'static>,
        focused: bool,
        value_room: usize,
        theme: &Theme,
    ) {
        let lines = &mut self.lines;
        match &field.value {
            Value::Choices {
                options, chosen, at, ..
            } if field.shown().chars().count() > value_room => {
                // Too long for one line: a line each, under the label.
                let count = chosen.iter().filter(|chosen| **chosen).count();
                lines.push(Line::from(vec![
                    label,
                    Span::raw(format!("{count} chosen · ←/→ move, Space chooses")),
                ]));
                if focused {
                    self.focus_line = lines.len() + *at;
                }
                for (index, ((_, option), chosen)) in options.iter().zip(chosen).enumerate() {
                    let mark = if *chosen { "■" } else { "□" };
                    let pointer = if focused && index == *at { "›" } else { " " };
                    lines.push(Line::raw(format!("  {:<LABEL$} {pointer}{mark} {option}", "")));
                }
            }
            Value::Text { input, .. } if focused => {
                // The part of the text around the cursor, and the cursor in it.
                let scroll = input.visual_scroll(value_room.saturating_sub(1));
                let visible: String = input.value().chars().skip(scroll).collect();
                self.cursor = Some((
                    lines.len(),
                    LABEL + 3 + input.visual_cursor().saturating_sub(scroll),
                ));
                lines.push(Line::from(vec![label, Span::raw(visible)]));
            }
            Value::Text { .. } | Value::Choices { .. } => {
                lines.push(Line::from(vec![label, Span::raw(field.shown())]));
            }
            Value::Select { options, chosen } => {
                let value = match field.typed.is_empty() {
                    true => format!("◂ {} ▸", field.shown()),
                    false => format!("◂ {} ▸  search: {}", field.shown(), field.typed),
                };
                let mut parts = wrap(&value, value_room).into_iter();
                lines.push(Line::from(vec![
                    label,
                    Span::raw(parts.next().unwrap_or_default()),
                ]));
                lines.extend(parts.map(|part| under(&part, ratatui::style::Style::new())));
                // What is typed lists what matches, the chosen one marked;
                // ←/→ go through these.
                if focused && !field.typed.is_empty() {
                    lines.extend(matches_shown(options, *chosen, &field.typed, value_room, theme));
                }
            }
        }
    }
}

/// The first line shown of `lines` in `room`: the fields scroll to keep
/// the focused one (and its error) in view.
fn scroll_offset(lines: usize, room: usize, focus_line: usize, focus_end: usize) -> usize {
    if lines > room {
        let centred = focus_line.saturating_sub(room.saturating_sub(1) / 2);
        let showing_end = focus_end.saturating_sub(room.saturating_sub(1));
        centred.max(showing_end).min(focus_line).min(lines - room)
    } else {
        0
    }
}

/// The form's box, titled, with "▲ more" and "▼ more" where lines are
/// scrolled out above and below.
fn form_block(form: &Form, more_above: bool, more_below: bool, theme: &Theme) -> Block<'static> {
    let mut block = Block::bordered()
        .border_type(BorderType::Rounded)
        .title(format!(" {} ", form.title));
    if more_above {
        block = block.title(Line::styled(" ▲ more ", theme.dim).right_aligned());
    }
    if more_below {
        block = block.title_bottom(Line::styled(" ▼ more ", theme.dim).right_aligned());
    }
    block
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

/// The matches listed under a choice being searched: a few around the one
/// chosen, and how many there are.
fn matches_shown(
    options: &[(String, String)],
    chosen: usize,
    typed: &str,
    room: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    const SHOWN: usize = 6;
    let found = super::matching(options, typed);
    if found.is_empty() {
        return vec![under(&format!("nothing matches \"{typed}\""), theme.error)];
    }
    let at = found.iter().position(|&index| index == chosen).unwrap_or(0);
    let first = at
        .saturating_sub(SHOWN / 2)
        .min(found.len().saturating_sub(SHOWN));
    let mut lines: Vec<Line<'static>> = found
        .iter()
        .skip(first)
        .take(SHOWN)
        .map(|&index| {
            let label = crate::text::printable(&options[index].1).into_owned();
            let (pointer, style) = match index == chosen {
                true => ("›", theme.accent),
                false => (" ", ratatui::style::Style::new()),
            };
            under(
                &crate::console::kit::fit::fit(&format!("{pointer} {label}"), room),
                style,
            )
        })
        .collect();
    lines.push(under(
        &format!("{} of {} match · ←/→ go through them", found.len(), options.len()),
        theme.dim,
    ));
    lines
}

/// A line under a field's label, in its value's column.
fn under(text: &str, style: ratatui::style::Style) -> Line<'static> {
    Line::styled(format!("  {:<LABEL$} {text}", ""), style)
}
