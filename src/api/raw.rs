//! An object as the server sent it, beside its typed reading.
//!
//! The typed models keep what orgdeck understands, with defaults where a
//! server leaves a field out; written back, they would add fields, drop the
//! ones they do not know and turn nulls into defaults. `-o json` must pass
//! the server's objects through instead, so that a script sees what PostHog
//! sent: [`Raw`] keeps the object as it came (keys in their order, nulls and
//! unknown fields included) and serialises as exactly that, while tables
//! and the console read the typed view it derefs to. Where nothing reads
//! the typed view (`subs list -o json`), [`Verbatim`] keeps the text alone:
//! a row is then read once, not twice.

use std::marker::PhantomData;
use std::ops::Deref;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

/// The server's JSON and its typed reading.
#[derive(Debug, Clone)]
pub struct Raw<T> {
    /// The object's JSON text, exactly as it came.
    pub json: Box<RawValue>,
    pub typed: T,
}

impl<T> Raw<T> {
    /// The typed reading alone.
    pub fn into_typed(self) -> T {
        self.typed
    }

    /// The object as a JSON value.
    pub fn value(&self) -> Value {
        // The text parsed once already, as it came in.
        serde_json::from_str(self.json.get()).unwrap_or(Value::Null)
    }
}

impl<T: PartialEq> PartialEq for Raw<T> {
    fn eq(&self, other: &Self) -> bool {
        self.json.get() == other.json.get() && self.typed == other.typed
    }
}

impl<T> Deref for Raw<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.typed
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Raw<T> {
    /// From JSON text (an answer's bytes): the object's text is kept, and
    /// read again into `T`.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let json = Box::<RawValue>::deserialize(deserializer)?;
        let typed = serde_json::from_str(json.get()).map_err(serde::de::Error::custom)?;
        Ok(Raw { json, typed })
    }
}

impl<T> Serialize for Raw<T> {
    /// As the server sent it. Parsed again here rather than written as
    /// text, so that the writer (JSON output escapes what a terminal would
    /// act on) sees every string.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let value: Value = serde_json::from_str(self.json.get()).map_err(serde::ser::Error::custom)?;
        value.serialize(serializer)
    }
}

/// A row of a list as the server sent it and nothing more: its text, its
/// typed reading left unread (what `-o json` passes on as it came). The
/// walk's checks read its `id` off the text ([`field`]).
#[derive(Debug, Clone)]
pub struct Verbatim<T> {
    pub json: Box<RawValue>,
    rows: PhantomData<fn() -> T>,
}

impl<T: DeserializeOwned> Verbatim<T> {
    /// The typed reading, read now (for a filter only it can answer).
    pub fn typed(&self) -> serde_json::Result<T> {
        serde_json::from_str(self.json.get())
    }
}

impl<'de, T> Deserialize<'de> for Verbatim<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Verbatim {
            json: Box::<RawValue>::deserialize(deserializer)?,
            rows: PhantomData,
        })
    }
}

/// The text of the value of `name` in the object `json` (valid JSON text,
/// as a [`RawValue`] holds), read without decoding the rest: keys are
/// compared as the strings they stand for. `None` when `json` is not an
/// object or has no such key.
pub fn field<'a>(json: &'a str, name: &str) -> Option<&'a str> {
    let bytes = json.as_bytes();
    let mut at = skip_space(bytes, 0);
    if bytes.get(at) != Some(&b'{') {
        return None;
    }
    loop {
        at = skip_space(bytes, at + 1);
        if bytes.get(at) != Some(&b'"') {
            return None;
        }
        let key_end = string_end(bytes, at);
        let key = json.get(at..=key_end)?;
        at = skip_space(bytes, key_end + 1);
        if bytes.get(at) != Some(&b':') {
            return None;
        }
        let start = skip_space(bytes, at + 1);
        let end = value_end(bytes, start);
        let same = if key.contains('\\') {
            serde_json::from_str::<String>(key).is_ok_and(|key| key == name)
        } else {
            &key[1..key.len() - 1] == name
        };
        if same {
            return json.get(start..end);
        }
        at = skip_space(bytes, end);
        if bytes.get(at) != Some(&b',') {
            return None;
        }
    }
}

/// The first byte at or after `at` that is not JSON whitespace.
pub fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while at < bytes.len() && matches!(bytes[at], b' ' | b'\t' | b'\n' | b'\r') {
        at += 1;
    }
    at
}

/// The index of the quote that closes the string opening at `open` (or
/// the text's length, for text cut short).
pub fn string_end(bytes: &[u8], open: usize) -> usize {
    let mut at = open + 1;
    while at < bytes.len() {
        match bytes[at] {
            b'"' => return at,
            b'\\' => at += 2,
            _ => at += 1,
        }
    }
    bytes.len()
}

/// Where the value starting at `start` ends (the index after it).
fn value_end(bytes: &[u8], start: usize) -> usize {
    match bytes.get(start) {
        Some(b'"') => (string_end(bytes, start) + 1).min(bytes.len()),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            let mut at = start;
            while at < bytes.len() {
                match bytes[at] {
                    b'"' => at = string_end(bytes, at),
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return at + 1;
                        }
                    }
                    _ => {}
                }
                at += 1;
            }
            bytes.len()
        }
        _ => {
            let mut at = start;
            while at < bytes.len() && !matches!(bytes[at], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            {
                at += 1;
            }
            at
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Subscription;

    #[test]
    fn the_server_s_object_goes_back_out_as_it_came() {
        let sent = r#"{"id":7,"title":null,"a_field_from_the_future":{"x":[1,2]},"target_type":"teams","enabled":false}"#;
        let raw: Raw<Subscription> = serde_json::from_str(sent).unwrap();
        assert_eq!(raw.id, 7);
        assert_eq!(raw.enabled, Some(false));
        assert_eq!(
            serde_json::to_string(&raw).unwrap(),
            sent,
            "keys, order and nulls kept; nothing added"
        );
        // The typed model alone would not have kept it.
        assert_ne!(serde_json::to_string(&raw.typed).unwrap(), sent);
    }

    #[test]
    fn a_field_is_read_off_the_text_as_its_value_says() {
        let text = r#" { "a" : {"id": [1, "}"]}, "t\"x": "i\"d", "\u0069d" : "7\u0041" ,"id":9}"#;
        assert_eq!(field(text, "a"), Some(r#"{"id": [1, "}"]}"#));
        assert_eq!(field(text, "t\"x"), Some(r#""i\"d""#));
        // The first key that stands for "id", however it is written.
        assert_eq!(field(text, "id"), Some(r#""7\u0041""#));
        assert_eq!(field(r#"{"x":1,"id":-2.5e3}"#, "id"), Some("-2.5e3"));
        assert_eq!(field(r#"{"x":1}"#, "id"), None);
        assert_eq!(field("[1]", "id"), None);
        assert_eq!(field("{}", "id"), None);
        assert_eq!(field(r#"{"x":"cut"#, "id"), None);
    }

    #[test]
    fn a_verbatim_row_keeps_its_text_and_its_id_is_the_typed_one() {
        use crate::api::Role;
        use crate::api::paging::Row;
        for (text, id) in [
            (r#"{"id":7,"title":null}"#, "7"),
            (r#"{"title":"x","id":"ab\u0063"}"#, "abc"),
            (r#"{"id":"r1","name":"x"}"#, "r1"),
        ] {
            let verbatim: Verbatim<Subscription> = serde_json::from_str(text).unwrap();
            assert_eq!(verbatim.json.get(), text);
            assert_eq!(verbatim.row_id(), id, "{text}");
            let role: Verbatim<Role> = serde_json::from_str(text).unwrap();
            assert_eq!(role.row_id(), id);
        }
        let typed: Verbatim<Subscription> = serde_json::from_str(r#"{"id":7,"enabled":false}"#).unwrap();
        assert_eq!(typed.typed().unwrap().enabled, Some(false));
        let role: Role = serde_json::from_str(r#"{"id":"ab\u0063"}"#).unwrap();
        let verbatim: Verbatim<Role> = serde_json::from_str(r#"{"id":"ab\u0063"}"#).unwrap();
        assert_eq!(verbatim.row_id(), role.row_id());
    }
}
