//! A server that answers as an attacker would, to test that the client, the
//! CLI and the console stay bounded in time and memory, say clearly what
//! went wrong, and never let what it sends reach a terminal raw. Each one
//! serves a single [`Attack`] on every path, on 127.0.0.1 port 0.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use serde_json::json;

/// What a hostile server does to every request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attack {
    /// 200 and a chunked body that never ends.
    EndlessBody,
    /// 200 with `Content-Length` of 1 GiB, sent as fast as it is read.
    HugeDeclaredBody,
    /// 200 with a chunked body of 100 MB of well-formed JSON, no length said.
    HugeUndeclaredBody,
    /// Pages of real rows that end after 250 rows, under a count of 10^18.
    LyingCount,
    /// Pages of half the rows asked for (a server that caps `limit`), whose
    /// `next` is the URL just fetched, the count growing.
    LoopingNext,
    /// Pages whose `next` links are all new but never end, under a count
    /// that keeps moving.
    EndlessPages,
    /// 400 with terminal escapes in every field of the error body.
    EscapesInErrors,
    /// 429 asking to wait 99999999999 seconds.
    HugeRetryWait,
    /// 302 to another host (127.0.0.2), which records what it was sent.
    RedirectElsewhere,
    /// Rows whose every text field holds terminal escapes and bidi controls.
    HostileText,
    /// 50,000 rows in a page that was asked for 100.
    OversizedPage,
    /// Every page full, at every offset, always linking onward, under a
    /// count of 10^18: a list without end.
    FullPages,
    /// Pages of about 7.5 MiB of rows (just under a page's share of the
    /// default answer limit) whatever was asked for, always linking onward,
    /// under a count of 10^18.
    HugePages,
    /// The same rows at every offset (those of offset 0), under a count of
    /// 1,000, ending where the count says.
    RepeatedRows,
    /// An honest list of 250 rows from a server that caps `limit` at 30:
    /// short pages whose `next` says there is more.
    CappedLimit,
    /// 302 to the same host and path on another port, which records what
    /// it was sent.
    RedirectOtherPort,
    /// 302 to the same host, port and path over https.
    RedirectOtherScheme,
    /// An honest list of 100 subscriptions, one of them titled with 30 MB
    /// of text; every subscription's deliveries are none.
    HugeCell,
}

impl Attack {
    /// Every attack, by the name of its variant.
    pub const ALL: [Attack; 18] = [
        Attack::EndlessBody,
        Attack::HugeDeclaredBody,
        Attack::HugeUndeclaredBody,
        Attack::LyingCount,
        Attack::LoopingNext,
        Attack::EndlessPages,
        Attack::EscapesInErrors,
        Attack::HugeRetryWait,
        Attack::RedirectElsewhere,
        Attack::HostileText,
        Attack::OversizedPage,
        Attack::FullPages,
        Attack::HugePages,
        Attack::RepeatedRows,
        Attack::CappedLimit,
        Attack::RedirectOtherPort,
        Attack::RedirectOtherScheme,
        Attack::HugeCell,
    ];

    /// The attack named as its variant is ("FullPages").
    pub fn named(name: &str) -> Option<Attack> {
        Attack::ALL
            .into_iter()
            .find(|attack| format!("{attack:?}") == name.trim())
    }
}

/// The length of the title [`Attack::HugeCell`] sends.
pub const HUGE_CELL: usize = 30_000_000;

/// Text that would attack a terminal if written raw.
pub const HOSTILE_NAMES: [&str; 7] = [
    "x\u{1b}]0;pwned\u{7}",
    "\u{1b}[2J",
    "\u{1b}]52;c;cm0gLXJmIH4K\u{7}",
    "one\nid: fake\rtwo",
    "abc\u{202e}fed\u{2066}",
    "\u{9b}31mred",
    // Looks like "Admin": a zero-width space, a byte-order mark, a tag.
    "Ad\u{200b}min\u{feff}\u{e0041}",
];

pub struct HostileServer {
    pub base: String,
    /// Requests answered.
    pub requests: Arc<AtomicU64>,
    /// Requests the other host (of [`Attack::RedirectElsewhere`]) or the
    /// other port (of [`Attack::RedirectOtherPort`]) received with an
    /// Authorization header.
    pub leaked_keys: Arc<AtomicUsize>,
    _tasks: Vec<tokio::task::JoinHandle<()>>,
}

#[derive(Clone)]
struct Shared {
    attack: Attack,
    requests: Arc<AtomicU64>,
    elsewhere: String,
    other_port: String,
}

impl HostileServer {
    pub async fn start(attack: Attack) -> HostileServer {
        let leaked_keys = Arc::new(AtomicUsize::new(0));
        let other = tokio::net::TcpListener::bind("127.0.0.2:0").await.unwrap();
        let elsewhere = format!("http://{}", other.local_addr().unwrap());
        let leaks = leaked_keys.clone();
        let other_app = Router::new().fallback(move |request: Request| {
            let leaks = leaks.clone();
            async move {
                if request.headers().contains_key(header::AUTHORIZATION) {
                    leaks.fetch_add(1, Ordering::SeqCst);
                }
                Json404.into_response()
            }
        });
        let port = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let other_port = format!("http://{}", port.local_addr().unwrap());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(AtomicU64::new(0));
        let shared = Shared {
            attack,
            requests: requests.clone(),
            elsewhere,
            other_port,
        };
        let app = Router::new().fallback(answer).with_state(shared);
        let other_port_app = other_app.clone();
        let tasks = vec![
            tokio::spawn(async move {
                let _ = axum::serve(listener, app).await;
            }),
            tokio::spawn(async move {
                let _ = axum::serve(port, other_port_app).await;
            }),
            tokio::spawn(async move {
                let _ = axum::serve(other, other_app).await;
            }),
        ];
        HostileServer {
            base,
            requests,
            leaked_keys,
            _tasks: tasks,
        }
    }

    /// A hostile server on a runtime of its own, for tests that are not
    /// async themselves (the real binary in a pseudo-terminal).
    pub fn start_detached(attack: Attack) -> (HostileServer, tokio::runtime::Runtime) {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let server = runtime.block_on(HostileServer::start(attack));
        (server, runtime)
    }
}

struct Json404;

impl IntoResponse for Json404 {
    fn into_response(self) -> Response {
        (
            StatusCode::NOT_FOUND,
            [(header::CONTENT_TYPE, "application/json")],
            r#"{"type":"invalid_request","code":"not_found","detail":"Not found.","attr":null}"#,
        )
            .into_response()
    }
}

fn query_number(request: &Request, name: &str) -> Option<u64> {
    let query = request.uri().query()?;
    form_urlencoded::parse(query.as_bytes())
        .find(|(key, _)| key == name)
        .and_then(|(_, value)| value.parse().ok())
}

/// A role as the API sends it, named `name`.
fn role(index: u64, name: &str) -> serde_json::Value {
    json!({
        "id": format!("00000000-0000-4000-8000-{index:012}"),
        "name": name,
        "feature_flags_access_level": 37,
        "created_at": "2026-01-01T00:00:00Z",
        "created_by": {"id": 1, "uuid": "00000000-0000-4000-8000-000000000001",
                        "first_name": name, "last_name": "", "email": format!("{name}@example.com")},
        "members": [],
    })
}

/// A person as role memberships and organization members both send one.
fn person(index: u64) -> serde_json::Value {
    let uuid = format!("00000000-0000-4000-9000-{index:012}");
    let user = json!({"id": index + 1, "uuid": uuid, "first_name": "Person", "last_name": index.to_string(),
                      "email": format!("person{index}@example.com")});
    json!({
        "id": uuid,
        "role_id": "00000000-0000-4000-8000-000000000000",
        "level": 1,
        "user": user,
        "organization_member": {"id": uuid, "level": 1, "user": user},
        "joined_at": "2026-01-01T00:00:00Z",
    })
}

/// The row at `index` of the list at `path` as JSON text, written without
/// building a value: what [`role`], [`person`] and [`subscription`] send,
/// in short.
fn fast_row(path: &str, index: u64) -> String {
    if path.contains("subscriptions") {
        format!(
            r#"{{"id":{},"title":"Subscription {index}","target_type":"email","target_value":"s{index}@example.com","frequency":"daily","interval":1,"start_date":"2026-01-01T09:00:00Z","summary":"daily","deleted":false,"created_at":"2026-01-01T00:00:00Z"}}"#,
            index + 1
        )
    } else if path.ends_with("/members/") || path.ends_with("/role_memberships/") {
        let user = format!(
            r#"{{"id":{},"uuid":"00000000-0000-4000-9000-{index:012}","first_name":"Person","last_name":"{index}","email":"person{index}@example.com"}}"#,
            index + 1
        );
        format!(
            r#"{{"id":"00000000-0000-4000-9000-{index:012}","role_id":"00000000-0000-4000-8000-000000000000","level":1,"user":{user},"organization_member":{{"id":"00000000-0000-4000-9000-{index:012}","level":1,"user":{user}}},"joined_at":"2026-01-01T00:00:00Z"}}"#
        )
    } else {
        format!(
            r#"{{"id":"00000000-0000-4000-8000-{index:012}","name":"Role {index}","feature_flags_access_level":37,"created_at":"2026-01-01T00:00:00Z","members":[]}}"#
        )
    }
}

fn subscription(index: u64, text: &str) -> serde_json::Value {
    json!({
        "id": index + 1,
        "title": text,
        "target_type": "email",
        "target_value": text,
        "frequency": "daily",
        "interval": 1,
        "start_date": "2026-01-01T09:00:00Z",
        "summary": text,
        "invite_message": text,
        "deleted": false,
        "created_at": "2026-01-01T00:00:00Z",
    })
}

fn json_response(status: StatusCode, value: serde_json::Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        value.to_string(),
    )
        .into_response()
}

/// The absolute URL of this request with `offset` replaced.
fn link(request: &Request, offset: u64) -> String {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|host| host.to_str().ok())
        .unwrap_or("127.0.0.1");
    let path = request.uri().path();
    let kept: Vec<(String, String)> = request
        .uri()
        .query()
        .map(|query| {
            form_urlencoded::parse(query.as_bytes())
                .filter(|(key, _)| key != "offset")
                .map(|(key, value)| (key.into_owned(), value.into_owned()))
                .collect()
        })
        .unwrap_or_default();
    let mut query = form_urlencoded::Serializer::new(String::new());
    query.extend_pairs(kept);
    query.append_pair("offset", &offset.to_string());
    format!("http://{host}{path}?{}", query.finish())
}

async fn answer(State(shared): State<Shared>, request: Request) -> Response {
    let served = shared.requests.fetch_add(1, Ordering::SeqCst);
    let limit = query_number(&request, "limit").unwrap_or(100).clamp(1, 1000);
    let offset = query_number(&request, "offset").unwrap_or(0);
    let path = request.uri().path().to_string();
    let rows = |range: std::ops::Range<u64>| -> Vec<serde_json::Value> {
        range
            .map(|index| {
                if path.contains("subscriptions") {
                    subscription(index, &format!("Subscription {index}"))
                } else if path.ends_with("/members/") || path.ends_with("/role_memberships/") {
                    person(index)
                } else {
                    role(index, &format!("Role {index}"))
                }
            })
            .collect()
    };
    match shared.attack {
        Attack::EndlessBody => {
            let head = futures_util::stream::once(async {
                Ok::<_, Infallible>(Bytes::from_static(b"{\"count\":1,\"results\":["))
            });
            let filler = Bytes::from(vec![b' '; 64 * 1024]);
            let rest = futures_util::stream::repeat_with(move || Ok::<_, Infallible>(filler.clone()));
            let mut response = Response::new(Body::from_stream(head.chain(rest)));
            response
                .headers_mut()
                .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
            response
        }
        Attack::HugeDeclaredBody => {
            let filler = Bytes::from(vec![b' '; 64 * 1024]);
            let stream = futures_util::stream::repeat_with(move || Ok::<_, Infallible>(filler.clone()))
                .take(16 * 1024);
            let mut response = Response::new(Body::from_stream(stream));
            response
                .headers_mut()
                .insert(header::CONTENT_LENGTH, HeaderValue::from(1u64 << 30));
            response
        }
        Attack::HugeUndeclaredBody => {
            // 100 MB of a well-formed page: a long run of spaces inside it.
            let head = futures_util::stream::once(async {
                Ok::<_, Infallible>(Bytes::from_static(b"{\"count\":0,\"results\":["))
            });
            let filler = Bytes::from(vec![b' '; 1024 * 1024]);
            let middle =
                futures_util::stream::repeat_with(move || Ok::<_, Infallible>(filler.clone())).take(100);
            let tail = futures_util::stream::once(async { Ok::<_, Infallible>(Bytes::from_static(b"]}")) });
            let stream = head.chain(middle).chain(tail);
            Response::new(Body::from_stream(stream))
        }
        Attack::LyingCount => {
            const REAL: u64 = 250;
            let end = (offset + limit).min(REAL);
            let next = (end < REAL).then(|| link(&request, end));
            json_response(
                StatusCode::OK,
                json!({"count": 1_000_000_000_000_000_000u64, "next": next, "previous": null,
                       "results": rows(offset.min(REAL)..end)}),
            )
        }
        Attack::LoopingNext => {
            let url = link(&request, offset);
            json_response(
                StatusCode::OK,
                json!({"count": 1000 + served, "next": url, "previous": null,
                       "results": rows(offset..offset + limit.div_ceil(2))}),
            )
        }
        Attack::EndlessPages => {
            // New links for ever, the count moving a little each time.
            let next = link(&request, offset + limit);
            json_response(
                StatusCode::OK,
                json!({"count": 300 + served % 7, "next": next, "previous": null,
                       "results": rows(offset..offset + limit)}),
            )
        }
        Attack::EscapesInErrors => json_response(
            StatusCode::BAD_REQUEST,
            json!({"type": "validation_error\u{1b}[2J",
                   "code": "invalid\u{1b}]0;pwned\u{7}",
                   "detail": "Bad\u{1b}]52;c;cm0gLXJmIH4K\u{7} thing\nfake: line\r\u{202e}desrever",
                   "attr": "name\u{1b}[31m"}),
        ),
        Attack::HugeRetryWait => json_response(
            StatusCode::TOO_MANY_REQUESTS,
            json!({"type": "throttled_error", "code": "throttled",
                   "detail": "Request was throttled. Expected available in 99999999999 seconds.", "attr": null}),
        ),
        Attack::RedirectElsewhere => {
            let target = format!("{}{}", shared.elsewhere, request.uri());
            (StatusCode::FOUND, [(header::LOCATION, target)]).into_response()
        }
        Attack::RedirectOtherPort => {
            let target = format!("{}{}", shared.other_port, request.uri());
            (StatusCode::FOUND, [(header::LOCATION, target)]).into_response()
        }
        Attack::RedirectOtherScheme => {
            let host = request
                .headers()
                .get(header::HOST)
                .and_then(|host| host.to_str().ok())
                .unwrap_or("127.0.0.1")
                .to_string();
            let target = format!("https://{host}{}", request.uri());
            (StatusCode::FOUND, [(header::LOCATION, target)]).into_response()
        }
        Attack::HugePages => {
            let rows_in_page = (15 << 19) / (fast_row(&path, 10_000_000).len() as u64 + 1);
            let first = offset.saturating_mul(rows_in_page / limit.max(1));
            let mut body = format!(
                r#"{{"count":1000000000000000000,"previous":null,"next":"{}","results":["#,
                link(&request, offset + limit)
            );
            for index in first..first + rows_in_page {
                if index > first {
                    body.push(',');
                }
                body.push_str(&fast_row(&path, index));
            }
            body.push_str("]}");
            (StatusCode::OK, [(header::CONTENT_TYPE, "application/json")], body).into_response()
        }
        Attack::FullPages => {
            // Written by hand: a million rows must come quickly even from a
            // test build.
            let mut body = format!(
                r#"{{"count":1000000000000000000,"previous":null,"next":"{}","results":["#,
                link(&request, offset + limit)
            );
            for index in offset..offset + limit {
                if index > offset {
                    body.push(',');
                }
                body.push_str(&fast_row(&path, index));
            }
            body.push_str("]}");
            (StatusCode::OK, [(header::CONTENT_TYPE, "application/json")], body).into_response()
        }
        Attack::RepeatedRows => {
            const COUNT: u64 = 1000;
            let next = (offset + limit < COUNT).then(|| link(&request, offset + limit));
            json_response(
                StatusCode::OK,
                json!({"count": COUNT, "next": next, "previous": null, "results": rows(0..limit)}),
            )
        }
        Attack::CappedLimit => {
            const REAL: u64 = 250;
            let end = (offset + limit.min(30)).min(REAL);
            let next = (end < REAL).then(|| link(&request, end));
            json_response(
                StatusCode::OK,
                json!({"count": REAL, "next": next, "previous": null,
                       "results": rows(offset.min(REAL)..end)}),
            )
        }
        Attack::HugeCell => {
            if path.ends_with("/deliveries/") {
                return json_response(
                    StatusCode::OK,
                    json!({"next": null, "previous": null, "results": []}),
                );
            }
            let mut results = rows(0..100);
            results[7]["title"] = json!("t".repeat(HUGE_CELL));
            json_response(
                StatusCode::OK,
                json!({"count": 100, "next": null, "previous": null, "results": results}),
            )
        }
        Attack::OversizedPage => json_response(
            StatusCode::OK,
            json!({"count": 50_000, "next": null, "previous": null, "results": rows(0..50_000)}),
        ),
        Attack::HostileText => {
            let texts = HOSTILE_NAMES;
            let results: Vec<serde_json::Value> = texts
                .iter()
                .enumerate()
                .map(|(index, text)| {
                    if path.contains("subscriptions") {
                        subscription(index as u64, text)
                    } else {
                        role(index as u64, text)
                    }
                })
                .collect();
            if path.contains("/roles/0") || path.contains("/subscriptions/1") {
                return json_response(StatusCode::OK, results[0].clone());
            }
            json_response(
                StatusCode::OK,
                json!({"count": results.len(), "next": null, "previous": null, "results": results,
                       "id": 1, "name": HOSTILE_NAMES[0]}),
            )
        }
    }
}
