//! Dates and times as people read them, below every face (the CLI, the
//! console, the domain): `2026-11-22 09:00` in a zone, `in 3h 20m`, the
//! zone's own label. The zone is a value the caller passes in (`--tz
//! local|UTC|ZONE`, a profile's `tz`): nothing here is global, so what a
//! function returns depends on its arguments alone (and, for the machine's
//! own zone, on the machine).

use std::borrow::Cow;
use std::str::FromStr;

use chrono::{DateTime, Local, Utc};

/// Where times are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Zone {
    #[default]
    Utc,
    /// The machine's own zone (`TZ`, else the system's).
    Local,
    Named(chrono_tz::Tz),
}

impl FromStr for Zone {
    type Err = String;

    /// `local`, `UTC` (any case), or a zone of the tz database
    /// (`Europe/Paris`).
    fn from_str(text: &str) -> Result<Zone, String> {
        match text.trim() {
            zone if zone.eq_ignore_ascii_case("local") => Ok(Zone::Local),
            zone if zone.eq_ignore_ascii_case("utc") || zone == "Z" => Ok(Zone::Utc),
            zone => zone
                .parse::<chrono_tz::Tz>()
                .map(Zone::Named)
                .map_err(|_| format!("\"{zone}\" is not a time zone: local, UTC or one like Europe/Paris")),
        }
    }
}

impl Zone {
    /// `at` in this zone, as `format` says.
    pub fn format(self, at: DateTime<Utc>, format: &str) -> String {
        match self {
            Zone::Utc => at.format(format).to_string(),
            Zone::Local => at.with_timezone(&Local).format(format).to_string(),
            Zone::Named(tz) => at.with_timezone(&tz).format(format).to_string(),
        }
    }

    /// The zone's name for headers and footers: `UTC`, `CET`, `+05:30`.
    pub fn label(self) -> String {
        match self {
            Zone::Utc => "UTC".into(),
            // The machine's zone has no name here, only its offset; none is UTC.
            Zone::Local => match Utc::now().with_timezone(&Local).offset().local_minus_utc() {
                0 => "UTC".into(),
                _ => Utc::now().with_timezone(&Local).format("%:z").to_string(),
            },
            Zone::Named(tz) => Utc::now().with_timezone(&tz).format("%Z").to_string(),
        }
    }

    /// A header that says `(UTC)` says this zone instead.
    pub fn header(self, header: &str) -> Cow<'_, str> {
        let label = self.label();
        if header.contains("(UTC)") && label != "UTC" {
            header.replace("(UTC)", &format!("({label})")).into()
        } else {
            header.into()
        }
    }
}

/// `2026-11-22 09:00` (in `zone`), or `-`.
pub fn when(at: Option<DateTime<Utc>>, zone: Zone) -> String {
    at.map(|at| zone.format(at, "%Y-%m-%d %H:%M"))
        .unwrap_or_else(|| "-".into())
}

/// `2026-11-22` (in `zone`), or `-`.
pub fn day(at: Option<DateTime<Utc>>, zone: Zone) -> String {
    at.map(|at| zone.format(at, "%Y-%m-%d"))
        .unwrap_or_else(|| "-".into())
}

/// `in 3h 20m`, `2d ago`, `now`: the largest two units.
pub fn relative(at: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let seconds = (at - now).num_seconds();
    let magnitude = seconds.unsigned_abs();
    if magnitude < 60 {
        return "now".into();
    }
    let units = [(86_400 * 365, "y"), (86_400, "d"), (3_600, "h"), (60, "m")];
    let mut left = magnitude;
    let mut parts = Vec::new();
    for (size, name) in units {
        if left >= size && parts.len() < 2 {
            parts.push(format!("{}{name}", left / size));
            left %= size;
        } else if !parts.is_empty() {
            break;
        }
    }
    let text = parts.join(" ");
    if seconds > 0 {
        format!("in {text}")
    } else {
        format!("{text} ago")
    }
}

/// The next delivery, relative and absolute: `in 3h 20m · 2026-11-22 09:00`
/// (in `zone`).
pub fn next_delivery(at: Option<DateTime<Utc>>, now: DateTime<Utc>, zone: Zone) -> String {
    match at {
        Some(at) => format!("{} · {}", relative(at, now), when(Some(at), zone)),
        None => "none left".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::time::parse_datetime;

    #[test]
    fn relative_times_read_naturally() {
        let now = parse_datetime("2026-11-22T10:00:00Z").unwrap();
        let at = |text: &str| parse_datetime(text).unwrap();
        assert_eq!(relative(at("2026-11-22T13:20:00Z"), now), "in 3h 20m");
        assert_eq!(relative(at("2026-11-24T10:05:00Z"), now), "in 2d");
        assert_eq!(relative(at("2026-11-24T13:05:00Z"), now), "in 2d 3h");
        assert_eq!(relative(at("2026-11-22T09:15:00Z"), now), "45m ago");
        assert_eq!(relative(at("2026-11-22T10:00:30Z"), now), "now");
        assert_eq!(relative(at("2028-01-01T00:00:00Z"), now), "in 1y 39d");
        assert_eq!(next_delivery(None, now, Zone::Utc), "none left");
    }

    #[test]
    fn zones_read_as_people_write_them() {
        assert_eq!("local".parse::<Zone>(), Ok(Zone::Local));
        assert_eq!("utc".parse::<Zone>(), Ok(Zone::Utc));
        assert_eq!(
            "Europe/Paris".parse::<Zone>(),
            Ok(Zone::Named(chrono_tz::Europe::Paris))
        );
        assert!(
            "Mars/Olympus"
                .parse::<Zone>()
                .unwrap_err()
                .contains("not a time zone")
        );
    }
}
