//! What a screen asks the server for, typed end to end.
//!
//! Each screen that pages its rows from the server has its own request
//! type, in its folder (`roles/request.rs`, …), which says what its rows
//! are ([`PageRequest::Row`]) and how to fetch a page of them
//! ([`PageRequest::run`]). The effects runner sees one enum,
//! [`ScreenRequest`] (one variant a screen), and answers with
//! [`ScreenPage`] (one variant a screen, holding that screen's rows): the
//! one match that pairs them ([`ScreenRequest::run`]) is checked by the
//! compiler, so a request cannot be answered with another screen's rows,
//! and the answer lands on the table whose rows they are by a match the
//! compiler checks too. No `dyn Any`, no downcast, no "page of the wrong
//! kind" at run time.
//!
//! "Latest wins" stays with the table the request fills: each request
//! travels with its table's generation ([`crate::console::kit::latest`]),
//! and an answer of an older generation is dropped where it lands.
//!
//! A list that holds its rows whole (Health's board) asks nothing page by
//! page: its request type is [`Held`], which has no values, so that no
//! page of its can be asked for or answered. A page that is not a table (a
//! person's, an offboarding) holds its lines itself and has no request
//! type at all.
//!
//! What a screen asks besides its rows runs in its folder too; the long
//! runs that tell news as they go are lent what they need by the effects
//! runner ([`Lent`], [`Tell`]).

use std::convert::Infallible;
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;

use crate::api::{self, Client, Delivery, OrganizationMember, Page, Role, RoleMembership, Subscription};

use super::{ScreenId, deliveries, members, people, roles, subscriptions};

/// A request for a page of a screen's rows.
pub trait PageRequest: Clone + fmt::Debug + PartialEq + Send + 'static {
    /// The rows its answer holds.
    type Row: Send + 'static;

    /// The request as the effects runner carries it.
    fn into_screen(self) -> ScreenRequest;

    /// Fetches `limit` rows from `offset` (for a list paged by cursor,
    /// `offset` is where the page will stand; the request holds its link).
    fn run(
        self,
        client: &Client,
        offset: u64,
        limit: u64,
    ) -> impl Future<Output = Result<Page<Self::Row>, api::Error>> + Send;
}

/// A request for a page of one screen's rows, as effects carry it.
#[derive(Debug, Clone, PartialEq)]
pub enum ScreenRequest {
    Roles(roles::Request),
    Members(members::Request),
    Subscriptions(subscriptions::Request),
    Deliveries(deliveries::Request),
    People(people::Request),
}

/// A page of one screen's rows, on its way from the effects to its table.
pub enum ScreenPage {
    Roles(Page<Role>),
    Members(Page<RoleMembership>),
    Subscriptions(Page<Subscription>),
    Deliveries(Page<Delivery>),
    People(Page<OrganizationMember>),
}

impl ScreenRequest {
    /// The screen whose rows it asks for.
    pub fn screen(&self) -> ScreenId {
        match self {
            ScreenRequest::Roles(_) => ScreenId::Roles,
            ScreenRequest::Members(_) => ScreenId::Members,
            ScreenRequest::Subscriptions(_) => ScreenId::Subscriptions,
            ScreenRequest::Deliveries(_) => ScreenId::Deliveries,
            ScreenRequest::People(_) => ScreenId::People,
        }
    }

    /// Runs the request: its answer is a page of its own screen's rows.
    pub async fn run(self, client: &Client, offset: u64, limit: u64) -> Result<ScreenPage, api::Error> {
        match self {
            ScreenRequest::Roles(request) => request.run(client, offset, limit).await.map(ScreenPage::Roles),
            ScreenRequest::Members(request) => {
                request.run(client, offset, limit).await.map(ScreenPage::Members)
            }
            ScreenRequest::Subscriptions(request) => request
                .run(client, offset, limit)
                .await
                .map(ScreenPage::Subscriptions),
            ScreenRequest::Deliveries(request) => request
                .run(client, offset, limit)
                .await
                .map(ScreenPage::Deliveries),
            ScreenRequest::People(request) => {
                request.run(client, offset, limit).await.map(ScreenPage::People)
            }
        }
    }
}

impl ScreenPage {
    /// The screen whose rows it holds.
    pub fn screen(&self) -> ScreenId {
        match self {
            ScreenPage::Roles(_) => ScreenId::Roles,
            ScreenPage::Members(_) => ScreenId::Members,
            ScreenPage::Subscriptions(_) => ScreenId::Subscriptions,
            ScreenPage::Deliveries(_) => ScreenId::Deliveries,
            ScreenPage::People(_) => ScreenId::People,
        }
    }

    /// A page of these rows, as the screen they belong to receives it.
    pub fn new<T>(page: Page<T>) -> ScreenPage
    where
        ScreenPage: From<Page<T>>,
    {
        page.into()
    }
}

macro_rules! pages {
    ($($row:ty => $variant:ident),* $(,)?) => {$(
        impl From<Page<$row>> for ScreenPage {
            fn from(page: Page<$row>) -> ScreenPage {
                ScreenPage::$variant(page)
            }
        }
    )*};
}

pages! {
    Role => Roles,
    RoleMembership => Members,
    Subscription => Subscriptions,
    Delivery => Deliveries,
    OrganizationMember => People,
}

impl fmt::Debug for ScreenPage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ScreenPage({:?}, ..)", self.screen())
    }
}

/// The request of a screen that holds its rows whole: there is none (the
/// type has no values), so nothing of it is ever fetched page by page.
pub struct Held<T> {
    never: Infallible,
    rows: PhantomData<fn() -> T>,
}

impl<T> Clone for Held<T> {
    fn clone(&self) -> Self {
        match self.never {}
    }
}

impl<T> fmt::Debug for Held<T> {
    fn fmt(&self, _: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.never {}
    }
}

impl<T> PartialEq for Held<T> {
    fn eq(&self, _: &Self) -> bool {
        match self.never {}
    }
}

impl<T: Send + 'static> PageRequest for Held<T> {
    type Row = T;

    fn into_screen(self) -> ScreenRequest {
        match self.never {}
    }

    async fn run(self, _: &Client, _: u64, _: u64) -> Result<Page<T>, api::Error> {
        match self.never {}
    }
}

/// How a screen's long request tells its news as it goes (a look's rows,
/// the role index's progress, an offboarding's steps): each message is its
/// screen's own, which the effects runner carries to the loop. A screen
/// never sees the shell's messages.
pub type Tell<M> = std::sync::Arc<dyn Fn(M) + Send + Sync>;

/// What the effects runner lends a screen's long run that keeps state on
/// disk (a look's index, an offboarding's record): the client, the
/// console's clock, the state directory, and how to tell its news (its
/// screen's messages, `M`).
pub struct Lent<'a, M> {
    pub client: &'a Client,
    pub clock: crate::clock::Clock,
    pub state_dir: &'a std::path::Path,
    pub tell: Tell<M>,
}
