//! What `f`, `o` (and the minute passing), `:state`, `:target` and `:delivers` set on the list:
//! the state shown, the server's filters, and the order a state needs of
//! its own (the user's own kept aside and given back). The shell passes
//! the words and reads the list again; the list says what is in force.

use super::list::Subscriptions;
use crate::api::SubscriptionState;
use crate::console::table::Table;
use crate::console::table::listing::Listing;

impl Subscriptions {
    /// `:state all`: every narrowing goes; the state to show (none).
    pub fn every_state(&mut self) -> Option<SubscriptionState> {
        self.filter.target_type = None;
        self.filter.resource_type = None;
        None
    }

    /// `:target KIND` (none: every target); the state shown stays.
    pub fn only_target(&mut self, kind: Option<String>) -> Option<SubscriptionState> {
        self.filter.target_type = kind;
        self.state
    }

    /// `o`: only the overdue, or every state again when they are shown.
    pub fn overdue_or_all(&self) -> Option<SubscriptionState> {
        let overdue = SubscriptionState::Overdue;
        (self.state != Some(overdue)).then_some(overdue)
    }

    /// Narrowed to a state: the rows in it may change as time passes (a
    /// row becomes overdue), so the view is taken again each minute.
    pub fn narrowed(&self) -> bool {
        self.state.is_some()
    }

    /// `:delivers WHAT` (none: insights and dashboards); the state shown
    /// stays.
    pub fn only_delivering(&mut self, what: Option<String>) -> Option<SubscriptionState> {
        self.filter.resource_type = what;
        self.state
    }
}

impl Table<Subscriptions> {
    /// Only the subscriptions in `state` (none: every state): the rows come
    /// again; the overdue come first ordered by next delivery and the
    /// ended ordered by it descending, so those orders are asked for;
    /// deleted ones are the server's own filter. The filters in force, in
    /// words.
    pub fn narrow(&mut self, state: Option<SubscriptionState>) -> Vec<String> {
        self.resource.state = state;
        self.resource.looked_further = 0;
        // The rows come again: the view of the old ones goes with them.
        self.rows.view = None;
        self.resource.filter.deleted = state == Some(SubscriptionState::Deleted);
        let ordering = match state {
            Some(SubscriptionState::Overdue) => Some("next_delivery_date"),
            Some(SubscriptionState::Ended) => Some("-next_delivery_date"),
            _ => None,
        };
        if let Some(ordering) = ordering
            && let Some(at) = self
                .resource
                .sorts()
                .iter()
                .position(|sort| sort.ordering == Some(ordering))
        {
            // The user's sort is kept aside, once, to be given back.
            if self.resource.sort_before_state.is_none() {
                self.resource.sort_before_state = Some(self.sort);
            }
            self.sort = at;
            self.resource.filter.ordering = Some(ordering.to_string());
        } else if let Some(before) = self.resource.sort_before_state.take() {
            self.sort = before;
            self.resource.filter.ordering = self
                .resource
                .sorts()
                .get(before)
                .and_then(|sort| sort.ordering)
                .map(str::to_string);
        }
        self.resource.filters()
    }

    /// The cursor goes to subscription `id` once its row is loaded
    /// (`:sub ID`, a restore).
    pub fn find_again(&mut self, id: i64) {
        self.refocus = Some(id.to_string());
    }

    /// A subscription shown from another screen (Enter on a person's
    /// page): searched for by its title, the cursor going to it once its
    /// row is loaded.
    pub fn show_titled(&mut self, title: String, id: i64) {
        self.set_filter(title);
        self.search();
        self.find_again(id);
    }
}
