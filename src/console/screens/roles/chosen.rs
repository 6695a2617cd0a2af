//! The role Members is opened for: the one under the cursor (Enter), or
//! the one `:role NAME` names among the rows loaded; and the names loaded,
//! for the command line's completion. Enter opens Members with it
//! ([`Screens::roles_enter`]); the shell names no role's fields.

use super::list::Roles;
use crate::console::screens::heard::{Heard, Step};
use crate::console::screens::members::list::ChosenRole;
use crate::console::screens::{ScreenId, Screens};
use crate::console::table::Table;

impl Screens {
    /// Enter on Roles: the role under the cursor opens its members.
    pub fn roles_enter(&mut self) -> Heard {
        let Some(role) = self.roles.chosen() else {
            return Heard::default();
        };
        self.members.open(role);
        Heard::step(Step::Open(ScreenId::Members))
    }
}

impl Table<Roles> {
    /// The role under the cursor, for Members.
    pub fn chosen(&self) -> Option<ChosenRole> {
        self.selected().map(|role| ChosenRole {
            id: role.id.clone(),
            name: role.name.clone(),
        })
    }

    /// The names of the roles loaded.
    pub fn names(&self) -> impl Iterator<Item = String> + '_ {
        self.rows.list.loaded().map(|(_, role)| role.name.clone())
    }

    /// The role loaded whose name is `name`, in any case.
    pub fn named(&self, name: &str) -> Option<ChosenRole> {
        let wanted = name.trim().to_lowercase();
        self.rows
            .list
            .loaded()
            .find(|(_, role)| role.name.to_lowercase() == wanted)
            .map(|(_, role)| ChosenRole {
                id: role.id.clone(),
                name: role.name.clone(),
            })
    }
}
