//! What a person's page asked and what waits on it: the page being
//! gathered ("latest wins": only the answer with the latest ticket is
//! taken, so a page for someone left, or for an organization left, is
//! dropped), whether it waits for People's role index before it is
//! gathered, and whether the offboarding opens once it is (`O` on People,
//! or on a page still being gathered).
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
    }
}
