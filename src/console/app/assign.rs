//! Assigning people to a role: the shell's side of the member picker
//! (opening it among its overlays, its keys, the write it sends); the
//! picker and how its answers land are Members' own (`screens/members/`).

use ratatui::crossterm::event::KeyEvent;

use super::{App, Effect, Mode, Notice, ScreenId, Write};
use crate::console::screens::members::Ask as MembersAsk;
use crate::console::screens::members::Write as MemberWrite;
use crate::console::screens::members::picker::{Outcome as PickerOutcome, Picker};

impl App {
    /// `a`: the member picker for the chosen role; on Roles, the role
    /// under the cursor opens with its members, and the picker over them.
    pub(super) fn open_picker(&mut self) -> Vec<Effect> {
        let mut effects = Vec::new();
        if self.shown() == ScreenId::Roles {
            effects = self.open();
        }
        let role = self.screens.members.resource.role.clone();
        let Some(role) = role.filter(|_| self.shown() == ScreenId::Members) else {
            self.notice = Some(Notice::error(
                "a assigns people to a role: choose one first (Enter opens its members)".into(),
            ));
            return effects;
        };
        let in_role = self.screens.members.loaded_users();
        self.mode = Mode::Picker(Box::new(Picker::new(role.name, in_role)));
        effects.push(Effect::from(MembersAsk::People {
            ticket: self.screens.members.resource.people_asked.issue(),
            organization: self.context.organization.clone(),
            role: role.id,
            search: None,
        }));
        effects
    }

    /// Typing paused in a picker whose members are not all loaded: the
    /// server searches for what is typed.
    pub(super) fn search_people(&mut self) -> Vec<Effect> {
        let role = self
            .screens
            .members
            .resource
            .role
            .as_ref()
            .map(|role| role.id.clone());
        let Mode::Picker(picker) = &mut self.mode else {
            return Vec::new();
        };
        let Some(search) = picker.search_wanted() else {
            return Vec::new();
        };
        picker.searched = search.clone();
        picker.searching = true;
        self.dirty = true;
        vec![Effect::from(MembersAsk::People {
            ticket: self.screens.members.resource.people_asked.issue(),
            organization: self.context.organization.clone(),
            role: role.unwrap_or_default(),
            search: Some(search),
        })]
    }

    pub(super) fn picker_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let organization = self.context.organization.clone();
        let role = self
            .screens
            .members
            .resource
            .role
            .as_ref()
            .map(|role| role.id.clone())
            .unwrap_or_default();
        let Mode::Picker(picker) = &mut self.mode else {
            return Vec::new();
        };
        match picker.key(key) {
            PickerOutcome::Picking => match picker.search_wanted() {
                // Asked of the server once typing pauses.
                Some(_) => vec![Effect::Timer {
                    timer: super::Timer::Search,
                    ticket: self.searches.issue(),
                }],
                None => Vec::new(),
            },
            PickerOutcome::Cancel => {
                self.mode = Mode::Normal;
                Vec::new()
            }
            PickerOutcome::Assign => {
                picker.saving = true;
                let people = picker.selection();
                self.write(Write::Member(MemberWrite::Assign {
                    organization,
                    role,
                    people,
                }))
            }
        }
    }
}
