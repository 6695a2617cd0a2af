//! The console's state and `update(msg) -> effects`: no I/O, no terminal.
//! Keys and API answers come in as messages; what must happen outside (a
//! page to fetch, text to copy, a search to run later) goes out as effects.

use std::time::Duration;

use chrono::{DateTime, Utc};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tui_input::Input;

mod edit;
mod find;
mod navigate;
mod permissions;

pub use permissions::Permissions;

use super::form::Form;
use super::keymap::{Action, Keymap, Screen};
use super::layout;
use super::picker::{Person, Picker};
use super::rows::Rows;
use crate::api::{
    self, NamedItem, Organization, OrganizationMember, Page, Project, Role, RoleInput, RoleMembership,
    Subscription, SubscriptionFilter,
};
use navigate::receive;

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
    /// `--read-only`: every write is disabled.
    pub read_only: bool,
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
    Form(Box<Form>, FormPurpose),
    Confirm(Confirm),
    Picker(Box<Picker>),
}

/// What a form is for.
#[derive(Debug, Clone, PartialEq)]
pub enum FormPurpose {
    NewRole,
    EditRole { id: String },
    NewSubscription,
    EditSubscription { id: i64 },
}

/// A question before a destructive write.
#[derive(Debug, Clone)]
pub struct Confirm {
    pub question: String,
    pub write: Write,
    /// The form the question came from: back to it on "no" or a failure.
    pub form: Option<Box<(Form, FormPurpose)>>,
}

/// The last soft delete, which `u` undoes for a few seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Undo {
    pub id: i64,
    pub token: u64,
}

/// A change to send to the server.
#[derive(Debug, Clone, PartialEq)]
pub enum Write {
    CreateRole {
        organization: String,
        input: RoleInput,
    },
    UpdateRole {
        organization: String,
        id: String,
        input: RoleInput,
    },
    DeleteRole {
        organization: String,
        id: String,
    },
    RemoveMember {
        organization: String,
        role: String,
        id: String,
    },
    /// A new subscription from a form's body.
    CreateSubscription {
        project: String,
        body: serde_json::Map<String, serde_json::Value>,
    },
    /// The changed fields of a subscription.
    UpdateSubscription {
        project: String,
        id: i64,
        body: serde_json::Map<String, serde_json::Value>,
    },
    /// One request per person, each with its own result.
    AssignMembers {
        organization: String,
        role: String,
        people: Vec<Person>,
    },
    /// `PATCH {"deleted": true}`: subscriptions are never hard-deleted.
    SoftDelete {
        project: String,
        id: i64,
    },
    Restore {
        project: String,
        id: i64,
    },
}

/// A write and how it went.
#[derive(Debug)]
pub struct WriteAnswer {
    pub write: Write,
    pub result: Result<Written, api::Error>,
    pub log: RequestLog,
}

/// What a write answered.
#[derive(Debug)]
pub enum Written {
    Role(Role),
    /// Per person: the new membership, or why not.
    Assigned(Vec<(String, Result<RoleMembership, String>)>),
    Subscription(Subscription),
    Deleted,
}

/// How long the footer offers to undo a soft delete.
pub const UNDO_FOR: Duration = Duration::from_secs(8);

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
    /// The answer to a write.
    Written(Box<WriteAnswer>),
    /// The key's scopes, when the server told them.
    Scopes(Option<Vec<String>>),
    /// The project's dashboards and insights, for the subscription form.
    Catalog(Result<(Vec<NamedItem>, Vec<NamedItem>), api::Error>),
    /// The organization's members, for the picker.
    People(Result<Vec<OrganizationMember>, api::Error>),
    /// The offer to undo a soft delete has run out.
    UndoExpired {
        token: u64,
    },
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
    /// Read the key's scopes; the answer comes back as `Msg::Scopes`.
    LoadScopes,
    /// List the project's dashboards and insights (`Msg::Catalog`).
    LoadCatalog { project: String },
    /// List the organization's members for the picker (`Msg::People`).
    LoadPeople { organization: String },
    /// Send a change; the answer comes back as `Msg::Written`.
    Write(Write),
    /// Send `Msg::UndoExpired { token }` once the undo offer runs out.
    ExpireUndo { token: u64 },
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
    /// The soft delete `u` can undo now.
    pub undo: Option<Undo>,
    /// The form a confirmed write came from, to reopen if the write fails.
    resume: Option<Box<(Form, FormPurpose)>>,
    pub permissions: Permissions,
    undo_token: u64,
}

impl App {
    pub fn new(context: Context, keymap: Keymap, size: (u16, u16)) -> Self {
        let read_only = context.read_only;
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
            undo: None,
            resume: None,
            permissions: Permissions {
                read_only,
                ..Permissions::default()
            },
            undo_token: 0,
        }
    }

    /// What the console does first: the names for the header and the
    /// first page of the first tab.
    pub fn start(&mut self) -> Vec<Effect> {
        self.in_flight += 1;
        let mut effects = vec![self.load_names(), Effect::LoadScopes];
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
            Msg::Written(answer) => {
                let WriteAnswer { write, result, log } = *answer;
                self.written(write, result, log)
            }
            Msg::People(result) => self.people(result),
            Msg::Catalog(result) => self.catalog(result),
            Msg::Scopes(scopes) => {
                self.scopes_known(scopes);
                Vec::new()
            }
            Msg::UndoExpired { token } => {
                self.undo_expired(token);
                Vec::new()
            }
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
            Mode::Form(..) => self.form_key(key),
            Mode::Confirm(_) => self.confirm_key(key),
            Mode::Picker(_) => self.picker_key(key),
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
                self.detail_json = !self.detail_json;
                Vec::new()
            }
            Action::CopyId => self.copy(false),
            Action::CopyJson => self.copy(true),
            Action::Help => {
                self.mode = Mode::Help;
                Vec::new()
            }
            Action::New | Action::Edit | Action::Delete | Action::Restore | Action::Assign
                if let Some(reason) = self.unavailable(action) =>
            {
                self.notice = Some(Notice {
                    text: format!("not available: {reason}"),
                    error: true,
                });
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
                self.learn_from(&error);
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
