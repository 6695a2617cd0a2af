//! A subscription read before a key acts on it: `p`, `e` or `u` on one
//! the Subscriptions tab has not loaded (a Health row, deliveries opened by
//! `:sub`), and `:sub ID` itself, wait for it to be read
//! ([`ReadFirst::wait`]); the read (`Ask::Subscription`, answered by this
//! screen's `Msg::Subscription`) then says what was waiting
//! ([`ReadFirst::arrived`]). The last one read is kept, so that the key's
//! action (a form's fields, a pause's question) finds it.
//!
//! It is this screen's, not Health's, though Health's `p` and `e` wait on
//! it most: the subscription is this screen's row, read by this screen's
//! request, and `:sub` and the deliveries' `u` wait on it too.

use super::Ask;
use super::list::Subscriptions;
use crate::api::Subscription;
use crate::console::kit::notice::Notice;
use crate::console::screens::Ctx;
use crate::console::table::Table;

impl Table<Subscriptions> {
    /// `p`, `e` or `u` on a subscription this screen has not loaded (a
    /// Health row, deliveries opened by `:sub`), or `:sub ID`: it is read
    /// first, and `then` is done once it arrives (`Heard::Resume`).
    pub fn read_then(&mut self, id: i64, then: Then, ctx: &mut Ctx) -> Ask {
        self.resource.read.wait(id, then);
        *ctx.notice = Some(Notice::working(format!("reading #{id}…")));
        Ask::Subscription {
            project: ctx.scope.project.to_owned(),
            id,
        }
    }
}

/// What waits for a subscription to be read before it is done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Then {
    Pause,
    Edit,
    /// `u` on the deliveries of a soft-deleted subscription.
    Restore,
    /// `:sub ID`: show it and open its deliveries.
    Open,
}

#[derive(Debug, Default)]
pub struct ReadFirst {
    /// The subscription waited for and what then.
    waiting: Option<(i64, Then)>,
    /// The subscription last read.
    last: Option<Box<Subscription>>,
}

impl ReadFirst {
    /// `then` waits for subscription `id` to be read (replacing whatever
    /// waited before).
    pub fn wait(&mut self, id: i64, then: Then) {
        self.waiting = Some((id, then));
    }

    /// The read failed: the id of the subscription a key waited for, if
    /// one did (it waits no longer).
    pub fn failed(&mut self) -> Option<i64> {
        self.waiting.take().map(|(id, _)| id)
    }

    /// A subscription arrived: what waited for it, if anything (it waits
    /// no longer). It is kept as the last one read.
    pub fn arrived(&mut self, subscription: Box<Subscription>) -> Option<Then> {
        let waiting = self.waiting.take_if(|(waited, _)| *waited == subscription.id);
        self.last = Some(subscription);
        waiting.map(|(_, then)| then)
    }

    /// Subscription `id`, if it is the one last read.
    pub fn last(&self, id: i64) -> Option<&Subscription> {
        self.last.as_deref().filter(|read| read.id == id)
    }
}
