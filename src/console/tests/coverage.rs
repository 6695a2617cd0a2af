//! What Health says of how far a look came: never ✓ before a complete
//! look, the percent known in the tab bar and the heading, a look started
//! again by itself when the server answers after going away; and the
//! state filters of Subscriptions answered from the list a look read.

use chrono::Duration;
use ratatui::crossterm::event::KeyCode;

use super::on_call::with_states;
use super::{answer, app, command, key, screen};
use crate::api::health::Health;
use crate::api::{self, RequestLabel, Subscription, SubscriptionState, TransportKind};
use crate::console::screens::ScreenAsk;
use crate::console::screens::health::Ask as HealthAsk;
use crate::console::screens::health::Msg as HealthMsg;
use crate::console::screens::list::List as _;
use crate::console::shell::{About, App, Effect, LookFailure, LookNews, Msg, ScreenId, Ticket, Timer};
use crate::health::list::States;
use crate::health::{Coverage, HealthRow, LookSummary};

fn row(id: i64, health: Health, pending: bool) -> HealthRow {
    HealthRow {
        id,
        title: format!("Report {id}"),
        target: "email a@example.com".into(),
        health,
        since: None,
        streak: 0,
        last_delivery: None,
        failed_recipients: Vec::new(),
        next_delivery_date: None,
        fix: None,
        newly: false,
        pending,
    }
}

fn coverage(total: u64, known: u64) -> Coverage {
    Coverage {
        total,
        known,
        left: total - known,
        requests: 3,
        ..Coverage::default()
    }
}

/// `H` (or `r` on Health): the look's ticket.
fn start(app: &mut App, key_code: KeyCode) -> Ticket {
    key(app, key_code)
        .iter()
        .find_map(|effect| match effect {
            Effect::Ask(ScreenAsk::Health(HealthAsk::Look { ticket, .. })) => Some(*ticket),
            _ => None,
        })
        .expect("a look starts")
}

fn news(app: &mut App, ticket: Ticket, news: LookNews) {
    app.update(HealthMsg::LookNews { ticket, news }.into());
}

/// Five subscriptions, `known` of them known (the rest pending), those
/// known ok but `failing` of them.
fn look(app: &mut App, ticket: Ticket, known: u64, failing: u64) {
    news(app, ticket, LookNews::Listed(coverage(5, known)));
    let rows = (1..=5)
        .map(|id| match id as u64 {
            id if id > known => row(id as i64, Health::Unknown, true),
            id if id <= failing => row(id as i64, Health::Failing, false),
            id => row(id as i64, Health::Ok, false),
        })
        .collect();
    news(app, ticket, LookNews::Rows(rows));
}

fn end(app: &mut App, ticket: Ticket, summary: LookSummary) -> Vec<Effect> {
    app.update(
        HealthMsg::Looked {
            ticket,
            result: Ok(summary),
        }
        .into(),
    )
}

fn tabs(app: &App) -> String {
    screen(app).lines().nth(1).unwrap_or_default().to_string()
}

#[test]
fn a_look_that_did_not_reach_every_subscription_never_shows_the_tick() {
    let mut app = app();
    // Stopped after 3 of 5, nothing failing among them: no ✓, the percent.
    let ticket = start(&mut app, KeyCode::Char('H'));
    look(&mut app, ticket, 3, 0);
    assert!(tabs(&app).contains("H Health 0 failing · 60 %"), "{}", tabs(&app));
    end(
        &mut app,
        ticket,
        LookSummary {
            coverage: coverage(5, 3),
            stopped: true,
            ..LookSummary::default()
        },
    );
    let shown = screen(&app);
    assert!(!shown.contains('✓'), "{shown}");
    assert!(tabs(&app).contains("H Health 0 failing · 60 %"), "{}", tabs(&app));
    assert!(
        app.screens
            .health
            .heading()
            .ends_with("looked at 3 of 5 · 2 not yet"),
        "{}",
        app.screens.health.heading()
    );
    assert!(shown.contains("stopped before the end: r goes on"), "{shown}");

    // Capped with one failing: the count and the percent.
    let ticket = start(&mut app, KeyCode::Char('r'));
    look(&mut app, ticket, 4, 1);
    end(
        &mut app,
        ticket,
        LookSummary {
            coverage: coverage(5, 4),
            capped: true,
            ..LookSummary::default()
        },
    );
    assert!(tabs(&app).contains("H Health 1 failing · 80 %"), "{}", tabs(&app));

    // Failed before it could list: nothing known, never ✓.
    let ticket = start(&mut app, KeyCode::Char('r'));
    app.update(
        HealthMsg::Looked {
            ticket,
            result: Err(LookFailure {
                message: "403 permission_denied".into(),
                unreachable: None,
            }),
        }
        .into(),
    );
    let shown = screen(&app);
    assert!(
        !shown.contains('✓') && tabs(&app).contains("look failed"),
        "{shown}"
    );
    assert!(shown.contains("the look failed"), "{shown}");

    // Complete, nothing failing: ✓ at last.
    let ticket = start(&mut app, KeyCode::Char('r'));
    look(&mut app, ticket, 5, 0);
    end(
        &mut app,
        ticket,
        LookSummary {
            coverage: coverage(5, 5),
            read: 5,
            ..LookSummary::default()
        },
    );
    assert!(tabs(&app).contains("H Health ✓"), "{}", tabs(&app));
    assert_eq!(app.screens.health.heading(), "Health · 5 ok");
}

fn refused() -> api::Error {
    api::Error::Transport {
        request: RequestLabel {
            method: "GET".into(),
            path: "/api/projects/1/subscriptions/".into(),
        },
        server: "http://127.0.0.1:9".into(),
        kind: TransportKind::Connect,
        message: "Connection refused (os error 111)".into(),
        timeout: None,
    }
}

/// The server is tried again (the reconnect timer runs out), and answers.
fn comes_back(app: &mut App, effects: &[Effect]) -> Vec<Effect> {
    let (seconds, ticket) = effects
        .iter()
        .find_map(|effect| match effect {
            Effect::Timer {
                timer: Timer::Reconnect(seconds),
                ticket,
            } => Some((*seconds, *ticket)),
            _ => None,
        })
        .expect("the server is tried again");
    let tried = app.update(Msg::Timer {
        timer: Timer::Reconnect(seconds),
        ticket,
    });
    let probe = tried
        .iter()
        .find(|effect| matches!(effect, Effect::Fetch { .. }))
        .expect("a request tries the server");
    answer(app, probe, |offset| super::roles(3, offset))
}

#[test]
fn when_the_server_answers_again_a_look_it_cut_short_starts_again() {
    let mut app = app();
    let ticket = start(&mut app, KeyCode::Char('H'));
    // The look's request shows in the footer while Health is shown.
    app.update(Msg::Exchange {
        about: About::Look(ticket),
        exchange: api::Exchange {
            request: RequestLabel {
                method: "GET".into(),
                path: "/api/projects/1/subscriptions/7/deliveries/".into(),
            },
            status: Some(200),
            elapsed: std::time::Duration::from_millis(40),
            retry_in: None,
        },
    });
    assert!(screen(&app).contains("/subscriptions/7/deliveries/"));
    // The server goes away before the list is read.
    let effects = app.update(
        HealthMsg::Looked {
            ticket,
            result: Err(LookFailure {
                message: "cannot reach http://127.0.0.1:9".into(),
                unreachable: refused().unreachable(),
            }),
        }
        .into(),
    );
    assert!(app.connection.offline.is_some(), "offline, tried again");
    assert!(tabs(&app).contains("look failed"));
    let back = comes_back(&mut app, &effects);
    assert!(app.connection.offline.is_none());
    assert!(
        back.iter()
            .any(|effect| matches!(effect, Effect::Ask(ScreenAsk::Health(HealthAsk::Look { .. })))),
        "the look starts again by itself: {back:?}"
    );
    assert!(app.screens.health.is_looking());

    // The server goes away during the reads: the same.
    let ticket = match back
        .iter()
        .find(|effect| matches!(effect, Effect::Ask(ScreenAsk::Health(HealthAsk::Look { .. }))))
    {
        Some(Effect::Ask(ScreenAsk::Health(HealthAsk::Look { ticket, .. }))) => *ticket,
        _ => unreachable!("found above"),
    };
    look(&mut app, ticket, 4, 0);
    let effects = end(
        &mut app,
        ticket,
        LookSummary {
            coverage: coverage(5, 4),
            cut: Some(refused()),
            ..LookSummary::default()
        },
    );
    assert!(app.connection.offline.is_some());
    assert!(
        screen(&app).contains("the server stopped answering"),
        "{}",
        screen(&app)
    );
    let back = comes_back(&mut app, &effects);
    assert!(
        back.iter()
            .any(|effect| matches!(effect, Effect::Ask(ScreenAsk::Health(HealthAsk::Look { .. }))))
    );
    // Once is enough: the next answer starts nothing more.
    assert!(app.screens.health.is_looking());
}

fn subscription(id: i64, enabled: bool, next: Option<chrono::DateTime<chrono::Utc>>) -> Subscription {
    Subscription {
        id,
        title: Some(format!("Report {id}")),
        enabled: Some(enabled),
        next_delivery_date: next,
        ..Subscription::default()
    }
}

#[test]
fn one_press_of_a_state_key_answers_from_the_list_a_look_read() {
    let mut app = app();
    let now = app.window.now;
    app.start();
    let first = key(&mut app, KeyCode::Char('3')).pop().unwrap();
    answer(&mut app, &first, |offset| with_states(100_000, offset, now));
    // Nothing known yet: the list is read whole, once.
    let effects = command(&mut app, "state paused");
    let ticket = effects
        .iter()
        .find_map(|effect| match effect {
            Effect::Ask(ScreenAsk::Health(HealthAsk::Look {
                ticket,
                max_requests: Some(0),
                ..
            })) => Some(*ticket),
            _ => None,
        })
        .unwrap_or_else(|| panic!("the list is read for the states: {effects:?}"));
    let mut states = States {
        at: Some(now - Duration::minutes(3)),
        total: 100_000,
        ..States::default()
    };
    states.counts.insert(SubscriptionState::Active, 99_996);
    states.counts.insert(SubscriptionState::Paused, 3);
    states.counts.insert(SubscriptionState::Ended, 1);
    states.rows.insert(
        SubscriptionState::Paused,
        (1..=3).map(|id| subscription(id, false, Some(now))).collect(),
    );
    states
        .rows
        .insert(SubscriptionState::Ended, vec![subscription(9, true, None)]);
    news(&mut app, ticket, LookNews::States(Box::new(states)));
    let table = &app.screens.subscriptions;
    assert!(table.resource.held);
    assert_eq!(table.rows.len(), 3, "every paused one, at once");
    let shown = screen(&app);
    assert!(shown.contains("1/3"), "{shown}");
    assert!(
        app.notice.shown.as_ref().is_some_and(|notice| notice
            .text
            .contains("3 paused of 100,000, as the list read 3m ago said")),
        "{:?}",
        app.notice.shown
    );
    // The next state: one press, no request.
    let effects = key(&mut app, KeyCode::Char('f'));
    assert_eq!(
        app.screens.subscriptions.resource.state,
        Some(SubscriptionState::Ended)
    );
    assert!(
        !effects.iter().any(|effect| effect.is_request()),
        "answered from what is known: {effects:?}"
    );
    assert_eq!(app.screens.subscriptions.rows.len(), 1);
    assert!(app.notice.text().contains("1 ended of 100,000"));
    // `L` has nothing further to look for.
    key(&mut app, KeyCode::Char('L'));
    assert!(app.notice.text().contains("every one is shown already"));
    // Every state again: the list is fetched by page as before.
    let effects = command(&mut app, "state");
    assert!(!app.screens.subscriptions.resource.held);
    assert!(effects.iter().any(|effect| matches!(
        effect,
        Effect::Fetch {
            list: ScreenId::Subscriptions,
            ..
        }
    )));
}
