//! News between lists: a write's answer lands in the list that sent it
//! (`edit.rs`, `bulk.rs`), and what it changed for the others goes out as
//! one [`Change`], told through the holder (`Screens::on_change`) to every
//! screen that may show it.

use super::{App, Effect};
use crate::console::screens::Change;

impl App {
    /// Tells every list what changed, and does what a screen asks on
    /// hearing it (People reading the roles again after an offboarding).
    pub(super) fn announce(&mut self, change: Change) -> Vec<Effect> {
        let (screens, mut ctx) = self.lend();
        let (closed, heard) = screens.on_change(&change, &mut ctx);
        if closed {
            self.keep_shown_open();
        }
        self.follow(heard)
    }
}
