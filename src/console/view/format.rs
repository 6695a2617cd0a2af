//! Dates and other values as people read them.

use chrono::{DateTime, Utc};

/// `2026-11-22 09:00` (UTC), or `-`.
pub fn when(at: Option<DateTime<Utc>>) -> String {
    at.map(|at| at.format("%Y-%m-%d %H:%M").to_string())
        .unwrap_or_else(|| "-".into())
}

/// `2026-11-22`, or `-`.
pub fn day(at: Option<DateTime<Utc>>) -> String {
    at.map(|at| at.format("%Y-%m-%d").to_string())
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

/// The next delivery, relative and absolute: `in 3h 20m · 2026-11-22 09:00`.
pub fn next_delivery(at: Option<DateTime<Utc>>, now: DateTime<Utc>) -> String {
    match at {
        Some(at) => format!("{} · {}", relative(at, now), when(Some(at))),
        None => "none left".into(),
    }
}

/// Organization levels and access levels in words.
pub use crate::api::models::{access_level, level};

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
        assert_eq!(next_delivery(None, now), "none left");
    }
}
