//! Lines wrapped to a width, as the detail pane, the help and a page
//! (a person's, an offboarding) show them: a line too long goes on over
//! the next ones.

use ratatui::text::{Line, Span};

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
