//! Pages found from marks are the pages `LIMIT ... OFFSET ...` gives, for
//! any order (ties, nulls, mixed directions), any page sizes and offsets,
//! walked forward, backward or jumped about, with writes in between, made
//! by this process or by another.

use proptest::prelude::*;
use rusqlite::Connection;
use rusqlite::types::Value as SqlValue;

use super::super::memory::Memory;
use super::{Listing, Term, page_hopping};

fn open(dir: &std::path::Path) -> (Connection, Memory) {
    let path = dir.join("keyset.sqlite");
    let connection = Connection::open(&path).unwrap();
    connection.pragma_update(None, "journal_mode", "WAL").unwrap();
    connection
        .execute_batch(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, project INTEGER NOT NULL, a INTEGER NOT NULL, b TEXT);
             CREATE INDEX t_a ON t (project, a, id);
             CREATE INDEX t_b ON t (project, (b IS NULL), b COLLATE NOCASE, id);",
        )
        .unwrap();
    let watch = Connection::open(&path).unwrap();
    (connection, Memory::new(watch))
}

/// The orders tried: one term or several, ties and nulls, either direction,
/// mixed.
fn orders() -> Vec<Vec<Term>> {
    let title = |descending| {
        [
            Term::new("(t.b IS NULL)", descending),
            Term::new("t.b COLLATE NOCASE", descending),
        ]
    };
    vec![
        vec![Term::ascending("t.a"), Term::ascending("t.id")],
        vec![Term::descending("t.a"), Term::descending("t.id")],
        [title(false).to_vec(), vec![Term::ascending("t.id")]].concat(),
        [title(true).to_vec(), vec![Term::descending("t.id")]].concat(),
        [
            vec![Term::ascending("t.a")],
            title(true).to_vec(),
            vec![Term::ascending("t.id")],
        ]
        .concat(),
        vec![
            Term::descending("ifnull(t.b, '~')"),
            Term::ascending("t.a"),
            Term::descending("t.id"),
        ],
    ]
}

#[derive(Debug, Clone)]
enum Op {
    /// A page anywhere.
    Jump {
        limit: u64,
        offset: u64,
    },
    /// The page after the last one, as a walk follows `next`.
    Next {
        limit: u64,
    },
    /// The page before the last one, as `previous` goes.
    Previous,
    Insert {
        project: i64,
        a: i64,
        b: Option<&'static str>,
    },
    Delete {
        nth: usize,
    },
    Update {
        nth: usize,
        a: i64,
        b: Option<&'static str>,
    },
}

/// Whether a write is this process's (moving the generation) or
/// another's (seen through `data_version`).
type Write = (Op, bool);

fn title() -> impl Strategy<Value = Option<&'static str>> {
    prop::option::of(prop::sample::select(vec!["x", "X", "y", "ab", "Ab", "z", ""]))
}

fn op() -> impl Strategy<Value = Write> {
    prop_oneof![
        3 => (1u64..30, 0u64..90).prop_map(|(limit, offset)| (Op::Jump { limit, offset }, true)),
        4 => (1u64..30).prop_map(|limit| (Op::Next { limit }, true)),
        1 => Just((Op::Previous, true)),
        1 => (0i64..2, 0i64..4, title(), any::<bool>())
            .prop_map(|(project, a, b, own)| (Op::Insert { project: project + 1, a, b }, own)),
        1 => (any::<usize>(), any::<bool>()).prop_map(|(nth, own)| (Op::Delete { nth }, own)),
        1 => (any::<usize>(), 0i64..4, title(), any::<bool>())
            .prop_map(|(nth, a, b, own)| (Op::Update { nth, a, b }, own)),
    ]
}

fn ids(connection: &Connection, sql: &str, values: Vec<SqlValue>) -> Vec<i64> {
    let mut statement = connection.prepare(sql).unwrap();
    statement
        .query_map(rusqlite::params_from_iter(values), |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn write(connection: &Connection, memory: &Memory, sql: &str, values: Vec<SqlValue>, own: bool) {
    if own {
        memory.commit_begins();
    }
    connection
        .execute(sql, rusqlite::params_from_iter(values))
        .unwrap();
    if own {
        memory.commit_ends();
    }
}

fn text(value: Option<&str>) -> SqlValue {
    value.map_or(SqlValue::Null, |text| SqlValue::Text(text.to_string()))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn pages_from_marks_are_offset_pages(
        rows in prop::collection::vec((0i64..4, title()), 0..70),
        order in 0usize..6,
        filtered in any::<bool>(),
        hop in 2u64..9,
        ops in prop::collection::vec(op(), 1..60),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let (connection, memory) = open(dir.path());
        for (a, b) in &rows {
            connection
                .execute("INSERT INTO t (project, a, b) VALUES (1, ?1, ?2)", rusqlite::params![a, b])
                .unwrap();
        }
        // A filter with a parameter of its own, so that the marks' values
        // are numbered after the listing's.
        let (from_where, values) = if filtered {
            ("FROM t WHERE t.project = ?1 AND t.a != ?2", vec![SqlValue::Integer(1), SqlValue::Integer(2)])
        } else {
            ("FROM t WHERE t.project = ?1", vec![SqlValue::Integer(1)])
        };
        let listing = Listing {
            from_where: from_where.into(),
            values: values.clone(),
            id: "t.id".into(),
            terms: orders()[order].clone(),
        };
        let order_by = listing.order_by(super::Way::Forward, 0);
        let mut last = (10u64, 0u64);
        for (op, own) in ops {
            let page = match op {
                Op::Jump { limit, offset } => (limit, offset),
                Op::Next { limit } => (limit, last.1 + last.0),
                Op::Previous => (last.0, last.1.saturating_sub(last.0)),
                Op::Insert { project, a, b } => {
                    write(&connection, &memory, "INSERT INTO t (project, a, b) VALUES (?1, ?2, ?3)",
                        vec![SqlValue::Integer(project), SqlValue::Integer(a), text(b)], own);
                    continue;
                }
                Op::Delete { nth } => {
                    write(&connection, &memory,
                        "DELETE FROM t WHERE id = (SELECT id FROM t ORDER BY id LIMIT 1 OFFSET ?1 % max(1, (SELECT count(*) FROM t)))",
                        vec![SqlValue::Integer((nth % 1000) as i64)], own);
                    continue;
                }
                Op::Update { nth, a, b } => {
                    write(&connection, &memory,
                        "UPDATE t SET a = ?2, b = ?3 WHERE id = (SELECT id FROM t ORDER BY id LIMIT 1 OFFSET ?1 % max(1, (SELECT count(*) FROM t)))",
                        vec![SqlValue::Integer((nth % 1000) as i64), SqlValue::Integer(a), text(b)], own);
                    continue;
                }
            };
            last = page;
            let snapshot = memory.snapshot();
            let count = ids(&connection, &format!("SELECT count(*) {from_where}"), values.clone())[0] as u64;
            let found: Vec<i64> = page_hopping(&snapshot, &connection, &listing, count, page, hop).unwrap();
            let mut bound = values.clone();
            bound.extend([SqlValue::Integer(page.0 as i64), SqlValue::Integer(page.1 as i64)]);
            let n = values.len();
            let wanted = ids(
                &connection,
                &format!("SELECT t.id {from_where} ORDER BY {order_by} LIMIT ?{} OFFSET ?{}", n + 1, n + 2),
                bound,
            );
            prop_assert_eq!(found, wanted, "page {:?} of {} rows", page, count);
            prop_assert!(snapshot.still_current());
        }
    }
}
