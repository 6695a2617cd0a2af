//! Health's own keys: the bindings that work on that screen alone, in the
//! order its help and footer list them. The shell's keymap places them
//! among the keys every screen shares where they have always stood
//! (design.md's order), and the config file's `[keys]` rebinds them by
//! action name as it does every other key.

use ratatui::crossterm::event::KeyCode as K;

use crate::console::screens::ScreenId;
use crate::console::screens::keys::Action::*;
use crate::console::screens::keys::{Binding, Chord, Scope};

/// `t`, `p`, `e`, `u`, `r` and Esc on Health, after Deliveries' keys.
pub fn bindings() -> Vec<Binding> {
    let c = Chord::char;
    let k = Chord::key;
    vec![
        Binding::new(
            &[c('t')],
            TestDelivery,
            Scope::On(ScreenId::Health),
            "test delivery of the row's subscription, or every marked one's (asks first)",
            Some("test"),
        ),
        Binding::new(
            &[c('p')],
            Pause,
            Scope::On(ScreenId::Health),
            "pause or resume the row's subscription, or every marked one's",
            Some("pause"),
        ),
        Binding::new(
            &[c('e')],
            Edit,
            Scope::On(ScreenId::Health),
            "edit the row's subscription (its target, its recipients)",
            Some("edit"),
        ),
        Binding::new(
            &[c('u')],
            Restore,
            Scope::On(ScreenId::Health),
            "restore the row's subscription when it is soft-deleted",
            None,
        ),
        Binding::new(
            &[c('r')],
            Refresh,
            Scope::On(ScreenId::Health),
            "look again (reads only what changed since the last look)",
            Some("look again"),
        ),
        Binding::new(
            &[k(K::Esc)],
            Back,
            Scope::On(ScreenId::Health),
            "clear the marks; else stop the look under way; else clear the filter; else back",
            Some("stop"),
        ),
    ]
}
