//! The server's one error type. Every refusal renders the four-key body of
//! compat.md; nothing a client sends can produce a 500 — only a fault of the
//! server itself (a database that cannot be read) does, and that is logged.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::api::ErrorBody;

#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    pub status: StatusCode,
    /// `None` answers with an empty body (the 405 of subscription DELETE).
    pub body: Option<ErrorBody>,
}

impl ApiError {
    pub fn new(status: StatusCode, kind: &str, code: &str, detail: impl Into<String>) -> Self {
        ApiError {
            status,
            body: Some(ErrorBody {
                kind: kind.to_string(),
                code: code.to_string(),
                detail: detail.into(),
                attr: None,
            }),
        }
    }

    /// Names the field the error is about.
    pub fn on(mut self, attr: impl Into<String>) -> Self {
        if let Some(body) = self.body.as_mut() {
            body.attr = Some(attr.into());
        }
        self
    }

    pub fn not_authenticated() -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            "authentication_error",
            "not_authenticated",
            "Authentication credentials were not provided.",
        )
    }

    pub fn invalid_key() -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            "authentication_error",
            "authentication_failed",
            "Personal API key found in request Authorization header is invalid.",
        )
    }

    pub fn permission_denied(detail: impl Into<String>) -> Self {
        Self::new(
            StatusCode::FORBIDDEN,
            "authentication_error",
            "permission_denied",
            detail,
        )
    }

    /// 408: the request body did not arrive in the time allowed.
    pub fn body_too_slow(allowed: std::time::Duration) -> Self {
        Self::new(
            StatusCode::REQUEST_TIMEOUT,
            "invalid_request",
            "request_timeout",
            format!(
                "The request body did not arrive within {} seconds.",
                allowed.as_secs_f64()
            ),
        )
    }

    pub fn missing_scope(scope: &str) -> Self {
        Self::permission_denied(format!("API key missing required scope '{scope}'"))
    }

    pub fn level_too_low() -> Self {
        Self::permission_denied("Your organization access level is insufficient.")
    }

    pub fn not_found_with(detail: &str) -> Self {
        Self::new(StatusCode::NOT_FOUND, "invalid_request", "not_found", detail)
    }

    pub fn not_found() -> Self {
        Self::not_found_with("Not found.")
    }

    pub fn method_not_allowed(method: &str) -> Self {
        Self::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "invalid_request",
            "method_not_allowed",
            format!("Method \"{method}\" not allowed."),
        )
    }

    /// A 405 with no body at all, as PostHog answers a subscription DELETE.
    pub fn method_not_allowed_empty() -> Self {
        ApiError {
            status: StatusCode::METHOD_NOT_ALLOWED,
            body: None,
        }
    }

    pub fn parse_error(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "invalid_request", "parse_error", detail)
    }

    /// A field validation error; name the field with [`ApiError::on`].
    /// A 400 validation error. DRF's code `invalid` is reported as
    /// `invalid_input`, as PostHog's exception handler renames it (both
    /// flavors: compat.md's header, posthog.md 2).
    pub fn validation(code: &str, detail: impl Into<String>) -> Self {
        let code = if code == "invalid" { "invalid_input" } else { code };
        Self::new(StatusCode::BAD_REQUEST, "validation_error", code, detail)
    }

    pub fn required(field: &str) -> Self {
        Self::validation("required", "This field is required.").on(field)
    }

    pub fn payload_too_large(limit: usize) -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "invalid_request",
            "payload_too_large",
            format!("Request body is larger than the {limit} bytes allowed."),
        )
    }

    pub fn unsupported_media_type(media_type: &str) -> Self {
        Self::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "invalid_request",
            "unsupported_media_type",
            format!("Unsupported media type \"{media_type}\" in request."),
        )
    }

    pub fn throttled(seconds: u64) -> Self {
        Self::new(
            StatusCode::TOO_MANY_REQUESTS,
            "throttled_error",
            "throttled",
            format!(
                "Request was throttled. Expected available in {seconds} second{}.",
                if seconds == 1 { "" } else { "s" }
            ),
        )
    }

    /// A fault of the server itself. The cause is logged, not sent.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        tracing::error!(%cause, "internal server error");
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "server_error",
            "error",
            "A server error occurred.",
        )
    }
}

impl From<rusqlite::Error> for ApiError {
    fn from(error: rusqlite::Error) -> Self {
        ApiError::internal(format!("database: {error}"))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        match self.body {
            Some(body) => (self.status, axum::Json(body)).into_response(),
            None => {
                let mut response = self.status.into_response();
                response
                    .headers_mut()
                    .insert(header::CONTENT_LENGTH, HeaderValue::from_static("0"));
                response
            }
        }
    }
}

pub type ApiResult<T> = Result<T, ApiError>;
