//! The HTTP client every face of orgdeck uses: one reused connection pool
//! (rustls), the key in the Authorization header only, timeouts, and retries
//! that never send a write twice.
//!
//! Nothing a server sends is trusted to be small: every answer is read
//! against a size limit and stops there (see `transport`, with the rule for
//! redirects: the request's own scheme, host and port alone), and a
//! command's deadline bounds the whole of it, retries and the waits a 429
//! asks for included.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use reqwest::{Method, StatusCode, Url};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::error::{Error, Refusal, RequestLabel, Result, TransportKind};
use super::models::ErrorBody;
use super::paging::Holding;
use super::prune::Pruner;
use super::secret::ApiKey;
use super::transport::{FED_WIRE, Unread, feed_limited, parse_host, read_limited, same_origin_redirects};

/// How many bytes of an unreadable answer an error quotes.
const SNIPPET: usize = 200;

/// The largest answer read by default: far above any page of PostHog's.
pub const DEFAULT_MAX_ANSWER: u64 = 64 * 1024 * 1024;

/// The most rows taken from one list by default (`--max-rows`).
pub const DEFAULT_MAX_ROWS: u64 = 1_000_000;

/// The most bytes of rows a command holds of the lists it reads whole, by
/// default (`--max-held-mib`): with the pages in flight, a command stays
/// under 150 MB whatever a server sends.
pub const DEFAULT_MAX_HELD: u64 = 48 * 1024 * 1024;

/// When a whole command must be over, and how long it was given (for
/// messages).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadline {
    pub at: Instant,
    pub after: Duration,
}

impl Deadline {
    /// `after` from now.
    pub fn after(after: Duration) -> Deadline {
        Deadline {
            at: Instant::now() + after,
            after,
        }
    }
}

/// When and how often a request is tried again.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryPolicy {
    /// Tries in all, the first included.
    pub attempts: u32,
    /// The first backoff; each retry doubles it, with jitter.
    pub base_delay: Duration,
    /// No wait is longer than this, whatever a 429 asks for.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            attempts: 4,
            base_delay: Duration::from_millis(250),
            max_delay: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// Exponential backoff with full jitter between half and the whole step.
    fn backoff(&self, retry: u32) -> Duration {
        let step = self
            .base_delay
            .saturating_mul(1 << retry.min(16))
            .min(self.max_delay);
        let jitter = f64::from(getrandom::u32().unwrap_or(u32::MAX / 2)) / f64::from(u32::MAX);
        step.mul_f64(0.5 + jitter / 2.0)
    }
}

/// Where and how to connect.
#[derive(Clone)]
pub struct ClientConfig {
    /// `https://us.posthog.com`, or a reference server's `http://127.0.0.1:PORT`.
    pub host: String,
    pub api_key: ApiKey,
    /// One request, its answer included (`--timeout`).
    pub timeout: Duration,
    pub connect_timeout: Duration,
    pub retry: RetryPolicy,
    /// The most bytes of one answer that are read; past it the read stops.
    pub max_answer: u64,
    /// The most rows taken from one list, repeats included; past it a
    /// whole-list fetch stops with an error.
    pub max_rows: u64,
    /// The most bytes of rows kept from lists read whole: by one command
    /// in all (see [`Client::with_holding`]), else by each read.
    pub max_held: u64,
    /// When a whole command must be over, retries and waits included: every
    /// request and every wait is cut to fit. `None` (the console) bounds
    /// each request by `timeout` alone.
    pub deadline: Option<Deadline>,
}

impl ClientConfig {
    pub fn new(host: impl Into<String>, api_key: ApiKey) -> Self {
        ClientConfig {
            host: host.into(),
            api_key,
            timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(10),
            retry: RetryPolicy::default(),
            max_answer: DEFAULT_MAX_ANSWER,
            max_rows: DEFAULT_MAX_ROWS,
            max_held: DEFAULT_MAX_HELD,
            deadline: None,
        }
    }

    /// The limits of `client`, for a client of another profile that is to
    /// keep them.
    pub fn limits_of(mut self, client: &Client) -> ClientConfig {
        self.timeout = client.timeout;
        self.max_answer = client.max_answer;
        self.max_rows = client.max_rows;
        self.max_held = client.max_held;
        self
    }
}

/// Where the body of a successful answer goes.
#[derive(Clone, Copy)]
enum BodyTo<'a> {
    /// Read whole within `--max-answer-mib`, the value of a field cut out
    /// of each row as it arrives.
    Held(Option<&'static str>),
    /// Handed on a chunk at a time as it arrives ([`Client::get_fed`]).
    Fed(&'a tokio::sync::mpsc::Sender<bytes::Bytes>),
}

/// A successful answer read whole but not yet decoded.
pub struct Raw {
    request: RequestLabel,
    status: StatusCode,
    bytes: bytes::Bytes,
}

impl Raw {
    /// The answer's size in bytes.
    pub fn size(&self) -> u64 {
        self.bytes.len() as u64
    }

    /// The answer as JSON of `T`.
    pub fn decode<T: DeserializeOwned>(&self) -> Result<T> {
        serde_json::from_slice(&self.bytes).map_err(|error| self.unreadable(error))
    }

    /// The answer as JSON, read by `seed`.
    pub fn decode_seed<'de, S: serde::de::DeserializeSeed<'de>>(&'de self, seed: S) -> Result<S::Value> {
        let mut deserializer = serde_json::Deserializer::from_slice(&self.bytes);
        seed.deserialize(&mut deserializer)
            .and_then(|value| deserializer.end().map(|()| value))
            .map_err(|error| self.unreadable(error))
    }

    /// The request that asked for it, for errors about it.
    pub fn request(&self) -> &RequestLabel {
        &self.request
    }

    fn unreadable(&self, error: serde_json::Error) -> Error {
        Error::Decode {
            request: self.request.clone(),
            status: self.status.as_u16(),
            message: error.to_string(),
            snippet: snippet(&self.bytes),
        }
    }
}

/// One try of a request as the client saw it: what a console's footer
/// shows, taken from the client instead of retyped by its callers.
#[derive(Debug, Clone, PartialEq)]
pub struct Exchange {
    pub request: RequestLabel,
    /// The status answered; `None` when no answer came.
    pub status: Option<u16>,
    pub elapsed: Duration,
    /// Set when the client sends the request again after this wait (a
    /// 429 or a 5xx on a read, a connection that could not be made).
    pub retry_in: Option<Duration>,
}

/// Told of every [`Exchange`] as it ends, on the task that made it.
pub type Observer = Arc<dyn Fn(&Exchange) + Send + Sync>;

/// The API client. Cheap to clone: clones share one connection pool.
#[derive(Clone)]
pub struct Client {
    http: reqwest::Client,
    base: Url,
    key: ApiKey,
    timeout: Duration,
    retry: RetryPolicy,
    max_answer: u64,
    max_rows: u64,
    max_held: u64,
    /// Shared by the clones made for one command: what it holds in all.
    holding: Option<Arc<Holding>>,
    deadline: Option<Deadline>,
    observer: Option<Observer>,
    /// What an older server was found to do, shared by every clone.
    older: std::sync::Arc<super::older::Older>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("base", &self.base.as_str())
            .field("key", &self.key)
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl Client {
    pub fn new(config: ClientConfig) -> Result<Client> {
        let base = parse_host(&config.host)?;
        if let Some(reason) = config.api_key.unusable() {
            return Err(Error::Invalid(reason.into()));
        }
        let http = reqwest::Client::builder()
            .use_rustls_tls()
            .connect_timeout(config.connect_timeout.min(config.timeout))
            .timeout(config.timeout)
            .redirect(same_origin_redirects())
            .user_agent(concat!("orgdeck/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|error| Error::Invalid(format!("cannot set up HTTP: {error}")))?;
        Ok(Client {
            http,
            base,
            key: config.api_key,
            timeout: config.timeout,
            retry: config.retry,
            max_answer: config.max_answer.max(1),
            max_rows: config.max_rows.max(1),
            max_held: config.max_held.max(1),
            holding: None,
            deadline: config.deadline,
            observer: None,
            older: Default::default(),
        })
    }

    /// What an older server was found to do, to work around.
    pub(super) fn older(&self) -> &super::older::Older {
        &self.older
    }

    /// What the client has had to work around since this was last asked,
    /// in words, each once: for a command to say on stderr.
    pub fn take_notes(&self) -> Vec<String> {
        self.older.take_notes()
    }

    /// This client, sharing its connections, telling `observer` of every
    /// try of every request it sends.
    pub fn observed(&self, observer: Observer) -> Client {
        Client {
            observer: Some(observer),
            ..self.clone()
        }
    }

    fn tell(
        &self,
        request: &RequestLabel,
        status: Option<u16>,
        started: std::time::Instant,
        retry_in: Option<Duration>,
    ) {
        if let Some(observer) = &self.observer {
            observer(&Exchange {
                request: request.clone(),
                status,
                elapsed: started.elapsed(),
                retry_in,
            });
        }
    }

    /// How long a request may take.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The most bytes of one answer that are read.
    pub fn max_answer(&self) -> u64 {
        self.max_answer
    }

    /// The most rows taken from one list.
    pub fn max_rows(&self) -> u64 {
        self.max_rows
    }

    /// The most bytes of rows kept from lists read whole.
    pub fn max_held(&self) -> u64 {
        self.max_held
    }

    /// This client, sharing its connections, with one budget of
    /// `max_held` bytes for every list read whole through it and its
    /// clones, and one of `max_answer` bytes for the pages of all its list
    /// reads in flight: what a command, or one load of the console's,
    /// holds in all. Without one, each read has a budget of its own.
    pub fn with_holding(&self) -> Client {
        Client {
            holding: Some(Holding::new(self.max_held, self.max_answer)),
            ..self.clone()
        }
    }

    /// The bytes counted now against the budget of [`Client::with_holding`]
    /// (what the lists read whole through it keep); 0 without one.
    pub fn held(&self) -> u64 {
        self.holding.as_ref().map_or(0, |holding| holding.held())
    }

    /// The budget lists read whole are held against: the client's, else
    /// a new one for one read.
    pub(crate) fn holding(&self) -> Arc<Holding> {
        self.holding
            .clone()
            .unwrap_or_else(|| Holding::new(self.max_held, self.max_answer))
    }

    /// The command's deadline, if it has one.
    pub fn deadline(&self) -> Option<Deadline> {
        self.deadline
    }

    /// The host as configured, for headers and messages.
    pub fn base_url(&self) -> &Url {
        &self.base
    }

    /// The URL of an API path given as segments; a trailing slash is added,
    /// as api.md's examples address every resource.
    pub fn url(&self, segments: &[&str]) -> Url {
        let mut url = self.base.clone();
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty().extend(segments).push("");
        }
        url
    }

    /// A link the server sent (`next`), rebased onto the configured host when
    /// its origin differs: a proxy in front of PostHog often reports another
    /// scheme or host, and the key must only ever go to the configured one.
    pub fn rebase(&self, link: &str) -> Result<Url> {
        let parsed = Url::parse(link).map_err(|error| {
            Error::Invalid(format!(
                "the server sent a bad link \"{}\": {error}",
                crate::text::printable(&super::secret::redacted_url(link))
            ))
        })?;
        if parsed.origin() == self.base.origin() {
            return Ok(parsed);
        }
        let mut url = self.base.clone();
        url.set_path(parsed.path());
        url.set_query(parsed.query());
        Ok(url)
    }

    /// Sends a request and decodes a JSON answer.
    pub async fn call<T: DeserializeOwned>(
        &self,
        method: Method,
        url: Url,
        body: Option<&(impl Serialize + ?Sized)>,
    ) -> Result<T> {
        let request = label(&method, &url);
        let (status, bytes) = self.send(method, url, body).await?;
        Raw {
            request,
            status,
            bytes,
        }
        .decode()
    }

    /// GETs an answer and reads it, leaving it undecoded: pages fetched
    /// ahead of their turn cost their bytes alone, not their rows.
    pub async fn get_raw(&self, url: Url) -> Result<Raw> {
        self.get_raw_without(url, None).await
    }

    /// [`Client::get_raw`], the value of `cut` in each row of the page
    /// cut out as the answer arrives (`null` in its place), never held:
    /// the limit of the answer is of what is kept.
    pub(crate) async fn get_raw_without(&self, url: Url, cut: Option<&'static str>) -> Result<Raw> {
        let request = label(&Method::GET, &url);
        let (status, bytes) = self
            .send_cutting(Method::GET, url, None::<&()>, BodyTo::Held(cut))
            .await?;
        Ok(Raw {
            request,
            status,
            bytes,
        })
    }

    /// GETs an answer and hands its body on to `to` a chunk at a time as
    /// it arrives (a decoder reading it row by row, see
    /// `access::stream`), up to [`FED_WIRE`] times `--max-answer-mib` on
    /// the wire: the body is never held whole. An error answer is read and
    /// said as any other; a body broken off once it has begun to be handed
    /// on is not asked again (its reader has seen part of it).
    pub(crate) async fn get_fed(&self, url: Url, to: &tokio::sync::mpsc::Sender<bytes::Bytes>) -> Result<()> {
        self.send_cutting(Method::GET, url, None::<&()>, BodyTo::Fed(to))
            .await
            .map(|_| ())
    }

    /// The most bytes of an answer handed on as it arrives ([`Client::get_fed`]).
    pub fn max_fed(&self) -> u64 {
        self.max_answer.saturating_mul(FED_WIRE)
    }

    /// This client, sharing its connections, reading at most `limit` bytes
    /// of an answer.
    pub fn with_max_answer(&self, limit: u64) -> Client {
        Client {
            max_answer: limit.max(1),
            ..self.clone()
        }
    }

    /// Sends a request whose answer is JSON or nothing (a write that
    /// answers 200 with what it wrote, or 204 when it removed it).
    pub async fn call_optional<T: DeserializeOwned>(
        &self,
        method: Method,
        url: Url,
        body: Option<&(impl Serialize + ?Sized)>,
    ) -> Result<Option<T>> {
        let request = label(&method, &url);
        let (status, bytes) = self.send(method, url, body).await?;
        if status == StatusCode::NO_CONTENT || bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(None);
        }
        Raw {
            request,
            status,
            bytes,
        }
        .decode()
        .map(Some)
    }

    /// This client, sharing its connections, with another deadline.
    pub fn with_deadline(&self, deadline: Deadline) -> Client {
        Client {
            deadline: Some(deadline),
            ..self.clone()
        }
    }

    /// Sends a request whose answer has no body worth reading (204).
    pub async fn call_empty(&self, method: Method, url: Url) -> Result<()> {
        self.send(method, url, None::<&()>).await.map(|_| ())
    }

    /// Sends with retries and returns a success status and its body. Reads
    /// (GET) are retried on 502, 503, 504 and broken connections, and any
    /// request on 429 (a throttle refuses before doing anything); any
    /// request is retried when no connection could be made, since then it
    /// certainly never reached the server. A write is never sent twice
    /// otherwise.
    async fn send(
        &self,
        method: Method,
        url: Url,
        body: Option<&(impl Serialize + ?Sized)>,
    ) -> Result<(StatusCode, bytes::Bytes)> {
        self.send_cutting(method, url, body, BodyTo::Held(None)).await
    }

    /// [`Client::send`], the body of a successful answer held (cutting
    /// the value of `cut` out of each row of the answer's page as it
    /// arrives, [`super::prune::Pruner`]) or handed on as it arrives.
    async fn send_cutting(
        &self,
        method: Method,
        url: Url,
        body: Option<&(impl Serialize + ?Sized)>,
        to: BodyTo<'_>,
    ) -> Result<(StatusCode, bytes::Bytes)> {
        let label = label(&method, &url);
        let read = method == Method::GET || method == Method::HEAD;
        let body = body
            .map(serde_json::to_vec)
            .transpose()
            .map_err(|error| Error::Invalid(format!("cannot encode the request body: {error}")))?;
        let mut retry = 0;
        // Whether a body has begun to be handed on: it is then never asked again.
        let mut fed = false;
        loop {
            let can_retry = retry + 1 < self.retry.attempts;
            let left = self.time_left();
            let timeout = left.min(self.timeout);
            if timeout.is_zero() {
                return Err(self.past_deadline(label, false));
            }
            let mut request = self
                .http
                .request(method.clone(), url.clone())
                .timeout(timeout)
                .bearer_auth(self.key.expose())
                .header(reqwest::header::ACCEPT, "application/json");
            if let Some(body) = &body {
                request = request
                    .header(reqwest::header::CONTENT_TYPE, "application/json")
                    .body(body.clone());
            }
            let started = std::time::Instant::now();
            let outcome = match request.send().await {
                Ok(response) => {
                    let status = response.status();
                    let (read, limit) = match to {
                        BodyTo::Fed(to) if status.is_success() => {
                            fed = true;
                            let limit = self.max_fed();
                            (
                                feed_limited(response, limit, to)
                                    .await
                                    .map(|()| bytes::Bytes::new()),
                                limit,
                            )
                        }
                        BodyTo::Fed(_) => (
                            read_limited(response, self.max_answer, None).await,
                            self.max_answer,
                        ),
                        BodyTo::Held(cut) => (
                            read_limited(response, self.max_answer, cut.map(Pruner::new)).await,
                            self.max_answer,
                        ),
                    };
                    match read {
                        Ok(bytes) => Ok((status, bytes)),
                        Err(Unread::TooLarge) => {
                            self.tell(&label, Some(status.as_u16()), started, None);
                            tracing::warn!(request = %label, limit, "answer too large; reading stopped");
                            return Err(if fed {
                                Error::TooLargeStreamed {
                                    request: label,
                                    limit,
                                }
                            } else {
                                Error::TooLarge {
                                    request: label,
                                    limit,
                                }
                            });
                        }
                        Err(Unread::Transport(error)) => Err(error),
                    }
                }
                Err(error) => Err(error),
            };
            match outcome {
                Ok((status, bytes)) => {
                    tracing::debug!(request = %label, status = status.as_u16(), elapsed = ?started.elapsed(), "answered");
                    if status.is_success() {
                        self.tell(&label, Some(status.as_u16()), started, None);
                        return Ok((status, bytes));
                    }
                    let refusal = Refusal::new(
                        label.clone(),
                        status.as_u16(),
                        serde_json::from_slice::<ErrorBody>(&bytes).ok(),
                    );
                    // A throttled request was refused before anything
                    // was done: a write is sent again too.
                    let transient = matches!(status.as_u16(), 429 | 502 | 503 | 504);
                    if (status.as_u16() == 429 || read && transient) && can_retry {
                        let asked = refusal.retry_after();
                        let wait = asked
                            .map(|wait| wait.min(self.retry.max_delay))
                            .unwrap_or_else(|| self.retry.backoff(retry));
                        if let Some(deadline) = self.deadline.filter(|_| wait >= self.time_left()) {
                            // Waiting would end past the deadline: say so now.
                            self.tell(&label, Some(status.as_u16()), started, None);
                            return Err(Error::PastDeadline {
                                cause: Box::new(Error::Api(Box::new(refusal))),
                                wait: asked.unwrap_or(wait),
                                deadline: deadline.after,
                            });
                        }
                        tracing::info!(request = %label, status = status.as_u16(), ?wait, "retrying");
                        self.tell(&label, Some(status.as_u16()), started, Some(wait));
                        tokio::time::sleep(wait).await;
                        retry += 1;
                        continue;
                    }
                    if refusal.code.is_empty() && !bytes.is_empty() && refusal.detail.is_empty() {
                        tracing::warn!(request = %label, status = status.as_u16(), body = %snippet(&bytes), "error without an error body");
                    }
                    self.tell(&label, Some(status.as_u16()), started, None);
                    return Err(Error::Api(Box::new(refusal)));
                }
                Err(error) if error.is_redirect() => {
                    self.tell(&label, None, started, None);
                    return Err(Error::Redirect {
                        request: label,
                        reason: innermost(&error),
                    });
                }
                Err(error) => {
                    let kind = classify(&error);
                    let never_sent = kind == TransportKind::Connect;
                    let retriable = !fed && (never_sent || (read && kind == TransportKind::Dropped));
                    tracing::info!(request = %label, ?kind, error = %innermost(&error), "transport failure");
                    let wait = self.retry.backoff(retry);
                    if retriable && can_retry && wait < self.time_left() {
                        self.tell(&label, None, started, Some(wait));
                        tokio::time::sleep(wait).await;
                        retry += 1;
                        continue;
                    }
                    self.tell(&label, None, started, None);
                    if kind == TransportKind::Timeout && timeout < self.timeout && self.time_left().is_zero()
                    {
                        // Cut short by the command's deadline, not --timeout.
                        return Err(self.past_deadline(label, true));
                    }
                    return Err(Error::Transport {
                        request: label,
                        server: self.server_for_messages(),
                        kind,
                        message: innermost(&error),
                        timeout: (kind == TransportKind::Timeout).then_some(self.timeout),
                    });
                }
            }
        }
    }

    /// What is left before the deadline; without one, as long as it takes.
    fn time_left(&self) -> Duration {
        match self.deadline {
            Some(deadline) => deadline.at.saturating_duration_since(Instant::now()),
            None => Duration::MAX,
        }
    }

    fn past_deadline(&self, request: RequestLabel, sent: bool) -> Error {
        Error::Deadline {
            request,
            deadline: self.deadline.map_or(Duration::ZERO, |deadline| deadline.after),
            sent,
        }
    }

    /// `scheme://host[:port]`, never with credentials.
    fn server_for_messages(&self) -> String {
        format!("{}://{}", self.base.scheme(), self.host_for_messages())
    }

    /// `host[:port]`, never with credentials.
    fn host_for_messages(&self) -> String {
        self.base.host_str().unwrap_or("the server").to_string()
            + &self
                .base
                .port()
                .map(|port| format!(":{port}"))
                .unwrap_or_default()
    }
}

fn label(method: &Method, url: &Url) -> RequestLabel {
    RequestLabel {
        method: method.to_string(),
        path: url.path().to_string(),
    }
}

fn classify(error: &reqwest::Error) -> TransportKind {
    let text = format!("{:?}", error).to_ascii_lowercase();
    if error.is_timeout() {
        TransportKind::Timeout
    } else if text.contains("certificate") || text.contains("tls") || text.contains("handshake") {
        TransportKind::Tls
    } else if error.is_connect() {
        TransportKind::Connect
    } else {
        TransportKind::Dropped
    }
}

/// The deepest cause of an error: "Connection refused (os error 111)" rather
/// than reqwest's wrapper text.
fn innermost(error: &(dyn std::error::Error + 'static)) -> String {
    let mut current = error;
    while let Some(source) = current.source() {
        current = source;
    }
    current.to_string()
}

fn snippet(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(SNIPPET)]);
    crate::text::printable(&text).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(host: &str) -> Client {
        Client::new(ClientConfig::new(host, ApiKey::new("phx_test"))).unwrap()
    }

    #[test]
    fn paths_get_one_slash_whatever_the_host_has() {
        for host in [
            "http://127.0.0.1:8010",
            "http://127.0.0.1:8010/",
            "http://127.0.0.1:8010//",
        ] {
            let url = client(host).url(&["api", "organizations", "@current", "roles"]);
            assert_eq!(
                url.as_str(),
                "http://127.0.0.1:8010/api/organizations/@current/roles/",
                "{host}"
            );
        }
        let prefixed = client("https://example.com/posthog/").url(&["api", "projects"]);
        assert_eq!(prefixed.as_str(), "https://example.com/posthog/api/projects/");
        assert_eq!(
            client("us.posthog.com").url(&["api"]).as_str(),
            "https://us.posthog.com/api/"
        );
        let odd = client("http://h").url(&["api", "a b/c"]);
        assert_eq!(odd.as_str(), "http://h/api/a%20b%2Fc/");
    }

    #[test]
    fn bad_hosts_are_refused_up_front() {
        for host in ["", "ftp://x", "http://"] {
            assert!(
                Client::new(ClientConfig::new(host, ApiKey::new("k"))).is_err(),
                "{host}"
            );
        }
    }

    #[test]
    fn links_from_another_origin_are_rebased() {
        let client = client("https://posthog.example.com");
        let same = client
            .rebase("https://posthog.example.com/api/x/?limit=5&offset=5")
            .unwrap();
        assert_eq!(
            same.as_str(),
            "https://posthog.example.com/api/x/?limit=5&offset=5"
        );
        let other = client.rebase("http://internal:8000/api/x/?offset=5").unwrap();
        assert_eq!(other.as_str(), "https://posthog.example.com/api/x/?offset=5");
    }

    #[test]
    fn debug_hides_the_key() {
        let text = format!("{:?}", client("http://h"));
        assert!(!text.contains("phx_test") && text.contains("redacted"));
    }

    #[test]
    fn backoff_doubles_with_jitter_and_is_capped() {
        let policy = RetryPolicy::default();
        for retry in 0..3 {
            let wait = policy.backoff(retry);
            let step = policy.base_delay * (1 << retry);
            assert!(wait >= step / 2 && wait <= step, "{retry}: {wait:?}");
        }
        assert!(policy.backoff(30) <= policy.max_delay);
    }
}
