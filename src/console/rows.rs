//! The rows of one table: the virtual list, the cursor and scroll position,
//! and an optional local view (rows filtered or sorted in the console).

use std::cmp::Ordering;

use super::list::VirtualList;
use crate::api::{Role, RoleMembership, Subscription};

/// What the console needs of a row, whatever its kind.
pub trait Tabular {
    /// The id `y` copies and a refresh looks for.
    fn id(&self) -> String;
    /// Whether the row matches a filter (lowercase) typed with `/`.
    fn matches(&self, needle: &str) -> bool;
    /// The row as pretty JSON, for the raw view and `Y`.
    fn json(&self) -> String;
    /// Compares two rows by a local sort column.
    fn compare(&self, other: &Self, column: usize) -> Ordering;
}

fn contains(haystack: &str, needle: &str) -> bool {
    haystack.to_lowercase().contains(needle)
}

fn pretty(value: &impl serde::Serialize) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|error| format!("(cannot show: {error})"))
}

impl Tabular for Role {
    fn id(&self) -> String {
        self.id.clone()
    }

    fn matches(&self, needle: &str) -> bool {
        contains(&self.name, needle)
            || self
                .created_by
                .as_ref()
                .is_some_and(|user| contains(&user.display_name(), needle))
    }

    fn json(&self) -> String {
        pretty(self)
    }

    fn compare(&self, other: &Self, column: usize) -> Ordering {
        let members = |role: &Role| role.members.as_ref().and_then(|m| m.len()).unwrap_or(0);
        match column {
            1 => self.name.to_lowercase().cmp(&other.name.to_lowercase()),
            2 => self
                .feature_flags_access_level
                .cmp(&other.feature_flags_access_level),
            3 => members(other).cmp(&members(self)),
            _ => self.created_at.cmp(&other.created_at),
        }
    }
}

impl Tabular for RoleMembership {
    fn id(&self) -> String {
        self.id.clone()
    }

    fn matches(&self, needle: &str) -> bool {
        self.user
            .as_ref()
            .is_some_and(|user| contains(&user.display_name(), needle) || contains(&user.email, needle))
    }

    fn json(&self) -> String {
        pretty(self)
    }

    fn compare(&self, other: &Self, column: usize) -> Ordering {
        let name = |m: &RoleMembership| {
            m.user
                .as_ref()
                .map(|u| u.display_name().to_lowercase())
                .unwrap_or_default()
        };
        let email = |m: &RoleMembership| {
            m.user
                .as_ref()
                .map(|u| u.email.to_lowercase())
                .unwrap_or_default()
        };
        let level = |m: &RoleMembership| m.organization_member.as_ref().map(|o| o.level).unwrap_or(0);
        match column {
            1 => name(self).cmp(&name(other)),
            2 => email(self).cmp(&email(other)),
            3 => level(other).cmp(&level(self)),
            _ => self.joined_at.cmp(&other.joined_at),
        }
    }
}

impl Tabular for Subscription {
    fn id(&self) -> String {
        self.id.to_string()
    }

    fn matches(&self, needle: &str) -> bool {
        let text = |value: &Option<String>| value.as_deref().is_some_and(|text| contains(text, needle));
        text(&self.title) || text(&self.target_value) || text(&self.summary) || self.id.to_string() == needle
    }

    fn json(&self) -> String {
        pretty(self)
    }

    /// Subscriptions are sorted by the server; locally only by id.
    fn compare(&self, other: &Self, _column: usize) -> Ordering {
        other.id.cmp(&self.id)
    }
}

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

impl<T: Tabular> Rows<T> {
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
    pub fn wanted(&mut self, height: u64, fill_limit: Option<u64>) -> Vec<u64> {
        if self.view.is_some() {
            let small = fill_limit.is_some_and(|limit| self.list.count().is_none_or(|count| count <= limit));
            return if small { self.list.wanted_all() } else { Vec::new() };
        }
        let last = self.top + height.max(1);
        let mut offsets = self.list.wanted(self.top.min(self.cursor), last.max(self.cursor));
        if !self.list.is_loading() || offsets.is_empty() {
            self.list.evict_far_from(self.cursor);
        }
        offsets.sort_unstable();
        offsets
    }

    /// Filters and sorts the loaded rows locally; no filter and no sort
    /// shows the list as the server orders it.
    pub fn apply_view(&mut self, filter: &str, sort: Option<usize>) {
        let needle = filter.trim().to_lowercase();
        if needle.is_empty() && sort.is_none() {
            self.view = None;
            return;
        }
        let mut shown: Vec<(u64, &T)> = self
            .list
            .loaded()
            .filter(|(_, row)| row.matches(&needle))
            .collect();
        if let Some(column) = sort {
            shown.sort_by(|(_, a), (_, b)| a.compare(b, column));
        }
        self.view = Some(shown.into_iter().map(|(index, _)| index).collect());
    }

    /// Puts the cursor on the row with this id, if it is loaded.
    pub fn select_id(&mut self, id: &str, height: u64) -> bool {
        let Some(index) = self
            .list
            .loaded()
            .find(|(_, row)| row.id() == id)
            .map(|(index, _)| index)
        else {
            return false;
        };
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
