//! Moving through the lists: the cursor, tabs, paging and reloading.

use super::{
    App, ChosenRole, Effect, ListId, MEMBER_SORTS, Notice, Query, ROLE_SORTS, SUBSCRIPTION_ORDERINGS, Tab,
    Ticket,
};
use crate::api::Page;
use crate::console::list::PAGE_SIZE;
use crate::console::rows::{Rows, Tabular};

/// The longest list filtered or sorted in the console as a whole.
const LOCAL_VIEW_LIMIT: u64 = 5_000;

impl App {
    pub(super) fn move_by(&mut self, delta: i64) -> Vec<Effect> {
        let cursor = self.with_rows(|rows, _| rows.cursor()) as i64;
        self.move_to(cursor.saturating_add(delta))
    }

    pub(super) fn move_to(&mut self, position: i64) -> Vec<Effect> {
        let height = self.table_height();
        self.detail_scroll = 0;
        self.with_rows(|rows, _| rows.move_to(position, height));
        self.fetch_visible()
    }

    pub(super) fn rescroll(&mut self) {
        let height = self.table_height();
        self.with_rows(|rows, _| rows.scroll(height));
    }

    /// Runs `f` on the rows shown, whatever their kind.
    pub(super) fn with_rows<R>(&mut self, f: impl FnOnce(&mut dyn RowsAccess, ListId) -> R) -> R {
        match self.shown() {
            ListId::Roles => f(&mut self.roles, ListId::Roles),
            ListId::Members => f(&mut self.members, ListId::Members),
            ListId::Subscriptions => f(&mut self.subscriptions, ListId::Subscriptions),
        }
    }

    pub(super) fn query(&self, list: ListId) -> Query {
        match list {
            ListId::Roles => Query::Roles {
                organization: self.context.organization.clone(),
            },
            ListId::Members => Query::Members {
                organization: self.context.organization.clone(),
                role: self.role.as_ref().map(|role| role.id.clone()).unwrap_or_default(),
            },
            ListId::Subscriptions => Query::Subscriptions {
                project: self.context.project.clone(),
                filter: self.subscription_filter.clone(),
            },
        }
    }

    /// Fetches the pages the shown table needs.
    pub(super) fn fetch_visible(&mut self) -> Vec<Effect> {
        let height = self.table_height();
        let list = self.shown();
        // Roles and members are filtered and sorted whole; subscriptions by the server.
        let fill_limit = (list != ListId::Subscriptions).then_some(LOCAL_VIEW_LIMIT);
        let (generation, offsets) =
            self.with_rows(|rows, _| (rows.generation(), rows.wanted(height, fill_limit)));
        let query = self.query(list);
        offsets
            .into_iter()
            .map(|offset| Effect::Fetch {
                list,
                generation,
                query: query.clone(),
                offset,
                limit: PAGE_SIZE,
            })
            .collect()
    }

    /// Starts a list over: a new generation, from the first page
    /// (`from_start`) or around the cursor (a refresh).
    pub(super) fn reload(&mut self, list: ListId, from_start: bool) -> Vec<Effect> {
        match list {
            ListId::Roles => restart(&mut self.roles, from_start),
            ListId::Members => restart(&mut self.members, from_start),
            ListId::Subscriptions => restart(&mut self.subscriptions, from_start),
        }
        if self.shown() == list {
            self.fetch_visible()
        } else {
            Vec::new()
        }
    }

    /// `r`: the list again from the server, the cursor kept on its row.
    /// While the list is still loading (a slow or throttled server, whose
    /// wait the footer shows), a second `r` sends nothing more.
    pub(super) fn refresh(&mut self) -> Vec<Effect> {
        if self.with_rows(|rows, _| rows.is_loading()) {
            self.notice = Some(Notice::done(
                "still loading: the request on its way is not sent again".into(),
            ));
            return Vec::new();
        }
        let slot = self.tab_slot();
        let selected = self.with_rows(|rows, _| rows.selected_id());
        self.refocus[slot] = selected;
        let list = self.shown();
        self.reload(list, false)
    }

    pub(super) fn open(&mut self) -> Vec<Effect> {
        if self.shown() != ListId::Roles {
            // A subscription or a member opens its detail over the table.
            self.detail_open = !self.detail_open;
            self.detail_scroll = 0;
            return Vec::new();
        }
        let Some(role) = self.roles.selected().cloned() else {
            return Vec::new();
        };
        let chosen = ChosenRole {
            id: role.id,
            name: role.name,
        };
        let same = self.role.as_ref() == Some(&chosen);
        self.role = Some(chosen);
        self.members_opened_from = self.tab;
        self.tab = Tab::Members;
        if same {
            return self.fetch_visible();
        }
        self.filters[1].clear();
        self.sorts[1] = 0;
        self.members.view = None;
        self.members.list.replace();
        self.members.cursor = 0;
        self.members.top = 0;
        self.fetch_visible()
    }

    pub(super) fn cycle_sort(&mut self) -> Vec<Effect> {
        let slot = self.tab_slot();
        if slot == 2 {
            self.sorts[2] = (self.sorts[2] + 1) % SUBSCRIPTION_ORDERINGS.len();
            self.subscription_filter.ordering =
                (self.sorts[2] > 0).then(|| SUBSCRIPTION_ORDERINGS[self.sorts[2]].0.to_string());
            self.subscriptions.cursor = 0;
            self.subscriptions.top = 0;
            return self.reload(ListId::Subscriptions, true);
        }
        let columns = if slot == 0 {
            ROLE_SORTS.len()
        } else {
            MEMBER_SORTS.len()
        };
        self.sorts[slot] = (self.sorts[slot] + 1) % columns;
        self.apply_view();
        self.fetch_visible()
    }

    /// Recomputes the local view of the shown list.
    pub(super) fn apply_view(&mut self) {
        let slot = self.tab_slot();
        let filter = self.filters[slot].clone();
        let sort = (self.sorts[slot] > 0).then_some(self.sorts[slot]);
        let height = self.table_height();
        match slot {
            0 => self.roles.apply_view(&filter, sort),
            1 => self.members.apply_view(&filter, sort),
            _ => {
                // Once the server has searched for the text, its answer is the view.
                let searched = self.subscription_filter.search.as_deref().unwrap_or("") == filter.trim();
                self.subscriptions
                    .apply_view(if searched { "" } else { &filter }, None);
            }
        }
        self.with_rows(|rows, _| rows.scroll(height));
    }
}

pub(super) fn restart<T: Tabular>(rows: &mut Rows<T>, from_start: bool) {
    rows.list.restart();
    if from_start {
        rows.cursor = 0;
        rows.top = 0;
    }
}

pub(super) fn receive<T: Tabular>(
    rows: &mut Rows<T>,
    generation: Ticket,
    offset: u64,
    page: Page<T>,
) -> bool {
    let accepted = rows.list.receive(generation, offset, page.count, page.results);
    if accepted && rows.view.is_none() && rows.cursor >= rows.len() {
        rows.cursor = rows.len().saturating_sub(1);
    }
    accepted
}

/// What the app does with rows of any kind.
pub(super) trait RowsAccess {
    fn cursor(&self) -> u64;
    fn generation(&self) -> Ticket;
    fn wanted(&mut self, height: u64, fill_limit: Option<u64>) -> Vec<u64>;
    fn move_to(&mut self, position: i64, height: u64);
    fn scroll(&mut self, height: u64);
    fn selected_id(&self) -> Option<String>;
    fn selected_json(&self) -> Option<String>;
    fn reset_cursor(&mut self);
    fn is_loading(&self) -> bool;
}

impl<T: Tabular> RowsAccess for Rows<T> {
    fn cursor(&self) -> u64 {
        self.cursor
    }

    fn generation(&self) -> Ticket {
        self.list.generation()
    }

    fn wanted(&mut self, height: u64, fill_limit: Option<u64>) -> Vec<u64> {
        Rows::wanted(self, height, fill_limit)
    }

    fn move_to(&mut self, position: i64, height: u64) {
        Rows::move_to(self, position, height)
    }

    fn scroll(&mut self, height: u64) {
        Rows::scroll(self, height)
    }

    fn selected_id(&self) -> Option<String> {
        self.selected().map(Tabular::id)
    }

    fn selected_json(&self) -> Option<String> {
        self.selected().map(Tabular::json)
    }

    fn reset_cursor(&mut self) {
        self.cursor = 0;
        self.top = 0;
    }

    fn is_loading(&self) -> bool {
        self.list.is_loading()
    }
}
