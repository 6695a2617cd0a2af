//! A list written as its pages arrive, through one buffered writer: JSON a
//! row at a time (one array, written as it grows), or a table whose column
//! widths are set by the first rows written (a later cell too wide for its
//! column is cut with "…"). Nothing holds the rows already written, so
//! memory stays flat however long the list.

use std::io::{BufWriter, Stdout, Write};

use serde::Serialize;

use super::json::JsonArray;
use super::{Column, Format, column_widths, header_line, output_error, output_width, row_line};

/// Bytes gathered before a write to stdout.
const BUFFER: usize = 64 * 1024;

pub struct ListWriter {
    out: BufWriter<Stdout>,
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
        let mut out = BufWriter::with_capacity(BUFFER, std::io::stdout());
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
    pub fn rows<T: Serialize>(
        &mut self,
        rows: &[T],
        cells: impl Fn(&T) -> Vec<String>,
    ) -> anyhow::Result<()> {
        match &mut self.layout {
            Layout::Json(array) => {
                for row in rows {
                    array.push(&mut self.out, row).map_err(output_error)?;
                }
            }
            Layout::Table { columns, widths } => {
                let lines: Vec<Vec<String>> = rows.iter().map(cells).collect();
                // A page narrowed to nothing (a state none of its rows is
                // in) sets no widths: the first rows written do.
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
            }
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
