//! What the People screen asks the server for: a page of the
//! organization's members, searched and ordered by the server
//! ([`Request`]), and what runs the rest it asks ([`run`]: the role index,
//! a narrowing), its news told as it goes.

use std::sync::Arc;

use super::msg::{PeopleNews, SharedIndex};
use super::{Ask, Msg, Narrow};
use crate::api::{self, Client, FetchAll, List, OrganizationMember, Page};
use crate::console::kit::latest::Ticket;
use crate::console::kit::stop::Stop;
use crate::console::screens::request::{PageRequest, ScreenRequest, Tell};
use crate::people::RoleIndex;

#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub organization: String,
    pub search: Option<String>,
    /// `joined_at` or `-joined_at`.
    pub order: &'static str,
}

impl PageRequest for Request {
    type Row = OrganizationMember;

    fn into_screen(self) -> ScreenRequest {
        ScreenRequest::People(self)
    }

    async fn run(
        self,
        client: &Client,
        offset: u64,
        limit: u64,
    ) -> Result<Page<OrganizationMember>, api::Error> {
        let mut people = List::members(&self.organization).with("order", self.order);
        if let Some(search) = self.search {
            people = people.with("search", search);
        }
        client.page(&people, limit, offset).await
    }
}

/// Runs what People asks besides a page of its rows, on the effects
/// runner's task: the role index read (its progress told as each role is
/// read), or a narrowing (`:no-role` streams every member a few pages at
/// a time, keeping those in no role; `:has-role` reads the role's
/// memberships), its rows told as they are found. Its end is the screen's
/// own message.
pub async fn run(ask: Ask, client: &Client, tell: Tell<Msg>) -> Msg {
    match ask {
        Ask::RoleIndex { ticket, organization } => {
            let progress: Box<dyn Fn(usize, usize) + Send + Sync> =
                Box::new(move |done, total| tell(Msg::RoleIndexProgress { ticket, done, total }));
            // What the index holds is one budget (--max-held-mib).
            let client = client.with_holding();
            let result = RoleIndex::load(&client, &organization, progress.as_ref())
                .await
                .map(|index| SharedIndex(Arc::new(index)))
                .map_err(|error| error.to_string());
            Msg::RoleIndex { ticket, result }
        }
        Ask::Narrow {
            ticket,
            organization,
            narrow: how,
            oldest_first,
            stop,
        } => {
            let result = narrow(client, ticket, &organization, how, oldest_first, stop, tell).await;
            Msg::PeopleNarrowed { ticket, result }
        }
    }
}

/// Members a page of `:no-role`'s look through everyone.
const SCAN_PAGE: u64 = 500;

/// Member pages in flight at once while `:no-role` looks through them all.
const PAGES_AT_ONCE: usize = 4;

/// Why a look through the members ended early.
enum Ended {
    Stopped,
    Failed(crate::api::Error),
}

impl From<crate::api::Error> for Ended {
    fn from(error: crate::api::Error) -> Self {
        Ended::Failed(error)
    }
}

/// Whether it was stopped, or why it failed.
async fn narrow(
    client: &Client,
    ticket: Ticket,
    organization: &str,
    narrow: Narrow,
    oldest_first: bool,
    stop: Stop,
    tell: Tell<Msg>,
) -> Result<bool, String> {
    let send = move |news: PeopleNews| tell(Msg::PeopleNews { ticket, news });
    let index = match narrow {
        Narrow::Role(role) => {
            // A role's memberships name its people: no need to look through everyone.
            let memberships = client
                .all(&List::memberships(organization, &role.id), &FetchAll::default())
                .await
                .map_err(|error| error.to_string())?;
            let mut people: Vec<OrganizationMember> = memberships
                .into_iter()
                .filter_map(|membership| {
                    membership.organization_member.or_else(|| {
                        membership.user.map(|user| OrganizationMember {
                            user,
                            ..OrganizationMember::default()
                        })
                    })
                })
                .collect();
            people.sort_by_key(|member| member.joined_at);
            if !oldest_first {
                people.reverse();
            }
            let total = people.len() as u64;
            send(PeopleNews::Rows(people));
            send(PeopleNews::Progress { done: total, total });
            return Ok(false);
        }
        Narrow::NoRole(index) => index,
    };
    let order = if oldest_first { "joined_at" } else { "-joined_at" };
    let list = List::members(organization).with("order", order);
    let told = send.clone();
    // Every member is read: in pages of 500 (a server that allows fewer
    // is followed by its `next` links), a fifth of the requests, and a
    // fifth of the rows an offset has the server step over.
    let options = FetchAll {
        page_size: SCAN_PAGE,
        concurrency: PAGES_AT_ONCE,
        progress: Some(Arc::new(move |done, total| {
            told(PeopleNews::Progress { done, total })
        })),
        max_rows: None,
        pace: None,
    };
    let outcome = client
        .for_each_page(&list, &options, |page: Vec<OrganizationMember>| {
            if stop.is_stopped() {
                return Err(Ended::Stopped);
            }
            let kept: Vec<OrganizationMember> = page
                .into_iter()
                .filter(|member| index.0.of(&member.user.uuid).is_empty())
                .collect();
            if !kept.is_empty() {
                send(PeopleNews::Rows(kept));
            }
            Ok(())
        })
        .await;
    match outcome {
        Ok(_) => Ok(false),
        Err(Ended::Stopped) => Ok(true),
        Err(Ended::Failed(error)) => Err(error.to_string()),
    }
}
