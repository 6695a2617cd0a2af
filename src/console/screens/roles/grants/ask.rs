//! What a role's page asks: what the role grants in every project
//! ([`Ask::Read`]), on the effects runner's task (`request.rs`); its
//! answer, and its progress, are the page's own [`Msg`](super::Msg).

use crate::console::kit::latest::Ticket;
use crate::console::screens::person::ask::Stopper;

#[derive(Debug, Clone, PartialEq)]
pub enum Ask {
    /// What role `role` (an id) grants (`Msg::Progress` as each project is
    /// read, then `Msg::Read`), stopped by `stop`.
    Read {
        ticket: Ticket,
        organization: String,
        role: String,
        stop: Stopper,
    },
}
