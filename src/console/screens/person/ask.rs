//! What a person's page asks for: the page, gathered ([`Ask::Gather`]),
//! and their access ([`Ask::Access`]), which run on the effects runner's
//! task (`request.rs`); their answers are the screen's own
//! [`Msg`](super::Msg).

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

/// What stops a read of access (the page left), carried by its ask.
#[derive(Clone)]
pub struct Stopper(pub std::sync::Arc<crate::access::read::Stop>);

impl std::fmt::Debug for Stopper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_stopped() {
            "Stopper(stopped)"
        } else {
            "Stopper"
        })
    }
}

impl PartialEq for Stopper {
    /// The same flag.
    fn eq(&self, other: &Stopper) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}
