//! The console's state and `update(msg) -> effects`: no I/O, no terminal.
//! Keys and API answers come in as messages; what must happen outside (a
//! page to fetch, text to copy, a search to run later) goes out as effects.

use chrono::{DateTime, Utc};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tui_input::Input;

mod assign;
mod edit;
mod find;
mod forms;
mod latest;
mod navigate;
mod permissions;
mod switch;
mod types;

pub use permissions::Permissions;
pub use types::*;

use super::form::Form;
use super::keymap::{Action, Keymap, Screen};
use super::layout;

use super::rows::Rows;
use crate::api::{self, Organization, Project, Role, RoleMembership, Subscription, SubscriptionFilter};
use crate::config::CURRENT;
use navigate::receive;

pub struct App {
    pub context: Context,
    pub keymap: Keymap,
    pub tab: Tab,
    pub roles: Rows<Role>,
    pub members: Rows<RoleMembership>,
    pub role: Option<ChosenRole>,
    /// The tab a role's members were opened from: back goes there.
    members_opened_from: Tab,
    pub subscriptions: Rows<Subscription>,
    pub subscription_filter: SubscriptionFilter,
    /// The local filter of each tab, as typed.
    pub filters: [String; 3],
    /// The local sort of roles and members (an index into the sorts above,
    /// 0 for none), and the position in SUBSCRIPTION_ORDERINGS.
    pub sorts: [usize; 3],
    pub mode: Mode,
    pub detail_json: bool,
    /// The detail drawn over the table (Enter on a subscription or member,
    /// or `v` where there is no room for the pane).
    pub detail_open: bool,
    pub detail_scroll: u16,
    pub help_scroll: u16,
    pub notice: Option<Notice>,
    /// The client's record of the last try of a request the footer shows
    /// (a page of the list shown, or a write).
    pub last_request: Option<api::Exchange>,
    /// Requests sent and not yet answered: counted in [`App::update`]
    /// alone, where effects start and answers arrive.
    pub in_flight: usize,
    pub spinner: usize,
    pub size: (u16, u16),
    /// The time relative dates are counted from; the loop sets it before drawing.
    pub now: DateTime<Utc>,
    pub quit: bool,
    /// Whether anything shown changed since the last draw.
    pub dirty: bool,
    searches: Latest,
    /// After a refresh: the id of the row the cursor was on, per tab.
    refocus: [Option<String>; 3],
    /// The soft delete `u` can undo now.
    pub undo: Option<Undo>,
    /// The form a confirmed write came from, to reopen if the write fails.
    resume: Option<Box<(Form, FormPurpose)>>,
    /// Tickets of writes, and how many writes are on their way.
    writes: Latest,
    writing: usize,
    pub permissions: Permissions,
    undos: Latest,
    /// The last success notice set to fade; only its timer clears it.
    notices: Latest,
    /// The context the console started with, for `:ctx` to go back to.
    start: Context,
    /// Which connection answers belong to: it changes with each `:ctx`, so
    /// that a late answer over the previous one is dropped.
    connection: Latest,
    /// The last `:ctx` asked for; only its answer is taken.
    connects: Latest,
    /// Where a `:ctx` is going; writes wait until it answers.
    pub switching: Option<Target>,
    /// Whether the connection is still the one the console started with.
    at_start: bool,
    /// Set by `:org`: the project must then be one of the new organization's.
    project_follows: bool,
    /// The last list a form or picker asked for (dashboards and insights,
    /// or people); an answer for an earlier one is dropped.
    lookups: Latest,
}

impl App {
    pub fn new(context: Context, keymap: Keymap, size: (u16, u16)) -> Self {
        let read_only = context.read_only;
        App {
            start: context.clone(),
            connection: Latest::default(),
            connects: Latest::default(),
            switching: None,
            at_start: true,
            project_follows: false,
            lookups: Latest::default(),
            context,
            keymap,
            tab: Tab::Roles,
            roles: Rows::default(),
            members: Rows::default(),
            role: None,
            members_opened_from: Tab::Members,
            subscriptions: Rows::default(),
            subscription_filter: SubscriptionFilter::default(),
            filters: Default::default(),
            sorts: [0; 3],
            mode: Mode::Normal,
            detail_json: false,
            detail_open: false,
            detail_scroll: 0,
            help_scroll: 0,
            notice: None,
            last_request: None,
            in_flight: 0,
            spinner: 0,
            size,
            now: crate::clock::system_now(),
            quit: false,
            dirty: true,
            searches: Latest::default(),
            refocus: Default::default(),
            undo: None,
            resume: None,
            writes: Latest::default(),
            writing: 0,
            permissions: Permissions {
                read_only,
                ..Permissions::default()
            },
            undos: Latest::default(),
            notices: Latest::default(),
        }
    }

    /// What the console does first: the names for the header and the
    /// first page of the first tab.
    pub fn start(&mut self) -> Vec<Effect> {
        self.update(Msg::Start)
    }

    /// Whether the screen is large enough for the detail pane.
    pub fn has_detail_pane(&self) -> bool {
        layout::areas(ratatui::layout::Rect::new(0, 0, self.size.0, self.size.1))
            .detail
            .is_some()
    }

    /// Rows the table shows at the current size.
    pub fn table_height(&self) -> u64 {
        u64::from(layout::table_rows(self.size.0, self.size.1))
    }

    /// Takes one message; returns what must happen outside. Requests in
    /// flight are counted here, and only here: one less for each answer,
    /// one more for each request among the effects. A success notice put
    /// up on the way is set to fade.
    pub fn update(&mut self, msg: Msg) -> Vec<Effect> {
        if msg.is_answer() {
            self.in_flight = self.in_flight.saturating_sub(1);
        }
        let before = self.notice.clone();
        let mut effects = self.handle(msg);
        if self.notice != before && self.notice.as_ref().is_some_and(|notice| notice.fades) {
            effects.push(Effect::Timer {
                timer: Timer::Notice,
                ticket: self.notices.issue(),
            });
        }
        self.in_flight += effects.iter().filter(|effect| effect.is_request()).count();
        effects
    }

    fn handle(&mut self, msg: Msg) -> Vec<Effect> {
        match msg {
            Msg::Start => {
                let mut effects = vec![self.load_names(), self.load_scopes()];
                effects.extend(self.fetch_visible());
                effects
            }
            Msg::Key(key) => {
                self.dirty = true;
                self.key(key)
            }
            Msg::Resize { width, height } => {
                self.size = (width, height);
                self.dirty = true;
                self.rescroll();
                self.fetch_visible()
            }
            Msg::Tick => {
                if self.in_flight > 0 {
                    self.spinner = self.spinner.wrapping_add(1);
                    self.dirty = true;
                }
                Vec::new()
            }
            Msg::Page {
                list,
                generation,
                offset,
                result,
            } => self.page(list, generation, offset, result),
            Msg::Exchange { about, exchange } => {
                self.exchanged(about, exchange);
                Vec::new()
            }
            Msg::Written(answer) => {
                let WriteAnswer {
                    ticket,
                    write,
                    result,
                } = *answer;
                self.written(ticket, write, result)
            }
            Msg::People {
                ticket,
                people,
                in_role,
            } => {
                if !self.lookups.is_current(ticket) {
                    return Vec::new(); // for a picker closed since
                }
                self.people(people, in_role)
            }
            Msg::Catalog { ticket, result } => {
                if !self.lookups.is_current(ticket) {
                    return Vec::new(); // for a form closed since
                }
                self.catalog(result)
            }
            Msg::Scopes { connection, scopes } => {
                if self.connection.is_current(connection) {
                    self.scopes_known(scopes);
                }
                Vec::new()
            }
            Msg::Profiles(profiles) => {
                self.fill_profiles(profiles);
                Vec::new()
            }
            Msg::Connected { ticket, result } => self.connected(ticket, result),
            Msg::Timer {
                timer: Timer::Search,
                ticket,
            } => self.search_due(ticket),
            Msg::Timer {
                timer: Timer::Undo,
                ticket,
            } => {
                self.undo_expired(ticket);
                Vec::new()
            }
            Msg::Timer {
                timer: Timer::Notice,
                ticket,
            } => {
                if self.notices.is_current(ticket) && self.notice.as_ref().is_some_and(|notice| notice.fades)
                {
                    self.notice = None;
                    self.dirty = true;
                }
                Vec::new()
            }
            Msg::Names {
                connection,
                current_organization,
                current_project,
                organizations,
                projects,
            } => {
                if !self.connection.is_current(connection) {
                    return Vec::new();
                }
                self.fill_switcher(organizations.as_deref(), projects.as_deref());
                let projects = projects.unwrap_or_default();
                let effects = self.follow_organization(
                    &projects,
                    current_organization.as_ref(),
                    current_project.as_ref(),
                );
                self.name_context(
                    organizations.unwrap_or_default(),
                    projects,
                    current_organization,
                    current_project,
                );
                effects
            }
        }
    }

    /// Asks for the names of the organization and project (a request in flight).
    fn load_names(&mut self) -> Effect {
        Effect::LoadNames {
            connection: self.connection.current(),
            organization: self.context.organization.clone(),
            project: self.context.project.clone(),
        }
    }

    /// Asks for the key's scopes (a request in flight).
    fn load_scopes(&mut self) -> Effect {
        Effect::LoadScopes {
            connection: self.connection.current(),
        }
    }

    /// Whether `ticket` is the `:ctx` the app waits for; the driver swaps
    /// its client only for that one.
    pub fn awaits_connection(&self, ticket: Ticket) -> bool {
        self.connects.is_current(ticket)
    }

    /// The client tells of a try: the footer shows it when it is about the
    /// list shown now (never one left, or a connection left) or a write.
    fn exchanged(&mut self, about: About, exchange: api::Exchange) {
        let current = match about {
            About::Page { list, generation } => self.shown() == list && self.generation(list) == generation,
            About::Write => true,
        };
        if current {
            self.last_request = Some(exchange);
            self.dirty = true;
        }
    }

    /// The generation of a list's rows now.
    fn generation(&self, list: ListId) -> Ticket {
        match list {
            ListId::Roles => self.roles.list.generation(),
            ListId::Members => self.members.list.generation(),
            ListId::Subscriptions => self.subscriptions.list.generation(),
        }
    }

    /// Finds the names of the organization and project the screen is about.
    /// `@current` is named by what the server said it means; else the
    /// lists are searched, and a key that reaches one organization (or one
    /// project of it) names that one.
    fn name_context(
        &mut self,
        organizations: Vec<Organization>,
        projects: Vec<Project>,
        current_organization: Option<Organization>,
        current_project: Option<Project>,
    ) {
        let context = &mut self.context;
        let organization = current_organization
            .as_ref()
            .filter(|_| context.organization == CURRENT)
            .or_else(|| {
                organizations
                    .iter()
                    .find(|organization| organization.id == context.organization)
            })
            .or_else(|| {
                (context.organization == CURRENT && organizations.len() == 1).then(|| &organizations[0])
            });
        context.organization_name = organization.map(|organization| organization.name.clone());
        let project = current_project
            .as_ref()
            .filter(|_| context.project == CURRENT)
            .or_else(|| {
                projects
                    .iter()
                    .find(|project| project.id.to_string() == context.project)
            })
            .or_else(|| {
                let ours: Vec<&Project> = projects
                    .iter()
                    .filter(|project| {
                        organization.is_some_and(|o| project.organization.as_deref() == Some(o.id.as_str()))
                    })
                    .collect();
                (context.project == CURRENT && ours.len() == 1).then(|| ours[0])
            });
        context.project_name = project.map(|project| project.name.clone());
        self.dirty = true;
    }

    fn key(&mut self, key: KeyEvent) -> Vec<Effect> {
        if key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL) {
            self.quit = true;
            return Vec::new();
        }
        match &mut self.mode {
            Mode::Help => {
                // j/k and the page keys scroll the help; any other key closes it.
                match key.code {
                    KeyCode::Char('j') | KeyCode::Down => {
                        self.help_scroll = self.help_scroll.saturating_add(1)
                    }
                    KeyCode::Char('k') | KeyCode::Up => self.help_scroll = self.help_scroll.saturating_sub(1),
                    KeyCode::PageDown => self.help_scroll = self.help_scroll.saturating_add(10),
                    KeyCode::PageUp => self.help_scroll = self.help_scroll.saturating_sub(10),
                    _ => self.mode = Mode::Normal,
                }
                Vec::new()
            }
            Mode::Filter(_) => self.filter_key(key),
            Mode::Command(_) => self.command_key(key),
            Mode::Form(..) => self.form_key(key),
            Mode::Confirm(_) => self.confirm_key(key),
            Mode::Picker(_) => self.picker_key(key),
            Mode::Switcher(_) => self.switcher_key(key),
            Mode::Normal => match self.keymap.action(&key, self.screen()) {
                Some(action) => self.act(action),
                None => {
                    self.dirty = false;
                    Vec::new()
                }
            },
        }
    }

    fn act(&mut self, action: Action) -> Vec<Effect> {
        let height = self.table_height() as i64;
        match action {
            Action::Quit => self.back(true),
            Action::Back => self.back(false),
            Action::RolesTab => self.switch(Tab::Roles),
            Action::MembersTab => self.switch(Tab::Members),
            Action::SubscriptionsTab => self.switch(Tab::Subscriptions),
            Action::NextTab => self.switch(Tab::ALL[(self.tab.index() + 1) % 3]),
            Action::PreviousTab => self.switch(Tab::ALL[(self.tab.index() + 2) % 3]),
            Action::Up => self.move_by(-1),
            Action::Down => self.move_by(1),
            Action::PageUp => self.move_by(-height),
            Action::PageDown => self.move_by(height),
            Action::Top => self.move_to(0),
            Action::Bottom => self.move_to(i64::MAX),
            Action::Open => self.open(),
            Action::Filter => {
                let typed = self.filters[self.tab_slot()].clone();
                self.mode = Mode::Filter(Input::new(typed));
                Vec::new()
            }
            Action::Command => {
                self.mode = Mode::Command(Input::default());
                Vec::new()
            }
            Action::Refresh => self.refresh(),
            Action::Sort => self.cycle_sort(),
            Action::ToggleDeleted => {
                self.subscription_filter.deleted = !self.subscription_filter.deleted;
                self.subscriptions.cursor = 0;
                self.subscriptions.top = 0;
                self.reload(ListId::Subscriptions, true)
            }
            Action::ToggleJson => {
                // Where the screen has no room for the pane, `v` opens the detail over the table.
                if !self.has_detail_pane() && !self.detail_open {
                    self.detail_open = true;
                } else {
                    self.detail_json = !self.detail_json;
                }
                self.detail_scroll = 0;
                Vec::new()
            }
            Action::DetailDown => {
                self.detail_scroll = self.detail_scroll.saturating_add(3);
                Vec::new()
            }
            Action::DetailUp => {
                self.detail_scroll = self.detail_scroll.saturating_sub(3);
                Vec::new()
            }
            Action::CopyId => self.copy(false),
            Action::CopyJson => self.copy(true),
            Action::Help => {
                self.help_scroll = 0;
                self.mode = Mode::Help;
                Vec::new()
            }
            Action::New | Action::Edit | Action::Delete | Action::Restore | Action::Assign
                if let Some(reason) = self.unavailable(action) =>
            {
                self.notice = Some(Notice::error(format!("not available: {reason}")));
                Vec::new()
            }
            Action::New => self.new_item(),
            Action::Edit => self.edit_item(),
            Action::Delete => self.delete_item(),
            Action::Restore => self.restore_item(),
            Action::Assign => self.open_picker(),
        }
    }

    /// Esc and q: dismiss a notice, close the JSON view, leave a role's
    /// members; `q` on the top level quits.
    fn back(&mut self, may_quit: bool) -> Vec<Effect> {
        // An error waits to be dismissed; a flash of success fades by itself.
        if self.notice.take_if(|notice| notice.error).is_some() {
            return Vec::new();
        }
        if self.detail_open {
            self.detail_open = false;
        } else if self.detail_json {
            self.detail_json = false;
        } else if self.tab == Tab::Members && self.role.is_some() {
            // Back where the role was opened: Roles, or the choice of a role.
            self.role = None;
            self.filters[1].clear();
            self.tab = self.members_opened_from;
            return self.fetch_visible();
        } else if may_quit {
            self.quit = true;
        }
        Vec::new()
    }

    fn switch(&mut self, tab: Tab) -> Vec<Effect> {
        if self.notice.as_ref().is_some_and(|notice| !notice.error) {
            self.notice = None;
        }
        self.tab = tab;
        self.fetch_visible()
    }

    /// The slot of per-tab settings (filters, sorts) for what is shown:
    /// the Members tab without a role shows roles.
    fn tab_slot(&self) -> usize {
        self.shown().slot()
    }

    /// The list the current screen shows.
    pub fn shown(&self) -> ListId {
        match (self.tab, &self.role) {
            (Tab::Roles, _) | (Tab::Members, None) => ListId::Roles,
            (Tab::Members, Some(_)) => ListId::Members,
            (Tab::Subscriptions, _) => ListId::Subscriptions,
        }
    }

    /// The screen, for the keys that work on it.
    pub fn screen(&self) -> Screen {
        match self.shown() {
            ListId::Roles => Screen::Roles,
            ListId::Members => Screen::Members,
            ListId::Subscriptions => Screen::Subscriptions,
        }
    }

    fn copy(&mut self, json: bool) -> Vec<Effect> {
        let text = self.with_rows(|rows, _| {
            if json {
                rows.selected_json()
            } else {
                rows.selected_id()
            }
        });
        match text {
            Some(text) => {
                let what = if json { "the row's JSON" } else { "the id" };
                self.notice = Some(Notice::done(format!("copied {what} to the clipboard")));
                vec![Effect::Copy(text)]
            }
            None => Vec::new(),
        }
    }

    fn page(
        &mut self,
        list: ListId,
        generation: Ticket,
        offset: u64,
        result: Result<PageData, api::Error>,
    ) -> Vec<Effect> {
        self.dirty = true;
        let height = self.table_height();
        let accepted = match result {
            Ok(PageData::Roles(page)) if list == ListId::Roles => {
                receive(&mut self.roles, generation, offset, page)
            }
            Ok(PageData::Members(page)) if list == ListId::Members => {
                receive(&mut self.members, generation, offset, page)
            }
            Ok(PageData::Subscriptions(page)) if list == ListId::Subscriptions => {
                receive(&mut self.subscriptions, generation, offset, page)
            }
            Ok(_) => false,
            Err(error) => {
                let failed = match list {
                    ListId::Roles => self.roles.list.failed(generation, offset),
                    ListId::Members => self.members.list.failed(generation, offset),
                    ListId::Subscriptions => self.subscriptions.list.failed(generation, offset),
                };
                if failed {
                    self.learn_from(&error);
                    self.notice = Some(Notice::error(error.to_string()));
                }
                return Vec::new();
            }
        };
        if !accepted {
            return Vec::new(); // an answer for a screen already left
        }
        // The row the cursor was on before a refresh (or a new one) is looked
        // for in the first page that comes back, and only there: a row gone
        // from the list must not pull the cursor later on.
        if let Some(id) = self.refocus[list.slot()].take() {
            match list {
                ListId::Roles => self.roles.select_id(&id, height),
                ListId::Members => self.members.select_id(&id, height),
                ListId::Subscriptions => self.subscriptions.select_id(&id, height),
            };
        }
        if self.shown() != list {
            return Vec::new();
        }
        self.apply_view();
        self.fetch_visible()
    }
}
