//! What on-call does, as pure `update` tests (a subscription's deliveries
//! are in `deliveries.rs`): narrowing to one state, test deliveries and pause with their questions
//! and refusals, the watch for a delivery, and `--refresh`.

use crate::console::screens;
use crate::console::screens::subscriptions::Msg as SubscriptionsMsg;
use crate::console::screens::subscriptions::Write as SubscriptionWrite;
use chrono::{Duration, Utc};
use ratatui::crossterm::event::KeyCode;

use super::{answer, app, command, fetches, key, screen, subscriptions};
use crate::api::{
    self, Delivery, DeliveryStatus, Page, Refusal, Subscription, SubscriptionState, TriggerType,
};
use crate::console::screens::ScreenAsk;
use crate::console::screens::health::Ask as HealthAsk;
use crate::console::screens::subscriptions::Ask as SubscriptionsAsk;
use crate::console::shell::{App, keymap::Keymap};
use crate::console::shell::{
    Context, Effect, Mode, Msg, ScreenId, ScreenPage, ScreenRequest, Timer, Write, WriteAnswer, Written,
};
use crate::console::widgets::question::Answer;

/// Subscriptions, each in the state its id says (1 in 5 overdue, the
/// others active), next delivery ordered as the server orders them.
pub(super) fn with_states(count: u64, offset: u64, now: chrono::DateTime<Utc>) -> ScreenPage {
    let results = (offset..(offset + 100).min(count))
        .map(|n| Subscription {
            id: n as i64 + 1,
            title: Some(format!("Report {n}")),
            next_delivery_date: Some(if n < 150 {
                now - Duration::hours(1)
            } else {
                now + Duration::hours(1)
            }),
            enabled: Some(n % 5 != 1),
            ..Subscription::default()
        })
        .collect();
    ScreenPage::new(Page {
        count,
        next: None,
        previous: None,
        results,
    })
}

pub(super) fn written(app: &mut App, effect: &Effect, result: Result<Written, api::Error>) -> Vec<Effect> {
    let Effect::Write { ticket, write } = effect else {
        panic!("not a write: {effect:?}")
    };
    app.update(Msg::Written(Box::new(WriteAnswer {
        ticket: *ticket,
        write: write.clone(),
        result,
    })))
}

pub(super) fn refusal(status: u16, detail: &str, attr: Option<&str>) -> api::Error {
    api::Error::Api(Box::new(Refusal {
        status,
        kind: "validation_error".into(),
        code: "invalid_input".into(),
        detail: detail.into(),
        attr: attr.map(str::to_string),
        request: api::RequestLabel {
            method: "POST".into(),
            path: "/api/projects/1/subscriptions/1/test-delivery/".into(),
        },
    }))
}

#[test]
fn overdue_in_one_key_looks_through_the_list_only_as_far_as_they_go() {
    let mut app = app();
    let now = app.window.now;
    app.start();
    let first = key(&mut app, KeyCode::Char('3')).pop().unwrap();
    answer(&mut app, &first, |offset| with_states(100_000, offset, now));
    // Nothing known of the states yet: the whole list is read for them
    // (a look that reads no delivery), and the first pages meanwhile.
    let effects = key(&mut app, KeyCode::Char('o'));
    let [
        fetch,
        Effect::Ask(ScreenAsk::Health(HealthAsk::Look {
            max_requests: Some(0),
            ..
        })),
        Effect::Timer { .. },
    ] = effects.as_slice()
    else {
        panic!("{effects:?}")
    };
    assert!(
        matches!(fetch, Effect::Fetch { offset: 0, request: ScreenRequest::Subscriptions(screens::subscriptions::Request { filter, .. }), .. }
            if filter.ordering.as_deref() == Some("next_delivery_date")),
        "ordered by next delivery, the overdue come first: {fetch:?}"
    );
    let effects = answer(&mut app, fetch, |offset| with_states(100_000, offset, now));
    assert_eq!(
        fetches(&effects),
        vec![(ScreenId::Subscriptions, 100)],
        "more may follow"
    );
    let effects = answer(&mut app, &effects[0], |offset| with_states(100_000, offset, now));
    assert!(
        fetches(&effects).is_empty(),
        "past the overdue ones, the look stops: {effects:?}"
    );
    let table = &app.screens.subscriptions;
    assert_eq!(table.rows.len(), 120, "150 past due, 30 of them paused");
    assert!((0..120).all(|at| table.rows.row(at).unwrap().state(now) == SubscriptionState::Overdue));
    let shown = screen(&app);
    assert!(
        shown.contains("Subscriptions · overdue 1/120 match in the first 200 of 100000"),
        "{shown}"
    );
    assert!(
        shown.contains("NEXT DELIVERY (UTC) ▲"),
        "the order in force: {shown}"
    );
    // `f` steps on to paused; `:state` alone shows every state again.
    key(&mut app, KeyCode::Char('f'));
    assert_eq!(
        app.screens.subscriptions.resource.state,
        Some(SubscriptionState::Paused)
    );
    command(&mut app, "state");
    assert_eq!(app.screens.subscriptions.resource.state, None);
    assert_eq!(app.screens.subscriptions.rows.view, None);
    command(&mut app, "target slack");
    assert_eq!(
        app.screens.subscriptions.resource.filter.target_type.as_deref(),
        Some("slack")
    );
    assert!(screen(&app).contains("Subscriptions · to slack"));
}

#[test]
fn a_test_delivery_asks_first_then_watches_for_the_delivery_a_while() {
    let mut app = app();
    app.start();
    let first = key(&mut app, KeyCode::Char('3')).pop().unwrap();
    answer(&mut app, &first, |offset| subscriptions(3, offset));
    assert!(key(&mut app, KeyCode::Char('t')).is_empty());
    let Mode::Confirm(confirm) = &app.mode else {
        panic!("asks first")
    };
    assert!(confirm.question.contains("Send a test delivery of #1"));
    assert_eq!(
        confirm.highlighted,
        Answer::No,
        "it reaches people: Enter says no"
    );
    assert!(key(&mut app, KeyCode::Char('n')).is_empty(), "no: nothing sent");
    key(&mut app, KeyCode::Char('t'));
    let effects = key(&mut app, KeyCode::Char('y'));
    assert!(matches!(
        &effects[..],
        [Effect::Write {
            write: Write::Subscription(SubscriptionWrite::TestDelivery { id: 1, .. }),
            ..
        }]
    ));
    let effects = written(&mut app, &effects[0], Ok(Written::Accepted));
    let poll_timer = |effects: &[Effect]| {
        effects.iter().find_map(|e| match e {
            Effect::Timer {
                timer: Timer::Poll(look),
                ticket,
            } => Some((*look, *ticket)),
            _ => None,
        })
    };
    let mut timer = poll_timer(&effects);
    assert!(timer.is_some(), "a watch for the delivery");
    assert!(app.notice.text().contains("test delivery of #1 on its way"));
    // Each look asks for the newest delivery on its own; nothing new: it
    // looks again, ten times, then says so.
    let mut looks = 0;
    while let Some((look, ticket)) = timer.take() {
        looks += 1;
        let effects = app.update(Msg::Timer {
            timer: Timer::Poll(look),
            ticket,
        });
        assert!(matches!(
            &effects[..],
            [Effect::Ask(ScreenAsk::Subscriptions(
                SubscriptionsAsk::NewestDelivery { subscription: 1, .. }
            ))]
        ));
        let effects = app.update(
            SubscriptionsMsg::NewestDelivery {
                subscription: 1,
                result: Ok(None),
            }
            .into(),
        );
        timer = poll_timer(&effects);
    }
    assert_eq!(looks, 10, "bounded");
    assert_eq!(app.screens.subscriptions.resource.watch.poll, None);
    assert!(app.notice.text().contains("no new delivery of #1 has landed yet"));

    // Again: a scheduled delivery is not the test; the manual one is.
    key(&mut app, KeyCode::Char('t'));
    let effects = key(&mut app, KeyCode::Char('y'));
    let effects = written(&mut app, &effects[0], Ok(Written::Accepted));
    let (look, ticket) = poll_timer(&effects).unwrap();
    app.update(Msg::Timer {
        timer: Timer::Poll(look),
        ticket,
    });
    let now = app.window.now;
    let delivery = |id: &str, trigger: TriggerType| Delivery {
        id: id.into(),
        trigger_type: Some(trigger),
        status: Some(DeliveryStatus::Failed),
        created_at: Some(now),
        error: Some(serde_json::json!({"message": "Domain hedgebox.invalid does not exist"})),
        ..Delivery::default()
    };
    let effects = app.update(
        SubscriptionsMsg::NewestDelivery {
            subscription: 1,
            result: Ok(Some(Box::new(delivery("scheduled", TriggerType::Scheduled)))),
        }
        .into(),
    );
    let (look, ticket) = poll_timer(&effects).expect("not the test: looks again");
    app.update(Msg::Timer {
        timer: Timer::Poll(look),
        ticket,
    });
    let effects = app.update(
        SubscriptionsMsg::NewestDelivery {
            subscription: 1,
            result: Ok(Some(Box::new(delivery("manual", TriggerType::Manual)))),
        }
        .into(),
    );
    assert!(
        matches!(
            &effects[..],
            [Effect::Ask(ScreenAsk::Subscriptions(
                SubscriptionsAsk::Subscription { id: 1, .. }
            ))]
        ),
        "{effects:?}"
    );
    let notice = app.notice.shown.clone().unwrap();
    assert!(notice.error && notice.text.contains("landed: failed") && notice.text.contains("does not exist"));
    assert_eq!(app.screens.subscriptions.resource.watch.poll, None);
}

#[test]
fn refusals_of_tests_and_resumes_say_what_to_do() {
    let mut app = app();
    app.start();
    let first = key(&mut app, KeyCode::Char('3')).pop().unwrap();
    answer(&mut app, &first, |offset| subscriptions(3, offset));
    key(&mut app, KeyCode::Char('t'));
    let effects = key(&mut app, KeyCode::Char('y'));
    written(
        &mut app,
        &effects[0],
        Err(refusal(
            409,
            "Subscription is disabled. Re-enable it before sending a test delivery.",
            None,
        )),
    );
    let notice = app.notice.shown.clone().unwrap();
    assert!(notice.error && notice.text.contains("#1 is paused") && notice.text.contains("p resumes it"));
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('t'));
    let effects = key(&mut app, KeyCode::Char('y'));
    written(
        &mut app,
        &effects[0],
        Err(refusal(409, "Delivery already in progress", None)),
    );
    assert!(app.notice.text().contains("already in progress"));
    key(&mut app, KeyCode::Esc);

    // `p` asks first, to pause (Enter: yes) and to resume (Enter: no: it
    // delivers at once).
    key(&mut app, KeyCode::Char('p'));
    let effects = key(&mut app, KeyCode::Enter);
    assert!(matches!(
        &effects[..],
        [Effect::Write {
            write: Write::Subscription(SubscriptionWrite::SetEnabled { enabled: false, .. }),
            ..
        }]
    ));
    let paused = Subscription {
        id: 1,
        enabled: Some(false),
        ..Subscription::default()
    };
    written(&mut app, &effects[0], Ok(Written::Subscription(Box::new(paused))));
    assert_eq!(
        app.screens
            .subscriptions
            .selected()
            .unwrap()
            .state(app.window.now),
        SubscriptionState::Paused
    );
    key(&mut app, KeyCode::Char('p'));
    assert!(key(&mut app, KeyCode::Enter).is_empty(), "Enter does not resume");
    key(&mut app, KeyCode::Char('p'));
    let effects = key(&mut app, KeyCode::Char('y'));
    assert!(matches!(
        &effects[..],
        [Effect::Write {
            write: Write::Subscription(SubscriptionWrite::SetEnabled { enabled: true, .. }),
            ..
        }]
    ));
    written(
        &mut app,
        &effects[0],
        Err(refusal(
            400,
            "Subscription schedule has reached its end date. Extend until_date or remove count before re-enabling.",
            Some("enabled"),
        )),
    );
    let notice = app.notice.shown.clone().unwrap();
    assert!(
        notice
            .text
            .starts_with("cannot resume #1: Subscription schedule has reached its end date")
            && notice.text.contains("e edits it"),
        "{notice:?}"
    );
}

#[test]
fn refresh_runs_only_when_asked_for_and_keeps_the_cursor() {
    let mut quiet = app();
    assert!(
        !quiet.start().iter().any(|e| matches!(
            e,
            Effect::Timer {
                timer: Timer::Refresh(_),
                ..
            }
        )),
        "off by default: nothing wakes"
    );
    let context = Context {
        host: "test".into(),
        organization: "@current".into(),
        project: "1".into(),
        refresh: Some(30),
        ..Context::default()
    };
    let mut app = App::new(context, Keymap::default(), (120, 40));
    let effects = app.start();
    let (first, ticket) = {
        let first = effects
            .iter()
            .find(|e| matches!(e, Effect::Fetch { .. }))
            .cloned()
            .unwrap();
        let ticket = effects
            .iter()
            .find_map(|e| match e {
                Effect::Timer {
                    timer: Timer::Refresh(30),
                    ticket,
                } => Some(*ticket),
                _ => None,
            })
            .expect("the first refresh is set");
        (first, ticket)
    };
    answer(&mut app, &first, |offset| super::roles(8, offset));
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Char('j'));
    let effects = app.update(Msg::Timer {
        timer: Timer::Refresh(30),
        ticket,
    });
    assert_eq!(fetches(&effects), vec![(ScreenId::Roles, 0)]);
    assert!(effects.iter().any(|e| matches!(
        e,
        Effect::Timer {
            timer: Timer::Refresh(30),
            ..
        }
    )));
    let fetch = effects
        .iter()
        .find(|e| matches!(e, Effect::Fetch { .. }))
        .unwrap();
    answer(&mut app, fetch, |offset| super::roles(8, offset));
    assert_eq!(app.screens.roles.rows.cursor, 2, "the cursor stays on its row");
    assert!(screen(&app).contains("refreshed"), "{}", screen(&app));
}

#[test]
fn another_dashboard_takes_the_last_one_s_insights_away() {
    use crate::api::{Dashboard, DashboardTile, NamedItem, TileInsight};
    let mut app = app();
    app.start();
    let first = key(&mut app, KeyCode::Char('3')).pop().unwrap();
    answer(&mut app, &first, |offset| subscriptions(3, offset));
    let effects = key(&mut app, KeyCode::Char('n'));
    let Some(Effect::Ask(ScreenAsk::Subscriptions(SubscriptionsAsk::Catalog { ticket, .. }))) =
        effects.first().cloned()
    else {
        panic!("{effects:?}")
    };
    let dashboard = |id: i64| NamedItem {
        id,
        name: Some(format!("Dashboard {id}")),
        short_id: None,
        derived_name: None,
    };
    app.update(
        SubscriptionsMsg::Catalog {
            ticket,
            result: Ok((vec![dashboard(1), dashboard(2)], Vec::new())),
            slack: Some(Vec::new()),
        }
        .into(),
    );
    let tiles = |effects: &[Effect]| {
        effects.iter().find_map(|e| match e {
            Effect::Ask(ScreenAsk::Subscriptions(SubscriptionsAsk::Tiles {
                ticket, dashboard, ..
            })) => Some((*ticket, *dashboard)),
            _ => None,
        })
    };
    let (ticket, one) = tiles(&key(&mut app, KeyCode::Right)).expect("the first dashboard's tiles");
    assert_eq!(one, 1);
    let found = Dashboard {
        id: 1,
        name: None,
        tiles: vec![DashboardTile {
            id: 1,
            insight: Some(TileInsight {
                id: 7,
                ..TileInsight::default()
            }),
        }],
    };
    app.update(
        SubscriptionsMsg::Tiles {
            ticket,
            dashboard: 1,
            result: Ok(Some(found)),
        }
        .into(),
    );
    let has_insights =
        |app: &App| matches!(&app.mode, Mode::Form(form, _) if form.has("dashboard_export_insights"));
    assert!(has_insights(&app));
    let (_, two) = tiles(&key(&mut app, KeyCode::Right)).expect("the second's");
    assert_eq!(two, 2);
    assert!(!has_insights(&app), "never sent with another dashboard");
    // Back to the first before the second answered: asked again.
    assert!(tiles(&key(&mut app, KeyCode::Left)).is_some_and(|(_, id)| id == 1));
}
