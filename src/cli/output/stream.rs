//! A list written as its pages arrive, through one buffered writer on the
//! locked stdout: JSON a row at a time (one array, written as it grows,
//! each row the server's text laid out, never read into a value: see
//! [`super::verbatim`]), or a table whose column
//! widths are set by the first rows written (a later cell too wide for its
//! column is cut with "…"). Nothing holds the rows already written, so
//! memory stays flat however long the list.

use std::io::{BufWriter, StdoutLock, Write};

use serde_json::value::RawValue;

use super::json::JsonArray;
use super::{Column, Format, column_widths, header_line, output_error, output_width, row_line};

/// Bytes gathered before a write to stdout.
const BUFFER: usize = 64 * 1024;

/// A row that `-o json` writes: the server's object, as it came or with
/// fields added.
pub trait JsonRow {
    /// Writes the row as JSON laid out `depth` levels deep.
    fn write_json(&self, out: &mut impl Write, depth: usize) -> std::io::Result<()>;
}

impl<T> JsonRow for crate::api::Raw<T> {
    fn write_json(&self, out: &mut impl Write, depth: usize) -> std::io::Result<()> {
        super::verbatim::write_verbatim(out, self.json.get(), depth)
    }
}

impl<T> JsonRow for crate::api::Verbatim<T> {
    fn write_json(&self, out: &mut impl Write, depth: usize) -> std::io::Result<()> {
        super::verbatim::write_verbatim(out, self.json.get(), depth)
    }
}

impl JsonRow for Box<RawValue> {
    fn write_json(&self, out: &mut impl Write, depth: usize) -> std::io::Result<()> {
        super::verbatim::write_verbatim(out, self.get(), depth)
    }
}

pub struct ListWriter {
    out: BufWriter<StdoutLock<'static>>,
    layout: Layout,
}

enum Layout {
    Json(JsonArray),
    Table {
        columns: Vec<Column>,
        /// Set by the first rows written.
        widths: Option<Vec<usize>>,
    },
}

impl ListWriter {
    /// A writer for `format`; `columns` are the table's.
    pub fn new(format: Format, columns: Vec<Column>) -> anyhow::Result<ListWriter> {
        let mut out = BufWriter::with_capacity(BUFFER, std::io::stdout().lock());
        let layout = match format {
            Format::Json => Layout::Json(JsonArray::start(&mut out).map_err(output_error)?),
            Format::Table => Layout::Table {
                columns,
                widths: None,
            },
        };
        Ok(ListWriter { out, layout })
    }

    /// Sets the table's columns, where they depend on what the first page
    /// holds; once rows are written, they stay as they were.
    pub fn set_columns(&mut self, chosen: Vec<Column>) {
        if let Layout::Table {
            columns,
            widths: None,
        } = &mut self.layout
        {
            *columns = chosen;
        }
    }

    /// Writes rows: as JSON, or as table lines made by `cells`.
    pub fn rows<T: JsonRow>(&mut self, rows: &[T], cells: impl Fn(&T) -> Vec<String>) -> anyhow::Result<()> {
        match self.layout {
            Layout::Json(_) => self.json_rows(rows),
            Layout::Table { .. } => self.table_rows(rows, cells),
        }
    }

    /// Writes rows as JSON (`-o json` alone: a table's rows are written
    /// by [`ListWriter::table_rows`]).
    pub fn json_rows<T: JsonRow>(&mut self, rows: &[T]) -> anyhow::Result<()> {
        let Layout::Json(array) = &mut self.layout else {
            anyhow::bail!("a table's rows are written with their cells");
        };
        for row in rows {
            array
                .push_with(&mut self.out, |out| row.write_json(out, 1))
                .map_err(output_error)?;
        }
        Ok(())
    }

    /// Writes rows as table lines made by `cells` (a table alone: JSON
    /// rows are written by [`ListWriter::json_rows`]).
    pub fn table_rows<T>(&mut self, rows: &[T], cells: impl Fn(&T) -> Vec<String>) -> anyhow::Result<()> {
        let Layout::Table { columns, widths } = &mut self.layout else {
            anyhow::bail!("JSON rows are written as the server sent them");
        };
        let lines: Vec<Vec<String>> = rows.iter().map(cells).collect();
        // A page narrowed to nothing (a state none of its rows is in) sets
        // no widths: the first rows written do.
        if lines.is_empty() {
            return Ok(());
        }
        let widths = match widths {
            Some(widths) => widths,
            None => {
                let found = column_widths(columns, &lines, output_width());
                self.out
                    .write_all(header_line(columns, &found).as_bytes())
                    .map_err(output_error)?;
                widths.insert(found)
            }
        };
        for line in &lines {
            self.out
                .write_all(row_line(line, widths).as_bytes())
                .map_err(output_error)?;
        }
        Ok(())
    }

    /// Ends the output (the JSON array's bracket; a table's header when no
    /// row came) and flushes it.
    pub fn finish(mut self) -> anyhow::Result<()> {
        match self.layout {
            Layout::Json(array) => array.finish(&mut self.out).map_err(output_error)?,
            Layout::Table {
                columns,
                widths: None,
            } => {
                let found = column_widths(&columns, &[], output_width());
                self.out
                    .write_all(header_line(&columns, &found).as_bytes())
                    .map_err(output_error)?;
            }
            Layout::Table { .. } => {}
        }
        self.out.flush().map_err(output_error)
    }
}
