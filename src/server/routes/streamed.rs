//! Long pages written into the response a chunk of rows at a time.
//!
//! PostHog sets no upper bound on `limit`, so one request may ask for a
//! page of 100,000 subscriptions. Built whole, such a page is the rows in
//! memory and their JSON in one buffer (some 80 MB each), and a handful of
//! such requests at once would take the server's memory with them. A long
//! page is instead found as its ids alone, then read, serialised and sent
//! [`CHUNK`] rows at a time as the client takes them: a request holds one
//! chunk, and holds no reader connection while the client reads.

use std::future::Future;

use axum::body::Body;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde::Serialize;

use crate::api::Page;
use crate::server::error::{ApiError, ApiResult};

/// Pages asking for more rows than this are streamed; shorter ones are
/// built whole (and may be remembered, see `AnswerCache`).
pub const STREAM_ABOVE: u64 = 1_000;

/// Rows read and written at a time.
pub const CHUNK: usize = 500;

/// The answer to a long page: the envelope of `envelope` (its `results`
/// empty) with the rows of `ids`, read by `read` a chunk at a time, in
/// order. A row gone since its id was found is left out. A read that fails
/// midway ends the body early: the status is sent by then, and a client
/// sees an answer that does not parse rather than a short one that does.
pub fn page<T, F, Fut>(envelope: &Page<()>, ids: Vec<i64>, read: F) -> ApiResult<Response>
where
    T: Serialize + Send + 'static,
    F: Fn(Vec<i64>) -> Fut + Send + 'static,
    Fut: Future<Output = ApiResult<Vec<T>>> + Send + 'static,
{
    let head = envelope_head(envelope)?;
    let state = Chunks {
        ids,
        next: 0,
        wrote_row: false,
        read,
        head: Some(head),
        done: false,
    };
    let body = futures_util::stream::unfold(state, |mut state| async move {
        let bytes = state.next_bytes().await?;
        Some((bytes, state))
    });
    Ok(([(CONTENT_TYPE, "application/json")], Body::from_stream(body)).into_response())
}

/// What a streamed answer's body opens with: `answer`, written with its
/// `results` empty and last, up to the bracket its rows follow
/// (`..."results":[`).
pub(super) fn envelope_head(answer: &impl Serialize) -> ApiResult<Bytes> {
    let mut head = serde_json::to_vec(answer).map_err(ApiError::internal)?;
    if !head.ends_with(b"[]}") {
        return Err(ApiError::internal(
            "a page envelope that does not end in its results",
        ));
    }
    head.truncate(head.len() - 2);
    Ok(Bytes::from(head))
}

/// Where a streamed page stands.
struct Chunks<F> {
    ids: Vec<i64>,
    /// The index in `ids` of the next chunk's first id.
    next: usize,
    /// Whether a row was written, so that the next one needs a comma.
    wrote_row: bool,
    read: F,
    /// The envelope up to its results, until sent.
    head: Option<Bytes>,
    done: bool,
}

impl<F> Chunks<F> {
    /// The next piece of the body; `None` once it has all been sent.
    async fn next_bytes<T, Fut>(&mut self) -> Option<Result<Bytes, std::io::Error>>
    where
        T: Serialize,
        F: Fn(Vec<i64>) -> Fut,
        Fut: Future<Output = ApiResult<Vec<T>>>,
    {
        if let Some(head) = self.head.take() {
            return Some(Ok(head));
        }
        if self.done {
            return None;
        }
        if self.next >= self.ids.len() {
            self.done = true;
            return Some(Ok(Bytes::from_static(b"]}")));
        }
        let end = (self.next + CHUNK).min(self.ids.len());
        let chunk = self.ids[self.next..end].to_vec();
        self.next = end;
        let rows = match (self.read)(chunk).await {
            Ok(rows) => rows,
            Err(error) => {
                self.done = true;
                tracing::warn!(status = %error.status, "a streamed page could not be read to its end");
                return Some(Err(std::io::Error::other("a page could not be read to its end")));
            }
        };
        let mut out = Vec::with_capacity(rows.len() * 1024);
        for row in &rows {
            if let Err(error) = write_row(&mut out, &mut self.wrote_row, row) {
                self.done = true;
                return Some(Err(std::io::Error::other(error)));
            }
        }
        Some(Ok(Bytes::from(out)))
    }
}

/// Writes `row` into a streamed answer's `results`, after a comma when a
/// row came before it.
pub(super) fn write_row(
    out: &mut Vec<u8>,
    wrote_row: &mut bool,
    row: &impl Serialize,
) -> serde_json::Result<()> {
    if *wrote_row {
        out.push(b',');
    }
    serde_json::to_writer(&mut *out, row)?;
    *wrote_row = true;
    Ok(())
}
