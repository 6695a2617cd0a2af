//! Lists and their pages: any page by offset (what the console's virtual
//! tables need), and whole lists streamed a page at a time in the server's
//! order, pages asked for ahead by offset while they come full and by the
//! server's `next` link once one comes short (a server may cap `limit`).
//!
//! Nothing is sized from what a server says: a whole list stops with an
//! error past the client's row cap (`--max-rows`), repeats are dropped and
//! counted, and what a list did wrong that still left rows to show (rows
//! repeated, fewer than its count) is reported in [`Streamed`] as warnings.

use std::collections::HashSet;
use std::hash::{BuildHasher, RandomState};
use std::marker::PhantomData;
use std::sync::Arc;

use reqwest::Method;
use serde::de::DeserializeOwned;

use super::client::Client;
use super::error::{Error, Result};
use super::models::{
    NamedItem, Organization, OrganizationMember, Page, Project, Role, RoleMembership, Subscription,
};
use super::operations::SubscriptionFilter;

/// A row with an identity, so that a list fetched out of order can be
/// checked for repeats.
pub trait Row: DeserializeOwned + Send + 'static {
    fn row_id(&self) -> String;
}

macro_rules! row_by_id {
    ($($kind:ty),+) => {
        $(impl Row for $kind {
            fn row_id(&self) -> String {
                self.id.to_string()
            }
        })+
    };
}

row_by_id!(
    Role,
    RoleMembership,
    Subscription,
    Organization,
    Project,
    OrganizationMember,
    NamedItem
);

/// A list endpoint and its filters, typed by the rows it holds.
#[derive(Debug, PartialEq, Eq)]
pub struct List<T> {
    segments: Vec<String>,
    query: Vec<(String, String)>,
    /// An older PostHog answers 500 to this list with `limit` and
    /// `offset` (its role lists): then it is asked without them.
    unpaged_on_500: bool,
    rows: PhantomData<fn() -> T>,
}

// By hand: a derive would ask the rows to be `Clone` too.
impl<T> Clone for List<T> {
    fn clone(&self) -> Self {
        List {
            segments: self.segments.clone(),
            query: self.query.clone(),
            unpaged_on_500: self.unpaged_on_500,
            rows: PhantomData,
        }
    }
}

impl<T> List<T> {
    /// The same list, each row kept as the server sent it beside its typed
    /// reading ([`super::Raw`]): for `-o json`.
    pub fn raw(self) -> List<super::Raw<T>> {
        List {
            segments: self.segments,
            query: self.query,
            unpaged_on_500: self.unpaged_on_500,
            rows: PhantomData,
        }
    }

    fn new(segments: &[&str]) -> Self {
        List {
            segments: segments.iter().map(|segment| segment.to_string()).collect(),
            query: Vec::new(),
            unpaged_on_500: false,
            rows: PhantomData,
        }
    }

    /// Adds a query parameter (a filter).
    pub fn with(mut self, name: &str, value: impl ToString) -> Self {
        self.query.push((name.to_string(), value.to_string()));
        self
    }

    /// The path the list is read from, for logs and the console's footer.
    pub fn path(&self) -> String {
        format!("/{}/", self.segments.join("/"))
    }

    /// A short name for progress and messages ("subscriptions").
    pub fn name(&self) -> &str {
        self.segments.last().map(String::as_str).unwrap_or("rows")
    }
}

impl List<Role> {
    pub fn roles(organization: &str) -> Self {
        List {
            unpaged_on_500: true,
            ..List::new(&["api", "organizations", organization, "roles"])
        }
    }
}

impl List<RoleMembership> {
    pub fn memberships(organization: &str, role: &str) -> Self {
        List::new(&[
            "api",
            "organizations",
            organization,
            "roles",
            role,
            "role_memberships",
        ])
    }
}

impl List<Subscription> {
    pub fn subscriptions(project: &str, filter: &SubscriptionFilter) -> Self {
        filter.query().into_iter().fold(
            List::new(&["api", "projects", project, "subscriptions"]),
            |list, (name, value)| list.with(name, value),
        )
    }
}

impl List<Organization> {
    pub fn organizations() -> Self {
        List::new(&["api", "organizations"])
    }
}

impl List<Project> {
    pub fn projects() -> Self {
        List::new(&["api", "projects"])
    }
}

impl List<OrganizationMember> {
    pub fn members(organization: &str) -> Self {
        List::new(&["api", "organizations", organization, "members"])
    }
}

impl List<NamedItem> {
    pub fn dashboards(project: &str) -> Self {
        List::new(&["api", "projects", project, "dashboards"])
    }

    pub fn insights(project: &str) -> Self {
        List::new(&["api", "projects", project, "insights"])
    }
}

/// How a whole list is fetched.
#[derive(Clone)]
pub struct FetchAll {
    pub page_size: u64,
    /// Pages in flight at once.
    pub concurrency: usize,
    /// Called with (rows fetched, rows in all) as pages arrive.
    pub progress: Option<Arc<dyn Fn(u64, u64) + Send + Sync>>,
    /// The most rows taken from the list, repeats included, below the
    /// client's own cap; past it the fetch stops with an error.
    pub max_rows: Option<u64>,
}

impl Default for FetchAll {
    fn default() -> Self {
        FetchAll {
            page_size: 100,
            concurrency: 8,
            progress: None,
            max_rows: None,
        }
    }
}

/// The most rows a picker or switcher takes from a list (members to assign,
/// organizations, projects, dashboards, insights): it shows the first ones
/// and searches on the server, or says that there are more.
pub const PICKER_ROWS: usize = 5_000;

/// The least of the answer limit a page of a whole list gets.
const MIN_PAGE_ANSWER: u64 = 1024 * 1024;

/// Times the whole fetch starts again when the list changes under it.
const CONSISTENT_TRIES: usize = 3;

/// What a streamed fetch saw, beyond the rows it handed over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Streamed {
    /// Rows handed over, each once.
    pub rows: u64,
    /// Rows the server sent again, dropped.
    pub repeated: u64,
    /// The first page's count.
    pub count: u64,
    /// A page reported another count than the first: the list changed while
    /// it was read, so rows may be missing (repeats were dropped).
    pub changed: bool,
}

impl Streamed {
    /// What went wrong that still left rows to show, in words for stderr
    /// or a notice; empty for a list that came as its count said.
    pub fn warnings(&self) -> Vec<String> {
        let mut warnings = Vec::new();
        if self.repeated > 0 {
            warnings.push(format!(
                "the server sent {} rows more than once; each is listed once ({} rows)",
                self.repeated, self.rows
            ));
        }
        if self.changed {
            warnings.push("the list changed while it was read; run it again for a consistent one".into());
        } else if self.rows < self.count {
            warnings.push(format!(
                "the list ended after {} rows where the server's count said {}; rows may be missing",
                self.rows, self.count
            ));
        }
        warnings
    }
}

/// The sink asked for no more rows: not an error, the end of a partial fetch.
enum Taken {
    Enough,
    Failed(Error),
}

impl From<Error> for Taken {
    fn from(error: Error) -> Self {
        Taken::Failed(error)
    }
}

impl Client {
    /// The page of `limit` rows at `offset`.
    pub async fn page<T: Row>(&self, list: &List<T>, limit: u64, offset: u64) -> Result<Page<T>> {
        if offset == 0 && list.unpaged_on_500 {
            return self.first_page(list, limit).await.map(|(page, _)| page);
        }
        self.call(Method::GET, self.page_url(list, limit, offset), None::<&()>)
            .await
    }

    /// The first page of a list, and whether it was asked without `limit`
    /// and `offset`: a list an older PostHog answers 500 with them (its
    /// role lists) is asked again without them, and from then on asked
    /// that way (the client notes it, once). Its later pages are then
    /// reached by its `next` links alone.
    async fn first_page<T: Row>(&self, list: &List<T>, size: u64) -> Result<(Page<T>, bool)> {
        let unpaged = || {
            let mut url = self.url(&list.segments.iter().map(String::as_str).collect::<Vec<_>>());
            url.query_pairs_mut().extend_pairs(&list.query);
            url
        };
        if list.unpaged_on_500 && self.older().roles_unpaged() {
            return Ok((self.call(Method::GET, unpaged(), None::<&()>).await?, true));
        }
        let answer = self
            .get_raw(self.page_url(list, size, 0))
            .await
            .and_then(|raw| raw.decode());
        match answer {
            Err(error) if list.unpaged_on_500 && error.status() == Some(500) => {
                let page = self.call(Method::GET, unpaged(), None::<&()>).await?;
                self.older().found_roles_unpaged(&list.path());
                Ok((page, true))
            }
            answer => answer.map(|page| (page, false)),
        }
    }

    fn page_url<T>(&self, list: &List<T>, limit: u64, offset: u64) -> url::Url {
        let mut url = self.url(&list.segments.iter().map(String::as_str).collect::<Vec<_>>());
        url.query_pairs_mut()
            .extend_pairs(&list.query)
            .append_pair("limit", &limit.to_string())
            .append_pair("offset", &offset.to_string());
        url
    }

    /// The client a whole list's pages are read with: the pages fetched at
    /// once share the answer limit, so that together they hold no more
    /// than one answer may (a page gets at least 1 MiB, and never more
    /// than the whole limit).
    fn pager(&self, concurrency: usize) -> Client {
        let share = (self.max_answer() / concurrency.max(1) as u64).max(MIN_PAGE_ANSWER);
        self.with_max_answer(share.min(self.max_answer()))
    }

    /// Every row, one page at a time, following `next` alone. A server
    /// whose links go round in a circle, that sends more than its count
    /// said or more than the row cap, is stopped with an error.
    pub async fn all_by_next<T: Row>(&self, list: &List<T>, page_size: u64) -> Result<Vec<T>> {
        let size = page_size.max(1);
        let first = self.page(list, size, 0).await?;
        let mut walk = Walk::new(list, size, first.count, self.max_rows());
        let mut rows = Vec::new();
        let mut sink = |page: Vec<T>| -> Result<()> {
            rows.extend(page);
            Ok(())
        };
        let next = walk.hand_over(first, None, &mut sink)?;
        let whole = self.max_answer();
        self.follow_next(next, &mut walk, None, whole, &mut sink).await?;
        Ok(rows)
    }

    /// Every row, in the server's order, each once, streamed a page at a
    /// time and gathered. When the list changes during the fetch (a page
    /// reports another count), the fetch starts again, and after a few
    /// tries falls back to following `next` one page after another, which
    /// may see a row twice (dropped) but never skips one that stayed.
    /// Holds the whole list: use [`Client::for_each_page`] where the rows
    /// can be handed on, or [`Client::first_rows`] for a bounded few.
    pub async fn all<T: Row>(&self, list: &List<T>, options: &FetchAll) -> Result<Vec<T>> {
        for _ in 0..CONSISTENT_TRIES {
            let mut rows = Vec::new();
            let streamed = self
                .for_each_page(list, options, |page| {
                    rows.extend(page);
                    Ok::<_, Error>(())
                })
                .await?;
            if !streamed.changed {
                for warning in streamed.warnings() {
                    tracing::warn!(list = list.name(), "{warning}");
                }
                return Ok(rows);
            }
            tracing::info!(
                list = list.name(),
                "the list changed while it was fetched; fetching again"
            );
        }
        self.all_by_next(list, options.page_size).await
    }

    /// The first `most` rows of a list, each once, and whether it holds
    /// more: what a picker shows before the user types to search.
    pub async fn first_rows<T: Row>(
        &self,
        list: &List<T>,
        most: usize,
        options: &FetchAll,
    ) -> Result<(Vec<T>, bool)> {
        let options = FetchAll {
            page_size: options.page_size.min(most.max(1) as u64),
            ..options.clone()
        };
        let mut rows = Vec::new();
        let mut more = false;
        let outcome = self
            .for_each_page(list, &options, |page: Vec<T>| {
                for row in page {
                    if rows.len() >= most {
                        more = true;
                        return Err(Taken::Enough);
                    }
                    rows.push(row);
                }
                Ok(())
            })
            .await;
        match outcome {
            Ok(streamed) => {
                // Exactly `most` rows and a count saying more: there are more.
                more |= streamed.count > rows.len() as u64;
            }
            Err(Taken::Enough) => {}
            // The cap of `most` is the picker's; a longer list is not a failure.
            Err(Taken::Failed(Error::TooManyRows { .. })) => more = true,
            Err(Taken::Failed(error)) => return Err(error),
        }
        Ok((rows, more))
    }

    /// Every row in the server's order, each once, handed to `sink` a page
    /// at a time as each page's turn comes, and nothing kept: at most
    /// `concurrency` pages are in flight or held at once, as bytes (one page
    /// is decoded at a time), and they share the answer limit between them,
    /// so memory stays flat however long the list or large its pages.
    ///
    /// While pages come full they are asked for ahead by offset; the first
    /// page without `next` ends the list. A page shorter than asked that
    /// links onward (a server that caps `limit`) is followed by its `next`
    /// link from there on, never taken as the end. Nothing is sized from
    /// `count`; past the row cap, on a link that repeats, on an empty page
    /// that links onward, or on more rows or pages than the count allows,
    /// the fetch stops with an error. Repeated rows are dropped and counted.
    pub async fn for_each_page<T: Row, E: From<Error>>(
        &self,
        list: &List<T>,
        options: &FetchAll,
        mut sink: impl FnMut(Vec<T>) -> std::result::Result<(), E>,
    ) -> std::result::Result<Streamed, E> {
        use futures_util::StreamExt;
        let size = options.page_size.max(1);
        let cap = options
            .max_rows
            .map_or(self.max_rows(), |most| most.min(self.max_rows()));
        let concurrency = options.concurrency.max(1);
        let pager = self.pager(concurrency);
        let whole = self.max_answer();
        let (first, unpaged): (Page<T>, bool) = pager
            .first_page(list, size)
            .await
            .map_err(|error| shared_limit(error, whole))?;
        let count = first.count;
        let mut walk = Walk::new(list, size, count, cap);
        let progress = options.progress.clone();
        let report = |walk: &Walk| {
            if let Some(progress) = &progress {
                progress(walk.streamed.rows.min(count), count);
            }
        };
        // Asked without `limit`, a list's later pages are its `next` links'.
        let full = !unpaged && first.results.len() as u64 >= size;
        let mut next = walk.hand_over(first, None, &mut sink)?;
        report(&walk);
        if next.is_some() && full {
            let most_pages = (count / size).saturating_add(2);
            // Pages wait their turn as bytes; each is decoded as it is handed over.
            let mut pages = futures_util::stream::iter(1..most_pages)
                .map(|index| pager.get_raw(pager.page_url(list, size, index.saturating_mul(size))))
                .buffered(concurrency);
            loop {
                let Some(page) = pages.next().await else {
                    // Every page the count allows came full and linked onward.
                    return Err(walk
                        .error(format!(
                            "the server sent more pages than its count of {count} allows"
                        ))
                        .into());
                };
                let page: Page<T> = page
                    .and_then(|raw| raw.decode())
                    .map_err(|error| shared_limit(error, whole))?;
                let full = page.results.len() as u64 >= size;
                next = walk.hand_over(page, Some(count), &mut sink)?;
                report(&walk);
                if next.is_none() || !full {
                    break;
                }
            }
        }
        // A short page that links onward: its link decides what comes next.
        pager
            .follow_next(next, &mut walk, Some(&report), whole, &mut sink)
            .await?;
        Ok(walk.streamed)
    }

    /// Follows `next` links from `next` on, handing each page to `sink`.
    async fn follow_next<T: Row, E: From<Error>>(
        &self,
        mut next: Option<String>,
        walk: &mut Walk,
        report: Option<&(dyn Fn(&Walk) + Sync)>,
        whole: u64,
        sink: &mut impl FnMut(Vec<T>) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        while let Some(link) = next {
            let url = self.rebase(&link)?;
            walk.follow(url.as_str())?;
            let page: Page<T> = self
                .call(Method::GET, url, None::<&()>)
                .await
                .map_err(|error| shared_limit(error, whole))?;
            let count = walk.streamed.count;
            next = walk.hand_over(page, Some(count), sink)?;
            if let Some(report) = report {
                report(walk);
            }
        }
        Ok(())
    }
}

/// A page refused for its size, told as the share of the answer limit it
/// exceeded where that was less than the whole.
fn shared_limit(error: Error, whole: u64) -> Error {
    match error {
        Error::TooLarge { request, limit } if limit < whole => Error::PageTooLarge {
            request,
            limit,
            whole,
        },
        error => error,
    }
}

/// The limits of one walk through a list: no more rows than the cap, no
/// URL twice, no empty page that links onward, no more rows than `count`
/// said by more than a page, no more than `count/page + 2` pages. A server
/// that breaks any of them is stopped. It also keeps which rows were handed
/// over, to drop repeats.
///
/// Rows and links are remembered by a 64-bit hash keyed at random for each
/// walk (8 bytes each, whatever a server makes its ids): a server cannot aim
/// for a collision it cannot compute, and by chance one is about as likely
/// as n²/2⁶⁵ (10⁻⁸ at a million rows), at the cost of one row taken for a
/// repeat.
struct Walk {
    request: super::error::RequestLabel,
    hasher: RandomState,
    rows_seen: HashSet<u64>,
    links_seen: HashSet<u64>,
    page_size: u64,
    /// The fewest rows a page came with, which bounds the pages.
    smallest_page: u64,
    cap: u64,
    received: u64,
    pages: u64,
    streamed: Streamed,
}

impl Walk {
    fn new<T>(list: &List<T>, page_size: u64, count: u64, cap: u64) -> Walk {
        let page_size = page_size.max(1);
        Walk {
            request: super::error::RequestLabel {
                method: "GET".into(),
                path: list.path(),
            },
            hasher: RandomState::new(),
            rows_seen: HashSet::new(),
            links_seen: HashSet::new(),
            page_size,
            smallest_page: page_size,
            cap,
            received: 0,
            pages: 0,
            streamed: Streamed {
                rows: 0,
                repeated: 0,
                count,
                changed: false,
            },
        }
    }

    fn follow(&mut self, url: &str) -> Result<()> {
        if !self.links_seen.insert(self.hasher.hash_one(url)) {
            return Err(self.error(format!(
                "the server's next link repeats a page already fetched ({})",
                crate::text::printable(url)
            )));
        }
        Ok(())
    }

    /// Counts a page in against the limits, drops the rows already handed
    /// over, hands the rest to `sink`, and gives the page's `next` link.
    /// `first_count` is the count the first page said, when this is not it:
    /// a count that grows as pages arrive must not stretch the limits.
    fn hand_over<T: Row, E: From<Error>>(
        &mut self,
        page: Page<T>,
        first_count: Option<u64>,
        sink: &mut impl FnMut(Vec<T>) -> std::result::Result<(), E>,
    ) -> std::result::Result<Option<String>, E> {
        let got = page.results.len() as u64;
        self.pages += 1;
        self.received = self.received.saturating_add(got);
        if first_count.is_some_and(|count| count != page.count) {
            self.streamed.changed = true;
        }
        if self.received > self.cap {
            return Err(Error::TooManyRows {
                request: self.request.clone(),
                limit: self.cap,
            }
            .into());
        }
        if got == 0 && page.next.is_some() {
            return Err(self
                .error("the server sent an empty page that links to another".into())
                .into());
        }
        let count = self.streamed.count;
        if self.received > count.saturating_add(self.page_size) {
            return Err(self
                .error(format!(
                    "the server sent {} rows where its count said {count}",
                    self.received
                ))
                .into());
        }
        if got > 0 {
            self.smallest_page = self.smallest_page.min(got);
        }
        let most_pages = (count / self.smallest_page).saturating_add(2);
        if self.pages > most_pages {
            return Err(self
                .error(format!(
                    "the server sent {} pages where its count of {count} allows {most_pages}",
                    self.pages
                ))
                .into());
        }
        let rows: Vec<T> = page
            .results
            .into_iter()
            .filter(|row| self.rows_seen.insert(self.hasher.hash_one(row.row_id())))
            .collect();
        self.streamed.repeated += got - rows.len() as u64;
        self.streamed.rows += rows.len() as u64;
        sink(rows)?;
        Ok(page.next)
    }

    fn error(&self, reason: String) -> Error {
        Error::EndlessList {
            request: self.request.clone(),
            reason,
        }
    }
}
