//! Finding: the `/` filter (local at once, on the server after a pause)
//! and the `:` command line.

use ratatui::crossterm::event::{KeyCode, KeyEvent};
use strum::IntoEnumIterator;
use tui_input::Input;
use tui_input::backend::crossterm::EventHandler;

use super::{App, Effect, ListId, Mode, Notice, Target, Ticket, Timer};
use crate::console::lists::AnyTable;
use crate::console::widgets::command;
use crate::console::widgets::switcher::Scope;

impl App {
    /// A key while `/` is open: the view follows at once over the rows
    /// loaded; a list the server searches is searched once typing pauses.
    pub(super) fn filter_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let Mode::Filter(input) = &mut self.mode else {
            return Vec::new();
        };
        let typed = match key.code {
            KeyCode::Esc => {
                self.mode = Mode::Normal;
                String::new()
            }
            KeyCode::Enter => {
                self.mode = Mode::Normal;
                return Vec::new();
            }
            _ => {
                input.handle_event(&ratatui::crossterm::event::Event::Key(key));
                input.value().to_string()
            }
        };
        self.lists.get_mut(self.shown()).set_filter(typed);
        self.apply_view();
        let mut effects = self.fetch_visible();
        if self.lists.get(self.shown()).search_pending() {
            effects.push(Effect::Timer {
                timer: Timer::Search,
                ticket: self.searches.issue(),
            });
        }
        effects
    }

    /// Typing paused: every list whose filter differs from what its server
    /// searched starts over with the search.
    pub(super) fn search_due(&mut self, ticket: Ticket) -> Vec<Effect> {
        if !self.searches.is_current(ticket) {
            return Vec::new(); // typing went on: a later search is due
        }
        if matches!(self.mode, super::Mode::Picker(_)) {
            return self.search_people();
        }
        let mut effects = Vec::new();
        for list in ListId::iter() {
            let table = self.lists.get_mut(list);
            if table.search_pending() && table.search() && list == self.shown() {
                self.dirty = true;
                effects.extend(self.fetch_visible());
            }
        }
        effects
    }

    pub(super) fn command_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let Mode::Command(input) = &mut self.mode else {
            return Vec::new();
        };
        match key.code {
            KeyCode::Esc => self.mode = Mode::Normal,
            KeyCode::Tab => {
                let names = self.role_names();
                let Mode::Command(input) = &mut self.mode else {
                    return Vec::new();
                };
                if let Some(completed) = command::complete_with(input.value(), &names) {
                    *input = Input::new(completed);
                }
            }
            KeyCode::Enter => {
                let line = input.value().to_string();
                self.mode = Mode::Normal;
                return self.run_command(&line);
            }
            _ => {
                input.handle_event(&ratatui::crossterm::event::Event::Key(key));
            }
        }
        Vec::new()
    }

    pub(super) fn run_command(&mut self, line: &str) -> Vec<Effect> {
        match command::parse(line) {
            Ok(command::Command::Show(ListId::Deliveries)) => self.open_deliveries(),
            Ok(command::Command::Show(list)) => self.switch(list),
            Ok(command::Command::People) => self.narrow_people(None),
            Ok(command::Command::NoRole) => {
                self.narrow_people(Some(crate::console::lists::people::Narrowing::NoRole))
            }
            Ok(command::Command::HasRole(name)) => {
                self.narrow_people(Some(crate::console::lists::people::Narrowing::Role(name)))
            }
            Ok(command::Command::State(state)) => self.narrow_to(state),
            Ok(command::Command::Target(kind)) => {
                self.lists.subscriptions.resource.filter.target_type = kind;
                self.narrow_to(self.lists.subscriptions.resource.state)
            }
            Ok(command::Command::Delivers(what)) => {
                self.lists.subscriptions.resource.filter.resource_type = what;
                self.narrow_to(self.lists.subscriptions.resource.state)
            }
            Ok(command::Command::Quit) => {
                self.quit = true;
                Vec::new()
            }
            Ok(command::Command::Organization(id)) => self.switch_organization(id),
            Ok(command::Command::Project(id)) => self.switch_project(id),
            Ok(command::Command::PickOrganization) => self.open_switcher(Scope::Organization),
            Ok(command::Command::PickProject) => self.open_switcher(Scope::Project),
            Ok(command::Command::Profile(name)) => self.connect(Target::Profile(name)),
            Ok(command::Command::PickProfile) => self.open_switcher(Scope::Profile),
            Ok(command::Command::Nothing) => Vec::new(),
            Err(message) => {
                self.notice = Some(Notice::error(message));
                Vec::new()
            }
        }
    }

    /// Shows another organization's roles.
    pub(super) fn switch_organization(&mut self, id: String) -> Vec<Effect> {
        self.context.organization = id;
        self.context.organization_name = None;
        self.project_follows = true;
        self.lists.roles.clear();
        self.lists.members.close();
        self.lists.members.clear();
        self.forget_people();
        self.keep_shown_open();
        let mut effects = vec![self.load_names()];
        if self.shown() == ListId::People {
            effects.extend(self.people_shown());
        }
        effects.extend(self.fetch_visible());
        effects
    }

    /// Shows another project's subscriptions.
    pub(super) fn switch_project(&mut self, id: String) -> Vec<Effect> {
        // A project chosen after `:org` is the one wanted.
        self.project_follows = false;
        self.context.project = id;
        self.context.project_name = None;
        self.lists.subscriptions.clear();
        self.forget_health();
        self.lists.deliveries.close();
        self.lists.deliveries.clear();
        self.keep_shown_open();
        let mut effects = vec![self.load_names()];
        effects.extend(self.fetch_visible());
        effects
    }
}
