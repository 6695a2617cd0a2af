//! The console's vocabulary: the messages `update` takes,
//! the effects it returns, and the writes it makes.

use std::time::Duration;

use ratatui::crossterm::event::KeyEvent;
use tui_input::Input;

use crate::api::{self, Organization, Project};
pub use crate::console::kit::stop::Stop;
pub use crate::console::screens::ScreenId;
use crate::console::screens::members::picker::Picker;
pub use crate::console::screens::write::{Confirm, Confirmed, FormPurpose, Write};
pub use crate::console::screens::{ScreenPage, ScreenRequest};
use crate::console::widgets::form::Form;

pub use crate::config::Origin;
pub use crate::console::kit::latest::{Latest, Ticket};
pub use crate::console::kit::notice::{NOTICE_FOR, Notice};
pub use crate::console::screens::health::msg::{LookFailure, LookNews};
pub use crate::console::screens::people::choose::Choosing;
pub use crate::console::screens::people::{Narrow, msg::PeopleNews, msg::SharedIndex};
pub use crate::console::screens::write::Written;
pub use crate::console::screens::{ScreenAsk, ScreenMsg};

/// How long typing pauses before a search goes to the server: short
/// enough that the first results come under 300 ms after the last key
/// (issue 22), long enough that a word typed at speed is one request.
pub const SEARCH_DEBOUNCE: Duration = Duration::from_millis(150);

/// What the header says the screen is about.
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// The config file's profile the settings came from, if any.
    pub profile: Option<String>,
    /// How the settings were arrived at, beyond the profile.
    pub origin: Origin,
    /// The host, as the client reaches it.
    pub host: String,
    /// Set when `orgdeck demo` runs its own server.
    pub demo: bool,
    pub organization: String,
    pub project: String,
    pub organization_name: Option<String>,
    pub project_name: Option<String>,
    /// `--read-only`: every write is disabled.
    pub read_only: bool,
    /// `--refresh SECONDS` (or the profile's `refresh`).
    pub refresh: Option<u32>,
    /// Clicks and the wheel (off with `--no-mouse` or `mouse = false`).
    pub mouse: bool,
    /// The profile's colour, for the header bar.
    pub color: Option<ratatui::style::Color>,
    /// The profile says production: every write is asked about once more.
    pub production: bool,
    /// `--tz` was given: a profile switched to keeps its zone to itself.
    pub zone_given: bool,
    /// The profile's `tz`, when it names one.
    pub tz: Option<String>,
    /// Where times are shown: `--tz`, else the profile's `tz`, else the
    /// machine's own (UTC where the console is driven without a terminal,
    /// as in tests). Drawing reads it through the frame's
    /// [`ViewCx`](crate::console::kit::view::ViewCx).
    pub zone: crate::display::Zone,
}

impl Context {
    /// Where the settings came from, in words: for the header and for
    /// `:ctx`'s "as started".
    pub fn source(&self) -> String {
        match (&self.profile, self.origin) {
            _ if self.demo => "the demo".into(),
            (Some(name), Origin::Adjusted) => format!("profile {name} with flags and environment"),
            (Some(name), _) => format!("profile {name}"),
            (None, Origin::PosthogCli) => "PostHog CLI credentials".into(),
            (None, _) => "flags and environment".into(),
        }
    }
}

/// What an [`Exchange`](crate::api::Exchange) the client reports is
/// about: the footer shows those of the lists shown and of writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum About {
    Page {
        list: ScreenId,
        generation: Ticket,
    },
    Write,
    /// A health look's requests: shown while Health is.
    Look(Ticket),
}

/// Something to do once a while has passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timer {
    /// Typing paused: search the server for what the filter says.
    Search,
    /// The offer to undo a soft delete runs out.
    Undo,
    /// A notice of success has been read.
    Notice,
    /// Look again for the delivery a test or a resume started (the nth look).
    Poll(u8),
    /// `--refresh SECONDS`: the list on screen is due to be fetched again.
    Refresh(u32),
    /// The server could not be reached: try it again after this many
    /// seconds (the backoff of [`crate::console::shell::Offline`]).
    Reconnect(u32),
}

impl Timer {
    pub fn after(self) -> Duration {
        match self {
            Timer::Search => SEARCH_DEBOUNCE,
            Timer::Undo => crate::console::screens::subscriptions::undo::UNDO_FOR,
            Timer::Notice => NOTICE_FOR,
            // 1, 2, 3, 4, then 5 s apart: about half a minute in all.
            Timer::Poll(look) => Duration::from_secs(u64::from(look.clamp(1, 5))),
            Timer::Refresh(seconds) | Timer::Reconnect(seconds) => Duration::from_secs(u64::from(seconds)),
        }
    }

    /// Whether the timer runs on the console's clock (a test's manual one
    /// moves it) rather than the runtime's: the timers of the connection
    /// and of `--refresh`, which tests drive without waiting.
    pub fn on_clock(self) -> bool {
        matches!(self, Timer::Refresh(_) | Timer::Reconnect(_))
    }
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
    /// `:org` or `:project` without an argument.
    Switcher(Box<crate::console::widgets::switcher::Switcher>),
    /// The results of a bulk action ([`BulkRuns::report`](super::BulkRuns::report)),
    /// row by row, as they come.
    Results,
    /// A short list to choose from (roles to add a person to, a level).
    Chooser(Box<crate::console::widgets::chooser::Chooser>, Choosing),
}

/// A write and how it went.
#[derive(Debug)]
pub struct WriteAnswer {
    /// Which write this answers: only the form that sent it may act on it.
    pub ticket: Ticket,
    pub write: Write,
    pub result: Result<Written, api::Error>,
}

#[derive(Debug)]
pub enum Msg {
    /// The console opens: the first requests go out.
    Start,
    Key(KeyEvent),
    /// A left click or a turn of the wheel.
    Mouse(ratatui::crossterm::event::MouseEvent),
    /// The answer to a write.
    Written(Box<WriteAnswer>),
    /// The key's scopes, when the server told them, over `connection`.
    Scopes {
        connection: Ticket,
        scopes: Option<Vec<String>>,
    },
    /// The config file's profiles for the `:ctx` picker (name, where it
    /// points), or why they cannot be read.
    Profiles(Result<Vec<(String, String)>, String>),
    /// `:ctx` reached its target, or says why not.
    Connected {
        ticket: Ticket,
        result: Result<Box<Connected>, String>,
    },
    /// A timer an effect set has run out.
    Timer {
        timer: Timer,
        ticket: Ticket,
    },
    /// The client tells of a try of a request (for the footer), before
    /// the answer comes.
    Exchange {
        about: About,
        exchange: api::Exchange,
    },
    Resize {
        width: u16,
        height: u16,
    },
    /// The spinner's beat, only while requests are in flight.
    Tick,
    /// A minute passed while relative times ("in 3h", overdue) are on
    /// screen; the loop sends it only then.
    Minute,
    Page {
        list: ScreenId,
        generation: Ticket,
        offset: u64,
        result: Result<ScreenPage, api::Error>,
    },
    /// The project's Slack integrations, to name targets and the
    /// integrations they post through; `None` where the server lists none
    /// (an older server, a key without `integration:read`).
    Integrations {
        connection: Ticket,
        slack: Option<Vec<api::Integration>>,
    },
    /// The organizations and projects the key reaches, for the header's
    /// names, over `connection`.
    Names {
        connection: Ticket,
        /// What `@current` means, when the context says `@current`.
        current_organization: Option<Organization>,
        current_project: Option<Project>,
        organizations: Option<Vec<Organization>>,
        projects: Option<Vec<Project>>,
        /// The key reaches more than the lists hold (they stop at
        /// [`crate::api::PICKER_ROWS`]).
        cut: bool,
    },
    /// An answer or news for one screen: its own message type.
    Screen(ScreenMsg),
}

/// Where `:ctx` goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// The connection the console started with (flags, environment, demo).
    Start,
    /// A profile of the config file, by name.
    Profile(String),
}

/// A connection made ready by `:ctx`: what the header will say, and the
/// client the effects will use from then on.
#[derive(Debug, Clone)]
pub struct Connected {
    pub context: Context,
    pub client: crate::api::Client,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Fetch a page; the answer comes back as `Msg::Page` with this list
    /// and generation, so that a late answer for a screen left is dropped.
    Fetch {
        list: ScreenId,
        generation: Ticket,
        /// The list's own request (its folder's `request.rs`), whose
        /// answer holds its rows.
        request: ScreenRequest,
        offset: u64,
        limit: u64,
    },
    /// Send `Msg::Timer` with this ticket once the timer's while has passed.
    Timer { timer: Timer, ticket: Ticket },
    /// Put text on the clipboard (OSC 52).
    Copy(String),
    /// Look up the organization's and project's names (`Msg::Names`),
    /// asking the server which ones `@current` means.
    LoadNames {
        connection: Ticket,
        organization: String,
        project: String,
    },
    /// List the project's Slack integrations (`Msg::Integrations`).
    LoadIntegrations { connection: Ticket, project: String },
    /// Read the key's scopes; the answer comes back as `Msg::Scopes`.
    LoadScopes { connection: Ticket },
    /// Read the config file's profiles (`Msg::Profiles`).
    LoadProfiles,
    /// Open a profile, or go back to the connection the console started
    /// with; the answer is `Msg::Connected` with this ticket.
    Connect { ticket: Ticket, target: Target },
    /// What a screen asks besides a page of its rows (its folder's
    /// `Ask`); the answer comes back as that screen's own message.
    Ask(ScreenAsk),
    /// Send a change; the answer comes back as `Msg::Written` with the ticket.
    Write { ticket: Ticket, write: Write },
}

impl Effect {
    /// Whether the effect sends a request, whose answer comes back as a
    /// message: what the spinner counts.
    pub fn is_request(&self) -> bool {
        match self {
            Effect::Fetch { .. }
            | Effect::LoadNames { .. }
            | Effect::LoadIntegrations { .. }
            | Effect::LoadScopes { .. }
            | Effect::LoadProfiles
            | Effect::Connect { .. }
            | Effect::Ask(_)
            | Effect::Write { .. } => true,
            Effect::Timer { .. } | Effect::Copy(_) => false,
        }
    }
}

impl Msg {
    /// Whether the message answers a request an effect sent.
    pub fn is_answer(&self) -> bool {
        match self {
            Msg::Screen(msg) => msg.is_answer(),
            Msg::Page { .. }
            | Msg::Written(_)
            | Msg::Scopes { .. }
            | Msg::Profiles(_)
            | Msg::Connected { .. }
            | Msg::Integrations { .. }
            | Msg::Names { .. } => true,
            Msg::Start
            | Msg::Key(_)
            | Msg::Mouse(_)
            | Msg::Timer { .. }
            | Msg::Exchange { .. }
            | Msg::Resize { .. }
            | Msg::Tick
            | Msg::Minute => false,
        }
    }
}

impl From<ScreenMsg> for Msg {
    fn from(msg: ScreenMsg) -> Msg {
        Msg::Screen(msg)
    }
}

/// A screen's own message is the console's through its `ScreenMsg` arm.
macro_rules! screen_msg_into_msg {
    ($($screen:ident),* $(,)?) => {
        $(impl From<crate::console::screens::$screen::Msg> for Msg {
            fn from(msg: crate::console::screens::$screen::Msg) -> Msg {
                Msg::Screen(msg.into())
            }
        })*
    };
}

screen_msg_into_msg!(
    members,
    subscriptions,
    people,
    person,
    offboard,
    health,
    who,
    access,
    preview,
    switch
);

// A role's page is in Roles' folder.
impl From<crate::console::screens::roles::grants::Msg> for Msg {
    fn from(msg: crate::console::screens::roles::grants::Msg) -> Msg {
        Msg::Screen(msg.into())
    }
}

impl From<ScreenAsk> for Effect {
    fn from(ask: ScreenAsk) -> Effect {
        Effect::Ask(ask)
    }
}

/// A screen's own ask is an effect through its `ScreenAsk` arm.
macro_rules! screen_ask_into_effect {
    ($($screen:ident),* $(,)?) => {
        $(impl From<crate::console::screens::$screen::Ask> for Effect {
            fn from(ask: crate::console::screens::$screen::Ask) -> Effect {
                Effect::Ask(ask.into())
            }
        })*
    };
}

screen_ask_into_effect!(
    members,
    subscriptions,
    people,
    person,
    health,
    who,
    access,
    preview
);

impl From<crate::console::screens::roles::grants::Ask> for Effect {
    fn from(ask: crate::console::screens::roles::grants::Ask) -> Effect {
        Effect::Ask(ask.into())
    }
}

/// How far the overlays that scroll are scrolled, in lines from their top.
#[derive(Debug, Clone, Copy, Default)]
pub struct Scroll {
    /// The detail, in the pane or drawn over the table.
    pub detail: u16,
    /// The help.
    pub help: u16,
}
