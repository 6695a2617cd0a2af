//! A project's subscriptions, filtered, searched and ordered.
//!
//! Lists page with a deferred join: the page's ids are found from the
//! index of the list's order, starting from the nearest position a page
//! before left (`keyset`), and only those 100 rows are then read whole. A
//! walk of the whole list thus reads each index entry about once. A search
//! that finds few rows finds them through the trigram index
//! `subscription_search` (schema 4); one that finds many walks the list in
//! its order, checking each row.

use rusqlite::Connection;
use rusqlite::types::Value as SqlValue;

use super::Snapshot;
use super::keyset::{self, Listing, Term};
use super::subscriptions::{subscription_at, subscription_select};
use crate::api::{ResourceType, Subscription};
use crate::server::error::ApiResult;

/// The fields a list may be ordered by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    CreatedAt,
    NextDeliveryDate,
    Title,
    /// The creator's e-mail (`created_by__email`; today's PostHog only).
    CreatorEmail,
}

impl SortKey {
    /// The field's name in `?ordering=`.
    pub fn from_wire(name: &str) -> Option<SortKey> {
        Some(match name {
            "created_at" => SortKey::CreatedAt,
            "next_delivery_date" => SortKey::NextDeliveryDate,
            "title" => SortKey::Title,
            "created_by__email" => SortKey::CreatorEmail,
            _ => return None,
        })
    }

    /// `ORDER BY` terms. Nulls sort last ascending and first descending, as
    /// PostgreSQL sorts them; each ordering matches an index's expressions
    /// exactly (the creator's e-mail is kept on the row, schema 10).
    fn terms(self) -> &'static [&'static str] {
        match self {
            SortKey::CreatedAt => &["s.created_at"],
            SortKey::NextDeliveryDate => &["ifnull(s.next_delivery_date, '9999')"],
            SortKey::Title => &["(s.title IS NULL)", "s.title COLLATE NOCASE"],
            SortKey::CreatorEmail => &["(s.creator_email IS NULL)", "s.creator_email"],
        }
    }
}

/// One field of an ordering and its direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sort {
    pub key: SortKey,
    pub descending: bool,
}

/// How a list is filtered and ordered.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ListQuery {
    pub deleted: bool,
    pub insight: Option<i64>,
    pub dashboard: Option<i64>,
    pub target_type: Option<String>,
    /// The creator's user UUID.
    pub created_by: Option<String>,
    pub resource_type: Option<ResourceType>,
    /// Subscriptions of any of these insights.
    pub insights: Option<Vec<i64>>,
    /// Subscriptions of the insights on this dashboard's tiles.
    pub dashboard_tiles: Option<i64>,
    /// Terms that must each be found in some name (and, with
    /// `search_targets`, maybe in the target value instead).
    pub search: Vec<String>,
    pub search_targets: bool,
    /// Fields in order; empty means newest first.
    pub ordering: Vec<Sort>,
}

/// The shortest term the trigram index can look up; shorter ones are
/// checked on each row with `icontains` (Unicode case folding, as the
/// index folds case).
const TRIGRAM: usize = 3;

/// Django's `icontains ''` holds for any name that is not null.
const ANY_NAME: &str = "(s.title IS NOT NULL OR s.insight_id IS NOT NULL OR s.dashboard_id IS NOT NULL)";

/// A term as an FTS5 string: in double quotes, inner ones doubled.
fn fts_string(term: &str) -> String {
    format!("\"{}\"", term.replace('"', "\"\""))
}

impl ListQuery {
    /// The order's terms, the id last so that pages never overlap.
    fn terms(&self) -> Vec<Term> {
        let default = [Sort {
            key: SortKey::CreatedAt,
            descending: true,
        }];
        let ordering = if self.ordering.is_empty() {
            &default[..]
        } else {
            &self.ordering[..]
        };
        let mut terms: Vec<Term> = ordering
            .iter()
            .flat_map(|sort| {
                sort.key
                    .terms()
                    .iter()
                    .map(move |term| Term::new(*term, sort.descending))
            })
            .collect();
        terms.push(Term::new("s.id", ordering[0].descending));
        terms
    }

    /// The list as `plan` finds its rows.
    fn listing(&self, project_id: i64, plan: Plan) -> Listing {
        let (from_where, values) = self.filter_sql(project_id, plan);
        Listing {
            from_where,
            values,
            id: "s.id".into(),
            terms: self.terms(),
        }
    }

    /// Whether the trigram index can find the rows: today's search with a
    /// term of three characters or more.
    fn indexed(&self) -> bool {
        !self.search_targets && self.search.iter().any(|term| term.chars().count() >= TRIGRAM)
    }

    /// `FROM ... WHERE ...` and its parameters (`?1` is the project), the
    /// rows found as `plan` says.
    fn filter_sql(&self, project_id: i64, plan: Plan) -> (String, Vec<SqlValue>) {
        let mut filter = Filter {
            conditions: vec!["s.project_id = ?1".into(), "s.deleted = ?2".into()],
            values: vec![
                SqlValue::Integer(project_id),
                SqlValue::Integer(self.deleted.into()),
            ],
        };
        if let Some(insight) = self.insight {
            filter.add("s.insight_id = #", [SqlValue::Integer(insight)]);
        }
        if let Some(dashboard) = self.dashboard {
            filter.add("s.dashboard_id = #", [SqlValue::Integer(dashboard)]);
        }
        if let Some(insights) = &self.insights {
            // A list of integers always serialises.
            let list = serde_json::to_string(insights).unwrap_or_default();
            filter.add(
                "s.insight_id IN (SELECT value FROM json_each(#))",
                [SqlValue::Text(list)],
            );
        }
        if let Some(dashboard) = self.dashboard_tiles {
            filter.add(
                "s.insight_id IN (SELECT insight_id FROM dashboard_tiles WHERE dashboard_id = #)",
                [SqlValue::Integer(dashboard)],
            );
        }
        if let Some(target_type) = &self.target_type {
            filter.add("s.target_type = #", [SqlValue::Text(target_type.clone())]);
        }
        if let Some(uuid) = &self.created_by {
            filter.add(
                "s.created_by = (SELECT id FROM users WHERE uuid = #)",
                [SqlValue::Text(uuid.clone())],
            );
        }
        // As the row's resource_type is derived: insight, then dashboard.
        match self.resource_type {
            Some(ResourceType::Insight) => filter.add("s.insight_id IS NOT NULL", []),
            Some(ResourceType::Dashboard) => {
                filter.add("s.insight_id IS NULL AND s.dashboard_id IS NOT NULL", []);
            }
            Some(ResourceType::AiPrompt) => filter.add("s.insight_id IS NULL AND s.dashboard_id IS NULL", []),
            Some(ResourceType::Other(_)) | None => {}
        }
        let from = match plan {
            Plan::Index if self.indexed() => {
                self.indexed_search(&mut filter);
                "FROM subscription_search CROSS JOIN subscriptions s ON s.id = subscription_search.rowid"
            }
            _ => {
                self.scanned_search(&mut filter);
                "FROM subscriptions s"
            }
        };
        (
            format!("{from} WHERE {}", filter.conditions.join(" AND ")),
            filter.values,
        )
    }

    /// Found through the index: the long terms in one `MATCH` (each in some
    /// name), the short ones checked on the rows it finds.
    fn indexed_search(&self, filter: &mut Filter) {
        let (long, short): (Vec<&String>, Vec<&String>) = self
            .search
            .iter()
            .partition(|term| term.chars().count() >= TRIGRAM);
        let expression = long
            .iter()
            .map(|term| fts_string(term))
            .collect::<Vec<_>>()
            .join(" AND ");
        filter.add("subscription_search MATCH #", [SqlValue::Text(expression)]);
        add_terms(filter, "subscription_search.names", &short);
    }

    /// Found row by row, in the order of the list: every term in the row's
    /// names in one call (in the older flavor, each in its names or its
    /// target value). The names are read from the index's own copy of them
    /// (FTS5's `_content` table, a plain table keyed by the row's id), a
    /// B-tree lookup rather than a trip through the full-text module.
    fn scanned_search(&self, filter: &mut Filter) {
        const NAMES: &str = "(SELECT c0 FROM subscription_search_content WHERE id = s.id)";
        if !self.search_targets {
            add_terms(filter, NAMES, &self.search.iter().collect::<Vec<_>>());
            return;
        }
        for term in &self.search {
            if term.is_empty() {
                filter.add(ANY_NAME, []);
                continue;
            }
            let term = SqlValue::Text(term.clone());
            filter.add(
                &format!("(icontains({NAMES}, #) OR icontains(s.target_value, #))"),
                [term.clone(), term],
            );
        }
    }
}

/// Each of `terms` in `names` (an SQL expression): one `holds_all` for the
/// lot, and Django's "any name" for an empty term.
fn add_terms(filter: &mut Filter, names: &str, terms: &[&String]) {
    if terms.iter().any(|term| term.is_empty()) {
        filter.add(ANY_NAME, []);
    }
    let terms: Vec<&String> = terms.iter().copied().filter(|term| !term.is_empty()).collect();
    if terms.is_empty() {
        return;
    }
    // A list of strings always serialises.
    let json = serde_json::to_string(&terms).unwrap_or_default();
    filter.add(&format!("holds_all({names}, #)"), [SqlValue::Text(json)]);
}

/// How a search finds its rows. Through the trigram index is fastest when
/// few rows match; when many do, walking the list in its order and checking
/// each row finds a page after a few hundred rows, where sorting every
/// match first would read them all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Plan {
    Index,
    Scan,
}

/// Matches up to this many are sorted from the index; more are found by
/// walking the list.
const FEW_MATCHES: u64 = 2_000;

/// A `WHERE` clause's conditions and the values they bind.
struct Filter {
    conditions: Vec<String>,
    values: Vec<SqlValue>,
}

impl Filter {
    /// Adds a condition, each `#` in it taking the next of `values`.
    fn add(&mut self, condition: &str, values: impl IntoIterator<Item = SqlValue>) {
        let mut sql = String::new();
        let mut parts = condition.split('#');
        sql.push_str(parts.next().unwrap_or_default());
        for (part, value) in parts.zip(values) {
            self.values.push(value);
            sql.push_str(&format!("?{}", self.values.len()));
            sql.push_str(part);
        }
        self.conditions.push(sql);
    }
}

/// One page of a project's subscriptions and the count of all that match.
pub fn list(
    snapshot: &Snapshot,
    connection: &Connection,
    project_id: i64,
    query: &ListQuery,
    page: (u64, u64),
) -> ApiResult<(u64, Vec<Subscription>)> {
    let (count, ids) = page_ids(snapshot, connection, project_id, query, page)?;
    Ok((count, rows_by_id(connection, project_id, &ids)?))
}

/// The ids of one page in the list's order, and the count of all that
/// match. A page too long to read whole has its rows read a chunk at a
/// time ([`rows_by_id`]).
pub fn page_ids(
    snapshot: &Snapshot,
    connection: &Connection,
    project_id: i64,
    query: &ListQuery,
    page: (u64, u64),
) -> ApiResult<(u64, Vec<i64>)> {
    let (count, plan) = count_for(snapshot, connection, project_id, query, page.1)?;
    let Some(plan) = plan else {
        return Ok((count, Vec::new()));
    };
    let ids = keyset::page(
        snapshot,
        connection,
        &query.listing(project_id, plan),
        count,
        page,
    )?;
    Ok((count, ids))
}

/// The project's subscriptions of `ids`, in the order of `ids`; an id
/// gone since (deleted by a write in between) is left out.
pub fn rows_by_id(connection: &Connection, project_id: i64, ids: &[i64]) -> ApiResult<Vec<Subscription>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    // `+` keeps the project's indexes out: SQLite would otherwise walk
    // every subscription of the project checking each against the list,
    // where a lookup by id per row of the page is what is wanted.
    let sql = format!(
        "{} WHERE +s.project_id = ?1 AND s.id IN (SELECT value FROM json_each(?2))",
        subscription_select()
    );
    // Looked up in the table's order, whatever the list's: rows near each
    // other share the pages read.
    let mut ascending = ids.to_vec();
    ascending.sort_unstable();
    let list = serde_json::to_string(&ascending).map_err(crate::server::error::ApiError::internal)?;
    let mut statement = connection.prepare_cached(&sql)?;
    let mut found: std::collections::HashMap<i64, Subscription> = statement
        .query_map(rusqlite::params![project_id, list], subscription_at)?
        .map(|row| row.map(|row| (row.id, row)))
        .collect::<Result<_, _>>()?;
    Ok(ids.iter().filter_map(|id| found.remove(id)).collect())
}

/// The count of the rows that match, remembered for the generation.
fn count_only(
    snapshot: &Snapshot,
    connection: &Connection,
    project_id: i64,
    query: &ListQuery,
) -> ApiResult<u64> {
    let (from_where, values) = query.filter_sql(project_id, Plan::Index);
    snapshot.count(connection, &from_where, &values)
}

/// The count, and how the page's rows are best found: `None` when the
/// page starts past the end.
fn count_for(
    snapshot: &Snapshot,
    connection: &Connection,
    project_id: i64,
    query: &ListQuery,
    offset: u64,
) -> ApiResult<(u64, Option<Plan>)> {
    let count = count_only(snapshot, connection, project_id, query)?;
    let plan = if offset >= count {
        None
    } else if count <= FEW_MATCHES {
        Some(Plan::Index)
    } else {
        Some(Plan::Scan)
    };
    Ok((count, plan))
}
