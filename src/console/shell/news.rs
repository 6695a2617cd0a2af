//! News between lists: a write's answer lands in the list that sent it
//! (`edit.rs`, `bulk.rs`), and what it changed for the others goes out as
//! one [`Change`], told through the holder (`Screens::on_change`) to every
//! screen that may show it.

use super::App;
use crate::console::screens::Change;

impl App {
    /// Tells every list what changed.
    pub(super) fn announce(&mut self, change: Change) {
        let (screens, mut ctx) = self.lend();
        if screens.on_change(&change, &mut ctx) {
            self.keep_shown_open();
        }
    }
}
