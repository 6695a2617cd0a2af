//! What `:who` asks: who reaches a thing ([`Ask::Read`]), run on the
//! effects runner's task (`request.rs`); its answer is the screen's own
//! [`Msg`](super::Msg).

use crate::access::who::Thing;
use crate::console::kit::latest::Ticket;
use crate::console::screens::person::ask::Stopper;

#[derive(Debug, Clone, PartialEq)]
pub enum Ask {
    /// Who reaches `thing` in `project` (`Msg::Read`), stopped by `stop`.
    Read {
        ticket: Ticket,
        organization: String,
        project: String,
        thing: Thing,
        stop: Stopper,
    },
}
