//! What People asked the server, and "latest wins" for each kind: the
//! role index, the narrowing under way (and what stops it). (A person's
//! page keeps its own, `person/asked.rs`.) Only the answer with the latest
//! ticket of its kind is taken (`Screens::wants` asks), so that a late one
//! for an organization left, or a narrowing replaced, is dropped.
//!
//! It outlives the rows: another organization clears People's rows and
//! what it knew, but issues new tickets here rather than starting them
//! again, so that an answer on its way for the organization left can
//! never carry the ticket of a new request.

use crate::console::kit::latest::Latest;
use crate::console::kit::stop::Stop;
use crate::console::table::Table;

use super::list::People;

#[derive(Debug, Default)]
pub struct Asked {
    /// The role index, read when People is first shown and with `r`.
    pub indexes: Latest,
    /// The narrowing under way (`:no-role`, `:has-role NAME`).
    pub narrowings: Latest,
    /// What stops the narrowing under way.
    pub stop: Option<Stop>,
}

impl Asked {
    /// Whether People still waits for this message: the index or the
    /// narrowing it answers is the latest.
    pub fn wants(&self, msg: &super::Msg) -> bool {
        use super::Msg;
        match msg {
            Msg::RoleIndexProgress { ticket, .. } | Msg::RoleIndex { ticket, .. } => {
                self.indexes.is_current(*ticket)
            }
            Msg::PeopleNews { ticket, .. } | Msg::PeopleNarrowed { ticket, .. } => {
                self.narrowings.is_current(*ticket)
            }
        }
    }

    /// Another organization or connection: every answer on its way is of
    /// the one left. (The narrowing's stop is the caller's to pull first.)
    pub fn forget(&mut self) {
        self.indexes.issue();
        self.narrowings.issue();
    }
}

impl Table<People> {
    /// "Latest wins" for People's messages (the shell asks before one
    /// lands): [`Asked::wants`].
    pub fn wants(&self, msg: &super::Msg) -> bool {
        self.resource.asked.wants(msg)
    }
}
