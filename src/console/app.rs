//! The console's state and `update(msg) -> effects`: no I/O, no terminal.
//! Keys and API answers come in as messages; what must happen outside (a
//! page to fetch, text to copy, a search to run later) goes out as effects.

use std::time::Duration;

use chrono::{DateTime, Utc};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tui_input::Input;
use tui_input::backend::crossterm::EventHandler;

use super::command;
use super::keymap::{Action, Keymap};
use super::layout;
use super::list::PAGE_SIZE;
use super::rows::{Rows, Tabular};
use crate::api::{self, Organization, Page, Project, Role, RoleMembership, Subscription, SubscriptionFilter};

/// How long typing pauses before a subscription search goes to the server.
pub const SEARCH_DEBOUNCE: Duration = Duration::from_millis(300);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tab {
    Roles,
    Members,
    Subscriptions,
}

impl Tab {
    pub const ALL: [Tab; 3] = [Tab::Roles, Tab::Members, Tab::Subscriptions];

    pub fn title(self) -> &'static str {
        match self {
            Tab::Roles => "Roles",
            Tab::Members => "Members",
            Tab::Subscriptions => "Subscriptions",
        }
    }

    fn index(self) -> usize {
        Tab::ALL.iter().position(|tab| *tab == self).unwrap_or(0)
    }
}

/// Which list an answer is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListId {
    Roles,
    Members,
    Subscriptions,
}

/// What the header says the screen is about.
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// The host, or the profile's name.
    pub host: String,
    /// Set when `orgdeck demo` runs its own server.
    pub demo: bool,
    pub organization: String,
    pub project: String,
    pub organization_name: Option<String>,
    pub project_name: Option<String>,
}

/// The role whose members the Members tab shows.
#[derive(Debug, Clone, PartialEq)]
pub struct ChosenRole {
    pub id: String,
    pub name: String,
}

/// A note at the top of the screen; it never stops the keys.
#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    pub text: String,
    pub error: bool,
}

/// The last request, for the footer.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestLog {
    pub method: &'static str,
    pub path: String,
    pub status: Option<u16>,
    pub elapsed: Duration,
}

#[derive(Debug)]
pub enum Mode {
    Normal,
    Filter(Input),
    Command(Input),
    Help,
}

/// A page of one of the lists.
#[derive(Debug)]
pub enum PageData {
    Roles(Page<Role>),
    Members(Page<RoleMembership>),
    Subscriptions(Page<Subscription>),
}

#[derive(Debug)]
pub enum Msg {
    Key(KeyEvent),
    Resize {
        width: u16,
        height: u16,
    },
    /// The spinner's beat, only while requests are in flight.
    Tick,
    /// The pause in typing is over: search the server if nothing changed.
    SearchDue {
        token: u64,
    },
    Page {
        list: ListId,
        generation: u64,
        offset: u64,
        result: Result<PageData, api::Error>,
        log: RequestLog,
    },
    /// The organizations and projects the key reaches, for the header's names.
    Names {
        organizations: Option<Vec<Organization>>,
        projects: Option<Vec<Project>>,
    },
}

/// What a list request asks the server for.
#[derive(Debug, Clone, PartialEq)]
pub enum Query {
    Roles {
        organization: String,
    },
    Members {
        organization: String,
        role: String,
    },
    Subscriptions {
        project: String,
        filter: SubscriptionFilter,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Fetch a page; the answer comes back as `Msg::Page` with this list
    /// and generation, so that a late answer for a screen left is dropped.
    Fetch {
        list: ListId,
        generation: u64,
        query: Query,
        offset: u64,
        limit: u64,
    },
    /// Send `Msg::SearchDue { token }` after the debounce pause.
    Debounce { token: u64 },
    /// Put text on the clipboard (OSC 52).
    Copy(String),
    /// Look up the organization's and project's names.
    LoadNames,
}

/// Server orderings the subscriptions tab cycles through with `s`.
pub const SUBSCRIPTION_ORDERINGS: [(&str, &str); 5] = [
    ("-created_at", "newest first"),
    ("next_delivery_date", "next delivery first"),
    ("-next_delivery_date", "next delivery last"),
    ("title", "title A-Z"),
    ("-title", "title Z-A"),
];

/// Local sort columns of roles and members (0: as the server orders them).
pub const ROLE_SORTS: [&str; 5] = ["created", "name", "access", "members", "created"];
pub const MEMBER_SORTS: [&str; 5] = ["joined", "name", "email", "level", "joined"];

pub struct App {
    pub context: Context,
    pub keymap: Keymap,
    pub tab: Tab,
    pub roles: Rows<Role>,
    pub members: Rows<RoleMembership>,
    pub role: Option<ChosenRole>,
    pub subscriptions: Rows<Subscription>,
    pub subscription_filter: SubscriptionFilter,
    /// The local filter of each tab, as typed.
    pub filters: [String; 3],
    /// The local sort of roles and members (an index into the sorts above,
    /// 0 for none), and the position in SUBSCRIPTION_ORDERINGS.
    pub sorts: [usize; 3],
    pub mode: Mode,
    pub detail_json: bool,
    pub notice: Option<Notice>,
    pub last_request: Option<RequestLog>,
    pub in_flight: usize,
    pub spinner: usize,
    pub size: (u16, u16),
    /// The time relative dates are counted from; the loop sets it before drawing.
    pub now: DateTime<Utc>,
    pub quit: bool,
    /// Whether anything shown changed since the last draw.
    pub dirty: bool,
    search_token: u64,
    /// After a refresh: the id of the row the cursor was on, per tab.
    refocus: [Option<String>; 3],
}

impl App {
    pub fn new(context: Context, keymap: Keymap, size: (u16, u16)) -> Self {
        App {
            context,
            keymap,
            tab: Tab::Roles,
            roles: Rows::default(),
            members: Rows::default(),
            role: None,
            subscriptions: Rows::default(),
            subscription_filter: SubscriptionFilter::default(),
            filters: Default::default(),
            sorts: [0; 3],
            mode: Mode::Normal,
            detail_json: false,
            notice: None,
            last_request: None,
            in_flight: 0,
            spinner: 0,
            size,
            now: Utc::now(),
            quit: false,
            dirty: true,
            search_token: 0,
            refocus: Default::default(),
        }
    }

    /// What the console does first: the names for the header and the
    /// first page of the first tab.
    pub fn start(&mut self) -> Vec<Effect> {
        let mut effects = vec![self.load_names()];
        effects.extend(self.fetch_visible());
        effects
    }

    /// Rows the table shows at the current size.
    pub fn table_height(&self) -> u64 {
        u64::from(layout::table_rows(self.size.0, self.size.1))
    }

    pub fn update(&mut self, msg: Msg) -> Vec<Effect> {
        match msg {
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
            Msg::SearchDue { token } => self.search_due(token),
            Msg::Page {
                list,
                generation,
                offset,
                result,
                log,
            } => self.page(list, generation, offset, result, log),
            Msg::Names {
                organizations,
                projects,
            } => {
                self.in_flight = self.in_flight.saturating_sub(1);
                self.name_context(organizations.unwrap_or_default(), projects.unwrap_or_default());
                Vec::new()
            }
        }
    }

    /// Asks for the names of the organization and project (a request in flight).
    fn load_names(&mut self) -> Effect {
        self.in_flight += 1;
        Effect::LoadNames
    }

    /// Finds the names of the organization and project the screen is about.
    fn name_context(&mut self, organizations: Vec<Organization>, projects: Vec<Project>) {
        let context = &mut self.context;
        let organization = organizations
            .iter()
            .find(|organization| organization.id == context.organization)
            .or_else(|| (organizations.len() == 1).then(|| &organizations[0]));
        context.organization_name = organization.map(|organization| organization.name.clone());
        let project = projects
            .iter()
            .find(|project| project.id.to_string() == context.project)
            .or_else(|| {
                let ours: Vec<&Project> = projects
                    .iter()
                    .filter(|project| {
                        organization.is_some_and(|o| project.organization.as_deref() == Some(o.id.as_str()))
                    })
                    .collect();
                (context.project == "@current" && ours.len() == 1).then(|| ours[0])
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
                self.mode = Mode::Normal;
                Vec::new()
            }
            Mode::Filter(_) => self.filter_key(key),
            Mode::Command(_) => self.command_key(key),
            Mode::Normal => match self.keymap.action(&key, self.tab == Tab::Subscriptions) {
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
                self.detail_json = !self.detail_json;
                Vec::new()
            }
            Action::CopyId => self.copy(false),
            Action::CopyJson => self.copy(true),
            Action::Help => {
                self.mode = Mode::Help;
                Vec::new()
            }
        }
    }

    /// Esc and q: dismiss a notice, close the JSON view, leave a role's
    /// members; `q` on the top level quits.
    fn back(&mut self, may_quit: bool) -> Vec<Effect> {
        if self.notice.take().is_some() {
            return Vec::new();
        }
        if self.detail_json {
            self.detail_json = false;
        } else if self.tab == Tab::Members && self.role.is_some() {
            self.role = None;
            self.filters[1].clear();
            return self.fetch_visible();
        } else if may_quit {
            self.quit = true;
        }
        Vec::new()
    }

    fn switch(&mut self, tab: Tab) -> Vec<Effect> {
        self.tab = tab;
        self.fetch_visible()
    }

    /// The slot of per-tab settings (filters, sorts) for what is shown:
    /// the Members tab without a role shows roles.
    fn tab_slot(&self) -> usize {
        match self.shown() {
            ListId::Roles => 0,
            ListId::Members => 1,
            ListId::Subscriptions => 2,
        }
    }

    /// The list the current screen shows.
    pub fn shown(&self) -> ListId {
        match (self.tab, &self.role) {
            (Tab::Roles, _) | (Tab::Members, None) => ListId::Roles,
            (Tab::Members, Some(_)) => ListId::Members,
            (Tab::Subscriptions, _) => ListId::Subscriptions,
        }
    }

    fn move_by(&mut self, delta: i64) -> Vec<Effect> {
        let cursor = self.with_rows(|rows, _| rows.cursor()) as i64;
        self.move_to(cursor.saturating_add(delta))
    }

    fn move_to(&mut self, position: i64) -> Vec<Effect> {
        let height = self.table_height();
        self.with_rows(|rows, _| rows.move_to(position, height));
        self.fetch_visible()
    }

    fn rescroll(&mut self) {
        let height = self.table_height();
        self.with_rows(|rows, _| rows.scroll(height));
    }

    /// Runs `f` on the rows shown, whatever their kind.
    fn with_rows<R>(&mut self, f: impl FnOnce(&mut dyn RowsAccess, ListId) -> R) -> R {
        match self.shown() {
            ListId::Roles => f(&mut self.roles, ListId::Roles),
            ListId::Members => f(&mut self.members, ListId::Members),
            ListId::Subscriptions => f(&mut self.subscriptions, ListId::Subscriptions),
        }
    }

    fn query(&self, list: ListId) -> Query {
        match list {
            ListId::Roles => Query::Roles {
                organization: self.context.organization.clone(),
            },
            ListId::Members => Query::Members {
                organization: self.context.organization.clone(),
                role: self.role.as_ref().map(|role| role.id.clone()).unwrap_or_default(),
            },
            ListId::Subscriptions => Query::Subscriptions {
                project: self.context.project.clone(),
                filter: self.subscription_filter.clone(),
            },
        }
    }

    /// Fetches the pages the shown table needs.
    fn fetch_visible(&mut self) -> Vec<Effect> {
        let height = self.table_height();
        let list = self.shown();
        let (generation, offsets) = self.with_rows(|rows, _| (rows.generation(), rows.wanted(height)));
        let query = self.query(list);
        self.in_flight += offsets.len();
        offsets
            .into_iter()
            .map(|offset| Effect::Fetch {
                list,
                generation,
                query: query.clone(),
                offset,
                limit: PAGE_SIZE,
            })
            .collect()
    }

    /// Starts a list over: a new generation, from the first page
    /// (`from_start`) or around the cursor (a refresh).
    fn reload(&mut self, list: ListId, from_start: bool) -> Vec<Effect> {
        match list {
            ListId::Roles => restart(&mut self.roles, from_start),
            ListId::Members => restart(&mut self.members, from_start),
            ListId::Subscriptions => restart(&mut self.subscriptions, from_start),
        }
        if self.shown() == list {
            self.fetch_visible()
        } else {
            Vec::new()
        }
    }

    fn refresh(&mut self) -> Vec<Effect> {
        let slot = self.tab_slot();
        let selected = self.with_rows(|rows, _| rows.selected_id());
        self.refocus[slot] = selected;
        let list = self.shown();
        self.reload(list, false)
    }

    fn open(&mut self) -> Vec<Effect> {
        if self.shown() != ListId::Roles {
            return Vec::new();
        }
        let Some(role) = self.roles.selected().cloned() else {
            return Vec::new();
        };
        let chosen = ChosenRole {
            id: role.id,
            name: role.name,
        };
        let same = self.role.as_ref() == Some(&chosen);
        self.role = Some(chosen);
        self.tab = Tab::Members;
        if same {
            return self.fetch_visible();
        }
        self.filters[1].clear();
        self.sorts[1] = 0;
        self.members.view = None;
        self.members.list.replace();
        self.members.cursor = 0;
        self.members.top = 0;
        self.fetch_visible()
    }

    fn cycle_sort(&mut self) -> Vec<Effect> {
        let slot = self.tab_slot();
        if slot == 2 {
            self.sorts[2] = (self.sorts[2] + 1) % SUBSCRIPTION_ORDERINGS.len();
            self.subscription_filter.ordering =
                (self.sorts[2] > 0).then(|| SUBSCRIPTION_ORDERINGS[self.sorts[2]].0.to_string());
            self.subscriptions.cursor = 0;
            self.subscriptions.top = 0;
            return self.reload(ListId::Subscriptions, true);
        }
        self.sorts[slot] = (self.sorts[slot] + 1) % (ROLE_SORTS.len() - 1);
        self.apply_view();
        self.fetch_visible()
    }

    /// Recomputes the local view of the shown list.
    fn apply_view(&mut self) {
        let slot = self.tab_slot();
        let filter = self.filters[slot].clone();
        let sort = (self.sorts[slot] > 0).then_some(self.sorts[slot]);
        let height = self.table_height();
        match slot {
            0 => self.roles.apply_view(&filter, sort),
            1 => self.members.apply_view(&filter, sort),
            _ => {
                // Once the server has searched for the text, its answer is the view.
                let searched = self.subscription_filter.search.as_deref().unwrap_or("") == filter.trim();
                self.subscriptions
                    .apply_view(if searched { "" } else { &filter }, None);
            }
        }
        self.with_rows(|rows, _| rows.scroll(height));
    }

    fn filter_key(&mut self, key: KeyEvent) -> Vec<Effect> {
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
            self.search_token += 1;
            effects.push(Effect::Debounce {
                token: self.search_token,
            });
        }
        effects
    }

    fn search_due(&mut self, token: u64) -> Vec<Effect> {
        if token != self.search_token {
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

    fn command_key(&mut self, key: KeyEvent) -> Vec<Effect> {
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

    fn run_command(&mut self, line: &str) -> Vec<Effect> {
        match command::parse(line) {
            Ok(command::Command::Tab(tab)) => self.switch(tab),
            Ok(command::Command::Quit) => {
                self.quit = true;
                Vec::new()
            }
            Ok(command::Command::Organization(id)) => {
                self.context.organization = id;
                self.context.organization_name = None;
                self.role = None;
                self.roles.view = None;
                self.members.view = None;
                restart(&mut self.roles, true);
                self.roles.list.replace();
                self.members.list.replace();
                let mut effects = vec![self.load_names()];
                effects.extend(self.fetch_visible());
                effects
            }
            Ok(command::Command::Project(id)) => {
                self.context.project = id;
                self.context.project_name = None;
                self.subscriptions.view = None;
                self.subscriptions.list.replace();
                restart(&mut self.subscriptions, true);
                let mut effects = vec![self.load_names()];
                effects.extend(self.fetch_visible());
                effects
            }
            Ok(command::Command::Nothing) => Vec::new(),
            Err(message) => {
                self.notice = Some(Notice {
                    text: message,
                    error: true,
                });
                Vec::new()
            }
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
                self.notice = Some(Notice {
                    text: format!("copied {what} to the clipboard"),
                    error: false,
                });
                vec![Effect::Copy(text)]
            }
            None => Vec::new(),
        }
    }

    fn page(
        &mut self,
        list: ListId,
        generation: u64,
        offset: u64,
        result: Result<PageData, api::Error>,
        log: RequestLog,
    ) -> Vec<Effect> {
        self.in_flight = self.in_flight.saturating_sub(1);
        self.last_request = Some(log);
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
                    self.notice = Some(Notice {
                        text: error.to_string(),
                        error: true,
                    });
                }
                return Vec::new();
            }
        };
        if !accepted {
            return Vec::new(); // an answer for a screen already left
        }
        let slot = match list {
            ListId::Roles => 0,
            ListId::Members => 1,
            ListId::Subscriptions => 2,
        };
        if let Some(id) = self.refocus[slot].clone() {
            let found = match list {
                ListId::Roles => self.roles.select_id(&id, height),
                ListId::Members => self.members.select_id(&id, height),
                ListId::Subscriptions => self.subscriptions.select_id(&id, height),
            };
            if found {
                self.refocus[slot] = None;
            }
        }
        if self.shown() != list {
            return Vec::new();
        }
        self.apply_view();
        self.fetch_visible()
    }
}

fn restart<T: Tabular>(rows: &mut Rows<T>, from_start: bool) {
    rows.list.restart();
    if from_start {
        rows.cursor = 0;
        rows.top = 0;
    }
}

fn receive<T: Tabular>(rows: &mut Rows<T>, generation: u64, offset: u64, page: Page<T>) -> bool {
    let accepted = rows.list.receive(generation, offset, page.count, page.results);
    if accepted && rows.view.is_none() && rows.cursor >= rows.len() {
        rows.cursor = rows.len().saturating_sub(1);
    }
    accepted
}

/// What the app does with rows of any kind.
trait RowsAccess {
    fn cursor(&self) -> u64;
    fn generation(&self) -> u64;
    fn wanted(&mut self, height: u64) -> Vec<u64>;
    fn move_to(&mut self, position: i64, height: u64);
    fn scroll(&mut self, height: u64);
    fn selected_id(&self) -> Option<String>;
    fn selected_json(&self) -> Option<String>;
    fn reset_cursor(&mut self);
}

impl<T: Tabular> RowsAccess for Rows<T> {
    fn cursor(&self) -> u64 {
        self.cursor
    }

    fn generation(&self) -> u64 {
        self.list.generation()
    }

    fn wanted(&mut self, height: u64) -> Vec<u64> {
        Rows::wanted(self, height)
    }

    fn move_to(&mut self, position: i64, height: u64) {
        Rows::move_to(self, position, height)
    }

    fn scroll(&mut self, height: u64) {
        Rows::scroll(self, height)
    }

    fn selected_id(&self) -> Option<String> {
        self.selected().map(Tabular::id)
    }

    fn selected_json(&self) -> Option<String> {
        self.selected().map(Tabular::json)
    }

    fn reset_cursor(&mut self) {
        self.cursor = 0;
        self.top = 0;
    }
}
