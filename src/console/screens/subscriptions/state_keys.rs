//! What the shell's keys and commands ask of Subscriptions' narrowing,
//! each one call: which state `f`, `o`, `:state`, `:target` and
//! `:delivers` narrow to, the narrowing done and said in words (answered
//! from the list a look read where it can), `L` looking further, whether
//! its rows are held whole, an order the user chose kept, and the time
//! its view is taken at. The shell routes the key and sends what it says;
//! the list's fields stay in this folder.

use chrono::{DateTime, Utc};

use super::list::{SCAN_LIMIT, Subscriptions};
use crate::api::SubscriptionState;
use crate::console::table::Table;

/// What narrowing to a state came to.
pub enum Narrowed {
    /// Answered at once from the list a look read: the notice to show.
    Held(String),
    /// The list is read again; the filters in force, in words, for
    /// [`Table::narrowed_words`] once it has started over.
    Reload(Vec<String>),
}

impl Table<Subscriptions> {
    /// `:state` with no name: every narrowing goes; the state to show (none).
    pub fn every_state(&mut self) -> Option<SubscriptionState> {
        self.resource.every_state()
    }

    /// `:target KIND`; the state shown stays.
    pub fn only_target(&mut self, kind: Option<String>) -> Option<SubscriptionState> {
        self.resource.only_target(kind)
    }

    /// `:delivers WHAT`; the state shown stays.
    pub fn only_delivering(&mut self, what: Option<String>) -> Option<SubscriptionState> {
        self.resource.only_delivering(what)
    }

    /// `f`: the state narrowed to next.
    pub fn next_state(&self) -> Option<SubscriptionState> {
        self.resource.next_state()
    }

    /// `o`: only the overdue, or every state again.
    pub fn overdue_or_all(&self) -> Option<SubscriptionState> {
        self.resource.overdue_or_all()
    }

    /// Whether the rows are held whole from the list a look read, rather
    /// than paged from the server.
    pub fn is_held(&self) -> bool {
        self.resource.held
    }

    /// Narrowed to a state, whose rows change as time passes.
    pub fn is_narrowed(&self) -> bool {
        self.resource.narrowed()
    }

    /// The user chose an order: it is theirs to keep, and a narrowing no
    /// longer gives back the one before it.
    pub fn keep_sort(&mut self) {
        self.resource.sort_before_state = None;
    }

    /// The view is taken as of `now` (what is overdue).
    pub fn view_at(&mut self, now: DateTime<Utc>) {
        self.resource.as_of = now;
    }

    /// `L`: a narrowing that stopped at its limit looks through as many
    /// rows again. The notice, and whether the rows are to be fetched.
    pub fn look_further(&mut self, now: DateTime<Utc>) -> (String, bool) {
        if self.resource.held {
            let words = self.known_words(now).unwrap_or_default();
            return (
                format!("every one is shown already: {words}; r reads the list again"),
                false,
            );
        }
        let Some(scanned) = self.scanned() else {
            return (
                "nothing to look further for: the list is not narrowed, or its look reached the end".into(),
                false,
            );
        };
        self.resource.looked_further += 1;
        (
            format!("looking through {SCAN_LIMIT} rows more, past the first {scanned}"),
            true,
        )
    }

    /// Narrows to `state` (none: every state), answered from the list a
    /// look read when it can, for a table `height` rows high.
    pub fn narrow_to(
        &mut self,
        state: Option<SubscriptionState>,
        height: u64,
        now: DateTime<Utc>,
    ) -> Narrowed {
        let filters = self.narrow(state);
        // One press answers from the list a look read, when there is one.
        if self.hold_known(height) {
            let words = self.known_words(now).unwrap_or_default();
            return Narrowed::Held(format!(
                "only {}: {words}; r reads it again, f steps through the states",
                filters.join(" · ")
            ));
        }
        Narrowed::Reload(filters)
    }

    /// What a narrowing that reads the list again says, once the list has
    /// started over; and whether the whole list is to be read to find
    /// every row in `state` (nothing known of it yet).
    pub fn narrowed_words(
        &self,
        filters: &[String],
        state: Option<SubscriptionState>,
        now: DateTime<Utc>,
    ) -> (String, bool) {
        let narrowed = state.is_some_and(|state| state != SubscriptionState::Deleted);
        if filters.is_empty() {
            ("every subscription again".into(), false)
        } else if let Some(words) = self.known_words(now).filter(|_| narrowed) {
            (
                format!(
                    "only {}: {words}; looking through the list for them",
                    filters.join(" · ")
                ),
                false,
            )
        } else if narrowed {
            // Nothing known yet: the list is read whole (a few requests of
            // 1,000 rows), and the rows found page by page meanwhile.
            (
                format!(
                    "only {}: reading the whole list to find every one; the first pages meanwhile",
                    filters.join(" · ")
                ),
                true,
            )
        } else {
            (
                format!(
                    "only {}: f steps through the states, :state all shows every one",
                    filters.join(" · ")
                ),
                false,
            )
        }
    }
}
