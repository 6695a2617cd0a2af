//! Deep pages and writes between pages: a list paged by offset from the
//! positions earlier pages left (`store::keyset`) must answer what
//! `LIMIT ... OFFSET ...` over the list as it is at that moment answers,
//! as PostHog does: every page of a walk that goes forward, back and jumps
//! about, with rows created, renamed, deleted and removed between pages,
//! is the slice of the whole list read just before it, with the whole
//! list's count and the links that follow from it; lists with ties in
//! their order. (Pages far from every position, reached in hops, are
//! checked the same way with hops of a few rows in
//! `src/server/store/keyset_tests.rs`.)

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{TestServer, seeded};

/// A fixed sequence of choices (SplitMix64), the same on every run.
struct Choices(u64);

impl Choices {
    fn below(&mut self, bound: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % bound.max(1)
    }
}

fn with_query(path: &str, query: &str) -> String {
    let separator = if path.contains('?') { '&' } else { '?' };
    format!("{path}{separator}{query}")
}

/// The whole list in one page.
async fn whole(server: &TestServer, key: &str, path: &str) -> Vec<Value> {
    let reply = server.get(key, &with_query(path, "limit=100000")).await;
    let page = reply.expect(StatusCode::OK);
    let rows = page["results"].as_array().unwrap().clone();
    assert_eq!(page["count"], rows.len(), "{path}: the whole list's count");
    rows
}

fn ids(rows: &[Value]) -> Vec<String> {
    rows.iter().map(|row| row["id"].to_string()).collect()
}

/// The page at `offset` is the slice of the whole list there: rows,
/// count and links. Read between two reads of the whole list, and again
/// when they differ (the server's own delivery task may commit meanwhile).
/// The list's length.
async fn check_page(server: &TestServer, key: &str, path: &str, limit: u64, offset: u64, what: &str) -> u64 {
    for _ in 0..5 {
        let before = whole(server, key, path).await;
        let reply = server
            .get(key, &with_query(path, &format!("limit={limit}&offset={offset}")))
            .await;
        let page = reply.expect(StatusCode::OK).clone();
        let after = whole(server, key, path).await;
        if before != after {
            continue;
        }
        let count = before.len();
        let from = (offset as usize).min(count);
        let to = (offset + limit).min(count as u64) as usize;
        let rows = page["results"].as_array().unwrap();
        assert_eq!(
            ids(rows),
            ids(&before[from..to]),
            "{path}: the page at {offset} ({limit} rows) {what}"
        );
        assert_eq!(rows, &before[from..to], "{path}: the rows at {offset} {what}");
        assert_eq!(page["count"], count, "{path}: the count at {offset} {what}");
        assert_eq!(
            page["next"].is_string(),
            offset + limit < count as u64,
            "{path}: next at {offset} {what}"
        );
        assert_eq!(
            page["previous"].is_string(),
            offset > 0,
            "{path}: previous at {offset}"
        );
        return count as u64;
    }
    panic!("{path}: the list changed under every read");
}

/// Walks `path` for `steps` pages of `limit` rows: mostly the next page,
/// sometimes the one before, sometimes a jump anywhere (far pages, the
/// end), each checked; `write` (given the step and the list's length) runs
/// before every `every`th page.
async fn walk_with_writes<W, F>(
    server: &TestServer,
    key: &str,
    path: &str,
    (limit, steps, every): (u64, u64, u64),
    seed: u64,
    mut write: W,
) where
    W: FnMut(u64, u64) -> F,
    F: std::future::Future<Output = String>,
{
    let mut choices = Choices(seed);
    let mut offset: u64 = 0;
    let mut count = check_page(server, key, path, limit, 0, "at the start").await;
    let mut what = "at the start".to_string();
    for step in 1..=steps {
        if step % every == 0 {
            what = format!("after {}", write(step, count).await);
        }
        offset = match choices.below(10) {
            0 => offset.saturating_sub(limit),
            1 => choices.below(count.max(1)),
            2 => count.saturating_sub(1 + choices.below(limit)),
            _ if offset + limit >= count => 0,
            _ => offset + limit,
        };
        count = check_page(server, key, path, limit, offset, &what).await;
    }
}

#[tokio::test]
async fn subscription_pages_are_offset_pages_with_writes_between() {
    let server = TestServer::demo_with(|options| {
        options.generate_subscriptions = 900;
        options.clock = orgdeck::clock::Clock::manual(seeded());
    })
    .await;
    let key = server.key(&["*"]);
    let path = server.subscriptions_path();
    let every = whole(&server, &key, &path).await;
    assert!(every.len() > 700, "{}", every.len());
    for (index, query) in [
        "",
        "ordering=-title",
        "ordering=title,-created_at",
        "ordering=next_delivery_date",
        "target_type=slack",
        "search=synthetic",
        "search=report 1",
        "ordering=-title&search=report",
    ]
    .into_iter()
    .enumerate()
    {
        let list = with_query(&path, query);
        let list = list.trim_end_matches('?').to_string();
        let subscriptions = server.subscriptions_path();
        let (server, key) = (&server, &key);
        walk_with_writes(server, key, &list, (47, 14, 3), index as u64, |step, count| {
            let subscriptions = subscriptions.clone();
            async move {
                let rows = whole(server, key, &subscriptions).await;
                let id = rows[(step * 7_919 % count.max(1)) as usize % rows.len()]["id"].clone();
                let one = format!("{subscriptions}{id}/");
                match step % 3 {
                    // A new title: the row moves in every title order, and
                    // in or out of a search; titles tie with others.
                    0 => {
                        let title = format!("Synthetic report {}", step % 5);
                        server
                            .patch(key, &one, json!({"title": title}))
                            .await
                            .expect(StatusCode::OK);
                        format!("subscription {id} was renamed {title:?}")
                    }
                    // Deleted: gone from every list.
                    1 => {
                        server
                            .patch(key, &one, json!({"deleted": true}))
                            .await
                            .expect(StatusCode::OK);
                        format!("subscription {id} was deleted")
                    }
                    _ => {
                        let created = server
                            .post(
                                key,
                                &subscriptions,
                                json!({
                                    "insight": crate::support::DEMO_INSIGHT,
                                    "target_type": "email",
                                    "target_value": "oncall@hedgebox.dev",
                                    "frequency": "weekly",
                                    "interval": 1,
                                    "start_date": "2026-10-23T09:00:00Z",
                                    "title": format!("Synthetic report {step}"),
                                }),
                            )
                            .await;
                        let id = created.expect(StatusCode::CREATED)["id"].clone();
                        format!("subscription {id} was created")
                    }
                }
            }
        })
        .await;
    }
}

#[tokio::test]
async fn member_role_and_membership_pages_are_offset_pages_with_writes_between() {
    let server = TestServer::demo_with(|options| {
        options.generate_members = 600;
        options.access.generate_roles = 500;
        options.clock = orgdeck::clock::Clock::manual(seeded());
    })
    .await;
    let key = server.key(&["*"]);
    let members = format!("/api/organizations/{}/members/", server.organization);
    let roles = server.roles_path();
    // One role everyone holds, in few joining moments: long runs of ties,
    // ordered by id within each.
    let created = server.post(&key, &roles, json!({"name": "Everyone here"})).await;
    let role = created.expect(StatusCode::CREATED)["id"]
        .as_str()
        .unwrap()
        .to_string();
    {
        let role = role.clone();
        server
            .running
            .db
            .write_blocking(move |tx| {
                tx.execute(
                    "INSERT INTO role_memberships (id, role_id, organization_member_id, user_id, joined_at, updated_at)
                     SELECT lower(hex(randomblob(16))), ?1, m.id, m.user_id,
                            '2026-0' || (1 + m.rowid % 3) || '-01T00:00:00.000000Z',
                            '2026-01-01T00:00:00.000000Z'
                     FROM organization_members m",
                    [&role],
                )?;
                Ok(())
            })
            .unwrap();
    }
    let memberships = format!("{roles}{role}/role_memberships/");
    let (server, key) = (&server, &key);

    for (seed, list) in [(1, members.clone()), (2, with_query(&members, "search=son"))] {
        walk_with_writes(server, key, &list, (41, 14, 3), seed, |step, _| {
            let members = members.clone();
            async move {
                // Removed from the organization: gone from the list.
                let rows = whole(server, key, &with_query(&members, "search=example")).await;
                let uuid = rows[(step as usize * 131) % rows.len()]["user"]["uuid"].clone();
                let uuid = uuid.as_str().unwrap();
                server
                    .delete(key, &format!("{members}{uuid}/"))
                    .await
                    .expect(StatusCode::NO_CONTENT);
                format!("member {uuid} was removed")
            }
        })
        .await;
    }

    walk_with_writes(server, key, &roles, (37, 14, 3), 3, |step, _| {
        let roles = roles.clone();
        async move {
            if step % 2 == 0 {
                let rows = whole(server, key, &roles).await;
                let id = rows[(step as usize * 97) % rows.len()]["id"]
                    .as_str()
                    .unwrap()
                    .to_string();
                server
                    .delete(key, &format!("{roles}{id}/"))
                    .await
                    .expect(StatusCode::NO_CONTENT);
                format!("role {id} was deleted")
            } else {
                let name = format!("Added role {step}");
                server
                    .post(key, &roles, json!({"name": name}))
                    .await
                    .expect(StatusCode::CREATED);
                format!("role {name:?} was created")
            }
        }
    })
    .await;

    walk_with_writes(server, key, &memberships, (43, 14, 3), 4, |step, _| {
        let memberships = memberships.clone();
        async move {
            let rows = whole(server, key, &memberships).await;
            let row = &rows[(step as usize * 389) % rows.len()];
            let id = row["id"].as_str().unwrap();
            server
                .delete(key, &format!("{memberships}{id}/"))
                .await
                .expect(StatusCode::NO_CONTENT);
            format!("membership {id} was deleted")
        }
    })
    .await;
}
