//! Subscriptions' own keys: the bindings that work on the Subscriptions
//! screen alone, in the order its help and footer list them (the keymap
//! puts them after Members' own, as ever; see `screens/roles/keys.rs`).

use crate::console::screens::ScreenId;
use crate::console::screens::keys::{Action, Binding, Chord, Scope};

/// Order, soft delete and restore, the deleted, new, edit, test, pause and
/// the state filters, on Subscriptions. A table, one binding an entry: it
/// stays whole past 80 lines (a table, which issue 30 req 6 excepts), in
/// the order help and the footer list the keys.
pub fn bindings() -> Vec<Binding> {
    let subscriptions = Scope::On(ScreenId::Subscriptions);
    let c = Chord::char;
    vec![
        Binding::new(
            &[c('s')],
            Action::Sort,
            subscriptions,
            "order: newest, next delivery, title (both ways)",
            Some("sort"),
        ),
        Binding::new(
            &[c('d')],
            Action::Delete,
            subscriptions,
            "soft-delete, or every marked one (asks first)",
            Some("delete"),
        ),
        Binding::new(
            &[c('u')],
            Action::Restore,
            subscriptions,
            "restore a soft-deleted one, or undo",
            Some("restore"),
        ),
        Binding::new(
            &[c('D')],
            Action::ToggleDeleted,
            subscriptions,
            "show or hide deleted",
            Some("deleted"),
        ),
        Binding::new(
            &[c('n')],
            Action::New,
            subscriptions,
            "new subscription",
            Some("new"),
        ),
        Binding::new(
            &[c('e')],
            Action::Edit,
            subscriptions,
            "edit the subscription",
            Some("edit"),
        ),
        Binding::new(
            &[c('t')],
            Action::TestDelivery,
            subscriptions,
            "test delivery now, or of every marked one (asks first)",
            Some("test"),
        ),
        Binding::new(
            &[c('p')],
            Action::Pause,
            subscriptions,
            "pause or resume, or every marked one (asks first)",
            Some("pause"),
        ),
        Binding::new(
            &[c('f')],
            Action::CycleState,
            subscriptions,
            "only one state: overdue, paused, ended, active, unsupported, then all",
            Some("state"),
        ),
        Binding::new(
            &[c('o')],
            Action::Overdue,
            subscriptions,
            "only the overdue ones (again: all)",
            None,
        ),
        Binding::new(
            &[c('L')],
            Action::LookFurther,
            subscriptions,
            "a state's look stopped at 5,000 rows: look through 5,000 more",
            None,
        ),
    ]
}
