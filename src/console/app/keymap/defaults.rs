//! The default keys (design.md's), one binding an entry, in the order
//! help lists them; `[keys]` in the config file overrides them
//! (`rebinding.rs`).

use ratatui::crossterm::event::KeyCode;

use super::*;
use crate::console::screens::{deliveries, members, roles, subscriptions};

impl Default for Keymap {
    /// The keys of design.md. A table, one binding an entry: the one
    /// function of the console past 80 lines that is meant to be (issue
    /// 30 req 6), read entry by entry rather than top to bottom. A screen
    /// whose keys have moved into its folder (Roles) gives its own.
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
            bind(
                &[k(K::Enter)],
                Open,
                Scope::On(ScreenId::People),
                "the person's page: roles, subscriptions, keys, if they left",
                Some("open"),
            ),
            bind(
                &[k(K::Enter)],
                Open,
                Scope::On(ScreenId::Person),
                "on a subscription: show it on Subscriptions",
                Some("open"),
            ),
            bind(
                &[k(K::Enter)],
                Open,
                Scope::On(ScreenId::Offboard),
                "run the plan (asks first: only y runs it)",
                Some("run"),
            ),
            bind(
                &[k(K::Enter)],
                Open,
                all,
                "open: a role's members, a subscription's deliveries, or the detail of a row",
                Some("open"),
            ),
            bind(&[c('/')], Filter, all, "filter", Some("filter")),
            bind(&[c(':')], Command, all, "command line", Some("command")),
        ];
        // Roles' own keys come from its folder (screens/roles/keys.rs),
        // here where they have always stood on Roles: after `:`, before `v`.
        bindings.extend(roles::keys::bindings());
        // Members', Subscriptions' and Deliveries' own keys come from their
        // folders (`screens/<name>/keys.rs`), where they have always stood.
        bindings.extend(members::keys::bindings());
        bindings.extend(subscriptions::keys::bindings());
        bindings.extend(deliveries::keys::bindings());
        bindings.extend([
            bind(
                &[c('t')],
                TestDelivery,
                Scope::On(ScreenId::Health),
                "test delivery of the row's subscription, or every marked one's (asks first)",
                Some("test"),
            ),
            bind(
                &[c('p')],
                Pause,
                Scope::On(ScreenId::Health),
                "pause or resume the row's subscription, or every marked one's",
                Some("pause"),
            ),
            bind(
                &[c('e')],
                Edit,
                Scope::On(ScreenId::Health),
                "edit the row's subscription (its target, its recipients)",
                Some("edit"),
            ),
            bind(
                &[c('u')],
                Restore,
                Scope::On(ScreenId::Health),
                "restore the row's subscription when it is soft-deleted",
                None,
            ),
            bind(
                &[c('r')],
                Refresh,
                Scope::On(ScreenId::Health),
                "look again (reads only what changed since the last look)",
                Some("look again"),
            ),
            bind(
                &[k(K::Esc)],
                Back,
                Scope::On(ScreenId::Health),
                "clear the marks; else stop the look under way; else clear the filter; else back",
                Some("stop"),
            ),
            bind(
                &[k(K::Esc)],
                Back,
                Scope::On(ScreenId::People),
                "clear the marks, then the filter; stop the look of :no-role; clear :no-role or :has-role; else back",
                None,
            ),
            bind(
                &[c('s')],
                Sort,
                Scope::On(ScreenId::People),
                "order: joined, newest or oldest first",
                Some("sort"),
            ),
            bind(
                &[c('a')],
                Assign,
                Scope::On(ScreenId::People),
                "add the person to roles (choose several)",
                Some("add to roles"),
            ),
            bind(
                &[c('L')],
                SetLevel,
                Scope::On(ScreenId::People),
                "change the person's level (member, admin, owner)",
                Some("level"),
            ),
            bind(
                &[c('O')],
                Offboard,
                Scope::On(ScreenId::People),
                "offboard the person: their plan, then its steps (asks first)",
                Some("offboard"),
            ),
            bind(
                &[c('a')],
                Assign,
                Scope::On(ScreenId::Person),
                "add them to roles (choose several)",
                Some("add to roles"),
            ),
            bind(
                &[c('d')],
                Delete,
                Scope::On(ScreenId::Person),
                "remove them from the role under the cursor (asks first)",
                Some("remove"),
            ),
            bind(
                &[c('L')],
                SetLevel,
                Scope::On(ScreenId::Person),
                "change their level (member, admin, owner)",
                Some("level"),
            ),
            bind(
                &[c('O')],
                Offboard,
                Scope::On(ScreenId::Person),
                "offboard them: their plan, then its steps (asks first)",
                Some("offboard"),
            ),
            bind(
                &[c('r')],
                Refresh,
                Scope::On(ScreenId::Person),
                "gather their page again (and who holds which role)",
                Some("refresh"),
            ),
            bind(
                &[c(' ')],
                Mark,
                Scope::On(ScreenId::Offboard),
                "turn the option under the cursor on or off (the plan follows)",
                Some("option"),
            ),
            bind(
                &[k(K::Esc)],
                Back,
                Scope::On(ScreenId::Offboard),
                "back (a run under way goes on)",
                Some("back"),
            ),
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
