//! [`Listing`]: what every list says about its rows, whatever the rows are
//! and however they arrive (by offset, by cursor, held whole). It is the
//! row-level half of what was one 31-method trait: the columns and the
//! cells of a row, its detail, its identity, the filter typed with `/` and
//! the orders `s` cycles through. How its rows arrive and are narrowed is
//! [`super::hooks::Hooks`], which builds on this one; what a list asks the
//! server, its heading and its words stay with the list, in its screen's
//! folder (`screens::list::Resource`, which builds on both).

use std::cmp::Ordering;
use std::fmt;

use ratatui::text::{Line, Span};
use serde::Serialize;

use crate::console::kit::column::{Column, Sort};
use crate::console::kit::view::ViewCx;

/// What a list says about its rows.
pub trait Listing {
    /// One of its rows: cloned into the detail and the marks, shown as
    /// JSON by the raw view and `Y`.
    type Row: Clone + fmt::Debug + Serialize + Send + 'static;

    /// One of its rows, in words: "role".
    const NOUN: &'static str;

    fn columns(&self) -> &'static [Column];

    /// The cells of a row, in the order of the columns.
    fn cells(&self, row: &Self::Row, view: &ViewCx) -> Vec<Span<'static>>;

    /// The detail of a row: its title and its lines.
    fn detail(&self, row: &Self::Row, view: &ViewCx) -> (String, Vec<Line<'static>>);

    /// The id `y` copies and a refresh looks for.
    fn id(row: &Self::Row) -> String;

    /// Whether a row matches a filter typed with `/` (lowercase).
    fn matches(row: &Self::Row, needle: &str) -> bool;

    /// The orders `s` cycles through; the first is the server's.
    fn sorts(&self) -> &'static [Sort];

    /// Compares two rows by one of the local sorts.
    fn compare(a: &Self::Row, b: &Self::Row, sort: &Sort) -> Ordering;
}
