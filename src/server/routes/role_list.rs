//! A page of roles written as the client takes it, each role's members a
//! chunk at a time.
//!
//! PostHog embeds every membership of a role in it (posthog.md 5), so a
//! page of ten roles in an organization of 180,000 people holds some
//! 360,000 memberships. Built whole, that answer was every membership as
//! an object and all of them again as JSON, and its cost grew faster than
//! the organization. Here a role is written as its head (up to and into
//! `"members":[`), its members [`CHUNK`] at a time read along the index
//! of their order from where the last chunk ended, then its tail: the
//! server holds one chunk, and holds no reader connection while the client
//! reads. A membership that joins or leaves while the answer is written
//! is in it or not as it stood when its chunk was read.

use axum::body::Body;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;

use super::streamed::{CHUNK, envelope_head, write_row};
use crate::api::{ListOrText, Page, Role};
use crate::server::error::{ApiError, ApiResult};
use crate::server::store::Db;
use crate::server::store::roles::{self, MemberPosition};

/// Where a role's JSON opens its members, as serde writes it: inside a
/// JSON string every `"` follows a backslash, so this is the key itself.
const MEMBERS_OPEN: &[u8] = b"\"members\":[";

/// The answer: `envelope` (its `results` empty) with `roles`, in order,
/// each with its members read from `db` as the body is written.
pub fn answer(envelope: &Page<()>, roles: Vec<Role>, db: Db) -> ApiResult<Response> {
    let head = envelope_head(envelope)?;
    let state = Writing {
        roles: roles.into_iter(),
        db,
        head: Some(head),
        role: None,
        wrote_role: false,
        done: false,
    };
    let body = futures_util::stream::unfold(state, |mut state| async move {
        let bytes = state.next_bytes().await?;
        Some((bytes, state))
    });
    Ok(([(CONTENT_TYPE, "application/json")], Body::from_stream(body)).into_response())
}

/// A role being written: its id, what closes it, and where its members
/// were read up to.
struct Open {
    id: String,
    tail: Vec<u8>,
    after: Option<MemberPosition>,
    wrote_member: bool,
}

/// Where the answer stands.
struct Writing {
    roles: std::vec::IntoIter<Role>,
    db: Db,
    /// The envelope up to its results, until sent.
    head: Option<Bytes>,
    role: Option<Open>,
    /// Whether a role was written, so that the next one needs a comma.
    wrote_role: bool,
    done: bool,
}

impl Writing {
    /// The next piece of the body; `None` once it has all been sent.
    async fn next_bytes(&mut self) -> Option<Result<Bytes, std::io::Error>> {
        if let Some(head) = self.head.take() {
            return Some(Ok(head));
        }
        if self.done {
            return None;
        }
        let written = match self.role.take() {
            Some(open) => self.members(open).await,
            None => self.open_next(),
        };
        match written {
            Ok(bytes) => Some(Ok(bytes)),
            Err(error) => {
                self.done = true;
                tracing::warn!(status = %error.status, "a list of roles could not be written to its end");
                Some(Err(std::io::Error::other(
                    "a list of roles could not be read to its end",
                )))
            }
        }
    }

    /// The next role's head, or the end of the page.
    fn open_next(&mut self) -> ApiResult<Bytes> {
        let Some(mut role) = self.roles.next() else {
            self.done = true;
            return Ok(Bytes::from_static(b"]}"));
        };
        role.members = Some(ListOrText::List(Vec::new()));
        let json = serde_json::to_vec(&role).map_err(ApiError::internal)?;
        let at = json
            .windows(MEMBERS_OPEN.len())
            .position(|window| window == MEMBERS_OPEN)
            .ok_or_else(|| ApiError::internal("a role written without its members"))?;
        let split = at + MEMBERS_OPEN.len();
        let mut out = Vec::with_capacity(split + 1);
        if self.wrote_role {
            out.push(b',');
        }
        self.wrote_role = true;
        out.extend_from_slice(&json[..split]);
        self.role = Some(Open {
            id: role.id,
            tail: json[split..].to_vec(),
            after: None,
            wrote_member: false,
        });
        Ok(Bytes::from(out))
    }

    /// The open role's next chunk of members, and its tail after the last.
    async fn members(&mut self, mut open: Open) -> ApiResult<Bytes> {
        let (id, after) = (open.id.clone(), open.after.clone());
        let (members, last) = self
            .db
            .read(move |connection| roles::members_after(connection, &id, after.as_ref(), CHUNK))
            .await?;
        let mut out = Vec::with_capacity(members.len() * 1024);
        for member in &members {
            write_row(&mut out, &mut open.wrote_member, member).map_err(ApiError::internal)?;
        }
        if members.len() < CHUNK {
            out.extend_from_slice(&open.tail);
        } else {
            open.after = last;
            self.role = Some(open);
        }
        Ok(Bytes::from(out))
    }
}
