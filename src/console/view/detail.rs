//! The detail pane: the fields of the selected row as its list describes
//! them, or the raw JSON (`v`); and the pieces lists build their detail of.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph};

use crate::console::app::App;
use crate::console::kit::theme::Theme;
use crate::console::kit::view::ViewCx;
// The pieces a detail is built of are the kit's, for the screens below.
pub use crate::console::kit::detail::{field, heading, marked, optional, user_lines};
use crate::text::printable;

pub fn draw(frame: &mut Frame, area: Rect, app: &App, view: &ViewCx) {
    let theme = view.theme;
    let (title, lines) = app
        .screens
        .get(app.shown())
        .detail(app.detail_json, view)
        .unwrap_or_else(|| {
            (
                "detail".into(),
                vec![Line::styled(" nothing selected", theme.dim)],
            )
        });
    let shown_as = if app.detail_json {
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
    let scroll = app.detail_scroll.min(u16::try_from(last).unwrap_or(u16::MAX));
    // Wrapped above, to the pane's width: ratatui need not wrap again.
    frame.render_widget(Paragraph::new(lines).block(block).scroll((scroll, 0)), area);
}

/// Lines as the pane shows them in `width` columns: a line too long goes
/// on over the next ones, at a space where it can (else after a slash), indented to where its
/// value starts (after a field's name), so that the value reads as one.
pub fn wrap(lines: Vec<Line<'static>>, width: usize) -> Vec<Line<'static>> {
    lines
        .into_iter()
        .flat_map(|line| wrap_line(line, width))
        .collect()
}

fn wrap_line(line: Line<'static>, width: usize) -> Vec<Line<'static>> {
    use unicode_width::UnicodeWidthChar;
    if width == 0 || line.width() <= width {
        return vec![line];
    }
    let indent = match line.spans.as_slice() {
        [name, _, ..] => name.width(),
        _ => line
            .spans
            .iter()
            .flat_map(|span| span.content.chars())
            .take_while(|c| *c == ' ')
            .count(),
    };
    // An indent that leaves little room is no help.
    let indent = if indent * 2 > width { 0 } else { indent };
    let mut queue: std::collections::VecDeque<(char, ratatui::style::Style)> = line
        .spans
        .iter()
        .flat_map(|span| span.content.chars().map(move |c| (c, span.style)))
        .collect();
    let mut rows: Vec<Vec<(char, ratatui::style::Style)>> = Vec::new();
    let mut row: Vec<(char, ratatui::style::Style)> = Vec::new();
    let mut used = 0;
    while let Some((c, style)) = queue.pop_front() {
        let cell = c.width().unwrap_or(0);
        // Every row holds something past its indent before it breaks.
        if used + cell > width && row.len() > indent {
            // At the last space past the indent (a field's name), if any,
            // else after the last slash (a path, an address stays whole
            // between its slashes); a word longer than the row is cut
            // where the row ends.
            let past = &row[indent..];
            let at = past
                .iter()
                .rposition(|(c, _)| *c == ' ')
                .or_else(|| past.iter().rposition(|(c, _)| *c == '/'));
            let carried = match at {
                Some(at) if at > 0 => row.split_off(indent + at + 1),
                _ => Vec::new(),
            };
            while row.len() > indent && row.last().is_some_and(|(c, _)| *c == ' ') {
                row.pop();
            }
            rows.push(std::mem::take(&mut row));
            queue.push_front((c, style));
            for kept in carried.into_iter().rev() {
                queue.push_front(kept);
            }
            while queue.front().is_some_and(|(c, _)| *c == ' ') {
                queue.pop_front();
            }
            row.extend(std::iter::repeat_n((' ', ratatui::style::Style::new()), indent));
            used = indent;
            continue;
        }
        used += cell;
        row.push((c, style));
    }
    rows.push(row);
    rows.into_iter()
        .map(|row| {
            let mut spans: Vec<Span<'static>> = Vec::new();
            for (c, style) in row {
                match spans.last_mut() {
                    Some(span) if span.style == style => span.content.to_mut().push(c),
                    _ => spans.push(Span::styled(c.to_string(), style)),
                }
            }
            Line::from(spans).style(line.style)
        })
        .collect()
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
        now: app.now,
    };
    let lines = app
        .screens
        .get(app.shown())
        .detail(app.detail_json, &view)
        .map(|(_, lines)| wrap(lines, usize::from(area.width.saturating_sub(2))).len())
        .unwrap_or(0);
    u16::try_from(lines.saturating_sub(usize::from(area.height.saturating_sub(2)))).unwrap_or(u16::MAX)
}

/// Where the detail is drawn: over the table, or in its pane.
pub fn area(app: &App) -> Option<Rect> {
    let screen = Rect::new(0, 0, app.size.0, app.size.1);
    let areas = super::layout::areas(screen);
    if app.detail_open {
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
