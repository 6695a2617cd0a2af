//! The one source of "now" for the server, the console and the CLI.
//!
//! Everything that depends on the time of day asks a [`Clock`] instead of the
//! system: the reference server for `created_at` and next deliveries, the
//! demo data for its dates, the console and the CLI for "in 3h" and overdue.
//! Tests hand in a manual clock that stands still until they move it, so that
//! no assertion and no snapshot depends on the day the suite runs.
//!
//! `ORGDECK_CLOCK_OFFSET` shifts the system clock by a signed amount
//! (`365d`, `-365d`, `12h`, `90m`, `30s`, or plain seconds). It exists to
//! prove that the test suite passes on any date: run it with the clock a year
//! ahead and a year behind.

use std::sync::{Arc, Mutex, OnceLock};

use chrono::{DateTime, Duration, Utc};

/// The environment variable that shifts the system clock (see the module doc).
pub const OFFSET_VARIABLE: &str = "ORGDECK_CLOCK_OFFSET";

/// A source of the current time: the system's (possibly shifted), or a
/// manual one that moves only when told.
#[derive(Clone)]
pub struct Clock {
    source: Source,
}

#[derive(Clone)]
enum Source {
    System,
    Manual(Arc<Manual>),
}

/// A manual clock's time, and who waits for it to move.
struct Manual {
    at: Mutex<DateTime<Utc>>,
    moved: tokio::sync::Notify,
}

impl Clock {
    /// The system clock, shifted by `ORGDECK_CLOCK_OFFSET` when it is set.
    pub fn system() -> Clock {
        Clock {
            source: Source::System,
        }
    }

    /// A clock that reads `at` until it is set or advanced.
    pub fn manual(at: DateTime<Utc>) -> Clock {
        Clock {
            source: Source::Manual(Arc::new(Manual {
                at: Mutex::new(at),
                moved: tokio::sync::Notify::new(),
            })),
        }
    }

    pub fn now(&self) -> DateTime<Utc> {
        match &self.source {
            Source::System => system_now(),
            Source::Manual(manual) => *lock(&manual.at),
        }
    }

    /// Waits until the clock reads `at` or later: a timer on the system
    /// clock; on a manual one, until a test moves it there.
    pub async fn sleep_until(&self, at: DateTime<Utc>) {
        match &self.source {
            Source::System => {
                let wait = (at - system_now()).to_std().unwrap_or_default();
                tokio::time::sleep(wait).await;
            }
            Source::Manual(manual) => loop {
                let moved = manual.moved.notified();
                tokio::pin!(moved);
                // Registered before the time is read, so no move is missed.
                moved.as_mut().enable();
                if *lock(&manual.at) >= at {
                    return;
                }
                moved.await;
            },
        }
    }

    /// Whether this clock follows the system's.
    pub fn is_system(&self) -> bool {
        matches!(self.source, Source::System)
    }

    /// Moves a manual clock forward (or back, with a negative duration). The
    /// system clock cannot be moved: this does nothing to it.
    pub fn advance(&self, by: Duration) {
        if let Source::Manual(manual) = &self.source {
            *lock(&manual.at) += by;
            manual.moved.notify_waiters();
        }
    }

    /// Sets a manual clock; does nothing to the system clock.
    pub fn set(&self, to: DateTime<Utc>) {
        if let Source::Manual(manual) = &self.source {
            *lock(&manual.at) = to;
            manual.moved.notify_waiters();
        }
    }
}

impl Default for Clock {
    fn default() -> Clock {
        Clock::system()
    }
}

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.source {
            Source::System => write!(f, "Clock::system({})", offset()),
            Source::Manual(manual) => write!(f, "Clock::manual({})", *lock(&manual.at)),
        }
    }
}

/// Now, on the system clock shifted by `ORGDECK_CLOCK_OFFSET`.
pub fn system_now() -> DateTime<Utc> {
    Utc::now() + offset()
}

/// The shift of the system clock, read once from the environment. A value
/// that does not parse is reported in the log and ignored.
pub fn offset() -> Duration {
    static OFFSET: OnceLock<Duration> = OnceLock::new();
    *OFFSET.get_or_init(|| match std::env::var(OFFSET_VARIABLE) {
        Ok(text) => parse_offset(&text).unwrap_or_else(|| {
            tracing::warn!(value = %text, "{OFFSET_VARIABLE} is not an offset such as 365d or -12h; ignored");
            Duration::zero()
        }),
        Err(_) => Duration::zero(),
    })
}

/// `365d`, `-365d`, `+12h`, `90m`, `30s` or plain seconds.
pub fn parse_offset(text: &str) -> Option<Duration> {
    let text = text.trim();
    let (number, unit) = match text.char_indices().last()? {
        (at, unit) if unit.is_ascii_alphabetic() => (&text[..at], unit),
        _ => (text, 's'),
    };
    let amount: i64 = number.trim_start_matches('+').parse().ok()?;
    // Bounded so that adding it to any real date stays in chrono's range.
    const LIMIT_DAYS: i64 = 100 * 366;
    let duration = match unit {
        'd' => Duration::try_days(amount)?,
        'h' => Duration::try_hours(amount)?,
        'm' => Duration::try_minutes(amount)?,
        's' => Duration::try_seconds(amount)?,
        _ => return None,
    };
    (duration.num_days().abs() <= LIMIT_DAYS).then_some(duration)
}

/// A poisoned lock still holds a valid instant: a panic elsewhere cannot
/// leave a `DateTime` half-written.
fn lock(at: &Mutex<DateTime<Utc>>) -> std::sync::MutexGuard<'_, DateTime<Utc>> {
    at.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_parse_with_their_units_and_sign() {
        assert_eq!(parse_offset("365d"), Some(Duration::days(365)));
        assert_eq!(parse_offset("-365d"), Some(Duration::days(-365)));
        assert_eq!(parse_offset("+12h"), Some(Duration::hours(12)));
        assert_eq!(parse_offset("90m"), Some(Duration::minutes(90)));
        assert_eq!(parse_offset("-30"), Some(Duration::seconds(-30)));
        assert_eq!(parse_offset("3w"), None);
        assert_eq!(parse_offset("d"), None);
        assert_eq!(parse_offset(""), None);
        assert_eq!(parse_offset("99999999999d"), None);
    }

    #[test]
    fn a_manual_clock_moves_only_when_told_and_clones_share_it() {
        let start = DateTime::parse_from_rfc3339("2026-11-22T09:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let clock = Clock::manual(start);
        let shared = clock.clone();
        assert_eq!(clock.now(), start);
        shared.advance(Duration::minutes(5));
        assert_eq!(clock.now(), start + Duration::minutes(5));
        clock.set(start);
        assert_eq!(shared.now(), start);
        assert!(!clock.is_system());
    }
}
