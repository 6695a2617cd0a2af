//! The chooser over a screen (`Mode::Chooser`): its keys, and what was
//! chosen handed back to the screen it chooses for. What is chosen, and
//! asked once it is, is People's (`screens/people/choose.rs`: `a` adds
//! people to roles, `L` changes a level).

use ratatui::crossterm::event::KeyEvent;

use super::{App, Effect, Mode};
use crate::console::widgets::chooser::Outcome;

impl App {
    pub(super) fn chooser_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let Mode::Chooser(chooser, _) = &mut self.mode else {
            return Vec::new();
        };
        let chosen = match chooser.key(key) {
            Outcome::Choosing => return Vec::new(),
            Outcome::Cancel => {
                self.mode = Mode::Normal;
                return Vec::new();
            }
            Outcome::Chosen(chosen) => chosen,
        };
        let Mode::Chooser(chooser, purpose) = std::mem::replace(&mut self.mode, Mode::Normal) else {
            return Vec::new();
        };
        self.lend_then_follow(|screens, ctx| screens.chosen(&chooser, &chosen, purpose, ctx))
    }
}
