//! What a frame is drawn from besides the state it shows: the colours, the
//! zone times are shown in and the moment relative times count from. The
//! shell makes one [`ViewCx`] a frame from its own state and passes it down
//! to every drawing function, as television draws each frame from a value
//! passed in: nothing drawn reads a global, so a frame depends on its
//! inputs alone (before issue 30 the zone was a process-wide static written
//! from `update`).

use std::borrow::Cow;

use chrono::{DateTime, Utc};

use super::theme::Theme;
use crate::display::{self, Zone};

/// The view context: the theme, the zone and the time of the frame.
#[derive(Clone, Copy)]
pub struct ViewCx<'a> {
    pub theme: &'a Theme,
    /// Where times are shown (`--tz`, a profile's `tz`; UTC unless told).
    pub zone: Zone,
    /// The time relative dates count from; the loop sets it before drawing.
    pub now: DateTime<Utc>,
}

impl ViewCx<'_> {
    /// `2026-11-22 09:00` in the zone, or `-`.
    pub fn when(&self, at: Option<DateTime<Utc>>) -> String {
        display::when(at, self.zone)
    }

    /// `2026-11-22` in the zone, or `-`.
    pub fn day(&self, at: Option<DateTime<Utc>>) -> String {
        display::day(at, self.zone)
    }

    /// `3h ago`, `in 2d`: `at` counted from the frame's time.
    pub fn relative(&self, at: DateTime<Utc>) -> String {
        display::relative(at, self.now)
    }

    /// The next delivery, relative and absolute: `in 3h 20m · 2026-11-22 09:00`.
    pub fn next_delivery(&self, at: Option<DateTime<Utc>>) -> String {
        display::next_delivery(at, self.now, self.zone)
    }

    /// `at` in the zone, as `format` says.
    pub fn in_zone(&self, at: DateTime<Utc>, format: &str) -> String {
        self.zone.format(at, format)
    }

    /// The zone's name for headers and footers: `UTC`, `CET`, `+05:30`.
    pub fn zone_label(&self) -> String {
        self.zone.label()
    }

    /// A header that says `(UTC)` says the zone instead.
    pub fn zoned_header<'h>(&self, header: &'h str) -> Cow<'h, str> {
        self.zone.header(header)
    }
}
