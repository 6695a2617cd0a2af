//! What a table needs of its list beyond what its rows are ([`Listing`]):
//! how its rows arrive (its [`Pager`]), whether they take marks, and the
//! few hooks a list fills to narrow its rows in the console or to have the
//! server search and sort them. Every hook has the plain list's answer as
//! its default, so that a list says only what differs.
//!
//! Apart from the screens' side of a list (what it asks the server, its
//! heading, its place among the screens), so that [`super::Table`] sits on
//! this floor and knows nothing of the screens.

use super::listing::Listing;
use super::pager::Pager;
use super::rows::Rows;
use crate::console::kit::column::Sort;

pub trait Hooks: Listing + Default {
    /// How its rows arrive: by offset, by cursor, or held whole.
    type Pager: Pager;
    /// Whether its rows can be marked (Space, `*`) for bulk actions: a list
    /// that says so gets marking, the marks drawn, Esc clearing them, and
    /// its bulk keys acting on every marked row.
    const MARKS: bool = false;

    /// Whether a failed request means the list is simply empty (a server
    /// without the endpoint), which its empty words then explain.
    fn answered_with(&mut self, _error: &crate::api::Error) -> bool {
        false
    }

    /// Lists the server filters and sorts (too long to load whole) take
    /// the text and the order here, and say whether they must be fetched
    /// again; lists filtered and sorted in the console say no.
    fn search_on_server(&mut self, _text: &str) -> bool {
        false
    }

    fn order_on_server(&mut self, _sort: &Sort) -> bool {
        false
    }

    /// The text the server has searched for, if it searches.
    fn searched(&self) -> Option<&str> {
        None
    }

    /// Whether the rows are narrowed in the console (to one state) beyond
    /// what the server was asked: they are then looked through from the
    /// top, page after page, while [`Hooks::scan_on`] says so.
    fn narrowed(&self) -> bool {
        false
    }

    /// Whether a row is kept by that narrowing.
    fn keeps(&self, _row: &Self::Row) -> bool {
        true
    }

    /// Whether the look goes on past this row (the last one loaded).
    fn scan_on(&self, _last: &Self::Row) -> bool {
        true
    }

    /// The most rows the look goes through.
    fn scan_limit(&self) -> u64 {
        0
    }

    /// A page was taken into `rows`: what the rows say about the server
    /// (roles with or without access levels) is learnt here.
    fn loaded(&mut self, _rows: &Rows<Self::Row>) {}
}
