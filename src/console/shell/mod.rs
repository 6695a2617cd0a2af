//! The console's state and `update(msg) -> effects`: no I/O, no terminal.
//! Keys and API answers come in as messages; what must happen outside (a
//! page to fetch, text to copy, a search to run later) goes out as effects.
//! The app keeps what cuts across the lists, in 15 fields, each a group
//! with its own type: the context, keymap, navigation and mode; the window
//! drawn into, the requests on their way, the overlays, the notice line
//! and the bulk action (`parts.rs`); the connection (offline included),
//! the writes, the prompt, the permissions and `--refresh`. Each list
//! keeps its own state in `Screens` (`screens/holder.rs`), one field a
//! screen. The shell draws its frame too (`draw/`), lending the list
//! shown to the table's drawing.

mod actions;
mod assign;
mod bulk;
mod choose;
pub mod command;
mod connection;
pub mod draw;
mod edit;
mod find;
mod follow;
mod forms;
mod health;
mod heard;
pub mod keymap;
mod keys;
mod mouse;
mod navigate;
mod news;
mod parts;
mod permissions;
mod preview;
mod switch;
mod types;

pub use actions::Refresh;
pub use connection::{HELD_KEYS, MAX_BACKOFF, Offline, backoff};
pub use navigate::Navigation;
pub use parts::{BulkRuns, NoticeLine, Overlays, Requests, Window};
pub use permissions::Permissions;
pub use types::*;

use super::screens::Screens;
use crate::api;
use draw::layout;
use keymap::Keymap;

pub struct App {
    pub context: Context,
    pub keymap: Keymap,
    /// Every list, each with its rows, filter, sort and cursor.
    pub screens: Screens,
    /// Where the console is: the tab chosen, the list on screen, and where
    /// back goes.
    pub navigation: Navigation,
    pub mode: Mode,
    /// The window drawn into: its size, the frame's time, whether to
    /// draw again, whether to quit.
    pub window: Window,
    /// Requests on their way: how many, the spinner, the last try.
    pub requests: Requests,
    /// The detail (open, as JSON), the scroll of the detail and the help,
    /// and the log path the help names.
    pub overlays: Overlays,
    /// The notice line and the timer of a notice set to fade.
    pub notice: NoticeLine,
    /// What is typed at the bottom line: the `:` command line's history
    /// and the pause a search waits for.
    prompt: find::Prompt,
    /// The connection: which server answers belong to, a `:ctx` on its
    /// way, whether the server is out of reach and when it is tried again,
    /// and keys held.
    pub connection: connection::Connection,
    /// The writes sent and on their way, and what a failed one goes back to.
    writes: edit::Writes,
    pub permissions: Permissions,
    /// `--refresh SECONDS`: how often the list on screen is fetched again,
    /// its timer, and when it last was.
    pub refresh: Refresh,
    /// The bulk action under way and the results of the last.
    pub bulk: BulkRuns,
}

impl App {
    pub fn new(context: Context, keymap: Keymap, size: (u16, u16)) -> Self {
        let read_only = context.read_only;
        App {
            refresh: Refresh {
                every: context.refresh,
                timers: Latest::default(),
                last: None,
            },
            bulk: BulkRuns::default(),
            connection: connection::Connection::new(context.clone()),
            context,
            keymap,
            screens: Screens::default(),
            navigation: Navigation::default(),
            prompt: find::Prompt::default(),
            mode: Mode::Normal,
            window: Window::new(size),
            requests: Requests::default(),
            overlays: Overlays::default(),
            notice: NoticeLine::default(),
            writes: edit::Writes::default(),
            permissions: Permissions {
                read_only,
                ..Permissions::default()
            },
        }
    }

    /// What the console does first: the names for the header and the
    /// first page of the first tab.
    pub fn start(&mut self) -> Vec<Effect> {
        self.update(Msg::Start)
    }

    /// Whether the screen is large enough for the detail pane.
    pub fn has_detail_pane(&self) -> bool {
        layout::areas(ratatui::layout::Rect::new(
            0,
            0,
            self.window.size.0,
            self.window.size.1,
        ))
        .detail
        .is_some()
    }

    /// Whether the screen shows times relative to now ("in 3h", overdue,
    /// a form's preview of deliveries), which go stale as minutes pass:
    /// only then does the loop wake each minute to redraw them.
    pub fn shows_relative_times(&self) -> bool {
        match &self.mode {
            Mode::Form(_, purpose) if purpose.is_subscription() => true,
            Mode::Help | Mode::Switcher(_) => false,
            _ => {
                let table = self.screens.shown(self.shown());
                table.shows_relative_times() && !table.is_empty()
            }
        }
    }

    /// Rows the table shows at the current size.
    pub fn table_height(&self) -> u64 {
        u64::from(layout::table_rows(self.window.size.0, self.window.size.1))
    }

    /// Takes one message; returns what must happen outside. Requests in
    /// flight are counted here, and only here: one less for each answer,
    /// one more for each request among the effects. A success notice put
    /// up on the way is set to fade.
    pub fn update(&mut self, msg: Msg) -> Vec<Effect> {
        if msg.is_answer() {
            self.requests.in_flight = self.requests.in_flight.saturating_sub(1);
        }
        let before = self.notice.shown.clone();
        let mut effects = self.handle(msg);
        // A `*` that waited for pages says when it is done.
        for table in self.screens.all_mut() {
            match table.mark_news() {
                Some(Ok(text)) => self.notice.shown = Some(Notice::done(text)),
                Some(Err(text)) => self.notice.shown = Some(Notice::error(text)),
                None => {}
            }
        }
        if self.notice.shown != before && self.notice.shown.as_ref().is_some_and(|notice| notice.fades) {
            effects.push(Effect::Timer {
                timer: Timer::Notice,
                ticket: self.notice.fades.issue(),
            });
        }
        self.requests.in_flight += effects.iter().filter(|effect| effect.is_request()).count();
        effects
    }

    /// The shell's message match: each arm hands its message to the method
    /// that handles it.
    fn handle(&mut self, msg: Msg) -> Vec<Effect> {
        match msg {
            Msg::Start => self.started(),
            Msg::Key(key) => {
                self.window.dirty = true;
                self.take_key(key)
            }
            Msg::Mouse(event) => self.mouse(event),
            Msg::Resize { width, height } => self.resized(width, height),
            Msg::Minute => self.minute_passed(),
            Msg::Tick => self.ticked(),
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
            Msg::Written(answer) => self.write_heard(*answer),
            Msg::Screen(msg) => self.screen_msg(msg),
            Msg::Scopes { connection, scopes } => self.scopes_heard(connection, scopes),
            Msg::Profiles(profiles) => {
                self.fill_profiles(profiles);
                Vec::new()
            }
            Msg::Connected { ticket, result } => self.connected(ticket, result),
            Msg::Timer { timer, ticket } => self.timer_due(timer, ticket),
            Msg::Names {
                connection,
                current_organization,
                current_project,
                organizations,
                projects,
                cut,
            } if self.connection.answers.is_current(connection) => self.names_heard(
                current_organization,
                current_project,
                organizations,
                projects,
                cut,
            ),
            Msg::Names { .. } => Vec::new(),
            Msg::Integrations { connection, slack } => self.integrations_heard(connection, slack),
        }
    }

    /// The console has started: names, scopes, the first rows and the
    /// first refresh are asked for.
    fn started(&mut self) -> Vec<Effect> {
        let mut effects = vec![self.load_names(), self.load_scopes()];
        effects.extend(self.fetch_visible());
        effects.extend(self.next_refresh());
        effects
    }

    /// The terminal has a new size: the list scrolls to keep its cursor and
    /// fetches what now shows.
    fn resized(&mut self, width: u16, height: u16) -> Vec<Effect> {
        self.window.size = (width, height);
        self.window.dirty = true;
        self.rescroll();
        self.fetch_visible()
    }

    /// A minute has passed: relative times are drawn again.
    fn minute_passed(&mut self) -> Vec<Effect> {
        // The loop sets `now` before drawing: drawing is the tick.
        self.window.dirty = self.shows_relative_times();
        // A row narrowed to "overdue" may have become one since.
        if self.navigation.shown == ScreenId::Subscriptions && self.screens.subscriptions.is_narrowed() {
            self.apply_view();
            return self.fetch_visible();
        }
        Vec::new()
    }

    /// The spinner's tick: it turns while requests are in flight, and the
    /// wait before the next try of the server counts down.
    fn ticked(&mut self) -> Vec<Effect> {
        if self.requests.in_flight > 0 {
            self.requests.spinner = self.requests.spinner.wrapping_add(1);
            self.window.dirty = true;
        }
        // The wait before the next try of the server counts down.
        if self
            .connection
            .offline
            .as_ref()
            .is_some_and(|offline| offline.retry_at.is_some())
        {
            self.window.dirty = true;
        }
        Vec::new()
    }

    /// A write has been answered: a bulk action's step goes to the bulk
    /// action, any other to the screen that wrote.
    fn write_heard(&mut self, answer: WriteAnswer) -> Vec<Effect> {
        let WriteAnswer {
            ticket,
            write,
            result,
        } = answer;
        let mut effects = self.write_answered(result.as_ref().err());
        if self.owns_bulk(ticket) {
            effects.extend(self.bulk_written(ticket, result));
            return effects;
        }
        effects.extend(self.written(ticket, write, result));
        effects
    }

    /// A timer has run out: each kind to its own handling.
    fn timer_due(&mut self, timer: Timer, ticket: Ticket) -> Vec<Effect> {
        match timer {
            Timer::Search => self.search_due(ticket),
            Timer::Undo => {
                self.undo_expired(ticket);
                Vec::new()
            }
            Timer::Poll(_) => self.look_again(ticket),
            Timer::Refresh(_) => self.refresh_due(ticket),
            Timer::Reconnect(_) => self.reconnect_due(ticket),
            Timer::Notice => {
                self.notice_faded(ticket);
                Vec::new()
            }
        }
    }

    /// A notice of success has been read: it goes, unless a newer notice
    /// (or one that stays) has taken its place.
    fn notice_faded(&mut self, ticket: Ticket) {
        if self.notice.fades.is_current(ticket)
            && self.notice.shown.as_ref().is_some_and(|notice| notice.fades)
        {
            self.notice.shown = None;
            self.window.dirty = true;
        }
    }

    /// The key's scopes, when they answer the connection of now.
    fn scopes_heard(&mut self, connection: Ticket, scopes: Option<Vec<String>>) -> Vec<Effect> {
        if self.connection.answers.is_current(connection) {
            self.scopes_known(scopes);
        }
        Vec::new()
    }

    /// The organization's and project's names (of the connection of now):
    /// the switcher and the header take them, a project that follows its
    /// organization is followed, and the project's integrations are asked.
    fn names_heard(
        &mut self,
        current_organization: Option<api::Organization>,
        current_project: Option<api::Project>,
        organizations: Option<Vec<api::Organization>>,
        projects: Option<Vec<api::Project>>,
        cut: bool,
    ) -> Vec<Effect> {
        self.fill_switcher(organizations.as_deref(), projects.as_deref(), cut);
        let projects = projects.unwrap_or_default();
        let mut effects =
            self.follow_organization(&projects, current_organization.as_ref(), current_project.as_ref());
        self.name_context(
            organizations.unwrap_or_default(),
            projects,
            current_organization,
            current_project,
        );
        // The project's integrations are named as its lists show them.
        effects.push(self.load_integrations());
        effects
    }

    /// The project's Slack integrations, when they answer the connection
    /// of now.
    fn integrations_heard(
        &mut self,
        connection: Ticket,
        slack: Option<Vec<api::Integration>>,
    ) -> Vec<Effect> {
        if self.connection.answers.is_current(connection) {
            self.screens.subscriptions.integrations_known(slack);
            self.window.dirty = true;
        }
        Vec::new()
    }

    /// Asks for the names of the organization and project (a request in flight).
    fn load_names(&mut self) -> Effect {
        Effect::LoadNames {
            connection: self.connection.answers.current(),
            organization: self.context.organization.clone(),
            project: self.context.project.clone(),
        }
    }

    /// Asks for the project's Slack integrations (a request in flight).
    fn load_integrations(&self) -> Effect {
        Effect::LoadIntegrations {
            connection: self.connection.answers.current(),
            project: self.context.project.clone(),
        }
    }

    /// Asks for the key's scopes (a request in flight).
    fn load_scopes(&mut self) -> Effect {
        Effect::LoadScopes {
            connection: self.connection.answers.current(),
        }
    }

    /// Whether `ticket` is the `:ctx` the app waits for; the driver swaps
    /// its client only for that one.
    pub fn awaits_connection(&self, ticket: Ticket) -> bool {
        self.connection.connects.is_current(ticket)
    }

    /// The client tells of a try: the footer shows it when it is about the
    /// list shown now (never one left, or a connection left) or a write.
    fn exchanged(&mut self, about: About, exchange: api::Exchange) {
        let current = match about {
            About::Page { list, generation } => {
                self.shown() == list && self.screens.generation(list) == generation
            }
            About::Write => true,
            About::Look(ticket) => {
                self.shown() == ScreenId::Health && self.screens.health.is_current_look(ticket)
            }
        };
        if current {
            self.requests.last = Some(exchange);
            self.window.dirty = true;
        }
    }
}
