//! An object as the server sent it, beside its typed reading.
//!
//! The typed models keep what orgdeck understands, with defaults where a
//! server leaves a field out; written back, they would add fields, drop the
//! ones they do not know and turn nulls into defaults. `-o json` must pass
//! the server's objects through instead, so that a script sees what PostHog
//! sent: [`Raw`] keeps the object as it came (keys in their order, nulls and
//! unknown fields included) and serialises as exactly that, while tables
//! and the console read the typed view it derefs to.

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
}
