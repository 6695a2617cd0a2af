//! The connection and keys typed during loads, driven by messages alone: a
//! server not reached, tried again with a backoff and back; keys held for
//! rows on their way, bounded, and dropped (said so) when the load fails;
//! a refresh that keeps the rows and the cursor's row.

use ratatui::crossterm::event::KeyCode;

use super::{answer, app, fetches, key, roles, roles_page, screen, subscriptions};
use crate::api::{self, Page, RequestLabel, Role, TransportKind};
use crate::console::keymap::Keymap;
use crate::console::shell::{
    App, Context, Effect, HELD_KEYS, Msg, ScreenId, ScreenPage, Ticket, Timer, WriteAnswer,
};

fn refused() -> api::Error {
    api::Error::Transport {
        request: RequestLabel {
            method: "GET".into(),
            path: "/api/organizations/@current/roles/".into(),
        },
        server: "http://127.0.0.1:9".into(),
        kind: TransportKind::Connect,
        message: "Connection refused (os error 111)".into(),
        timeout: None,
    }
}

/// Fails a fetch effect with `error`.
fn fail(app: &mut App, effect: &Effect, error: api::Error) -> Vec<Effect> {
    let Effect::Fetch {
        list,
        generation,
        offset,
        ..
    } = effect
    else {
        panic!("not a fetch: {effect:?}")
    };
    app.update(Msg::Page {
        list: *list,
        generation: *generation,
        offset: *offset,
        result: Err(error),
    })
}

fn first_fetch(effects: &[Effect]) -> Effect {
    effects
        .iter()
        .find(|effect| matches!(effect, Effect::Fetch { .. }))
        .cloned()
        .unwrap_or_else(|| panic!("no fetch in {effects:?}"))
}

/// The reconnect timer among the effects: its wait and its ticket.
fn retry_timer(effects: &[Effect]) -> Option<(u32, Ticket)> {
    effects.iter().find_map(|effect| match effect {
        Effect::Timer {
            timer: Timer::Reconnect(seconds),
            ticket,
        } => Some((*seconds, *ticket)),
        _ => None,
    })
}

#[test]
fn keys_typed_before_the_first_page_are_applied_in_order_once_it_comes() {
    let mut app = app();
    app.start();
    let first = key(&mut app, KeyCode::Char('3')).pop().unwrap();
    for code in [KeyCode::Char('j'), KeyCode::Char('j'), KeyCode::Enter] {
        assert!(key(&mut app, code).is_empty(), "held: nothing to do yet");
    }
    assert_eq!(app.held_keys(), 3);
    assert!(screen(&app).contains("3 keys typed, waiting for the rows"));
    let effects = answer(&mut app, &first, |offset| subscriptions(12, offset));
    assert_eq!(app.held_keys(), 0);
    assert_eq!(app.shown(), ScreenId::Deliveries);
    assert_eq!(app.screens.deliveries.subscription(), Some(3), "row 3, id 3");
    assert_eq!(fetches(&effects), vec![(ScreenId::Deliveries, 0)]);
}

#[test]
fn enter_on_a_row_whose_page_is_on_its_way_waits_for_it() {
    let mut app = app();
    app.start();
    let first = key(&mut app, KeyCode::Char('3')).pop().unwrap();
    answer(&mut app, &first, |offset| subscriptions(1_000, offset));
    let last = first_fetch(&key(&mut app, KeyCode::Char('G')));
    assert!(key(&mut app, KeyCode::Enter).is_empty());
    assert_eq!(app.held_keys(), 1);
    answer(&mut app, &last, |offset| subscriptions(1_000, offset));
    assert_eq!(app.screens.deliveries.subscription(), Some(1_000));
}

#[test]
fn held_keys_are_bounded_and_a_failed_load_drops_them_saying_so() {
    let mut app = app();
    app.start();
    let first = key(&mut app, KeyCode::Char('3')).pop().unwrap();
    for _ in 0..HELD_KEYS + 6 {
        key(&mut app, KeyCode::Char('j'));
    }
    assert_eq!(app.held_keys(), HELD_KEYS);
    let notice = app.notice.shown.clone().unwrap().text;
    assert!(notice.contains("this one was dropped"), "{notice}");
    fail(&mut app, &first, refused());
    assert_eq!(app.held_keys(), 0);
    let notice = app.notice.shown.clone().unwrap().text;
    assert!(
        notice.contains("cannot reach http://127.0.0.1:9: connection refused")
            && notice.contains(&format!("dropped: {HELD_KEYS} keys typed while the list loaded")),
        "{notice}"
    );
}

#[test]
fn back_is_never_held_and_drops_what_waits() {
    let mut app = app();
    let first = app.start().pop().unwrap();
    answer(&mut app, &first, |offset| roles(8, offset));
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.shown(), ScreenId::Members);
    key(&mut app, KeyCode::Char('j'));
    assert_eq!(app.held_keys(), 1);
    key(&mut app, KeyCode::Char('q'));
    assert_eq!((app.held_keys(), app.shown()), (0, ScreenId::Roles));
    assert!(!app.window.quit);
}

#[test]
fn a_server_not_reached_is_tried_again_later_and_later_and_r_tries_now() {
    let mut app = app();
    let first = app.start().pop().unwrap();
    let effects = fail(&mut app, &first, refused());
    let (wait, ticket) = retry_timer(&effects).expect("a try is set");
    assert_eq!(wait, 1);
    assert!(
        app.notice.shown.is_none(),
        "the footer says it, no box over the table"
    );
    let shown = screen(&app);
    assert!(
        shown.contains(
            "cannot reach http://127.0.0.1:9: connection refused · retrying in 1 s · r retries now"
        ),
        "{shown}"
    );
    // Each try that fails waits twice as long, up to half a minute.
    let mut ticket = ticket;
    for expected in [2, 4, 8, 16, 30, 30] {
        let effects = app.update(Msg::Timer {
            timer: Timer::Reconnect(wait),
            ticket,
        });
        assert_eq!(fetches(&effects), vec![(ScreenId::Roles, 0)]);
        assert!(
            retry_timer(&effects).is_none(),
            "no timer while a try is on its way"
        );
        let effects = fail(&mut app, &first_fetch(&effects), refused());
        let (next, next_ticket) = retry_timer(&effects).expect("the next try is set");
        assert_eq!(next, expected);
        ticket = next_ticket;
    }
    // `r`: now, and the timer's try is void.
    let effects = key(&mut app, KeyCode::Char('r'));
    let fetch = first_fetch(&effects);
    assert!(
        app.update(Msg::Timer {
            timer: Timer::Reconnect(30),
            ticket,
        })
        .is_empty()
    );
    let effects = answer(&mut app, &fetch, |offset| roles(8, offset));
    assert!(app.connection.offline.is_none());
    assert_eq!(
        app.notice.shown.clone().unwrap().text,
        "reconnected to http://127.0.0.1:9"
    );
    assert!(
        effects
            .iter()
            .any(|effect| matches!(effect, Effect::LoadNames { .. })),
        "the header's names, never read, are read now"
    );
    assert_eq!(app.screens.roles.rows.list.count(), Some(8));
}

#[test]
fn rows_stay_stale_while_the_server_is_away_and_are_read_again_when_it_is_back() {
    let mut app = app();
    let first = app.start().pop().unwrap();
    answer(&mut app, &first, |offset| roles(8, offset));
    key(&mut app, KeyCode::Char('j'));
    let refresh = first_fetch(&key(&mut app, KeyCode::Char('r')));
    fail(&mut app, &refresh, refused());
    let shown = screen(&app);
    assert!(
        shown.contains("Role 7") && shown.contains("stale since"),
        "{shown}"
    );
    assert_eq!(app.screens.roles.rows.selected().unwrap().id, "role-1");
    // Enter on a stale row still opens it.
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.shown(), ScreenId::Members);
    key(&mut app, KeyCode::Char('q'));
    // A page that arrives (here, an older request's) says the server is
    // back: what is on screen is read again.
    let effects = answer(&mut app, &refresh, |offset| roles(8, offset));
    assert!(app.connection.offline.is_none());
    assert_eq!(fetches(&effects), vec![(ScreenId::Roles, 0)]);
    assert!(!screen(&app).contains("stale since"));
}

#[test]
fn refresh_waits_while_the_server_is_away() {
    let context = Context {
        host: "test".into(),
        organization: "@current".into(),
        project: "1".into(),
        refresh: Some(2),
        ..Context::default()
    };
    let mut app = App::new(context, Keymap::default(), (120, 40));
    let effects = app.start();
    let ticket = effects
        .iter()
        .find_map(|effect| match effect {
            Effect::Timer {
                timer: Timer::Refresh(2),
                ticket,
            } => Some(*ticket),
            _ => None,
        })
        .unwrap();
    fail(&mut app, &first_fetch(&effects), refused());
    let effects = app.update(Msg::Timer {
        timer: Timer::Refresh(2),
        ticket,
    });
    assert!(fetches(&effects).is_empty(), "the tries of the server read it");
    assert!(effects.iter().any(|effect| matches!(
        effect,
        Effect::Timer {
            timer: Timer::Refresh(2),
            ..
        }
    )));
}

#[test]
fn a_refresh_follows_the_row_the_cursor_is_on_when_it_arrives() {
    let mut app = app();
    let first = app.start().pop().unwrap();
    answer(&mut app, &first, |offset| roles(8, offset));
    key(&mut app, KeyCode::Char('j'));
    let refresh = first_fetch(&key(&mut app, KeyCode::Char('r')));
    // Moved while the refresh is on its way, over the rows still shown.
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Char('j'));
    assert_eq!(app.screens.roles.rows.selected().unwrap().id, "role-3");
    // The same rows in another order.
    answer(&mut app, &refresh, |_| {
        let mut page: Page<Role> = roles_page(8, 0);
        page.results.reverse();
        ScreenPage::new(page)
    });
    assert_eq!(app.screens.roles.rows.selected().unwrap().id, "role-3");
    assert_eq!(app.screens.roles.rows.cursor, 4);
}

#[test]
fn enter_on_a_row_never_loaded_says_why() {
    let mut app = app();
    app.start();
    let first = key(&mut app, KeyCode::Char('3')).pop().unwrap();
    fail(&mut app, &first, refused());
    key(&mut app, KeyCode::Enter);
    let notice = app.notice.shown.clone().unwrap().text;
    assert!(
        notice.starts_with("not loaded: cannot reach http://127.0.0.1:9: connection refused"),
        "{notice}"
    );
    // An empty list answers in its own words.
    let mut app = super::app();
    app.start();
    let first = key(&mut app, KeyCode::Char('3')).pop().unwrap();
    answer(&mut app, &first, |offset| subscriptions(0, offset));
    key(&mut app, KeyCode::Enter);
    let notice = app.notice.shown.clone().unwrap().text;
    assert_eq!(notice, "no subscription under the cursor: the list is empty");
}

#[test]
fn a_write_that_finds_no_server_takes_the_console_offline_too() {
    let mut app = app();
    let first = app.start().pop().unwrap();
    answer(&mut app, &first, |offset| roles(8, offset));
    key(&mut app, KeyCode::Char('d'));
    let effects = key(&mut app, KeyCode::Char('y'));
    let Some(Effect::Write { ticket, write }) = effects
        .into_iter()
        .find(|effect| matches!(effect, Effect::Write { .. }))
    else {
        panic!("the delete is sent")
    };
    let effects = app.update(Msg::Written(Box::new(WriteAnswer {
        ticket,
        write,
        result: Err(refused()),
    })));
    assert_eq!(retry_timer(&effects).map(|(wait, _)| wait), Some(1));
    assert!(
        screen(&app).contains("cannot reach http://127.0.0.1:9: connection refused"),
        "{}",
        screen(&app)
    );
}
