//! posthog.md §10 and §11 against the current flavor: Slack integrations
//! and their channels for the Slack picker, and dashboards whose tiles name
//! the insights a dashboard subscription may export.

use std::collections::BTreeSet;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{MEMBER, OWNER};
use crate::today::{Today, date, keys};

const INTEGRATION_FIELDS: [&str; 10] = [
    "config",
    "created_at",
    "created_by",
    "display_name",
    "errors",
    "files_write_requestable",
    "id",
    "installation_shared",
    "installation_status",
    "kind",
];

const CHANNEL_FIELDS: [&str; 6] = [
    "id",
    "is_ext_shared",
    "is_member",
    "is_private",
    "is_private_without_access",
    "name",
];

fn id_of(value: &Value) -> i64 {
    value["id"].as_i64().unwrap()
}

fn names(channels: &Value) -> Vec<String> {
    channels
        .as_array()
        .unwrap()
        .iter()
        .map(|channel| channel["name"].as_str().unwrap().to_string())
        .collect()
}

/// The project's Slack integrations, oldest first: (revoked, working).
async fn slack(today: &Today) -> (Value, Value) {
    let listed = today.get(&today.path("integrations/?kind=slack")).await;
    let rows = listed.expect(StatusCode::OK)["results"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(rows.len(), 2, "{rows:?}");
    (rows[0].clone(), rows[1].clone())
}

/// Adds an integration to the first project straight into the database.
fn insert_integration(today: &Today, kind: &str, config: Value) -> i64 {
    let project = today.server.project;
    let kind = kind.to_string();
    today
        .server
        .running
        .db
        .write_blocking(move |tx| {
            tx.execute(
                "INSERT INTO integrations (project_id, kind, display_name, config, errors, created_at)
                 VALUES (?1, ?2, 'Added', ?3, '', '2026-11-20T00:00:00.000000Z')",
                rusqlite::params![project, kind, config.to_string()],
            )?;
            Ok(tx.last_insert_rowid())
        })
        .unwrap()
}

/// §10: the list by kind, oldest first, with every field; retrieve.
#[tokio::test]
async fn slack_integrations_are_listed_oldest_first_with_their_fields() {
    let today = Today::start().await;
    let page = today.get(&today.path("integrations/?kind=slack")).await;
    let page = page.expect(StatusCode::OK).clone();
    assert_eq!(keys(&page), ["count", "next", "previous", "results"]);
    assert_eq!(page["count"], 2);
    let (revoked, working) = slack(&today).await;
    for integration in [&revoked, &working] {
        assert_eq!(keys(integration), INTEGRATION_FIELDS, "{integration}");
        assert_eq!(integration["kind"], "slack");
        assert!(
            integration["config"]["authed_user"]["id"].is_string(),
            "{integration}"
        );
        assert!(integration["config"]["team"]["name"].is_string(), "{integration}");
        assert_eq!(integration["created_by"]["email"], OWNER);
        assert_eq!(integration["files_write_requestable"], false);
        assert!(integration["installation_shared"].is_null());
        assert!(integration["installation_status"].is_null());
        assert!(integration["display_name"].is_string());
        date(&integration["created_at"]);
    }
    assert!(
        date(&revoked["created_at"]) < date(&working["created_at"]),
        "created_at, id"
    );
    assert_eq!(working["errors"], "");
    assert_ne!(revoked["errors"], "");

    // Every kind without the filter; none of another kind.
    let all = today.get(&today.path("integrations/")).await;
    assert_eq!(all.expect(StatusCode::OK)["results"], page["results"]);
    let github = today.get(&today.path("integrations/?kind=github")).await;
    assert_eq!(github.expect(StatusCode::OK)["count"], 0);
    let added = insert_integration(&today, "github", json!({"account": {"name": "hedgebox"}}));
    let github = today.get(&today.path("integrations/?kind=github")).await;
    let github = github.expect(StatusCode::OK);
    assert_eq!(github["count"], 1);
    assert_eq!(github["results"][0]["id"], added);
    assert_eq!(
        today.get(&today.path("integrations/?kind=slack")).await.json["count"],
        2
    );

    // Retrieve, here and under /api/environments/.
    let one = today
        .get(&today.path(&format!("integrations/{}/", id_of(&working))))
        .await;
    assert_eq!(one.expect(StatusCode::OK), &working);
    let environments = format!(
        "/api/environments/{}/integrations/{}/",
        today.server.project,
        id_of(&working)
    );
    assert_eq!(today.get(&environments).await.expect(StatusCode::OK), &working);
    for missing in ["999999".to_string(), "slack".to_string()] {
        let reply = today.get(&today.path(&format!("integrations/{missing}/"))).await;
        let detail = reply.expect_error(StatusCode::NOT_FOUND, "invalid_request", "not_found", None);
        assert_eq!(detail, "Not found.");
    }

    // The other project has its own, and cannot see these.
    let theirs = today.get("/api/projects/2/integrations/?kind=slack").await;
    let theirs = theirs.expect(StatusCode::OK)["results"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(theirs.len(), 2);
    assert!(
        theirs
            .iter()
            .all(|row| row["id"] != working["id"] && row["id"] != revoked["id"])
    );
    let crossed = today
        .get(&format!("/api/projects/2/integrations/{}/", id_of(&working)))
        .await;
    crossed.expect_error(StatusCode::NOT_FOUND, "invalid_request", "not_found", None);
}

/// §10: the channels' shape, search, limit and offset, and a single lookup.
#[tokio::test]
async fn channels_are_searched_and_paged_as_the_picker_asks() {
    let today = Today::start().await;
    let (_, working) = slack(&today).await;
    let path = today.path(&format!("integrations/{}/channels/", id_of(&working)));
    let all = today.get(&path).await.expect(StatusCode::OK).clone();
    assert_eq!(keys(&all), ["channels", "has_more", "lastRefreshedAt"]);
    assert_eq!(all["has_more"], false);
    assert_eq!(date(&all["lastRefreshedAt"]), today.now());
    let channels = all["channels"].as_array().unwrap().clone();
    assert_eq!(
        channels.len(),
        19,
        "the demo's channels, private ones included for their installer"
    );
    for channel in &channels {
        assert_eq!(keys(channel), CHANNEL_FIELDS, "{channel}");
        assert!(!channel["name"].as_str().unwrap().starts_with('#'), "{channel}");
        assert_eq!(channel["is_private_without_access"], false);
    }
    let listed = names(&all["channels"]);
    let mut sorted = listed.clone();
    sorted.sort();
    assert_eq!(listed, sorted, "by name");
    assert!(channels.iter().any(|channel| channel["is_private"] == true));

    // limit and offset walk the same list, with has_more.
    let mut walked = Vec::new();
    for offset in [0, 5, 10, 15] {
        let page = today.get(&format!("{path}?limit=5&offset={offset}")).await;
        let page = page.expect(StatusCode::OK).clone();
        assert_eq!(page["has_more"], offset + 5 < 19, "{offset}");
        walked.extend(page["channels"].as_array().unwrap().iter().cloned());
    }
    assert_eq!(walked, channels);
    let beyond = today.get(&format!("{path}?offset=50")).await;
    let beyond = beyond.expect(StatusCode::OK);
    assert_eq!(
        (&beyond["channels"], &beyond["has_more"]),
        (&json!([]), &json!(false))
    );
    let exact = today.get(&format!("{path}?limit=19")).await;
    assert_eq!(exact.expect(StatusCode::OK)["has_more"], false);
    let widest = today.get(&format!("{path}?limit=200")).await;
    assert_eq!(widest.expect(StatusCode::OK)["channels"], all["channels"]);

    // search: by name (a leading # or blanks change nothing) or by id.
    let growth = today.get(&format!("{path}?search=GROW")).await;
    assert_eq!(names(&growth.expect(StatusCode::OK)["channels"]), ["growth"]);
    let hashed = today.get(&format!("{path}?search=%23growth%20")).await;
    assert_eq!(names(&hashed.expect(StatusCode::OK)["channels"]), ["growth"]);
    let some = &channels[4];
    let by_id = today
        .get(&format!("{path}?search={}", some["id"].as_str().unwrap()))
        .await;
    assert_eq!(by_id.expect(StatusCode::OK)["channels"], json!([some]));
    let none = today.get(&format!("{path}?search=no-such-channel")).await;
    let none = none.expect(StatusCode::OK);
    assert_eq!(
        (&none["channels"], &none["has_more"]),
        (&json!([]), &json!(false))
    );
    let blank = today.get(&format!("{path}?search=%20")).await;
    assert_eq!(blank.expect(StatusCode::OK)["channels"], all["channels"]);
    let wildcard = today.get(&format!("{path}?search=%25")).await;
    assert_eq!(
        wildcard.expect(StatusCode::OK)["channels"],
        json!([]),
        "% is no wildcard"
    );

    // channel_id: that channel alone, and nothing else in the answer; the
    // other parameters are ignored.
    let lookup = today
        .get(&format!(
            "{path}?channel_id={}&limit=0&search=zzz",
            some["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(lookup.expect(StatusCode::OK), &json!({"channels": [some]}));
    let unknown = today.get(&format!("{path}?channel_id=C0NOPE")).await;
    assert_eq!(unknown.expect(StatusCode::OK), &json!({"channels": []}));

    // Under /api/environments/ too.
    let environments = format!(
        "/api/environments/{}/integrations/{}/channels/",
        today.server.project,
        id_of(&working)
    );
    let same = today.get(&environments).await;
    assert_eq!(same.expect(StatusCode::OK)["channels"], all["channels"]);
}

/// §10: limit is 1 to 200 and offset at least 0, refused in DRF's words.
#[tokio::test]
async fn channel_limits_are_refused_in_drfs_words() {
    let today = Today::start().await;
    let (_, working) = slack(&today).await;
    let path = today.path(&format!("integrations/{}/channels/", id_of(&working)));
    for (query, code, attr, detail) in [
        (
            "limit=0",
            "min_value",
            "limit",
            "Ensure this value is greater than or equal to 1.",
        ),
        (
            "limit=-4",
            "min_value",
            "limit",
            "Ensure this value is greater than or equal to 1.",
        ),
        (
            "limit=201",
            "max_value",
            "limit",
            "Ensure this value is less than or equal to 200.",
        ),
        (
            "limit=many",
            "invalid_input",
            "limit",
            "A valid integer is required.",
        ),
        (
            "offset=-1",
            "min_value",
            "offset",
            "Ensure this value is greater than or equal to 0.",
        ),
        (
            "offset=1.5",
            "invalid_input",
            "offset",
            "A valid integer is required.",
        ),
        (
            "offset=-1&limit=999",
            "max_value",
            "limit",
            "Ensure this value is less than or equal to 200.",
        ),
    ] {
        let reply = today.get(&format!("{path}?{query}")).await;
        let text = reply.expect_error(StatusCode::BAD_REQUEST, "validation_error", code, Some(attr));
        assert_eq!(text, detail, "{query}");
    }
    for fine in ["limit=1", "limit=200", "limit=%207%20", "limit=3.0", "offset=0"] {
        let reply = today.get(&format!("{path}?{fine}")).await;
        reply.expect(StatusCode::OK);
    }
    let one = today.get(&format!("{path}?limit=1")).await;
    let one = one.expect(StatusCode::OK);
    assert_eq!(one["channels"].as_array().unwrap().len(), 1);
    assert_eq!(one["has_more"], true);
}

/// §10: private channels are for the integration's installer alone.
#[tokio::test]
async fn private_channels_are_shown_only_to_the_installer() {
    let today = Today::start().await;
    let (_, working) = slack(&today).await;
    let path = today.path(&format!("integrations/{}/channels/", id_of(&working)));
    let mine = today.get(&path).await.expect(StatusCode::OK)["channels"].clone();
    let private: Vec<&Value> = mine
        .as_array()
        .unwrap()
        .iter()
        .filter(|channel| channel["is_private"] == true)
        .collect();
    assert!(!private.is_empty());

    let member = today.server.key_for(MEMBER, &["integration:read"]);
    let theirs = today.server.get(&member, &path).await;
    let theirs = theirs.expect(StatusCode::OK)["channels"].clone();
    let public: Vec<&Value> = mine
        .as_array()
        .unwrap()
        .iter()
        .filter(|channel| channel["is_private"] == false)
        .collect();
    assert_eq!(theirs.as_array().unwrap().iter().collect::<Vec<_>>(), public);
    let lookup = today
        .server
        .get(
            &member,
            &format!("{path}?channel_id={}", private[0]["id"].as_str().unwrap()),
        )
        .await;
    assert_eq!(lookup.expect(StatusCode::OK), &json!({"channels": []}));
    let search = today
        .server
        .get(
            &member,
            &format!("{path}?search={}", private[0]["name"].as_str().unwrap()),
        )
        .await;
    assert_eq!(search.expect(StatusCode::OK)["channels"], json!([]));
}

/// §10's errors, word for word: revoked, not Slack, no installing user.
#[tokio::test]
async fn channels_of_a_broken_integration_say_what_to_do() {
    let today = Today::start().await;
    let (revoked, _) = slack(&today).await;
    let path = |id: i64| today.path(&format!("integrations/{id}/channels/"));
    for query in [
        "",
        "?search=metrics",
        "?channel_id=C0OLD0001",
        "?limit=10&offset=0",
    ] {
        let reply = today.get(&format!("{}{query}", path(id_of(&revoked)))).await;
        let detail = reply.expect_error(
            StatusCode::BAD_REQUEST,
            "validation_error",
            "slack_integration_inactive",
            None,
        );
        assert_eq!(
            detail,
            "Your Slack connection is no longer active. Reconnect Slack to load channels and pick a destination.",
            "{query}"
        );
    }
    // The query's own values are checked before Slack is asked.
    let limited = today.get(&format!("{}?limit=0", path(id_of(&revoked)))).await;
    limited.expect_error(
        StatusCode::BAD_REQUEST,
        "validation_error",
        "min_value",
        Some("limit"),
    );

    let github = insert_integration(&today, "github", json!({"account": {"name": "hedgebox"}}));
    let reply = today.get(&path(github)).await;
    let detail = reply.expect_error(StatusCode::BAD_REQUEST, "validation_error", "invalid_input", None);
    assert_eq!(
        detail,
        "channels endpoint is only supported for Slack integrations"
    );

    let anonymous = insert_integration(&today, "slack", json!({"team": {"id": "T0NEW", "name": "New"}}));
    let reply = today.get(&path(anonymous)).await;
    let detail = reply.expect_error(StatusCode::BAD_REQUEST, "validation_error", "invalid_input", None);
    assert_eq!(
        detail,
        "SlackIntegration: Missing authed_user_id in integration config"
    );

    let missing = today.get(&path(999_999)).await;
    missing.expect_error(StatusCode::NOT_FOUND, "invalid_request", "not_found", None);
}

/// §3: integrations need integration:read (write satisfies it).
#[tokio::test]
async fn integrations_need_the_integration_read_scope() {
    let today = Today::start().await;
    let (_, working) = slack(&today).await;
    let paths = [
        today.path("integrations/?kind=slack"),
        today.path(&format!("integrations/{}/", id_of(&working))),
        today.path(&format!("integrations/{}/channels/", id_of(&working))),
    ];
    let without = today
        .server
        .key(&["subscription:write", "dashboard:read", "insight:read"]);
    for path in &paths {
        let reply = today.server.get(&without, path).await;
        let detail = reply.expect_error(
            StatusCode::FORBIDDEN,
            "authentication_error",
            "permission_denied",
            None,
        );
        assert_eq!(
            detail, "API key missing required scope 'integration:read'",
            "{path}"
        );
    }
    for scopes in [["integration:read"], ["integration:write"]] {
        let with = today.server.key(&scopes);
        for path in &paths {
            today.server.get(&with, path).await.expect(StatusCode::OK);
        }
    }
}

/// §11: the list has no tiles; a dashboard's tiles come in layout order,
/// and their insights are exactly what a dashboard subscription may export.
#[tokio::test]
async fn dashboard_tiles_name_the_insights_a_subscription_may_export() {
    let today = Today::start().await;
    let listed = today.server.all(&today.key, &today.path("dashboards/")).await;
    assert!(!listed.is_empty());
    assert!(
        listed.iter().all(|dashboard| dashboard.get("tiles").is_none()),
        "{listed:?}"
    );

    let first = id_of(&listed[0]);
    let dashboard = today.get(&today.path(&format!("dashboards/{first}/"))).await;
    let dashboard = dashboard.expect(StatusCode::OK).clone();
    assert_eq!(dashboard["id"], first);
    assert_eq!(dashboard["name"], listed[0]["name"]);
    let tiles = dashboard["tiles"].as_array().unwrap();
    assert!(tiles.len() >= 2, "{dashboard}");
    let mut positions = Vec::new();
    for tile in tiles {
        for field in [
            "id",
            "layouts",
            "color",
            "insight",
            "text",
            "button_tile",
            "widget",
            "order",
            "last_refresh",
            "is_cached",
        ] {
            assert!(tile.get(field).is_some(), "tile lacks {field}: {tile}");
        }
        let sm = &tile["layouts"]["sm"];
        positions.push((sm["y"].as_i64().unwrap(), sm["x"].as_i64().unwrap()));
        if !tile["insight"].is_null() {
            assert!(tile["insight"]["id"].is_i64(), "{tile}");
            assert!(tile["insight"]["short_id"].is_string(), "{tile}");
        }
    }
    let mut sorted = positions.clone();
    sorted.sort();
    assert_eq!(positions, sorted, "by layouts.sm: y, then x");
    let exportable: BTreeSet<i64> = tiles
        .iter()
        .filter_map(|tile| tile["insight"]["id"].as_i64())
        .collect();
    assert!(!exportable.is_empty() && exportable.len() <= 6);
    let environments = format!("/api/environments/{}/dashboards/{first}/", today.server.project);
    assert_eq!(today.get(&environments).await.expect(StatusCode::OK), &dashboard);

    // Every exportable insight together: created.
    let create = |insights: Vec<i64>| {
        json!({
            "dashboard": first,
            "dashboard_export_insights": insights,
            "target_type": "email",
            "target_value": "board@hedgebox.dev",
            "frequency": "weekly",
            "interval": 1,
            "start_date": "2026-12-01T09:00:00Z",
        })
    };
    let all: Vec<i64> = exportable.iter().copied().collect();
    let created = today
        .server
        .post(&today.key, &today.path("subscriptions/"), create(all.clone()))
        .await;
    let created = created.expect(StatusCode::CREATED);
    let chosen: BTreeSet<i64> = created["dashboard_export_insights"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| id.as_i64().unwrap())
        .collect();
    assert_eq!(chosen, exportable);
    assert_eq!(created["resource_type"], "dashboard");

    // Insights of the project that are not on this dashboard: refused, counted.
    let strays: Vec<i64> = today
        .insights()
        .await
        .into_iter()
        .filter(|id| !exportable.contains(id))
        .take(2)
        .collect();
    assert_eq!(strays.len(), 2);
    for (insights, detail) in [
        (vec![all[0], strays[0]], "1 invalid insight(s) selected."),
        (strays.clone(), "2 invalid insight(s) selected."),
    ] {
        let refused = today
            .server
            .post(&today.key, &today.path("subscriptions/"), create(insights))
            .await;
        let text = refused.expect_error(
            StatusCode::BAD_REQUEST,
            "validation_error",
            "invalid_input",
            Some("dashboard_export_insights"),
        );
        assert_eq!(text, detail);
    }

    // Unknown, non-numeric, and another project's dashboards are not found.
    let theirs = today.server.all(&today.key, "/api/projects/2/dashboards/").await;
    for path in [
        today.path("dashboards/999999/"),
        today.path("dashboards/main/"),
        today.path(&format!("dashboards/{}/", id_of(&theirs[0]))),
    ] {
        let reply = today.get(&path).await;
        reply.expect_error(StatusCode::NOT_FOUND, "invalid_request", "not_found", None);
    }
    // dashboard:read is needed.
    let without = today.server.key(&["insight:read", "subscription:read"]);
    let refused = today
        .server
        .get(&without, &today.path(&format!("dashboards/{first}/")))
        .await;
    let detail = refused.expect_error(
        StatusCode::FORBIDDEN,
        "authentication_error",
        "permission_denied",
        None,
    );
    assert_eq!(detail, "API key missing required scope 'dashboard:read'");
}
