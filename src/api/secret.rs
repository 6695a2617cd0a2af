//! The personal API key, kept out of sight: its `Debug` and `Display` show
//! only that a key is there, so it cannot reach a log, an error message or a
//! screen by accident.

use std::fmt;

#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key, trimming the whitespace a file or a command leaves.
    pub fn new(key: impl Into<String>) -> Self {
        ApiKey(key.into().trim().to_string())
    }

    /// The key itself, for the Authorization header and nothing else.
    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Why the key cannot travel in an Authorization header, if it cannot:
    /// a line break or another control character, or a character beyond
    /// ASCII, which a pasted key or a command printing more than the key
    /// leaves. Said without the key.
    pub fn unusable(&self) -> Option<&'static str> {
        if self.0.chars().any(|c| c == '\n' || c == '\r') {
            Some("the API key holds a line break (a command or variable gave more than the key)")
        } else if self.0.chars().any(|c| c.is_control()) {
            Some("the API key holds a control character")
        } else if !self.0.is_ascii() {
            Some("the API key holds a character that is not ASCII")
        } else {
            None
        }
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

/// A URL as it may be shown: any password in it replaced by `***` (and a
/// user name alone, which is often a token, too). Text that is not a URL
/// with credentials comes back as it was.
pub fn redacted_url(text: &str) -> String {
    let Ok(mut url) = reqwest::Url::parse(text.trim()) else {
        return redacted_unparsed(text);
    };
    if url.username().is_empty() && url.password().is_none() {
        return text.to_string();
    }
    // Setting credentials fails only on URLs that cannot have them, and
    // those had none to hide.
    if url.password().is_some() {
        let _ = url.set_password(Some("***"));
    } else {
        let _ = url.set_username("***");
    }
    url.to_string()
}

/// The same for text that does not parse as a URL: whatever stands between
/// `://` and an `@` of the authority is credentials.
fn redacted_unparsed(text: &str) -> String {
    let Some(scheme_end) = text.find("://").map(|at| at + 3) else {
        return text.to_string();
    };
    let rest = &text[scheme_end..];
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    let Some(at) = authority.rfind('@') else {
        return text.to_string();
    };
    let shown = match authority[..at].split_once(':') {
        Some((user, _)) => format!("{user}:***"),
        None => "***".to_string(),
    };
    format!("{}{shown}{}", &text[..scheme_end], &rest[at..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_lose_their_passwords() {
        assert_eq!(
            redacted_url("http://user:hunter2@example.com:8000/x"),
            "http://user:***@example.com:8000/x"
        );
        assert_eq!(
            redacted_url("https://phx_token@example.com"),
            "https://***@example.com/"
        );
        assert_eq!(redacted_url("http://example.com:8000"), "http://example.com:8000");
        assert_eq!(redacted_url("not a url"), "not a url");
        assert_eq!(redacted_url("http://admin:pw@[::1"), "http://admin:***@[::1");
        assert_eq!(redacted_url("http://tok@[::1/x@y"), "http://***@[::1/x@y");
    }

    #[test]
    fn the_key_never_prints() {
        let key = ApiKey::new(" phx_secret123 \n");
        assert_eq!(key.expose(), "phx_secret123");
        assert!(!format!("{key:?} {key} {:#?}", key).contains("secret"));
        assert_eq!(key.unusable(), None);
        assert!(
            ApiKey::new("phx_a\ndef")
                .unusable()
                .unwrap()
                .contains("line break")
        );
        assert!(ApiKey::new("phx_a\u{1}b").unusable().unwrap().contains("control"));
    }
}
