//! One walk through a list: the limits a server must keep to, the repeats
//! dropped, and at the end the verdict on whether the list came whole.

use std::collections::HashSet;
use std::hash::{BuildHasher, RandomState};

use super::super::error::{Error, Incomplete, RequestLabel, Result};
use super::super::models::Page;
use super::whole::Complete;
use super::{List, Row};

/// What a walk has seen so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Seen {
    /// Rows handed over, each once.
    pub rows: u64,
    /// Rows the server sent again, dropped.
    pub repeated: u64,
    /// The first page's count.
    pub count: u64,
    /// Another count a later page said: the list changed while it was read.
    pub changed_to: Option<u64>,
}

/// The limits of one walk through a list: no more rows than the cap, no
/// URL twice, no empty page that links onward, no more rows than `count`
/// said by more than a page, no more than `count/page + 2` pages. A server
/// that breaks any of them is stopped. It also keeps which rows were handed
/// over, to drop repeats.
///
/// Rows and links are remembered by a 64-bit hash keyed at random for each
/// walk (8 bytes each, whatever a server makes its ids): a server cannot aim
/// for a collision it cannot compute, and by chance one is about as likely
/// as n²/2⁶⁵ (10⁻⁸ at a million rows), at the cost of one row taken for a
/// repeat.
pub(super) struct Walk {
    pub request: RequestLabel,
    list: String,
    hasher: RandomState,
    rows_seen: HashSet<u64>,
    links_seen: HashSet<u64>,
    page_size: u64,
    /// The fewest rows a page came with, which bounds the pages.
    smallest_page: u64,
    cap: u64,
    received: u64,
    pages: u64,
    pub seen: Seen,
}

impl Walk {
    pub fn new<T>(list: &List<T>, page_size: u64, count: u64, cap: u64) -> Walk {
        let page_size = page_size.max(1);
        Walk {
            request: RequestLabel {
                method: "GET".into(),
                path: list.path(),
            },
            list: list.name().replace('_', " "),
            hasher: RandomState::new(),
            rows_seen: HashSet::new(),
            links_seen: HashSet::new(),
            page_size,
            smallest_page: page_size,
            cap,
            received: 0,
            pages: 0,
            seen: Seen {
                rows: 0,
                repeated: 0,
                count,
                changed_to: None,
            },
        }
    }

    pub fn follow(&mut self, url: &str) -> Result<()> {
        if !self.links_seen.insert(self.hasher.hash_one(url)) {
            return Err(self.error(format!(
                "the server's next link repeats a page already fetched ({})",
                crate::text::printable(url)
            )));
        }
        Ok(())
    }

    /// Counts a page in against the limits, drops the rows already handed
    /// over, hands the rest to `sink` with the page's size in bytes, and
    /// gives the page's `next` link. `first_count` is the count the first
    /// page said, when this is not it: a count that grows as pages arrive
    /// must not stretch the limits.
    pub fn hand_over<T: Row, E: From<Error>>(
        &mut self,
        page: Page<T>,
        bytes: u64,
        first_count: Option<u64>,
        sink: &mut impl FnMut(Vec<T>, u64) -> std::result::Result<(), E>,
    ) -> std::result::Result<Option<String>, E> {
        let got = page.results.len() as u64;
        self.pages += 1;
        self.received = self.received.saturating_add(got);
        if first_count.is_some_and(|count| count != page.count) && self.seen.changed_to.is_none() {
            self.seen.changed_to = Some(page.count);
        }
        if self.received > self.cap {
            return Err(Error::TooManyRows {
                request: self.request.clone(),
                limit: self.cap,
            }
            .into());
        }
        if got == 0 && page.next.is_some() {
            return Err(self
                .error("the server sent an empty page that links to another".into())
                .into());
        }
        let count = self.seen.count;
        if self.received > count.saturating_add(self.page_size) {
            return Err(self
                .error(format!(
                    "the server sent {} rows where its count said {count}",
                    self.received
                ))
                .into());
        }
        if got > 0 {
            self.smallest_page = self.smallest_page.min(got);
        }
        let most_pages = (count / self.smallest_page).saturating_add(2);
        if self.pages > most_pages {
            return Err(self
                .error(format!(
                    "the server sent {} pages where its count of {count} allows {most_pages}",
                    self.pages
                ))
                .into());
        }
        let rows: Vec<T> = page
            .results
            .into_iter()
            .filter(|row| self.rows_seen.insert(self.hasher.hash_one(row.row_id())))
            .collect();
        self.seen.repeated += got - rows.len() as u64;
        self.seen.rows += rows.len() as u64;
        sink(rows, bytes)?;
        Ok(page.next)
    }

    /// At the list's end: whole (every row once, as many as its count
    /// said, the count the same on every page), or why not.
    pub fn verdict(&self, reads: usize) -> Result<Complete> {
        let seen = self.seen;
        if seen.repeated == 0 && seen.changed_to.is_none() && seen.rows >= seen.count {
            return Ok(Complete::checked(seen.rows));
        }
        Err(Error::Incomplete(Box::new(Incomplete {
            request: self.request.clone(),
            list: self.list.clone(),
            count: seen.count,
            rows: seen.rows,
            repeated: seen.repeated,
            changed_to: seen.changed_to,
            reads,
        })))
    }

    pub fn error(&self, reason: String) -> Error {
        Error::EndlessList {
            request: self.request.clone(),
            reason,
        }
    }
}
