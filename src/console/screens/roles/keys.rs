//! Roles' own keys: the bindings that work on the Roles screen alone, in
//! the order its help and footer list them. The shell's keymap puts them
//! after the keys every screen shares up to `:` (move, open, filter, the
//! command line) and before the rest (the detail, refresh, copy, help,
//! marks, back), and the config file's `[keys]` rebinds them by action
//! name as it does every other key.

use crate::console::screens::ScreenId;
use crate::console::screens::keys::{Action, Binding, Chord, Scope};

/// Sort, new, edit, delete and assign, on Roles.
pub fn bindings() -> Vec<Binding> {
    let roles = Scope::On(ScreenId::Roles);
    let c = Chord::char;
    vec![
        Binding::new(
            &[c('s')],
            Action::Sort,
            roles,
            "sort by the next column",
            Some("sort"),
        ),
        Binding::new(&[c('n')], Action::New, roles, "new role", Some("new")),
        Binding::new(
            &[c('e')],
            Action::Edit,
            roles,
            "rename, change access",
            Some("edit"),
        ),
        Binding::new(
            &[c('d')],
            Action::Delete,
            roles,
            "delete the role, or every marked one (asks first)",
            Some("delete"),
        ),
        Binding::new(
            &[c('a')],
            Action::Assign,
            roles,
            "assign people to the role (opens its members)",
            None,
        ),
        Binding::new(
            &[c('w')],
            Action::Grants,
            roles,
            "what the role grants in each project (its page)",
            Some("grants"),
        ),
        // A role's page: `e` edits the role's rule on a row.
        Binding::new(
            &[c('e')],
            Action::Edit,
            Scope::On(ScreenId::Grants),
            "edit the role's rule on the row's project or resource",
            Some("edit rule"),
        ),
        // A role's members are the role's too (in help; their footer
        // keeps its room for their own keys).
        Binding::new(
            &[c('w')],
            Action::Grants,
            Scope::On(ScreenId::Members),
            "what the role grants in each project (its page)",
            None,
        ),
    ]
}
