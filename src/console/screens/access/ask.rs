//! What the Access tab asks: the grid of people or of roles read
//! ([`Ask::Read`]), on the effects runner's task (`request.rs`); its news
//! and its end are the tab's own [`Msg`](super::Msg).

use crate::access::grid::Kind;
pub use crate::console::kit::latest::Stopper;
use crate::console::kit::latest::Ticket;

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
    /// Read a rule before it is edited (`Msg::Rule`).
    Rule {
        ticket: Ticket,
        organization: String,
        target: Box<super::edit::Target>,
    },
}
