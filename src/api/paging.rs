//! Lists and their pages: any page by offset (what the console's virtual
//! tables need), following `next`, and the whole list fetched with bounded
//! concurrency once `count` is known.

use std::collections::HashSet;
use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

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
    rows: PhantomData<fn() -> T>,
}

// By hand: a derive would ask the rows to be `Clone` too.
impl<T> Clone for List<T> {
    fn clone(&self) -> Self {
        List {
            segments: self.segments.clone(),
            query: self.query.clone(),
            rows: PhantomData,
        }
    }
}

impl<T> List<T> {
    fn new(segments: &[&str]) -> Self {
        List {
            segments: segments.iter().map(|segment| segment.to_string()).collect(),
            query: Vec::new(),
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
        List::new(&["api", "organizations", organization, "roles"])
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
}

impl Default for FetchAll {
    fn default() -> Self {
        FetchAll {
            page_size: 100,
            concurrency: 8,
            progress: None,
        }
    }
}

/// Times the whole fetch starts again when the list changes under it.
const CONSISTENT_TRIES: usize = 3;

impl Client {
    /// The page of `limit` rows at `offset`.
    pub async fn page<T: Row>(&self, list: &List<T>, limit: u64, offset: u64) -> Result<Page<T>> {
        let mut url = self.url(&list.segments.iter().map(String::as_str).collect::<Vec<_>>());
        url.query_pairs_mut()
            .extend_pairs(&list.query)
            .append_pair("limit", &limit.to_string())
            .append_pair("offset", &offset.to_string());
        self.call(Method::GET, url, None::<&()>).await
    }

    /// Every row, one page at a time, following `next`. A server whose
    /// links go round in a circle, or that sends more than its count said,
    /// is stopped with an error rather than followed for ever.
    pub async fn all_by_next<T: Row>(&self, list: &List<T>, page_size: u64) -> Result<Vec<T>> {
        let first = self.page(list, page_size, 0).await?;
        let mut walk = Walk::new(list, page_size, first.count);
        let mut rows = Vec::new();
        walk.received(first.results.len())?;
        rows.extend(first.results);
        let mut next = first.next;
        while let Some(link) = next {
            let url = self.rebase(&link)?;
            walk.follow(url.as_str())?;
            let page: Page<T> = self.call(Method::GET, url, None::<&()>).await?;
            walk.received(page.results.len())?;
            rows.extend(page.results);
            next = page.next;
        }
        Ok(dedupe(rows))
    }

    /// Every row, in the server's order: the first page gives `count`, the
    /// rest are fetched `concurrency` at a time. When the list changes
    /// during the fetch (a page reports another count), the fetch starts
    /// again, and after a few tries falls back to following `next`; rows
    /// are never repeated.
    pub async fn all<T: Row>(&self, list: &List<T>, options: &FetchAll) -> Result<Vec<T>> {
        for _ in 0..CONSISTENT_TRIES {
            if let Some(rows) = self.all_once(list, options).await? {
                return Ok(rows);
            }
            tracing::info!(
                list = list.name(),
                "the list changed while it was fetched; fetching again"
            );
        }
        self.all_by_next(list, options.page_size).await
    }

    /// One concurrent fetch; `None` when the count moved meanwhile.
    ///
    /// Nothing is sized from `count`, which the server may invent: workers
    /// take page numbers one at a time and stop at the first page that ends
    /// the list (no `next`, or fewer rows than asked), so the pages fetched
    /// are those that exist, plus at most one per worker.
    async fn all_once<T: Row>(&self, list: &List<T>, options: &FetchAll) -> Result<Option<Vec<T>>> {
        let size = options.page_size.max(1);
        let first = self.page(list, size, 0).await?;
        let count = first.count;
        let report = |fetched: u64| {
            if let Some(progress) = &options.progress {
                progress(fetched.min(count), count);
            }
        };
        report(first.results.len() as u64);
        if first.next.is_none() || (first.results.len() as u64) < size {
            return Ok(Some(dedupe(first.results)));
        }
        let pages_said = count.div_ceil(size);
        let shared = Arc::new(Shared {
            next_page: AtomicU64::new(1),
            end: AtomicU64::new(pages_said.max(1)),
            fetched: AtomicU64::new(first.results.len() as u64),
        });
        let mut workers = tokio::task::JoinSet::new();
        let workers_wanted = (options.concurrency.max(1) as u64)
            .min(pages_said.saturating_sub(1))
            .max(1);
        for _ in 0..workers_wanted {
            let (client, list, shared) = (self.clone(), list.clone(), shared.clone());
            let progress = options.progress.clone();
            workers.spawn(async move {
                let mut pages = Vec::new();
                loop {
                    let index = shared.next_page.fetch_add(1, Ordering::Relaxed);
                    if index >= shared.end.load(Ordering::Relaxed) {
                        return Ok::<_, Error>(pages);
                    }
                    let page = client.page(&list, size, index.saturating_mul(size)).await?;
                    let rows = page.results.len() as u64;
                    if page.next.is_none() || rows < size {
                        // The list ends here, whatever `count` said.
                        shared.end.fetch_min(index + 1, Ordering::Relaxed);
                    }
                    let total = shared.fetched.fetch_add(rows, Ordering::Relaxed) + rows;
                    if let Some(progress) = &progress {
                        progress(total.min(page.count), page.count);
                    }
                    pages.push((index, page));
                }
            });
        }
        let mut pages: Vec<(u64, Page<T>)> = Vec::new();
        while let Some(joined) = workers.join_next().await {
            let worker_pages =
                joined.map_err(|error| Error::Invalid(format!("a page fetch failed: {error}")))??;
            pages.extend(worker_pages);
        }
        let end = shared.end.load(Ordering::Relaxed);
        pages.retain(|(index, _)| *index < end);
        if pages.iter().any(|(_, page)| page.count != count) {
            return Ok(None);
        }
        pages.sort_by_key(|(index, _)| *index);
        let mut rows = first.results;
        rows.extend(pages.into_iter().flat_map(|(_, page)| page.results));
        if rows.len() as u64 != count {
            return Ok(None);
        }
        Ok(Some(dedupe(rows)))
    }
}

/// What a streamed fetch saw, beyond the rows it handed over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Streamed {
    pub rows: u64,
    /// A page reported another count than the first: the list changed while
    /// it was read, so rows may be missing (repeats were dropped).
    pub changed: bool,
}

impl Client {
    /// Every row in the server's order, handed to `sink` a page at a time
    /// as each page's turn comes: at most `concurrency` pages are in flight
    /// or held at once, so memory stays flat however long the list. Pages
    /// are asked for ahead by offset and stop at the first that ends the
    /// list; nothing is sized from `count`, and a list that sends more
    /// pages than its count allows is stopped with an error.
    pub async fn for_each_page<T: Row, E: From<Error>>(
        &self,
        list: &List<T>,
        options: &FetchAll,
        mut sink: impl FnMut(Vec<T>) -> std::result::Result<(), E>,
    ) -> std::result::Result<Streamed, E> {
        use futures_util::StreamExt;
        let size = options.page_size.max(1);
        let first = self.page(list, size, 0).await?;
        let count = first.count;
        let mut walk = Walk::new(list, size, count);
        let mut seen = HashSet::new();
        let mut streamed = Streamed {
            rows: 0,
            changed: false,
        };
        let report = |rows: u64| {
            if let Some(progress) = &options.progress {
                progress(rows.min(count), count);
            }
        };
        let mut hand_over =
            |page: Page<T>, walk: &mut Walk, streamed: &mut Streamed| -> std::result::Result<bool, E> {
                walk.received(page.results.len())?;
                streamed.changed |= page.count != count;
                let ends = page.next.is_none() || (page.results.len() as u64) < size;
                let rows: Vec<T> = page
                    .results
                    .into_iter()
                    .filter(|row| seen.insert(row.row_id()))
                    .collect();
                streamed.rows += rows.len() as u64;
                sink(rows)?;
                report(streamed.rows);
                Ok(ends)
            };
        if hand_over(first, &mut walk, &mut streamed)? {
            return Ok(streamed);
        }
        let most_pages = (count / size).saturating_add(2);
        let mut pages = futures_util::stream::iter(1..most_pages)
            .map(|index| self.page(list, size, index.saturating_mul(size)))
            .buffered(options.concurrency.max(1));
        while let Some(page) = pages.next().await {
            if hand_over(page?, &mut walk, &mut streamed)? {
                return Ok(streamed);
            }
        }
        // Every page the count allows came full and linked onward.
        Err(walk
            .error(format!(
                "the server sent more pages than its count of {count} allows"
            ))
            .into())
    }
}

/// What the workers of one concurrent fetch share.
struct Shared {
    /// The next page number to fetch.
    next_page: AtomicU64,
    /// One past the last page: `count` said so at first, and the first page
    /// that ends the list lowers it.
    end: AtomicU64,
    /// Rows received so far, for progress.
    fetched: AtomicU64,
}

/// The limits of one walk along `next` links: no URL twice, no more rows
/// than `count` said by more than a page, no more than `count/limit + 2`
/// pages. A server that lies about any of them is stopped.
struct Walk {
    request: super::error::RequestLabel,
    seen: HashSet<String>,
    page_size: u64,
    first_count: u64,
    rows: u64,
    pages: u64,
}

impl Walk {
    fn new<T>(list: &List<T>, page_size: u64, count: u64) -> Walk {
        Walk {
            request: super::error::RequestLabel {
                method: "GET".into(),
                path: list.path(),
            },
            seen: HashSet::new(),
            page_size: page_size.max(1),
            first_count: count,
            rows: 0,
            pages: 0,
        }
    }

    fn follow(&mut self, url: &str) -> Result<()> {
        if !self.seen.insert(url.to_string()) {
            return self.stop(format!(
                "the server's next link repeats a page already fetched ({})",
                crate::text::printable(url)
            ));
        }
        Ok(())
    }

    /// Counts a page in. The first page's count is the one held to: a
    /// count that grows as pages arrive must not stretch the limits.
    fn received(&mut self, rows: usize) -> Result<()> {
        self.pages += 1;
        self.rows = self.rows.saturating_add(rows as u64);
        let count = self.first_count;
        if self.rows > count.saturating_add(self.page_size) {
            return self.stop(format!(
                "the server sent {} rows where its count said {count}",
                self.rows
            ));
        }
        let most_pages = (count / self.page_size).saturating_add(2);
        if self.pages > most_pages {
            return self.stop(format!(
                "the server sent {} pages where its count of {count} allows {most_pages}",
                self.pages
            ));
        }
        Ok(())
    }

    fn stop(&self, reason: String) -> Result<()> {
        Err(self.error(reason))
    }

    fn error(&self, reason: String) -> Error {
        Error::EndlessList {
            request: self.request.clone(),
            reason,
        }
    }
}

/// Drops later repeats of a row, keeping the order.
fn dedupe<T: Row>(rows: Vec<T>) -> Vec<T> {
    let mut seen = HashSet::with_capacity(rows.len());
    rows.into_iter().filter(|row| seen.insert(row.row_id())).collect()
}
