//! What the offboarding screen hears: each step of its run as it ends.

use crate::console::kit::latest::Ticket;

#[derive(Debug)]
pub enum Msg {
    /// A step of the offboarding the write with this ticket runs has ended.
    OffboardStep {
        ticket: Ticket,
        at: usize,
        step: Box<crate::people::offboard::Step>,
    },
}

impl Msg {
    /// Whether it answers a request an effect sent (news as it goes does not).
    pub fn is_answer(&self) -> bool {
        !matches!(self, Msg::OffboardStep { .. })
    }
}
