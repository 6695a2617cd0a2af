//! What a person's page asks for: the page, gathered ([`Ask::Gather`]),
//! and their access ([`Ask::Access`]), which run on the effects runner's
//! task (`request.rs`); their answers are the screen's own
//! [`Msg`](super::Msg).

pub use crate::console::kit::latest::Stopper;
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

    /// Read their access in every project (`Msg::AccessRead` as each
    /// project is read, then `Msg::Access`), stopped by `stop`.
    Access {
        ticket: Ticket,
        organization: String,
        member: Box<crate::api::OrganizationMember>,
        index: SharedIndex,
        stop: Stopper,
    },
}
