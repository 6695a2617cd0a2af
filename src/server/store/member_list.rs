//! An organization's members, filtered, searched and paged (posthog.md §7).
//!
//! A page's rows are found from the memberships' index in the list's order,
//! starting from the nearest position a page before left (`keyset`), and
//! only they are then read with their users, by rowid in the table's order. A search of three
//! characters or more that finds few people finds them through the trigram
//! index `user_search` (schema 6) and sorts them; one that finds many walks
//! the list in its order and checks each person, so that a page of a broad
//! search costs what its rows cost, at any depth.

use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension};

use super::Snapshot;
use super::keyset::{self, Listing, Term};
use super::rows::{in_order_of, member_at, member_columns};
use crate::api::OrganizationMember;
use crate::server::error::ApiResult;

/// Which members a list shows, and in what order.
#[derive(Debug, Clone, Default)]
pub struct MemberQuery {
    /// Today's PostHog leaves out inactive users and its bots.
    pub people_only: bool,
    /// Exactly this e-mail address.
    pub email: Option<String>,
    /// Updated after this moment (a stored stamp).
    pub updated_after: Option<String>,
    /// First or last name or e-mail address containing this, any case.
    pub search: Option<String>,
    /// Newest first (today's default), else by joining time.
    pub newest_first: bool,
}

/// Search text this short is matched row by row; longer text through the
/// trigram index (`user_search`, schema 6) when it finds few.
const TRIGRAM: usize = 3;

/// How much more a person checked on the walk costs than one found
/// through the index and sorted (measured: about 1 µs against 0.27 µs).
const WALK_COST: u64 = 4;

/// How a search's people are found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Plan {
    /// Every list but an indexed search: walked in order from the index of
    /// the order, each row checked.
    Walk,
    /// Through the trigram index, every match sorted: when a page of
    /// matches costs less sorted than walked to.
    Index,
}

impl MemberQuery {
    fn indexed(&self) -> bool {
        self.search
            .as_ref()
            .is_some_and(|search| search.chars().count() >= TRIGRAM)
    }

    /// `FROM ... WHERE ...`, its values, and whether it reads the users.
    fn filter(&self, organization_id: &str, plan: Plan) -> (String, Vec<Value>) {
        let mut filter = String::from("WHERE m.organization_id = ?1");
        let mut values: Vec<Value> = vec![Value::Text(organization_id.to_string())];
        let mut reads_user = false;
        let mut bind = |condition: &str, bound: &[Value]| {
            let mut condition = condition.to_string();
            for value in bound {
                values.push(value.clone());
                condition = condition.replacen('#', &format!("?{}", values.len()), 1);
            }
            filter.push_str(&condition);
        };
        if self.people_only {
            // Through the index the few it finds come first (`+`: not
            // every person in order).
            let condition = if plan == Plan::Index {
                " AND +m.is_person = #"
            } else {
                " AND m.is_person = #"
            };
            bind(condition, &[Value::Integer(1)]);
        }
        if let Some(email) = &self.email {
            reads_user = true;
            bind(" AND mu.email = #", &[Value::Text(email.clone())]);
        }
        if let Some(after) = &self.updated_after {
            bind(" AND m.updated_at > #", &[Value::Text(after.clone())]);
        }
        match (&self.search, plan) {
            (Some(search), Plan::Index) => bind(
                // The phrase in FTS5's quotes: a substring of any of the three.
                " AND m.user_id IN (SELECT rowid FROM user_search WHERE user_search MATCH #)",
                &[Value::Text(format!("\"{}\"", search.replace('"', "\"\"")))],
            ),
            (Some(search), Plan::Walk) if self.indexed() => {
                reads_user = true;
                // What the trigram index finds: a substring in any case.
                let term = Value::Text(search.clone());
                bind(
                    " AND (icontains(mu.first_name, #) OR icontains(mu.last_name, #) OR icontains(mu.email, #))",
                    &[term.clone(), term.clone(), term],
                );
            }
            (Some(search), Plan::Walk) => {
                reads_user = true;
                let pattern = format!(
                    "%{}%",
                    search
                        .replace('\\', "\\\\")
                        .replace('%', "\\%")
                        .replace('_', "\\_")
                );
                let pattern = Value::Text(pattern);
                bind(
                    " AND (mu.first_name LIKE # ESCAPE '\\' OR mu.last_name LIKE # ESCAPE '\\' OR mu.email LIKE # ESCAPE '\\')",
                    &[pattern.clone(), pattern.clone(), pattern],
                );
            }
            (None, _) => {}
        }
        let from = if reads_user {
            "FROM organization_members m JOIN users mu ON mu.id = m.user_id"
        } else {
            "FROM organization_members m"
        };
        (format!("{from} {filter}"), values)
    }

    /// The list's order, the id last. Found through the trigram index,
    /// the few found are sorted (`+` keeps SQLite from walking every
    /// member in order to find them).
    fn terms(&self, plan: Plan) -> Vec<Term> {
        let joined = match plan {
            Plan::Walk => "m.joined_at",
            Plan::Index => "+m.joined_at",
        };
        vec![
            Term::new(joined, self.newest_first),
            Term::new("m.id", self.newest_first),
        ]
    }
}

/// A page of an organization's members and the count of all that match
/// (remembered for the generation).
pub fn members(
    snapshot: &Snapshot,
    connection: &Connection,
    organization_id: &str,
    query: &MemberQuery,
    page: (u64, u64),
) -> ApiResult<(u64, Vec<OrganizationMember>)> {
    let people = || -> ApiResult<u64> {
        // Every person: kept by triggers (schema 8), one row read.
        Ok(connection
            .prepare_cached("SELECT people FROM organization_people WHERE organization_id = ?1")?
            .query_row([organization_id], |row| row.get::<_, i64>(0))
            .optional()?
            .map_or(0, |people| people.max(0) as u64))
    };
    let every_person =
        query.people_only && query.search.is_none() && query.email.is_none() && query.updated_after.is_none();
    let counted = if query.indexed() { Plan::Index } else { Plan::Walk };
    let count = if every_person {
        people()?
    } else {
        let (from_where, values) = query.filter(organization_id, counted);
        snapshot.count(connection, &from_where, &values)?
    };
    if page.1 >= count {
        return Ok((count, Vec::new()));
    }
    // Sorted, the matches cost `count` each page; walked to, the page's
    // rows cost the people walked past to find them.
    let plan = if counted == Plan::Index
        && u128::from(count) * u128::from(count)
            <= u128::from(WALK_COST) * u128::from(page.0) * u128::from(people()?.max(count))
    {
        Plan::Index
    } else {
        Plan::Walk
    };
    let (from_where, values) = query.filter(organization_id, plan);
    let listing = Listing {
        from_where,
        values,
        id: "m.rowid".into(),
        terms: query.terms(plan),
    };
    let rowids: Vec<i64> = keyset::page(snapshot, connection, &listing, count, page)?;
    let select = format!(
        "SELECT m.rowid, {} FROM organization_members m JOIN users mu ON mu.id = m.user_id
         WHERE m.rowid IN (SELECT value FROM json_each(?1))",
        member_columns()
    );
    let members = in_order_of(connection, &select, &rowids, |row| member_at(row, 1))?;
    Ok((count, members))
}
