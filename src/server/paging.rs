//! Limit/offset paging with the envelope and links of compat.md.

use axum::extract::{FromRequestParts, OriginalUri};
use axum::http::request::Parts;

use super::AppState;
use super::error::ApiError;
use crate::api::Page;

/// Results per page when the request names no valid `limit`.
pub const DEFAULT_LIMIT: u64 = 100;

/// The request's address and query, from which a list answers its page and
/// builds its `next` and `previous` links.
#[derive(Debug, Clone)]
pub struct ListRequest {
    /// The server's public address and the path the client asked for.
    base: String,
    /// The query parameters in the order sent.
    pub query: Vec<(String, String)>,
    pub limit: u64,
    pub offset: u64,
}

impl ListRequest {
    pub fn new(base: String, query: Vec<(String, String)>) -> Self {
        let value = |name: &str| query.iter().find(|(key, _)| key == name).map(|(_, v)| v.trim());
        // A limit that is not a positive integer falls back to the default,
        // an offset that is not a non-negative integer to 0 (compat.md).
        let limit = value("limit")
            .and_then(|text| text.parse::<u64>().ok())
            .filter(|&limit| limit > 0)
            .unwrap_or(DEFAULT_LIMIT);
        let offset = value("offset")
            .and_then(|text| text.parse::<u64>().ok())
            .unwrap_or(0);
        ListRequest {
            base,
            query,
            limit,
            offset,
        }
    }

    /// The value of a query parameter (the first, when repeated).
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// What the request asks, whole: the same identity is the same answer
    /// while the data stays the same.
    pub fn identity(&self) -> String {
        format!("{} {:?}", self.base, self.query)
    }

    /// Wraps one page of results in the envelope.
    pub fn page<T>(&self, count: u64, results: Vec<T>) -> Page<T> {
        let next = (self.offset.saturating_add(self.limit) < count)
            .then(|| self.link(Some(self.offset + self.limit)));
        let previous = (self.offset > 0).then(|| {
            let previous = self.offset.saturating_sub(self.limit);
            self.link((previous > 0).then_some(previous))
        });
        Page {
            count,
            next,
            previous,
            results,
        }
    }

    /// The request's URL with `name` set to `value`, the other parameters
    /// kept as sent (a cursor link).
    pub fn link_with(&self, name: &str, value: &str) -> String {
        let mut query: Vec<(String, String)> = self
            .query
            .iter()
            .filter(|(key, _)| key != name)
            .cloned()
            .collect();
        query.push((name.to_string(), value.to_string()));
        let encoded = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(query)
            .finish();
        format!("{}?{}", self.base, encoded)
    }

    /// The request's URL with `limit` set and `offset` set or dropped; the
    /// other parameters are kept as sent.
    fn link(&self, offset: Option<u64>) -> String {
        let mut query: Vec<(String, String)> = self
            .query
            .iter()
            .filter(|(key, _)| key != "limit" && key != "offset")
            .cloned()
            .collect();
        query.push(("limit".into(), self.limit.to_string()));
        if let Some(offset) = offset {
            query.push(("offset".into(), offset.to_string()));
        }
        let encoded = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(query)
            .finish();
        format!("{}?{}", self.base, encoded)
    }
}

impl FromRequestParts<AppState> for ListRequest {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        // The router strips a trailing slash before routing; links keep the
        // address the client used.
        let uri = parts
            .extensions
            .get::<OriginalUri>()
            .map(|original| original.0.clone())
            .unwrap_or_else(|| parts.uri.clone());
        // The links name the server's own address: a `Host:` header is the
        // client's to write, and must not send the next page elsewhere.
        let query: Vec<(String, String)> = form_urlencoded::parse(uri.query().unwrap_or("").as_bytes())
            .into_owned()
            .collect();
        // SQLite's LIKE ends a pattern at NUL, so `search=%00x` would match
        // every row; Django refuses NUL in text the same way.
        if let Some((name, _)) = query.iter().find(|(_, value)| value.contains('\0')) {
            return Err(ApiError::validation(
                "null_characters_not_allowed",
                "Null characters are not allowed.",
            )
            .on(name.clone()));
        }
        let mut request = ListRequest::new(format!("{}{}", state.public_url, uri.path()), query);
        if let Some(max) = state.max_limit {
            request.limit = request.limit.min(max);
        }
        Ok(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(query: &str) -> ListRequest {
        let query = form_urlencoded::parse(query.as_bytes()).into_owned().collect();
        ListRequest::new("http://h/api/x/".into(), query)
    }

    #[test]
    fn links_follow_compat() {
        let first = request("limit=10&search=a b");
        let page = first.page(25, Vec::<()>::new());
        assert_eq!(
            page.next.as_deref(),
            Some("http://h/api/x/?search=a+b&limit=10&offset=10")
        );
        assert_eq!(page.previous, None);

        let middle = request("limit=10&offset=10").page(25, Vec::<()>::new());
        assert_eq!(middle.previous.as_deref(), Some("http://h/api/x/?limit=10"));
        let last = request("limit=10&offset=20").page(25, Vec::<()>::new());
        assert_eq!(last.next, None);
        assert_eq!(
            last.previous.as_deref(),
            Some("http://h/api/x/?limit=10&offset=10")
        );
    }

    #[test]
    fn bad_paging_values_fall_back() {
        for (query, limit, offset) in [
            ("limit=0&offset=-5", DEFAULT_LIMIT, 0),
            ("limit=abc&offset=x", DEFAULT_LIMIT, 0),
            ("limit=-3&offset=7", DEFAULT_LIMIT, 7),
            ("limit=1000000", 1_000_000, 0),
        ] {
            let parsed = request(query);
            assert_eq!((parsed.limit, parsed.offset), (limit, offset), "{query}");
        }
    }
}
