//! The last soft delete, which `u` undoes for a while ([`UNDO_FOR`]), and
//! "latest wins" for its timer: a second soft delete replaces the offer,
//! and only the timer of the offer standing takes it away. How a soft
//! delete and a restore land on the list (the offer made or forgotten, the
//! list read again for a restored row gone from it) and the footer's words
//! for the offer are the list's, here.

use std::time::Duration;

use super::list::Subscriptions;
use crate::console::kit::latest::{Latest, Ticket};
use crate::console::table::Table;

impl Table<Subscriptions> {
    /// Whether a restored subscription is where this screen shows it: in
    /// its rows, or among the deleted it was showing. Else it is read
    /// again, the cursor finding it.
    pub fn still_lists(&self, id: i64) -> bool {
        self.rows.list.position(|row| row.id == id).is_some() || self.resource.filter.deleted
    }

    /// A soft delete landed: `u` undoes it for a while. The ticket of the
    /// timer that takes the offer away.
    pub fn offer_undo(&mut self, id: i64) -> Ticket {
        self.resource.undo.offer(id)
    }

    /// The offer is spent (restored) or moot.
    pub fn forget_undo(&mut self) {
        self.resource.undo.forget();
    }

    /// The footer's words for the undo on offer, if one is.
    pub fn undo_words(&self) -> Option<String> {
        let id = self.resource.undo.offered()?;
        Some(format!("u: undo the soft delete of #{id} "))
    }

    /// The undo timer ran out: whether the offer went (the footer changes).
    pub fn undo_expired(&mut self, ticket: Ticket) -> bool {
        self.resource.undo.expired(ticket)
    }

    /// A restore landed: true when the subscription is gone from the list
    /// since (a refresh), so the list is read again and the cursor finds it
    /// where the server puts it.
    pub fn restored_elsewhere(&mut self, id: i64) -> bool {
        let gone = !self.still_lists(id);
        if gone {
            self.find_again(id);
        }
        gone
    }
}

/// How long the footer offers to undo a soft delete.
pub const UNDO_FOR: Duration = Duration::from_secs(8);

/// The soft delete `u` can undo now, if any.
#[derive(Debug, Default)]
pub struct Undo {
    offered: Option<Offer>,
    timers: Latest,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Offer {
    id: i64,
    ticket: Ticket,
}

impl Undo {
    /// Offers to undo the soft delete of `id`: the ticket of the timer that
    /// takes the offer away.
    pub fn offer(&mut self, id: i64) -> Ticket {
        let ticket = self.timers.issue();
        self.offered = Some(Offer { id, ticket });
        ticket
    }

    /// The subscription whose soft delete `u` undoes now.
    pub fn offered(&self) -> Option<i64> {
        self.offered.map(|offer| offer.id)
    }

    /// The offer is spent (restored) or moot (another connection).
    pub fn forget(&mut self) {
        self.offered = None;
    }

    /// A timer ran out: the offer goes if it is that timer's. Whether it
    /// went.
    pub fn expired(&mut self, ticket: Ticket) -> bool {
        let current = self.offered.is_some_and(|offer| offer.ticket == ticket);
        if current {
            self.offered = None;
        }
        current
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_timer_of_the_offer_standing_takes_it_away() {
        let mut undo = Undo::default();
        let first = undo.offer(1);
        let second = undo.offer(2);
        assert!(!undo.expired(first));
        assert_eq!(undo.offered(), Some(2));
        assert!(undo.expired(second));
        assert_eq!(undo.offered(), None);
    }
}
