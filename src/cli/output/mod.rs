//! What the scriptable commands print: aligned tables that fit the terminal
//! (80 columns at least stays readable), records, or JSON; and a progress
//! line on stderr while a long list is fetched.
//!
//! Every value in a table or a record passes through [`printable`]: text
//! from a server never reaches the terminal raw. JSON stays exact JSON, with
//! C1 and bidi controls and invisible format characters escaped as
//! `\uXXXX` (serde escapes the C0 controls).

use std::io::{IsTerminal, Write};
use std::sync::Arc;

use clap::ValueEnum;
use serde::Serialize;
use unicode_width::UnicodeWidthStr;

use crate::text::printable;

mod json;
mod stream;
mod verbatim;

pub use json::{write_at, write_json};
pub use stream::{JsonRow, ListWriter};
pub use verbatim::write_verbatim;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Tables and records; for `export`, TOML (also spelt `toml`).
    #[value(alias = "toml")]
    Table,
    /// JSON: the server's own objects, every page of a list in one array.
    Json,
}

/// What `-o` asks for: a [`Format`], or CSV, which `access review` alone
/// writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Requested {
    /// Tables and records; for `export`, TOML (also spelt `toml`).
    #[value(alias = "toml")]
    Table,
    /// JSON: the server's own objects, every page of a list in one array.
    Json,
    /// CSV: for `access review` alone.
    Csv,
}

impl Requested {
    /// The format of every command but `access review`; `None` for CSV.
    pub fn format(self) -> Option<Format> {
        match self {
            Requested::Table => Some(Format::Table),
            Requested::Json => Some(Format::Json),
            Requested::Csv => None,
        }
    }
}

/// A column: its header and whether it may be shortened to fit.
#[derive(Debug, Clone, Copy)]
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

/// Widest a cell is shown, in display columns, wherever the table goes: a
/// longer value is cut with "…", so that a table is never larger than its
/// rows times this for each column, whatever a server sent (`-o json` has
/// the whole of every value).
pub const MAX_CELL: usize = 200;
const GAP: &str = "  ";

/// The width tables are fitted to: the terminal's when stdout is one, else
/// `COLUMNS` when set, else none (pipes get values up to [`MAX_CELL`]).
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
    let widths = column_widths(columns, rows, width);
    let mut out = String::new();
    out.push_str(&header_line(columns, &widths));
    for row in rows {
        out.push_str(&row_line(row, &widths));
    }
    out
}

/// The width of each column: its widest cell (at most [`MAX_CELL`]), then
/// flexible columns shortened a character at a time, widest first, until a
/// line fits `limit`.
fn column_widths(columns: &[Column], rows: &[Vec<String>], limit: Option<usize>) -> Vec<usize> {
    let mut widths: Vec<usize> = columns.iter().map(|column| column.header.width()).collect();
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(display_width(cell).min(MAX_CELL));
        }
    }
    if let Some(limit) = limit {
        let total =
            |widths: &[usize]| widths.iter().sum::<usize>() + GAP.len() * widths.len().saturating_sub(1);
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
    widths
}

/// The width of a cell as shown (escapes included), measured on no more
/// of it than [`MAX_CELL`] can show.
fn display_width(cell: &str) -> usize {
    printable(head(cell, MAX_CELL)).width()
}

/// The first `width + 1` characters of `text`: more than `width` columns
/// can show, unless some of them take no room.
fn head(text: &str, width: usize) -> &str {
    match text.char_indices().nth(width.saturating_add(1)) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}

fn header_line(columns: &[Column], widths: &[usize]) -> String {
    let headers: Vec<String> = columns.iter().map(|column| column.header.to_string()).collect();
    row_line(&headers, widths)
}

/// One line of a table: each cell escaped, fitted and padded to its width.
fn row_line(row: &[String], widths: &[usize]) -> String {
    let cells: Vec<String> = row
        .iter()
        .zip(widths)
        .map(|(cell, &width)| pad(&fit(cell, width), width))
        .collect();
    let mut line = cells.join(GAP).trim_end().to_string();
    line.push('\n');
    line
}

/// Shortens text to `width` display columns, marking the cut with "…".
/// Unsafe characters are shown as escapes, never written. Only as much of
/// the text is escaped as can be shown.
pub fn fit(text: &str, width: usize) -> String {
    let shown = head(text, width);
    let cut_short = shown.len() < text.len();
    let text = printable(shown);
    if text.width() <= width && !cut_short {
        return text.into_owned();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let wide = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + wide + 1 > width {
            break;
        }
        used += wide;
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
pub(crate) fn output_error(error: std::io::Error) -> anyhow::Error {
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
    fn no_cell_is_wider_than_the_most_a_cell_shows() {
        let huge = "t".repeat(3_000_000);
        let columns = [fixed("ID"), flexible("TITLE"), fixed("STATE")];
        let rows: Vec<Vec<String>> = (0..50)
            .map(|row| {
                vec![
                    row.to_string(),
                    if row == 7 { huge.clone() } else { "short".into() },
                    "ok".into(),
                ]
            })
            .collect();
        let text = table(&columns, &rows, None);
        let longest = text.lines().map(|line| line.width()).max().unwrap();
        assert_eq!(longest, 2 + 2 + MAX_CELL + 2 + 5, "{longest}");
        assert!(text.len() < 51 * (MAX_CELL + 20) * 3, "{} bytes", text.len());
        assert!(text.lines().nth(8).unwrap().contains("t…"));
        // Escapes count as what they show, and are never cut in half raw.
        let hostile = "\u{1b}".repeat(1000);
        let shown = fit(&hostile, 20);
        assert_eq!(shown.width(), 20);
        assert!(shown.ends_with('…') && !shown.contains('\u{1b}'), "{shown:?}");
        // A value that fits is whole, escapes and all.
        assert_eq!(fit("a\u{202e}b", 20), "a\\u{202e}b");
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
}
