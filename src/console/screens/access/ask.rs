//! What the Access tab asks: the grid of people or of roles read
//! ([`Ask::Read`]), on the effects runner's task (`request.rs`); its news
//! and its end are the tab's own [`Msg`](super::Msg).

use std::sync::Arc;

use crate::access::grid::Kind;
use crate::access::read::Stop;
use crate::console::kit::latest::Ticket;

/// What stops a read: Esc on the tab, another organization, a read
/// started again.
#[derive(Clone, Default)]
pub struct Stopper(pub Arc<Stop>);

impl Stopper {
    pub fn stop(&self) {
        self.0.stop();
    }
}

impl std::fmt::Debug for Stopper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Stopper")
    }
}

impl PartialEq for Stopper {
    /// The same flag.
    fn eq(&self, other: &Stopper) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Ask {
    /// Read the grid of `kind` (`Msg::News` as it goes, `Msg::Ended`),
    /// the project `first` before the others.
    Read {
        ticket: Ticket,
        kind: Kind,
        organization: String,
        first: Option<i64>,
        stop: Stopper,
    },
}
