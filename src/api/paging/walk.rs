//! One walk through a list: the limits a server must keep to, the repeats
//! dropped, and at the end the verdict on whether the list came whole.

use std::collections::HashSet;
use std::hash::{BuildHasher, RandomState};

use super::super::error::{Error, Incomplete, RequestLabel, Result};
use super::page::Head;
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
/// over, to drop repeats. Rows are let in one at a time ([`Walk::admit`]),
/// each page's end told after them ([`Walk::end_page`]): a page's `count`
/// may come after its rows.
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
    /// A walk whose count the first page's end sets.
    pub fn new<T>(list: &List<T>, page_size: u64, cap: u64) -> Walk {
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
                count: 0,
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

    /// Counts a row in against the cap; gives it back unless it was handed
    /// over already (a repeat, dropped and counted).
    pub fn admit<T: Row>(&mut self, row: T) -> Result<Option<T>> {
        self.received = self.received.saturating_add(1);
        if self.received > self.cap {
            return Err(Error::TooManyRows {
                request: self.request.clone(),
                limit: self.cap,
            });
        }
        if self.rows_seen.insert(self.hasher.hash_one(row.row_id())) {
            self.seen.rows += 1;
            Ok(Some(row))
        } else {
            self.seen.repeated += 1;
            Ok(None)
        }
    }

    /// Counts a page in against the limits once its rows are in: the first
    /// sets the count the others are held to (a count that grows as pages
    /// arrive must not stretch the limits, and says the list changed).
    pub fn end_page(&mut self, head: &Head) -> Result<()> {
        self.pages += 1;
        if self.pages == 1 {
            self.seen.count = head.count;
        } else if head.count != self.seen.count && self.seen.changed_to.is_none() {
            self.seen.changed_to = Some(head.count);
        }
        if head.rows == 0 && head.next.is_some() {
            return Err(self.error("the server sent an empty page that links to another".into()));
        }
        let count = self.seen.count;
        if self.received > count.saturating_add(self.page_size) {
            return Err(self.error(format!(
                "the server sent {} rows where its count said {count}",
                self.received
            )));
        }
        if head.rows > 0 {
            self.smallest_page = self.smallest_page.min(head.rows);
        }
        let most_pages = (count / self.smallest_page).saturating_add(2);
        if self.pages > most_pages {
            return Err(self.error(format!(
                "the server sent {} pages where its count of {count} allows {most_pages}",
                self.pages
            )));
        }
        Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::models::Role;

    /// A page of rows by id, under `count`, linking onward or not.
    type Page = (Vec<u64>, u64, bool);

    fn walk(pages: Vec<Page>) -> Result<Complete> {
        let list = List::roles("@current");
        let mut walk = Walk::new(&list, 3, 1000);
        for (ids, count, next) in pages {
            for id in &ids {
                walk.admit(Role {
                    id: id.to_string(),
                    ..Role::default()
                })?;
            }
            walk.end_page(&Head {
                count,
                next: next.then(|| "http://h/next".into()),
                rows: ids.len() as u64,
            })?;
        }
        walk.verdict(1)
    }

    #[test]
    fn the_verdict_takes_a_list_whole_only_as_its_count_said() {
        let whole = walk(vec![(vec![1, 2, 3], 5, true), (vec![4, 5], 5, false)]);
        assert_eq!(whole.map(|complete| complete.rows()), Ok(5));
        // More rows than the count said, each once: nothing is missing.
        assert!(walk(vec![(vec![1, 2, 3], 2, false)]).is_ok());
        let incomplete = |result: Result<Complete>| match result {
            Err(Error::Incomplete(incomplete)) => *incomplete,
            other => panic!("{other:?}"),
        };
        let short = incomplete(walk(vec![(vec![1, 2, 3], 5, false)]));
        assert_eq!((short.rows, short.count, short.repeated), (3, 5, 0));
        assert_eq!(short.list, "roles");
        assert!(
            short.to_string().contains(
                "the list of roles came back incomplete: it ended after 3 rows where the server's count said 5"
            ),
            "{short}"
        );
        let repeated = incomplete(walk(vec![(vec![1, 2, 3], 5, true), (vec![3, 1], 5, false)]));
        assert_eq!((repeated.rows, repeated.repeated), (3, 2));
        assert_eq!(repeated.warnings().len(), 2, "{:?}", repeated.warnings());
        let changed = incomplete(walk(vec![(vec![1, 2, 3], 5, true), (vec![4, 5, 6], 6, false)]));
        assert_eq!(changed.changed_to, Some(6));
        assert!(
            changed.to_string().contains("changed while it was read"),
            "{changed}"
        );
    }

    #[test]
    fn a_server_that_breaks_the_limits_is_stopped() {
        let stopped = |pages: Vec<Page>| match walk(pages) {
            Err(Error::EndlessList { reason, .. }) => reason,
            other => panic!("{other:?}"),
        };
        assert!(stopped(vec![(vec![], 5, true)]).contains("empty page that links"));
        assert!(
            stopped(vec![(vec![1, 2, 3], 2, true), (vec![4, 5, 6], 2, true)])
                .contains("rows where its count said 2")
        );
        let list = List::roles("@current");
        let mut capped = Walk::new(&list, 3, 2);
        let role = |id: &str| Role {
            id: id.into(),
            ..Role::default()
        };
        assert!(capped.admit(role("a")).is_ok() && capped.admit(role("b")).is_ok());
        assert!(matches!(
            capped.admit(role("c")),
            Err(Error::TooManyRows { limit: 2, .. })
        ));
    }
}
