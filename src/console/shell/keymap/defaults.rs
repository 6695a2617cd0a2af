//! The default keys (design.md's), one binding an entry, in the order
//! help lists them; `[keys]` in the config file overrides them
//! (`rebinding.rs`).

use ratatui::crossterm::event::KeyCode;

use super::*;
use crate::console::screens::{
    access, deliveries, health, members, offboard, people, person, roles, subscriptions, switch,
};

impl Default for Keymap {
    /// The keys of design.md. A table, one binding an entry, read entry
    /// by entry rather than top to bottom: it stays whole past 80 lines
    /// (a table, which issue 30 req 6 excepts), as split it would only
    /// scatter the order help lists the keys in. Each screen's own keys
    /// come from its folder (`screens/<name>/keys.rs`).
    fn default() -> Self {
        use Action::*;
        use KeyCode as K;
        let bind = Binding::new;
        let c = Chord::char;
        let k = Chord::key;
        let all = Scope::Everywhere;
        let mut bindings = vec![
            bind(&[c('1')], Show(ScreenId::Roles), all, "roles", None),
            bind(&[c('2')], Show(ScreenId::Members), all, "members", None),
            bind(
                &[c('3')],
                Show(ScreenId::Subscriptions),
                all,
                "subscriptions",
                None,
            ),
            bind(&[c('4')], Show(ScreenId::People), all, "people", None),
            bind(
                &[c('5')],
                Show(ScreenId::Access),
                all,
                "access: who can reach what, and why",
                None,
            ),
            bind(
                &[c('H')],
                Show(ScreenId::Health),
                all,
                "health: every subscription, worst first",
                None,
            ),
            bind(&[k(K::Tab)], NextTab, all, "next tab", None),
            bind(&[k(K::BackTab)], PreviousTab, all, "previous tab", None),
            bind(&[c('k'), k(K::Up)], Up, all, "up", None),
            bind(&[c('j'), k(K::Down)], Down, all, "down", None),
            bind(&[k(K::PageUp)], PageUp, all, "page up", None),
            bind(&[k(K::PageDown)], PageDown, all, "page down", None),
            bind(&[c('g'), k(K::Home)], Top, all, "first row", None),
            bind(&[c('G'), k(K::End)], Bottom, all, "last row", None),
        ];
        // The Enter of People, a person's page and an offboarding come from
        // their folders (`screens/<name>/keys.rs`), before the shared Enter.
        bindings.extend(people::keys::enter());
        bindings.extend(person::keys::enter());
        bindings.extend(offboard::keys::enter());
        // The Access tab's Enter, `r` and Esc, before the shared ones.
        bindings.extend(access::keys::shared());
        // The switch preview's Enter (the fix as an edit), before the shared one.
        bindings.extend(switch::keys::enter());
        bindings.extend([
            bind(
                &[k(K::Enter)],
                Open,
                all,
                "open: a role's members, a subscription's deliveries, or the detail of a row",
                Some("open"),
            ),
            bind(&[c('/')], Filter, all, "filter", Some("filter")),
            bind(&[c(':')], Command, all, "command line", Some("command")),
        ]);
        // Roles' own keys come from its folder (screens/roles/keys.rs),
        // here where they have always stood on Roles: after `:`, before `v`.
        bindings.extend(roles::keys::bindings());
        // Members', Subscriptions' and Deliveries' own keys come from their
        // folders (`screens/<name>/keys.rs`), where they have always stood.
        bindings.extend(members::keys::bindings());
        bindings.extend(subscriptions::keys::bindings());
        bindings.extend(deliveries::keys::bindings());
        // Health's, People's, a person's page's and an offboarding's own
        // keys come from their folders, here where they have always stood.
        bindings.extend(health::keys::bindings());
        bindings.extend(people::keys::bindings());
        bindings.extend(person::keys::bindings());
        bindings.extend(offboard::keys::bindings());
        bindings.extend(access::keys::bindings());
        bindings.extend(switch::keys::bindings());
        bindings.extend([
            bind(&[c('v')], ToggleJson, all, "detail: fields or raw JSON", None),
            bind(&[c('J')], DetailDown, all, "scroll the detail down", None),
            bind(&[c('K')], DetailUp, all, "scroll the detail up", None),
            bind(&[c('r')], Refresh, all, "refresh", Some("refresh")),
            bind(&[c('y')], CopyId, all, "copy id", None),
            bind(&[c('Y')], CopyJson, all, "copy JSON", None),
            bind(&[c('?')], Help, all, "help", Some("help")),
            bind(
                &[c(' ')],
                Mark,
                all,
                "mark or unmark the row: d, p, t (on People: a) act on every marked row",
                None,
            ),
            bind(
                &[c('*')],
                MarkAll,
                all,
                "mark every row the filter shows (at most 1,000)",
                None,
            ),
            bind(
                &[k(K::Esc)],
                Back,
                all,
                "clear the marks, then the filter; else back, dismiss",
                None,
            ),
            bind(
                &[c('q')],
                Quit,
                all,
                "back; quit on the top level",
                Some("back/quit"),
            ),
        ]);
        Keymap { bindings }
    }
}
