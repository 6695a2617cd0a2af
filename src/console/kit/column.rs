//! A table's columns (a header, how wide, how much it matters on a narrow
//! screen) and the orders `s` puts a list in: what a list declares about
//! its shape, drawn by the table and chosen by the screen.

use ratatui::layout::Constraint;

/// How wide a column is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    /// Exactly this wide.
    Fixed(u16),
    /// As wide as the widest of its header and the cells on screen: ids,
    /// times, states. Never cut while the table keeps it.
    Content,
    /// The room the other columns leave, shared with the other such
    /// columns by weight, and never less than `min` (or than its widest
    /// cell, when that is less) while the table keeps it; a cell longer
    /// than its room is cut with an ellipsis.
    Fill { weight: u16, min: u16 },
}

/// A column: its header, how wide it is drawn, and how much it matters
/// (narrow tables drop the columns that matter least first).
#[derive(Debug, Clone, Copy)]
pub struct Column {
    pub header: &'static str,
    pub size: Size,
    /// Shown on tables at least this wide and narrower than `shown_below`.
    pub shown_from: u16,
    pub shown_below: u16,
    /// 0: always shown. When the columns do not fit, the one with the
    /// highest number goes first (the rightmost of equals).
    pub drop: u8,
    /// A compact column shown only in place of the one with this header,
    /// once that one is dropped (NEXT for NEXT DELIVERY (UTC)).
    pub stands_in_for: Option<&'static str>,
}

impl Column {
    /// A column sized as `width` says, shown on tables at least
    /// `shown_from` wide.
    pub const fn new(header: &'static str, width: Constraint, shown_from: u16) -> Column {
        let size = match width {
            Constraint::Fill(weight) => Size::Fill { weight, min: 0 },
            Constraint::Length(width) | Constraint::Max(width) | Constraint::Min(width) => Size::Fixed(width),
            _ => Size::Content,
        };
        Column {
            header,
            size,
            shown_from,
            shown_below: u16::MAX,
            drop: 0,
            stands_in_for: None,
        }
    }

    /// A column only for tables narrower than `below`: the compact form of
    /// one that wider tables show in full.
    pub const fn narrow(header: &'static str, width: Constraint, below: u16) -> Column {
        Column {
            shown_from: 0,
            shown_below: below,
            ..Column::new(header, width, 0)
        }
    }

    /// As wide as its content, always shown (unless [`Column::drops`]).
    pub const fn content(header: &'static str) -> Column {
        Column {
            header,
            size: Size::Content,
            shown_from: 0,
            shown_below: u16::MAX,
            drop: 0,
            stands_in_for: None,
        }
    }

    /// Takes the room left, by `weight`, at least `min` wide.
    pub const fn fill(header: &'static str, weight: u16, min: u16) -> Column {
        Column {
            size: Size::Fill { weight, min },
            ..Column::content(header)
        }
    }

    /// Dropped on narrow tables, the highest `rank` first.
    pub const fn drops(self, rank: u8) -> Column {
        Column { drop: rank, ..self }
    }

    /// Shown in place of the column `header` once that one is dropped.
    pub const fn instead_of(self, header: &'static str) -> Column {
        Column {
            stands_in_for: Some(header),
            ..self
        }
    }

    pub fn shown_at(&self, width: u16) -> bool {
        (self.shown_from..self.shown_below).contains(&width)
    }
}

/// An order `s` puts a list in. The first of a list's sorts is the
/// server's own order, which marks no column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sort {
    /// In the footer: "sorted by name".
    pub label: &'static str,
    /// The header of the column it marks with ▲ or ▼.
    pub column: Option<&'static str>,
    pub descending: bool,
    /// The server's `ordering`, for lists the server sorts.
    pub ordering: Option<&'static str>,
}

impl Sort {
    pub const fn local(label: &'static str, column: &'static str, descending: bool) -> Sort {
        Sort {
            label,
            column: Some(column),
            descending,
            ordering: None,
        }
    }
}
