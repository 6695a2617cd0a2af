//! Finding: the `/` filter (local at once, on the server after a pause)
//! and the `:` command line.

use ratatui::crossterm::event::{KeyCode, KeyEvent};
use tui_input::Input;
use tui_input::backend::crossterm::EventHandler;

use super::navigate::restart;
use super::{App, Effect, ListId, Mode, Notice, Target, Ticket, Timer};
use crate::console::command;
use crate::console::switcher::Scope;

impl App {
    pub(super) fn filter_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let slot = self.tab_slot();
        let Mode::Filter(input) = &mut self.mode else {
            return Vec::new();
        };
        match key.code {
            KeyCode::Esc => {
                self.mode = Mode::Normal;
                self.filters[slot].clear();
            }
            KeyCode::Enter => {
                self.mode = Mode::Normal;
                return Vec::new();
            }
            _ => {
                input.handle_event(&ratatui::crossterm::event::Event::Key(key));
                self.filters[slot] = input.value().to_string();
            }
        }
        self.with_rows(|rows, _| rows.reset_cursor());
        self.apply_view();
        let mut effects = self.fetch_visible();
        if slot == 2 && self.subscription_filter.search.as_deref().unwrap_or("") != self.filters[2].trim() {
            effects.push(Effect::Timer {
                timer: Timer::Search,
                ticket: self.searches.issue(),
            });
        }
        effects
    }

    pub(super) fn search_due(&mut self, ticket: Ticket) -> Vec<Effect> {
        if !self.searches.is_current(ticket) {
            return Vec::new(); // typing went on: a later search is due
        }
        let text = self.filters[2].trim().to_string();
        if self.subscription_filter.search.as_deref().unwrap_or("") == text {
            return Vec::new();
        }
        self.subscription_filter.search = (!text.is_empty()).then_some(text);
        self.subscriptions.cursor = 0;
        self.subscriptions.top = 0;
        self.subscriptions.view = None;
        self.dirty = true;
        restart(&mut self.subscriptions, true);
        if self.shown() == ListId::Subscriptions {
            self.fetch_visible()
        } else {
            Vec::new()
        }
    }

    pub(super) fn command_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let Mode::Command(input) = &mut self.mode else {
            return Vec::new();
        };
        match key.code {
            KeyCode::Esc => self.mode = Mode::Normal,
            KeyCode::Tab => {
                if let Some(completed) = command::complete(input.value()) {
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
            Ok(command::Command::Tab(tab)) => self.switch(tab),
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
        self.role = None;
        self.roles.clear();
        self.members.clear();
        let mut effects = vec![self.load_names()];
        effects.extend(self.fetch_visible());
        effects
    }

    /// Shows another project's subscriptions.
    pub(super) fn switch_project(&mut self, id: String) -> Vec<Effect> {
        // A project chosen after `:org` is the one wanted.
        self.project_follows = false;
        self.context.project = id;
        self.context.project_name = None;
        self.subscriptions.clear();
        let mut effects = vec![self.load_names()];
        effects.extend(self.fetch_visible());
        effects
    }
}
