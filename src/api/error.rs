//! The client's one error type: the API refused, the transport failed, or the
//! answer could not be read. Each displays as one line that says what
//! happened and, where it can, what to do next. None ever contains the key,
//! and what a server wrote (detail, code, field, path) is shown through
//! [`printable`], never raw.

use std::fmt;
use std::time::Duration;

use super::models::ErrorBody;
use crate::text::printable;

/// Which request failed: method and path (never the host's credentials).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestLabel {
    pub method: String,
    pub path: String,
}

impl fmt::Display for RequestLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", printable(&self.method), printable(&self.path))
    }
}

/// The API's refusal: an error status and (usually) PostHog's error body.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    pub request: RequestLabel,
    pub status: u16,
    /// `type` of the error body ("validation_error", ...); empty without a body.
    pub kind: String,
    pub code: String,
    pub detail: String,
    /// The field the error is about.
    pub attr: Option<String>,
}

impl Refusal {
    pub fn new(request: RequestLabel, status: u16, body: Option<ErrorBody>) -> Self {
        let body = body.unwrap_or_default();
        Refusal {
            request,
            status,
            kind: body.kind,
            code: body.code,
            detail: body.detail,
            attr: body.attr,
        }
    }

    /// The scope a 403 names ("API key missing required scope 'x'").
    pub fn missing_scope(&self) -> Option<&str> {
        let rest = self.detail.split("missing required scope '").nth(1)?;
        rest.split('\'').next()
    }

    /// The most insights the server lets a dashboard subscription export,
    /// read off its refusal of more ("Cannot select more than N
    /// insights.", attr `dashboard_export_insights`): the cap depends on
    /// the plan (posthog.md 15-4), so the client learns it here.
    pub fn export_cap(&self) -> Option<usize> {
        if self.attr.as_deref() != Some("dashboard_export_insights") {
            return None;
        }
        let rest = self.detail.trim().strip_prefix("Cannot select more than ")?;
        rest.strip_suffix(" insights.")?.trim().parse().ok()
    }

    /// The wait a 429's detail names ("Expected available in N seconds").
    pub fn retry_after(&self) -> Option<Duration> {
        if self.status != 429 {
            return None;
        }
        let rest = self.detail.split("available in ").nth(1)?;
        let seconds: f64 = rest.split_whitespace().next()?.parse().ok()?;
        // Whatever number the server wrote: one too large for a Duration
        // is as good as forever.
        Duration::try_from_secs_f64(seconds)
            .ok()
            .or_else(|| (seconds.is_finite() && seconds > 0.0).then_some(Duration::MAX))
    }

    /// What a person can do about it.
    fn hint(&self) -> Option<String> {
        if let Some(scope) = self.missing_scope() {
            return Some(format!(
                "give the key the '{scope}' scope, or use a key that has it"
            ));
        }
        Some(
            match (self.status, self.code.as_str()) {
                (401, _) => "check the API key (ORGDECK_API_KEY or the profile's key)",
                (403, _) if self.detail.contains("access level") => "ask an organization admin or owner to do it",
                (404, _) if self.detail.starts_with("Organization") => "check --org (a UUID or @current)",
                (405, _) if self.request.method == "DELETE" && self.request.path.contains("/subscriptions/") => {
                    "subscriptions are soft-deleted: use `orgdeck subscriptions delete`, which sets deleted=true"
                }
                (429, _) => "too many requests: wait and try again",
                (500..=599, _) => "the server failed; try again later",
                _ => return None,
            }
            .to_string(),
        )
    }
}

impl Refusal {
    /// The refusal as one line, without what to do about it.
    pub fn without_hint(&self) -> String {
        let mut line = self.status.to_string();
        if !self.code.is_empty() {
            line.push_str(&format!(" {}", printable(&self.code)));
        }
        if self.detail.is_empty() {
            line.push_str(&format!(": {}", status_text(self.status)));
        } else {
            line.push_str(&format!(": {}", printable(&self.detail)));
        }
        if let Some(attr) = &self.attr {
            line.push_str(&format!(" (field: {})", printable(attr)));
        }
        line.push_str(&format!(" [{}]", self.request));
        line
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.status)?;
        if !self.code.is_empty() {
            write!(f, " {}", printable(&self.code))?;
        }
        if self.detail.is_empty() {
            write!(f, ": {}", status_text(self.status))?;
        } else {
            write!(f, ": {}", printable(&self.detail))?;
        }
        if let Some(attr) = &self.attr {
            write!(f, " (field: {})", printable(attr))?;
        }
        write!(f, " [{}]", self.request)?;
        if let Some(hint) = self.hint() {
            write!(f, "; {hint}")?;
        }
        Ok(())
    }
}

fn status_text(status: u16) -> &'static str {
    reqwest::StatusCode::from_u16(status)
        .ok()
        .and_then(|status| status.canonical_reason())
        .unwrap_or("error")
}

/// How the transport failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransportKind {
    /// No connection could be made: the request never left.
    Connect,
    /// No answer in time.
    Timeout,
    /// The TLS handshake failed.
    Tls,
    /// The connection broke after the request may have been sent.
    Dropped,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// The API answered with an error status.
    #[error("{0}")]
    Api(Box<Refusal>),

    #[error("{}", transport_line(.request, host_of(.server), *.kind, .message, *.timeout))]
    Transport {
        request: RequestLabel,
        /// The server as a person names it: scheme, host and port
        /// (`http://127.0.0.1:8010`), never with credentials.
        server: String,
        kind: TransportKind,
        message: String,
        timeout: Option<Duration>,
    },

    /// The answer was not what the API sends.
    #[error(
        "{request}: the server answered {status} with a body orgdeck cannot read ({message}); it began: \"{snippet}\""
    )]
    Decode {
        request: RequestLabel,
        status: u16,
        message: String,
        snippet: String,
    },

    /// The answer was larger than the client reads.
    #[error(
        "{request}: the answer is larger than the {} MiB limit, so orgdeck stopped reading it; raise --max-answer-mib if the server is to be trusted",
        mebibytes(*.limit)
    )]
    TooLarge { request: RequestLabel, limit: u64 },

    /// An answer read as it arrives, never held whole, was larger than
    /// it may be on the wire (`Client::max_fed`).
    #[error(
        "{request}: the answer is larger than {} MiB, the most orgdeck reads of an answer it decodes as it arrives (64 times --max-answer-mib), so it stopped reading it; raise --max-answer-mib if the server is to be trusted",
        mebibytes(*.limit)
    )]
    TooLargeStreamed { request: RequestLabel, limit: u64 },

    /// A page of a whole list was larger than its share of the answer
    /// limit: the pages fetched at once share `--max-answer-mib` between them.
    #[error(
        "{request}: a page of the list is larger than {} MiB, its share of the {} MiB of --max-answer-mib (the pages fetched at once share it), so orgdeck stopped reading it; raise --max-answer-mib if the server is to be trusted",
        mebibytes(*.limit),
        mebibytes(*.whole)
    )]
    PageTooLarge {
        request: RequestLabel,
        limit: u64,
        whole: u64,
    },

    /// A list the server kept sending: its links went round in a circle, or
    /// it gave more rows or pages than its count allowed.
    #[error("{request}: {reason}; orgdeck stopped following the list")]
    EndlessList { request: RequestLabel, reason: String },

    /// A redirect the client would not follow: to another scheme, host or
    /// port than the request's (https to http among them), or too many.
    #[error(
        "{request}: the server answered with {reason}; orgdeck did not follow it, so the key went nowhere else"
    )]
    Redirect { request: RequestLabel, reason: String },

    /// A list longer than the client holds or lists: it stops there rather
    /// than grow without bound on what a server says.
    #[error(
        "{request}: the server sent more than {limit} rows, the most orgdeck takes from one list (--max-rows); orgdeck stopped there"
    )]
    TooManyRows { request: RequestLabel, limit: u64 },

    /// A list that did not come whole: it ended before its count, repeated
    /// rows, or changed while it was read. Nothing is done with part of a
    /// list.
    #[error("{0}")]
    Incomplete(Box<Incomplete>),

    /// The lists a command reads whole took more than it may hold.
    #[error(
        "{request}: the lists read whole reached {} MiB, the most one command holds (--max-held-mib), {rows} rows into this one; orgdeck stopped there; raise --max-held-mib if the server is to be trusted",
        mebibytes(*.limit)
    )]
    TooMuchHeld {
        request: RequestLabel,
        limit: u64,
        rows: u64,
    },

    /// The command's deadline passed before this request could be made or
    /// answered.
    #[error(
        "{request}: the command's deadline of {} passed (--deadline), so orgdeck stopped; give it longer with --deadline SECONDS",
        wait_text(*.deadline)
    )]
    Deadline {
        request: RequestLabel,
        deadline: Duration,
        /// Whether the request had gone out (cut short waiting for its
        /// answer) rather than never being sent: a write that went out may
        /// have been done.
        sent: bool,
    },

    /// A retry would have waited past the command's deadline.
    #[error(
        "{cause}; the server asked to wait {}, past the command's deadline of {} (--deadline)",
        wait_text(*.wait),
        wait_text(*.deadline)
    )]
    PastDeadline {
        cause: Box<Error>,
        wait: Duration,
        deadline: Duration,
    },

    /// A create failed in a way that may have left it done (a 5xx, an
    /// answer lost), and orgdeck looked: it was not made.
    #[error(
        "{}; orgdeck looked, and the {what} was not created: it is safe to try again",
        .cause.what_happened()
    )]
    NotCreated { what: String, cause: Box<Error> },

    /// A create failed in a way that may have left it done, and looking
    /// for it failed too: whether it was made cannot be told.
    #[error(
        "{}; orgdeck could not tell whether the {what} was created (looking for it failed: {}): check before trying again, or it may be made twice",
        .cause.what_happened(),
        .look.what_happened()
    )]
    CreateUnknown {
        what: String,
        cause: Box<Error>,
        look: Box<Error>,
    },

    /// The request could not be built (a bad host address, for instance).
    #[error("{0}")]
    Invalid(String),
}

/// A list that did not come whole, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Incomplete {
    pub request: RequestLabel,
    /// Its short name: "subscriptions".
    pub list: String,
    /// The count its first page said.
    pub count: u64,
    /// Distinct rows received.
    pub rows: u64,
    /// Rows the server sent again.
    pub repeated: u64,
    /// Another count a later page said: the list changed while it was read.
    pub changed_to: Option<u64>,
    /// Times it was read (a list that changed is read again).
    pub reads: usize,
}

impl Incomplete {
    /// What went wrong, a sentence each, for a list whose rows were written
    /// as they came (`roles list`): they are all there was to show.
    pub fn warnings(&self) -> Vec<String> {
        let mut warnings = Vec::new();
        if self.repeated > 0 {
            warnings.push(format!(
                "the server sent {} rows more than once; each is listed once ({} rows)",
                self.repeated, self.rows
            ));
        }
        if self.changed_to.is_some() {
            warnings.push("the list changed while it was read; run it again for a consistent one".into());
        } else if self.rows < self.count {
            warnings.push(format!(
                "the list ended after {} rows where the server's count said {}; rows may be missing",
                self.rows, self.count
            ));
        }
        warnings
    }
}

impl fmt::Display for Incomplete {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = printable(&self.list);
        if let Some(changed_to) = self.changed_to {
            let times = match self.reads {
                0 | 1 => String::new(),
                reads => format!(", {reads} reads in a row"),
            };
            return write!(
                f,
                "{}: the list of {list} changed while it was read{times} (its count went from {} to {changed_to}), so rows may be missing; orgdeck acts on whole lists only: run it again when the list is quiet",
                self.request, self.count
            );
        }
        let mut parts = Vec::new();
        if self.rows < self.count {
            parts.push(format!(
                "it ended after {} rows where the server's count said {}",
                self.rows, self.count
            ));
        }
        if self.repeated > 0 {
            parts.push(format!(
                "the server sent {} rows more than once ({} distinct rows, its count said {})",
                self.repeated, self.rows, self.count
            ));
        }
        write!(
            f,
            "{}: the list of {list} came back incomplete: {}; orgdeck acts on whole lists only",
            self.request,
            parts.join(", and ")
        )
    }
}

fn mebibytes(bytes: u64) -> String {
    let mib = bytes as f64 / (1024.0 * 1024.0);
    if mib.fract() == 0.0 {
        format!("{mib:.0}")
    } else {
        format!("{mib:.2}")
    }
}

fn wait_text(wait: Duration) -> String {
    format!("{} s", wait.as_secs_f64())
}

/// `127.0.0.1:8010` of `http://127.0.0.1:8010`: what the error's line names.
fn host_of(server: &str) -> &str {
    server.split_once("://").map_or(server, |(_, host)| host)
}

fn transport_line(
    request: &RequestLabel,
    host: &str,
    kind: TransportKind,
    message: &str,
    timeout: Option<Duration>,
) -> String {
    match kind {
        TransportKind::Connect => format!(
            "cannot connect to {host} ({message}) [{request}]; is the server running and the host right (--host, ORGDECK_HOST)?"
        ),
        TransportKind::Timeout => format!(
            "no answer from {host} within {} [{request}]; the server may be slow or unreachable: try again or raise --timeout",
            timeout
                .map(|t| format!("{} s", t.as_secs_f64()))
                .unwrap_or_else(|| "the time allowed".into())
        ),
        TransportKind::Tls => format!(
            "TLS with {host} failed ({message}) [{request}]; check the host's address and certificate"
        ),
        TransportKind::Dropped => {
            format!("the connection to {host} broke ({message}) [{request}]; try again")
        }
    }
}

impl Error {
    /// What happened, without advice on what to do (for errors that go
    /// on to say it themselves).
    pub fn what_happened(&self) -> String {
        match self {
            Error::Api(refusal) => refusal.without_hint(),
            Error::Transport {
                request,
                server,
                kind: TransportKind::Timeout,
                timeout,
                ..
            } => format!(
                "no answer from {} within {} [{request}]",
                host_of(server),
                timeout
                    .map(|t| format!("{} s", t.as_secs_f64()))
                    .unwrap_or_else(|| "the time allowed".into())
            ),
            Error::Transport {
                request,
                server,
                kind: TransportKind::Dropped,
                message,
                ..
            } => format!(
                "the connection to {} broke before the answer ({}) [{request}]",
                host_of(server),
                printable(message)
            ),
            other => other.to_string(),
        }
    }

    /// The refusal, when the API refused.
    pub fn refusal(&self) -> Option<&Refusal> {
        match self {
            Error::Api(refusal) => Some(refusal),
            Error::PastDeadline { cause, .. }
            | Error::NotCreated { cause, .. }
            | Error::CreateUnknown { cause, .. } => cause.refusal(),
            _ => None,
        }
    }

    /// The export cap a refusal names, when it names one.
    pub fn export_cap(&self) -> Option<usize> {
        self.refusal().and_then(Refusal::export_cap)
    }

    /// When the request failed for lack of a server (no connection could
    /// be made, no answer came in time, the connection dropped): which
    /// server, and why in a few words. `None` for every other failure,
    /// an answer or a TLS failure among them.
    pub fn unreachable(&self) -> Option<Unreachable> {
        match self {
            Error::Transport {
                server,
                kind,
                message,
                timeout,
                ..
            } => {
                let reason = match kind {
                    TransportKind::Connect | TransportKind::Dropped => plain_reason(message),
                    TransportKind::Timeout => match timeout {
                        Some(timeout) => format!("no answer within {} s", timeout.as_secs_f64()),
                        None => "no answer in the time allowed".into(),
                    },
                    TransportKind::Tls => return None,
                };
                Some(Unreachable {
                    server: server.clone(),
                    reason,
                })
            }
            Error::PastDeadline { cause, .. }
            | Error::NotCreated { cause, .. }
            | Error::CreateUnknown { cause, .. } => cause.unreachable(),
            _ => None,
        }
    }

    /// The HTTP status, when there was an answer.
    pub fn status(&self) -> Option<u16> {
        match self {
            Error::Api(refusal) => Some(refusal.status),
            Error::PastDeadline { cause, .. }
            | Error::NotCreated { cause, .. }
            | Error::CreateUnknown { cause, .. } => cause.status(),
            Error::Decode { status, .. } => Some(*status),
            _ => None,
        }
    }
}

pub type Result<T> = std::result::Result<T, Error>;

/// A server that could not be reached: the console names it and says why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreachable {
    /// `http://127.0.0.1:8010`.
    pub server: String,
    /// "connection refused", "no answer within 30 s".
    pub reason: String,
}

/// The system's words for a failed connection, as a reason in a line:
/// "Connection refused (os error 111)" reads "connection refused".
fn plain_reason(message: &str) -> String {
    let message = message.trim();
    let message = match message.rfind(" (os error ") {
        Some(at) if message.ends_with(')') => &message[..at],
        _ => message,
    };
    let mut chars = message.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => "the connection failed".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(status: u16, code: &str, detail: &str, attr: Option<&str>) -> Refusal {
        Refusal {
            request: RequestLabel {
                method: "POST".into(),
                path: "/api/organizations/@current/roles/".into(),
            },
            status,
            kind: "validation_error".into(),
            code: code.into(),
            detail: detail.into(),
            attr: attr.map(str::to_string),
        }
    }

    #[test]
    fn refusals_read_as_one_line_with_what_to_do() {
        let scope = refusal(
            403,
            "permission_denied",
            "API key missing required scope 'organization:write'",
            None,
        );
        assert_eq!(scope.missing_scope(), Some("organization:write"));
        let line = scope.to_string();
        assert!(
            line.contains("403 permission_denied") && line.contains("'organization:write' scope"),
            "{line}"
        );
        assert!(!line.contains('\n'));
        let field = refusal(
            400,
            "unique",
            "There is already a role with this name.",
            Some("name"),
        );
        assert_eq!(
            field.to_string(),
            "400 unique: There is already a role with this name. (field: name) [POST /api/organizations/@current/roles/]"
        );
        let unreachable = Error::Transport {
            request: scope.request.clone(),
            server: "http://127.0.0.1:9".into(),
            kind: TransportKind::Connect,
            message: "Connection refused (os error 111)".into(),
            timeout: None,
        };
        assert_eq!(
            unreachable.unreachable(),
            Some(Unreachable {
                server: "http://127.0.0.1:9".into(),
                reason: "connection refused".into()
            })
        );
        assert!(
            unreachable
                .to_string()
                .starts_with("cannot connect to 127.0.0.1:9 (Connection refused")
        );
        assert_eq!(Error::Api(Box::new(scope.clone())).unreachable(), None);
        let throttled = refusal(
            429,
            "throttled",
            "Request was throttled. Expected available in 7 seconds.",
            None,
        );
        assert_eq!(throttled.retry_after(), Some(Duration::from_secs(7)));
    }
}
