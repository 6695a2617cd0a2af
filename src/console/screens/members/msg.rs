//! What the Members screen hears: the organization's members for the
//! picker, and the role `:role NAME` looked for.

use crate::console::kit::latest::Ticket;

#[derive(Debug)]
pub enum Msg {
    /// The organization's members for the picker, and the user UUIDs
    /// already in the role (when they could be read).
    People {
        ticket: Ticket,
        /// The first members (or those the search found), and whether
        /// there are more.
        people: Result<(Vec<crate::api::OrganizationMember>, bool), crate::api::Error>,
        in_role: Option<Vec<String>>,
    },
    /// The role `:role NAME` looked for: its id and name, if there is one.
    RoleFound {
        name: String,
        found: Result<Option<(String, String)>, String>,
    },
}

impl Msg {
    /// Whether it answers a request an effect sent: each one does.
    pub fn is_answer(&self) -> bool {
        true
    }
}
