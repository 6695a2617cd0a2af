//! The Access tab's own keys: the bindings that work on that tab alone,
//! in the order its help and footer list them. Esc (stop the read), `r`
//! (read again) and Enter (a person's page, a role's members) are the
//! shared actions, answered the tab's way.

use ratatui::crossterm::event::KeyCode as K;

use crate::console::screens::ScreenId;
use crate::console::screens::keys::Action::{self, Back, Open, Refresh};
use crate::console::screens::keys::{Binding, Chord, Scope};

/// What a key of the tab's own asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Key {
    /// The column to the left.
    Left,
    /// The column to the right.
    Right,
    /// People, or roles.
    Kind,
    /// The next project's resources as the columns (after the last, every
    /// project again).
    Project,
    /// The resource under the cursor alone, or every resource again.
    Resource,
    /// Only what differs from the project's default, or everything.
    Differs,
    /// Only organization admins, or everyone.
    Admins,
}

/// Enter, `r` and Esc on the tab, before the ones every screen shares.
pub fn shared() -> Vec<Binding> {
    let c = Chord::char;
    let k = Chord::key;
    let on = Scope::On(ScreenId::Access);
    vec![
        Binding::new(
            &[k(K::Enter)],
            Open,
            on,
            "open the person's page (on roles: the role's members)",
            Some("open"),
        ),
        Binding::new(&[c('r')], Refresh, on, "read the grid again", Some("read again")),
        Binding::new(
            &[k(K::Esc)],
            Back,
            on,
            "stop the read under way (what arrived stays); else clear the filter",
            Some("stop"),
        ),
    ]
}

/// The tab's own keys.
pub fn bindings() -> Vec<Binding> {
    let c = Chord::char;
    let k = Chord::key;
    let on = Scope::On(ScreenId::Access);
    let bind = |chords: &[Chord], key: Key, what: &'static str, footer: Option<&'static str>| {
        Binding::new(chords, Action::Access(key), on, what, footer)
    };
    vec![
        Binding::new(
            &[c('e')],
            Action::Edit,
            on,
            "edit the rule of the cell: a level within the resource's bounds, or remove it",
            Some("edit"),
        ),
        bind(&[c('h'), k(K::Left)], Key::Left, "the column to the left", None),
        bind(
            &[c('l'), k(K::Right)],
            Key::Right,
            "the column to the right",
            None,
        ),
        bind(&[c('R')], Key::Kind, "people or roles", Some("roles")),
        bind(
            &[c('P')],
            Key::Project,
            "the next project's resources as the columns (after the last: every project)",
            Some("project"),
        ),
        bind(
            &[c('f')],
            Key::Resource,
            "the resource under the cursor alone (on every project too), or every resource",
            Some("resource"),
        ),
        bind(
            &[c('o')],
            Key::Differs,
            "only what differs from the project's default, or everything",
            Some("differs"),
        ),
        bind(
            &[c('A')],
            Key::Admins,
            "only organization admins, or everyone",
            Some("admins"),
        ),
    ]
}
