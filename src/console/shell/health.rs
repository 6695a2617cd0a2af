//! The Health view's looks: one starts when the view is first shown and
//! with `r`, runs on a task (`effects.rs`) whose news arrives batched, and
//! stops with Esc between requests, keeping what it learnt. Enter opens a
//! row's deliveries; `t`, `p` and `e` act on its subscription as on
//! Subscriptions (`p` and `e` read it first when the Subscriptions tab has
//! not loaded it: `read_then`, `screens/subscriptions/read.rs`). What a
//! look does, and when one starts by itself, is the screen's own
//! (`screens/health/`); what is here lends it a `Ctx` and sends what it
//! asks.

use super::{App, Effect};

impl App {
    /// Starts a look, unless one is under way.
    pub(super) fn look(&mut self) -> Vec<Effect> {
        let (screens, mut ctx) = self.lend();
        screens
            .health
            .look(&mut ctx, None)
            .map(Effect::from)
            .into_iter()
            .collect()
    }

    /// Esc on Health while a look is under way: it stops between
    /// requests, and says so when it has.
    pub(super) fn stop_look(&mut self) -> bool {
        let (screens, mut ctx) = self.lend();
        screens.health.stop_look(&mut ctx)
    }

    /// The list read whole for the state filters of Subscriptions (unless
    /// a look under way reads it already).
    pub(super) fn read_list_for_states(&mut self) -> Vec<Effect> {
        let (screens, mut ctx) = self.lend();
        screens
            .health
            .read_list(&mut ctx)
            .map(Effect::from)
            .into_iter()
            .collect()
    }
}
