//! What `:switch-preview` hears: how far the read came, then what the
//! switch changes, or why that is not known.

use crate::access::preview::Switch;
use crate::console::kit::latest::Ticket;

/// What the switch changes, with the organization's name for its heading.
#[derive(Debug)]
pub struct Found {
    pub organization: String,
    pub switch: Switch,
    /// Projects whose rules were read.
    pub projects: usize,
    /// Requests the read sent.
    pub requests: u64,
}

#[derive(Debug)]
pub enum Msg {
    /// How far the read came: projects whose rules are read, in all.
    Progress {
        ticket: Ticket,
        done: usize,
        total: usize,
    },
    /// The read ended: what the switch changes, or why not (`Err`), or
    /// stopped (Esc).
    Read {
        ticket: Ticket,
        result: Result<Box<Found>, String>,
        stopped: bool,
    },
}

impl Msg {
    /// Whether it answers a request an effect sent (news as it goes does not).
    pub fn is_answer(&self) -> bool {
        matches!(self, Msg::Read { .. })
    }

    pub fn ticket(&self) -> Ticket {
        match self {
            Msg::Progress { ticket, .. } | Msg::Read { ticket, .. } => *ticket,
        }
    }
}
