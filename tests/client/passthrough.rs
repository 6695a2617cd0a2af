//! `-o json` prints the server's JSON: the objects as they came, unknown
//! fields and nulls kept, nothing added (issue 20). A proxy in front of the
//! reference server answers with objects from a newer PostHog.

use serde_json::{Value, json};

use crate::support::TestServer;
use crate::support::proxy::{Fault, FaultProxy};

/// The real binary against `base`, with `-o json`.
async fn json_of(base: &str, key: &str, args: &[&str]) -> Value {
    let args: Vec<&str> = args.iter().chain(&["-o", "json"]).copied().collect();
    let run = crate::cli::orgdeck_at(base, key, &args, None, &[]).await;
    assert!(run.code == 0, "{args:?}: {}", run.stderr);
    run.json()
}

/// A subscription from a PostHog newer than this client: a field it does
/// not know, nulls where it has defaults, a target type it has never seen,
/// and fields left out.
fn future_subscription(id: i64) -> Value {
    json!({
        "id": id,
        "title": null,
        "target_type": "teams",
        "target_value": "https://teams.example/hook",
        "enabled": null,
        "deleted": null,
        "interval": 1,
        "a_field_from_2027": {"nested": [1, null, "two"]},
        "summary": "sent every day",
    })
}

fn page(rows: Vec<Value>) -> String {
    json!({"count": rows.len(), "next": null, "previous": null, "results": rows}).to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_output_is_what_the_server_sent() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let proxy = FaultProxy::start(&server.base).await;

    proxy.push(Fault::Answer(200, future_subscription(5).to_string()));
    assert_eq!(
        json_of(&proxy.base, &key, &["subs", "get", "5"]).await,
        future_subscription(5)
    );

    proxy.push(Fault::Answer(
        200,
        page(vec![future_subscription(5), future_subscription(6)]),
    ));
    assert_eq!(
        json_of(&proxy.base, &key, &["subs", "list"]).await,
        json!([future_subscription(5), future_subscription(6)])
    );

    let role = json!({"id": "00000000-0000-4000-8000-000000000011", "name": "Ops", "members": null, "is_default": false, "scim_managed": true});
    proxy.push(Fault::Answer(200, page(vec![role.clone()])));
    assert_eq!(
        json_of(&proxy.base, &key, &["roles", "list"]).await,
        json!([role])
    );
    proxy.push(Fault::Answer(200, role.to_string()));
    assert_eq!(
        json_of(
            &proxy.base,
            &key,
            &["roles", "get", "00000000-0000-4000-8000-000000000011"]
        )
        .await,
        role
    );

    let delivery = json!({
        "id": "d1", "subscription": 5, "status": "completed", "trigger_type": "scheduled",
        "recipient_results": [{"recipient": "a@x.dev", "status": "success", "delivered_via": "ses"}],
        "created_at": "2026-11-20T09:00:00Z", "error": null, "ai_report_charts": null,
    });
    proxy.push(Fault::Answer(
        200,
        json!({"next": null, "previous": null, "results": [delivery.clone()]}).to_string(),
    ));
    assert_eq!(
        json_of(&proxy.base, &key, &["subs", "deliveries", "5"]).await,
        json!([delivery])
    );

    // Without faults, the reference server's own objects pass through as
    // they are: what `-o json` prints is what the API answers.
    let answered = server
        .get(&key, &format!("{}7/", server.subscriptions_path()))
        .await;
    assert_eq!(
        json_of(&server.base, &key, &["subs", "get", "7"]).await,
        answered.json
    );
}

/// A list's rows go out as the server wrote them, never read into values:
/// a number's digits and a string's escapes stay as they were, characters
/// a terminal would act on are escaped, and `people list` adds `roles` to
/// the member's object as its last key, the rest as it came.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_rows_pass_through_as_their_text() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let proxy = FaultProxy::start(&server.base).await;
    let row = "{\"id\":5,\"price\":1.50,\"big\":1E+2,\"title\":\"caf\\u00e9 \u{202e}x\u{9b}\",\"none\":{}, \"list\":[ ]}";
    let sent = format!("{{\"count\":1,\"next\":null,\"previous\":null,\"results\":[{row}]}}");
    proxy.push(Fault::Answer(200, sent));
    let args = ["subs", "list", "-o", "json"];
    let run = crate::cli::orgdeck_at(&proxy.base, &key, &args, None, &[]).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "[\n  {\n    \"id\": 5,\n    \"price\": 1.50,\n    \"big\": 1E+2,\n    \"title\": \"caf\\u00e9 \\u202ex\\u009b\",\n    \"none\": {},\n    \"list\": []\n  }\n]\n"
    );
    assert_eq!(run.json(), json!([serde_json::from_str::<Value>(row).unwrap()]));

    // A member of no role, then one whose object already has `roles`.
    let member = |id: &str, uuid: &str, extra: &str| {
        format!(
            "{{\"id\":\"{id}\",\"user\":{{\"uuid\":\"{uuid}\",\"email\":\"{id}@x.dev\",\"first_name\":\"\\u00c5sa\"}},\"level\":1{extra}}}"
        )
    };
    let members = format!(
        "{{\"count\":2,\"next\":null,\"previous\":null,\"results\":[{},{}]}}",
        member("m1", "00000000-0000-4000-8000-0000000000a1", ""),
        member(
            "m2",
            "00000000-0000-4000-8000-0000000000a2",
            ",\"roles\":\"old\",\"z\":0"
        )
    );
    proxy.answer_matching("/members/", 200, &members);
    let args = ["people", "list", "-o", "json"];
    let run = crate::cli::orgdeck_at(&proxy.base, &key, &args, None, &[]).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.starts_with(
            "[\n  {\n    \"id\": \"m1\",\n    \"user\": {\n      \"uuid\": \"00000000-0000-4000-8000-0000000000a1\",\n      \"email\": \"m1@x.dev\",\n      \"first_name\": \"\\u00c5sa\"\n    },\n    \"level\": 1,\n    \"roles\": []\n  },"
        ),
        "{}",
        run.stdout
    );
    let listed = run.json();
    assert_eq!(listed[1]["roles"], json!([]));
    let keys: Vec<&String> = listed[1].as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["id", "user", "level", "roles", "z"],
        "replaced where it stood"
    );
}
