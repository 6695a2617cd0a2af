//! When Health starts a look by itself, and what it offers the keys
//! that act on a subscription: a look starts the first time the screen
//! is shown, and again once the server answers after cutting one short;
//! another project or connection forgets what it learnt; the row under
//! the cursor is a subscription that `t`, `p`, `e`, `u` and Enter (its
//! deliveries) act on.

use super::{Ask, Board};
use crate::console::screens::deliveries::list::ChosenSubscription;
use crate::console::screens::heard::{Heard, Step};
use crate::console::screens::{Ctx, ScreenId, Screens};
use crate::console::table::Table;

impl Screens {
    /// Enter or `:deliveries` on Health: the deliveries of the row's
    /// subscription.
    pub fn health_deliveries(&mut self) -> Heard {
        let Some(chosen) = self.health.chosen() else {
            return Heard::default();
        };
        self.deliveries.open(chosen);
        Heard::step(Step::Open(ScreenId::Deliveries))
    }
}

impl Table<Board> {
    /// The first time Health is shown, a look starts.
    pub fn on_shown(&mut self, ctx: &mut Ctx) -> Option<Ask> {
        if self.is_looking() || self.resource.looked.is_some() {
            return None;
        }
        self.look(ctx, None)
    }

    /// The list read whole for the state filters of Subscriptions: a look
    /// that reads no delivery, unless a look is under way (its list will
    /// do).
    pub fn read_list(&mut self, ctx: &mut Ctx) -> Option<Ask> {
        if self.is_looking() {
            return None;
        }
        self.look(ctx, Some(0))
    }

    /// The server answers again: a look it cut short, or that could not
    /// start, starts again by itself (going on from what it learnt).
    pub fn look_again_if_cut(&mut self, ctx: &mut Ctx) -> Option<Ask> {
        if !self.resource.looks.take_again() || self.is_looking() {
            return None;
        }
        self.look(ctx, None)
    }

    /// Whether Health still waits for this message: news of a look of a
    /// project left since is dropped.
    pub fn wants(&self, msg: &super::Msg) -> bool {
        match msg {
            super::Msg::LookNews { ticket, .. } | super::Msg::Looked { ticket, .. } => {
                self.resource.looks.is_current(*ticket)
            }
        }
    }

    /// Whether a look with this ticket is the latest (the footer shows
    /// its requests only then).
    pub fn is_current_look(&self, ticket: crate::console::kit::latest::Ticket) -> bool {
        self.resource.looks.is_current(ticket)
    }

    /// The subscription of the row under the cursor, named for the keys
    /// that act on it (and for its deliveries, Enter).
    pub fn chosen(&self) -> Option<ChosenSubscription> {
        self.selected().map(|row| ChosenSubscription {
            id: row.id,
            title: row.title.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_look_after_another_project_never_carries_the_ticket_of_the_look_left() {
        let mut board = Table::<Board>::default();
        let (left, _stop) = board.resource.looks.start();
        board.resource.looks.cut_short();
        board.forget();
        let (next, _stop) = board.resource.looks.start();
        assert_ne!(left, next, "the end of the look left would land on the new one");
        assert!(!board.resource.looks.is_current(left));
        assert!(
            !board.resource.looks.take_again(),
            "a look of the project left is not looked at again"
        );
    }
}
