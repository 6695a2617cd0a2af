//! Pure tests of `update`: messages in, state and effects out; no network,
//! no terminal.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::keymap::Keymap;
use super::shell::{App, Context, Effect, Mode, Msg, ScreenId, ScreenPage, ScreenRequest, Ticket, Timer};
use crate::api::{self, Page, Refusal, RequestLabel, Role, Subscription};

pub(super) fn app() -> App {
    let context = Context {
        host: "test".into(),
        organization: "@current".into(),
        project: "1".into(),
        ..Context::default()
    };
    App::new(context, Keymap::default(), (120, 40))
}

/// A key, as the user presses it. There is no server here: the rules a
/// preview of a change of access reads are answered as unreadable at once
/// (an older server), so the question or the write goes on as before
/// previews, with its note.
pub(super) fn key(app: &mut App, code: KeyCode) -> Vec<Effect> {
    let modifiers = match code {
        KeyCode::Char(c) if c.is_ascii_uppercase() => KeyModifiers::SHIFT,
        _ => KeyModifiers::NONE,
    };
    let effects = app.update(Msg::Key(KeyEvent::new(code, modifiers)));
    unread_previews(app, effects)
}

/// Answers each preview read among `effects` as unreadable; the effects
/// that follow take their place.
pub(super) fn unread_previews(app: &mut App, effects: Vec<Effect>) -> Vec<Effect> {
    use crate::console::screens::{ScreenAsk, ScreenMsg, preview};
    let mut out = Vec::new();
    for effect in effects {
        match effect {
            Effect::Ask(ScreenAsk::Preview(preview::Ask::Read { ticket, .. })) => {
                let msg = preview::Msg::Read {
                    ticket,
                    outcome: preview::Outcome::Unread("no server in unit tests".into()),
                };
                let more = app.update(Msg::Screen(ScreenMsg::Preview(msg)));
                out.extend(unread_previews(app, more));
            }
            other => out.push(other),
        }
    }
    out
}

pub(super) fn roles_page(count: u64, offset: u64) -> Page<Role> {
    let results = (offset..(offset + 100).min(count))
        .map(|n| Role {
            id: format!("role-{n}"),
            name: format!("Role {n}"),
            ..Role::default()
        })
        .collect();
    Page {
        count,
        next: None,
        previous: None,
        results,
    }
}

pub(super) fn roles(count: u64, offset: u64) -> ScreenPage {
    ScreenPage::new(roles_page(count, offset))
}

/// Roles as an older server sends them: each with an access level.
pub(super) fn roles_with_access(count: u64, offset: u64) -> ScreenPage {
    let results = (offset..(offset + 100).min(count))
        .map(|n| Role {
            id: format!("role-{n}"),
            name: format!("Role {n}"),
            feature_flags_access_level: Some(crate::api::models::access_level::EDIT),
            ..Role::default()
        })
        .collect();
    ScreenPage::new(Page {
        count,
        next: None,
        previous: None,
        results,
    })
}

pub(super) fn subscriptions_page(count: u64, offset: u64) -> Page<Subscription> {
    let results = (offset..(offset + 100).min(count))
        .map(|n| Subscription {
            id: n as i64 + 1,
            title: Some(format!("Report {n}")),
            ..Subscription::default()
        })
        .collect();
    Page {
        count,
        next: None,
        previous: None,
        results,
    }
}

pub(super) fn subscriptions(count: u64, offset: u64) -> ScreenPage {
    ScreenPage::new(subscriptions_page(count, offset))
}

/// Answers a fetch effect with a page made by `make`.
pub(super) fn answer(app: &mut App, effect: &Effect, make: impl Fn(u64) -> ScreenPage) -> Vec<Effect> {
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
        result: Ok(make(*offset)),
    })
}

pub(super) fn fetches(effects: &[Effect]) -> Vec<(ScreenId, u64)> {
    effects
        .iter()
        .filter_map(|effect| match effect {
            Effect::Fetch { list, offset, .. } => Some((*list, *offset)),
            _ => None,
        })
        .collect()
}

#[test]
fn starting_asks_for_names_and_the_first_page() {
    let mut app = app();
    let effects = app.start();
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::LoadNames { connection, .. } if *connection == Ticket::default()))
    );
    assert_eq!(fetches(&effects), vec![(ScreenId::Roles, 0)]);
    assert_eq!(
        app.requests.in_flight, 3,
        "the names, the scopes and the first page"
    );
    assert!(effects.contains(&Effect::LoadScopes {
        connection: Ticket::default()
    }));
}

#[test]
fn pages_arrive_and_the_cursor_moves() {
    let mut app = app();
    let first = app.start().pop().unwrap();
    answer(&mut app, &first, |offset| roles(8, offset));
    assert_eq!(app.screens.roles.rows.list.len(), 8);
    assert_eq!(
        app.requests.in_flight, 2,
        "the names and the scopes are still on their way"
    );
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Down);
    assert_eq!(app.screens.roles.rows.selected().unwrap().name, "Role 2");
    key(&mut app, KeyCode::Char('G'));
    assert_eq!(app.screens.roles.rows.cursor, 7);
    key(&mut app, KeyCode::Char('j'));
    assert_eq!(
        app.screens.roles.rows.cursor, 7,
        "the cursor stops at the last row"
    );
}

#[test]
fn jumping_to_the_end_fetches_the_last_page_only() {
    let mut app = app();
    app.start();
    let effects = key(&mut app, KeyCode::Char('3'));
    assert_eq!(fetches(&effects), vec![(ScreenId::Subscriptions, 0)]);
    answer(&mut app, &effects[0], |offset| subscriptions(100_000, offset));
    let effects = key(&mut app, KeyCode::Char('G'));
    assert_eq!(fetches(&effects), vec![(ScreenId::Subscriptions, 99_900)]);
    answer(&mut app, &effects[0], |offset| subscriptions(100_000, offset));
    assert_eq!(app.screens.subscriptions.rows.cursor, 99_999);
    assert_eq!(app.screens.subscriptions.rows.selected().unwrap().id, 100_000);
    assert!(
        app.screens.subscriptions.rows.list.held() <= 1_100,
        "pages far from the cursor are dropped"
    );
}

#[test]
fn a_late_answer_for_a_list_left_behind_is_dropped() {
    let mut app = app();
    app.start();
    let old = key(&mut app, KeyCode::Char('3')).pop().unwrap();
    // Showing deleted ones starts a new generation of the list.
    let new = key(&mut app, KeyCode::Char('D')).pop().unwrap();
    let Effect::Fetch {
        request: ScreenRequest::Subscriptions(crate::console::screens::subscriptions::Request { filter, .. }),
        ..
    } = &new
    else {
        panic!()
    };
    assert!(filter.deleted);
    answer(&mut app, &old, |offset| subscriptions(500, offset));
    assert_eq!(
        app.screens.subscriptions.rows.list.count(),
        None,
        "the old answer was dropped"
    );
    answer(&mut app, &new, |offset| subscriptions(12, offset));
    assert_eq!(app.screens.subscriptions.rows.list.count(), Some(12));
    assert_eq!(
        app.requests.in_flight, 3,
        "only the names, the scopes and the first page of roles are still out"
    );
}

#[test]
fn typing_a_filter_searches_the_server_once_typing_pauses() {
    let mut app = app();
    app.start();
    let first = key(&mut app, KeyCode::Char('3')).pop().unwrap();
    answer(&mut app, &first, |offset| subscriptions(300, offset));
    key(&mut app, KeyCode::Char('/'));
    assert!(matches!(app.mode, Mode::Filter(_)));
    let mut debounces = Vec::new();
    for c in "Report 1".chars() {
        debounces.extend(key(&mut app, KeyCode::Char(c)).into_iter().filter(|e| {
            matches!(
                e,
                Effect::Timer {
                    timer: Timer::Search,
                    ..
                }
            )
        }));
    }
    // At once, over the rows loaded: Report 1, 10-19, 100-199 of the 100 loaded.
    assert_eq!(app.screens.subscriptions.rows.len(), 11);
    // Only the last pause counts.
    let Some(Effect::Timer { ticket: first, .. }) = debounces.first().cloned() else {
        panic!()
    };
    let stale = app.update(Msg::Timer {
        timer: Timer::Search,
        ticket: first,
    });
    assert!(stale.is_empty());
    let Some(Effect::Timer { ticket, .. }) = debounces.last().cloned() else {
        panic!()
    };
    let search = app.update(Msg::Timer {
        timer: Timer::Search,
        ticket,
    });
    let Some(Effect::Fetch {
        request: ScreenRequest::Subscriptions(crate::console::screens::subscriptions::Request { filter, .. }),
        ..
    }) = search.first()
    else {
        panic!("{search:?}")
    };
    assert_eq!(filter.search.as_deref(), Some("Report 1"));
    // Esc clears the filter and the server search.
    key(&mut app, KeyCode::Esc);
    assert!(matches!(app.mode, Mode::Normal));
    assert_eq!(app.screens.subscriptions.filter, "");
}

#[test]
fn a_role_opens_its_members_and_back_returns_where_it_was_opened() {
    let mut app = app();
    let first = app.start().pop().unwrap();
    answer(&mut app, &first, |offset| roles(3, offset));
    key(&mut app, KeyCode::Char('j'));
    let effects = key(&mut app, KeyCode::Enter);
    assert_eq!(app.navigation.tab, ScreenId::Members);
    assert_eq!(app.screens.members.resource.role.as_ref().unwrap().name, "Role 1");
    let Some(Effect::Fetch {
        request: ScreenRequest::Members(crate::console::screens::members::Request { role, .. }),
        ..
    }) = effects.first()
    else {
        panic!()
    };
    assert_eq!(role, "role-1");
    key(&mut app, KeyCode::Char('q'));
    assert!(
        app.screens.members.resource.role.is_none() && !app.window.quit,
        "q leaves the role first"
    );
    assert_eq!(app.shown(), ScreenId::Roles);
    assert_eq!(
        app.navigation.tab,
        ScreenId::Roles,
        "back on Roles, where Enter was pressed"
    );
    // Opened from the Members tab's choice of a role, back goes to that choice.
    key(&mut app, KeyCode::Char('2'));
    key(&mut app, KeyCode::Enter);
    assert!(app.screens.members.resource.role.is_some());
    key(&mut app, KeyCode::Char('q'));
    assert_eq!(
        (app.navigation.tab, app.shown()),
        (ScreenId::Members, ScreenId::Roles)
    );
    key(&mut app, KeyCode::Char('1'));
    key(&mut app, KeyCode::Char('q'));
    assert!(app.window.quit);
}

/// The 403 of a key without `scope`.
pub(super) fn missing_scope(scope: &str) -> api::Error {
    api::Error::Api(Box::new(Refusal {
        request: RequestLabel {
            method: "GET".into(),
            path: "/api/organizations/@current/roles/".into(),
        },
        status: 403,
        kind: "authentication_error".into(),
        code: "permission_denied".into(),
        detail: format!("API key missing required scope '{scope}'"),
        attr: None,
    }))
}

#[test]
fn errors_show_and_never_block_the_keys() {
    let mut app = app();
    let first = app.start().pop().unwrap();
    let Effect::Fetch { generation, .. } = first else {
        panic!()
    };
    app.update(Msg::Page {
        list: ScreenId::Roles,
        generation,
        offset: 0,
        result: Err(missing_scope("organization:read")),
    });
    let notice = app.notice.shown.clone().unwrap();
    assert!(
        notice.error && notice.text.contains("'organization:read' scope"),
        "{notice:?}"
    );
    // Keys still work; Esc dismisses.
    key(&mut app, KeyCode::Char('3'));
    assert_eq!(app.navigation.tab, ScreenId::Subscriptions);
    key(&mut app, KeyCode::Esc);
    assert!(app.notice.shown.is_none());
    // Moving back asks for the roles again.
    let effects = key(&mut app, KeyCode::Char('1'));
    assert_eq!(fetches(&effects), vec![(ScreenId::Roles, 0)]);
}

#[test]
fn refresh_keeps_the_cursor_on_the_same_row() {
    let mut app = app();
    let first = app.start().pop().unwrap();
    answer(&mut app, &first, |offset| roles(5, offset));
    key(&mut app, KeyCode::Char('G'));
    assert_eq!(app.screens.roles.rows.selected().unwrap().id, "role-4");
    let effects = key(&mut app, KeyCode::Char('r'));
    // A role was added before it: the same row is now one further down.
    answer(&mut app, &effects[0], |_| {
        let mut page = roles_page(6, 0);
        page.results.rotate_right(1);
        ScreenPage::new(page)
    });
    assert_eq!(app.screens.roles.rows.selected().unwrap().id, "role-4");
}

#[test]
fn help_and_the_command_line() {
    let mut app = app();
    app.start();
    key(&mut app, KeyCode::Char('?'));
    assert!(matches!(app.mode, Mode::Help));
    key(&mut app, KeyCode::Char('x'));
    assert!(matches!(app.mode, Mode::Normal));
    key(&mut app, KeyCode::Char(':'));
    for c in "subsc".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Tab);
    let Mode::Command(input) = &app.mode else { panic!() };
    assert_eq!(input.value(), "subscriptions ");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.navigation.tab, ScreenId::Subscriptions);
    key(&mut app, KeyCode::Char(':'));
    for c in "project 2".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    let effects = key(&mut app, KeyCode::Enter);
    assert_eq!(app.context.project, "2");
    assert!(effects.iter().any(
        |e| matches!(e, Effect::Fetch { request: ScreenRequest::Subscriptions(crate::console::screens::subscriptions::Request { project, .. }), .. } if project == "2")
    ));
    key(&mut app, KeyCode::Char(':'));
    key(&mut app, KeyCode::Char('x'));
    key(&mut app, KeyCode::Enter);
    assert!(
        app.notice
            .shown
            .as_ref()
            .is_some_and(|n| n.text.contains("not a command"))
    );
}

#[test]
fn ctrl_c_quits_from_anywhere() {
    let mut app = app();
    key(&mut app, KeyCode::Char('/'));
    app.update(Msg::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)));
    assert!(app.window.quit);
}

#[test]
fn idle_messages_do_not_redraw() {
    let mut app = app();
    app.start();
    app.window.dirty = false;
    app.update(Msg::Tick);
    key(&mut app, KeyCode::F(9));
    app.requests.in_flight = 0;
    app.update(Msg::Tick);
    assert!(
        !app.window.dirty,
        "an unbound key or an idle tick changes nothing"
    );
}

#[test]
fn copying_hands_the_text_to_the_terminal() {
    let mut app = app();
    let first = app.start().pop().unwrap();
    answer(&mut app, &first, |offset| roles(2, offset));
    assert_eq!(
        key(&mut app, KeyCode::Char('y')).first(),
        Some(&Effect::Copy("role-0".into()))
    );
    let json = key(&mut app, KeyCode::Char('Y'));
    assert!(matches!(&json[0], Effect::Copy(text) if text.contains("\"name\": \"Role 0\"")));
}

#[test]
fn writes_the_key_cannot_make_say_why() {
    let mut app = app();
    let first = app.start().pop().unwrap();
    answer(&mut app, &first, |offset| roles(2, offset));
    app.update(Msg::Scopes {
        connection: Ticket::default(),
        scopes: Some(vec!["organization:read".into(), "subscription:write".into()]),
    });
    let effects = key(&mut app, KeyCode::Char('n'));
    assert!(effects.is_empty() && matches!(app.mode, Mode::Normal));
    let notice = app.notice.shown.clone().unwrap();
    assert!(
        notice.text.contains("lacks the 'organization:write' scope"),
        "{notice:?}"
    );

    let mut read_only = App::new(
        Context {
            read_only: true,
            ..Context::default()
        },
        Keymap::default(),
        (120, 40),
    );
    let first = read_only.start().pop().unwrap();
    answer(&mut read_only, &first, |offset| roles(2, offset));
    key(&mut read_only, KeyCode::Char('d'));
    assert!(read_only.notice.text().contains("--read-only"));
    assert!(
        matches!(read_only.mode, Mode::Normal),
        "no confirmation: nothing can be deleted"
    );
}

pub(super) fn command(app: &mut App, line: &str) -> Vec<Effect> {
    key(app, KeyCode::Char(':'));
    for c in line.chars() {
        key(app, KeyCode::Char(c));
    }
    key(app, KeyCode::Enter)
}

/// The app drawn at its size, as text.
pub(super) fn screen(app: &App) -> String {
    let (width, height) = app.window.size;
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(width, height)).unwrap();
    let theme = super::kit::theme::Theme::plain();
    terminal
        .draw(|frame| super::shell::draw::draw(frame, app, &theme))
        .unwrap();
    let buffer = terminal.backend().buffer();
    (0..height)
        .map(|y| {
            let line: String = (0..width).map(|x| buffer[(x, y)].symbol().to_string()).collect();
            line.trim_end().to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A try the client reports for a request of the list shown.
pub(super) fn exchange(effect: &Effect, status: u16, retry_in: Option<u64>) -> Msg {
    let Effect::Fetch { list, generation, .. } = effect else {
        panic!("not a fetch: {effect:?}")
    };
    Msg::Exchange {
        about: crate::console::shell::About::Page {
            list: *list,
            generation: *generation,
        },
        exchange: api::Exchange {
            request: RequestLabel {
                method: "GET".into(),
                path: "/api/organizations/@current/roles/".into(),
            },
            status: Some(status),
            elapsed: std::time::Duration::from_millis(3),
            retry_in: retry_in.map(std::time::Duration::from_secs),
        },
    }
}

mod connection;
mod contexts;
mod coverage;
mod deliveries;
mod forms;
mod further;
mod health;
mod health_acts;
mod marks;
mod news;
mod on_call;
mod people;
mod screens;
mod today;
