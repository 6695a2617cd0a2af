//! Deliveries' own keys: the bindings that work on a subscription's
//! deliveries alone, in the order its help and footer list them (the
//! keymap puts them after Subscriptions' own, as ever; see
//! `screens/roles/keys.rs`). What `t`, `p`, `e` and `u` do there is to
//! the subscription whose deliveries are shown.

use crate::console::screens::ScreenId;
use crate::console::screens::keys::{Action, Binding, Chord, Scope};

/// The failed ones, and test, pause, edit and restore of the subscription
/// shown, on Deliveries.
pub fn bindings() -> Vec<Binding> {
    let deliveries = Scope::On(ScreenId::Deliveries);
    let c = Chord::char;
    vec![
        Binding::new(
            &[c('f')],
            Action::OnlyFailed,
            deliveries,
            "only the failed and partial ones (again: all)",
            Some("failed"),
        ),
        Binding::new(
            &[c('t')],
            Action::TestDelivery,
            deliveries,
            "send a test delivery of this subscription now (asks first)",
            Some("test"),
        ),
        Binding::new(
            &[c('p')],
            Action::Pause,
            deliveries,
            "pause or resume this subscription (asks first)",
            Some("pause"),
        ),
        Binding::new(
            &[c('e')],
            Action::Edit,
            deliveries,
            "edit this subscription (its target, its recipients)",
            Some("edit"),
        ),
        Binding::new(
            &[c('u')],
            Action::Restore,
            deliveries,
            "restore this subscription when it is soft-deleted",
            None,
        ),
    ]
}
