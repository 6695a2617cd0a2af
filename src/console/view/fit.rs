//! Text cut to the room it has, with an ellipsis where it was cut: a host
//! without its port, a target without its end, must not read as whole.

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
}
