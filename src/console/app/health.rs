//! The Health view's looks: one starts when the view is first shown and
//! with `r`, runs on a task (`effects.rs`) whose news arrives batched, and
//! stops with Esc between requests, keeping what it learnt. Enter opens a
//! row's deliveries; `t`, `p` and `e` act on its subscription as on
//! Subscriptions (`p` and `e` read it first when the Subscriptions tab has
//! not loaded it: `App::read_then`, `app/actions.rs`). Starting and stopping a look, its news and its end are
//! the screen's own (`Table<Board>::look`, `stop_look`, `on_look_news`,
//! `on_looked`); what is here routes to them, and moves there as issue 30
//! goes on.

use super::{App, Effect, ScreenId};
use crate::console::screens::deliveries::list::ChosenSubscription;

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

    /// The list read whole for the state filters of Subscriptions: a look
    /// that reads no delivery, unless a look is under way (its list will
    /// do).
    pub(super) fn read_list_for_states(&mut self) -> Vec<Effect> {
        if self.screens.health.is_looking() {
            return Vec::new();
        }
        let (screens, mut ctx) = self.lend();
        screens
            .health
            .look(&mut ctx, Some(0))
            .map(Effect::from)
            .into_iter()
            .collect()
    }

    /// The first time Health is shown, a look starts.
    pub(super) fn health_shown(&mut self) -> Vec<Effect> {
        let health = &self.screens.health;
        if health.is_looking() || health.resource.looked.is_some() {
            return Vec::new();
        }
        self.look()
    }

    /// The server answers again: a look it cut short, or that could not
    /// start, starts again by itself (going on from what it learnt).
    pub(super) fn look_again_if_cut(&mut self) -> Vec<Effect> {
        if !self.screens.health.resource.looks.take_again() || self.screens.health.is_looking() {
            return Vec::new();
        }
        self.look()
    }

    /// Another project or connection: the look's rows are of the one left.
    pub(super) fn forget_health(&mut self) {
        self.screens.health.resource.looks.forget();
        self.screens.health.forget();
    }

    /// The subscription of the Health row under the cursor.
    pub(super) fn health_selected(&self) -> Option<i64> {
        match self.shown() {
            ScreenId::Health => self.screens.health.selected().map(|row| row.id),
            _ => None,
        }
    }

    /// Enter on Health: the row's deliveries; back returns to Health.
    pub(super) fn open_health_deliveries(&mut self) -> Vec<Effect> {
        let Some(row) = self.screens.health.selected() else {
            return Vec::new();
        };
        let chosen = ChosenSubscription {
            id: row.id,
            title: row.title.clone(),
        };
        self.screens.deliveries.open(chosen);
        self.open_list(ScreenId::Deliveries)
    }
}
