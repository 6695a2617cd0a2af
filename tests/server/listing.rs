//! Listing subscriptions as today's PostHog lists them (posthog.md 8.3):
//! DRF's search over the names, the list filters, the orderings and their
//! paging; the filters every action takes; and the rules a write meets
//! beside it: the plan limit (8.2-1), `query:read` for AI-prompt rows (3),
//! related ids (2, 8.2-2). Each expectation is computed in the test from
//! every row, never taken from the server's own answer.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Duration, Utc};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::support::{ADMIN, DEMO_DASHBOARD, DEMO_INSIGHT, DEMO_INSIGHT_NAME, Reply, TestServer};
use orgdeck::api::time::parse_datetime;

/// A day at 09:00 UTC, `days` from now.
fn at_nine(days: i64) -> String {
    (orgdeck::clock::system_now() + Duration::days(days))
        .format("%Y-%m-%dT09:00:00Z")
        .to_string()
}

/// The smallest create today's PostHog takes: an insight by e-mail, daily.
fn sample() -> Value {
    json!({
        "insight": DEMO_INSIGHT,
        "target_type": "email",
        "target_value": "oncall@hedgebox.dev",
        "frequency": "daily",
        "interval": 1,
        "start_date": at_nine(-30),
    })
}

fn with(mut body: Value, field: &str, value: Value) -> Value {
    body[field] = value;
    body
}

fn without(mut body: Value, field: &str) -> Value {
    body.as_object_mut().unwrap().remove(field);
    body
}

/// An AI report: a prompt and nothing to export.
fn report(prompt: &str) -> Value {
    with(without(sample(), "insight"), "prompt", json!(prompt))
}

/// A query value, every byte but letters and digits percent-encoded.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|byte| {
            if byte.is_ascii_alphanumeric() {
                (byte as char).to_string()
            } else {
                format!("%{byte:02X}")
            }
        })
        .collect()
}

fn ids(rows: &[Value]) -> Vec<i64> {
    rows.iter().map(|row| row["id"].as_i64().unwrap()).collect()
}

/// Every row of a list, `limit` at a time by its `next` links. Every page
/// must tell the same count and hold no more than `limit` rows.
async fn walk(server: &TestServer, key: &str, query: &str, limit: u64) -> (u64, Vec<Value>) {
    let first = format!("{}?limit={limit}&{query}", server.subscriptions_path());
    let mut url = Some(server.url(&first));
    let mut count = None;
    let mut rows = Vec::new();
    while let Some(next) = url {
        let reply = Reply::read(server.http.get(&next).bearer_auth(key).send().await.unwrap()).await;
        let page = reply.expect(StatusCode::OK);
        let this = page["count"].as_u64().unwrap();
        assert_eq!(
            *count.get_or_insert(this),
            this,
            "{query}: the count changed between pages"
        );
        let results = page["results"].as_array().unwrap();
        assert!(results.len() as u64 <= limit, "{query}");
        rows.extend(results.iter().cloned());
        url = page["next"].as_str().map(str::to_string);
    }
    (count.unwrap_or(0), rows)
}

/// The rows of a list (the count checked against them), 1,000 a page.
async fn list(server: &TestServer, key: &str, query: &str) -> Vec<Value> {
    let (count, rows) = walk(server, key, query, 1000).await;
    assert_eq!(count, rows.len() as u64, "{query}");
    rows
}

/// The names a search looks in, read from the database: each insight's
/// name and derived name, each dashboard's name.
struct Names {
    insights: HashMap<i64, (String, Option<String>)>,
    dashboards: HashMap<i64, String>,
}

fn names(server: &TestServer) -> Names {
    server
        .running
        .db
        .read_blocking(|connection| {
            let mut insights = HashMap::new();
            let mut statement = connection.prepare("SELECT id, name, derived_name FROM insights")?;
            let mut rows = statement.query([])?;
            while let Some(row) = rows.next()? {
                insights.insert(row.get(0)?, (row.get(1)?, row.get(2)?));
            }
            let mut dashboards = HashMap::new();
            let mut statement = connection.prepare("SELECT id, name FROM dashboards")?;
            let mut rows = statement.query([])?;
            while let Some(row) = rows.next()? {
                dashboards.insert(row.get(0)?, row.get(1)?);
            }
            Ok(Names { insights, dashboards })
        })
        .unwrap()
}

/// Runs SQL on the server's database, as a tool beside the API would.
fn sql(server: &TestServer, statement: &str) {
    let statement = statement.to_string();
    server
        .running
        .db
        .write_blocking(move |tx| {
            tx.execute_batch(&statement)?;
            Ok(())
        })
        .unwrap();
}

/// The fields DRF's SearchFilter looks in (posthog.md 8.3): title, the
/// insight's name and derived name, the dashboard's name; a null one is
/// no field at all.
fn searched_fields(row: &Value, names: &Names) -> Vec<String> {
    let mut fields = Vec::new();
    if let Some(title) = row["title"].as_str() {
        fields.push(title.to_string());
    }
    if let Some(insight) = row["insight"].as_i64() {
        let (name, derived) = &names.insights[&insight];
        fields.push(name.clone());
        fields.extend(derived.clone());
    }
    if let Some(dashboard) = row["dashboard"].as_i64() {
        fields.push(names.dashboards[&dashboard].clone());
    }
    fields
}

/// `icontains` of every term in some field.
fn finds(fields: &[String], terms: &[&str]) -> bool {
    terms.iter().all(|term| {
        let term = term.to_lowercase();
        fields.iter().any(|field| field.to_lowercase().contains(&term))
    })
}

/// A search as sent, the terms DRF makes of it, and whether the demo (with
/// what the test adds) must hold a row it finds.
type Case = (&'static str, &'static [&'static str], bool);

const CASES: &[Case] = &[
    ("board pack", &["board", "pack"], true),
    ("Board,PACK", &["Board", "PACK"], true),
    (" ,board,,  pack , ", &["board", "pack"], true),
    ("pack\tboard", &["pack", "board"], true),
    ("weekly active", &["weekly", "active"], true),
    ("kpis", &["kpis"], true),
    ("KPI digest", &["KPI", "digest"], true),
    ("activation trend", &["activation", "trend"], true),
    ("pack,zzz", &["pack", "zzz"], false),
    // Shorter than a trigram.
    ("ow", &["ow"], true),
    ("OW", &["OW"], true),
    ("e", &["e"], true),
    ("(4", &["(4"], true),
    ("1)", &["1)"], true),
    ("Gr (1", &["Gr", "(1"], true),
    ("ü", &["ü"], true),
    ("ÜB", &["ÜB"], true),
    ("é", &["é"], true),
    ("über", &["über"], true),
    ("ÉTÉ", &["ÉTÉ"], true),
    // What LIKE or an FTS query would read as syntax is literal.
    ("100%", &["100%"], true),
    ("%", &["%"], true),
    ("%%", &["%%"], false),
    ("_", &["_"], true),
    ("_x_", &["_x_"], true),
    ("x_b", &["x_b"], false),
    ("h_", &["h_"], false),
    ("e%", &["e%"], false),
    ("\\", &["\\"], true),
    ("back\\slash", &["back\\slash"], true),
    ("O'Reilly", &["O'Reilly"], true),
    ("\"done", &["\"done"], true),
    ("done\"", &["done\""], true),
    ("AND", &["AND"], true),
    ("NOT*", &["NOT*"], false),
    ("NEAR(a", &["NEAR(a"], false),
    // DRF keeps a quoted phrase whole and drops its quotes.
    ("\"done\"", &["done"], true),
    ("\"board pack\"", &["board pack"], true),
    ("'board pack'", &["board pack"], true),
    ("\"pack board\"", &["pack board"], false),
    ("\"board pack\" 4", &["board pack", "4"], true),
    ("'pack (4' board", &["pack (4", "board"], true),
    ("\"\"", &[""], true),
    ("\"", &[""], true),
    ("\"back\\\\slash\"", &["back\\slash"], true),
    // Neither a prompt nor a target is searched in today's PostHog.
    ("zebra", &["zebra"], false),
    ("xylophone", &["xylophone"], false),
    ("hedgebox.dev", &["hedgebox.dev"], false),
    ("weekly zzzz", &["weekly", "zzzz"], false),
];

/// Every case against every row: the rows found, in the list's order
/// (newest first), their count, page after page. Whether a case finds
/// anything is its own to say, unless names were changed since.
async fn check_search(server: &TestServer, key: &str, cases: &[Case], renamed: bool) {
    let names = names(server);
    let mut untrue = Vec::new();
    for deleted in ["", "deleted=true&"] {
        let every = list(server, key, deleted).await;
        for &(search, terms, holds) in cases {
            let expected: Vec<i64> = every
                .iter()
                .filter(|row| finds(&searched_fields(row, &names), terms))
                .map(|row| row["id"].as_i64().unwrap())
                .collect();
            if deleted.is_empty() && expected.is_empty() == holds && !renamed {
                untrue.push(search);
            }
            let (count, rows) = walk(server, key, &format!("{deleted}search={}", encode(search)), 23).await;
            assert_eq!(ids(&rows), expected, "{deleted}search={search:?}");
            assert_eq!(count, expected.len() as u64, "{deleted}search={search:?}");
        }
    }
    assert!(
        untrue.is_empty(),
        "cases that no longer test what they say: {untrue:?}"
    );
}

/// posthog.md 8.3: DRF's SearchFilter over title, insight name, insight
/// derived name and dashboard name, each term in some field, whatever the
/// characters, and what changes a name changes what is found at once.
#[tokio::test]
async fn search_finds_what_drf_finds() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let path = server.subscriptions_path();
    for body in [
        with(
            sample(),
            "title",
            json!("100% \"done\" _x_ back\\slash O'Reilly AND"),
        ),
        with(
            with(sample(), "title", json!("Über Ünïcode été")),
            "insight",
            json!(5),
        ),
        with(sample(), "title", Value::Null),
        // Brackets and digits (the demo's titles have no counters).
        with(sample(), "title", json!("Growth board pack (4 regions) (1)")),
        with(report("Summarise the zebra crossings"), "title", Value::Null),
        with(
            with(sample(), "title", json!("Plain")),
            "target_value",
            json!("xylophone@hedgebox.dev"),
        ),
    ] {
        server.post(&key, &path, body).await.expect(StatusCode::CREATED);
    }
    // A derived name (the demo's insights have none).
    sql(
        &server,
        "UPDATE insights SET derived_name = 'Activation trend by cohort' WHERE id = 3",
    );
    check_search(&server, &key, CASES, false).await;

    // A title changed by PATCH is found by its new words at once, and no
    // longer by its old ones.
    let board_pack = list(&server, &key, "search=board").await;
    let retitled = board_pack[0]["id"].as_i64().unwrap();
    let old_title = board_pack[0]["title"].as_str().unwrap().to_string();
    server
        .patch(
            &key,
            &format!("{path}{retitled}/"),
            json!({"title": "Marmalade numbers"}),
        )
        .await
        .expect(StatusCode::OK);
    assert_eq!(ids(&list(&server, &key, "search=MARMALADE").await), [retitled]);
    assert!(ids(&list(&server, &key, "search=ar%20ma").await).contains(&retitled));
    let by_old = list(&server, &key, &format!("search={}", encode(&old_title))).await;
    assert!(!ids(&by_old).contains(&retitled), "{old_title}");

    // Renaming an insight or a dashboard (no API does; a tool beside the
    // server may) changes what finds their subscriptions.
    let of_insight_rows = list(&server, &key, &format!("insight={DEMO_INSIGHT}")).await;
    let of_insight = ids(&of_insight_rows);
    assert!(of_insight.len() > 2);
    // Those whose title does not repeat the insight's name.
    let titled_otherwise: Vec<i64> = of_insight_rows
        .iter()
        .filter(|row| {
            !row["title"]
                .as_str()
                .unwrap_or("")
                .to_lowercase()
                .contains(&DEMO_INSIGHT_NAME.to_lowercase())
        })
        .map(|row| row["id"].as_i64().unwrap())
        .collect();
    assert!(!titled_otherwise.is_empty());
    let old_name = list(&server, &key, &format!("search={}", encode(DEMO_INSIGHT_NAME))).await;
    assert!(of_insight.iter().all(|id| ids(&old_name).contains(id)));
    assert!(
        !list(&server, &key, "search=%22trend%20by%20cohort%22")
            .await
            .is_empty()
    );
    sql(
        &server,
        &format!("UPDATE insights SET name = 'Zephyr retention' WHERE id = {DEMO_INSIGHT}"),
    );
    sql(
        &server,
        "UPDATE insights SET derived_name = 'Platypus trend' WHERE id = 3",
    );
    sql(
        &server,
        &format!("UPDATE dashboards SET name = 'Quokka board' WHERE id = {DEMO_DASHBOARD}"),
    );
    let zephyr = ids(&list(&server, &key, "search=zephyr").await);
    assert_eq!(
        zephyr.iter().copied().collect::<HashSet<_>>(),
        of_insight.iter().copied().collect::<HashSet<_>>()
    );
    let old_name = list(&server, &key, &format!("search={}", encode(DEMO_INSIGHT_NAME))).await;
    assert!(
        titled_otherwise.iter().all(|id| !ids(&old_name).contains(id)),
        "found by the insight's old name"
    );
    assert!(
        list(&server, &key, "search=%22trend%20by%20cohort%22")
            .await
            .is_empty()
    );
    assert!(!list(&server, &key, "search=platypus").await.is_empty());
    assert!(!list(&server, &key, "search=quokka").await.is_empty());
    // A subscription moved to another insight is found by that one's name.
    let moved = of_insight[0];
    server
        .patch(&key, &format!("{path}{moved}/"), json!({"insight": 5}))
        .await
        .expect(StatusCode::OK);
    assert!(!ids(&list(&server, &key, "search=zephyr").await).contains(&moved));
    assert!(ids(&list(&server, &key, "search=mrr").await).contains(&moved));

    let renamed: &[Case] = &[
        ("zephyr", &["zephyr"], true),
        ("ze", &["ze"], true),
        ("Quokka,board", &["Quokka", "board"], true),
        ("platypus trend", &["platypus", "trend"], true),
        ("marmalade", &["marmalade"], true),
        // Titles that repeat the old names still find their rows.
        ("weekly active users", &["weekly", "active", "users"], true),
        ("company kpis", &["company", "kpis"], true),
    ];
    check_search(&server, &key, renamed, false).await;
    check_search(&server, &key, CASES, true).await;
}

/// Thousands of matches: the server may find them another way than a
/// few, and must find the same rows, in the same order, page after page.
#[tokio::test]
async fn search_of_thousands_of_matches() {
    let server = TestServer::start(orgdeck::server::Seed::Demo, 6_000).await;
    let key = server.key(&["*"]);
    server
        .post(
            &key,
            &server.subscriptions_path(),
            with(sample(), "title", json!("Synthetic Über report")),
        )
        .await
        .expect(StatusCode::CREATED);
    let names = names(&server);
    let cases: &[(&str, &[&str])] = &[
        ("synthetic", &["synthetic"]),
        ("SYNTHETIC,e", &["SYNTHETIC", "e"]),
        ("report 1", &["report", "1"]),
        ("\"report 12\"", &["report 12"]),
        ("synthetic ü", &["synthetic", "ü"]),
        ("synthetic über", &["synthetic", "über"]),
        ("weekly synthetic", &["weekly", "synthetic"]),
        ("synthetic 100%", &["synthetic", "100%"]),
        ("synthetic \"\"", &["synthetic", ""]),
        ("e", &["e"]),
    ];
    for (query, limit) in [("", 250), ("ordering=-title&", 400), ("deleted=yes&", 300)] {
        let every = list(&server, &key, query).await;
        assert!(every.len() > 500, "{query}");
        for &(search, terms) in cases {
            let expected: Vec<i64> = every
                .iter()
                .filter(|row| finds(&searched_fields(row, &names), terms))
                .map(|row| row["id"].as_i64().unwrap())
                .collect();
            let (count, rows) =
                walk(&server, &key, &format!("{query}search={}", encode(search)), limit).await;
            assert_eq!(ids(&rows), expected, "{query}search={search:?}");
            assert_eq!(count, expected.len() as u64, "{query}search={search:?}");
        }
    }
    let many = list(&server, &key, "search=synthetic").await;
    assert!(many.len() > 5_000, "{}", many.len());
}

/// The seed flavor's search also looks in the target (compat.md's
/// extension); today's does not.
#[tokio::test]
async fn only_the_seed_flavor_searches_targets() {
    for flavor in [orgdeck::server::Flavor::Seed, orgdeck::server::Flavor::Current] {
        let server = TestServer::demo_with(|options| options.flavor = flavor).await;
        let key = server.key(&["*"]);
        let names = names(&server);
        let every = list(&server, &key, "").await;
        for term in ["priya.raman", "hedgebox", "@h", "#", "C0"] {
            let expected: Vec<i64> = every
                .iter()
                .filter(|row| {
                    let target = row["target_value"].as_str().unwrap().to_lowercase();
                    finds(&searched_fields(row, &names), &[term])
                        || (flavor == orgdeck::server::Flavor::Seed && target.contains(&term.to_lowercase()))
                })
                .map(|row| row["id"].as_i64().unwrap())
                .collect();
            if flavor == orgdeck::server::Flavor::Seed && term != "C0" {
                assert!(!expected.is_empty(), "{term}");
            }
            let found = list(&server, &key, &format!("search={}", encode(term))).await;
            assert_eq!(ids(&found), expected, "{flavor:?} {term}");
        }
    }
}

/// posthog.md 8.3: `created_by`, `resource_type`, `target_type` and
/// `deleted`, alone and together, against every row.
#[tokio::test]
async fn list_filters_keep_the_rows_they_name() {
    let server = TestServer::demo().await;
    let key = server.key(&["subscription:read"]);
    let undeleted = list(&server, &key, "").await;
    let deleted = list(&server, &key, "deleted=true").await;
    assert!(!deleted.is_empty());
    let only = |rows: &[Value], keep: &dyn Fn(&Value) -> bool| -> Vec<i64> {
        rows.iter()
            .filter(|row| keep(row))
            .map(|row| row["id"].as_i64().unwrap())
            .collect()
    };

    // created_by: that creator's rows, whatever form the UUID takes.
    let creator = undeleted
        .iter()
        .find(|row| row["created_by"]["email"] == ADMIN)
        .unwrap()["created_by"]["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let by_admin = only(&undeleted, &|row| row["created_by"]["uuid"] == creator.as_str());
    assert!(by_admin.len() > 3 && by_admin.len() < undeleted.len() / 2);
    for form in [creator.clone(), creator.to_uppercase(), creator.replace('-', "")] {
        let found = list(&server, &key, &format!("created_by={form}")).await;
        assert_eq!(ids(&found), by_admin, "{form}");
    }
    let deleted_by_admin = only(&deleted, &|row| row["created_by"]["uuid"] == creator.as_str());
    let found = list(&server, &key, &format!("created_by={creator}&deleted=1")).await;
    assert_eq!(ids(&found), deleted_by_admin);
    let nobody = list(&server, &key, &format!("created_by={}", uuid::Uuid::new_v4())).await;
    assert!(nobody.is_empty());
    for bad in ["nobody", "1234", "%20", &creator[..35]] {
        let refused = server
            .get(&key, &format!("{}?created_by={bad}", server.subscriptions_path()))
            .await;
        let detail = refused.expect_error(
            StatusCode::BAD_REQUEST,
            "validation_error",
            "invalid_input",
            Some("created_by"),
        );
        assert_eq!(detail, "Not a valid UUID.", "{bad}");
    }
    // An empty one is no filter.
    assert_eq!(ids(&list(&server, &key, "created_by=").await), ids(&undeleted));

    // resource_type: the derived type; any other value is ignored.
    let mut total = 0;
    for kind in ["insight", "dashboard", "ai_prompt"] {
        let expected = only(&undeleted, &|row| row["resource_type"] == kind);
        assert!(!expected.is_empty(), "{kind}");
        total += expected.len();
        let found = list(&server, &key, &format!("resource_type={kind}")).await;
        assert_eq!(ids(&found), expected, "{kind}");
        let expected = only(&deleted, &|row| row["resource_type"] == kind);
        let found = list(&server, &key, &format!("resource_type={kind}&deleted=true")).await;
        assert_eq!(ids(&found), expected, "deleted {kind}");
    }
    assert_eq!(total, undeleted.len());
    for ignored in ["report", "INSIGHT", "%20insight", ""] {
        let found = list(&server, &key, &format!("resource_type={ignored}")).await;
        assert_eq!(ids(&found), ids(&undeleted), "{ignored}");
    }

    // target_type: one of the model's; anything else is refused.
    for kind in ["email", "slack"] {
        let expected = only(&undeleted, &|row| row["target_type"] == kind);
        assert!(!expected.is_empty());
        let found = list(&server, &key, &format!("target_type={kind}")).await;
        assert_eq!(ids(&found), expected, "{kind}");
    }
    for bad in ["webhook", "teams", "EMAIL", "%20email", "%20"] {
        let refused = server
            .get(
                &key,
                &format!("{}?target_type={bad}", server.subscriptions_path()),
            )
            .await;
        let detail = refused.expect_error(
            StatusCode::BAD_REQUEST,
            "validation_error",
            "invalid_input",
            Some("target_type"),
        );
        assert_eq!(detail, "Must be one of: email, slack.", "{bad}");
    }

    // deleted: the truth of any value, as Django's str_to_bool reads it.
    for truthy in ["y", "yes", "t", "true", "on", "1", "TRUE", "Yes", "oN"] {
        let found = list(&server, &key, &format!("deleted={truthy}")).await;
        assert_eq!(ids(&found), ids(&deleted), "{truthy}");
    }
    for falsy in [
        "n", "no", "f", "false", "off", "0", "", "2", "maybe", "%20true", "true%20", "yes!",
    ] {
        let found = list(&server, &key, &format!("deleted={falsy}")).await;
        assert_eq!(ids(&found), ids(&undeleted), "{falsy:?}");
    }
    // A parameter sent twice counts by its last value, as Django reads it.
    let found = list(&server, &key, "deleted=false&deleted=true").await;
    assert_eq!(ids(&found), ids(&deleted));
    let found = list(&server, &key, "target_type=webhook&target_type=slack").await;
    assert_eq!(
        ids(&found),
        only(&undeleted, &|row| row["target_type"] == "slack")
    );

    // All of them at once, with a search.
    let names = names(&server);
    let expected = only(&undeleted, &|row| {
        row["created_by"]["uuid"] == creator.as_str()
            && row["resource_type"] == "dashboard"
            && row["target_type"] == "email"
            && finds(&searched_fields(row, &names), &["e"])
    });
    let found = list(
        &server,
        &key,
        &format!("created_by={creator}&resource_type=dashboard&target_type=email&search=e"),
    )
    .await;
    assert_eq!(ids(&found), expected);
}

/// One field of an ordering: a row's value, compared as PostgreSQL
/// orders it (nulls last ascending, first descending).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    Time(Option<DateTime<Utc>>),
    Text(Option<String>),
}

fn key_of(row: &Value, field: &str) -> Key {
    let time = |value: &Value| value.as_str().map(|text| parse_datetime(text).unwrap());
    match field {
        "created_at" => Key::Time(time(&row["created_at"])),
        "next_delivery_date" => Key::Time(time(&row["next_delivery_date"])),
        "title" => Key::Text(row["title"].as_str().map(str::to_lowercase)),
        "created_by__email" => Key::Text(row["created_by"]["email"].as_str().map(str::to_lowercase)),
        other => panic!("no field {other}"),
    }
}

/// Compares two values of one field, nulls last ascending.
fn compare(a: &Key, b: &Key, descending: bool) -> Ordering {
    let nulls_last = |key: &Key| match key {
        Key::Time(value) => (value.is_none(), Key::Time(*value)),
        Key::Text(value) => (value.is_none(), Key::Text(value.clone())),
    };
    let order = nulls_last(a).cmp(&nulls_last(b));
    if descending { order.reverse() } else { order }
}

/// Whether `rows` are in the order of `fields` (`-` for descending).
#[track_caller]
fn assert_ordered(rows: &[Value], fields: &[&str], what: &str) {
    for pair in rows.windows(2) {
        let mut order = Ordering::Equal;
        for field in fields {
            let (descending, name) = match field.strip_prefix('-') {
                Some(name) => (true, name),
                None => (false, *field),
            };
            order = compare(&key_of(&pair[0], name), &key_of(&pair[1], name), descending);
            if order != Ordering::Equal {
                break;
            }
        }
        assert_ne!(
            order,
            Ordering::Greater,
            "{what}: {} before {}",
            pair[0]["id"],
            pair[1]["id"]
        );
    }
}

/// posthog.md 8.3 and 4: each ordering and its reverse, comma lists,
/// unknown fields dropped; nulls where PostgreSQL puts them; pages that
/// neither overlap nor skip.
#[tokio::test]
async fn orderings_sort_every_page_as_postgresql_would() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let path = server.subscriptions_path();
    // Titles that differ in case only, blank and null titles, a creator
    // who is gone.
    for title in [
        json!("alpha report"),
        json!("ALPHA REPORT"),
        json!(""),
        Value::Null,
    ] {
        server
            .post(&key, &path, with(sample(), "title", title))
            .await
            .expect(StatusCode::CREATED);
    }
    let every = list(&server, &key, "").await;
    let orphan = every[0]["id"].as_i64().unwrap();
    sql(
        &server,
        &format!("UPDATE subscriptions SET created_by = NULL WHERE id = {orphan}"),
    );
    let every = list(&server, &key, "").await;
    assert_eq!(every[0]["created_by"], Value::Null);
    let all_ids: HashSet<i64> = ids(&every).into_iter().collect();
    assert_eq!(all_ids.len(), every.len());
    assert!(every.iter().any(|row| row["next_delivery_date"].is_null()));
    assert!(every.iter().any(|row| row["title"].is_null()));
    assert!(every.iter().any(|row| row["title"] == ""));

    let orderings: &[(&str, &[&str])] = &[
        ("", &["-created_at"]),
        ("created_at", &["created_at"]),
        ("-created_at", &["-created_at"]),
        ("next_delivery_date", &["next_delivery_date"]),
        ("-next_delivery_date", &["-next_delivery_date"]),
        ("title", &["title"]),
        ("-title", &["-title"]),
        ("created_by__email", &["created_by__email"]),
        ("-created_by__email", &["-created_by__email"]),
        ("created_by__email,-title", &["created_by__email", "-title"]),
        (
            "-created_by__email,title,created_at",
            &["-created_by__email", "title", "created_at"],
        ),
        ("title,-next_delivery_date", &["title", "-next_delivery_date"]),
        ("nonsense", &["-created_at"]),
        ("target_value", &["-created_at"]),
        ("nonsense,-title", &["-title"]),
        ("%20-title%20,%20created_at", &["-title", "created_at"]),
        ("-", &["-created_at"]),
        ("--title", &["-created_at"]),
        ("title,title", &["title"]),
    ];
    for &(ordering, fields) in orderings {
        let query = format!("ordering={ordering}");
        let whole = list(&server, &key, &query).await;
        assert_ordered(&whole, fields, &query);
        let (count, paged) = walk(&server, &key, &query, 37).await;
        assert_eq!(count, every.len() as u64, "{query}");
        assert_eq!(ids(&paged), ids(&whole), "{query}: pages overlap or skip");
        let seen: HashSet<i64> = ids(&paged).into_iter().collect();
        assert_eq!(seen, all_ids, "{query}");
    }
    // The orderings that do not sort at all are the default's.
    let default = ids(&every);
    for ordering in ["nonsense", "target_value", "-", ""] {
        let found = list(&server, &key, &format!("ordering={ordering}")).await;
        assert_eq!(ids(&found), default, "{ordering:?}");
    }
    // Nulls: last ascending, first descending.
    let by_email = list(&server, &key, "ordering=created_by__email").await;
    assert_eq!(by_email.last().unwrap()["id"], orphan);
    let by_email = list(&server, &key, "ordering=-created_by__email").await;
    assert_eq!(by_email[0]["id"], orphan);
    let by_title = list(&server, &key, "ordering=title").await;
    assert!(by_title.last().unwrap()["title"].is_null());
    assert_eq!(by_title[0]["title"], "", "a blank title sorts first");
    let by_title = list(&server, &key, "ordering=-title").await;
    assert!(by_title[0]["title"].is_null());
    let by_next = list(&server, &key, "ordering=-next_delivery_date").await;
    assert!(by_next[0]["next_delivery_date"].is_null());
    let by_next = list(&server, &key, "ordering=next_delivery_date").await;
    assert!(by_next.last().unwrap()["next_delivery_date"].is_null());
    // The last `ordering` sent counts.
    let found = list(&server, &key, "ordering=title&ordering=-title").await;
    assert_ordered(&found, &["-title"], "ordering twice");
    // With a filter and a search too.
    let found = list(&server, &key, "ordering=-title&target_type=slack&search=e").await;
    assert_ordered(&found, &["-title"], "filtered");
    assert!(found.len() > 10 && found.iter().all(|row| row["target_type"] == "slack"));

    // The seed flavor orders by created_at, next_delivery_date and title
    // only (compat.md): the creator's e-mail is an unknown field there.
    let server = TestServer::seed().await;
    let key = server.key(&["*"]);
    let default = ids(&list(&server, &key, "").await);
    let found = list(&server, &key, "ordering=created_by__email").await;
    assert_eq!(ids(&found), default);
    let found = list(&server, &key, "ordering=title").await;
    assert_ordered(&found, &["title"], "seed title");
}

/// posthog.md 8.3: `deleted`, `insight` and `dashboard` filter every
/// action's rows in today's PostHog, so a row they leave out is not found
/// to retrieve, update or test; the seed flavor reads them on lists only.
#[tokio::test]
async fn row_filters_apply_to_every_action_today() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let path = server.subscriptions_path();
    let undeleted = list(&server, &key, "").await;
    let gone = list(&server, &key, "deleted=true").await[0].clone();
    let gone_path = format!("{path}{}/", gone["id"]);
    let of_insight = undeleted
        .iter()
        .find(|row| row["insight"].is_i64() && row["enabled"] == true)
        .unwrap()
        .clone();
    let insight = of_insight["insight"].as_i64().unwrap();
    let other_insight = if insight == 2 { 3 } else { 2 };
    let of_dashboard = undeleted
        .iter()
        .find(|row| row["dashboard"].is_i64())
        .unwrap()
        .clone();
    let dashboard = of_dashboard["dashboard"].as_i64().unwrap();
    let other_dashboard = if dashboard == 2 { 3 } else { 2 };
    let insight_path = format!("{path}{}/", of_insight["id"]);
    let dashboard_path = format!("{path}{}/", of_dashboard["id"]);
    let not_found = |reply: Reply| {
        let detail = reply.expect_error(StatusCode::NOT_FOUND, "invalid_request", "not_found", None);
        assert_eq!(detail, "Not found.");
    };

    // Retrieve.
    assert_eq!(server.get(&key, &gone_path).await.expect(StatusCode::OK), &gone);
    for hidden in ["false", "0", "no", "maybe", ""] {
        not_found(server.get(&key, &format!("{gone_path}?deleted={hidden}")).await);
    }
    for shown in ["true", "1", "Y", "on"] {
        let found = server.get(&key, &format!("{gone_path}?deleted={shown}")).await;
        assert_eq!(found.expect(StatusCode::OK), &gone);
    }
    not_found(server.get(&key, &format!("{insight_path}?deleted=true")).await);
    not_found(
        server
            .get(&key, &format!("{insight_path}?insight={other_insight}"))
            .await,
    );
    not_found(
        server
            .get(&key, &format!("{insight_path}?dashboard={dashboard}"))
            .await,
    );
    let found = server
        .get(&key, &format!("{insight_path}?insight={insight}&deleted=false"))
        .await;
    assert_eq!(found.expect(StatusCode::OK), &of_insight);
    not_found(
        server
            .get(&key, &format!("{dashboard_path}?dashboard={other_dashboard}"))
            .await,
    );
    let found = server
        .get(&key, &format!("{dashboard_path}?dashboard={dashboard}"))
        .await;
    assert_eq!(found.expect(StatusCode::OK), &of_dashboard);

    // Update: refused rows are left as they were.
    not_found(
        server
            .patch(
                &key,
                &format!("{gone_path}?deleted=false"),
                json!({"title": "Changed"}),
            )
            .await,
    );
    not_found(
        server
            .patch(
                &key,
                &format!("{insight_path}?insight={other_insight}"),
                json!({"title": "Changed"}),
            )
            .await,
    );
    not_found(
        server
            .patch(
                &key,
                &format!("{dashboard_path}?dashboard={other_dashboard}"),
                json!({"title": "Changed"}),
            )
            .await,
    );
    assert_eq!(server.get(&key, &gone_path).await.json, gone);
    assert_eq!(server.get(&key, &insight_path).await.json, of_insight);
    assert_eq!(server.get(&key, &dashboard_path).await.json, of_dashboard);
    let changed = server
        .patch(
            &key,
            &format!("{insight_path}?insight={insight}&deleted=0"),
            json!({"title": "Changed"}),
        )
        .await;
    assert_eq!(changed.expect(StatusCode::OK)["title"], "Changed");
    let restored = server
        .patch(
            &key,
            &format!("{gone_path}?deleted=true"),
            json!({"deleted": false}),
        )
        .await;
    assert_eq!(restored.expect(StatusCode::OK)["deleted"], false);

    // Test delivery.
    let test = |row: &str, query: &str| format!("{row}test-delivery/{query}");
    not_found(
        server
            .call(
                Method::POST,
                Some(&key),
                &test(&insight_path, &format!("?insight={other_insight}")),
                None,
            )
            .await,
    );
    not_found(
        server
            .call(
                Method::POST,
                Some(&key),
                &test(&insight_path, "?deleted=true"),
                None,
            )
            .await,
    );
    let sent = server
        .call(
            Method::POST,
            Some(&key),
            &test(&insight_path, &format!("?insight={insight}")),
            None,
        )
        .await;
    assert_eq!(sent.status, StatusCode::ACCEPTED, "{}", sent.text);

    // The seed flavor reads them on lists only.
    let server = TestServer::seed().await;
    let key = server.key(&["*"]);
    let path = server.subscriptions_path();
    let gone = list(&server, &key, "deleted=true").await[0].clone();
    let gone_path = format!("{path}{}/", gone["id"]);
    let found = server.get(&key, &format!("{gone_path}?deleted=false")).await;
    assert_eq!(found.expect(StatusCode::OK), &gone);
    let of_insight = list(&server, &key, "")
        .await
        .into_iter()
        .find(|row| row["insight"].is_i64())
        .unwrap();
    let insight = of_insight["insight"].as_i64().unwrap();
    let other = if insight == 2 { 3 } else { 2 };
    let insight_path = format!(
        "{path}{}/?insight={other}&dashboard=1&deleted=true",
        of_insight["id"]
    );
    assert_eq!(
        server.get(&key, &insight_path).await.expect(StatusCode::OK),
        &of_insight
    );
    let changed = server
        .patch(&key, &insight_path, json!({"title": "Changed"}))
        .await;
    assert_eq!(changed.expect(StatusCode::OK)["title"], "Changed");
}

/// The undeleted subscriptions of the demo's first project, counted in the
/// database.
fn undeleted_count(server: &TestServer) -> u64 {
    let project = server.project;
    server
        .running
        .db
        .read_blocking(move |connection| {
            Ok(connection.query_row(
                "SELECT COUNT(*) FROM subscriptions WHERE project_id = ?1 AND deleted = 0",
                [project],
                |row| row.get::<_, i64>(0),
            )? as u64)
        })
        .unwrap()
}

/// posthog.md 8.2-1 and `serve --subscription-limit N`: a create, or a
/// restore, may not take the project's undeleted subscriptions past N;
/// deleted ones do not count; without the option there is no limit.
#[tokio::test]
async fn the_plan_limit_counts_undeleted_subscriptions() {
    // Without the option, hundreds are no limit.
    let unlimited = TestServer::demo().await;
    let key = unlimited.key(&["*"]);
    let existing = undeleted_count(&unlimited);
    assert!(existing > 80);
    for _ in 0..3 {
        unlimited
            .post(&key, &unlimited.subscriptions_path(), sample())
            .await
            .expect(StatusCode::CREATED);
    }
    assert_eq!(undeleted_count(&unlimited), existing + 3);

    let limit = existing + 2;
    let server = TestServer::demo_with(|options| options.subscription_limit = Some(limit)).await;
    assert_eq!(undeleted_count(&server), existing);
    let key = server.key(&["*"]);
    let path = server.subscriptions_path();
    let message = format!("Your plan is limited to {limit} subscriptions.");
    let refused = |reply: Reply| {
        let detail = reply.expect_error(
            StatusCode::BAD_REQUEST,
            "validation_error",
            "invalid_input",
            Some("subscription"),
        );
        assert_eq!(detail, message);
    };
    let first = server
        .post(&key, &path, sample())
        .await
        .expect(StatusCode::CREATED)
        .clone();
    server
        .post(&key, &path, report("Weekly digest of signups"))
        .await
        .expect(StatusCode::CREATED);
    assert_eq!(undeleted_count(&server), limit);
    refused(server.post(&key, &path, sample()).await);
    refused(server.post(&key, &path, report("One more")).await);
    refused(
        server
            .post(&key, &path, with(sample(), "enabled", json!(false)))
            .await,
    );
    // posthog.md 8.2-1 checks every create, a deleted one too.
    refused(
        server
            .post(&key, &path, with(sample(), "deleted", json!(true)))
            .await,
    );
    assert_eq!(undeleted_count(&server), limit);
    // Field errors come first, then the limit, then the team's catalog
    // (posthog.md 8.2).
    let detail = server.post(&key, &path, without(sample(), "interval")).await;
    assert_eq!(
        detail.expect_error(
            StatusCode::BAD_REQUEST,
            "validation_error",
            "required",
            Some("interval")
        ),
        "This field is required."
    );
    let detail = server
        .post(&key, &path, with(sample(), "insight", json!(999_999)))
        .await;
    assert_eq!(
        detail.expect_error(
            StatusCode::BAD_REQUEST,
            "validation_error",
            "does_not_exist",
            Some("insight")
        ),
        "Invalid pk \"999999\" - object does not exist."
    );
    let theirs = other_project_ids(&server);
    refused(
        server
            .post(&key, &path, with(sample(), "insight", json!(theirs.0)))
            .await,
    );

    // Edits of undeleted rows are no creates.
    let first_path = format!("{path}{}/", first["id"]);
    for edit in [
        json!({"title": "Still here"}),
        json!({"deleted": false, "title": "Still here"}),
        json!({"frequency": "weekly"}),
    ] {
        server.patch(&key, &first_path, edit).await.expect(StatusCode::OK);
    }
    // A restore is refused at the limit, and changes nothing.
    let gone = list(&server, &key, "deleted=true").await;
    let gone_path = format!("{path}{}/", gone[0]["id"]);
    refused(server.patch(&key, &gone_path, json!({"deleted": false})).await);
    refused(
        server
            .patch(&key, &gone_path, json!({"deleted": false, "title": "Back"}))
            .await,
    );
    assert_eq!(server.get(&key, &gone_path).await.json, gone[0]);
    // A deleted row may still be edited.
    server
        .patch(&key, &gone_path, json!({"title": "Edited while deleted"}))
        .await
        .expect(StatusCode::OK);
    // Deleting one makes room for one, by create or by restore.
    server
        .patch(&key, &first_path, json!({"deleted": true}))
        .await
        .expect(StatusCode::OK);
    let restored = server.patch(&key, &gone_path, json!({"deleted": false})).await;
    assert_eq!(restored.expect(StatusCode::OK)["deleted"], false);
    refused(server.post(&key, &path, sample()).await);
    refused(server.patch(&key, &first_path, json!({"deleted": false})).await);
    server
        .patch(&key, &gone_path, json!({"deleted": true}))
        .await
        .expect(StatusCode::OK);
    server
        .post(&key, &path, sample())
        .await
        .expect(StatusCode::CREATED);
    assert_eq!(undeleted_count(&server), limit);
    // The limit is the project's: the second project has room.
    let second = server
        .post(
            &key,
            "/api/projects/2/subscriptions/",
            with(sample(), "insight", json!(theirs.0)),
        )
        .await;
    second.expect(StatusCode::CREATED);
}

/// An insight and a dashboard of the demo's second project, each checked
/// to be the second project's through the API.
fn other_project_ids(server: &TestServer) -> (i64, i64) {
    server
        .running
        .db
        .read_blocking(|connection| {
            let first = |table: &str| -> rusqlite::Result<i64> {
                connection.query_row(
                    &format!("SELECT MIN(id) FROM {table} WHERE project_id = 2"),
                    [],
                    |row| row.get(0),
                )
            };
            Ok((first("insights")?, first("dashboards")?))
        })
        .unwrap()
}

/// posthog.md 3: `subscription:write` alone writes insight and dashboard
/// subscriptions; a body with a prompt, and any write or test delivery of
/// an AI-prompt row, needs `query:read` too.
#[tokio::test]
async fn ai_prompt_writes_need_query_read() {
    let server = TestServer::demo().await;
    let path = server.subscriptions_path();
    let write = server.key(&["subscription:write"]);
    let both = server.key(&["subscription:write", "query:read"]);
    let read_only = server.key(&["subscription:read", "query:read"]);
    let missing = |reply: Reply, scope: &str| {
        let detail = reply.expect_error(
            StatusCode::FORBIDDEN,
            "authentication_error",
            "permission_denied",
            None,
        );
        assert_eq!(detail, format!("API key missing required scope '{scope}'"));
    };
    let rows = list(&server, &both, "resource_type=ai_prompt").await;
    let ai = rows
        .iter()
        .find(|row| row["enabled"] == true && row["target_type"] == "email")
        .unwrap()
        .clone();
    assert_eq!(ai["resource_type"], "ai_prompt");
    let ai_path = format!("{path}{}/", ai["id"]);
    let of_insight = list(&server, &both, "resource_type=insight")
        .await
        .into_iter()
        .find(|row| row["enabled"] == true)
        .unwrap();
    let insight_path = format!("{path}{}/", of_insight["id"]);
    let prompt = "Summarise the week's signups.";

    // Creates.
    missing(server.post(&write, &path, report(prompt)).await, "query:read");
    // The scope is checked before the body is.
    missing(
        server
            .post(&write, &path, without(report(prompt), "interval"))
            .await,
        "query:read",
    );
    missing(
        server.post(&read_only, &path, report(prompt)).await,
        "subscription:write",
    );
    server
        .post(&write, &path, sample())
        .await
        .expect(StatusCode::CREATED);
    let dashboard = json!({
        "dashboard": DEMO_DASHBOARD,
        "dashboard_export_insights": [1],
        "target_type": "email",
        "target_value": "board@hedgebox.dev",
        "frequency": "weekly",
        "interval": 1,
        "start_date": at_nine(1),
    });
    server
        .post(&write, &path, dashboard)
        .await
        .expect(StatusCode::CREATED);
    let created = server.post(&both, &path, report(prompt)).await;
    assert_eq!(created.expect(StatusCode::CREATED)["resource_type"], "ai_prompt");

    // Updates of an AI-prompt row, whatever they change.
    for body in [
        json!({"title": "Renamed"}),
        json!({}),
        json!({"deleted": true}),
        json!({"prompt": "Another question"}),
    ] {
        missing(server.patch(&write, &ai_path, body).await, "query:read");
    }
    assert_eq!(server.get(&both, &ai_path).await.json, ai);
    let renamed = server.patch(&both, &ai_path, json!({"title": "Renamed"})).await;
    assert_eq!(renamed.expect(StatusCode::OK)["title"], "Renamed");
    // An insight row needs no query:read, unless the body sets a prompt.
    let renamed = server
        .patch(&write, &insight_path, json!({"title": "Renamed"}))
        .await;
    assert_eq!(renamed.expect(StatusCode::OK)["title"], "Renamed");
    missing(
        server
            .patch(&write, &insight_path, json!({"prompt": "What changed?"}))
            .await,
        "query:read",
    );

    // Test deliveries: the scope comes before the throttle, so refusals
    // use none of its ten a minute.
    let test = |row: &str| format!("{row}test-delivery/");
    for _ in 0..12 {
        missing(
            server
                .call(Method::POST, Some(&write), &test(&ai_path), None)
                .await,
            "query:read",
        );
    }
    let sent = server
        .call(Method::POST, Some(&both), &test(&ai_path), None)
        .await;
    assert_eq!(sent.status, StatusCode::ACCEPTED, "{}", sent.text);
    assert_eq!(sent.text, "");
    let sent = server
        .call(Method::POST, Some(&write), &test(&insight_path), None)
        .await;
    assert_eq!(sent.status, StatusCode::ACCEPTED, "{}", sent.text);
}

/// posthog.md 2 and 8.2-2: an id that names no insight or dashboard at
/// all is DRF's own field error; one of another project is the
/// serializer's.
#[tokio::test]
async fn related_ids_of_nothing_or_of_another_project() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let path = server.subscriptions_path();
    let (their_insight, their_dashboard) = other_project_ids(&server);
    let second = server.all(&key, "/api/projects/2/insights/").await;
    assert!(second.iter().any(|row| row["id"] == their_insight));
    let second = server.all(&key, "/api/projects/2/dashboards/").await;
    assert!(second.iter().any(|row| row["id"] == their_dashboard));
    let first = server
        .all(&key, &format!("/api/projects/{}/insights/", server.project))
        .await;
    assert!(!first.iter().any(|row| row["id"] == their_insight));

    let dashboard_body = |id: i64| {
        json!({
            "dashboard": id,
            "dashboard_export_insights": [1],
            "target_type": "email",
            "target_value": "board@hedgebox.dev",
            "frequency": "weekly",
            "interval": 1,
            "start_date": at_nine(1),
        })
    };
    let nothing = |reply: Reply, field: &str| {
        let detail = reply.expect_error(
            StatusCode::BAD_REQUEST,
            "validation_error",
            "does_not_exist",
            Some(field),
        );
        assert_eq!(detail, "Invalid pk \"999999\" - object does not exist.");
    };
    let not_ours = |reply: Reply, field: &str, detail: &str| {
        let said = reply.expect_error(
            StatusCode::BAD_REQUEST,
            "validation_error",
            "invalid_input",
            Some(field),
        );
        assert_eq!(said, detail);
    };
    const INSIGHT: &str = "This insight does not belong to your team.";
    const DASHBOARD: &str = "This dashboard does not belong to your team.";

    nothing(
        server
            .post(&key, &path, with(sample(), "insight", json!(999_999)))
            .await,
        "insight",
    );
    nothing(
        server.post(&key, &path, dashboard_body(999_999)).await,
        "dashboard",
    );
    not_ours(
        server
            .post(&key, &path, with(sample(), "insight", json!(their_insight)))
            .await,
        "insight",
        INSIGHT,
    );
    not_ours(
        server.post(&key, &path, dashboard_body(their_dashboard)).await,
        "dashboard",
        DASHBOARD,
    );
    // An id of nothing is a field error: it comes before any other rule.
    nothing(
        server
            .post(
                &key,
                &path,
                with(
                    with(sample(), "insight", json!(999_999)),
                    "dashboard",
                    json!(their_dashboard),
                ),
            )
            .await,
        "insight",
    );
    // The dashboard is checked before the insight (posthog.md 8.2-2).
    not_ours(
        server
            .post(
                &key,
                &path,
                with(
                    with(sample(), "insight", json!(their_insight)),
                    "dashboard",
                    json!(their_dashboard),
                ),
            )
            .await,
        "dashboard",
        DASHBOARD,
    );

    // The same on updates, which change nothing.
    let of_insight = list(&server, &key, "resource_type=insight").await[0].clone();
    let insight_path = format!("{path}{}/", of_insight["id"]);
    let of_dashboard = list(&server, &key, "resource_type=dashboard").await[0].clone();
    let dashboard_path = format!("{path}{}/", of_dashboard["id"]);
    nothing(
        server
            .patch(&key, &insight_path, json!({"insight": 999_999}))
            .await,
        "insight",
    );
    not_ours(
        server
            .patch(&key, &insight_path, json!({"insight": their_insight}))
            .await,
        "insight",
        INSIGHT,
    );
    nothing(
        server
            .patch(&key, &dashboard_path, json!({"dashboard": 999_999}))
            .await,
        "dashboard",
    );
    not_ours(
        server
            .patch(&key, &dashboard_path, json!({"dashboard": their_dashboard}))
            .await,
        "dashboard",
        DASHBOARD,
    );
    assert_eq!(server.get(&key, &insight_path).await.json, of_insight);
    assert_eq!(server.get(&key, &dashboard_path).await.json, of_dashboard);
    // The project's own ids are taken.
    let moved = server.patch(&key, &insight_path, json!({"insight": 5})).await;
    assert_eq!(moved.expect(StatusCode::OK)["insight"], 5);
}

/// A list answered again before any write is the same answer, and is
/// only ever given to a caller who may have it: the key, its scopes and
/// its access to the project are checked on every request, and any write
/// is seen by the next list.
#[tokio::test]
async fn a_remembered_answer_is_checked_and_never_stale() {
    let server = TestServer::demo().await;
    let owner = server.key(&["*"]);
    let outsider = server.key_for(crate::support::OUTSIDER, &["*"]);
    let unscoped = server.key(&["organization:read"]);
    let path = format!("{}?limit=5", server.subscriptions_path());
    let first = server.get(&owner, &path).await;
    let first = first.expect(StatusCode::OK).clone();
    let again = server.get(&owner, &path).await;
    assert_eq!(again.expect(StatusCode::OK), &first);

    let refused = server.get(&outsider, &path).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "{:?}", refused.json);
    let refused = server.get(&unscoped, &path).await;
    let detail = refused.expect_error(
        StatusCode::FORBIDDEN,
        "authentication_error",
        "permission_denied",
        None,
    );
    assert_eq!(detail, "API key missing required scope 'subscription:read'");
    let unknown = server.get("phx_not_a_key", &path).await;
    assert_eq!(unknown.status, StatusCode::UNAUTHORIZED);

    let id = first["results"][0]["id"].as_i64().unwrap();
    server
        .patch(
            &owner,
            &format!("{}{id}/", server.subscriptions_path()),
            json!({"title": "Renamed just now"}),
        )
        .await
        .expect(StatusCode::OK);
    let after = server.get(&owner, &path).await;
    assert_eq!(
        after.expect(StatusCode::OK)["results"][0]["title"],
        "Renamed just now"
    );
}
