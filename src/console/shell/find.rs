//! Finding: the `/` filter (local at once, on the server after a pause)
//! and the `:` command line.

use ratatui::crossterm::event::{KeyCode, KeyEvent};
use strum::IntoEnumIterator;
use tui_input::Input;
use tui_input::backend::crossterm::EventHandler;

use super::{App, Effect, Latest, Mode, Notice, ScreenId, Target, Ticket, Timer};
use crate::console::screens::list::List;
use crate::console::screens::members::Ask as MembersAsk;
use crate::console::screens::members::list::ChosenRole;
use crate::console::screens::subscriptions::chosen;
use crate::console::screens::subscriptions::read::Then;
use crate::console::shell::command;
use crate::console::widgets::switcher::Scope;

/// What is typed at the bottom line, beyond the line itself (which the
/// mode holds): the `:` command line's history and the pause a search
/// waits for.
#[derive(Default)]
pub(super) struct Prompt {
    /// What was run at the `:` command line.
    pub(super) history: command::History,
    /// The pause in typing a search waits for: only the last one set counts.
    pub(super) searches: Latest,
}

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
        self.filter_to(typed)
    }

    /// The list on screen filtered by `typed` (empty: not filtered).
    pub(super) fn filter_to(&mut self, typed: String) -> Vec<Effect> {
        self.screens.shown_mut(self.shown()).set_filter(typed);
        self.apply_view();
        let mut effects = self.fetch_visible();
        if self
            .screens
            .list(self.shown())
            .is_some_and(|table| table.search_pending())
        {
            effects.push(Effect::Timer {
                timer: Timer::Search,
                ticket: self.prompt.searches.issue(),
            });
        }
        effects
    }

    /// Typing paused: every list whose filter differs from what its server
    /// searched starts over with the search.
    pub(super) fn search_due(&mut self, ticket: Ticket) -> Vec<Effect> {
        if !self.prompt.searches.is_current(ticket) {
            return Vec::new(); // typing went on: a later search is due
        }
        if matches!(self.mode, super::Mode::Picker(_)) {
            return self.search_people();
        }
        let mut effects = Vec::new();
        for list in ScreenId::iter() {
            let Some(table) = self.screens.list_mut(list) else {
                continue;
            };
            if table.search_pending() && table.search() && list == self.shown() {
                self.window.dirty = true;
                effects.extend(self.fetch_visible());
            }
        }
        effects
    }

    pub(super) fn command_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let roles = if key.code == KeyCode::Tab {
            self.role_names()
        } else {
            Vec::new()
        };
        let Mode::Command(input) = &mut self.mode else {
            return Vec::new();
        };
        match key.code {
            KeyCode::Esc => {
                self.prompt.history.reset();
                self.mode = Mode::Normal;
            }
            KeyCode::Tab => {
                let known = command::Known { roles: &roles };
                if let Some(completed) = command::complete(input.value(), known) {
                    *input = Input::new(completed);
                }
            }
            KeyCode::Up => {
                if let Some(line) = self.prompt.history.older(input.value()) {
                    *input = Input::new(line.to_string());
                }
            }
            KeyCode::Down => {
                if let Some(line) = self.prompt.history.newer() {
                    *input = Input::new(line.to_string());
                }
            }
            KeyCode::Enter => {
                let line = input.value().to_string();
                self.prompt.history.push(&line);
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
            Ok(command::Command::Show(ScreenId::Deliveries)) => self.open_deliveries(),
            Ok(command::Command::Show(list)) => self.switch(list),
            Ok(command::Command::State(None)) => {
                let state = self.screens.subscriptions.every_state();
                self.narrow_to(state)
            }
            Ok(command::Command::People) => {
                self.lend_then_follow(|screens, ctx| screens.narrow_people(None, ctx))
            }
            Ok(command::Command::NoRole) => self.lend_then_follow(|screens, ctx| {
                screens.narrow_people(
                    Some(crate::console::screens::people::list::Narrowing::NoRole),
                    ctx,
                )
            }),
            Ok(command::Command::HasRole(name)) => self.lend_then_follow(|screens, ctx| {
                screens.narrow_people(
                    Some(crate::console::screens::people::list::Narrowing::Role(name)),
                    ctx,
                )
            }),
            Ok(command::Command::State(state)) => self.narrow_to(state),
            Ok(command::Command::Target(kind)) => {
                let state = self.screens.subscriptions.only_target(kind);
                self.narrow_to(state)
            }
            Ok(command::Command::Delivers(what)) => {
                let state = self.screens.subscriptions.only_delivering(what);
                self.narrow_to(state)
            }
            Ok(command::Command::Quit) => {
                self.window.quit = true;
                Vec::new()
            }
            Ok(command::Command::Organization(id)) => self.switch_organization(id),
            Ok(command::Command::Project(id)) => self.switch_project(id),
            Ok(command::Command::PickOrganization) => self.open_switcher(Scope::Organization),
            Ok(command::Command::PickProject) => self.open_switcher(Scope::Project),
            Ok(command::Command::Profile(name)) => self.connect(Target::Profile(name)),
            Ok(command::Command::PickProfile) => self.open_switcher(Scope::Profile),
            Ok(command::Command::Subscription(id)) => self.jump_to_subscription(id),
            Ok(command::Command::Role(name)) => self.jump_to_role(&name),
            Ok(command::Command::Who { project, thing }) => {
                self.lend_then_follow(|screens, ctx| screens.who(project, thing, ctx))
            }
            Ok(command::Command::Access(argument)) => {
                self.lend_then_follow(|screens, ctx| screens.access_command(argument.as_deref(), ctx))
            }
            Ok(command::Command::Results) => self.show_results(),
            Ok(command::Command::Nothing) => Vec::new(),
            Err(message) => {
                self.notice.shown = Some(Notice::error(message));
                Vec::new()
            }
        }
    }

    /// The names of the roles loaded, for completion.
    pub fn role_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.screens.roles.names().collect();
        // People's index holds every role, loaded or not on Roles.
        names.extend(self.screens.people.role_names());
        names.sort_by_key(|name| name.to_lowercase());
        names.dedup();
        names
    }

    /// `:sub ID`: reads the subscription (it may be on no page loaded),
    /// then shows it in the list and opens its deliveries.
    fn jump_to_subscription(&mut self, id: i64) -> Vec<Effect> {
        self.read_then(id, Then::Open)
    }

    /// The subscription `:sub` asked for was read: the cursor goes to it
    /// when its row is loaded, and its deliveries open.
    pub(super) fn open_jumped(&mut self, subscription: &crate::api::Subscription) -> Vec<Effect> {
        if self
            .notice
            .shown
            .as_ref()
            .is_some_and(|notice| notice.text.starts_with("reading #"))
        {
            self.notice.shown = None;
        }
        self.navigation.shown = ScreenId::Subscriptions;
        self.navigation.tab = ScreenId::Subscriptions;
        let chosen = chosen::jumped_to(subscription);
        self.screens.subscriptions.find_again(chosen.id);
        self.apply_view();
        self.screens.deliveries.open(chosen);
        self.open_list(ScreenId::Deliveries)
    }

    /// `:role NAME`: the role's members, the role found by its name in any
    /// case among those loaded, else asked of the server.
    fn jump_to_role(&mut self, name: &str) -> Vec<Effect> {
        match self.screens.roles.named(name) {
            Some(role) => self.open_role(role.id, role.name),
            None => {
                self.notice.shown = Some(Notice::working(format!(
                    "looking for the role \"{}\"…",
                    name.trim()
                )));
                vec![Effect::from(MembersAsk::FindRole {
                    organization: self.context.organization.clone(),
                    name: name.trim().to_string(),
                })]
            }
        }
    }

    /// Shows role `id`'s members, from Roles (`:role NAME`, found).
    pub(super) fn open_role(&mut self, id: String, name: String) -> Vec<Effect> {
        self.navigation.shown = ScreenId::Roles;
        self.navigation.tab = ScreenId::Roles;
        self.screens.roles.find_again(&id);
        self.apply_view();
        self.screens.members.open(ChosenRole { id, name });
        self.open_list(ScreenId::Members)
    }

    /// Shows another organization's roles.
    pub(super) fn switch_organization(&mut self, id: String) -> Vec<Effect> {
        self.context.organization = id;
        self.context.organization_name = None;
        self.connection.project_follows = true;
        self.screens.roles.clear();
        self.screens.members.close();
        self.screens.members.clear();
        self.screens.forget_the_organization();
        self.keep_shown_open();
        let mut effects = vec![self.load_names()];
        if self.shown() == ScreenId::People {
            effects.extend(self.people_shown());
        }
        if self.shown() == ScreenId::Access {
            effects.extend(self.lend_then_follow(|screens, ctx| screens.access_shown(ctx)));
        }
        if self.shown() == ScreenId::Switch {
            effects.extend(self.lend_then_follow(|screens, ctx| screens.switch_shown(ctx)));
        }
        effects.extend(self.fetch_visible());
        effects
    }

    /// Shows another project's subscriptions.
    pub(super) fn switch_project(&mut self, id: String) -> Vec<Effect> {
        // A project chosen after `:org` is the one wanted.
        self.connection.project_follows = false;
        self.context.project = id;
        self.context.project_name = None;
        self.screens.subscriptions.clear();
        self.screens.health.forget();
        self.screens.deliveries.close();
        self.screens.deliveries.clear();
        self.keep_shown_open();
        let mut effects = vec![self.load_names()];
        effects.extend(self.fetch_visible());
        effects
    }
}
