//! The first delivery of a schedule is never skipped, whatever fraction of
//! a second its start carries: `next_delivery_date` is compared with the
//! first occurrence for random starts, in the schedule code and through the
//! server.

use chrono::{DateTime, Duration, DurationRound, Utc};
use orgdeck::api::Frequency;
use orgdeck::api::time::{format_datetime, parse_datetime};
use orgdeck::schedule::{DELIVERY_LEAD, Rules, Schedule};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use reqwest::StatusCode;
use serde_json::json;

use crate::support::{DEMO_INSIGHT, TestServer, seeded};

fn frequency() -> impl Strategy<Value = Frequency> {
    prop_oneof![
        Just(Frequency::Daily),
        Just(Frequency::Weekly),
        Just(Frequency::Monthly),
        Just(Frequency::Yearly),
    ]
}

/// A start at least a second after the lead time: seconds ahead, and
/// nanoseconds (zero in a third of the cases: no fraction at all).
fn start_after(now: DateTime<Utc>) -> impl Strategy<Value = DateTime<Utc>> {
    (
        1i64..3 * 366 * 86_400,
        prop_oneof![Just(0u32), 1u32..1_000_000_000, Just(500_000_000u32)],
    )
        .prop_map(move |(seconds, nanos)| {
            let whole = (now + DELIVERY_LEAD)
                .duration_trunc(Duration::seconds(1))
                .unwrap();
            whole + Duration::seconds(seconds) + Duration::nanoseconds(i64::from(nanos))
        })
}

/// The first occurrence of a schedule without weekdays is its start, to
/// the second (PostHog's recurrences drop fractions).
fn first_occurrence(start: DateTime<Utc>) -> DateTime<Utc> {
    start.duration_trunc(Duration::seconds(1)).unwrap()
}

fn schedule(frequency: Frequency, interval: i64, start: DateTime<Utc>) -> Schedule {
    Schedule {
        frequency,
        interval,
        byweekday: Vec::new(),
        bysetpos: None,
        count: None,
        start,
        until: None,
        rules: Rules::Today,
    }
}

proptest! {
    #![proptest_config(Config::with_cases(512))]

    #[test]
    fn the_next_delivery_of_a_future_start_is_its_first_occurrence(
        frequency in frequency(),
        interval in 1i64..5,
        start in start_after(seeded()),
    ) {
        let now = seeded();
        let plan = schedule(frequency, interval, start);
        prop_assert_eq!(plan.next_delivery(now), Some(first_occurrence(start)));
        // And the one after is a whole period later, also on the second.
        let [first, second] = plan.occurrences_after(now, 2)[..] else {
            panic!("two occurrences of {plan:?}");
        };
        prop_assert_eq!(first, first_occurrence(start));
        prop_assert!(second > first && second.timestamp_subsec_nanos() == 0);
    }

    #[test]
    fn a_start_already_past_recurs_on_whole_seconds_after_now(
        frequency in frequency(),
        back in 1i64..800 * 86_400,
        nanos in 0u32..1_000_000_000,
    ) {
        let now = seeded();
        let start = now - Duration::seconds(back) + Duration::nanoseconds(i64::from(nanos));
        let next = schedule(frequency, 1, start).next_delivery(now).unwrap();
        prop_assert!(next > now + DELIVERY_LEAD);
        prop_assert_eq!(next.timestamp_subsec_nanos(), 0);
        prop_assert_eq!(next.time(), first_occurrence(start).time());
    }
}

#[tokio::test]
async fn the_server_never_skips_a_first_delivery() {
    let server = TestServer::demo_at(seeded(), 0).await;
    let key = server.key(&["*"]);
    let path = server.subscriptions_path();
    // The example of the issue, then random starts with and without fractions.
    let mut starts = vec![seeded() + Duration::days(9) + Duration::milliseconds(500)];
    let mut runner = TestRunner::new(Config::with_cases(48));
    let strategy = (frequency(), start_after(seeded()));
    for _ in 0..48 {
        let tree = strategy.new_tree(&mut runner).unwrap();
        let (frequency, start) = proptest::strategy::ValueTree::current(&tree);
        starts.push(start);
        let body = json!({
            "insight": DEMO_INSIGHT,
            "target_type": "email",
            "target_value": "oncall@hedgebox.dev",
            "frequency": frequency.as_str(),
            "interval": 1,
            "start_date": format_datetime(&start),
        });
        let created = server.post(&key, &path, body).await;
        let created = created.expect(StatusCode::CREATED);
        let next = parse_datetime(created["next_delivery_date"].as_str().unwrap()).unwrap();
        assert_eq!(next, first_occurrence(start), "{frequency:?} from {start}");
    }
    let fraction = server
        .post(
            &key,
            &path,
            json!({
                "insight": DEMO_INSIGHT,
                "target_type": "email",
                "target_value": "oncall@hedgebox.dev",
                "frequency": "daily",
                "interval": 1,
                "start_date": format_datetime(&starts[0]),
            }),
        )
        .await;
    let fraction = fraction.expect(StatusCode::CREATED);
    assert_eq!(
        parse_datetime(fraction["next_delivery_date"].as_str().unwrap()).unwrap(),
        first_occurrence(starts[0])
    );
    // The start keeps its fraction as given.
    assert_eq!(
        parse_datetime(fraction["start_date"].as_str().unwrap()).unwrap(),
        starts[0]
    );
}
