//! The subscriptions' table beyond its paging: a state held whole as the
//! latest list read said (in the order in force, the filters applied) and
//! the words for it, a row found by id, deleted ones shown or hidden, and
//! a row a write brings back put in its place.

use super::*;
use crate::console::kit::notice::Notice;
use crate::console::screens::{Change, Ctx, ScreenId};

impl Table<Subscriptions> {
    /// Shows the subscriptions in the state narrowed to as the latest list
    /// a look read said, held whole (in the order in force, the target and
    /// delivered filters applied); false, and nothing held, where that
    /// list cannot answer: no list read yet, active ones (found on any
    /// page), deleted ones (the server's filter), a search in force (the
    /// server's), or more rows than were held.
    pub fn hold_known(&mut self, height: u64) -> bool {
        let resource = &mut self.resource;
        let state = resource
            .state
            .filter(|state| !matches!(state, SubscriptionState::Active | SubscriptionState::Deleted));
        let answers = state.is_some()
            && resource.filter.search.is_none()
            && !resource.filter.deleted
            && resource.known.as_ref().is_some_and(|known| !known.cut);
        let (Some(state), Some(known), true) = (state, &resource.known, answers) else {
            if resource.held {
                resource.held = false;
                self.rows.list.restart();
            }
            return false;
        };
        let filter = &resource.filter;
        let mut rows: Vec<Subscription> = known
            .rows
            .get(&state)
            .map(|rows| {
                rows.iter()
                    .filter(|row| {
                        filter.target_type.as_deref().is_none_or(|target| {
                            row.target_type
                                .as_ref()
                                .is_some_and(|kind| kind.as_str() == target)
                        }) && filter.resource_type.as_deref().is_none_or(|delivers| {
                            row.resource_type
                                .as_ref()
                                .is_some_and(|kind| kind.as_str() == delivers)
                        })
                    })
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        sort_held(&mut rows, filter.ordering.as_deref());
        resource.held = true;
        self.rows.list.hold_all(rows);
        self.rows.view = None;
        Table::apply_view(self, height);
        true
    }

    /// A look read the list: the state filters answer from it, at once
    /// if one is in force.
    fn states_known(&mut self, states: std::sync::Arc<crate::health::list::States>, ctx: &mut Ctx) {
        self.resource.known = Some(states);
        let narrowed = self
            .resource
            .state
            .is_some_and(|state| state != SubscriptionState::Deleted);
        if narrowed && self.hold_known(ctx.height) {
            *ctx.dirty = true;
            if ctx.shown == ScreenId::Subscriptions {
                let words = self.known_words(ctx.now).unwrap_or_default();
                *ctx.notice = Some(Notice::done(format!("the whole list is read: {words}")));
            }
        }
    }

    /// "240 paused of 90,095, as the list read 3m ago said".
    pub fn known_words(&self, now: DateTime<Utc>) -> Option<String> {
        let known = self.resource.known.as_ref()?;
        let state = self.resource.state?;
        let count = known.counts.get(&state).copied().unwrap_or(0);
        let at = known.at.map(|at| relative(at, now)).unwrap_or_default();
        Some(format!(
            "{} {state} of {}, as the list read {at} said",
            crate::text::thousands(count),
            crate::text::thousands(known.total)
        ))
    }

    /// The project's Slack integrations, to name targets and the
    /// integrations they post through (`None`: the server lists none).
    pub fn integrations_known(&mut self, slack: Option<Vec<crate::api::Integration>>) {
        self.resource.integrations = super::words::Integrations(slack);
    }

    /// The subscription with this id, if it is loaded.
    pub fn find(&self, id: i64) -> Option<&Subscription> {
        self.rows
            .list
            .loaded()
            .map(|(_, row)| row)
            .find(|row| row.id == id)
    }

    /// `D`: the deleted ones, or the others, from the top.
    pub fn toggle_deleted(&mut self) {
        self.resource.filter.deleted = !self.resource.filter.deleted;
        if self.resource.state == Some(SubscriptionState::Deleted) || self.resource.filter.deleted {
            self.resource.state = self.resource.filter.deleted.then_some(SubscriptionState::Deleted);
        }
        self.rows.list.restart();
        self.rows.cursor = 0;
        self.rows.top = 0;
    }

    /// The news Subscriptions hears: a subscription changed anywhere
    /// changes its row in place.
    pub fn on_change(&mut self, change: &Change, ctx: &mut Ctx) {
        match change {
            Change::StatesKnown(states) => self.states_known(states.clone(), ctx),
            Change::SubscriptionChanged(subscription) => self.replace((**subscription).clone()),
            // Newest first: the list starts over with it at the top, and
            // the cursor finds it.
            Change::SubscriptionMade(subscription) => {
                self.refocus = Some(subscription.id.to_string());
                self.rows.cursor = 0;
                self.rows.top = 0;
                self.rows.list.restart();
            }
            _ => {}
        }
    }

    /// A subscription changed (saved, soft-deleted, restored): its row
    /// changes in place.
    fn replace(&mut self, subscription: Subscription) {
        let id = subscription.id;
        if let Some(index) = self.rows.list.position(|row| row.id == id) {
            self.rows.list.replace_row(index, subscription);
        }
    }
}

/// Held rows in the order the server would give: newest first by default.
fn sort_held(rows: &mut [Subscription], ordering: Option<&str>) {
    let descending = ordering.is_some_and(|ordering| ordering.starts_with('-'));
    let field = ordering.map(|ordering| ordering.trim_start_matches('-'));
    match field {
        Some("next_delivery_date") => rows.sort_by_key(|row| row.next_delivery_date),
        Some("title") => rows.sort_by_key(|row| row.title.clone().unwrap_or_default().to_lowercase()),
        _ => {
            rows.sort_by_key(|row| std::cmp::Reverse((row.created_at, row.id)));
            return;
        }
    }
    if descending {
        rows.reverse();
    }
}
