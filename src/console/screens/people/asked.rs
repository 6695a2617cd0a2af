//! What People and a person's page asked the server, and "latest wins"
//! for each kind: the role index, the narrowing under way (and what stops
//! it), a person's page; and what waits on them (the page waits for the
//! index, the offboarding for the page). Only the answer with the latest
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
    /// A person's page being gathered.
    pub profiles: Latest,
    /// The page waits for the index before it is gathered.
    pub page_waits: bool,
    /// The offboarding opens once the page is gathered (`O` on People).
    pub then_offboard: bool,
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

    /// Whether a person's page still waits for this page (not one left).
    pub fn wants_page(&self, msg: &crate::console::screens::person::Msg) -> bool {
        use crate::console::screens::person::Msg;
        match msg {
            Msg::Profile { ticket, .. } => self.profiles.is_current(*ticket),
        }
    }

    /// Another organization or connection: every answer on its way is of
    /// the one left, and nothing waits any more. (The narrowing's stop is
    /// the caller's to pull first.)
    pub fn forget(&mut self) {
        self.indexes.issue();
        self.narrowings.issue();
        self.profiles.issue();
        self.page_waits = false;
        self.then_offboard = false;
    }
}

impl Table<People> {
    /// "Latest wins" for People's messages (the shell asks before one
    /// lands): [`Asked::wants`].
    pub fn wants(&self, msg: &super::Msg) -> bool {
        self.resource.asked.wants(msg)
    }

    /// Whether a person's page still waits for this page:
    /// [`Asked::wants_page`].
    pub fn wants_page(&self, msg: &crate::console::screens::person::Msg) -> bool {
        self.resource.asked.wants_page(msg)
    }
}
