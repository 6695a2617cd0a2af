//! Date-time parsing shared by the models, the server's validation and the CLI.

use chrono::{DateTime, NaiveDate, NaiveDateTime, SecondsFormat, Utc};

/// Parses an ISO 8601 date-time as a server sends it or a user types it:
/// with an offset (`2026-12-01T09:00:00+02:00`, `...Z`), or naive and taken
/// as UTC (`2026-12-01T09:00`, `2026-12-01 09:00:00.5`).
pub fn parse_datetime(text: &str) -> Option<DateTime<Utc>> {
    let text = text.trim();
    if let Ok(parsed) = DateTime::parse_from_rfc3339(text) {
        return Some(parsed.with_timezone(&Utc));
    }
    // RFC 3339 demands seconds; ISO 8601 lets them go: retry with ":00".
    if let Some(at) = text.rfind(['+', '-', 'Z', 'z']).filter(|&at| at > 10) {
        let (clock, zone) = text.split_at(at);
        if clock.len() == 16
            && let Ok(parsed) = DateTime::parse_from_rfc3339(&format!("{clock}:00{zone}"))
        {
            return Some(parsed.with_timezone(&Utc));
        }
    }
    const NAIVE: [&str; 4] = [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M",
    ];
    NAIVE
        .iter()
        .find_map(|format| NaiveDateTime::parse_from_str(text, format).ok())
        .map(|naive| naive.and_utc())
}

/// Like [`parse_datetime`], and also a bare date (`2026-12-01`, midnight UTC),
/// which people type but the API's date-time fields refuse.
pub fn parse_user_datetime(text: &str) -> Option<DateTime<Utc>> {
    parse_datetime(text).or_else(|| {
        NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d")
            .ok()
            .and_then(|date| date.and_hms_opt(0, 0, 0))
            .map(|naive| naive.and_utc())
    })
}

/// The wire form: RFC 3339 in UTC with a `Z`, as PostHog writes it.
pub fn format_datetime(at: &DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::AutoSi, true)
}

/// Serde adapter for `Option<DateTime<Utc>>` that accepts every form
/// [`parse_datetime`] does. A value that is not a date-time at all decodes as
/// `None` (and is logged) rather than failing the whole resource.
pub mod flexible_datetime {
    use chrono::{DateTime, Utc};
    use serde::{Deserialize, Deserializer, Serializer};
    use serde_json::Value;

    pub fn serialize<S: Serializer>(value: &Option<DateTime<Utc>>, serializer: S) -> Result<S::Ok, S::Error> {
        match value {
            Some(at) => serializer.serialize_str(&super::format_datetime(at)),
            None => serializer.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<DateTime<Utc>>, D::Error> {
        Ok(match Value::deserialize(deserializer)? {
            Value::String(text) => {
                let parsed = super::parse_datetime(&text);
                if parsed.is_none() {
                    tracing::warn!(value = %text, "ignoring a date-time the server sent that does not parse");
                }
                parsed
            }
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_forms_people_and_servers_use() {
        let want = "2026-12-01T09:00:00Z";
        for text in [
            "2026-12-01T09:00:00Z",
            "2026-12-01T09:00:00+00:00",
            "2026-12-01T11:00:00+02:00",
            "2026-12-01T09:00Z",
            "2026-12-01T09:00",
            "2026-12-01 09:00",
            "2026-12-01T09:00:00.000",
        ] {
            let parsed = parse_datetime(text).unwrap_or_else(|| panic!("{text}"));
            assert_eq!(format_datetime(&parsed), want, "{text}");
        }
        assert!(parse_datetime("2026-12-01").is_none());
        assert_eq!(
            format_datetime(&parse_user_datetime("2026-12-01").unwrap()),
            "2026-12-01T00:00:00Z"
        );
        assert!(parse_datetime("yesterday").is_none());
        assert!(parse_datetime("").is_none());
    }
}
