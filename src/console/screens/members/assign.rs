//! Assigning people to the role shown: the member picker opened over its
//! members (those already in it marked), the organization's people asked
//! for and searched on the server as typing pauses, and the people chosen
//! sent as one write. The shell holds the open picker among its overlays
//! and lends it here.

use super::list::Members;
use super::picker::Picker;
use super::{Ask, Write};
use crate::console::kit::notice::Notice;
use crate::console::screens::{Ctx, ScreenId};
use crate::console::table::Table;

impl Table<Members> {
    /// `a`: the picker for the role shown, and the ask for the
    /// organization's people; `None`, saying so, where no role is shown.
    pub fn open_picker(&mut self, ctx: &mut Ctx) -> Option<(Picker, Ask)> {
        let Some(role) = self
            .resource
            .role
            .clone()
            .filter(|_| ctx.shown == ScreenId::Members)
        else {
            *ctx.notice = Some(Notice::error(
                "a assigns people to a role: choose one first (Enter opens its members)".into(),
            ));
            return None;
        };
        let picker = Picker::new(role.name, self.loaded_users());
        let ask = Ask::People {
            ticket: self.resource.people_asked.issue(),
            organization: ctx.scope.organization.to_owned(),
            role: role.id,
            search: None,
        };
        Some((picker, ask))
    }

    /// Typing paused in a picker whose members are not all loaded: the
    /// server searches for what is typed.
    pub fn search_people(&mut self, picker: &mut Picker, ctx: &mut Ctx) -> Option<Ask> {
        let search = picker.search_wanted()?;
        picker.searched = search.clone();
        picker.searching = true;
        *ctx.dirty = true;
        Some(Ask::People {
            ticket: self.resource.people_asked.issue(),
            organization: ctx.scope.organization.to_owned(),
            role: self.role_id(),
            search: Some(search),
        })
    }

    /// Enter in the picker: the people chosen join the role shown; the
    /// picker shows it saving.
    pub fn assign(&self, picker: &mut Picker, ctx: &Ctx) -> Write {
        picker.saving = true;
        Write::Assign {
            organization: ctx.scope.organization.to_owned(),
            role: self.role_id(),
            people: picker.selection(),
        }
    }

    /// The id of the role shown (empty where none is: the server refuses it).
    fn role_id(&self) -> String {
        self.resource
            .role
            .as_ref()
            .map(|role| role.id.clone())
            .unwrap_or_default()
    }
}
