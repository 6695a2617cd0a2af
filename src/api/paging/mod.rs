//! Lists and their pages: any page by offset (what the console's virtual
//! tables need), and whole lists read a page at a time in the server's
//! order, pages asked for ahead by offset while they come full and by the
//! server's `next` link once one comes short (a server may cap `limit`).
//!
//! A list is read whole or not at all, and this is the one place that
//! decides it: every read to a list's end is judged by [`walk::Walk`], and
//! one that ended before its count, repeated rows or changed while it was
//! read ends with [`Error::Incomplete`], naming the list, its count and the
//! rows that came. A streamed read ([`Client::for_each_page`]) has handed
//! its rows on by then (a command that wrote them exits 1 with the
//! warnings); a read that keeps rows ([`Client::all`], [`Client::gather`])
//! gives none. What a checked read gives back, [`Whole`] and [`Complete`],
//! no other code can make, so what takes one is never handed part of a list.
//!
//! Nothing is sized from what a server says: a read stops with an error
//! past the client's row cap (`--max-rows`), a read that keeps rows past
//! the bytes its command may hold (`--max-held-mib`, [`Holding`]), and a
//! server that loops, sends empty pages that link onward, or more rows or
//! pages than its count allows, is stopped (see [`walk`]).

mod page;
mod walk;
mod whole;

use std::marker::PhantomData;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use reqwest::Method;
use serde::de::DeserializeOwned;

use super::client::{Client, Raw};
use super::error::{Error, RequestLabel, Result};
use super::models::{
    NamedItem, Organization, OrganizationMember, Page, Project, Role, RoleMembership, Subscription,
};
use super::query::SubscriptionFilter;
use page::Head;
use walk::Walk;
pub use whole::{Complete, Holding, Kept, Whole};

/// A row with an identity, so that a list fetched out of order can be
/// checked for repeats.
pub trait Row: DeserializeOwned + Send + 'static {
    fn row_id(&self) -> String;
}

/// A row kept as the server sent it has the identity of its typed reading.
impl<T: Row> Row for super::raw::Raw<T> {
    fn row_id(&self) -> String {
        self.typed.row_id()
    }
}

/// A row kept as text alone has the `id` its typed reading would give: a
/// string's text, a number's digits, read off the text
/// ([`super::raw::field`]).
impl<T: Row> Row for super::raw::Verbatim<T> {
    fn row_id(&self) -> String {
        match super::raw::field(self.json.get(), "id") {
            Some(text) if text.starts_with('"') && !text.contains('\\') => {
                text[1..text.len() - 1].to_string()
            }
            Some(text) if text.starts_with('"') => serde_json::from_str::<String>(text).unwrap_or_default(),
            Some(text) => text.to_string(),
            None => String::new(),
        }
    }
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
    /// A field of each row cut out of the pages as they arrive
    /// ([`List::without`]).
    cut: Option<&'static str>,
    rows: PhantomData<fn() -> T>,
}

// By hand: a derive would ask the rows to be `Clone` too.
impl<T> Clone for List<T> {
    fn clone(&self) -> Self {
        List {
            segments: self.segments.clone(),
            query: self.query.clone(),
            unpaged_on_500: self.unpaged_on_500,
            cut: self.cut,
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
            cut: self.cut,
            rows: PhantomData,
        }
    }

    /// The same list, each row kept as the server sent it and not read
    /// further ([`super::raw::Verbatim`]): for `-o json` where nothing
    /// reads the rows' fields.
    pub fn verbatim(self) -> List<super::raw::Verbatim<T>> {
        List {
            segments: self.segments,
            query: self.query,
            unpaged_on_500: self.unpaged_on_500,
            cut: self.cut,
            rows: PhantomData,
        }
    }

    /// The same list, each row read as `U`: a reading of fewer fields,
    /// for a caller that needs no more of each row.
    pub fn read_as<U>(self) -> List<U> {
        List {
            segments: self.segments,
            query: self.query,
            unpaged_on_500: self.unpaged_on_500,
            cut: self.cut,
            rows: PhantomData,
        }
    }

    pub(crate) fn new(segments: &[&str]) -> Self {
        List {
            segments: segments.iter().map(|segment| segment.to_string()).collect(),
            query: Vec::new(),
            unpaged_on_500: false,
            cut: None,
            rows: PhantomData,
        }
    }

    /// The same list, the value of `field` cut out of each row as its
    /// page arrives (`null` in its place), never held: for a list whose
    /// rows embed another whole list (a role's `members`) where the
    /// command needs none of it, or reads it on its own, a page at a time.
    pub fn without(self, field: &'static str) -> Self {
        List {
            cut: Some(field),
            ..self
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

/// Waits before each page of a list is asked for: a pace to keep (the
/// request budget of `subs health`).
pub type Pace = Arc<dyn Fn() -> BoxFuture<'static, ()> + Send + Sync>;

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
    /// Awaited before each page is asked for.
    pub pace: Option<Pace>,
}

impl Default for FetchAll {
    fn default() -> Self {
        FetchAll {
            page_size: 100,
            concurrency: 8,
            progress: None,
            max_rows: None,
            pace: None,
        }
    }
}

/// The most rows a picker or switcher takes from a list (members to assign,
/// organizations, projects, dashboards, insights): it shows the first ones
/// and searches on the server, or says that there are more.
pub const PICKER_ROWS: usize = 5_000;

/// The least of the answer limit a page of a whole list gets.
const MIN_PAGE_ANSWER: u64 = 1024 * 1024;

/// Times a list read whole is read when it changes under each read; then
/// it is refused.
const CONSISTENT_TRIES: usize = 3;

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

/// How the pages after the first are asked for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Order {
    /// Ahead by offset while they come full, a few at once.
    Ahead,
    /// By the server's `next` link alone, one after another.
    ByNext,
}

impl Client {
    /// The page of `limit` rows at `offset`.
    pub async fn page<T: Row>(&self, list: &List<T>, limit: u64, offset: u64) -> Result<Page<T>> {
        if offset == 0 && list.unpaged_on_500 {
            let (answer, _) = self
                .first_page(
                    list,
                    limit,
                    |url| self.get_raw(url),
                    |answer| answer.as_ref().err().and_then(Error::status),
                )
                .await;
            return answer?.decode();
        }
        self.call(Method::GET, self.page_url(list, limit, offset), None::<&()>)
            .await
    }

    /// The first page of a list through `get`, and whether it was asked
    /// without `limit` and `offset`: a list an older PostHog answers 500
    /// with them (its role lists) is asked again without them, and from
    /// then on asked that way (the client notes it, once). Its later pages
    /// are then reached by its `next` links alone.
    async fn first_page<T, A, F: Future<Output = A>>(
        &self,
        list: &List<T>,
        size: u64,
        get: impl Fn(url::Url) -> F,
        status: impl Fn(&A) -> Option<u16>,
    ) -> (A, bool) {
        let unpaged = || {
            let mut url = self.url(&list.segments.iter().map(String::as_str).collect::<Vec<_>>());
            url.query_pairs_mut().extend_pairs(&list.query);
            url
        };
        if list.unpaged_on_500 && self.older().roles_unpaged() {
            return (get(unpaged()).await, true);
        }
        let answer = get(self.page_url(list, size, 0)).await;
        if list.unpaged_on_500 && status(&answer) == Some(500) {
            let answer = get(unpaged()).await;
            self.older().found_roles_unpaged(&list.path());
            return (answer, true);
        }
        (answer, false)
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

    /// Every row, in the server's order, each once, as many as its count
    /// said: the list read whole, its pages asked for ahead a few at a
    /// time. Held against the command's budget ([`Client::with_holding`]).
    /// A list that changes while it is read is read again, and refused
    /// after a few reads that each saw it change.
    pub async fn all<T: Row>(&self, list: &List<T>, options: &FetchAll) -> Result<Whole<T>> {
        self.gather_in(list, options, Order::Ahead, Ok::<_, Error>, as_served)
            .await
    }

    /// The same as [`Client::all`], following `next` alone, one page after
    /// another (what a server that links but cannot be paged by offset
    /// needs, and a check of the concurrent read).
    pub async fn all_by_next<T: Row>(&self, list: &List<T>, page_size: u64) -> Result<Whole<T>> {
        let options = FetchAll {
            page_size,
            concurrency: 1,
            ..FetchAll::default()
        };
        self.gather_in(list, &options, Order::ByNext, Ok::<_, Error>, as_served)
            .await
    }

    /// What `each_page` keeps of every page of a list read whole: the
    /// rows it gives back are held (against the command's budget, each as
    /// what it holds, [`Kept`]: the server's objects they were made from
    /// are let go as each page is read). The list is checked as
    /// [`Client::all`] checks it; an error of `each_page` ends the read.
    pub async fn gather<T: Row, U: Kept, E: From<Error>>(
        &self,
        list: &List<T>,
        options: &FetchAll,
        each_page: impl FnMut(Vec<T>) -> std::result::Result<Vec<U>, E>,
    ) -> std::result::Result<Whole<U>, E> {
        self.gather_in(list, options, Order::Ahead, each_page, |rows: &[U], _, _| {
            rows.iter().map(Kept::held_bytes).fold(0, u64::saturating_add)
        })
        .await
    }

    /// `charge` says what the rows kept of a page cost, given the page's
    /// rows and bytes.
    async fn gather_in<T: Row, U, E: From<Error>>(
        &self,
        list: &List<T>,
        options: &FetchAll,
        order: Order,
        mut each_page: impl FnMut(Vec<T>) -> std::result::Result<Vec<U>, E>,
        charge: impl Fn(&[U], usize, u64) -> u64,
    ) -> std::result::Result<Whole<U>, E> {
        let holding = self.holding();
        let mut read = 0;
        loop {
            read += 1;
            let mut kept: Vec<U> = Vec::new();
            let mut taken = 0u64;
            let walked = self
                .read(
                    list,
                    options,
                    order,
                    &holding,
                    Some(std::mem::size_of::<T>() as u64),
                    |rows: Vec<T>, bytes| {
                        let page_rows = rows.len();
                        let rows = each_page(rows)?;
                        let cost = charge(&rows, page_rows, bytes);
                        if !holding.take(cost) {
                            return Err(Error::TooMuchHeld {
                                request: RequestLabel {
                                    method: "GET".into(),
                                    path: list.path(),
                                },
                                limit: holding.limit(),
                                rows: (kept.len() + rows.len()) as u64,
                            }
                            .into());
                        }
                        taken += cost;
                        kept.extend(rows);
                        Ok(())
                    },
                )
                .await;
            let verdict = match walked {
                Ok(walk) => walk.verdict(read),
                Err(error) => {
                    holding.give_back(taken);
                    return Err(error);
                }
            };
            match verdict {
                Ok(_) => return Ok(Whole::checked(kept)),
                Err(Error::Incomplete(incomplete))
                    if incomplete.changed_to.is_some() && read < CONSISTENT_TRIES =>
                {
                    holding.give_back(taken);
                    tracing::info!(
                        list = list.name(),
                        read,
                        "the list changed while it was read; reading it again"
                    );
                }
                Err(error) => {
                    holding.give_back(taken);
                    tracing::warn!(list = list.name(), "{error}");
                    return Err(error.into());
                }
            }
        }
    }

    /// The first `most` rows of a list, each once, and whether it holds
    /// more: what a picker shows before the user types to search. A list
    /// that ends short of its count, or repeats rows, gives what it sent
    /// with `true`: a picker says there may be more, and acts on no list.
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
            Ok(_) | Err(Taken::Enough) => {}
            // The cap of `most` is the picker's; a longer list is not a failure.
            Err(Taken::Failed(Error::TooManyRows { .. } | Error::Incomplete(_))) => more = true,
            Err(Taken::Failed(error)) => return Err(error),
        }
        Ok((rows, more))
    }

    /// Every row in the server's order, each once, handed to `sink` as
    /// each page's turn comes, in runs of at most [`RUN`] rows (a run per
    /// call, so a call is not a page: count requests with
    /// [`FetchAll::pace`]), and nothing kept: at most
    /// `concurrency` pages are in flight or held at once, as bytes (one page
    /// is decoded at a time), and they share the answer limit between them,
    /// so memory stays flat however long the list or large its pages.
    ///
    /// At the end the list is judged: one that ended before its count,
    /// repeated rows (each handed over once) or changed while it was read
    /// ends with [`Error::Incomplete`], its rows handed over all the same.
    pub async fn for_each_page<T: Row, E: From<Error>>(
        &self,
        list: &List<T>,
        options: &FetchAll,
        mut sink: impl FnMut(Vec<T>) -> std::result::Result<(), E>,
    ) -> std::result::Result<Complete, E> {
        let walk = self
            .read(list, options, Order::Ahead, &self.holding(), None, |rows, _| {
                sink(rows)
            })
            .await?;
        Ok(walk.verdict(1)?)
    }

    /// Reads a list to its end, handing each page's new rows to `sink` with
    /// the page's size in bytes, and gives the walk to be judged. Each page
    /// waits for room in `holding` before it is asked for, and gives it
    /// back once read. With `hold` (the size of a row once read), rows are
    /// counted into `holding` as each is decoded, and out again as the page
    /// is handed over (where the sink counts in what it keeps): a page
    /// stops at the row that would take it past its limit.
    ///
    /// While pages come full they are asked for ahead by offset (with
    /// [`Order::Ahead`]); the first page without `next` ends the list. A
    /// page shorter than asked that links onward (a server that caps
    /// `limit`) is followed by its `next` link from there on, never taken
    /// as the end. Nothing is sized from `count`; past the row cap, on a
    /// link that repeats, on an empty page that links onward, or on more
    /// rows or pages than the count allows, the read stops with an error.
    /// Repeated rows are dropped and counted.
    async fn read<T: Row, E: From<Error>>(
        &self,
        list: &List<T>,
        options: &FetchAll,
        order: Order,
        holding: &Holding,
        hold: Option<u64>,
        mut sink: impl FnMut(Vec<T>, u64) -> std::result::Result<(), E>,
    ) -> std::result::Result<Walk, E> {
        use futures_util::StreamExt;
        let size = options.page_size.max(1);
        let cap = options
            .max_rows
            .map_or(self.max_rows(), |most| most.min(self.max_rows()));
        let concurrency = options.concurrency.max(1);
        let pager = self.pager(concurrency);
        let whole = self.max_answer();
        let pace = options.pace.clone();
        let get = |url: url::Url| {
            let (pager, pace) = (&pager, pace.clone());
            async move {
                let room = holding.room_for(pager.max_answer()).await;
                if let Some(pace) = pace {
                    pace().await;
                }
                (pager.get_raw_without(url, list.cut).await, room)
            }
        };
        let mut walk = Walk::new(list, size, cap);
        let mut take = |answer: (Result<Raw>, whole::Room), walk: &mut Walk| {
            let bytes = answer.0.as_ref().map_or(0, Raw::size);
            take_page(answer, whole, holding, hold, walk, &mut sink).map(|head| (head, bytes))
        };
        let (answer, unpaged) = pager
            .first_page(list, size, &get, |(answer, _)| {
                answer.as_ref().err().and_then(Error::status)
            })
            .await;
        let (first, first_bytes) = take(answer, &mut walk)?;
        let count = walk.seen.count;
        let progress = options.progress.clone();
        let report = |walk: &Walk| {
            if let Some(progress) = &progress {
                progress(walk.seen.rows.min(count), count);
            }
        };
        report(&walk);
        let mut next = first.next;
        // Asked without `limit`, a list's later pages are its `next` links'.
        if next.is_some() && first.rows >= size && order == Order::Ahead && !unpaged {
            let most_pages = (count / size).saturating_add(2);
            // Pages wait their turn as bytes; each is decoded as it is handed
            // over, and as many are asked ahead as fit the largest yet.
            let mut largest = first_bytes;
            let mut asked = futures_util::stream::FuturesOrdered::new();
            let mut index = 1;
            loop {
                while asked.len() < pages_ahead(concurrency, largest) && index < most_pages {
                    asked.push_back(get(pager.page_url(list, size, index.saturating_mul(size))));
                    index += 1;
                }
                let Some(page) = asked.next().await else {
                    // Every page the count allows came full and linked onward.
                    return Err(walk
                        .error(format!(
                            "the server sent more pages than its count of {count} allows"
                        ))
                        .into());
                };
                let (head, bytes) = take(page, &mut walk)?;
                largest = largest.max(bytes);
                report(&walk);
                next = head.next;
                if next.is_none() || head.rows < size {
                    break;
                }
            }
        }
        // A short page that links onward: its link decides what comes next.
        while let Some(link) = next {
            let url = pager.rebase(&link)?;
            walk.follow(url.as_str())?;
            next = take(get(url).await, &mut walk)?.0.next;
            report(&walk);
        }
        Ok(walk)
    }
}

/// What rows kept as the server's objects cost: their share of the page's
/// JSON and their size.
fn as_served<U>(rows: &[U], page_rows: usize, bytes: u64) -> u64 {
    whole::cost(rows.len(), page_rows, bytes, std::mem::size_of::<U>())
}

/// The bytes of pages a read asks for ahead of the one it decodes: pages
/// of an ordinary size go `concurrency` at a time, but pages as large as a
/// server may make them go two at a time, so that a list of huge pages
/// costs a few pages of memory, not `concurrency` of them on top of what
/// the command holds (their room, `--max-answer-mib`, still bounds a
/// server whose first page was small).
const AHEAD_BYTES: u64 = 16 * 1024 * 1024;

/// How many pages a read asks for ahead, given the largest page it has
/// read yet: as many as fit in [`AHEAD_BYTES`], at least one, at most
/// `concurrency`.
fn pages_ahead(concurrency: usize, largest: u64) -> usize {
    usize::try_from(AHEAD_BYTES / largest.max(1))
        .unwrap_or(usize::MAX)
        .clamp(1, concurrency)
}

/// Rows a streamed read hands on at once from a page larger than this:
/// what it holds of a page as large as a server could make it.
const RUN: usize = 500;

/// Takes one page as it is decoded, a row at a time: each row let in by
/// the walk (the cap, repeats), then the page's end told to it. Its room
/// is given back once it is read; a page refused for its size is told as
/// the share of the answer limit it exceeded where that was less than the
/// whole.
///
/// Without `hold` (a streamed read) rows go on to `sink` in runs of
/// [`RUN`] as they are read, the last with the page's size in bytes. With
/// `hold` (the size of a row once read), each row is counted into
/// `holding` as it is read, the page stops at the row that would take it
/// past its limit, and its rows go to `sink` once the page's end passed
/// the walk's limits; they are counted out again as `sink` counts in what
/// it keeps.
fn take_page<T: Row, E: From<Error>>(
    (answer, room): (Result<Raw>, whole::Room),
    whole: u64,
    holding: &Holding,
    hold: Option<u64>,
    walk: &mut Walk,
    sink: &mut impl FnMut(Vec<T>, u64) -> std::result::Result<(), E>,
) -> std::result::Result<Head, E> {
    let _room = room;
    let raw = answer.map_err(|error| match error {
        Error::TooLarge { request, limit } if limit < whole => Error::PageTooLarge {
            request,
            limit,
            whole,
        },
        error => error,
    })?;
    let run = if hold.is_some() { usize::MAX } else { RUN };
    let mut rows: Vec<T> = Vec::new();
    let mut counted = 0u64;
    let mut failed: Option<E> = None;
    let decoded = {
        let mut each = |row: T| {
            let outcome = walk.admit(row).map_err(E::from).and_then(|admitted| {
                let Some(row) = admitted else {
                    return Ok(());
                };
                if let Some(size) = hold {
                    if !holding.take(size) {
                        return Err(Error::TooMuchHeld {
                            request: walk.request.clone(),
                            limit: holding.limit(),
                            rows: walk.seen.rows,
                        }
                        .into());
                    }
                    counted += size;
                }
                rows.push(row);
                if rows.len() >= run {
                    sink(std::mem::take(&mut rows), 0)?;
                }
                Ok(())
            });
            match outcome {
                Ok(()) => true,
                Err(error) => {
                    failed = Some(error);
                    false
                }
            }
        };
        raw.decode_seed(&mut page::Rows::new(&mut each))
    };
    // Counted out as the sink counts in what it keeps.
    holding.give_back(counted);
    if let Some(error) = failed {
        return Err(error);
    }
    let head = decoded?;
    walk.end_page(&head)?;
    sink(rows, raw.size())?;
    Ok(head)
}

#[cfg(test)]
mod tests {
    use super::pages_ahead;

    #[test]
    fn pages_of_an_ordinary_size_go_all_at_once_and_huge_ones_two_at_a_time() {
        assert_eq!(pages_ahead(8, 200 * 1024), 8);
        assert_eq!(pages_ahead(8, 2 * 1024 * 1024), 8);
        assert_eq!(pages_ahead(8, 5 * 1024 * 1024), 3);
        assert_eq!(pages_ahead(8, 15 << 19), 2);
        assert_eq!(pages_ahead(8, 64 * 1024 * 1024), 1);
        assert_eq!(pages_ahead(1, 0), 1);
    }
}
