//! What the preview hears: the rules read and the preview computed (or
//! why there is none), and after the change, the check.

use crate::access::preview::world::Checked;
use crate::access::preview::{Change, Effect, World};
use crate::console::kit::latest::Ticket;

/// A preview computed: the world read, the change in membership ids,
/// and who gains and who loses.
#[derive(Debug, Clone)]
pub struct Previewed {
    pub world: World,
    pub change: Change,
    pub effect: Effect,
}

/// How a read for a preview ended.
#[derive(Debug)]
pub enum Outcome {
    Read(Box<Previewed>),
    /// Esc, another organization: nothing is sent.
    Stopped,
    /// The rules could not be read (an older server, a key without
    /// `access_control:read`): the change goes on without a preview, as
    /// the CLI's does.
    Unread(String),
    /// What must be known to send it safely could not be read (whether
    /// Terraform manages a rule of a role deleted): nothing is sent.
    Refused(String),
}

#[derive(Debug)]
pub enum Msg {
    /// The rules read for the change waiting.
    Read { ticket: Ticket, outcome: Outcome },
    /// After the change: the server's levels against the preview.
    Checked {
        ticket: Ticket,
        result: Result<Checked, String>,
    },
}

impl Msg {
    /// Whether it answers a request an effect sent: each one does.
    pub fn is_answer(&self) -> bool {
        true
    }
}
