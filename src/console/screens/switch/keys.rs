//! `:switch-preview`'s own keys: Enter and `e` offer the fix of the line
//! under the cursor as an edit; Esc (stop the read) and `r` (read again)
//! are the shared actions, answered the screen's way.

use ratatui::crossterm::event::KeyCode as K;

use crate::console::screens::ScreenId;
use crate::console::screens::keys::Action::{Edit, Open};
use crate::console::screens::keys::{Binding, Chord, Scope};

/// Enter on the switch preview, before the Enter every screen shares.
pub fn enter() -> Vec<Binding> {
    vec![Binding::new(
        &[Chord::key(K::Enter)],
        Open,
        Scope::On(ScreenId::Switch),
        "offer the line's fix as an edit (the rule's chooser, the fix's level chosen)",
        Some("edit the fix"),
    )]
}

/// `e` on the switch preview.
pub fn bindings() -> Vec<Binding> {
    vec![Binding::new(
        &[Chord::char('e')],
        Edit,
        Scope::On(ScreenId::Switch),
        "offer the line's fix as an edit",
        None,
    )]
}
