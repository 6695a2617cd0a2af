//! Pages of an ordered list by offset, found from remembered positions.
//!
//! PostHog pages by offset, and SQLite finds the row at offset k by
//! stepping over the k before it: walked page by page, a list of n rows
//! costs n²/2 steps. Here every page read leaves marks: the sort key of
//! its first and last rows at their positions. A later page starts from the
//! nearest mark, through the index, and steps over only the rows between
//! the mark and the page: the page after the last one is read in as many
//! steps as it has rows. A page far from every mark is reached in hops of
//! [`HOP`] rows from the nearer end of the list, each hop leaving a mark,
//! so that the next page near it costs no more than a page near a mark.
//!
//! A mark is a fact about one generation of the data (`memory`): any
//! commit forgets every mark, and a page read after it is the page that
//! `OFFSET` over the table as it then is gives.
//!
//! "After a mark" is read as one statement per sort term, deepest first:
//! the rows equal to the mark on every term but the id and beyond it on
//! the id, then those equal on every term but the last two and beyond it
//! on the next to last, and so on. Each is a range of an index that matches
//! the order, however many rows tie on a term.

use std::collections::{BTreeMap, HashMap};

use rusqlite::types::{FromSql, Value as SqlValue, ValueRef};
use rusqlite::{Connection, params_from_iter};

use super::memory::Snapshot;
use super::rows::sql_int;
use crate::server::error::{ApiError, ApiResult};

/// Rows stepped over between two marks at most when a page far from every
/// mark is sought: each hop is one statement.
pub const HOP: u64 = 1_000;

/// Marks kept at most for one list; past it every other one is dropped.
const MARKS_PER_LIST: usize = 2_048;

/// Bytes of marks kept at most, for every list together.
const MARK_BYTES: usize = 16 * 1024 * 1024;

/// One term of an order: an SQL expression and its direction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    pub sql: String,
    pub descending: bool,
}

impl Term {
    pub fn ascending(sql: impl Into<String>) -> Term {
        Term {
            sql: sql.into(),
            descending: false,
        }
    }

    pub fn descending(sql: impl Into<String>) -> Term {
        Term {
            sql: sql.into(),
            descending: true,
        }
    }

    /// The term in the given direction: `descending` or not.
    pub fn new(sql: impl Into<String>, descending: bool) -> Term {
        Term {
            sql: sql.into(),
            descending,
        }
    }
}

/// The values of a row's sort terms.
pub type Key = Vec<SqlValue>;

/// An ordered list as SQL.
#[derive(Debug, Clone)]
pub struct Listing {
    /// `FROM ... WHERE ...`, its parameters `?1` to `?n`; nothing follows
    /// the `WHERE` clause's conditions (conditions are added with `AND`).
    pub from_where: String,
    /// The values of `?1` to `?n`.
    pub values: Vec<SqlValue>,
    /// The row's id, read for each row of a page.
    pub id: String,
    /// The order; the last term is unique to each row (the id), so that
    /// the order is total.
    pub terms: Vec<Term>,
}

/// Which way rows are read: in the list's order, or against it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Way {
    Forward,
    Backward,
}

impl Listing {
    /// What the marks of this list are remembered by: the rows it holds
    /// and their order.
    fn identity(&self) -> String {
        let terms: Vec<String> = self
            .terms
            .iter()
            .map(|term| format!("{} {}", term.sql, if term.descending { "DESC" } else { "ASC" }))
            .collect();
        format!(
            "{} {:?} ORDER BY {}",
            self.from_where,
            self.values,
            terms.join(", ")
        )
    }

    fn ascends(term: &Term, way: Way) -> bool {
        term.descending == (way == Way::Backward)
    }

    /// `ORDER BY` terms read `way`, from term `from` on: the terms before
    /// it are held equal by an arm's condition, and ordering by them too
    /// would hide from SQLite that the index already gives the order.
    fn order_by(&self, way: Way, from: usize) -> String {
        self.terms[from..]
            .iter()
            .map(|term| {
                let direction = if Self::ascends(term, way) { "ASC" } else { "DESC" };
                format!("{} {direction}", term.sql)
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The rows beyond a mark (bound from `?n+1`) that tie with it on the
    /// first `arm - 1` terms and lie beyond it on term `arm`.
    fn arm_condition(&self, way: Way, arm: usize) -> String {
        let first = self.values.len() + 1;
        (0..arm)
            .map(|index| {
                let term = &self.terms[index];
                let operator = if index + 1 < arm {
                    "IS"
                } else if Self::ascends(term, way) {
                    ">"
                } else {
                    "<"
                };
                format!("({}) {operator} ?{}", term.sql, first + index)
            })
            .collect::<Vec<_>>()
            .join(" AND ")
    }

    /// The id and sort key of `take` rows read `way`, `skip` rows
    /// stepped over first: of the whole list, or of one arm beyond `mark`.
    fn select<T: FromSql>(
        &self,
        connection: &Connection,
        way: Way,
        beyond: Option<(&Key, usize)>,
        skip: u64,
        take: u64,
    ) -> ApiResult<Vec<(T, Key)>> {
        let columns: Vec<&str> = std::iter::once(self.id.as_str())
            .chain(self.terms.iter().map(|term| term.sql.as_str()))
            .collect();
        let (condition, bound) = self.beyond(way, beyond);
        let limit = self.values.len() + bound.len() + 1;
        let sql = format!(
            "SELECT {} {}{condition} ORDER BY {} LIMIT ?{limit} OFFSET ?{}",
            columns.join(", "),
            self.from_where,
            self.order_by(way, beyond.map_or(0, |(_, arm)| arm - 1)),
            limit + 1
        );
        let parameters = self
            .values
            .iter()
            .chain(bound)
            .cloned()
            .chain([SqlValue::Integer(sql_int(take)), SqlValue::Integer(sql_int(skip))]);
        let terms = self.terms.len();
        let mut statement = connection.prepare_cached(&sql)?;
        let rows = statement
            .query_map(params_from_iter(parameters), |row| {
                let id = row.get(0)?;
                let key = (1..=terms)
                    .map(|index| row.get::<_, SqlValue>(index))
                    .collect::<rusqlite::Result<Key>>()?;
                Ok((id, key))
            })?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// How many rows one arm beyond `mark` holds, counting no further
    /// than `most`.
    fn count_arm(
        &self,
        connection: &Connection,
        way: Way,
        mark: &Key,
        arm: usize,
        most: u64,
    ) -> ApiResult<u64> {
        let (condition, bound) = self.beyond(way, Some((mark, arm)));
        let limit = self.values.len() + bound.len() + 1;
        let sql = format!(
            "SELECT count(*) FROM (SELECT 1 {}{condition} LIMIT ?{limit})",
            self.from_where
        );
        let parameters = self
            .values
            .iter()
            .chain(bound)
            .cloned()
            .chain([SqlValue::Integer(sql_int(most))]);
        let held: i64 = connection
            .prepare_cached(&sql)?
            .query_row(params_from_iter(parameters), |row| row.get(0))?;
        Ok(u64::try_from(held).unwrap_or(0))
    }

    /// The condition (`AND ...`) and bound values of one arm, or nothing.
    fn beyond<'k>(&self, way: Way, beyond: Option<(&'k Key, usize)>) -> (String, &'k [SqlValue]) {
        match beyond {
            Some((mark, arm)) => (
                format!(" AND {}", self.arm_condition(way, arm)),
                &mark[..arm.min(mark.len())],
            ),
            None => (String::new(), &[]),
        }
    }

    /// `take` rows read `way` from `from` (the whole list when `None`),
    /// `skip` rows stepped over first; each with its sort key.
    fn rows<T: FromSql>(
        &self,
        connection: &Connection,
        way: Way,
        from: Option<&Key>,
        mut skip: u64,
        take: u64,
    ) -> ApiResult<Vec<(T, Key)>> {
        let Some(mark) = from else {
            return self.select(connection, way, None, skip, take);
        };
        if mark.len() != self.terms.len() {
            return Err(ApiError::internal("a list mark of another shape"));
        }
        let mut found: Vec<(T, Key)> = Vec::new();
        // Deepest first: the rows that tie with the mark the longest come
        // next to it.
        for arm in (1..=self.terms.len()).rev() {
            let wanted = take.saturating_sub(found.len() as u64);
            if wanted == 0 {
                break;
            }
            let rows = self.select(connection, way, Some((mark, arm)), skip, wanted)?;
            if rows.is_empty() && skip > 0 && arm > 1 {
                // The arm ends before `skip`: how many it holds is taken
                // off what is left to skip. Only then counted, so that a
                // long arm's rows are stepped over once, not twice (the
                // outermost holds every row left: nothing after it).
                skip -= self.count_arm(connection, way, mark, arm, skip)?.min(skip);
                continue;
            }
            found.extend(rows);
            skip = 0;
        }
        Ok(found)
    }
}

/// Where a page is read from: a mark (or an end of the list) and a way.
struct Start {
    way: Way,
    /// The mark's position, `-1` before the first row or `count` after
    /// the last.
    position: i128,
    mark: Option<Key>,
    /// Rows between the start and the page.
    skip: u64,
}

/// The ids of the rows at `offset` to `offset + limit` (short of `count`)
/// of `listing`, in its order: what `LIMIT limit OFFSET offset` gives,
/// found from the marks `snapshot` remembers, and leaving marks for the
/// next page. `count` is the list's length in the data the connection
/// reads.
pub fn page<T: FromSql>(
    snapshot: &Snapshot,
    connection: &Connection,
    listing: &Listing,
    count: u64,
    page: (u64, u64),
) -> ApiResult<Vec<T>> {
    page_hopping(snapshot, connection, listing, count, page, HOP)
}

/// [`page`] with hops of `hop` rows (at least 2).
fn page_hopping<T: FromSql>(
    snapshot: &Snapshot,
    connection: &Connection,
    listing: &Listing,
    count: u64,
    (limit, offset): (u64, u64),
    hop: u64,
) -> ApiResult<Vec<T>> {
    let hop = hop.max(2);
    let end = offset.saturating_add(limit).min(count);
    if offset >= end {
        return Ok(Vec::new());
    }
    let identity = listing.identity();
    let near = snapshot
        .get(snapshot.positions(), |positions| {
            positions.near(&identity, offset, end)
        })
        .unwrap_or_default();
    let mut start = Start {
        way: Way::Forward,
        position: -1,
        mark: None,
        skip: offset,
    };
    let mut consider = |candidate: Start| {
        if candidate.skip < start.skip {
            start = candidate;
        }
    };
    if let Some((position, mark)) = near.before {
        consider(Start {
            way: Way::Forward,
            position: i128::from(position),
            mark: Some(mark),
            skip: offset - position - 1,
        });
    }
    consider(Start {
        way: Way::Backward,
        position: i128::from(count),
        mark: None,
        skip: count - end,
    });
    if let Some((position, mark)) = near.after {
        consider(Start {
            way: Way::Backward,
            position: i128::from(position),
            mark: Some(mark),
            skip: position - end,
        });
    }
    let mut marks: Vec<(u64, Key)> = Vec::new();
    let step = match start.way {
        Way::Forward => i128::from(hop),
        Way::Backward => -i128::from(hop),
    };
    while start.skip > hop {
        let found = listing.rows::<SqlValue>(connection, start.way, start.mark.as_ref(), hop - 1, 1)?;
        let Some((_, key)) = found.into_iter().next() else {
            break;
        };
        start.position += step;
        start.skip -= hop;
        if let Ok(position) = u64::try_from(start.position) {
            marks.push((position, key.clone()));
        }
        start.mark = Some(key);
    }
    let take = end - offset;
    let mut found = listing.rows::<T>(connection, start.way, start.mark.as_ref(), start.skip, take)?;
    if start.way == Way::Backward {
        found.reverse();
    }
    // A short page means the count was not of the data read: no mark.
    if found.len() as u64 == take {
        if let Some((_, key)) = found.first() {
            marks.push((offset, key.clone()));
        }
        if let Some((_, key)) = found.last() {
            marks.push((end - 1, key.clone()));
        }
    }
    if !marks.is_empty() {
        snapshot.keep(snapshot.positions(), |positions| {
            positions.remember(identity, marks)
        });
    }
    Ok(found.into_iter().map(|(id, _)| id).collect())
}

/// The marks nearest to a page: the last before its first row and the
/// first after its last.
#[derive(Default)]
struct Near {
    before: Option<(u64, Key)>,
    after: Option<(u64, Key)>,
}

/// Marks of every list read in one generation of the data.
#[derive(Default)]
pub struct Positions {
    lists: HashMap<String, BTreeMap<u64, Key>>,
    bytes: usize,
}

impl Positions {
    fn near(&self, identity: &str, offset: u64, end: u64) -> Near {
        let Some(marks) = self.lists.get(identity) else {
            return Near::default();
        };
        Near {
            before: marks
                .range(..offset)
                .next_back()
                .map(|(&position, key)| (position, key.clone())),
            after: marks
                .range(end..)
                .next()
                .map(|(&position, key)| (position, key.clone())),
        }
    }

    fn remember(&mut self, identity: String, found: Vec<(u64, Key)>) {
        let added: usize = found.iter().map(|(_, key)| key_bytes(key)).sum();
        if self.bytes + added > MARK_BYTES {
            self.lists.clear();
            self.bytes = 0;
        }
        let marks = self.lists.entry(identity).or_default();
        if marks.len() + found.len() > MARKS_PER_LIST {
            // Every other one, so that what is left still covers the list.
            let mut index = 0;
            marks.retain(|_, key| {
                index += 1;
                if index % 2 == 0 {
                    self.bytes = self.bytes.saturating_sub(key_bytes(key));
                }
                index % 2 == 1
            });
        }
        for (position, key) in found {
            self.bytes += key_bytes(&key);
            if let Some(replaced) = marks.insert(position, key) {
                self.bytes = self.bytes.saturating_sub(key_bytes(&replaced));
            }
        }
    }
}

/// About what a mark takes in memory.
fn key_bytes(key: &Key) -> usize {
    48 + key
        .iter()
        .map(|value| match ValueRef::from(value) {
            ValueRef::Text(bytes) | ValueRef::Blob(bytes) => 32 + bytes.len(),
            _ => 32,
        })
        .sum::<usize>()
}

#[cfg(test)]
#[path = "keyset_tests.rs"]
mod tests;
