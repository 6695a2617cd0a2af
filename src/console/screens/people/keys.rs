//! People's own keys: the bindings that work on that screen alone, in the
//! order its help and footer list them. The shell's keymap places them
//! among the keys every screen shares where they have always stood
//! (design.md's order), and the config file's `[keys]` rebinds them by
//! action name as it does every other key.

use ratatui::crossterm::event::KeyCode as K;

use crate::console::screens::ScreenId;
use crate::console::screens::keys::Action::*;
use crate::console::screens::keys::{Binding, Chord, Scope};

/// Enter on People (the person's page), before the Enter every screen shares.
pub fn enter() -> Vec<Binding> {
    let k = Chord::key;
    vec![Binding::new(
        &[k(K::Enter)],
        Open,
        Scope::On(ScreenId::People),
        "the person's page: roles, subscriptions, keys, if they left",
        Some("open"),
    )]
}

/// Esc, sort, `a`, `L` and `O` on People, after Deliveries' keys.
pub fn bindings() -> Vec<Binding> {
    let c = Chord::char;
    let k = Chord::key;
    vec![
        Binding::new(
            &[k(K::Esc)],
            Back,
            Scope::On(ScreenId::People),
            "clear the marks, then the filter; stop the look of :no-role; clear :no-role or :has-role; else back",
            None,
        ),
        Binding::new(
            &[c('s')],
            Sort,
            Scope::On(ScreenId::People),
            "order: joined, newest or oldest first",
            Some("sort"),
        ),
        Binding::new(
            &[c('a')],
            Assign,
            Scope::On(ScreenId::People),
            "add the person to roles (choose several)",
            Some("add to roles"),
        ),
        Binding::new(
            &[c('L')],
            SetLevel,
            Scope::On(ScreenId::People),
            "change the person's level (member, admin, owner)",
            Some("level"),
        ),
        Binding::new(
            &[c('O')],
            Offboard,
            Scope::On(ScreenId::People),
            "offboard the person: their plan, then its steps (asks first)",
            Some("offboard"),
        ),
    ]
}
