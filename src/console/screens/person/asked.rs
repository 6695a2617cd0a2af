//! What a person's page asked and what waits on it: the page being
//! gathered ("latest wins": only the answer with the latest ticket is
//! taken, so a page for someone left, or for an organization left, is
//! dropped), whether it waits for People's role index before it is
//! gathered, and whether the offboarding opens once it is (`O` on People,
//! or on a page still being gathered).
//!
//! Their access is read after the page is gathered, under a ticket of
//! its own; leaving the page, or another person, stops that read (its
//! requests in flight dropped, none sent after) and drops its answer.
//!
//! It outlives the page: another person, or another organization, shows a
//! new page but keeps issuing tickets here rather than starting them again,
//! so that an answer on its way can never carry the ticket of a new request.

use crate::console::kit::latest::{Latest, Ticket};

#[derive(Debug, Default)]
pub struct Asked {
    /// The page being gathered.
    pub gathers: Latest,
    /// The page waits for People's role index before it is gathered.
    pub waits_for_index: bool,
    /// The offboarding opens once the page is gathered.
    pub then_offboard: bool,
    /// Their access being read (the section of the page).
    pub access: Latest,
    /// What stops that read, while one is under way.
    access_stop: Option<super::ask::Stopper>,
}

impl Asked {
    /// Whether this gathered page answers the latest ask.
    pub fn wants(&self, ticket: Ticket) -> bool {
        self.gathers.is_current(ticket)
    }

    /// Another organization or connection: a page on its way is of the
    /// one left, and nothing waits any more.
    pub fn forget(&mut self) {
        self.gathers.issue();
        self.waits_for_index = false;
        self.then_offboard = false;
        self.stop_access();
    }

    /// A read of their access starts: its ticket (any earlier one's
    /// answer is dropped) and what stops it (any earlier one is stopped).
    pub fn start_access(&mut self) -> (Ticket, std::sync::Arc<crate::access::read::Stop>) {
        self.stop_access();
        let stop = crate::access::read::Stop::new();
        self.access_stop = Some(super::ask::Stopper(stop.clone()));
        (self.access.issue(), stop)
    }

    /// The page is left: the read of their access under way stops and
    /// its answer, late, is dropped.
    pub fn stop_access(&mut self) {
        if let Some(stop) = self.access_stop.take() {
            stop.0.stop();
        }
        self.access.issue();
    }

    /// The read of their access ended: nothing left to stop.
    pub fn access_ended(&mut self) {
        self.access_stop = None;
    }
}
