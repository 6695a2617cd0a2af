//! What a role's page hears: how far the read came, and what the role
//! grants.

use crate::console::kit::latest::Ticket;

#[derive(Debug)]
pub enum Msg {
    /// Projects read, in all (news, not an answer).
    Progress {
        ticket: Ticket,
        done: usize,
        total: usize,
    },
    /// What the role grants (or why it could not be read).
    Read {
        ticket: Ticket,
        result: Result<Box<crate::access::role::RoleGrants>, String>,
    },
}

impl Msg {
    /// Whether it answers a request an effect sent (progress does not).
    pub fn is_answer(&self) -> bool {
        !matches!(self, Msg::Progress { .. })
    }
}
