//! Members' own keys: the bindings that work on the Members screen alone,
//! in the order its help and footer list them (the keymap puts them
//! after Roles' own, as ever; see `screens/roles/keys.rs`).

use crate::console::screens::ScreenId;
use crate::console::screens::keys::{Action, Binding, Chord, Scope};

/// Sort, assign and remove, on Members.
pub fn bindings() -> Vec<Binding> {
    let members = Scope::On(ScreenId::Members);
    let c = Chord::char;
    vec![
        Binding::new(
            &[c('s')],
            Action::Sort,
            members,
            "sort by the next column",
            Some("sort"),
        ),
        Binding::new(
            &[c('a')],
            Action::Assign,
            members,
            "assign people to the role",
            Some("assign"),
        ),
        Binding::new(
            &[c('d')],
            Action::Delete,
            members,
            "remove from the role, or every marked one (asks first)",
            Some("remove"),
        ),
    ]
}
