//! An offboarding's own keys: the bindings that work on that screen alone,
//! in the order its help and footer list them. The shell's keymap places
//! them among the keys every screen shares where they have always stood
//! (design.md's order), and the config file's `[keys]` rebinds them by
//! action name as it does every other key.

use ratatui::crossterm::event::KeyCode as K;

use crate::console::screens::ScreenId;
use crate::console::screens::keys::Action::*;
use crate::console::screens::keys::{Binding, Chord, Scope};

/// Enter on an offboarding (run the plan), before the Enter every screen shares.
pub fn enter() -> Vec<Binding> {
    let k = Chord::key;
    vec![Binding::new(
        &[k(K::Enter)],
        Open,
        Scope::On(ScreenId::Offboard),
        "run the plan (asks first: only y runs it)",
        Some("run"),
    )]
}

/// Space (an option) and Esc on an offboarding.
pub fn bindings() -> Vec<Binding> {
    let c = Chord::char;
    let k = Chord::key;
    vec![
        Binding::new(
            &[c(' ')],
            Mark,
            Scope::On(ScreenId::Offboard),
            "turn the option under the cursor on or off (the plan follows)",
            Some("option"),
        ),
        Binding::new(
            &[k(K::Esc)],
            Back,
            Scope::On(ScreenId::Offboard),
            "back (a run under way goes on)",
            Some("back"),
        ),
    ]
}
