//! Moving through the lists: tabs, opening a row's list, the cursor,
//! paging, reloading, sorting, and taking the pages that arrive.

use strum::IntoEnumIterator;

use super::{App, Effect, Notice, ScreenId, Ticket};
use crate::api::{self, SubscriptionState};
use crate::console::kit::scope::Scope;
use crate::console::screens::ScreenPage;
use crate::console::screens::keys::Action;
use crate::console::screens::subscriptions::state_keys::Narrowed;
use crate::console::table::paging::PAGE_SIZE;

/// Where the console is: the tab chosen, the list on screen, and where
/// back goes from a list opened from another.
pub struct Navigation {
    /// The tab shown as chosen.
    pub tab: ScreenId,
    /// The list on screen: the tab's own, or the one its parent shows for
    /// a choice (the roles, on Members before a role is opened), or one
    /// opened from it (a subscription's deliveries).
    pub(super) shown: ScreenId,
    /// Where back goes from a list opened from another: the tab and list
    /// it was opened from.
    pub(super) opened_from: Option<(ScreenId, ScreenId)>,
}

impl Default for Navigation {
    /// The console starts on Roles.
    fn default() -> Self {
        Navigation {
            tab: ScreenId::Roles,
            shown: ScreenId::Roles,
            opened_from: None,
        }
    }
}

impl App {
    /// The list the current screen shows.
    pub fn shown(&self) -> ScreenId {
        self.navigation.shown
    }

    /// Where the lists live: the organization and project in use.
    pub fn scope(&self) -> Scope<'_> {
        Scope {
            organization: &self.context.organization,
            project: &self.context.project,
        }
    }

    /// The lists that are tabs, in order.
    pub fn tabs(&self) -> impl Iterator<Item = ScreenId> + '_ {
        ScreenId::iter().filter(|list| self.screens.shown(*list).tab() == *list)
    }

    /// The tab `step` places after the one chosen, going round.
    pub(super) fn next_tab(&self, step: isize) -> ScreenId {
        let tabs: Vec<ScreenId> = self.tabs().collect();
        let at = tabs
            .iter()
            .position(|tab| *tab == self.navigation.tab)
            .unwrap_or(0);
        let next = (at as isize + step).rem_euclid(tabs.len().max(1) as isize) as usize;
        tabs.get(next).copied().unwrap_or(self.navigation.tab)
    }

    /// A tab: its list, or, where that list needs a row of its parent
    /// first (a role for Members), the parent's list to choose from.
    pub(super) fn switch(&mut self, list: ScreenId) -> Vec<Effect> {
        if self.notice.shown.as_ref().is_some_and(|notice| !notice.error) {
            self.notice.shown = None;
        }
        let table = self.screens.shown(list);
        let tab = table.tab();
        self.navigation.tab = tab;
        self.navigation.shown = match table.parent() {
            Some(parent) if !table.is_open() => parent,
            _ => list,
        };
        if list == ScreenId::Health {
            let (screens, mut ctx) = self.lend();
            return screens
                .health
                .on_shown(&mut ctx)
                .map(Effect::from)
                .into_iter()
                .collect();
        }
        let mut effects = match list {
            ScreenId::People => self.people_shown(),
            ScreenId::Access => self.lend_then_follow(|screens, ctx| screens.access_shown(ctx)),
            ScreenId::Switch => self.lend_then_follow(|screens, ctx| screens.switch_shown(ctx)),
            _ => Vec::new(),
        };
        effects.extend(self.fetch_visible());
        effects
    }

    pub(super) fn move_by(&mut self, delta: i64) -> Vec<Effect> {
        let cursor = self.screens.shown(self.navigation.shown).cursor() as i64;
        self.move_to(cursor.saturating_add(delta))
    }

    pub(super) fn move_to(&mut self, position: i64) -> Vec<Effect> {
        let height = self.table_height();
        self.overlays.scroll.detail = 0;
        self.screens
            .shown_mut(self.navigation.shown)
            .move_to(position, height);
        self.fetch_visible()
    }

    pub(super) fn rescroll(&mut self) {
        let height = self.table_height();
        self.screens.shown_mut(self.navigation.shown).scroll(height);
    }

    /// Fetches the pages the shown table needs.
    pub(super) fn fetch_visible(&mut self) -> Vec<Effect> {
        self.fetch_list(self.navigation.shown)
    }

    /// Fetches the pages a table needs for a screen of its rows.
    pub(super) fn fetch_list(&mut self, list: ScreenId) -> Vec<Effect> {
        let height = self.table_height();
        // A list with nothing to ask (no role opened; Health, which a look
        // fills) marks no page in flight.
        if !self.screens.asks(list, self.scope()) {
            return Vec::new();
        }
        let Some(table) = self.screens.list_mut(list) else {
            return Vec::new();
        };
        let offsets = table.wanted(height);
        self.fetch_offsets(list, offsets)
    }

    /// Fetches pages of a list at these offsets (already marked in flight).
    pub(super) fn fetch_offsets(&mut self, list: ScreenId, offsets: Vec<u64>) -> Vec<Effect> {
        let scope = Scope {
            organization: &self.context.organization,
            project: &self.context.project,
        };
        let Some(table) = self.screens.list_mut(list) else {
            return Vec::new();
        };
        let generation = table.generation();
        if table.query(scope).is_none() {
            for offset in offsets {
                table.failed(generation, offset);
            }
            return Vec::new();
        }
        let mut effects = Vec::new();
        for offset in offsets {
            match table.query_at(scope, offset) {
                Some(request) => effects.push(Effect::Fetch {
                    list,
                    generation,
                    request,
                    offset,
                    limit: PAGE_SIZE,
                }),
                // A cursor not known yet: not in flight after all.
                None => {
                    table.failed(generation, offset);
                }
            }
        }
        effects
    }

    /// Starts a list over: a new generation, from the first page
    /// (`from_start`) or around the cursor (a refresh).
    pub(super) fn reload(&mut self, list: ScreenId, from_start: bool) -> Vec<Effect> {
        // Rows held from the list a look read are held again (in the
        // order now in force), not fetched.
        if list == ScreenId::Subscriptions && self.screens.subscriptions.is_held() {
            let height = self.table_height();
            if self.screens.subscriptions.hold_known(height) {
                return Vec::new();
            }
        }
        if let Some(table) = self.screens.list_mut(list) {
            table.restart(from_start);
        }
        if self.navigation.shown == list {
            self.fetch_visible()
        } else {
            Vec::new()
        }
    }

    /// `r`: the list again from the server, the cursor kept on its row.
    /// While the list is still loading (a slow or throttled server, whose
    /// wait the footer shows), a second `r` sends nothing more.
    pub(super) fn refresh(&mut self) -> Vec<Effect> {
        match self.navigation.shown {
            ScreenId::Health => return self.look(),
            ScreenId::Who => return self.lend_then_follow(|screens, ctx| screens.who_again(ctx)),
            ScreenId::Grants => return self.lend_then_follow(|screens, ctx| screens.grants_again(ctx)),
            ScreenId::Access => return self.lend_then_follow(|screens, ctx| screens.access_reload(ctx)),
            ScreenId::Switch => return self.lend_then_follow(|screens, ctx| screens.switch_again(ctx)),
            ScreenId::People | ScreenId::Person => {
                return self.lend_then_follow(|screens, ctx| screens.refresh_people(ctx));
            }
            ScreenId::Offboard => {
                self.notice.shown = Some(Notice::done(
                    "nothing to refresh: Esc, then r on their page".into(),
                ));
                return Vec::new();
            }
            _ => {}
        }
        if self.connection.offline.is_some() {
            return self.retry_now();
        }
        // Rows held from the list a look read: the list is read again.
        if self.navigation.shown == ScreenId::Subscriptions && self.screens.subscriptions.is_held() {
            let mut effects = self.read_list_for_states();
            if effects.is_empty() {
                self.notice.shown = Some(Notice::done("a look is reading the list already".into()));
            } else {
                self.notice.shown = Some(Notice::working("reading the whole list again…".into()));
            }
            effects.push(self.load_integrations());
            return effects;
        }
        let Some(table) = self.screens.list_mut(self.navigation.shown) else {
            return Vec::new();
        };
        if table.is_loading() {
            self.notice.shown = Some(Notice::done(
                "still loading: the request on its way is not sent again".into(),
            ));
            return Vec::new();
        }
        table.remember_selected();
        let mut effects = self.reload(self.navigation.shown, false);
        // An integration revoked since is named so once the list is fresh.
        if self.navigation.shown == ScreenId::Subscriptions {
            effects.push(self.load_integrations());
        }
        effects
    }

    /// Enter: what the screen shown says (a role opens its members, a
    /// subscription its deliveries, a member or a delivery its detail).
    pub(super) fn open(&mut self) -> Vec<Effect> {
        let shown = self.navigation.shown;
        // Enter on the switch preview is `e` there: the fix offered as an
        // edit, through what rules out a write.
        if shown == ScreenId::Switch {
            return self.act(Action::Edit);
        }
        self.lend_then_follow(|screens, ctx| screens.on_enter(shown, ctx))
    }

    /// `:deliveries`: the deliveries of the subscription under the cursor.
    pub(super) fn open_deliveries(&mut self) -> Vec<Effect> {
        let shown = self.navigation.shown;
        self.lend_then_follow(|screens, _| screens.opens_deliveries(shown))
    }

    /// A list that lost its parent's row (another organization, project or
    /// connection) gives way to its parent.
    pub(super) fn keep_shown_open(&mut self) {
        let table = self.screens.shown(self.navigation.shown);
        if let Some(parent) = table.parent().filter(|_| !table.is_open()) {
            self.navigation.shown = parent;
            self.navigation.opened_from = None;
        }
    }

    /// Shows a list opened from the one on screen; back returns here.
    pub(super) fn open_list(&mut self, list: ScreenId) -> Vec<Effect> {
        self.navigation.opened_from = Some((self.navigation.tab, self.navigation.shown));
        self.navigation.tab = self.screens.shown(list).tab();
        self.navigation.shown = list;
        self.overlays.detail_open = false;
        self.fetch_visible()
    }

    /// `s`: the next order; lists the server orders start over.
    pub(super) fn cycle_sort(&mut self) -> Vec<Effect> {
        // The user chose an order: it is theirs to keep.
        if self.navigation.shown == ScreenId::Subscriptions {
            self.screens.subscriptions.keep_sort();
        }
        let height = self.table_height();
        if self
            .screens
            .list_mut(self.navigation.shown)
            .is_some_and(|table| table.cycle_sort())
        {
            return self.reload(self.navigation.shown, true);
        }
        self.screens.shown_mut(self.navigation.shown).apply_view(height);
        self.fetch_visible()
    }

    /// `L`: a narrowing that stopped at its limit looks through as many
    /// rows again; one that did not stop says so.
    pub(super) fn look_further(&mut self) -> Vec<Effect> {
        let (notice, fetch) = self.screens.subscriptions.look_further(self.window.now);
        self.notice.shown = Some(Notice::done(notice));
        if fetch { self.fetch_visible() } else { Vec::new() }
    }

    /// `f`, `o`, `:state NAME`: only the subscriptions in one state, or
    /// all again. The API has no filter by state, so the rows are narrowed
    /// as they arrive; the overdue come first when ordered by next delivery
    /// and the ended when ordered by it descending, so those orders are
    /// asked for; deleted ones are the server's own filter.
    pub(super) fn narrow_to(&mut self, state: Option<SubscriptionState>) -> Vec<Effect> {
        if self.navigation.shown != ScreenId::Subscriptions {
            self.switch(ScreenId::Subscriptions);
        }
        let height = self.table_height();
        let filters = match self
            .screens
            .subscriptions
            .narrow_to(state, height, self.window.now)
        {
            Narrowed::Held(notice) => {
                self.notice.shown = Some(Notice::done(notice));
                return Vec::new();
            }
            Narrowed::Reload(filters) => filters,
        };
        let mut effects = self.reload(ScreenId::Subscriptions, true);
        let (notice, read_whole) =
            self.screens
                .subscriptions
                .narrowed_words(&filters, state, self.window.now);
        if read_whole {
            effects.extend(self.read_list_for_states());
        }
        self.notice.shown = Some(Notice::done(notice));
        effects
    }

    /// Recomputes the local view of the shown list.
    pub(super) fn apply_view(&mut self) {
        self.screens.subscriptions.view_at(self.window.now);
        let height = self.table_height();
        self.screens.shown_mut(self.navigation.shown).apply_view(height);
    }

    /// A page arrived (or failed).
    pub(super) fn page(
        &mut self,
        list: ScreenId,
        generation: Ticket,
        offset: u64,
        result: Result<ScreenPage, api::Error>,
    ) -> Vec<Effect> {
        self.window.dirty = true;
        let height = self.table_height();
        let Some(table) = self.screens.list_mut(list) else {
            return Vec::new();
        };
        let page = match result {
            Ok(page) => page,
            Err(error) if table.answered_with(generation, offset, &error) => {
                self.apply_view();
                let mut effects = self.reached(Some((list, generation)));
                effects.extend(self.replay());
                return effects;
            }
            Err(error) => {
                if table.failed(generation, offset) {
                    return self.page_failed(list, &error);
                }
                return Vec::new();
            }
        };
        let received = self.screens.receive(generation, offset, page, height);
        // Any answer says the server is there.
        let mut effects = self.reached(Some((list, generation)));
        if received && self.navigation.shown == list {
            self.apply_view();
            effects.extend(self.fetch_visible());
        }
        // Keys typed meanwhile, as far as the rows they need are here.
        effects.extend(self.replay());
        effects
    }
}
