//! A person's page's own keys: the bindings that work on that screen alone,
//! in the order its help and footer list them. The shell's keymap places
//! them among the keys every screen shares where they have always stood
//! (design.md's order), and the config file's `[keys]` rebinds them by
//! action name as it does every other key.

use ratatui::crossterm::event::KeyCode as K;

use crate::console::screens::ScreenId;
use crate::console::screens::keys::Action::*;
use crate::console::screens::keys::{Binding, Chord, Scope};

/// Enter on a person's page, before the Enter every screen shares.
pub fn enter() -> Vec<Binding> {
    let k = Chord::key;
    vec![Binding::new(
        &[k(K::Enter)],
        Open,
        Scope::On(ScreenId::Person),
        "on a subscription: show it on Subscriptions",
        Some("open"),
    )]
}

/// `a`, `d`, `e`, `L`, `O` and `r` on a person's page.
pub fn bindings() -> Vec<Binding> {
    let c = Chord::char;
    vec![
        Binding::new(
            &[c('a')],
            Assign,
            Scope::On(ScreenId::Person),
            "add them to roles (choose several)",
            Some("add to roles"),
        ),
        Binding::new(
            &[c('d')],
            Delete,
            Scope::On(ScreenId::Person),
            "remove them from the role under the cursor (asks first)",
            Some("remove"),
        ),
        Binding::new(
            &[c('e')],
            Edit,
            Scope::On(ScreenId::Person),
            "edit the rule a row of their Access section names (theirs, a role's, everyone's)",
            Some("edit rule"),
        ),
        Binding::new(
            &[c('L')],
            SetLevel,
            Scope::On(ScreenId::Person),
            "change their level (member, admin, owner)",
            Some("level"),
        ),
        Binding::new(
            &[c('O')],
            Offboard,
            Scope::On(ScreenId::Person),
            "offboard them: their plan, then its steps (asks first)",
            Some("offboard"),
        ),
        Binding::new(
            &[c('r')],
            Refresh,
            Scope::On(ScreenId::Person),
            "gather their page again (and who holds which role)",
            Some("refresh"),
        ),
    ]
}
