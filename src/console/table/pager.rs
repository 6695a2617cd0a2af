//! [`Pager`]: how a list's rows arrive from the server, apart from what
//! the list says about them ([`super::listing::Listing`]).
//!
//! - [`ByOffset`]: a page at any offset, the length counted by the server
//!   (Roles, Members, Subscriptions, People).
//! - [`ByCursor`]: each page by the link the one before it gave, with no
//!   count (Deliveries): the pager remembers the links, works the length
//!   out from what arrived (one row more while there is more) and knows it
//!   exactly only at the end.
//! - [`Whole`]: rows a screen holds whole (Health's board), never asked
//!   for page by page: counted and started over as a list by offset is,
//!   so it is [`ByOffset`] under the name that says why.
//!
//! The request a page is asked with is the list's own
//! ([`crate::console::screens::PageRequest`]); a pager only says where it
//! starts: [`Asks::request_at`] hands back the list's first request for
//! the page at an offset, with the link put in where the pager holds one
//! (a pager by cursor asks only with requests that take a link,
//! [`Cursored`]).

use std::collections::BTreeMap;

use crate::api::Page;
use crate::console::table::paging::PAGE_SIZE;

/// How the rows of a list arrive.
pub trait Pager: Default {
    /// Whether the server pages it by cursor (no count, no offset): then
    /// only what the screen shows is fetched, never a page ahead, and a
    /// refresh starts over from the top, the only page whose link is known.
    const BY_CURSOR: bool;

    /// How long the list is, from a page that arrived at `offset`.
    fn counted<T>(&mut self, offset: u64, page: &Page<T>) -> u64;

    /// Whether that length is the list's whole length.
    fn count_is_exact(&self) -> bool;

    /// The list starts over: what earlier pages taught is stale.
    fn restart(&mut self);

    /// The list was answered as empty without a page (a server without
    /// the endpoint): its length, 0, is known.
    fn ended_empty(&mut self);
}

/// Where a page of a list asked with `Request` starts.
pub trait Asks<Request>: Pager {
    /// The request for the page at `offset`, from the list's request for
    /// its first page; `None` while that page cannot be asked for yet (its
    /// link has not arrived).
    fn request_at(&self, first: Request, offset: u64) -> Option<Request>;
}

/// Pages at any offset; the server counts the rows.
#[derive(Debug, Default)]
pub struct ByOffset;

impl<Request> Asks<Request> for ByOffset {
    fn request_at(&self, first: Request, _offset: u64) -> Option<Request> {
        Some(first)
    }
}

impl Pager for ByOffset {
    const BY_CURSOR: bool = false;

    fn counted<T>(&mut self, _offset: u64, page: &Page<T>) -> u64 {
        page.count
    }

    fn count_is_exact(&self) -> bool {
        true
    }

    fn restart(&mut self) {}

    fn ended_empty(&mut self) {}
}

/// Rows held whole: never asked for by page, so nothing to remember; what
/// they hold is counted as a page by offset counts it.
pub type Whole = ByOffset;

/// A request that can be pointed at a page by the server's link.
pub trait Cursored {
    /// The same request, for the page the link points at.
    fn after(self, link: String) -> Self;
}

/// Pages by the links the server gives, [`PAGE_SIZE`] rows a page of the
/// console's.
#[derive(Debug, Default)]
pub struct ByCursor {
    /// The link to the page at each offset past the first, as learnt.
    cursors: BTreeMap<u64, String>,
    /// Where the list ends, once a page without a next link arrived.
    end: Option<u64>,
}

impl<Request: Cursored> Asks<Request> for ByCursor {
    fn request_at(&self, first: Request, offset: u64) -> Option<Request> {
        match offset {
            0 => Some(first),
            offset => Some(first.after(self.cursors.get(&offset)?.clone())),
        }
    }
}

impl Pager for ByCursor {
    const BY_CURSOR: bool = true;

    /// Remembers the link to the page after this one; the list is as long
    /// as what arrived, and one row longer while there is more.
    fn counted<T>(&mut self, offset: u64, page: &Page<T>) -> u64 {
        let end = offset + page.results.len() as u64;
        match page.next.as_ref().filter(|_| !page.results.is_empty()) {
            Some(next) => {
                self.cursors.insert(offset + PAGE_SIZE, next.clone());
                if self.end.is_some_and(|known| known <= end) {
                    self.end = None;
                }
            }
            None => self.end = Some(end),
        }
        let furthest = self.cursors.keys().next_back().copied().unwrap_or(0);
        self.end.unwrap_or(furthest + 1)
    }

    fn count_is_exact(&self) -> bool {
        self.end.is_some()
    }

    fn restart(&mut self) {
        self.cursors.clear();
        self.end = None;
    }

    fn ended_empty(&mut self) {
        self.cursors.clear();
        self.end = Some(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    struct Asked(Option<String>);

    impl Cursored for Asked {
        fn after(self, link: String) -> Self {
            Asked(Some(link))
        }
    }

    fn page(rows: usize, next: Option<&str>) -> Page<u8> {
        Page {
            count: 0,
            next: next.map(str::to_string),
            previous: None,
            results: vec![0; rows],
        }
    }

    #[test]
    fn a_cursor_pager_learns_links_and_the_end_as_pages_arrive() {
        let mut pager = ByCursor::default();
        assert_eq!(Pager::counted(&mut pager, 0, &page(100, Some("/next-1"))), 101);
        assert_eq!(
            pager.request_at(Asked(None), 100),
            Some(Asked(Some("/next-1".into())))
        );
        assert_eq!(pager.request_at(Asked(None), 200), None, "no cursor yet");
        assert!(!Pager::count_is_exact(&pager));
        // The first page again (a refresh around the cursor) keeps what is known.
        assert_eq!(Pager::counted(&mut pager, 0, &page(100, Some("/next-1"))), 101);
        assert_eq!(Pager::counted(&mut pager, 100, &page(30, None)), 130);
        assert!(Pager::count_is_exact(&pager));
        assert_eq!(Pager::counted(&mut pager, 0, &page(100, Some("/next-1"))), 130);
        Pager::restart(&mut pager);
        assert_eq!(Pager::counted(&mut pager, 0, &page(12, None)), 12);
        Pager::ended_empty(&mut pager);
        assert!(Pager::count_is_exact(&pager));
        assert_eq!(pager.request_at(Asked(None), 100), None);
    }

    #[test]
    fn an_offset_pager_asks_the_same_request_and_takes_the_servers_count() {
        let mut pager = ByOffset;
        assert_eq!(pager.request_at(Asked(None), 300), Some(Asked(None)));
        let mut counted = page(100, None);
        counted.count = 412;
        assert_eq!(Pager::counted(&mut pager, 0, &counted), 412);
        assert!(Pager::count_is_exact(&pager));
    }
}
