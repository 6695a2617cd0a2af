//! What the People screen hears: the role index (who holds which role)
//! as it is read, and a narrowing's news (`:no-role`, `:has-role`).

use crate::console::kit::latest::Ticket;

#[derive(Debug)]
pub enum Msg {
    /// The role index being read: roles read, of how many.
    RoleIndexProgress {
        ticket: Ticket,
        done: usize,
        total: usize,
    },
    /// Who holds which role, or why it could not be read.
    RoleIndex {
        ticket: Ticket,
        result: Result<SharedIndex, String>,
    },
    /// News of a narrowing of People (`:no-role`, `:has-role`) under way.
    PeopleNews { ticket: Ticket, news: PeopleNews },
    /// A narrowing of People ended: whether it was stopped, or why it failed.
    PeopleNarrowed {
        ticket: Ticket,
        result: Result<bool, String>,
    },
}

impl Msg {
    /// Whether it answers a request an effect sent (news as it goes does not).
    pub fn is_answer(&self) -> bool {
        !matches!(self, Msg::RoleIndexProgress { .. } | Msg::PeopleNews { .. })
    }
}

/// News of a narrowing of People under way.
#[derive(Debug, Clone)]
pub enum PeopleNews {
    /// People kept since the last news.
    Rows(Vec<crate::api::OrganizationMember>),
    /// Members looked through, of how many.
    Progress { done: u64, total: u64 },
}

/// The role index, shared by the People view and the tasks that need it;
/// two are equal when they are the same one.
#[derive(Debug, Clone)]
pub struct SharedIndex(pub std::sync::Arc<crate::people::RoleIndex>);

impl PartialEq for SharedIndex {
    fn eq(&self, other: &SharedIndex) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}
