//! The demo's own invariants (issue 20, requirement 4): one believable
//! company of about forty people, about 120 subscriptions that read like
//! real ones, 30 days of history that follow each schedule exactly, the
//! failure stories on-call will recognise, and the person who left. Seeded
//! from the fixed moment, over HTTP like any client.

use chrono::{DateTime, Duration, Utc};
use orgdeck::api::{Subscription, SubscriptionState};
use orgdeck::schedule::Schedule;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{LEAVER, OWNER, TestServer, seeded};

/// The demo seeded at the fixed moment, its owner's key, and every
/// subscription of both projects (deleted ones too) with its deliveries.
struct Demo {
    server: TestServer,
    key: String,
    subscriptions: Vec<(Value, Vec<Value>)>,
}

impl Demo {
    async fn start() -> Demo {
        let server = TestServer::demo_at(seeded(), 0).await;
        let key = server.key(&["*"]);
        let mut subscriptions = Vec::new();
        for project in [server.project, server.project + 1] {
            for deleted in ["false", "true"] {
                let path = format!("/api/projects/{project}/subscriptions/?deleted={deleted}&limit=200");
                for row in server.all(&key, &path).await {
                    let id = row["id"].as_i64().unwrap();
                    let path = format!("/api/projects/{project}/subscriptions/{id}/deliveries/");
                    let deliveries = server.all(&key, &path).await;
                    subscriptions.push((row, deliveries));
                }
            }
        }
        Demo {
            server,
            key,
            subscriptions,
        }
    }

    fn rows(&self) -> impl Iterator<Item = &Value> {
        self.subscriptions.iter().map(|(row, _)| row)
    }

    fn titled(&self, title: &str) -> &(Value, Vec<Value>) {
        self.subscriptions
            .iter()
            .find(|(row, _)| row["title"] == title)
            .unwrap_or_else(|| panic!("no subscription titled {title:?}"))
    }

    async fn members(&self) -> Vec<Value> {
        let path = format!(
            "/api/organizations/{}/members/?limit=500",
            self.server.organization
        );
        self.server.all(&self.key, &path).await
    }
}

fn typed(row: &Value) -> Subscription {
    serde_json::from_value(row.clone()).unwrap()
}

fn at(value: &Value) -> DateTime<Utc> {
    orgdeck::api::time::parse_datetime(value.as_str().unwrap()).unwrap()
}

fn scheduled(deliveries: &[Value]) -> Vec<DateTime<Utc>> {
    let mut times: Vec<DateTime<Utc>> = deliveries
        .iter()
        .filter(|delivery| delivery["trigger_type"] == "scheduled")
        .map(|delivery| at(&delivery["scheduled_at"]))
        .collect();
    times.sort();
    times
}

#[tokio::test]
async fn about_forty_people_in_eight_roles_some_in_several_a_few_in_none() {
    let demo = Demo::start().await;
    let members = demo.members().await;
    assert_eq!(members.len(), 40, "active members");
    assert!(members.iter().all(|member| {
        member["user"]["email"]
            .as_str()
            .unwrap()
            .ends_with("@hedgebox.dev")
    }));
    let roles = demo.server.all(&demo.key, &demo.server.roles_path()).await;
    assert_eq!(roles.len(), 8);
    let mut roles_of = std::collections::HashMap::<String, usize>::new();
    for role in &roles {
        for membership in role["members"].as_array().unwrap() {
            *roles_of
                .entry(membership["user"]["email"].as_str().unwrap().to_string())
                .or_default() += 1;
        }
    }
    let several = roles_of.values().filter(|count| **count > 1).count();
    let none = members
        .iter()
        .filter(|member| !roles_of.contains_key(member["user"]["email"].as_str().unwrap()))
        .count();
    assert!(several >= 3, "{roles_of:?}");
    assert!((2..=6).contains(&none), "{none} in no role");
    // Names are people's names, not counters.
    for member in &members {
        let first = member["user"]["first_name"].as_str().unwrap();
        assert!(
            !first.is_empty() && !first.chars().any(|c| c.is_ascii_digit()),
            "{member}"
        );
    }
}

#[tokio::test]
async fn subscriptions_read_like_real_ones() {
    let demo = Demo::start().await;
    let rows: Vec<&Value> = demo.rows().collect();
    assert!((110..=130).contains(&rows.len()), "{} subscriptions", rows.len());
    let by = |field: &str, value: &str| rows.iter().filter(|row| row[field] == value).count();
    // Mostly weekly and daily, a few monthly.
    let (weekly, daily, monthly) = (
        by("frequency", "weekly"),
        by("frequency", "daily"),
        by("frequency", "monthly"),
    );
    assert!(weekly > daily && daily > monthly, "{weekly} {daily} {monthly}");
    assert!((weekly + daily) * 10 >= rows.len() * 9);
    assert!((3..=15).contains(&monthly));
    // Titles without counters; a handful without a title.
    let counter = |title: &str| {
        title.ends_with(')')
            && title
                .rsplit_once('(')
                .is_some_and(|(_, inside)| inside.trim_end_matches(')').chars().all(|c| c.is_ascii_digit()))
    };
    let titles: Vec<&str> = rows.iter().filter_map(|row| row["title"].as_str()).collect();
    assert!(titles.iter().all(|title| !counter(title)), "{titles:?}");
    let untitled = rows
        .iter()
        .filter(|row| row["title"].as_str().unwrap_or("").is_empty())
        .count();
    assert!((2..=8).contains(&untitled), "{untitled} without a title");
    // E-mail and Slack; legacy webhooks at most three, none of them active.
    assert!(by("target_type", "email") > 40 && by("target_type", "slack") > 40);
    let webhooks: Vec<&&Value> = rows
        .iter()
        .filter(|row| row["target_type"] == "webhook")
        .collect();
    assert!((1..=3).contains(&webhooks.len()));
    let now = seeded();
    for webhook in webhooks {
        assert_eq!(webhook["enabled"], false, "{webhook}");
        assert_ne!(typed(webhook).state(now), SubscriptionState::Active);
    }
    // And the first row of the list is no webhook.
    let first = demo
        .server
        .get(&demo.key, &demo.server.subscriptions_path())
        .await;
    assert_ne!(
        first.expect(StatusCode::OK)["results"][0]["target_type"],
        "webhook"
    );
}

/// Every scheduled delivery is an occurrence of its subscription's
/// schedule, at the moment it was due; none is missing in between; the
/// ones neither paused, deleted, nor disabled have every occurrence of the
/// 30 days up to now (the overdue one up to the one it missed).
#[tokio::test]
async fn every_delivery_is_an_occurrence_of_its_schedule() {
    let demo = Demo::start().await;
    let now = seeded();
    let since = now - Duration::days(30);
    let mut manual = Vec::new();
    let mut delivered = 0;
    for (row, deliveries) in &demo.subscriptions {
        let subscription = typed(row);
        let schedule = Schedule::of(&subscription).unwrap();
        let occurrences: Vec<DateTime<Utc>> = schedule
            .occurrences_after(since, 64)
            .into_iter()
            .take_while(|at| *at < now)
            .collect();
        for delivery in deliveries {
            match delivery["trigger_type"].as_str().unwrap() {
                "scheduled" => assert_eq!(
                    delivery["created_at"], delivery["scheduled_at"],
                    "sent when due: {delivery}"
                ),
                "manual" => manual.push(delivery.clone()),
                other => panic!("{other} delivery in the demo: {delivery}"),
            }
        }
        let times = scheduled(deliveries);
        delivered += times.len();
        assert_eq!(
            times,
            occurrences[..times.len()],
            "#{} {:?} delivered off its schedule {:?}",
            row["id"],
            row["title"],
            row["summary"]
        );
        let state = subscription.state(now);
        let failed_last = deliveries
            .first()
            .is_some_and(|latest| latest["status"] == "failed" && latest["target_type"] == "slack");
        if state == SubscriptionState::Active || state == SubscriptionState::Ended {
            assert_eq!(
                times, occurrences,
                "#{} {:?} misses deliveries",
                row["id"], row["title"]
            );
        }
        if state == SubscriptionState::Overdue {
            let next = subscription.next_delivery_date.unwrap();
            assert_eq!(
                times,
                occurrences
                    .iter()
                    .copied()
                    .take_while(|at| *at < next)
                    .collect::<Vec<_>>()
            );
        }
        if state == SubscriptionState::Paused && !failed_last {
            assert!(times.len() < occurrences.len() || occurrences.is_empty(), "{row}");
        }
    }
    assert!(delivered > 1_000, "{delivered} deliveries in 30 days");
    // One test sent by hand, yesterday, to a subscription made yesterday.
    assert_eq!(manual.len(), 1, "{manual:?}");
    let yesterday = (now - Duration::days(1)).date_naive();
    assert_eq!(at(&manual[0]["created_at"]).date_naive(), yesterday);
    assert_eq!(manual[0]["status"], "completed");
    let (tested, deliveries) = demo
        .subscriptions
        .iter()
        .find(|(row, _)| row["id"] == manual[0]["subscription"])
        .unwrap();
    assert_eq!(at(&tested["created_at"]).date_naive(), yesterday);
    assert_eq!(deliveries.len(), 1, "nothing was due yet");
}

#[tokio::test]
async fn legacy_webhooks_were_skipped_and_cannot_be_resumed() {
    let demo = Demo::start().await;
    let webhooks: Vec<&(Value, Vec<Value>)> = demo
        .subscriptions
        .iter()
        .filter(|(row, _)| row["target_type"] == "webhook")
        .collect();
    assert!(
        webhooks
            .iter()
            .flat_map(|(_, deliveries)| deliveries)
            .all(|delivery| delivery["status"] == "skipped")
    );
    assert!(webhooks.iter().any(|(_, deliveries)| !deliveries.is_empty()));
    let id = &webhooks[0].0["id"];
    let refused = demo
        .server
        .patch(
            &demo.key,
            &format!("{}{id}/", demo.server.subscriptions_path()),
            json!({"enabled": true}),
        )
        .await;
    let detail = refused.expect_error(
        StatusCode::BAD_REQUEST,
        "validation_error",
        "invalid_input",
        Some("enabled"),
    );
    assert!(
        detail.starts_with("Cannot re-enable webhook subscription"),
        "{detail}"
    );
}

#[tokio::test]
async fn the_failures_tell_stories_on_call_recognises() {
    let demo = Demo::start().await;
    let now = seeded();

    // An address at .invalid, failing for two weeks after working before.
    let (row, deliveries) = demo.titled("Support load check");
    assert!(row["target_value"].as_str().unwrap().ends_with(".invalid"));
    let failed: Vec<&Value> = deliveries.iter().filter(|d| d["status"] == "failed").collect();
    let first_failure = failed.iter().map(|d| at(&d["created_at"])).min().unwrap();
    assert_eq!((now - first_failure).num_days(), 14, "{first_failure}");
    assert!(
        deliveries
            .iter()
            .all(|d| (d["status"] == "failed") == (at(&d["created_at"]) >= first_failure))
    );
    assert!(
        failed[0]["recipient_results"][0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("does not exist")
    );
    assert!(deliveries.iter().any(|d| d["status"] == "completed"));

    // A partial delivery: one of three recipients failed.
    let partial = demo
        .subscriptions
        .iter()
        .flat_map(|(_, deliveries)| deliveries)
        .find(|d| d["error"]["type"] == "PartialFailure")
        .expect("a partial delivery");
    let results = partial["recipient_results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    assert_eq!(results.iter().filter(|r| r["status"] == "failed").count(), 1);
    assert_eq!(partial["status"], "completed");

    // The old workspace's Slack integration, revoked three days ago, failed
    // each of its subscriptions once and disabled them.
    let integrations = demo
        .server
        .all(
            &demo.key,
            &format!("/api/projects/{}/integrations/?kind=slack", demo.server.project),
        )
        .await;
    let revoked = integrations
        .iter()
        .find(|integration| !integration["errors"].as_str().unwrap().is_empty())
        .unwrap();
    let through: Vec<&(Value, Vec<Value>)> = demo
        .subscriptions
        .iter()
        .filter(|(row, _)| row["integration_id"] == revoked["id"])
        .collect();
    assert!(through.len() >= 2);
    for (row, deliveries) in through {
        assert_eq!(row["enabled"], false, "auto-disabled: {row}");
        let (latest, earlier) = deliveries.split_first().unwrap();
        assert_eq!(latest["status"], "failed");
        assert_eq!(
            (now.date_naive() - at(&latest["created_at"]).date_naive()).num_days(),
            3
        );
        assert!(!earlier.is_empty() && earlier.iter().all(|d| d["status"] == "completed"));
    }

    // One overdue; one whose schedule has ended, delivered until then.
    let states: Vec<(SubscriptionState, &Value)> =
        demo.rows().map(|row| (typed(row).state(now), row)).collect();
    let overdue: Vec<_> = states
        .iter()
        .filter(|(state, _)| *state == SubscriptionState::Overdue)
        .collect();
    assert_eq!(overdue.len(), 1, "{overdue:?}");
    let ended = states
        .iter()
        .filter(|(state, _)| *state == SubscriptionState::Ended)
        .map(|(_, row)| row)
        .collect::<Vec<_>>();
    assert!(!ended.is_empty());
    assert!(
        ended
            .iter()
            .any(|row| at(&row["until_date"]) < now && row["enabled"] == true)
    );
}

/// The person who left last month: still an active member in a role, still
/// receiving three e-mail subscriptions (one of them alone) and the creator
/// of two, one an AI prompt.
#[tokio::test]
async fn the_person_who_left_still_receives_and_owns_subscriptions() {
    let demo = Demo::start().await;
    let now = seeded();
    let members = demo.members().await;
    let leaver = members
        .iter()
        .find(|member| member["user"]["email"] == LEAVER)
        .expect("still a member");
    let last_login = at(&leaver["last_login"]);
    assert!(now - last_login > Duration::days(28) && now - last_login < Duration::days(62));
    let others_recent = members
        .iter()
        .filter(|member| member["user"]["email"] != LEAVER)
        .filter(|member| {
            member["last_login"]
                .as_str()
                .is_some_and(|t| now - at(&json!(t)) > Duration::days(28))
        })
        .count();
    assert_eq!(others_recent, 0, "only she has been away that long");
    let roles = demo.server.all(&demo.key, &demo.server.roles_path()).await;
    assert!(roles.iter().any(|role| {
        role["members"]
            .as_array()
            .unwrap()
            .iter()
            .any(|membership| membership["user"]["email"] == LEAVER)
    }));

    let receives: Vec<&Value> = demo
        .rows()
        .filter(|row| row["target_value"].as_str().unwrap().contains(LEAVER))
        .collect();
    assert_eq!(receives.len(), 3, "{receives:?}");
    assert!(
        receives
            .iter()
            .all(|row| row["target_type"] == "email" && row["deleted"] == false)
    );
    assert_eq!(
        receives
            .iter()
            .filter(|row| row["target_value"] == LEAVER)
            .count(),
        1
    );
    let created: Vec<&Value> = demo
        .rows()
        .filter(|row| row["created_by"]["email"] == LEAVER)
        .collect();
    assert_eq!(created.len(), 2);
    assert_eq!(
        created
            .iter()
            .filter(|row| row["resource_type"] == "ai_prompt")
            .count(),
        1
    );
    // Her subscriptions still go out.
    for (row, deliveries) in &demo.subscriptions {
        if row["target_value"].as_str().unwrap().contains(LEAVER) {
            assert!(deliveries.iter().all(|d| d["status"] == "completed"), "{row}");
        }
    }
    assert_ne!(LEAVER, OWNER);
}

/// `--generate-members N` adds N active members with generated names and
/// unique addresses beside the demo's forty.
#[tokio::test]
async fn generated_members_have_names_and_unique_addresses() {
    let server = TestServer::demo_with(|options| options.generate_members = 2_000).await;
    let key = server.key(&["*"]);
    let path = format!("/api/organizations/{}/members/?limit=1000", server.organization);
    let first = server.get(&key, &path).await;
    assert_eq!(first.expect(StatusCode::OK)["count"], 2_040);
    let members = server.all(&key, &path).await;
    let generated: Vec<&Value> = members
        .iter()
        .filter(|member| {
            !member["user"]["email"]
                .as_str()
                .unwrap()
                .ends_with("@hedgebox.dev")
        })
        .collect();
    assert_eq!(generated.len(), 2_000);
    let mut addresses = std::collections::HashSet::new();
    for member in &generated {
        let user = &member["user"];
        let (first, last) = (
            user["first_name"].as_str().unwrap(),
            user["last_name"].as_str().unwrap(),
        );
        let capitalised = |name: &str| name.chars().next().is_some_and(char::is_uppercase);
        assert!(capitalised(first) && capitalised(last), "{user}");
        let email = user["email"].as_str().unwrap();
        let prefix = format!("{}.{}.", first.to_lowercase(), last.to_lowercase());
        assert!(email.starts_with(&prefix), "{email} for {first} {last}");
        assert!(addresses.insert(email.to_string()), "{email} twice");
    }
    let names: std::collections::HashSet<&str> = generated
        .iter()
        .map(|member| member["user"]["first_name"].as_str().unwrap())
        .collect();
    assert!(names.len() > 20, "varied names: {names:?}");
}
