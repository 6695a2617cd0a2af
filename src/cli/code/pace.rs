//! Requests paced under PostHog Cloud's limits on a key (posthog.md 12):
//! two token buckets that every request of `apply` waits on.

/// PostHog Cloud's limits on a key, 480 requests a minute and 4,800 an
/// hour, kept with room to spare: two token buckets, each request waiting
/// for a token of both.
pub struct Pace {
    buckets: tokio::sync::Mutex<[Bucket; 2]>,
}

struct Bucket {
    /// May go below zero: requests queued for later tokens.
    tokens: f64,
    capacity: f64,
    per_second: f64,
    at: tokio::time::Instant,
}

impl Bucket {
    fn new(capacity: f64, per_second: f64) -> Bucket {
        Bucket {
            tokens: capacity,
            capacity,
            per_second,
            at: tokio::time::Instant::now(),
        }
    }

    /// Takes a token; returns how long until it is there.
    fn take(&mut self, now: tokio::time::Instant) -> std::time::Duration {
        let elapsed = now.saturating_duration_since(self.at).as_secs_f64();
        self.tokens = (self.tokens + elapsed * self.per_second).min(self.capacity);
        self.at = now;
        self.tokens -= 1.0;
        if self.tokens >= 0.0 {
            std::time::Duration::ZERO
        } else {
            std::time::Duration::from_secs_f64(-self.tokens / self.per_second)
        }
    }
}

impl Pace {
    /// 40 at once, then 7 a second (at most 460 in any minute); 4,000 at
    /// once over the hour, then 4,800 an hour.
    pub fn cloud() -> Pace {
        Pace {
            buckets: tokio::sync::Mutex::new([
                Bucket::new(40.0, 7.0),
                Bucket::new(4_000.0, 4_800.0 / 3_600.0),
            ]),
        }
    }

    /// Waits for this request's turn.
    pub async fn turn(&self) {
        let wait = {
            let mut buckets = self.buckets.lock().await;
            wait_at(&mut buckets, tokio::time::Instant::now())
        };
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
    }
}

/// How long a request arriving `now` waits for a token of each bucket.
fn wait_at(buckets: &mut [Bucket; 2], now: tokio::time::Instant) -> std::time::Duration {
    let [minute, hour] = buckets;
    minute.take(now).max(hour.take(now))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 600 requests at once: a burst of 40, then 7 a second, never more
    /// than 480 in any minute (times computed, not slept).
    #[test]
    fn requests_keep_under_the_cloud_limit() {
        let Pace { buckets } = Pace::cloud();
        let mut buckets = buckets.into_inner();
        let start = tokio::time::Instant::now();
        let times: Vec<f64> = (0..600)
            .map(|_| wait_at(&mut buckets, start).as_secs_f64())
            .collect();
        assert_eq!(times.iter().filter(|at| **at == 0.0).count(), 40);
        for (index, at) in times.iter().enumerate() {
            let in_minute = times[index..]
                .iter()
                .take_while(|later| **later < at + 60.0)
                .count();
            assert!(in_minute <= 480, "{in_minute} requests in the minute from {at}");
        }
        assert!((times[599] - 560.0 / 7.0).abs() < 0.01, "{}", times[599]);
    }
}
