//! HTTP handlers, one module per resource.

use axum::Json;
use rusqlite::Connection;

use super::error::{ApiError, ApiResult};
use super::paging::ListRequest;
use super::store::{Db, Snapshot};
use crate::api::Page;

/// Answers a list request with the page `read` finds at the request's
/// `(limit, offset)`, in the envelope with its links.
pub async fn page_of<T, F>(db: &Db, request: ListRequest, read: F) -> ApiResult<Json<Page<T>>>
where
    T: Send + 'static,
    F: FnOnce(&Connection, (u64, u64)) -> ApiResult<(u64, Vec<T>)> + Send + 'static,
{
    let page = (request.limit, request.offset);
    let (count, rows) = db.read(move |connection| read(connection, page)).await?;
    Ok(Json(request.page(count, rows)))
}

/// [`page_of`] for a list paged from remembered positions (`keyset`):
/// `read` gets what is remembered of the data's generation, and may run
/// again when a commit lands while it reads.
pub async fn list_page_of<T, F>(db: &Db, request: ListRequest, mut read: F) -> ApiResult<Json<Page<T>>>
where
    T: Send + 'static,
    F: FnMut(&Connection, &Snapshot, (u64, u64)) -> ApiResult<(u64, Vec<T>)> + Send + 'static,
{
    let page = (request.limit, request.offset);
    let (count, rows) = db
        .read_list(false, move |connection, snapshot| {
            read(connection, snapshot, page)
        })
        .await?;
    Ok(Json(request.page(count, rows)))
}

/// A page as JSON, written into one buffer sized for 100 subscriptions
/// (about 90 KB) rather than grown from a few bytes write by write.
pub fn page_bytes<T: serde::Serialize>(page: &Page<T>) -> ApiResult<bytes::Bytes> {
    const PAGE_SIZE_HINT: usize = 128 * 1024;
    let mut buffer = Vec::with_capacity(PAGE_SIZE_HINT);
    serde_json::to_writer(&mut buffer, page).map_err(ApiError::internal)?;
    Ok(buffer.into())
}

/// JSON already written.
pub struct JsonBytes(pub bytes::Bytes);

impl axum::response::IntoResponse for JsonBytes {
    fn into_response(self) -> axum::response::Response {
        ([(axum::http::header::CONTENT_TYPE, "application/json")], self.0).into_response()
    }
}

pub mod access;
pub mod integrations;
pub mod members;
pub mod memberships;
pub mod pickers;
mod role_list;
pub mod roles;
pub mod streamed;
pub mod subscriptions;

/// Scope names of compat.md.
pub mod scope {
    pub const ORGANIZATION_READ: &str = "organization:read";
    pub const ORGANIZATION_WRITE: &str = "organization:write";
    pub const SUBSCRIPTION_READ: &str = "subscription:read";
    pub const SUBSCRIPTION_WRITE: &str = "subscription:write";
    pub const ORGANIZATION_MEMBER_READ: &str = "organization_member:read";
    pub const ORGANIZATION_MEMBER_WRITE: &str = "organization_member:write";
    pub const PROJECT_READ: &str = "project:read";
    pub const DASHBOARD_READ: &str = "dashboard:read";
    pub const INSIGHT_READ: &str = "insight:read";
    pub const INTEGRATION_READ: &str = "integration:read";
    /// `users/@me` (PostHog's scope object `user`).
    pub const USER_READ: &str = "user:read";
    /// Also needed to write or deliver an AI-prompt subscription.
    pub const QUERY_READ: &str = "query:read";
}
