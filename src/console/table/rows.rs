//! The rows of one table: the virtual list, the cursor and scroll position,
//! and an optional local view (rows filtered or sorted in the console).

use std::cmp::Ordering;

use super::paging::VirtualList;

/// An order of rows.
pub type Order<'a, T> = &'a dyn Fn(&T, &T) -> Ordering;

/// One table's rows and where the user is in them.
#[derive(Debug)]
pub struct Rows<T> {
    pub list: VirtualList<T>,
    /// The selected row, as a position in what is shown.
    pub cursor: u64,
    /// The first row on screen.
    pub top: u64,
    /// Positions in the list, when a local filter or sort is active.
    pub view: Option<Vec<u64>>,
}

impl<T> Default for Rows<T> {
    fn default() -> Self {
        Rows {
            list: VirtualList::default(),
            cursor: 0,
            top: 0,
            view: None,
        }
    }
}

impl<T> Rows<T> {
    /// Another list in this one's place (another organization, project or
    /// connection): nothing loaded or counted, no local view, the cursor at
    /// the top.
    pub fn clear(&mut self) {
        self.list.replace();
        self.view = None;
        self.cursor = 0;
        self.top = 0;
    }
}

impl<T> Rows<T> {
    /// Rows shown.
    pub fn len(&self) -> u64 {
        match &self.view {
            Some(view) => view.len() as u64,
            None => self.list.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The list position of a shown row.
    pub fn index(&self, shown: u64) -> Option<u64> {
        match &self.view {
            Some(view) => view.get(shown as usize).copied(),
            None => (shown < self.list.len()).then_some(shown),
        }
    }

    /// The row shown at a position, when loaded.
    pub fn row(&self, shown: u64) -> Option<&T> {
        self.index(shown).and_then(|index| self.list.get(index))
    }

    pub fn selected(&self) -> Option<&T> {
        self.row(self.cursor)
    }

    /// Moves the cursor (clamped to the rows) and scrolls so that it shows
    /// in a window of `height` rows.
    pub fn move_to(&mut self, position: i64, height: u64) {
        let last = self.len().saturating_sub(1) as i64;
        self.cursor = position.clamp(0, last.max(0)) as u64;
        self.scroll(height);
    }

    /// Keeps the cursor inside a window of `height` rows.
    pub fn scroll(&mut self, height: u64) {
        let height = height.max(1);
        if self.cursor < self.top {
            self.top = self.cursor;
        } else if self.cursor >= self.top + height {
            self.top = self.cursor + 1 - height;
        }
        let max_top = self.len().saturating_sub(height);
        self.top = self.top.min(max_top);
    }

    /// Offsets to fetch for what is on screen and one page ahead.
    ///
    /// With a local view (filter or sort) the rows loaded are what it works
    /// on: all of them are fetched only when the list is at most `fill_limit`
    /// rows long (roles, members); otherwise (subscriptions, which the server
    /// searches) nothing more is fetched.
    pub fn wanted(&mut self, height: u64, fill_limit: Option<u64>, ahead: bool) -> Vec<u64> {
        if self.view.is_some() {
            let small = fill_limit.is_some_and(|limit| self.list.count().is_none_or(|count| count <= limit));
            return if small { self.list.wanted_all() } else { Vec::new() };
        }
        let last = self.top + height.max(1);
        let mut offsets = self
            .list
            .wanted(self.top.min(self.cursor), last.max(self.cursor), ahead);
        if !self.list.is_loading() || offsets.is_empty() {
            self.list.evict_far_from(self.cursor);
        }
        offsets.sort_unstable();
        offsets
    }

    /// Filters (rows `keep` says yes to, for a lowercase needle) and sorts
    /// the loaded rows locally; no filter and no sort shows the list as the
    /// server orders it.
    pub fn apply_view(
        &mut self,
        filter: &str,
        keep: impl Fn(&T, &str) -> bool,
        order: Option<Order<'_, T>>,
        narrowed: bool,
    ) {
        let needle = filter.trim().to_lowercase();
        if needle.is_empty() && order.is_none() && !narrowed {
            self.view = None;
            return;
        }
        let mut shown: Vec<(u64, &T)> = self.list.loaded().filter(|(_, row)| keep(row, &needle)).collect();
        if let Some(order) = order {
            shown.sort_by(|(_, a), (_, b)| order(a, b));
        }
        self.view = Some(shown.into_iter().map(|(index, _)| index).collect());
    }

    /// Puts the cursor on the row whose id (as `id_of` says) is `id`, if it
    /// is loaded.
    pub fn select_id(&mut self, id: &str, id_of: impl Fn(&T) -> String, height: u64) -> bool {
        match self.list.position(|row| id_of(row) == id) {
            Some(index) => self.select_index(index, height),
            None => false,
        }
    }

    /// Puts the cursor on the row at this position in the list, if shown.
    pub fn select_index(&mut self, index: u64, height: u64) -> bool {
        let shown = match &self.view {
            Some(view) => view.iter().position(|&at| at == index).map(|at| at as u64),
            None => Some(index),
        };
        if let Some(shown) = shown {
            self.move_to(shown as i64, height);
        }
        shown.is_some()
    }
}
