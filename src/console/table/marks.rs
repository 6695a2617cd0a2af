//! Marks (Space, `*`): rows chosen for a bulk action, kept by id, never by
//! position, so that they survive a refresh, a sort, a filter and pages
//! dropped from memory. Each marked row is kept as it was last seen (a page
//! that brings it again refreshes it), so that a bulk action knows every
//! marked row even when its page is no longer loaded.

use std::collections::HashMap;

/// The most rows marked at once: a bulk action on more would take long
/// and run into the server's rate limits (PostHog takes 480 requests a
/// minute per key); a narrower filter is the better way.
pub const MARK_LIMIT: usize = 1_000;

#[derive(Debug)]
pub struct Marks<T> {
    /// Ids in the order they were marked.
    order: Vec<String>,
    rows: HashMap<String, T>,
}

impl<T> Default for Marks<T> {
    fn default() -> Self {
        Marks {
            order: Vec::new(),
            rows: HashMap::new(),
        }
    }
}

impl<T> Marks<T> {
    pub fn len(&self) -> usize {
        self.order.len()
    }

    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    pub fn contains(&self, id: &str) -> bool {
        self.rows.contains_key(id)
    }

    /// Marks a row; `false` when it already was (its copy is refreshed).
    pub fn insert(&mut self, id: String, row: T) -> bool {
        if let Some(kept) = self.rows.get_mut(&id) {
            *kept = row;
            return false;
        }
        self.order.push(id.clone());
        self.rows.insert(id, row);
        true
    }

    /// Unmarks a row; `false` when it was not marked.
    pub fn remove(&mut self, id: &str) -> bool {
        if self.rows.remove(id).is_none() {
            return false;
        }
        self.order.retain(|kept| kept != id);
        true
    }

    /// Unmarks every row; says how many were marked.
    pub fn clear(&mut self) -> usize {
        let count = self.order.len();
        self.order.clear();
        self.rows.clear();
        count
    }

    /// A row seen again (a page brought it): its copy is refreshed if it
    /// is marked.
    pub fn refresh(&mut self, id: &str, row: &T)
    where
        T: Clone,
    {
        if let Some(kept) = self.rows.get_mut(id) {
            *kept = row.clone();
        }
    }

    /// The marked rows, in the order they were marked.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &T)> {
        self.order
            .iter()
            .filter_map(|id| self.rows.get(id).map(|row| (id.as_str(), row)))
    }

    /// Unmarks the rows `keep` says no to.
    pub fn retain(&mut self, keep: impl Fn(&str) -> bool) {
        self.order.retain(|id| keep(id));
        self.rows.retain(|id, _| keep(id));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_are_kept_by_id_in_the_order_made() {
        let mut marks = Marks::default();
        assert!(marks.insert("b".into(), 2));
        assert!(marks.insert("a".into(), 1));
        assert!(!marks.insert("b".into(), 20), "already marked: refreshed");
        assert_eq!(marks.iter().collect::<Vec<_>>(), vec![("b", &20), ("a", &1)]);
        marks.refresh("a", &10);
        marks.refresh("z", &99);
        assert_eq!(marks.len(), 2);
        assert!(marks.contains("a") && !marks.contains("z"));
        assert!(marks.remove("b") && !marks.remove("b"));
        marks.insert("c".into(), 3);
        marks.retain(|id| id != "a");
        assert_eq!(marks.iter().collect::<Vec<_>>(), vec![("c", &3)]);
        assert_eq!(marks.clear(), 1);
        assert!(marks.is_empty());
    }
}
