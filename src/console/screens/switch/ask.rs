//! What `:switch-preview` asks: every project's rules read and the switch
//! worked out ([`Ask::Read`]), on the effects runner's task
//! (`request.rs`); its answer is the screen's own [`Msg`](super::Msg).

use crate::console::kit::latest::{Stopper, Ticket};

#[derive(Debug, Clone, PartialEq)]
pub enum Ask {
    /// The organization's people, roles and every project's rules, then
    /// what the switch changes (`Msg::Read`), stopped by `stop`.
    Read {
        ticket: Ticket,
        organization: String,
        stop: Stopper,
    },
}
