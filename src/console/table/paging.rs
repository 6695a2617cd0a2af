//! Virtual lists: the table knows the server's `count`, keeps the pages it
//! has fetched by offset, asks for the pages around the cursor (and one
//! ahead), and drops pages far from the cursor so memory stays bounded
//! however long the list. Drawing reads only the rows on screen.

use std::collections::{BTreeMap, BTreeSet};

use crate::console::kit::latest::{Latest, Ticket};

/// Rows per request.
pub const PAGE_SIZE: u64 = 100;

/// Pages kept on each side of the cursor's page; farther ones are dropped.
const KEEP_AROUND: u64 = 5;

/// Counts beyond this are not believed: no list the console shows holds a
/// billion rows, and a server saying so is broken or hostile.
pub const MAX_BELIEVED_COUNT: u64 = 1_000_000_000;

/// The rows of one list as far as they are known.
#[derive(Debug)]
pub struct VirtualList<T> {
    count: Option<u64>,
    pages: BTreeMap<u64, Vec<T>>,
    /// Pages kept from an older generation while a refresh fetches them
    /// again: shown (with their last known rows) rather than turned into
    /// placeholders, and asked for like pages not loaded.
    stale: BTreeSet<u64>,
    pending: BTreeSet<u64>,
    /// Changes whenever what the list shows changes (refresh, filter,
    /// another role): answers for an older generation are dropped.
    generation: Latest,
    /// The last request of this generation failed.
    failed: bool,
    /// Whether an answer of this generation has arrived. Until one has, the
    /// count is the previous generation's, kept so the cursor stays put: a
    /// list that was empty then must still ask for its first page.
    answered: bool,
}

impl<T> Default for VirtualList<T> {
    fn default() -> Self {
        VirtualList {
            count: None,
            pages: BTreeMap::new(),
            stale: BTreeSet::new(),
            pending: BTreeSet::new(),
            generation: Latest::default(),
            failed: false,
            answered: false,
        }
    }
}

impl<T> VirtualList<T> {
    /// Starts over (a refresh, another filter): a new generation with no
    /// pages. The count is kept so the cursor stays put until answers come.
    pub fn restart(&mut self) -> Ticket {
        self.pages.clear();
        self.refresh()
    }

    /// Starts over for the same rows (a refresh): a new generation whose
    /// pages are fetched again, the rows loaded so far kept as stale until
    /// their page comes back. Nothing turns into a placeholder meanwhile,
    /// and a refresh that fails leaves the last known rows.
    pub fn refresh(&mut self) -> Ticket {
        let generation = self.generation.issue();
        self.stale = self.pages.keys().copied().collect();
        self.pending.clear();
        self.failed = false;
        self.answered = false;
        generation
    }

    /// Keeps only the first `pages` pages (a list paged by cursor knows
    /// the link of its first page alone after a refresh).
    pub fn keep_first(&mut self, pages: u64) {
        self.pages.retain(|&page, _| page < pages);
        self.stale.retain(|&page| page < pages);
    }

    /// Whether the row at `index` is kept from before a refresh.
    pub fn is_stale(&self, index: u64) -> bool {
        self.stale.contains(&(index / PAGE_SIZE))
    }

    /// Whether some rows are kept from before a refresh.
    pub fn has_stale(&self) -> bool {
        !self.stale.is_empty()
    }

    /// Starts over for a different list, whose count is unknown.
    pub fn replace(&mut self) -> Ticket {
        self.count = None;
        self.restart()
    }

    pub fn generation(&self) -> Ticket {
        self.generation.current()
    }

    /// The server's count, once an answer has said it.
    pub fn count(&self) -> Option<u64> {
        self.count
    }

    /// Rows to show: the count, or 0 before the first answer.
    pub fn len(&self) -> u64 {
        self.count.unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the last request for this list failed (until one succeeds).
    pub fn has_failed(&self) -> bool {
        self.failed
    }

    pub fn is_loading(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Whether every row is loaded (and none is stale).
    pub fn is_complete(&self) -> bool {
        self.stale.is_empty()
            && self.count.is_some_and(|count| {
                (0..count.div_ceil(PAGE_SIZE)).all(|page| self.pages.contains_key(&page))
            })
    }

    pub fn get(&self, index: u64) -> Option<&T> {
        self.pages
            .get(&(index / PAGE_SIZE))
            .and_then(|rows| rows.get((index % PAGE_SIZE) as usize))
    }

    /// Every loaded row with its index, in order.
    pub fn loaded(&self) -> impl Iterator<Item = (u64, &T)> {
        self.pages.iter().flat_map(|(page, rows)| {
            rows.iter()
                .enumerate()
                .map(move |(at, row)| (page * PAGE_SIZE + at as u64, row))
        })
    }

    /// One past the last row loaded.
    fn loaded_end(&self) -> u64 {
        self.pages
            .last_key_value()
            .map(|(page, rows)| page * PAGE_SIZE + rows.len() as u64)
            .unwrap_or(0)
    }

    /// How many rows are held in memory.
    pub fn held(&self) -> usize {
        self.pages.values().map(Vec::len).sum()
    }

    /// The offsets to fetch so that rows `first..=last` (and the page after
    /// them, `ahead`) are loaded; they are marked as in flight. Before the
    /// first answer, that is the page holding `first`.
    pub fn wanted(&mut self, first: u64, last: u64, ahead: bool) -> Vec<u64> {
        let pages: Vec<u64> = match self.count {
            None => vec![first / PAGE_SIZE],
            Some(0) if !self.answered => vec![0],
            Some(0) => Vec::new(),
            Some(count) => {
                let last_page = (count - 1) / PAGE_SIZE;
                let from = (first / PAGE_SIZE).min(last_page);
                let to = (last.min(count - 1) / PAGE_SIZE + u64::from(ahead)).min(last_page);
                (from..=to).collect()
            }
        };
        self.request(pages)
    }

    /// One past the last row of the pages loaded (in this generation) from
    /// the first without a gap.
    pub fn prefix_end(&self) -> u64 {
        let mut end = 0;
        for (page, rows) in &self.pages {
            if *page * PAGE_SIZE != end || self.stale.contains(page) {
                break;
            }
            end += rows.len() as u64;
            if rows.len() as u64 != PAGE_SIZE {
                break;
            }
        }
        end
    }

    /// Whether an answer of this generation has arrived.
    pub fn has_answered(&self) -> bool {
        self.answered
    }

    /// The offset of one page, unless loaded or in flight (then marked so).
    pub fn want_page(&mut self, page: u64) -> Vec<u64> {
        self.request(vec![page])
    }

    /// The offsets of every page not yet loaded, marked as in flight.
    pub fn wanted_all(&mut self) -> Vec<u64> {
        let pages: Vec<u64> = match self.count {
            None => vec![0],
            Some(0) if !self.answered => vec![0],
            Some(count) => (0..count.div_ceil(PAGE_SIZE)).collect(),
        };
        self.request(pages)
    }

    fn request(&mut self, pages: Vec<u64>) -> Vec<u64> {
        pages
            .into_iter()
            .filter(|page| {
                (!self.pages.contains_key(page) || self.stale.contains(page)) && self.pending.insert(*page)
            })
            .map(|page| page * PAGE_SIZE)
            .collect()
    }

    /// Takes an answer; `false` when it belongs to an older generation.
    pub fn receive(&mut self, generation: Ticket, offset: u64, count: u64, mut rows: Vec<T>) -> bool {
        if !self.generation.is_current(generation) {
            return false;
        }
        // A page was asked for: a server sending more gets no more room.
        rows.truncate(PAGE_SIZE as usize);
        let page = offset / PAGE_SIZE;
        self.pending.remove(&page);
        self.failed = false;
        self.answered = true;
        let count = if count <= MAX_BELIEVED_COUNT {
            count
        } else {
            // An absurd count is as good as none: the list is as long as
            // what arrived, and one row longer while pages come full, so
            // that moving down asks for the next page.
            let end = (offset + rows.len() as u64).max(self.loaded_end());
            end + u64::from(rows.len() as u64 == PAGE_SIZE)
        };
        self.count = Some(count);
        // A shorter list than before drops pages past its end.
        self.pages.retain(|&kept, _| kept * PAGE_SIZE < count);
        self.stale.retain(|&kept| kept * PAGE_SIZE < count);
        self.stale.remove(&page);
        if offset < count || rows.is_empty() {
            self.pages.insert(page, rows);
        }
        true
    }

    /// A request that failed is no longer in flight (it may be asked again).
    pub fn failed(&mut self, generation: Ticket, offset: u64) -> bool {
        if !self.generation.is_current(generation) {
            return false;
        }
        self.pending.remove(&(offset / PAGE_SIZE));
        self.failed = true;
        true
    }

    /// The index of the first loaded row that matches.
    pub fn position(&self, matches: impl Fn(&T) -> bool) -> Option<u64> {
        self.loaded()
            .find(|(_, row)| matches(row))
            .map(|(index, _)| index)
    }

    /// The index of the first row of this generation (not a stale one)
    /// that matches.
    pub fn fresh_position(&self, matches: impl Fn(&T) -> bool) -> Option<u64> {
        self.loaded()
            .find(|(index, row)| !self.is_stale(*index) && matches(row))
            .map(|(index, _)| index)
    }

    /// Puts a changed row in place of the one at `index`, if loaded.
    pub fn replace_row(&mut self, index: u64, row: T) {
        if let Some(slot) = self
            .pages
            .get_mut(&(index / PAGE_SIZE))
            .and_then(|rows| rows.get_mut((index % PAGE_SIZE) as usize))
        {
            *slot = row;
        }
    }

    /// Takes the row at `index` out. Later rows move up one: pages after it
    /// are dropped to be fetched again, and so is its own unless it is the last.
    pub fn remove_row(&mut self, index: u64) {
        let Some(count) = self.count.filter(|&count| index < count) else {
            return;
        };
        let page = index / PAGE_SIZE;
        if let Some(rows) = self.pages.get_mut(&page) {
            let at = (index % PAGE_SIZE) as usize;
            if at < rows.len() {
                rows.remove(at);
            }
        }
        self.count = Some(count - 1);
        let last_page = (count - 1).saturating_sub(1) / PAGE_SIZE;
        self.pages
            .retain(|&kept, _| kept < page || (kept == page && page == last_page));
        let pages = &self.pages;
        self.stale.retain(|kept| pages.contains_key(kept));
    }

    /// Adds a row at the end (a new role, in creation order).
    pub fn push_row(&mut self, row: T) {
        let index = self.len();
        let page = index / PAGE_SIZE;
        match self.pages.get_mut(&page) {
            Some(rows) => rows.push(row),
            None if index.is_multiple_of(PAGE_SIZE) => {
                self.pages.insert(page, vec![row]);
            }
            None => {}
        }
        self.count = Some(index + 1);
    }

    /// Takes every row out, in order (a list held whole in memory, about
    /// to be put back with more: [`VirtualList::hold_all`]).
    pub fn take_all(&mut self) -> Vec<T> {
        self.stale.clear();
        let pages = std::mem::take(&mut self.pages);
        pages.into_values().flatten().collect()
    }

    /// Holds a whole list the console has in memory (a health look's
    /// rows, never fetched by page): every row, counted, nothing in flight.
    pub fn hold_all(&mut self, rows: Vec<T>) {
        self.pending.clear();
        self.failed = false;
        self.answered = true;
        self.count = Some(rows.len() as u64);
        self.pages.clear();
        self.stale.clear();
        let mut rows = rows.into_iter().peekable();
        let mut page = 0;
        while rows.peek().is_some() {
            self.pages
                .insert(page, rows.by_ref().take(PAGE_SIZE as usize).collect());
            page += 1;
        }
    }

    /// Drops pages far from `index`, keeping memory bounded.
    pub fn evict_far_from(&mut self, index: u64) {
        let center = index / PAGE_SIZE;
        self.pages.retain(|&page, _| page.abs_diff(center) <= KEEP_AROUND);
        self.stale.retain(|&page| page.abs_diff(center) <= KEEP_AROUND);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_held_in_memory_is_whole_in_pages_and_taken_back_in_order() {
        let mut list: VirtualList<u32> = VirtualList::default();
        list.hold_all((0..250).collect());
        assert_eq!(list.count(), Some(250));
        assert!(list.is_complete() && !list.is_loading());
        assert_eq!(list.get(249), Some(&249));
        assert_eq!(list.take_all(), (0..250).collect::<Vec<_>>());
        list.hold_all(Vec::new());
        assert_eq!(list.count(), Some(0));
        assert!(list.has_answered());
    }

    #[test]
    fn a_page_holds_no_more_rows_than_were_asked_for() {
        let mut list: VirtualList<u32> = VirtualList::default();
        let generation = list.restart();
        list.wanted(0, 10, true);
        assert!(list.receive(generation, 0, 100_000, (0..50_000).collect()));
        assert_eq!(list.held(), PAGE_SIZE as usize);
    }

    #[test]
    fn an_absurd_count_is_not_believed() {
        let mut list: VirtualList<u32> = VirtualList::default();
        let generation = list.restart();
        assert_eq!(list.wanted(0, 10, true), vec![0]);
        assert!(list.receive(generation, 0, 1_000_000_000_000_000_000, (0..100).collect()));
        assert_eq!(list.count(), Some(101));
        assert_eq!(list.wanted(90, 100, true), vec![100]);
        assert!(list.receive(generation, 100, u64::MAX, (0..7).collect()));
        assert_eq!(list.count(), Some(107));
        assert!(list.is_complete());
    }

    fn rows(offset: u64, count: u64) -> Vec<u64> {
        (offset..(offset + PAGE_SIZE).min(count)).collect()
    }

    #[test]
    fn first_the_page_at_the_cursor_then_around_it() {
        let mut list = VirtualList::<u64>::default();
        let generation = list.generation();
        assert_eq!(list.wanted(0, 40, true), vec![0]);
        assert!(list.wanted(0, 40, true).is_empty(), "already in flight");
        assert!(list.receive(generation, 0, 100_000, rows(0, 100_000)));
        assert_eq!(list.get(40), Some(&40));
        assert_eq!(list.get(100), None);
        // One page ahead of what is on screen.
        assert_eq!(list.wanted(0, 40, true), vec![100]);
    }

    #[test]
    fn the_end_is_one_page_away() {
        let mut list = VirtualList::<u64>::default();
        let generation = list.generation();
        list.wanted(0, 40, true);
        list.receive(generation, 0, 100_000, rows(0, 100_000));
        // Jumping to the end fetches the last page, not the ones between.
        assert_eq!(list.wanted(99_960, 99_999, true), vec![99_900]);
        list.receive(generation, 99_900, 100_000, rows(99_900, 100_000));
        assert_eq!(list.get(99_999), Some(&99_999));
    }

    #[test]
    fn stale_answers_are_dropped() {
        let mut list = VirtualList::<u64>::default();
        let old = list.generation();
        list.wanted(0, 10, true);
        let new = list.restart();
        assert!(!list.receive(old, 0, 5, vec![1, 2, 3, 4, 5]));
        assert_eq!(list.get(0), None);
        assert_eq!(list.wanted(0, 10, true), vec![0], "the new generation asks again");
        assert!(list.receive(new, 0, 5, vec![1, 2, 3, 4, 5]));
        assert!(list.is_complete());
    }

    #[test]
    fn memory_stays_bounded_while_scrolling() {
        let mut list = VirtualList::<u64>::default();
        let generation = list.generation();
        let count = 100_000;
        for page in 0..count / PAGE_SIZE {
            let offset = page * PAGE_SIZE;
            list.receive(generation, offset, count, rows(offset, count));
            list.evict_far_from(offset);
            assert!(list.held() as u64 <= (2 * KEEP_AROUND + 1) * PAGE_SIZE);
        }
    }

    #[test]
    fn rows_change_in_place() {
        let mut list = VirtualList::<u64>::default();
        let generation = list.generation();
        list.receive(generation, 0, 250, rows(0, 250));
        list.receive(generation, 200, 250, rows(200, 250));
        list.replace_row(5, 500);
        assert_eq!(list.get(5), Some(&500));
        assert_eq!(list.position(|row| *row == 500), Some(5));
        list.remove_row(5);
        assert_eq!(
            (list.len(), list.get(5)),
            (249, None),
            "the page is fetched again"
        );
        assert_eq!(list.get(200), None, "later pages shifted: fetched again");
        let mut small = VirtualList::<u64>::default();
        small.receive(small.generation(), 0, 3, vec![1, 2, 3]);
        small.remove_row(1);
        assert_eq!(
            (small.len(), small.get(1)),
            (2, Some(&3)),
            "the last page is kept"
        );
        small.push_row(9);
        assert_eq!((small.len(), small.get(2)), (3, Some(&9)));
    }

    #[test]
    fn a_list_that_was_empty_asks_again_when_it_starts_over() {
        let mut list = VirtualList::<u64>::default();
        let generation = list.generation();
        assert_eq!(list.wanted(0, 10, true), vec![0]);
        assert!(list.receive(generation, 0, 0, Vec::new()));
        assert!(list.wanted(0, 10, true).is_empty(), "answered: nothing there");
        let generation = list.restart();
        assert_eq!(list.wanted(0, 10, true), vec![0], "a new generation asks");
        assert_eq!(list.wanted_all(), Vec::<u64>::new(), "once");
        assert!(list.receive(generation, 0, 3, vec![1, 2, 3]));
        assert_eq!(list.len(), 3);
        list.restart();
        list.count = Some(0);
        assert_eq!(list.wanted_all(), vec![0]);
    }

    #[test]
    fn a_refresh_keeps_the_rows_as_stale_until_their_page_comes_back() {
        let mut list = VirtualList::<u64>::default();
        let old = list.generation();
        list.receive(old, 0, 250, rows(0, 250));
        list.receive(old, 100, 250, rows(100, 250));
        let new = list.refresh();
        assert_eq!(list.get(120), Some(&120), "still shown");
        assert!(list.is_stale(120) && list.has_stale() && !list.is_complete());
        assert_eq!(list.prefix_end(), 0, "a narrowed look reads them again");
        assert_eq!(list.wanted(0, 10, true), vec![0, 100], "asked for again");
        assert!(list.receive(new, 0, 251, (1000..1100).collect()));
        assert!(!list.is_stale(0) && list.is_stale(100));
        assert_eq!(
            list.fresh_position(|row| *row == 120),
            None,
            "only in a stale page"
        );
        assert_eq!(list.position(|row| *row == 120), Some(120));
        assert!(list.failed(new, 100));
        assert_eq!(list.get(120), Some(&120), "a failed refresh leaves the last rows");
        list.restart();
        assert_eq!(
            (list.get(0), list.has_stale()),
            (None, false),
            "other rows: none kept"
        );
    }

    #[test]
    fn a_shrinking_list_drops_pages_past_its_end() {
        let mut list = VirtualList::<u64>::default();
        let generation = list.generation();
        list.receive(generation, 0, 250, rows(0, 250));
        list.receive(generation, 200, 250, rows(200, 250));
        list.receive(generation, 100, 150, rows(100, 150));
        assert_eq!(list.len(), 150);
        assert_eq!(list.get(200), None);
        assert!(list.is_complete());
    }
}
