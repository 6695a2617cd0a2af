//! What the Health screen hears: a look's news as it goes, and how it
//! ended (the answers of the look its effects run).

use crate::console::kit::latest::Ticket;

#[derive(Debug)]
pub enum Msg {
    /// News of the look with this ticket.
    LookNews { ticket: Ticket, news: LookNews },
    /// The look with this ticket ended: how, or why it failed.
    Looked {
        ticket: Ticket,
        result: Result<crate::health::LookSummary, LookFailure>,
    },
}

impl Msg {
    /// Whether it answers a request an effect sent (news as it goes does not).
    pub fn is_answer(&self) -> bool {
        !matches!(self, Msg::LookNews { .. })
    }
}

/// What a look tells as it goes, batched so that a look of 10,000
/// subscriptions is a few hundred messages, not 20,000.
#[derive(Debug, Clone)]
pub enum LookNews {
    /// Pages of the list arriving: rows read, rows in all.
    Listing {
        read: u64,
        total: u64,
    },
    /// The list is read: what it settles follows as rows.
    Listed(crate::health::Coverage),
    /// Rows learnt since the last news, in no order.
    Rows(Vec<crate::health::HealthRow>),
    Progress(crate::health::Coverage),
    /// The list's states, for the state filters of Subscriptions.
    States(Box<crate::health::list::States>),
}

/// Why a look failed before it listed anything.
#[derive(Debug, Clone, PartialEq)]
pub struct LookFailure {
    pub message: String,
    /// The server was not reached: the console goes offline and tries it
    /// again, and looks again once it answers.
    pub unreachable: Option<crate::api::Unreachable>,
}
