//! What a person's page hears: the page, gathered.

use crate::console::kit::latest::Ticket;

#[derive(Debug)]
pub enum Msg {
    /// A person's page, gathered.
    Profile {
        ticket: Ticket,
        result: Result<Box<crate::people::profile::Profile>, String>,
    },
}

impl Msg {
    /// Whether it answers a request an effect sent: each one does.
    pub fn is_answer(&self) -> bool {
        true
    }
}
