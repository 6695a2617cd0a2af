//! The delivery task with injected time: on a manual clock, moving the
//! clock past a subscription's `next_delivery_date` records a `scheduled`
//! delivery and moves the date on; paused, deleted and long-missed
//! subscriptions get nothing. The suite polls the API for at most a few
//! seconds and never sleeps for the schedule itself.

use chrono::{DateTime, Duration, Utc};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::today::{Today, date, eventually};

fn at(text: &str) -> DateTime<Utc> {
    orgdeck::api::time::parse_datetime(text).unwrap()
}

fn id_of(value: &Value) -> i64 {
    value["id"].as_i64().unwrap()
}

/// Waits until the subscription has a scheduled delivery for `scheduled`,
/// and returns it.
async fn scheduled_delivery(today: &Today, id: i64, scheduled: DateTime<Utc>) -> Value {
    eventually(&format!("the delivery of {id} at {scheduled}"), || async {
        today.deliveries(id).await.into_iter().find(|delivery| {
            delivery["trigger_type"] == "scheduled" && date(&delivery["scheduled_at"]) == scheduled
        })
    })
    .await
}

fn scheduled(deliveries: &[Value]) -> Vec<&Value> {
    deliveries
        .iter()
        .filter(|delivery| delivery["trigger_type"] == "scheduled")
        .collect()
}

/// Daily at 09:00 from today (the clock reads 08:00), so first due at 09:00.
fn daily_at_nine() -> Value {
    json!({"start_date": "2026-11-22T09:00:00Z"})
}

/// A subscription due at 09:00 is delivered once the clock passes 09:00,
/// not before, and then every day; the paused and the deleted are not.
#[tokio::test]
async fn due_subscriptions_are_delivered_when_the_clock_gets_there() {
    let today = Today::start().await;
    let nine = at("2026-11-22T09:00:00Z");
    let due = today.create("oncall@hedgebox.dev", daily_at_nine()).await;
    assert_eq!(date(&due["next_delivery_date"]), nine);
    let mut paused_body = daily_at_nine();
    paused_body["enabled"] = json!(false);
    let paused = today.create("paused@hedgebox.dev", paused_body).await;
    let deleted = today.create("deleted@hedgebox.dev", daily_at_nine()).await;
    today.patch(id_of(&deleted), json!({"deleted": true})).await;
    // A sibling due a minute earlier shows when the task has looked.
    let early = today
        .create(
            "early@hedgebox.dev",
            json!({"start_date": "2026-11-22T08:59:00Z"}),
        )
        .await;

    // 08:59:30: the early one goes out, the 09:00 ones not yet.
    today.clock.set(at("2026-11-22T08:59:30Z"));
    scheduled_delivery(&today, id_of(&early), at("2026-11-22T08:59:00Z")).await;
    assert!(
        scheduled(&today.deliveries(id_of(&due)).await).is_empty(),
        "not before its time"
    );

    // 09:00:30: delivered, recorded as scheduled, and the date moves on.
    today.clock.set(at("2026-11-22T09:00:30Z"));
    let delivery = scheduled_delivery(&today, id_of(&due), nine).await;
    assert_eq!(date(&delivery["created_at"]), today.now());
    assert_eq!(delivery["status"], "completed");
    assert_eq!(delivery["target_value"], "oncall@hedgebox.dev");
    assert_eq!(
        delivery["recipient_results"],
        json!([{"recipient": "oncall@hedgebox.dev", "status": "success"}])
    );
    assert!(delivery["error"].is_null());
    let moved = today.subscription(id_of(&due)).await;
    assert_eq!(date(&moved["next_delivery_date"]), nine + Duration::days(1));
    assert_eq!(moved["enabled"], true);
    assert_eq!(scheduled(&today.deliveries(id_of(&due)).await).len(), 1, "once");

    // The paused and the deleted were due in the same pass and got nothing.
    assert_eq!(today.deliveries(id_of(&paused)).await, Vec::<Value>::new());
    let paused_now = today.subscription(id_of(&paused)).await;
    assert_eq!(date(&paused_now["next_delivery_date"]), nine, "left where it was");
    let deleted_deliveries = today.deliveries(id_of(&deleted)).await;
    assert_eq!(deleted_deliveries.len(), 1);
    assert_eq!(
        deleted_deliveries[0]["trigger_type"], "target_change",
        "only its creation"
    );

    // The next day, again; and only the next day's.
    today.clock.set(at("2026-11-23T09:00:05Z"));
    scheduled_delivery(&today, id_of(&due), nine + Duration::days(1)).await;
    let moved = today.subscription(id_of(&due)).await;
    assert_eq!(date(&moved["next_delivery_date"]), nine + Duration::days(2));
    assert_eq!(scheduled(&today.deliveries(id_of(&due)).await).len(), 2);
    assert_eq!(today.deliveries(id_of(&paused)).await, Vec::<Value>::new());

    // Resumed, the paused one is scheduled from now: its missed days are
    // not sent, only the confirmation.
    let resumed = today.patch(id_of(&paused), json!({"enabled": true})).await;
    assert_eq!(date(&resumed["next_delivery_date"]), nine + Duration::days(2));
    let deliveries = today.deliveries(id_of(&paused)).await;
    assert_eq!(deliveries.len(), 1);
    assert_eq!(deliveries[0]["trigger_type"], "target_change");
}

/// A new subscription due before everything the task sleeps for wakes it.
#[tokio::test]
async fn a_new_earlier_schedule_wakes_the_task() {
    let today = Today::start().await;
    let upcoming = today
        .server
        .all(
            &today.key,
            &today.path("subscriptions/?limit=1000&ordering=next_delivery_date"),
        )
        .await;
    let earliest = upcoming
        .iter()
        .filter(|row| row["enabled"] == true && !row["next_delivery_date"].is_null())
        .map(|row| date(&row["next_delivery_date"]))
        .find(|next| *next > today.now())
        .expect("the demo has upcoming deliveries");
    let soon = today.now() + Duration::minutes(16);
    assert!(
        earliest > soon + Duration::minutes(1),
        "the demo's earliest is {earliest}"
    );
    let created = today
        .create("soon@hedgebox.dev", json!({"start_date": soon.to_rfc3339()}))
        .await;
    assert_eq!(date(&created["next_delivery_date"]), soon);
    today.clock.set(soon + Duration::seconds(10));
    let delivery = scheduled_delivery(&today, id_of(&created), soon).await;
    assert_eq!(delivery["status"], "completed");
}

/// A `.invalid` recipient's scheduled delivery fails with an error for each
/// such recipient; a Slack integration revoked since fails and pauses.
#[tokio::test]
async fn scheduled_deliveries_keep_their_fixed_outcomes() {
    let today = Today::start().await;
    let nine = at("2026-11-22T09:00:00Z");
    let failing = today
        .create("ops@hedgebox.invalid, sre@mail.hedgebox.invalid", daily_at_nine())
        .await;
    let listed = today.get(&today.path("integrations/?kind=slack")).await;
    let working = listed.expect(StatusCode::OK)["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["errors"] == "")
        .map(id_of)
        .unwrap();
    let mut slack = daily_at_nine();
    slack["target_type"] = json!("slack");
    slack["integration_id"] = json!(working);
    let channel = today.create("C0001000|#metrics", slack).await;
    assert_eq!(today.deliveries(id_of(&channel)).await[0]["status"], "completed");
    // Slack revokes the token before the delivery.
    today
        .server
        .running
        .db
        .write_blocking(move |tx| {
            tx.execute(
                "UPDATE integrations SET errors = 'TOKEN_REVOKED' WHERE id = ?1",
                [working],
            )?;
            Ok(())
        })
        .unwrap();

    today.clock.set(nine + Duration::minutes(2));
    let delivery = scheduled_delivery(&today, id_of(&failing), nine).await;
    assert_eq!(delivery["status"], "failed");
    assert!(delivery["error"]["message"].is_string(), "{delivery}");
    let results = delivery["recipient_results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    for (result, recipient) in results
        .iter()
        .zip(["ops@hedgebox.invalid", "sre@mail.hedgebox.invalid"])
    {
        assert_eq!(result["recipient"], recipient);
        assert_eq!(result["status"], "failed");
        assert!(
            result["error"]["message"].as_str().unwrap().contains(".invalid"),
            "{result}"
        );
        assert!(result["error"]["type"].is_string(), "{result}");
    }
    let after = today.subscription(id_of(&failing)).await;
    assert_eq!(after["enabled"], true, "a failed e-mail does not pause");
    assert_eq!(date(&after["next_delivery_date"]), nine + Duration::days(1));

    let delivery = scheduled_delivery(&today, id_of(&channel), nine).await;
    assert_eq!(delivery["status"], "failed");
    assert_eq!(delivery["recipient_results"][0]["status"], "failed");
    let paused = today.subscription(id_of(&channel)).await;
    assert_eq!(paused["enabled"], false, "auto-disabled");
    // Paused, it is not delivered the next day.
    today.clock.set(nine + Duration::days(1) + Duration::minutes(2));
    scheduled_delivery(&today, id_of(&failing), nine + Duration::days(1)).await;
    assert_eq!(scheduled(&today.deliveries(id_of(&channel)).await).len(), 1);
}

/// A counted schedule is delivered as many times as it says, then has no
/// next delivery and gets no more.
#[tokio::test]
async fn a_counted_schedule_ends_after_its_last_delivery() {
    let today = Today::start().await;
    let nine = at("2026-11-22T09:00:00Z");
    let mut body = daily_at_nine();
    body["count"] = json!(2);
    let counted = today.create("twice@hedgebox.dev", body).await;
    let every_day = today.create("daily@hedgebox.dev", daily_at_nine()).await;
    for day in 0..3 {
        today.clock.set(nine + Duration::days(day) + Duration::minutes(1));
        scheduled_delivery(&today, id_of(&every_day), nine + Duration::days(day)).await;
        let subscription = today.subscription(id_of(&counted)).await;
        let next = &subscription["next_delivery_date"];
        match day {
            0 => assert_eq!(date(next), nine + Duration::days(1)),
            _ => assert!(next.is_null(), "day {day}: {subscription}"),
        }
    }
    let deliveries = today.deliveries(id_of(&counted)).await;
    let dates: Vec<_> = scheduled(&deliveries)
        .iter()
        .map(|delivery| date(&delivery["scheduled_at"]))
        .collect();
    assert_eq!(dates, [nine + Duration::days(1), nine]);
}

/// As PostHog's scheduler, a delivery missed by more than an hour (the
/// server was down) is not sent late.
#[tokio::test]
async fn a_long_missed_delivery_is_not_sent_late() {
    let today = Today::start().await;
    let missed = today.create("missed@hedgebox.dev", daily_at_nine()).await;
    let later = today
        .create(
            "later@hedgebox.dev",
            json!({"start_date": "2026-11-22T10:30:00Z"}),
        )
        .await;
    today.clock.set(at("2026-11-22T10:31:00Z"));
    scheduled_delivery(&today, id_of(&later), at("2026-11-22T10:30:00Z")).await;
    assert!(scheduled(&today.deliveries(id_of(&missed)).await).is_empty());
}
