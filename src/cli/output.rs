//! What the scriptable commands print: aligned tables that fit the terminal
//! (80 columns at least stays readable), records, or JSON; and a progress
//! line on stderr while a long list is fetched.
//!
//! Every value in a table or a record passes through [`printable`]: text
//! from a server never reaches the terminal raw. JSON stays exact JSON, with
//! bidi controls escaped as `\uXXXX` (serde escapes the other controls).

use std::io::{IsTerminal, Write};
use std::sync::Arc;

use clap::ValueEnum;
use serde::Serialize;
use unicode_width::UnicodeWidthStr;

use crate::text::printable;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Table,
    Json,
}

/// A column: its header and whether it may be shortened to fit.
pub struct Column {
    pub header: &'static str,
    pub shrinks: bool,
}

pub const fn fixed(header: &'static str) -> Column {
    Column {
        header,
        shrinks: false,
    }
}

pub const fn flexible(header: &'static str) -> Column {
    Column {
        header,
        shrinks: true,
    }
}

/// Narrowest a shrinking column gets.
const MIN_WIDTH: usize = 6;
const GAP: &str = "  ";

/// The width tables are fitted to: the terminal's when stdout is one, else
/// `COLUMNS` when set, else no limit (pipes get whole values).
pub fn output_width() -> Option<usize> {
    if std::io::stdout().is_terminal() {
        return crossterm::terminal::size()
            .ok()
            .map(|(columns, _)| usize::from(columns).max(40));
    }
    std::env::var("COLUMNS")
        .ok()
        .and_then(|columns| columns.parse().ok())
}

/// Lays out rows under headers, shortening flexible columns (with "…") so
/// that each line fits `width`.
pub fn table(columns: &[Column], rows: &[Vec<String>], width: Option<usize>) -> String {
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|row| row.iter().map(|cell| printable(cell).into_owned()).collect())
        .collect();
    let rows = &rows;
    let mut widths: Vec<usize> = columns.iter().map(|column| column.header.width()).collect();
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.width());
        }
    }
    if let Some(limit) = width {
        let total =
            |widths: &[usize]| widths.iter().sum::<usize>() + GAP.len() * widths.len().saturating_sub(1);
        // Take a character at a time from the widest shrinkable column.
        while total(&widths) > limit {
            let widest = widths
                .iter()
                .enumerate()
                .filter(|(index, width)| columns[*index].shrinks && **width > MIN_WIDTH)
                .max_by_key(|(_, width)| **width)
                .map(|(index, _)| index);
            match widest {
                Some(index) => widths[index] -= 1,
                None => break,
            }
        }
    }
    let mut out = String::new();
    let headers: Vec<String> = columns.iter().map(|column| column.header.to_string()).collect();
    for row in std::iter::once(&headers).chain(rows) {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, &width)| pad(&fit(cell, width), width))
            .collect();
        out.push_str(cells.join(GAP).trim_end());
        out.push('\n');
    }
    out
}

/// Shortens text to `width` display columns, marking the cut with "…".
/// Unsafe characters are shown as escapes, never written.
pub fn fit(text: &str, width: usize) -> String {
    let text = printable(text);
    if text.width() <= width {
        return text.into_owned();
    }
    let mut out = String::new();
    for c in text.chars() {
        if out.width() + c.to_string().width() + 1 > width {
            break;
        }
        out.push(c);
    }
    out.push('…');
    out
}

fn pad(text: &str, width: usize) -> String {
    format!("{text}{}", " ".repeat(width.saturating_sub(text.width())))
}

/// `field: value` lines for one resource.
pub fn record(fields: &[(&str, String)]) -> String {
    let width = fields.iter().map(|(name, _)| name.len()).max().unwrap_or(0);
    fields
        .iter()
        .map(|(name, value)| format!("{name:width$}  {}\n", printable(value)))
        .collect()
}

/// The reader of the output went away (`| head`): not a failure of ours,
/// and `main` ends quietly with success.
#[derive(Debug, thiserror::Error)]
#[error("the output was closed")]
pub struct ClosedOutput;

/// A failure to write the output, told apart when the reader went away.
fn output_error(error: std::io::Error) -> anyhow::Error {
    if error.kind() == std::io::ErrorKind::BrokenPipe {
        ClosedOutput.into()
    } else {
        error.into()
    }
}

pub fn print_json(value: &impl Serialize) -> anyhow::Result<()> {
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    write_json(&mut stdout, value).map_err(output_error)?;
    writeln!(stdout).map_err(output_error)?;
    stdout.flush().map_err(output_error)?;
    Ok(())
}

/// Pretty JSON with bidi controls and line separators escaped as `\uXXXX`:
/// the same JSON value, but nothing in it reorders or breaks a terminal.
pub fn write_json(out: &mut impl Write, value: &impl Serialize) -> std::io::Result<()> {
    let mut serializer = serde_json::Serializer::with_formatter(out, TerminalSafeJson::default());
    value
        .serialize(&mut serializer)
        .map_err(|error| match error.io_error_kind() {
            // A closed pipe stays a closed pipe, which `main` treats as the end.
            Some(kind) => std::io::Error::new(kind, error),
            None => std::io::Error::other(error),
        })
}

/// serde_json's pretty formatter, escaping also the characters that serde
/// leaves raw but [`crate::text::is_unsafe`] names.
#[derive(Default)]
struct TerminalSafeJson(serde_json::ser::PrettyFormatter<'static>);

impl serde_json::ser::Formatter for TerminalSafeJson {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let mut rest = fragment;
        while let Some(at) = rest.find(crate::text::is_unsafe) {
            writer.write_all(&rest.as_bytes()[..at])?;
            let c = rest[at..].chars().next().unwrap_or_default();
            write!(writer, "\\u{:04x}", u32::from(c))?;
            rest = &rest[at + c.len_utf8()..];
        }
        writer.write_all(rest.as_bytes())
    }

    // The pretty layout, delegated.
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object_value(w)
    }
}

pub fn print(text: &str) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes()).map_err(output_error)?;
    stdout.flush().map_err(output_error)?;
    Ok(())
}

/// A progress reporter for a list fetch: a line on stderr, rewritten in
/// place, only when stderr is a terminal and the list spans pages.
pub fn progress(what: &str) -> Option<Arc<dyn Fn(u64, u64) + Send + Sync>> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let what = what.to_string();
    Some(Arc::new(move |fetched, total| {
        let mut stderr = std::io::stderr().lock();
        if fetched >= total {
            let _ = write!(stderr, "\r\x1b[2K");
        } else {
            let _ = write!(stderr, "\rfetching {what}: {fetched}/{total}");
        }
        let _ = stderr.flush();
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_align_and_fit() {
        let columns = [fixed("ID"), flexible("NAME"), fixed("LEVEL")];
        let rows = vec![
            vec![
                "1".into(),
                "A rather long name that will not fit".into(),
                "admin".into(),
            ],
            vec!["22".into(), "Short".into(), "member".into()],
        ];
        let text = table(&columns, &rows, Some(30));
        for line in text.lines() {
            assert!(line.width() <= 30, "{line:?}");
        }
        assert!(text.contains('…'));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0].find("LEVEL"), lines[2].find("member"));
        let unlimited = table(&columns, &rows, None);
        assert!(unlimited.contains("A rather long name that will not fit"));
    }

    #[test]
    fn fit_counts_display_width() {
        assert_eq!(fit("héllo", 10), "héllo");
        assert_eq!(fit("abcdefgh", 5), "abcd…");
        assert_eq!(fit("line\nbreak", 20), "line\\nbreak");
        assert_eq!(fit("\u{1b}]0;pwned\u{7}", 40), "\\u{1b}]0;pwned\\u{7}");
    }

    #[test]
    fn records_and_tables_escape_what_a_server_wrote() {
        let shown = record(&[("name", "x\u{1b}]52;c;cm0gLXJmIH4K\u{7}\nid: 1".into())]);
        assert_eq!(shown, "name  x\\u{1b}]52;c;cm0gLXJmIH4K\\u{7}\\nid: 1\n");
        let table = table(&[flexible("NAME")], &[vec!["a\u{202e}b".into()]], None);
        assert_eq!(table, "NAME\na\\u{202e}b\n");
    }

    #[test]
    fn json_stays_exact_and_escapes_bidi_too() {
        let value = serde_json::json!({"name": "x\u{1b}[2J\u{202e}é\n"});
        let mut out = Vec::new();
        write_json(&mut out, &value).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            !text.chars().any(|c| c != '\n' && crate::text::is_unsafe(c)),
            "{text}"
        );
        assert!(text.contains("\\u202e"), "{text}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap(), value);
    }
}
