//! The console's zone (`--tz local|UTC|ZONE`, a profile's `tz`; local
//! unless told) over [`crate::display`], which does the formatting with the
//! zone passed in. The zone is still held here process-wide, set as the
//! console starts and when a profile names one; tests that drive the app
//! never set it and read UTC. Issue 30 moves it into the value each frame is
//! drawn from, when the screens take a view context; until then this is the
//! one place that reads it.

use std::sync::RwLock;

use chrono::{DateTime, Utc};

use crate::display;
pub use crate::display::Zone;

static ZONE: RwLock<Zone> = RwLock::new(Zone::Utc);

/// The console's zone from now on.
pub fn set_zone(zone: Zone) {
    if let Ok(mut shown) = ZONE.write() {
        *shown = zone;
    }
}

fn zone() -> Zone {
    ZONE.read().map(|zone| *zone).unwrap_or(Zone::Utc)
}

/// `at` in the console's zone, as `format` says.
pub fn in_zone(at: DateTime<Utc>, format: &str) -> String {
    zone().format(at, format)
}

/// The console's zone's name for headers and footers: `UTC`, `CET`, `+05:30`.
pub fn zone_label() -> String {
    zone().label()
}

/// A header that says `(UTC)` says the console's zone instead.
pub fn zoned_header(header: &str) -> std::borrow::Cow<'_, str> {
    zone().header(header)
}

/// `2026-11-22 09:00` (in the console's zone), or `-`.
pub fn when(at: Option<DateTime<Utc>>) -> String {
    display::when(at, zone())
}

/// `2026-11-22`, or `-`.
pub fn day(at: Option<DateTime<Utc>>) -> String {
    display::day(at, zone())
}

pub use crate::display::relative;

/// The next delivery, relative and absolute: `in 3h 20m · 2026-11-22 09:00`.
pub fn next_delivery(at: Option<DateTime<Utc>>, now: DateTime<Utc>) -> String {
    display::next_delivery(at, now, zone())
}

/// Organization levels and access levels in words.
pub use crate::api::models::{access_level, level};
