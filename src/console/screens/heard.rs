//! What a screen's handler asks of the shell once it returns ([`Heard`]):
//! its requests, news for every screen, and the moves that are the
//! shell's (showing a screen, fetching or reading again the rows shown,
//! asking a question, a chooser, a timer), in the order the handler made
//! them. One type for every screen that hands something back (People, a
//! person's page, an offboarding, Subscriptions, Members): the shell
//! follows them one by one (`App::follow`), so that a notice said after a
//! move (which clears a notice that is not an error) is said after it, as
//! [`Step::Say`].
//!
//! People, a person's page and an offboarding share their state (the role
//! index, read by People, gathers a person's page, and the page is what an
//! offboarding plans from), so their handlers are methods of [`Screens`],
//! each in its screen's folder, lent a `Ctx` like every screen's handler.
//! Each reaches the others only through what they offer by name, never
//! their fields: People's role index (`people/shared.rs`); the page's
//! waits and what it gathered (`Person::index_arrived`, `index_failed`,
//! `offboard_once_gathered`, `gathered`, `change_profile`), its own state
//! kept in its folder (`person/asked.rs`).
//!
//! [`Screens`]: crate::console::screens::Screens

use crate::api::Subscription;
use crate::console::kit::latest::Ticket;
use crate::console::kit::notice::Notice;
use crate::console::screens::bulk::Bulk;
use crate::console::screens::people::choose::Choosing;
use crate::console::screens::subscriptions::read::Then as ReadThen;
use crate::console::screens::write::Confirm;
use crate::console::screens::{Change, ScreenAsk, ScreenId};
use crate::console::widgets::chooser::Chooser;

/// One thing the shell does for a screen's handler.
#[derive(Debug)]
pub enum Step {
    /// A request of the screen's own.
    Ask(ScreenAsk),
    /// The notice, said after the moves before it.
    Say(Notice),
    /// A tab shown (its screen told it is shown, its rows fetched).
    Switch(ScreenId),
    /// A screen opened from the one shown; back returns to it.
    Open(ScreenId),
    /// The pages the screen shown needs.
    FetchVisible,
    /// The detail of the row under the cursor, opened over the table or
    /// closed (Enter on a member, a delivery).
    ToggleDetail,
    /// A list started over around its cursor (a refresh).
    Reload(ScreenId),
    /// A list read again, the cursor kept on its row (the deliveries on
    /// screen, which hold a delivery that landed).
    Reread(ScreenId),
    /// A question before a write (only `y` says yes).
    Confirm(Confirm),
    /// A chooser over the screen (`a`'s roles, `L`'s level).
    Chooser(Box<Chooser>, Choosing),
    /// A bulk action, asked first (unless one is still on its way).
    Bulk(Bulk),
    /// News for every screen; the list shown is viewed again after.
    Changed(Change),
    /// Look again for the delivery waited for: the `look`th look's wait,
    /// by this ticket (Subscriptions' watch).
    PollAfter { look: u8, ticket: Ticket },
    /// A key (or `:sub`) waited for this subscription to be read: it acts.
    Resume(ReadThen, Box<Subscription>),
    /// Show this role's members (by id, and its name), from Roles (a role
    /// `:role NAME` found).
    OpenRole { id: String, name: String },
}

/// What the shell does, in order, once a handler returns.
#[derive(Debug, Default)]
#[must_use]
pub struct Heard(pub Vec<Step>);

impl Heard {
    pub fn step(step: Step) -> Heard {
        Heard(vec![step])
    }

    pub fn ask(ask: impl Into<ScreenAsk>) -> Heard {
        Heard::step(Step::Ask(ask.into()))
    }

    pub fn push(&mut self, step: Step) {
        self.0.push(step);
    }

    pub fn then(&mut self, more: Heard) {
        self.0.extend(more.0);
    }
}

impl<A: Into<ScreenAsk>> From<Option<A>> for Heard {
    fn from(ask: Option<A>) -> Heard {
        Heard(ask.map(|ask| Step::Ask(ask.into())).into_iter().collect())
    }
}
