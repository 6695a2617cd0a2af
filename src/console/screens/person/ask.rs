//! What a person's page asks for: the page, gathered ([`Ask::Gather`]),
//! which runs on the effects runner's task (`request.rs`); its answer is
//! the screen's own [`Msg`](super::Msg).

use crate::console::kit::latest::Ticket;
use crate::console::screens::people::msg::SharedIndex;

#[derive(Debug, Clone, PartialEq)]
pub enum Ask {
    /// Gather a person's page (`Msg::Profile`).
    Gather {
        ticket: Ticket,
        organization: String,
        email: String,
        index: SharedIndex,
    },
}
