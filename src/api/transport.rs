//! The transport under the client: reading an answer against a size limit,
//! the configured host parsed, and the rule for redirects (the request's own
//! scheme, host and port alone, so the key goes nowhere else).

use reqwest::{Url, redirect};

use super::error::{Error, Result};
use super::prune::Pruner;

/// Why an answer's body was not read.
pub(super) enum Unread {
    TooLarge,
    Transport(reqwest::Error),
}

/// How many times its limit a pruned answer may be on the wire: what is
/// cut is never held, but an answer is never read without end either.
const PRUNED_WIRE: u64 = 64;

/// Reads a body up to `limit` bytes, and stops at once past it: an endless
/// or enormous answer costs at most `limit` bytes of memory. A declared
/// length over the limit is refused before reading anything.
///
/// With a [`Pruner`], the body is cut as it arrives and the limit is of
/// what is kept; the answer on the wire may be [`PRUNED_WIRE`] times as
/// large.
pub(super) async fn read_limited(
    mut response: reqwest::Response,
    limit: u64,
    mut pruner: Option<Pruner>,
) -> std::result::Result<bytes::Bytes, Unread> {
    let wire_limit = if pruner.is_some() {
        limit.saturating_mul(PRUNED_WIRE)
    } else {
        limit
    };
    if response
        .content_length()
        .is_some_and(|length| length > wire_limit)
    {
        return Err(Unread::TooLarge);
    }
    if let Some(pruner) = &mut pruner {
        let mut body = bytes::BytesMut::new();
        let mut wire = 0u64;
        while let Some(chunk) = response.chunk().await.map_err(Unread::Transport)? {
            wire = wire.saturating_add(chunk.len() as u64);
            pruner.feed(&chunk, &mut body);
            if wire > wire_limit || body.len() as u64 > limit {
                return Err(Unread::TooLarge);
            }
        }
        return Ok(body.freeze());
    }
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    // Reserved from what the server declared only up to a small bound: the
    // buffer grows with what actually arrives.
    let declared = response
        .content_length()
        .and_then(|length| usize::try_from(length).ok());
    let mut body = bytes::BytesMut::with_capacity(declared.unwrap_or(0).min(1 << 20));
    while let Some(chunk) = response.chunk().await.map_err(Unread::Transport)? {
        if chunk.len() > limit - body.len() {
            return Err(Unread::TooLarge);
        }
        if body.capacity() - body.len() < chunk.len() {
            // Double, but never past the limit.
            let wanted = (body.capacity() * 2).max(body.len() + chunk.len()).min(limit);
            body.reserve(wanted - body.len());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}

/// How many times the client's answer limit a body handed on as it
/// arrives ([`feed_limited`]) may be on the wire: its reader holds a chunk
/// and a row of it, never the whole, but it is never read without end.
pub(super) const FED_WIRE: u64 = 64;

/// Hands a body on, a chunk at a time as it arrives, to `to` (a decoder
/// reading it row by row), up to `limit` bytes in all: nothing of it is
/// held here. A declared length over the limit is refused before reading
/// anything. When the decoder has stopped (it has dropped its end), the
/// rest is left unread: the decoder's own result says why.
pub(super) async fn feed_limited(
    mut response: reqwest::Response,
    limit: u64,
    to: &tokio::sync::mpsc::Sender<bytes::Bytes>,
) -> std::result::Result<(), Unread> {
    if response.content_length().is_some_and(|length| length > limit) {
        return Err(Unread::TooLarge);
    }
    let mut wire = 0u64;
    while let Some(chunk) = response.chunk().await.map_err(Unread::Transport)? {
        wire = wire.saturating_add(chunk.len() as u64);
        if wire > limit {
            return Err(Unread::TooLarge);
        }
        if to.send(chunk).await.is_err() {
            return Ok(());
        }
    }
    Ok(())
}

/// Parses the configured host; a bare host name means https.
pub(super) fn parse_host(host: &str) -> Result<Url> {
    let host = host.trim();
    let with_scheme = if host.contains("://") {
        host.to_string()
    } else {
        format!("https://{host}")
    };
    let shown = super::secret::redacted_url(host);
    let mut url = Url::parse(&with_scheme)
        .map_err(|error| Error::Invalid(format!("{shown:?} is not a host address: {error}")))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(Error::Invalid(format!(
            "{shown:?} is not an http(s) host address"
        )));
    }
    // The key travels in the Authorization header; credentials in the host
    // would only be shown where they must not be. An http(s) URL with a
    // host can always drop them.
    let _ = url.set_username("");
    let _ = url.set_password(None);
    Ok(url)
}

/// Follows redirects only to the request's own scheme, host and port, so
/// that the Authorization header never travels to another server, nor over
/// plain http after https; any other is refused with an error that names it.
pub(super) fn same_origin_redirects() -> redirect::Policy {
    redirect::Policy::custom(|attempt| {
        let allowed = attempt
            .previous()
            .first()
            .is_none_or(|first| may_follow(first, attempt.url()));
        if attempt.previous().len() > 5 {
            attempt.error("too many redirects")
        } else if !allowed {
            let to =
                crate::text::printable(&super::secret::redacted_url(attempt.url().as_str())).into_owned();
            attempt.error(format!(
                "a redirect to {to}, another scheme, host or port than the request's"
            ))
        } else {
            attempt.follow()
        }
    })
}

/// Whether a redirect from `from` to `to` keeps the scheme, host and port.
fn may_follow(from: &Url, to: &Url) -> bool {
    from.scheme() == to.scheme()
        && from.host_str() == to.host_str()
        && from.port_or_known_default() == to.port_or_known_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirects_keep_scheme_host_and_port() {
        let url = |text: &str| Url::parse(text).unwrap();
        let from = url("https://posthog.example.com/api/x/");
        assert!(may_follow(
            &from,
            &url("https://posthog.example.com/api/y/?offset=5")
        ));
        assert!(may_follow(&from, &url("https://posthog.example.com:443/api/y/")));
        for to in [
            "http://posthog.example.com/api/x/",
            "http://posthog.example.com:443/api/x/",
            "https://posthog.example.com:8443/api/x/",
            "https://elsewhere.example.com/api/x/",
        ] {
            assert!(!may_follow(&from, &url(to)), "{to}");
        }
        let plain = url("http://127.0.0.1:8010/api/");
        assert!(!may_follow(&plain, &url("https://127.0.0.1:8010/api/")));
        assert!(!may_follow(&plain, &url("http://127.0.0.1:8011/api/")));
    }
}
