//! How fast a look may ask: at most so many requests in any minute and in
//! any hour, counted on a sliding window as PostHog's throttles count them
//! (posthog.md 12: 480 a minute and 4,800 an hour per personal key). The
//! default stays under both, so a look never gets the key throttled.

use std::collections::VecDeque;
use std::fmt;
use std::str::FromStr;
use std::sync::Mutex;

use chrono::{DateTime, Duration, Utc};

use crate::clock::Clock;

/// Requests allowed per minute and per hour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub per_minute: u32,
    pub per_hour: u32,
}

impl Default for Budget {
    /// Under PostHog Cloud's limits, with room for the console or a script
    /// using the same key meanwhile.
    fn default() -> Self {
        Budget {
            per_minute: 400,
            per_hour: 4_000,
        }
    }
}

impl Budget {
    /// No pacing at all: for a server of one's own.
    pub const UNLIMITED: Budget = Budget {
        per_minute: u32::MAX,
        per_hour: u32::MAX,
    };
}

impl FromStr for Budget {
    type Err = String;

    /// `400/min`, `4000/hour`, both (`400/min,4000/hour`), or `none` (or
    /// `off`). A
    /// rate given alone keeps the other at its default, lowered to fit.
    fn from_str(text: &str) -> Result<Budget, String> {
        let usage = || {
            format!("\"{text}\" is not a budget such as 400/min, 4000/hour or 400/min,4000/hour (or none)")
        };
        if text.trim().eq_ignore_ascii_case("none") || text.trim().eq_ignore_ascii_case("off") {
            return Ok(Budget::UNLIMITED);
        }
        let mut minute = None;
        let mut hour = None;
        for part in text.split(',').map(str::trim).filter(|part| !part.is_empty()) {
            let (count, unit) = part.split_once('/').ok_or_else(usage)?;
            let count: u32 = count.trim().parse().map_err(|_| usage())?;
            if count == 0 {
                return Err(usage());
            }
            match unit.trim().to_ascii_lowercase().as_str() {
                "m" | "min" | "minute" => minute = Some(count),
                "h" | "hr" | "hour" => hour = Some(count),
                _ => return Err(usage()),
            }
        }
        let default = Budget::default();
        match (minute, hour) {
            (None, None) => Err(usage()),
            (Some(minute), None) => Ok(Budget {
                per_minute: minute,
                per_hour: default.per_hour.max(minute),
            }),
            (None, Some(hour)) => Ok(Budget {
                per_minute: default.per_minute.min(hour),
                per_hour: hour,
            }),
            (Some(minute), Some(hour)) => Ok(Budget {
                per_minute: minute,
                per_hour: hour,
            }),
        }
    }
}

impl fmt::Display for Budget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == Budget::UNLIMITED {
            f.write_str("none")
        } else {
            write!(f, "{}/min,{}/hour", self.per_minute, self.per_hour)
        }
    }
}

impl Budget {
    /// The least time `n` requests take under this budget, however fast
    /// the server: the floor the budget sets. The first `per_minute` go at
    /// once, then each minute (and each hour) lets as many more go.
    pub fn floor(&self, n: u64) -> Duration {
        if n == 0 || *self == Budget::UNLIMITED {
            return Duration::zero();
        }
        let last = n - 1;
        let minutes = last / u64::from(self.per_minute.max(1));
        let hours = last / u64::from(self.per_hour.max(1));
        let by_minute = Duration::minutes(i64::try_from(minutes).unwrap_or(i64::MAX / 120)) + MARGIN;
        let by_hour = Duration::hours(i64::try_from(hours).unwrap_or(i64::MAX / 7200)) + MARGIN;
        let floor = by_minute.max(by_hour);
        if minutes == 0 && hours == 0 {
            Duration::zero()
        } else {
            floor
        }
    }

    /// "400/min,4000/hour", or "no budget".
    pub fn words(&self) -> String {
        if *self == Budget::UNLIMITED {
            "no budget".into()
        } else if self.per_hour >= self.per_minute.saturating_mul(60) {
            format!("{}/min", crate::text::thousands(u64::from(self.per_minute)))
        } else {
            format!(
                "{}/min, {}/h",
                crate::text::thousands(u64::from(self.per_minute)),
                crate::text::thousands(u64::from(self.per_hour))
            )
        }
    }
}

/// A wait in round words: "~40 s", "~14 min", "~18 h", "~3 days".
pub fn about(duration: Duration) -> String {
    let seconds = duration.num_seconds().max(1);
    if seconds < 90 {
        format!("~{seconds} s")
    } else if seconds < 90 * 60 {
        format!("~{} min", (seconds + 30) / 60)
    } else if seconds < 48 * 3600 {
        format!("~{} h", (seconds + 1800) / 3600)
    } else {
        format!("~{} days", (seconds + 43_200) / 86_400)
    }
}

/// Room kept at the edge of each window.
const MARGIN: Duration = Duration::seconds(1);

/// Hands out the right to send one request, waiting on `clock` when the
/// budget is spent.
pub struct Pacer {
    budget: Budget,
    clock: Clock,
    /// When each request of the last hour started, oldest first.
    started: Mutex<VecDeque<DateTime<Utc>>>,
}

impl Pacer {
    pub fn new(budget: Budget, clock: Clock) -> Pacer {
        Pacer {
            budget,
            clock,
            started: Mutex::new(VecDeque::new()),
        }
    }

    /// Waits until one more request fits in the budget, and counts it.
    pub async fn acquire(&self) {
        loop {
            let now = self.clock.now();
            let wait_until = {
                let mut started = self
                    .started
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                match self.next_allowed(&mut started, now) {
                    None => {
                        if self.budget != Budget::UNLIMITED {
                            started.push_back(now);
                        }
                        return;
                    }
                    Some(at) => at,
                }
            };
            self.clock.sleep_until(wait_until).await;
        }
    }

    /// Counts a request that started now without waiting for the budget
    /// (the pages of a list, asked for ahead).
    pub fn record(&self) {
        if self.budget == Budget::UNLIMITED {
            return;
        }
        let now = self.clock.now();
        self.started
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push_back(now);
    }

    /// The requests started within the last minute and the last hour.
    pub fn recent(&self) -> (u64, u64) {
        let now = self.clock.now();
        let started = self
            .started
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let minute = started
            .iter()
            .filter(|&&at| at > now - Duration::minutes(1))
            .count();
        let hour = started
            .iter()
            .filter(|&&at| at > now - Duration::hours(1))
            .count();
        (minute as u64, hour as u64)
    }

    /// The least time `n` more requests take from now under the budget,
    /// counting those already made in its windows.
    pub fn floor(&self, n: u64) -> Duration {
        if n == 0 || self.budget == Budget::UNLIMITED {
            return Duration::zero();
        }
        let (minute, hour) = self.recent();
        let by_minute = Budget {
            per_minute: self.budget.per_minute,
            per_hour: u32::MAX,
        }
        .floor(n + minute);
        let by_hour = Budget {
            per_minute: u32::MAX,
            per_hour: self.budget.per_hour,
        }
        .floor(n + hour);
        by_minute.max(by_hour)
    }

    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// When the next request may start; `None`: now.
    fn next_allowed(
        &self,
        started: &mut VecDeque<DateTime<Utc>>,
        now: DateTime<Utc>,
    ) -> Option<DateTime<Utc>> {
        while started
            .front()
            .is_some_and(|&at| at <= now - Duration::hours(1) - MARGIN)
        {
            started.pop_front();
        }
        // A second's margin on each window, so that a server counting its
        // window a little differently never sees one request too many.
        let within = |window: Duration, limit: u32| -> Option<DateTime<Utc>> {
            let limit = usize::try_from(limit).unwrap_or(usize::MAX);
            let recent = started.iter().filter(|&&at| at > now - window - MARGIN).count();
            // The request that must leave the window before another fits.
            (recent >= limit).then(|| started[started.len() - limit] + window + MARGIN)
        };
        let minute = within(Duration::minutes(1), self.budget.per_minute);
        let hour = within(Duration::hours(1), self.budget.per_hour);
        minute.max(hour)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_read_as_people_write_them() {
        assert_eq!(
            "400/min".parse(),
            Ok(Budget {
                per_minute: 400,
                per_hour: 4_000
            })
        );
        assert_eq!(
            "60/min,600/hour".parse(),
            Ok(Budget {
                per_minute: 60,
                per_hour: 600
            })
        );
        assert_eq!(
            "100/hour".parse(),
            Ok(Budget {
                per_minute: 100,
                per_hour: 100
            })
        );
        assert_eq!("none".parse(), Ok(Budget::UNLIMITED));
        assert_eq!("off".parse(), Ok(Budget::UNLIMITED));
        for bad in ["", "400", "0/min", "5/day", "x/min"] {
            assert!(bad.parse::<Budget>().is_err(), "{bad}");
        }
    }

    #[test]
    fn the_floor_is_what_the_budget_lets_through() {
        let default = Budget::default();
        assert_eq!(default.floor(0), Duration::zero());
        assert_eq!(
            default.floor(400),
            Duration::zero(),
            "the first minute's go at once"
        );
        // 1,010 requests at 400 a minute: two more minutes.
        assert_eq!(default.floor(1_010), Duration::minutes(2) + MARGIN);
        // 90,000 at 4,000 an hour: 22 more hours.
        assert_eq!(default.floor(90_000), Duration::hours(22) + MARGIN);
        assert_eq!(Budget::UNLIMITED.floor(1_000_000), Duration::zero());
        assert_eq!(about(Duration::hours(22)), "~22 h");
        assert_eq!(about(Duration::seconds(130)), "~2 min");
        assert_eq!(about(Duration::seconds(12)), "~12 s");
        assert_eq!(default.words(), "400/min, 4,000/h");
        assert_eq!("480/min,28800/hour".parse::<Budget>().unwrap().words(), "480/min");
    }

    #[tokio::test]
    async fn no_minute_holds_more_than_the_budget() {
        let start = crate::api::time::parse_datetime("2026-11-25T12:00:00Z").unwrap();
        let clock = Clock::manual(start);
        let pacer = std::sync::Arc::new(Pacer::new("3/min,5/hour".parse().unwrap(), clock.clone()));
        for _ in 0..3 {
            pacer.acquire().await;
        }
        // The fourth waits for the first to leave the minute.
        let waiting = tokio::spawn({
            let pacer = pacer.clone();
            async move { pacer.acquire().await }
        });
        clock.advance(Duration::seconds(30));
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        clock.advance(Duration::seconds(31));
        waiting.await.unwrap();
        pacer.acquire().await;
        // Five in the hour: the sixth waits for the hour to turn.
        let sixth = tokio::spawn({
            let pacer = pacer.clone();
            async move { pacer.acquire().await }
        });
        clock.advance(Duration::minutes(30));
        tokio::task::yield_now().await;
        assert!(!sixth.is_finished());
        clock.set(start + Duration::hours(1) + Duration::seconds(2));
        sixth.await.unwrap();
    }
}
