//! What `:who` hears: who reaches the thing, or why that is not known.

use crate::console::kit::latest::Ticket;

#[derive(Debug)]
pub enum Msg {
    /// Who reaches the thing asked about.
    Read {
        ticket: Ticket,
        result: Result<Box<crate::access::who::WhoAccess>, String>,
    },
}

impl Msg {
    /// Whether it answers a request an effect sent: each one does.
    pub fn is_answer(&self) -> bool {
        true
    }
}
