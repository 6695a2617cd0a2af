//! What the People screen asks for besides a page of its rows ([`Ask`]):
//! the role index and a narrowing. Both run long and tell their news as
//! they go, so they run on the effects runner's task (`request.rs`'s
//! `run`); their news and end are the screen's own [`Msg`](super::Msg).

use super::msg::SharedIndex;
use crate::console::kit::latest::Ticket;
use crate::console::kit::stop::Stop;

#[derive(Debug, Clone, PartialEq)]
pub enum Ask {
    /// Read who holds which role (`Msg::RoleIndexProgress`, then
    /// `Msg::RoleIndex`, with this ticket).
    RoleIndex { ticket: Ticket, organization: String },
    /// Narrow People: `Msg::PeopleNews` as it goes, `Msg::PeopleNarrowed`
    /// at the end; `stop` ends it between pages.
    Narrow {
        ticket: Ticket,
        organization: String,
        narrow: Narrow,
        oldest_first: bool,
        stop: Stop,
    },
}

/// Which people a narrowing of People keeps.
#[derive(Debug, Clone, PartialEq)]
pub enum Narrow {
    /// Those in no role: every member is looked through.
    NoRole(SharedIndex),
    /// Those of one role: its memberships are read.
    Role(crate::people::RoleRef),
}
