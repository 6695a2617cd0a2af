//! The JSON body extractor: every way a body can be wrong becomes the error
//! a PostHog client expects, never a 500 or a plain-text rejection.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use serde_json::{Map, Value};

use super::AppState;
use super::error::ApiError;
use super::fields::json_type;

/// Request bodies larger than this are refused with 413. It bounds the one
/// stored text PostHog gives no length (a target value): a page of 100 of
/// the largest subscriptions one can write stays near 26 MB, well inside
/// what any client reads, so no writer can make a list unreadable.
pub const BODY_LIMIT: usize = 256 * 1024;

/// A request body that is a JSON object.
pub struct JsonObject(pub Map<String, Value>);

impl FromRequest<AppState> for JsonObject {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &AppState) -> Result<Self, Self::Rejection> {
        if let Some(content_type) = request.headers().get(CONTENT_TYPE) {
            let media_type = content_type
                .to_str()
                .unwrap_or("")
                .split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase();
            if media_type != "application/json" && !media_type.ends_with("+json") {
                return Err(ApiError::unsupported_media_type(&media_type));
            }
        }
        let allowed = state.read_timeouts.body;
        let read = tokio::time::timeout(allowed, Bytes::from_request(request, state))
            .await
            .map_err(|_| ApiError::body_too_slow(allowed))?;
        let bytes = read.map_err(|rejection| {
            if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::payload_too_large(BODY_LIMIT)
            } else {
                ApiError::parse_error(format!(
                    "Could not read the request body: {}",
                    rejection.body_text()
                ))
            }
        })?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            // DRF treats an empty body as an empty form: fields then fail as missing.
            return Ok(JsonObject(Map::new()));
        }
        match serde_json::from_slice::<Value>(&bytes) {
            Ok(Value::Object(object)) => Ok(JsonObject(object)),
            Ok(other) => Err(ApiError::validation(
                "invalid",
                format!(
                    "Invalid data. Expected a dictionary, but got {}.",
                    json_type(&other)
                ),
            )),
            Err(error) => Err(ApiError::parse_error(format!("JSON parse error - {error}"))),
        }
    }
}
