//! Per-key rate limits, as PostHog applies them to personal API keys: a burst
//! limit per minute and a sustained limit per hour, each a token bucket.
//! Off unless `serve --rate-limit` asks for it. The buckets refill on the
//! server's clock, so a test on a manual clock moves them with it.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::Mutex;

use chrono::{DateTime, Utc};

use crate::clock::Clock;

/// Requests allowed per minute (burst) and per hour (sustained).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    pub per_minute: u32,
    pub per_hour: u32,
}

impl RateLimit {
    /// PostHog's limits for personal API keys (compat.md).
    pub const POSTHOG: RateLimit = RateLimit {
        per_minute: 480,
        per_hour: 4800,
    };
}

impl FromStr for RateLimit {
    type Err = String;

    /// `PER_MINUTE/PER_HOUR`, e.g. `480/4800`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let usage = || format!("\"{text}\" is not PER_MINUTE/PER_HOUR, e.g. 480/4800");
        let (minute, hour) = text.split_once('/').ok_or_else(usage)?;
        let per_minute: u32 = minute.trim().parse().map_err(|_| usage())?;
        let per_hour: u32 = hour.trim().parse().map_err(|_| usage())?;
        if per_minute == 0 || per_hour == 0 {
            return Err(usage());
        }
        Ok(RateLimit { per_minute, per_hour })
    }
}

impl fmt::Display for RateLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.per_minute, self.per_hour)
    }
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    capacity: f64,
    /// Tokens regained per second.
    rate: f64,
}

impl Bucket {
    fn full(capacity: u32, period_seconds: f64) -> Self {
        let capacity = f64::from(capacity);
        Bucket {
            tokens: capacity,
            capacity,
            rate: capacity / period_seconds,
        }
    }

    fn refill(&mut self, seconds: f64) {
        self.tokens = (self.tokens + seconds * self.rate).min(self.capacity);
    }

    /// Seconds until one token is available.
    fn wait(&self) -> f64 {
        if self.tokens >= 1.0 {
            0.0
        } else {
            (1.0 - self.tokens) / self.rate
        }
    }
}

/// The buckets of every key seen.
pub struct Throttle {
    limit: RateLimit,
    clock: Clock,
    keys: Mutex<HashMap<String, Buckets>>,
}

/// A key's buckets, per minute and per hour, as of when they were last
/// refilled.
type Buckets = (DateTime<Utc>, Bucket, Bucket);

impl Throttle {
    pub fn new(limit: RateLimit, clock: Clock) -> Self {
        Throttle {
            limit,
            clock,
            keys: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one request from the key's allowance, or says how many whole
    /// seconds to wait.
    pub fn check(&self, key_id: &str) -> Result<(), u64> {
        let now = self.clock.now();
        let mut keys = self
            .keys
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (updated, minute, hour) = keys.entry(key_id.to_string()).or_insert_with(|| {
            (
                now,
                Bucket::full(self.limit.per_minute, 60.0),
                Bucket::full(self.limit.per_hour, 3600.0),
            )
        });
        // A clock set back refills nothing.
        let elapsed = (now - *updated).num_milliseconds().max(0) as f64 / 1000.0;
        *updated = now;
        minute.refill(elapsed);
        hour.refill(elapsed);
        let wait = minute.wait().max(hour.wait());
        if wait > 0.0 {
            return Err(wait.ceil() as u64);
        }
        minute.tokens -= 1.0;
        hour.tokens -= 1.0;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_burst_runs_out_and_names_the_wait() {
        let clock = Clock::manual(crate::api::time::parse_datetime("2026-11-25T12:00:00Z").unwrap());
        let throttle = Throttle::new("3/100".parse().unwrap(), clock.clone());
        for _ in 0..3 {
            assert_eq!(throttle.check("a"), Ok(()));
        }
        // One token a 20 s at 3 a minute.
        assert_eq!(throttle.check("a"), Err(20));
        assert_eq!(throttle.check("b"), Ok(()), "keys are limited separately");
        clock.advance(chrono::Duration::seconds(20));
        assert_eq!(throttle.check("a"), Ok(()), "a token came back in 20 s");
        assert_eq!(throttle.check("a"), Err(20));
        assert!("480".parse::<RateLimit>().is_err());
        assert!("0/5".parse::<RateLimit>().is_err());
        assert_eq!("480/4800".parse::<RateLimit>(), Ok(RateLimit::POSTHOG));
    }
}
