//! What the Access tab hears: its grid's news as the read goes (the rows
//! and columns, then each project), and the read's end.

use crate::access::grid::{Kind, News};
use crate::console::kit::latest::Ticket;

#[derive(Debug)]
pub enum Msg {
    /// The read's news: the frame, or a project read.
    News { ticket: Ticket, kind: Kind, news: News },
    /// The read ended: whole, stopped (Esc), or failed (why).
    Ended {
        ticket: Ticket,
        kind: Kind,
        result: Result<(), String>,
        stopped: bool,
        requests: u64,
    },
    /// A rule to edit, read (`e`): the chooser opens, or why not.
    Rule {
        ticket: Ticket,
        target: Box<super::edit::Target>,
        result: Result<crate::access::rule::Current, String>,
    },
}

impl Msg {
    /// Whether it answers a request an effect sent (news as it goes does not).
    pub fn is_answer(&self) -> bool {
        matches!(self, Msg::Ended { .. } | Msg::Rule { .. })
    }

    /// The ticket and the grid it is of (none: a rule read to edit).
    pub fn of(&self) -> (Ticket, Option<Kind>) {
        match self {
            Msg::News { ticket, kind, .. } | Msg::Ended { ticket, kind, .. } => (*ticket, Some(*kind)),
            Msg::Rule { ticket, .. } => (*ticket, None),
        }
    }
}
