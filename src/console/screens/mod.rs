//! The console's screens (floor 3, above `kit`, `widgets` and `table`,
//! below the shell). Each screen is a folder here; beside them is what
//! the screens share ([`Screen`], [`ScreenId`], the
//! holder of them all ([`Screens`], `holder.rs`), what the shell lends a
//! screen's handler ([`Ctx`], `ctx.rs`), [`Change`], what each
//! screen hears ([`ScreenMsg`]) and asks ([`ScreenAsk`]), what a
//! screen's handler hands back for the shell to do ([`heard::Heard`],
//! one type for every screen), the typed
//! requests of [`request`], the writes of [`write`], the bulk runs of
//! [`bulk`] and the words of a key binding in [`keys`]) and, in each
//! screen's folder, its list or page, its own request type, what else it
//! asks (`ask.rs`), its own messages (`msg.rs`), its own writes
//! (`writes.rs`), its own keys (`keys.rs`, every screen) and how its
//! answers and keys land, lent a [`Ctx`] (`handle.rs` for Health, People,
//! a person's page and an offboarding; `heard.rs` for Subscriptions and
//! Members). A page that is not a table (a person's, an offboarding, a
//! role's, which lives in Roles' folder: `roles/grants/`) holds its own
//! lines and cursor and draws itself; the shell asks
//! whatever screen is shown through [`shown::Shown`], a list or a
//! [`shown::Page`].
//!
//! [`Change`] is the one broadcast between screens (slumber's broadcast
//! event): news of something written (or, for a look's states, read
//! whole) that any screen may be showing. The
//! screen whose write it was lands its own answer (its row, the notice, its
//! form closing); every other screen hears the change and keeps what it
//! shows in step, or ignores it. A screen never reaches into another's rows
//! to tell it.

pub mod access;
pub mod bulk;
pub mod ctx;
pub mod deliveries;
pub mod health;
pub mod heard;
pub mod holder;
pub mod keys;
pub mod list;
pub mod members;
pub mod offboard;
pub mod people;
pub mod person;
pub mod preview;
pub mod request;
pub mod roles;
pub mod shown;
pub mod subscriptions;
pub mod switch;
pub mod who;
pub mod write;

use crate::api::{OrganizationMember, Role, RoleMembership, Subscription};

pub use ctx::Ctx;
pub use holder::Screens;
pub use request::{Held, PageRequest, ScreenPage, ScreenRequest};
pub use write::{Confirm, Confirmed, FormPurpose, Landed, Landing, Opens, Then, Write, Written};

/// What a screen says of itself: its place among the screens. The
/// shell reads it to draw the tabs, to go back, and to know which of the
/// key's scopes its writes need.
///
/// It is a trait, not a match over [`ScreenId`], because what it says is
/// constant for a type and a table generic over its screen reads it
/// without a value (`S::ID`, `S::PARENT`): a match would be one more
/// place each new screen fills in. What a screen does (its keys, its
/// answers, its drawing) lives in its folder beside it; what a list asks
/// the server and says of itself is its `Resource`.
pub trait Screen {
    const ID: ScreenId;
    /// Its name on its tab and in help.
    const TITLE: &'static str;
    /// The tab it is shown on: its own, or the tab of the screen it is
    /// opened from.
    const TAB: ScreenId;
    /// The screen whose row it shows more of (a role's members), if any:
    /// back goes there.
    const PARENT: Option<ScreenId> = None;
    /// The scope its writes need.
    const WRITE_SCOPE: &'static str;
    /// The actions whose writes need another scope than
    /// [`Screen::WRITE_SCOPE`] (`e` on a person's page edits an access
    /// rule), each with the scope it needs.
    const ACTION_SCOPES: &'static [(keys::Action, &'static str)] = &[];
    /// The `:name`s that show it, with what `:` help and completion say of
    /// each (the first its name, any other an alias); none where it is
    /// opened from another screen or shown by a command of its own.
    const COMMANDS: &'static [(&'static str, &'static str)];
}

/// What one screen hears: its own answers and news, one variant a screen
/// (the root message carries them as `Msg::Screen`). The compiler pairs
/// each screen's effects with its handler through its own `Msg`.
#[derive(Debug)]
pub enum ScreenMsg {
    Members(members::Msg),
    Subscriptions(subscriptions::Msg),
    People(people::Msg),
    Person(person::Msg),
    Offboard(offboard::Msg),
    Health(health::Msg),
    Who(who::Msg),
    /// A role's page (in Roles' folder).
    Grants(roles::grants::Msg),
    Access(access::Msg),
    /// The preview before a change that moves access (no screen).
    Preview(preview::Msg),
    Switch(switch::Msg),
}

impl ScreenMsg {
    /// Whether it answers a request an effect sent (news as it goes does not).
    pub fn is_answer(&self) -> bool {
        match self {
            ScreenMsg::Members(msg) => msg.is_answer(),
            ScreenMsg::Subscriptions(msg) => msg.is_answer(),
            ScreenMsg::People(msg) => msg.is_answer(),
            ScreenMsg::Person(msg) => msg.is_answer(),
            ScreenMsg::Offboard(msg) => msg.is_answer(),
            ScreenMsg::Health(msg) => msg.is_answer(),
            ScreenMsg::Who(msg) => msg.is_answer(),
            ScreenMsg::Grants(msg) => msg.is_answer(),
            ScreenMsg::Access(msg) => msg.is_answer(),
            ScreenMsg::Preview(msg) => msg.is_answer(),
            ScreenMsg::Switch(msg) => msg.is_answer(),
        }
    }
}

macro_rules! screen_msg {
    ($($screen:ident => $variant:ident),* $(,)?) => {
        $(impl From<$screen::Msg> for ScreenMsg {
            fn from(msg: $screen::Msg) -> ScreenMsg {
                ScreenMsg::$variant(msg)
            }
        })*
    };
}

screen_msg!(
    members => Members,
    subscriptions => Subscriptions,
    people => People,
    person => Person,
    offboard => Offboard,
    health => Health,
    who => Who,
    access => Access,
    preview => Preview,
    switch => Switch,
);

impl From<roles::grants::Msg> for ScreenMsg {
    fn from(msg: roles::grants::Msg) -> ScreenMsg {
        ScreenMsg::Grants(msg)
    }
}

/// What one screen asks of the world besides a page of its rows, one
/// variant a screen (the shell's effects carry it as `Effect::Ask`): each
/// screen's own `Ask`, whose answer is that screen's own `Msg`. The shell
/// names none of a screen's requests; the effects runner hands each to
/// what runs it in its folder (`ask.rs`, or for the long runs that tell
/// news as they go, `request.rs`, on the runner's task).
#[derive(Debug, Clone, PartialEq)]
pub enum ScreenAsk {
    Members(members::Ask),
    Subscriptions(subscriptions::Ask),
    People(people::Ask),
    Person(person::Ask),
    Health(health::Ask),
    Who(who::Ask),
    Grants(roles::grants::Ask),
    Access(access::Ask),
    Preview(preview::Ask),
    Switch(switch::Ask),
}

macro_rules! screen_ask {
    ($($screen:ident => $variant:ident),* $(,)?) => {
        $(impl From<$screen::Ask> for ScreenAsk {
            fn from(ask: $screen::Ask) -> ScreenAsk {
                ScreenAsk::$variant(ask)
            }
        })*
    };
}

screen_ask!(
    members => Members,
    subscriptions => Subscriptions,
    people => People,
    person => Person,
    health => Health,
    who => Who,
    access => Access,
    preview => Preview,
    switch => Switch,
);

impl From<roles::grants::Ask> for ScreenAsk {
    fn from(ask: roles::grants::Ask) -> ScreenAsk {
        ScreenAsk::Grants(ask)
    }
}

/// Every screen the console shows. Matches over it have no catch-all arm,
/// so that the compiler names every place a new screen must fill in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, strum::EnumIter, strum::EnumCount)]
pub enum ScreenId {
    Roles,
    Members,
    Subscriptions,
    Deliveries,
    People,
    /// A person's page, opened from People.
    Person,
    /// Offboarding a person, opened from their page.
    Offboard,
    /// Everyone's access by project and resource (a tab of its own).
    Access,
    Health,
    /// Who reaches a thing (`:who`).
    Who,
    /// What a role grants, opened from Roles (`w`).
    Grants,
    /// What switching the resolution mode changes (`:switch-preview`).
    Switch,
}

/// News every screen may act on. Each variant says what is true now, so
/// that hearing it twice (the owner's write and a bulk run, say) is
/// harmless: a handler checks before it adds.
#[derive(Debug, Clone)]
pub enum Change {
    /// A role was made: Roles shows it, the cursor on it.
    RoleMade(Box<Role>),
    /// A role as the server now holds it (saved).
    RoleSaved(Box<Role>),
    /// A role was deleted: its row goes, and whatever shows its members
    /// closes.
    RoleDeleted { role: String },
    /// Someone joined a role: the membership as the server made it.
    Joined(Box<RoleMembership>),
    /// A membership (by id) of a role was deleted.
    Left { role: String, membership: String },
    /// A member as they are now (their level changed).
    MemberChanged(Box<OrganizationMember>),
    /// A subscription as the server now holds it (saved, soft-deleted,
    /// restored, paused, resumed, read again).
    SubscriptionChanged(Box<Subscription>),
    /// A subscription was made: Subscriptions starts over, the cursor
    /// finding it.
    SubscriptionMade(Box<Subscription>),
    /// A look read the subscriptions' list whole: how many are in each
    /// state, for the state filters of Subscriptions. Not a write, but
    /// news one screen (Health) learns that another shows; shared, not
    /// copied, as it may hold a few thousand rows.
    StatesKnown(std::sync::Arc<crate::health::list::States>),
    /// A person was offboarded (by address): their roles and the
    /// subscriptions they received changed, so People reads who holds
    /// which role again and their page, if open, is gathered again.
    Offboarded { email: String },
    /// Who reaches what may have changed (a membership, a level, a role
    /// deleted, an offboarding, a rule): the Access tab reads its grid
    /// again, an open person's page its Access section and an open role's
    /// page what it grants. `project`: the one project a rule is in;
    /// `None`: any project (a change of people).
    AccessChanged { project: Option<i64> },
}
