//! What PostHog changed since posthog.md was first written (its §15), row
//! by row, against the current flavor.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::support::{ADMIN, DEMO_DASHBOARD, DEMO_DASHBOARD_INSIGHTS, MEMBER, OWNER, TestServer};
use crate::today::{Today, keys};

/// An AI report over e-mail, made through `today.create`.
fn ai_report(extra: Value) -> Value {
    let mut body = json!({"insight": null, "prompt": "What changed in sign-ups this week?"});
    for (field, value) in extra.as_object().unwrap() {
        body[field] = value.clone();
    }
    body
}

#[track_caller]
fn refused(reply: &crate::support::Reply, attr: Option<&str>) -> String {
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{}", reply.text);
    assert_eq!(reply.json["attr"].as_str(), attr, "{}", reply.text);
    reply.json["detail"].as_str().unwrap().to_string()
}

/// 15-1: a delivery on save unless `send_test_now: false`; `true` delivers
/// whatever changed.
#[tokio::test]
async fn send_test_now_decides_the_delivery_on_save() {
    let today = Today::start().await;
    let quiet = today
        .create("oncall@hedgebox.dev", json!({"send_test_now": false}))
        .await;
    let quiet = quiet["id"].as_i64().unwrap();
    assert!(today.deliveries(quiet).await.is_empty());
    assert!(quiet > 0);
    let loud = today.create("oncall@hedgebox.dev", json!({})).await;
    let loud = loud["id"].as_i64().unwrap();
    assert_eq!(today.deliveries(loud).await.len(), 1);
    // A title change delivers nothing, unless asked for.
    today.patch(quiet, json!({"title": "Renamed"})).await;
    assert!(today.deliveries(quiet).await.is_empty());
    today
        .patch(quiet, json!({"title": "Again", "send_test_now": true}))
        .await;
    let delivered = today.deliveries(quiet).await;
    assert_eq!(delivered.len(), 1);
    assert_eq!(delivered[0]["trigger_type"], "target_change");
    // A change of target with `false` delivers nothing.
    today
        .patch(
            quiet,
            json!({"target_value": "data@hedgebox.dev", "send_test_now": false}),
        )
        .await;
    assert_eq!(today.deliveries(quiet).await.len(), 1);
    // It is never read back.
    assert!(today.subscription(quiet).await.get("send_test_now").is_none());
    let reply = today
        .server
        .patch(
            &today.key,
            &today.subscription_path(quiet),
            json!({"send_test_now": "maybe"}),
        )
        .await;
    assert_eq!(refused(&reply, Some("send_test_now")), "Must be a valid boolean.");
}

/// 15-2: an AI report's window, stored, validated, replaced whole.
#[tokio::test]
async fn ai_prompt_config_is_stored_checked_and_replaced_whole() {
    let today = Today::start().await;
    let window = json!({"window": {"mode": "last_n_days", "start_days_ago": 7}});
    let created = today
        .create(
            "oncall@hedgebox.dev",
            ai_report(json!({"ai_prompt_config": window})),
        )
        .await;
    let id = created["id"].as_i64().unwrap();
    assert_eq!(created["ai_prompt_config"], window);
    assert_eq!(today.subscription(id).await["ai_prompt_config"], window);
    let range = json!({"window": {"mode": "days_ago_range", "start_days_ago": 14, "end_days_ago": 7}});
    assert_eq!(
        today.patch(id, json!({"ai_prompt_config": range})).await["ai_prompt_config"],
        range
    );
    assert_eq!(
        today.patch(id, json!({"ai_prompt_config": null})).await["ai_prompt_config"],
        json!({})
    );
    for bad in [
        json!({"window": {"mode": "fortnightly"}}),
        json!({"window": {"mode": "last_n_days"}}),
        json!({"window": {"mode": "last_n_days", "start_days_ago": 400}}),
        json!({"window": {"mode": "days_ago_range", "start_days_ago": 3, "end_days_ago": 5}}),
        json!({"colour": "blue"}),
        json!("last week"),
    ] {
        let reply = today
            .server
            .patch(
                &today.key,
                &today.subscription_path(id),
                json!({"ai_prompt_config": bad}),
            )
            .await;
        refused(&reply, Some("ai_prompt_config"));
    }
    // Only an AI report has a window; every subscription reads `{}`.
    let insight = today.create("oncall@hedgebox.dev", json!({})).await;
    assert_eq!(insight["ai_prompt_config"], json!({}));
    let reply = today
        .server
        .patch(
            &today.key,
            &today.subscription_path(insight["id"].as_i64().unwrap()),
            json!({"ai_prompt_config": window}),
        )
        .await;
    assert_eq!(
        refused(&reply, Some("ai_prompt_config")),
        "ai_prompt_config is only valid for AI prompt subscriptions."
    );
}

/// 15-3: contexts by id in, with names out; at most three, the project's
/// own; left out keeps them, `[]` clears them.
#[tokio::test]
async fn contexts_are_written_by_id_and_read_with_names() {
    let today = Today::start().await;
    let insight = DEMO_DASHBOARD_INSIGHTS[1];
    let created = today
        .create(
            "oncall@hedgebox.dev",
            json!({"contexts": [{"dashboard_id": DEMO_DASHBOARD}, {"insight_id": insight}]}),
        )
        .await;
    let id = created["id"].as_i64().unwrap();
    let contexts = created["contexts"].as_array().unwrap().clone();
    assert_eq!(contexts.len(), 2);
    assert_eq!(contexts[0]["dashboard_id"], DEMO_DASHBOARD);
    assert_eq!(contexts[0]["dashboard_name"], crate::support::DEMO_DASHBOARD_NAME);
    assert_eq!(contexts[1]["insight_id"], insight);
    assert!(contexts[1]["insight_name"].is_string() && contexts[1]["insight_short_id"].is_string());
    assert_eq!(
        today.patch(id, json!({"title": "Kept"})).await["contexts"],
        json!(contexts)
    );
    let four =
        json!({"contexts": [{"insight_id": 1}, {"insight_id": 2}, {"insight_id": 3}, {"dashboard_id": 1}]});
    let path = today.subscription_path(id);
    let reply = today.server.patch(&today.key, &path, four).await;
    assert_eq!(
        refused(&reply, Some("contexts")),
        "Ensure this field has no more than 3 elements."
    );
    for (bad, attr) in [
        (json!([{"insight_id": 999_999}]), "contexts__0"),
        (json!([{"insight_id": 1, "dashboard_id": 1}]), "contexts__0"),
        (
            json!([{"dashboard_id": 1}, {"dashboard_id": "one"}]),
            "contexts__1",
        ),
        (json!({"insight_id": 1}), "contexts"),
    ] {
        let reply = today
            .server
            .patch(&today.key, &path, json!({"contexts": bad}))
            .await;
        refused(&reply, Some(attr));
    }
    assert_eq!(
        today.patch(id, json!({"contexts": []})).await["contexts"],
        json!([])
    );
}

/// 15-4: the cap is the server's, and its refusal names it.
#[tokio::test]
async fn the_export_cap_is_the_server_s() {
    let server = TestServer::demo_with(|options| options.export_cap = 2).await;
    let key = server.key(&["*"]);
    let body = |insights: &[i64]| {
        json!({
            "dashboard": DEMO_DASHBOARD,
            "dashboard_export_insights": insights,
            "target_type": "email",
            "target_value": "oncall@hedgebox.dev",
            "frequency": "weekly",
            "interval": 1,
            "start_date": "2026-12-01T09:00:00Z",
        })
    };
    let path = server.subscriptions_path();
    let reply = server.post(&key, &path, body(&DEMO_DASHBOARD_INSIGHTS)).await;
    assert_eq!(
        refused(&reply, Some("dashboard_export_insights")),
        "Cannot select more than 2 insights."
    );
    server
        .post(&key, &path, body(&DEMO_DASHBOARD_INSIGHTS[..2]))
        .await
        .expect(StatusCode::CREATED);
}

/// 15-5: subscriptions of several insights, or of a dashboard's insights;
/// a value that is not ids is refused, never ignored.
#[tokio::test]
async fn insights_and_dashboard_tiles_filter_the_list() {
    let today = Today::start().await;
    let path = today.path("subscriptions/");
    let all = today.walk(&today.server.url(&format!("{path}?limit=1000"))).await;
    let of = |insights: &[i64]| -> Vec<i64> {
        let mut ids: Vec<i64> = all
            .iter()
            .filter(|row| {
                row["insight"]
                    .as_i64()
                    .is_some_and(|insight| insights.contains(&insight))
            })
            .map(|row| row["id"].as_i64().unwrap())
            .collect();
        ids.sort_unstable();
        ids
    };
    let ids = |rows: Vec<Value>| -> Vec<i64> {
        let mut ids: Vec<i64> = rows.iter().map(|row| row["id"].as_i64().unwrap()).collect();
        ids.sort_unstable();
        ids
    };
    let two = ids(today
        .walk(&today.server.url(&format!("{path}?limit=1000&insights=1,2")))
        .await);
    assert!(!two.is_empty());
    assert_eq!(two, of(&[1, 2]));
    let tiles = ids(today
        .walk(
            &today
                .server
                .url(&format!("{path}?limit=1000&dashboard_tiles={DEMO_DASHBOARD}")),
        )
        .await);
    assert_eq!(tiles, of(&DEMO_DASHBOARD_INSIGHTS));
    for bad in ["insights=1,x", "insights=,", "dashboard_tiles=kpis"] {
        let reply = today.get(&format!("{path}?{bad}")).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{bad}: {}", reply.text);
    }
}

/// 15-6 and 15-11: a delivery's charts and snapshot, an error only for a
/// recipient that failed; an unknown subscription has no deliveries.
#[tokio::test]
async fn deliveries_carry_charts_and_errors_only_where_they_failed() {
    let today = Today::start().await;
    let created = today
        .create("ada.okafor@hedgebox.dev,nobody@hedgebox.invalid", json!({}))
        .await;
    let delivery = &today.deliveries(created["id"].as_i64().unwrap()).await[0];
    assert!(delivery.get("ai_report_charts").is_some());
    assert!(delivery["content_snapshot"].is_object());
    for result in delivery["recipient_results"].as_array().unwrap() {
        let failed = result["status"] == "failed";
        assert_eq!(result.get("error").is_some(), failed, "{result}");
    }
    let unknown = today.get(&today.deliveries_path(987_654)).await;
    assert_eq!(unknown.expect(StatusCode::OK)["results"], json!([]));
}

/// 15-7: the user object always has its role at the organization, and a
/// hedgehog of four keys or none.
#[tokio::test]
async fn users_always_show_their_role_and_a_normalised_hedgehog() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let members = server
        .get(
            &key,
            &format!("/api/organizations/{}/members/?limit=100", server.organization),
        )
        .await;
    let members = members.expect(StatusCode::OK)["results"]
        .as_array()
        .unwrap()
        .clone();
    let mut nulls = 0;
    for member in &members {
        let user = &member["user"];
        let role = user
            .get("role_at_organization")
            .unwrap_or_else(|| panic!("{user}"));
        nulls += usize::from(role.is_null());
        match &user["hedgehog_config"] {
            Value::Null => {}
            hedgehog => assert_eq!(
                keys(hedgehog),
                ["accessories", "color", "skin", "use_as_profile"],
                "{hedgehog}"
            ),
        }
    }
    assert!(nulls > 0, "some users gave no role");
}

/// 15-8: an AI report is re-enabled only with a prompt and its creator.
#[tokio::test]
async fn an_ai_report_is_re_enabled_only_with_a_prompt_and_its_creator() {
    let today = Today::start().await;
    let created = today
        .create("oncall@hedgebox.dev", ai_report(json!({"enabled": false})))
        .await;
    let id = created["id"].as_i64().unwrap();
    let path = today.subscription_path(id);
    let db = today.server.running.db.clone();
    db.write_blocking(move |tx| {
        tx.execute("UPDATE subscriptions SET prompt = '   ' WHERE id = ?1", [id])?;
        Ok(())
    })
    .unwrap();
    let reply = today
        .server
        .patch(&today.key, &path, json!({"enabled": true}))
        .await;
    assert_eq!(
        refused(&reply, None),
        "Cannot re-enable AI subscription: prompt is invalid"
    );
    // One made by someone who has since left cannot run with their access.
    let member = today.server.key_for(MEMBER, &["*"]);
    let theirs = today
        .server
        .post(
            &member,
            &today.path("subscriptions/"),
            json!({
                "prompt": "Summarise churn", "enabled": false, "target_type": "email",
                "target_value": "oncall@hedgebox.dev", "frequency": "weekly", "interval": 1,
                "start_date": "2026-12-01T09:00:00Z",
            }),
        )
        .await;
    let theirs = theirs.expect(StatusCode::CREATED)["id"].as_i64().unwrap();
    db.write_blocking(|tx| {
        tx.execute("UPDATE users SET is_active = 0 WHERE email = ?1", [MEMBER])?;
        Ok(())
    })
    .unwrap();
    let reply = today
        .server
        .patch(
            &today.key,
            &today.subscription_path(theirs),
            json!({"enabled": true}),
        )
        .await;
    assert_eq!(
        refused(&reply, Some("enabled")),
        "Cannot re-enable AI subscription: the original creator is unavailable."
    );
}

/// 15-10: a role may be replaced whole, its name required.
#[tokio::test]
async fn a_role_is_replaced_with_put() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let role = server.get(&key, &server.roles_path()).await.json["results"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let path = format!("{}{role}/", server.roles_path());
    let missing = server.call(Method::PUT, Some(&key), &path, Some(json!({}))).await;
    assert_eq!(refused(&missing, Some("name")), "This field is required.");
    let replaced = server
        .call(Method::PUT, Some(&key), &path, Some(json!({"name": "Replaced"})))
        .await;
    assert_eq!(replaced.expect(StatusCode::OK)["name"], "Replaced");
}

/// 15-13: a member's level, removal and leaving, and their keys' summary,
/// in PostHog's words (the keys as its web app's session reads them: a
/// server told to list them to a personal key).
#[tokio::test]
async fn members_change_level_leave_and_show_their_keys() {
    let server = TestServer::demo_with(|options| options.keys_listed = true).await;
    let owner = server.key(&["*"]);
    let admin = server.key_for(ADMIN, &["*"]);
    let member = server.key_for(MEMBER, &["*"]);
    let members_path = format!("/api/organizations/{}/members/", server.organization);
    let everyone = server.get(&owner, &format!("{members_path}?limit=100")).await;
    let everyone = everyone.expect(StatusCode::OK)["results"]
        .as_array()
        .unwrap()
        .clone();
    let uuid_of = |email: &str| -> String {
        everyone
            .iter()
            .find(|m| m["user"]["email"] == email)
            .map(|m| m["user"]["uuid"].as_str().unwrap().to_string())
            .unwrap_or_else(|| panic!("{email}"))
    };
    let member_path = format!("{members_path}{}/", uuid_of(MEMBER));
    let denied = |reply: crate::support::Reply| {
        reply
            .expect_error(
                StatusCode::FORBIDDEN,
                "authentication_error",
                "permission_denied",
                None,
            )
            .to_string()
    };
    // A plain member may not edit others, nobody their own level, and an
    // admin may not make an owner.
    let other = format!("{members_path}{}/", uuid_of(ADMIN));
    assert_eq!(
        denied(server.patch(&member, &other, json!({"level": 1})).await),
        "You can only edit others if you are an admin."
    );
    assert_eq!(
        denied(server.patch(&admin, &other, json!({"level": 1})).await),
        "You can't change your own access level."
    );
    assert_eq!(
        denied(server.patch(&admin, &member_path, json!({"level": 15})).await),
        "You can only make another member owner if you're this organization's owner."
    );
    let bad = server.patch(&owner, &member_path, json!({"level": 9})).await;
    assert_eq!(refused(&bad, Some("level")), "\"9\" is not a valid choice.");
    let promoted = server.patch(&admin, &member_path, json!({"level": 8})).await;
    assert_eq!(promoted.expect(StatusCode::OK)["level"], 8);
    // The keys' summary: never a key.
    let keys = server
        .get(&owner, &format!("{member_path}scoped_api_keys/"))
        .await;
    let keys = keys.expect(StatusCode::OK).clone();
    assert_eq!(keys["has_keys"], true);
    assert!(keys["keys"][0]["scopes"].is_array() && keys["keys"][0].get("value").is_none());
    assert!(!keys.to_string().contains(&member[4..]));
    // Removing a member takes their roles away.
    let in_roles = |server: &TestServer| {
        let db = server.running.db.clone();
        db.read_blocking(|c| {
            Ok(c.query_row(
                "SELECT COUNT(*) FROM role_memberships r JOIN users u ON u.id = r.user_id WHERE u.email = ?1",
                [MEMBER],
                |row| row.get::<_, i64>(0),
            )?)
        })
        .unwrap()
    };
    assert!(in_roles(&server) > 0, "the demo's member is in a role");
    let removed = server
        .call(Method::DELETE, Some(&admin), &member_path, None)
        .await;
    assert_eq!(removed.status, StatusCode::NO_CONTENT, "{}", removed.text);
    assert_eq!(in_roles(&server), 0);
    assert_eq!(
        server
            .get(&owner, &format!("{member_path}scoped_api_keys/"))
            .await
            .status,
        StatusCode::NOT_FOUND
    );
    // Leaving is removing oneself.
    let leave = server.call(Method::DELETE, Some(&admin), &other, None).await;
    assert_eq!(leave.status, StatusCode::NO_CONTENT, "{}", leave.text);
    let after = server.get(&owner, &format!("{members_path}?limit=100")).await;
    let emails: Vec<String> = after.expect(StatusCode::OK)["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["user"]["email"].as_str().unwrap().to_string())
        .collect();
    assert!(!emails.contains(&ADMIN.to_string()) && emails.contains(&OWNER.to_string()));
}

/// 15-20: today's PostHog lists a member's keys to its web app's sessions
/// alone: a personal API key is refused, whoever it is and whomever it
/// asks about, before anything else is looked at.
#[tokio::test]
async fn a_members_keys_are_refused_to_a_personal_api_key() {
    let server = TestServer::demo().await;
    let owner = server.key(&["*"]);
    let members_path = format!("/api/organizations/{}/members/", server.organization);
    let everyone = server.get(&owner, &format!("{members_path}?limit=100")).await;
    let uuid = everyone.expect(StatusCode::OK)["results"][0]["user"]["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    for path in [
        format!("{members_path}{uuid}/scoped_api_keys/"),
        format!("{members_path}00000000-0000-0000-0000-000000000000/scoped_api_keys/"),
        "/api/organizations/00000000-0000-0000-0000-000000000000/members/x/scoped_api_keys/".to_string(),
    ] {
        let refused = server.get(&owner, &path).await;
        assert_eq!(refused.status, StatusCode::FORBIDDEN, "{path}: {}", refused.text);
        assert_eq!(
            refused.json,
            json!({
                "type": "authentication_error",
                "code": "permission_denied",
                "detail": "This action does not support personal API key access.",
                "attr": null
            })
        );
    }
    // The older API (the seed flavour) answers it.
    let seed = TestServer::seed().await;
    let key = seed.key(&["*"]);
    let members_path = format!("/api/organizations/{}/members/", seed.organization);
    let everyone = seed.get(&key, &format!("{members_path}?limit=100")).await;
    let uuid = everyone.expect(StatusCode::OK)["results"][0]["user"]["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let keys = seed
        .get(&key, &format!("{members_path}{uuid}/scoped_api_keys/"))
        .await;
    assert!(keys.expect(StatusCode::OK)["has_keys"].is_boolean());
}

/// §7: a members' search finds exactly the people whose first name, last
/// name or e-mail holds the text in any case, through the index or not.
#[tokio::test]
async fn a_members_search_finds_what_a_substring_search_finds() {
    let server = TestServer::demo_with(|options| options.generate_members = 400).await;
    let key = server.key(&["*"]);
    let path = format!("/api/organizations/{}/members/", server.organization);
    let everyone = server.get(&key, &format!("{path}?limit=1000")).await;
    let everyone = everyone.expect(StatusCode::OK)["results"]
        .as_array()
        .unwrap()
        .clone();
    assert!(everyone.len() > 400);
    for search in ["el", "ELENA", "hedgebox", "ov", "ová", "zzz", "a.o", "50%"] {
        let wanted = search.to_lowercase();
        let mut expected: Vec<&str> = everyone
            .iter()
            .filter(|member| {
                ["first_name", "last_name", "email"].iter().any(|field| {
                    member["user"][*field]
                        .as_str()
                        .is_some_and(|text| text.to_lowercase().contains(&wanted))
                })
            })
            .map(|member| member["id"].as_str().unwrap())
            .collect();
        let found = server
            .get(
                &key,
                &format!("{path}?limit=1000&search={}", search.replace('%', "%25")),
            )
            .await;
        let found = found.expect(StatusCode::OK).clone();
        let mut ids: Vec<&str> = found["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|member| member["id"].as_str().unwrap())
            .collect();
        assert_eq!(found["count"].as_u64().unwrap() as usize, ids.len(), "{search}");
        expected.sort_unstable();
        ids.sort_unstable();
        assert_eq!(ids, expected, "{search}");
    }
}
