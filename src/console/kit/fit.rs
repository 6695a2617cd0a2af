//! Text cut to the room it has, with an ellipsis where it was cut: a host
//! without its port, a target without its end, must not read as whole.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// `text` in at most `width` columns; cut with "…" where it does not fit.
pub fn fit(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let cell = c.width().unwrap_or(0);
        if used + cell + 1 > width {
            break;
        }
        used += cell;
        out.push(c);
    }
    if width > 0 {
        out.push('…');
    }
    out
}

/// A line in at most `width` columns: the spans that fit, the first that
/// does not cut with "…", the rest left out.
pub fn fit_line(line: Line<'static>, width: usize) -> Line<'static> {
    if line.width() <= width {
        return line;
    }
    let style = line.style;
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut left = width;
    for span in line.spans {
        let span_width = span.width();
        if span_width <= left {
            left -= span_width;
            spans.push(span);
            continue;
        }
        spans.push(Span::styled(fit(&span.content, left), span.style));
        break;
    }
    Line::from(spans).style(style)
}

/// Parts joined by `separator` in at most `width` columns: the earlier
/// parts are cut first, down to "…" each, so that the last is whole while
/// it fits (a breadcrumb keeps where the user is).
pub fn fit_parts(parts: &[String], separator: &str, width: usize) -> String {
    let mut parts = parts.to_vec();
    let total = |parts: &[String]| -> usize {
        parts.iter().map(|part| part.width()).sum::<usize>()
            + separator.width() * parts.len().saturating_sub(1)
    };
    for at in 0..parts.len().saturating_sub(1) {
        let over = total(&parts).saturating_sub(width);
        if over == 0 {
            break;
        }
        let keep = parts[at].width().saturating_sub(over).max(1);
        parts[at] = fit(&parts[at], keep);
    }
    fit(&parts.join(separator), width)
}

/// Items (a key and what it does) in at most `width` columns, ending with
/// `last` whatever the width: the items that do not fit are dropped from
/// the middle, and "…" says so.
pub fn fit_items(
    items: Vec<Vec<Span<'static>>>,
    last: Vec<Span<'static>>,
    style: Style,
    width: usize,
) -> Line<'static> {
    let measure = |spans: &[Span]| spans.iter().map(Span::width).sum::<usize>();
    let all = items.iter().map(|item| measure(item)).sum::<usize>() + measure(&last);
    if all <= width {
        return Line::from(items.into_iter().flatten().chain(last).collect::<Vec<_>>());
    }
    let ellipsis = Span::styled(" … ", style);
    let mut left = width.saturating_sub(measure(&last) + ellipsis.width());
    let mut spans = Vec::new();
    for item in items {
        let item_width = measure(&item);
        if item_width > left {
            break;
        }
        left -= item_width;
        spans.extend(item);
    }
    spans.push(ellipsis);
    spans.extend(last);
    fit_line(Line::from(spans), width)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_text_says_so() {
        assert_eq!(fit("http://127.0.0.1:8010", 16), "http://127.0.0.…");
        assert_eq!(fit("short", 16), "short");
        assert_eq!(fit("角色名称", 5), "角色…");
        let line = Line::from(vec![
            Span::raw("org "),
            Span::raw("Hedgebox"),
            Span::raw(" · host"),
        ]);
        assert_eq!(fit_line(line, 10).to_string(), "org Hedge…");
    }

    #[test]
    fn a_breadcrumb_keeps_its_last_part_and_cuts_the_earlier_ones_first() {
        let crumb = ["Subscriptions", "#237 Morning KPI digest", "deliveries"].map(String::from);
        assert_eq!(
            fit_parts(&crumb, " › ", 60),
            "Subscriptions › #237 Morning KPI digest › deliveries"
        );
        assert_eq!(
            fit_parts(&crumb, " › ", 44),
            "Subs… › #237 Morning KPI digest › deliveries"
        );
        assert_eq!(fit_parts(&crumb, " › ", 30), "… › #237 Morning… › deliveries");
        assert_eq!(fit_parts(&crumb, " › ", 16), "… › … › deliver…");
    }

    #[test]
    fn the_footer_drops_keys_from_the_middle_and_always_ends_with_help() {
        let item = |key: &str, what: &str| vec![Span::raw(format!(" {key}")), Span::raw(format!(" {what} "))];
        let items = vec![
            item("Enter", "open"),
            item("/", "filter"),
            item("n", "new"),
            item("d", "delete"),
        ];
        let help = item("?", "help");
        let line = fit_items(items.clone(), help.clone(), Style::new(), 80);
        assert_eq!(
            line.to_string(),
            " Enter open  / filter  n new  d delete  ? help "
        );
        let line = fit_items(items.clone(), help.clone(), Style::new(), 36);
        assert_eq!(line.to_string(), " Enter open  / filter  …  ? help ");
        assert!(line.width() <= 36);
        let line = fit_items(items, help, Style::new(), 12);
        assert_eq!(line.to_string(), " …  ? help ");
    }
}
