//! Subscription schedules: the `summary` text and the deliveries of an
//! RFC 5545 recurrence, exactly as PostHog computes them: today's rules
//! (posthog.md 8.5) or the older ones compat.md describes.
//!
//! Shared by the reference server (which stores `summary` and
//! `next_delivery_date`) and the console (which previews deliveries while a
//! form is edited and lists the next ones of a subscription).

use chrono::{DateTime, Datelike, Duration, Months, Timelike, Utc};
use rrule::{NWeekday, RRule, Tz};

use crate::api::{Frequency, Subscription, Weekday};

/// The next delivery is the first occurrence strictly after now plus this
/// lead time (PostHog schedules deliveries a little ahead).
pub const DELIVERY_LEAD: Duration = Duration::minutes(15);

/// Whose rules a schedule follows. They differ at the edges: today's
/// PostHog names the days in a summary ("sent every week on Monday"),
/// applies a position (`bysetpos`) to monthly schedules only, and gives a
/// daily schedule every 7n days whose start is not on one of its weekdays
/// no delivery at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Rules {
    #[default]
    Today,
    /// compat.md's: a position applies with weekdays at any frequency, and
    /// only a position names a day in the summary.
    Older,
}

/// The recurrence fields of a subscription.
#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    pub frequency: Frequency,
    pub interval: i64,
    pub byweekday: Vec<Weekday>,
    pub bysetpos: Option<i64>,
    pub count: Option<i64>,
    pub start: DateTime<Utc>,
    pub until: Option<DateTime<Utc>>,
    pub rules: Rules,
}

impl Schedule {
    /// The schedule of a subscription, when it has a frequency and a start.
    /// A subscription without `enabled` comes from an older PostHog, and
    /// follows its rules.
    pub fn of(subscription: &Subscription) -> Option<Schedule> {
        Some(Schedule {
            frequency: subscription.frequency.clone()?,
            interval: subscription.interval.unwrap_or(1),
            byweekday: subscription.byweekday.clone().unwrap_or_default(),
            bysetpos: subscription.bysetpos,
            count: subscription.count,
            start: subscription.start_date?,
            until: subscription.until_date,
            rules: if subscription.enabled.is_some() {
                Rules::Today
            } else {
                Rules::Older
            },
        })
    }

    /// The human summary ("sent every 2 weeks").
    pub fn summary(&self) -> String {
        summary(
            &self.frequency,
            self.interval,
            &self.byweekday,
            self.bysetpos,
            self.rules,
        )
    }

    /// The delivery PostHog would schedule next: the first occurrence
    /// strictly after `now` + [`DELIVERY_LEAD`]; `None` when none is left.
    pub fn next_delivery(&self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        // Today's special case (posthog.md 8.5): every 7n days from a
        // start that is not one of the weekdays never meets one of them.
        if self.rules == Rules::Today
            && self.frequency == Frequency::Daily
            && self.interval > 0
            && self.interval % 7 == 0
            && !self.byweekday.is_empty()
            && !self
                .byweekday
                .iter()
                .filter_map(Weekday::to_chrono)
                .any(|day| day == self.start.weekday())
        {
            return None;
        }
        self.occurrences_after(now + DELIVERY_LEAD, 1).into_iter().next()
    }

    /// Up to `limit` occurrences strictly after `after`, in order.
    pub fn occurrences_after(&self, after: DateTime<Utc>, limit: usize) -> Vec<DateTime<Utc>> {
        let schedule = self.at_whole_seconds();
        let Some(rule) = schedule.rrule() else {
            return Vec::new();
        };
        let start = schedule.fast_forward(after);
        let Ok(set) = rule.build(start.with_timezone(&Tz::UTC)) else {
            return Vec::new();
        };
        // `limit()` bounds the iterator's search so that a rule that can never
        // match (say, the 300th Monday of a week) ends instead of spinning.
        set.limit()
            .into_iter()
            .map(|at| at.with_timezone(&Utc))
            .skip_while(|at| *at <= after)
            .take(limit)
            .collect()
    }

    /// The schedule with its start truncated to the second, as PostHog's
    /// recurrences (dateutil) do: a start of 09:00:00.5 recurs at 09:00:00,
    /// and its first delivery is 09:00:00, never skipped.
    fn at_whole_seconds(&self) -> Schedule {
        Schedule {
            start: self.start.with_nanosecond(0).unwrap_or(self.start),
            ..self.clone()
        }
    }

    /// A start moved forward by whole periods to shortly before `after`,
    /// with the same occurrences from there on, so that a daily schedule
    /// begun years ago is not walked day by day on every request. Only
    /// without `count` (which counts from the true start), and only where
    /// whole periods keep the rule's meaning (not on the 29th to 31st of a
    /// month unless weekdays are set, since months differ in length).
    fn fast_forward(&self, after: DateTime<Utc>) -> DateTime<Utc> {
        if self.count.is_some()
            || after <= self.start
            || self.interval < 1
            || self.interval > i64::from(u16::MAX)
        {
            return self.start;
        }
        let periods_between = |unit_months: i64| {
            let months = (after.year() as i64 - self.start.year() as i64) * 12 + after.month() as i64
                - self.start.month() as i64;
            months / (unit_months * self.interval)
        };
        // One period of margin before `after`.
        let shifted = match self.frequency {
            Frequency::Daily | Frequency::Weekly => {
                let days = if self.frequency == Frequency::Daily { 1 } else { 7 };
                let period = Duration::days(days * self.interval);
                let whole = (after - self.start).num_seconds() / period.num_seconds() - 1;
                (whole > 0).then(|| self.start + period * i32::try_from(whole).unwrap_or(0))
            }
            Frequency::Monthly | Frequency::Yearly => {
                let unit_months = if self.frequency == Frequency::Monthly {
                    1
                } else {
                    12
                };
                let safe_day = self.start.day() <= 28 || !self.byweekday.is_empty();
                let whole = periods_between(unit_months) - 1;
                (safe_day && whole > 0)
                    .then(|| u32::try_from(whole * unit_months * self.interval).ok())
                    .flatten()
                    .and_then(|months| self.start.checked_add_months(Months::new(months)))
            }
            Frequency::Other(_) => None,
        };
        shifted.filter(|at| *at < after).unwrap_or(self.start)
    }

    /// The rule as the recurrence crate wants it; `None` for an unknown
    /// frequency or values outside what a recurrence can express.
    fn rrule(&self) -> Option<RRule<rrule::Unvalidated>> {
        let frequency = match self.frequency {
            Frequency::Daily => rrule::Frequency::Daily,
            Frequency::Weekly => rrule::Frequency::Weekly,
            Frequency::Monthly => rrule::Frequency::Monthly,
            Frequency::Yearly => rrule::Frequency::Yearly,
            Frequency::Other(_) => return None,
        };
        if self.interval < 1 {
            return None;
        }
        let mut rule = RRule::new(frequency);
        let mut until = self.until;
        match u16::try_from(self.interval) {
            Ok(interval) => rule = rule.interval(interval),
            Err(_) => {
                // The recurrence crate counts intervals in 16 bits. With an
                // interval beyond that, the second period starts 65,536 units
                // (179 years at least) after the first, so the first period
                // is the whole schedule: recur every period, until its end.
                let end = self.first_period_end()?;
                until = Some(until.map_or(end, |at| at.min(end)));
            }
        }
        if let Some(count) = self.count {
            rule = rule.count(u32::try_from(count).ok().filter(|&count| count > 0)?);
        }
        if let Some(until) = until {
            if until < self.start {
                return None;
            }
            rule = rule.until(until.with_timezone(&Tz::UTC));
        }
        let days: Vec<NWeekday> = self
            .byweekday
            .iter()
            .filter_map(Weekday::to_chrono)
            .map(NWeekday::Every)
            .collect();
        if !days.is_empty() {
            // As PostHog does: the position only applies together with
            // days, and today only to monthly schedules.
            let positioned = self.rules == Rules::Older || self.frequency == Frequency::Monthly;
            if let Some(position) = self.bysetpos.filter(|&position| position != 0 && positioned) {
                // A period holds each weekday at most once a day or week, five
                // times a month, 53 times a year. A position beyond that can
                // never match; say so now rather than search for it.
                let per_period = match self.frequency {
                    Frequency::Daily => 1,
                    Frequency::Weekly => days.len(),
                    Frequency::Monthly => 5 * days.len(),
                    _ => 53 * days.len(),
                };
                if position.unsigned_abs() > per_period as u64 {
                    return None;
                }
                rule = rule.by_set_pos(vec![i32::try_from(position).ok()?]);
            }
            rule = rule.by_weekday(days);
        }
        Some(rule)
    }

    /// The last instant of the period (day, Monday-to-Sunday week, month or
    /// year) that holds the start.
    fn first_period_end(&self) -> Option<DateTime<Utc>> {
        let day = self.start.date_naive();
        let next_period = match self.frequency {
            Frequency::Daily => day.succ_opt()?,
            Frequency::Weekly => day.checked_add_signed(Duration::days(
                7 - i64::from(day.weekday().num_days_from_monday()),
            ))?,
            Frequency::Monthly => day.with_day(1)?.checked_add_months(Months::new(1))?,
            Frequency::Yearly => day
                .with_day(1)?
                .with_month(1)?
                .checked_add_months(Months::new(12))?,
            Frequency::Other(_) => return None,
        };
        Some(next_period.and_hms_opt(0, 0, 0)?.and_utc() - Duration::seconds(1))
    }
}

/// The summary text: "sent every " + ("N " when the interval is above 1) +
/// the unit (plural above 1); then " on the {position} {day}" when weekdays
/// and a position are set (today: monthly schedules only), or, today, the
/// days: " on weekdays" for Monday to Friday, else " on Monday, Wednesday
/// and Friday" (not for a daily schedule on all seven). A frequency or a
/// position it cannot name gives "sent on a schedule".
pub fn summary(
    frequency: &Frequency,
    interval: i64,
    byweekday: &[Weekday],
    bysetpos: Option<i64>,
    rules: Rules,
) -> String {
    const FALLBACK: &str = "sent on a schedule";
    let Some(unit) = frequency.unit() else {
        return FALLBACK.to_string();
    };
    let mut text = if interval > 1 {
        format!("sent every {interval} {unit}s")
    } else {
        format!("sent every {unit}")
    };
    let position = bysetpos
        .filter(|&position| position != 0)
        .filter(|_| rules == Rules::Older || *frequency == Frequency::Monthly);
    if let (false, Some(position)) = (byweekday.is_empty(), position) {
        let Some(position) = position_name(position) else {
            return FALLBACK.to_string();
        };
        let day = match byweekday {
            [one] => one.capitalised(),
            days if is_monday_to_friday(days) => "weekday".to_string(),
            _ => "day".to_string(),
        };
        text.push_str(&format!(" on the {position} {day}"));
    } else if rules == Rules::Today
        && !byweekday.is_empty()
        && !(*frequency == Frequency::Daily && Weekday::ALL.iter().all(|day| byweekday.contains(day)))
    {
        if is_monday_to_friday(byweekday) {
            text.push_str(" on weekdays");
        } else {
            let names: Vec<String> = byweekday.iter().map(Weekday::capitalised).collect();
            let listed = match names.split_last() {
                Some((last, [])) => last.clone(),
                Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
                None => String::new(),
            };
            text.push_str(&format!(" on {listed}"));
        }
    }
    text
}

/// The word for a position within the set, for the positions PostHog names.
pub fn position_name(position: i64) -> Option<&'static str> {
    match position {
        1 => Some("first"),
        2 => Some("second"),
        3 => Some("third"),
        4 => Some("fourth"),
        -1 => Some("last"),
        _ => None,
    }
}

fn is_monday_to_friday(days: &[Weekday]) -> bool {
    const WORKDAYS: [Weekday; 5] = [
        Weekday::Monday,
        Weekday::Tuesday,
        Weekday::Wednesday,
        Weekday::Thursday,
        Weekday::Friday,
    ];
    days.len() == WORKDAYS.len() && WORKDAYS.iter().all(|day| days.contains(day))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::time::parse_datetime;

    fn at(text: &str) -> DateTime<Utc> {
        parse_datetime(text).unwrap()
    }

    fn schedule(frequency: Frequency, start: &str) -> Schedule {
        Schedule {
            frequency,
            interval: 1,
            byweekday: Vec::new(),
            bysetpos: None,
            count: None,
            start: at(start),
            until: None,
            rules: Rules::Older,
        }
    }

    fn dates(list: &[DateTime<Utc>]) -> Vec<String> {
        list.iter()
            .map(|at| at.format("%Y-%m-%d %H:%M").to_string())
            .collect()
    }

    #[test]
    fn summaries_match_the_examples_of_compat() {
        use Weekday::*;
        let older = |frequency: &Frequency, interval, days: &[Weekday], position| {
            summary(frequency, interval, days, position, Rules::Older)
        };
        assert_eq!(older(&Frequency::Daily, 1, &[], None), "sent every day");
        assert_eq!(older(&Frequency::Weekly, 2, &[], None), "sent every 2 weeks");
        assert_eq!(
            older(&Frequency::Monthly, 1, &[Monday], Some(1)),
            "sent every month on the first Monday"
        );
        assert_eq!(
            older(
                &Frequency::Monthly,
                3,
                &[Monday, Tuesday, Wednesday, Thursday, Friday],
                Some(-1)
            ),
            "sent every 3 months on the last weekday"
        );
        assert_eq!(
            older(&Frequency::Yearly, 1, &[Saturday, Sunday], Some(2)),
            "sent every year on the second day"
        );
        // Weekdays without a position add nothing; a position without days neither.
        assert_eq!(older(&Frequency::Weekly, 1, &[Friday], None), "sent every week");
        assert_eq!(older(&Frequency::Weekly, 1, &[], Some(1)), "sent every week");
        // A position PostHog cannot name.
        assert_eq!(
            older(&Frequency::Monthly, 1, &[Friday], Some(5)),
            "sent on a schedule"
        );
        assert_eq!(
            older(&Frequency::Other("hourly".into()), 1, &[], None),
            "sent on a schedule"
        );
    }
    #[test]
    fn todays_summaries_name_the_days_and_position_only_monthly() {
        use Weekday::*;
        let today = |frequency: &Frequency, interval, days: &[Weekday], position| {
            summary(frequency, interval, days, position, Rules::Today)
        };
        assert_eq!(
            today(&Frequency::Weekly, 2, &[Monday], None),
            "sent every 2 weeks on Monday"
        );
        assert_eq!(
            today(&Frequency::Weekly, 1, &[Monday, Wednesday, Friday], None),
            "sent every week on Monday, Wednesday and Friday"
        );
        assert_eq!(
            today(
                &Frequency::Daily,
                1,
                &[Monday, Tuesday, Wednesday, Thursday, Friday],
                None
            ),
            "sent every day on weekdays"
        );
        assert_eq!(today(&Frequency::Daily, 1, Weekday::ALL, None), "sent every day");
        assert_eq!(
            today(&Frequency::Weekly, 1, &[Monday], Some(1)),
            "sent every week on Monday"
        );
        assert_eq!(
            today(&Frequency::Weekly, 1, &[Friday, Monday], Some(9)),
            "sent every week on Friday and Monday"
        );
        assert_eq!(
            today(&Frequency::Monthly, 1, &[Friday], Some(-1)),
            "sent every month on the last Friday"
        );
        assert_eq!(
            today(&Frequency::Monthly, 1, &[Friday], Some(5)),
            "sent on a schedule"
        );
    }

    #[test]
    fn today_a_position_applies_to_monthly_schedules_only() {
        let mut weekly = schedule(Frequency::Weekly, "2026-11-02T09:00:00Z");
        weekly.byweekday = vec![Weekday::Monday, Weekday::Friday];
        weekly.bysetpos = Some(-1);
        let after = at("2026-11-02T10:00:00Z");
        // Older rules: the last of Monday and Friday each week.
        assert_eq!(
            dates(&weekly.occurrences_after(after, 2)),
            ["2026-11-06 09:00", "2026-11-13 09:00"]
        );
        weekly.rules = Rules::Today;
        assert_eq!(
            dates(&weekly.occurrences_after(after, 2)),
            ["2026-11-06 09:00", "2026-11-09 09:00"]
        );
    }

    #[test]
    fn today_every_seven_days_from_a_start_off_the_weekdays_never_delivers() {
        let mut daily = schedule(Frequency::Daily, "2026-11-03T09:00:00Z"); // a Tuesday
        daily.interval = 7;
        daily.byweekday = vec![Weekday::Monday];
        daily.rules = Rules::Today;
        assert_eq!(daily.next_delivery(at("2026-11-03T00:00:00Z")), None);
        daily.byweekday = vec![Weekday::Tuesday];
        assert_eq!(
            daily.next_delivery(at("2026-11-03T10:00:00Z")),
            Some(at("2026-11-10T09:00:00Z"))
        );
    }

    #[test]
    fn daily_next_delivery_is_strictly_after_now_plus_lead() {
        let daily = schedule(Frequency::Daily, "2026-01-01T09:00:00Z");
        // 08:50 + 15 min = 09:05: today's 09:00 is too close.
        assert_eq!(
            daily.next_delivery(at("2026-03-10T08:50:00Z")),
            Some(at("2026-03-11T09:00:00Z"))
        );
        assert_eq!(
            daily.next_delivery(at("2026-03-10T08:40:00Z")),
            Some(at("2026-03-10T09:00:00Z"))
        );
        // Exactly at the lead time is not strictly after.
        assert_eq!(
            daily.next_delivery(at("2026-03-10T08:45:00Z")),
            Some(at("2026-03-11T09:00:00Z"))
        );
    }

    #[test]
    fn count_used_up_and_until_in_the_past_leave_nothing() {
        let mut counted = schedule(Frequency::Daily, "2026-01-01T09:00:00Z");
        counted.count = Some(3);
        assert_eq!(
            dates(&counted.occurrences_after(at("2025-12-31T00:00:00Z"), 10)),
            ["2026-01-01 09:00", "2026-01-02 09:00", "2026-01-03 09:00"]
        );
        assert_eq!(counted.next_delivery(at("2026-01-03T09:00:00Z")), None);

        let mut ended = schedule(Frequency::Weekly, "2026-01-01T09:00:00Z");
        ended.until = Some(at("2026-02-01T00:00:00Z"));
        assert_eq!(ended.next_delivery(at("2026-06-01T00:00:00Z")), None);
        // An until before the start is a schedule with no deliveries at all.
        ended.until = Some(at("2025-01-01T00:00:00Z"));
        assert!(ended.occurrences_after(at("2020-01-01T00:00:00Z"), 5).is_empty());
    }

    #[test]
    fn last_friday_of_the_month() {
        let mut last_friday = schedule(Frequency::Monthly, "2026-01-01T10:00:00Z");
        last_friday.byweekday = vec![Weekday::Friday];
        last_friday.bysetpos = Some(-1);
        assert_eq!(last_friday.summary(), "sent every month on the last Friday");
        assert_eq!(
            dates(&last_friday.occurrences_after(at("2026-01-01T00:00:00Z"), 4)),
            [
                "2026-01-30 10:00",
                "2026-02-27 10:00",
                "2026-03-27 10:00",
                "2026-04-24 10:00"
            ]
        );
    }

    #[test]
    fn first_weekday_of_the_month_with_bysetpos() {
        let mut first_workday = schedule(Frequency::Monthly, "2026-08-01T08:00:00Z");
        first_workday.byweekday = vec![
            Weekday::Monday,
            Weekday::Tuesday,
            Weekday::Wednesday,
            Weekday::Thursday,
            Weekday::Friday,
        ];
        first_workday.bysetpos = Some(1);
        // 2026-08-01 is a Saturday; the first workday is Monday the 3rd.
        assert_eq!(
            dates(&first_workday.occurrences_after(at("2026-07-01T00:00:00Z"), 2)),
            ["2026-08-03 08:00", "2026-09-01 08:00"]
        );
    }

    #[test]
    fn the_29th_of_february_recurs_only_in_leap_years() {
        let leap = schedule(Frequency::Yearly, "2024-02-29T12:00:00Z");
        assert_eq!(
            dates(&leap.occurrences_after(at("2024-03-01T00:00:00Z"), 2)),
            ["2028-02-29 12:00", "2032-02-29 12:00"]
        );
    }

    #[test]
    fn intervals_above_one_skip_periods() {
        let mut fortnightly = schedule(Frequency::Weekly, "2026-01-05T09:00:00Z");
        fortnightly.interval = 2;
        assert_eq!(
            dates(&fortnightly.occurrences_after(at("2026-01-01T00:00:00Z"), 3)),
            ["2026-01-05 09:00", "2026-01-19 09:00", "2026-02-02 09:00"]
        );
        let mut quarterly = schedule(Frequency::Monthly, "2026-01-15T09:00:00Z");
        quarterly.interval = 3;
        assert_eq!(
            dates(&quarterly.occurrences_after(at("2026-01-16T00:00:00Z"), 2)),
            ["2026-04-15 09:00", "2026-07-15 09:00"]
        );
    }

    #[test]
    fn an_interval_beyond_sixteen_bits_keeps_only_the_first_period() {
        let mut rare = schedule(Frequency::Daily, "2026-01-05T09:00:00Z");
        rare.interval = 100_000;
        assert_eq!(
            dates(&rare.occurrences_after(at("2026-01-01T00:00:00Z"), 3)),
            ["2026-01-05 09:00"]
        );
        assert_eq!(rare.next_delivery(at("2026-02-01T00:00:00Z")), None);
    }

    #[test]
    fn a_huge_weekly_interval_keeps_the_week_of_the_start() {
        // 2026-01-01 is a Thursday; its week ends on Sunday the 4th.
        let mut rare = schedule(Frequency::Weekly, "2026-01-01T09:00:00Z");
        rare.interval = 2_147_483_647;
        rare.byweekday = vec![Weekday::Monday, Weekday::Friday];
        assert_eq!(
            dates(&rare.occurrences_after(at("2025-12-01T00:00:00Z"), 5)),
            ["2026-01-02 09:00"]
        );
        assert_eq!(rare.next_delivery(at("2026-01-03T00:00:00Z")), None);
    }

    #[test]
    fn fast_forward_gives_the_same_deliveries_as_walking_from_the_start() {
        let now = at("2026-11-22T10:07:00Z");
        type Shape = (Frequency, i64, Vec<Weekday>, Option<i64>, &'static str);
        let shapes: Vec<Shape> = vec![
            (Frequency::Daily, 1, vec![], None, "1990-03-04T06:30:00Z"),
            (
                Frequency::Daily,
                3,
                vec![Weekday::Monday],
                None,
                "2001-01-01T00:00:00Z",
            ),
            (
                Frequency::Weekly,
                2,
                vec![Weekday::Tuesday, Weekday::Saturday],
                None,
                "2010-06-15T23:59:00Z",
            ),
            (Frequency::Monthly, 1, vec![], None, "1999-12-28T12:00:00Z"),
            (
                Frequency::Monthly,
                5,
                vec![Weekday::Friday],
                Some(-1),
                "2003-01-31T08:00:00Z",
            ),
            (Frequency::Monthly, 1, vec![], None, "2020-01-31T08:00:00Z"),
            (Frequency::Yearly, 1, vec![], None, "2000-02-29T08:00:00Z"),
            (
                Frequency::Yearly,
                2,
                vec![Weekday::Sunday],
                Some(1),
                "1980-07-01T08:00:00Z",
            ),
        ];
        for (frequency, interval, byweekday, bysetpos, start) in shapes {
            let mut schedule = schedule(frequency, start);
            schedule.interval = interval;
            schedule.byweekday = byweekday;
            schedule.bysetpos = bysetpos;
            let fast = schedule.occurrences_after(now, 6);
            // A count far beyond the deliveries so far forbids the fast-forward.
            let mut walked = schedule.clone();
            walked.count = Some(1_000_000);
            assert_eq!(fast, walked.occurrences_after(now, 6), "{schedule:?}");
            assert_eq!(fast.len(), 6, "{schedule:?}");
        }
    }

    #[test]
    fn a_position_that_never_matches_ends_quietly() {
        let mut impossible = schedule(Frequency::Weekly, "2026-01-05T09:00:00Z");
        impossible.byweekday = vec![Weekday::Monday];
        impossible.bysetpos = Some(300);
        assert_eq!(impossible.next_delivery(at("2026-01-01T00:00:00Z")), None);
    }

    #[test]
    fn weekly_on_chosen_days() {
        let mut twice_weekly = schedule(Frequency::Weekly, "2026-11-02T07:30:00Z");
        twice_weekly.byweekday = vec![Weekday::Monday, Weekday::Thursday];
        assert_eq!(
            dates(&twice_weekly.occurrences_after(at("2026-11-01T00:00:00Z"), 4)),
            [
                "2026-11-02 07:30",
                "2026-11-05 07:30",
                "2026-11-09 07:30",
                "2026-11-12 07:30"
            ]
        );
    }
}
