//! Marking the rows of a table: Space on the row under the cursor, `*` on
//! every row the filter shows (fetching the pages not loaded yet), and the
//! marked rows as a bulk action sees them. Works for any list whose
//! [`Hooks`] say `MARKS` (the screens' side refuses the keys, in the
//! screen's words, on one that does not).

use std::collections::{BTreeSet, HashMap};

use super::Table;
use super::hooks::Hooks;
use super::marks::MARK_LIMIT;
use super::paging::PAGE_SIZE;
use crate::console::kit::latest::Ticket;
use crate::text::thousands;

/// `*` waiting for pages: the rows of these pages of this generation are
/// marked as they arrive.
#[derive(Debug)]
pub struct Marking {
    generation: Ticket,
    pages: BTreeSet<u64>,
    /// Rows shown when `*` was pressed: none past them is marked.
    shown: u64,
}

/// What `*` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MarkAll {
    /// Every row shown is marked: the notice says how many.
    Marked(String),
    /// Rows shown are not loaded yet: these offsets are to be fetched (they
    /// are marked in flight), and their rows are marked as they come.
    Fetching(Vec<u64>),
    /// Nothing marked, and why.
    Refused(String),
}

impl<R: Hooks> Table<R> {
    /// Space: marks the row under the cursor, or unmarks it; `Ok(true)`
    /// when it is marked now.
    pub fn toggle_mark(&mut self) -> Result<bool, String> {
        let Some(row) = self.rows.selected() else {
            return Err("no row here to mark (it may still be loading)".into());
        };
        let id = R::id(row);
        if self.marks.remove(&id) {
            return Ok(false);
        }
        if self.marks.len() >= MARK_LIMIT {
            return Err(format!(
                "at most {} rows can be marked at once: act on these first, or Esc clears them",
                thousands(MARK_LIMIT as u64)
            ));
        }
        let row = row.clone();
        self.marks.insert(id, row);
        Ok(true)
    }

    /// `*`: marks every row the filter shows, at most [`MARK_LIMIT`] in
    /// all. Rows not loaded (a long list the server searches) are fetched
    /// first, and marked as their pages come.
    pub fn mark_all(&mut self) -> MarkAll {
        let list = &self.rows.list;
        if list.is_loading() || self.marking.is_some() || list.count().is_none() {
            return MarkAll::Refused("the list is still loading: * once it has arrived".into());
        }
        if self.search_is_pending() {
            return MarkAll::Refused("the search is on its way: * once its answer has arrived".into());
        }
        let shown = self.rows.len();
        let limit = MARK_LIMIT as u64;
        if shown > limit {
            return MarkAll::Refused(format!(
                "* marks at most {} rows, and this list shows {}: narrow it with / first",
                thousands(limit),
                thousands(shown)
            ));
        }
        let before = self.marks.len() as u64;
        if before + shown > limit {
            return MarkAll::Refused(format!(
                "{} are marked already and the list shows {}: at most {} can be marked (Esc clears the marks)",
                thousands(before),
                thousands(shown),
                thousands(limit)
            ));
        }
        // The shown rows that are loaded, marked now; the pages of those
        // that are not (only without a local view: a view holds loaded rows).
        let mut missing = BTreeSet::new();
        for at in 0..shown {
            match self.rows.row(at) {
                Some(row) => {
                    self.marks.insert(R::id(row), row.clone());
                }
                None => {
                    if let Some(index) = self.rows.index(at) {
                        missing.insert(index / PAGE_SIZE);
                    }
                }
            }
        }
        if missing.is_empty() {
            return MarkAll::Marked(self.marked_notice(shown));
        }
        let mut offsets = Vec::new();
        for page in &missing {
            offsets.extend(self.rows.list.want_page(*page));
        }
        self.marking = Some(Marking {
            generation: self.rows.list.generation(),
            pages: missing,
            shown,
        });
        MarkAll::Fetching(offsets)
    }

    fn search_is_pending(&self) -> bool {
        self.resource
            .searched()
            .is_some_and(|searched| searched != self.filter.trim())
    }

    fn marked_notice(&self, shown: u64) -> String {
        format!(
            "marked the {} the filter shows ({} marked in all): d, p or t act on every marked row · Esc clears",
            crate::text::counted(shown as usize, R::NOUN),
            thousands(self.marks.len() as u64)
        )
    }

    /// A page arrived (already taken into the rows): marked rows on it are
    /// refreshed, and a `*` waiting for it marks its rows.
    pub fn marks_seen(&mut self, generation: Ticket, offset: u64) {
        if self.marks.is_empty() && self.marking.is_none() {
            return;
        }
        let page = offset / PAGE_SIZE;
        let end = offset + PAGE_SIZE;
        let waited = self
            .marking
            .as_ref()
            .filter(|marking| marking.generation == generation && marking.pages.contains(&page))
            .map(|marking| marking.shown);
        for index in offset..end {
            let Some(row) = self.rows.list.get(index) else {
                break;
            };
            let id = R::id(row);
            match waited {
                Some(shown) if index < shown => {
                    self.marks.insert(id, row.clone());
                }
                _ => self.marks.refresh(&id, row),
            }
        }
        if waited.is_none() {
            return;
        }
        if let Some(marking) = self.marking.as_mut() {
            marking.pages.remove(&page);
            if marking.pages.is_empty() {
                let shown = marking.shown;
                self.marking = None;
                self.mark_news = Some(Ok(self.marked_notice(shown)));
            }
        }
    }

    /// A page `*` waited for failed, or the list started over: the rows
    /// marked so far stay marked, and the news says so.
    pub fn marking_stopped(&mut self, generation: Option<Ticket>, offset: Option<u64>) {
        let stops = self.marking.as_ref().is_some_and(|marking| {
            generation.is_none_or(|generation| marking.generation == generation)
                && offset.is_none_or(|offset| marking.pages.contains(&(offset / PAGE_SIZE)))
        });
        if stops {
            self.marking = None;
            self.mark_news = Some(Err(format!(
                "not every row could be loaded to be marked: {} marked; * tries again",
                thousands(self.marks.len() as u64)
            )));
        }
    }

    /// The marked rows, in the order marked: as loaded now where they are,
    /// else as last seen.
    pub fn marked_rows(&self) -> Vec<&R::Row> {
        let loaded: HashMap<String, &R::Row> = self
            .rows
            .list
            .loaded()
            .map(|(_, row)| (R::id(row), row))
            .filter(|(id, _)| self.marks.contains(id))
            .collect();
        self.marks
            .iter()
            .map(|(id, kept)| loaded.get(id).copied().unwrap_or(kept))
            .collect()
    }

    /// The marked rows, when there are any on a list that takes marks:
    /// what a bulk key acts on.
    pub fn marked_if_any(&self) -> Option<Vec<&R::Row>> {
        (R::MARKS && !self.marks.is_empty()).then(|| self.marked_rows())
    }
}
