//! Random bodies thrown at every write endpoint: never a 5xx, always the
//! four-key error body on a refusal, and the server keeps serving.

use proptest::collection::{hash_map, vec};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use reqwest::{Method, StatusCode};
use serde_json::{Map, Value, json};

use crate::support::{Reply, TestServer};

const FIELDS: &[&str] = &[
    "name",
    "feature_flags_access_level",
    "user_uuid",
    "dashboard",
    "insight",
    "target_type",
    "target_value",
    "frequency",
    "interval",
    "byweekday",
    "bysetpos",
    "count",
    "start_date",
    "until_date",
    "deleted",
    "title",
    "invite_message",
];

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-400i64..400).prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        ".{0,40}".prop_map(Value::from),
        prop::sample::select(vec![
            "email",
            "slack",
            "webhook",
            "daily",
            "weekly",
            "monthly",
            "yearly",
            "monday",
            "friday",
            "2026-01-01T00:00:00Z",
            "2026-02-30T00:00:00Z",
            "9999-12-31T23:59:59Z",
            "a@b.co",
            "https://x.example/",
            "#ops",
            "",
            "37",
            "21",
            "true",
        ])
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..5).prop_map(Value::Array),
            hash_map(".{0,6}", inner, 0..4).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn body() -> impl Strategy<Value = Value> {
    let key = prop_oneof![4 => prop::sample::select(FIELDS).prop_map(str::to_string), 1 => ".{0,12}"];
    hash_map(key, json_value(), 0..10).prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>()))
}

#[derive(Debug, Clone)]
enum Payload {
    Json(Value),
    Raw(Vec<u8>, &'static str),
}

fn payload() -> impl Strategy<Value = Payload> {
    prop_oneof![
        6 => body().prop_map(Payload::Json),
        1 => json_value().prop_map(Payload::Json),
        1 => (vec(any::<u8>(), 0..200), prop::sample::select(vec!["application/json", "text/plain", "application/x-www-form-urlencoded"]))
            .prop_map(|(bytes, kind)| Payload::Raw(bytes, kind)),
    ]
}

#[test]
fn random_bodies_never_break_the_server() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let server = runtime.block_on(TestServer::demo());
    let key = server.key(&["*"]);
    let (role, subscription) = runtime.block_on(async {
        let role = server.get(&key, &server.roles_path()).await.json["results"][0]["id"]
            .as_str()
            .unwrap()
            .to_string();
        let subscription =
            server.get(&key, &server.subscriptions_path()).await.json["results"][0]["id"].clone();
        (role, subscription)
    });
    let endpoints = vec![
        (Method::POST, server.roles_path()),
        (Method::PATCH, format!("{}{role}/", server.roles_path())),
        (
            Method::POST,
            format!("{}{role}/role_memberships/", server.roles_path()),
        ),
        (Method::POST, server.subscriptions_path()),
        (
            Method::PATCH,
            format!("{}{subscription}/", server.subscriptions_path()),
        ),
    ];
    let mut runner = TestRunner::new(Config {
        cases: 400,
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (prop::sample::select(endpoints), payload());
    runner
        .run(&strategy, |((method, path), payload)| {
            let reply: Reply = runtime.block_on(async {
                match &payload {
                    Payload::Json(value) => {
                        server
                            .call(method.clone(), Some(&key), &path, Some(value.clone()))
                            .await
                    }
                    Payload::Raw(bytes, kind) => {
                        server
                            .call_raw(method.clone(), &key, &path, bytes.clone(), kind)
                            .await
                    }
                }
            });
            prop_assert!(
                reply.status.as_u16() < 500,
                "{method} {path} {payload:?}: {} {}",
                reply.status,
                reply.text
            );
            if reply.status.is_success() {
                // What a write answers is what a read returns afterwards:
                // nothing accepted is lost or changed on the way in.
                let id = reply.json["id"].to_string().trim_matches('"').to_string();
                let resource = if path.contains("/role_memberships/") {
                    None
                } else if method == Method::POST {
                    Some(format!("{path}{id}/"))
                } else {
                    Some(path.clone())
                };
                if let Some(resource) = resource {
                    let read = runtime.block_on(server.get(&key, &resource));
                    prop_assert_eq!(&read.json, &reply.json, "{} {} {:?}", method, path, payload);
                }
            }
            if reply.status.is_client_error() {
                let object = reply.json.as_object();
                prop_assert!(
                    object.is_some_and(|o| o.len() == 4 && o.contains_key("type") && o.contains_key("code")),
                    "{method} {path} {payload:?}: not an error body: {}",
                    reply.text
                );
            }
            Ok(())
        })
        .unwrap();
    runtime.block_on(async {
        server
            .get(&key, &server.roles_path())
            .await
            .expect(StatusCode::OK);
        server
            .get(&key, &server.subscriptions_path())
            .await
            .expect(StatusCode::OK);
    });
}
