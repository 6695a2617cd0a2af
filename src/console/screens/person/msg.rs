//! What a person's page hears: the page, gathered; how far the read of
//! their access came, and their access.

use crate::console::kit::latest::Ticket;

#[derive(Debug)]
pub enum Msg {
    /// A person's page, gathered.
    Profile {
        ticket: Ticket,
        result: Result<Box<crate::people::profile::Profile>, String>,
    },
    /// The read of their access came this far: projects read, in all
    /// (news, not an answer).
    AccessRead {
        ticket: Ticket,
        done: usize,
        total: usize,
    },
    /// Their access, read (or why not).
    Access {
        ticket: Ticket,
        result: Result<Box<crate::access::person::PersonAccess>, String>,
    },
}

impl Msg {
    /// Whether it answers a request an effect sent (progress does not).
    pub fn is_answer(&self) -> bool {
        !matches!(self, Msg::AccessRead { .. })
    }
}
