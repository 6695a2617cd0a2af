//! Assigning people to a role: the shell's side of the member picker
//! (opening it among its overlays, its keys, the write it sends); the
//! picker, opening it, its searches, the write it sends and how its answers
//! land are Members' own (`screens/members/`).

use ratatui::crossterm::event::KeyEvent;

use super::{App, Effect, Mode, ScreenId, Write};
use crate::console::screens::members::picker::Outcome as PickerOutcome;

impl App {
    /// `a`: the member picker for the chosen role; on Roles, the role
    /// under the cursor opens with its members, and the picker over them.
    pub(super) fn open_picker(&mut self) -> Vec<Effect> {
        let mut effects = Vec::new();
        if self.shown() == ScreenId::Roles {
            effects = self.open();
        }
        let (screens, mut ctx) = self.lend();
        if let Some((picker, ask)) = screens.members.open_picker(&mut ctx) {
            self.mode = Mode::Picker(Box::new(picker));
            effects.push(Effect::from(ask));
        }
        effects
    }

    /// Typing paused in a picker whose members are not all loaded: the
    /// server searches for what is typed.
    pub(super) fn search_people(&mut self) -> Vec<Effect> {
        let mut mode = std::mem::replace(&mut self.mode, Mode::Normal);
        let ask = match &mut mode {
            Mode::Picker(picker) => {
                let (screens, mut ctx) = self.lend();
                screens.members.search_people(picker, &mut ctx)
            }
            _ => None,
        };
        self.mode = mode;
        ask.map(Effect::from).into_iter().collect()
    }

    pub(super) fn picker_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let Mode::Picker(picker) = &mut self.mode else {
            return Vec::new();
        };
        match picker.key(key) {
            PickerOutcome::Picking => match picker.search_wanted() {
                // Asked of the server once typing pauses.
                Some(_) => vec![Effect::Timer {
                    timer: super::Timer::Search,
                    ticket: self.prompt.searches.issue(),
                }],
                None => Vec::new(),
            },
            PickerOutcome::Cancel => {
                self.screens.preview.stop();
                self.mode = Mode::Normal;
                Vec::new()
            }
            PickerOutcome::Assign => {
                let mut mode = std::mem::replace(&mut self.mode, Mode::Normal);
                let Mode::Picker(picker) = &mut mode else {
                    return Vec::new();
                };
                let (screens, ctx) = self.lend();
                let write = screens.members.assign(picker, &ctx);
                self.mode = mode;
                self.write(Write::Member(write))
            }
        }
    }
}
