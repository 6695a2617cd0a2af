//! What the user sees and answers, in `update`: confirmations, back
//! navigation, the picker, notices, the footer's record of requests, help
//! and detail scrolling (issue #12).

use crate::console::screens;
use ratatui::crossterm::event::KeyCode;

use super::*;
use crate::console::screens::ScreenAsk;
use crate::console::screens::members::Ask as MembersAsk;

#[test]
fn enter_on_a_delete_question_keeps_the_role() {
    let mut app = app();
    let first = app.start().pop().unwrap();
    answer(&mut app, &first, |offset| roles(2, offset));
    key(&mut app, KeyCode::Char('d'));
    assert!(matches!(app.mode, Mode::Confirm(_)));
    let effects = key(&mut app, KeyCode::Enter);
    assert!(effects.is_empty(), "Enter says no: {effects:?}");
    assert!(matches!(app.mode, Mode::Normal));
    key(&mut app, KeyCode::Char('d'));
    let effects = key(&mut app, KeyCode::Char('y'));
    assert!(matches!(
        effects.first(),
        Some(Effect::Write {
            write: crate::console::shell::Write::Role(screens::roles::Write::Delete { .. }),
            ..
        })
    ));
}

#[test]
fn a_success_fades_and_an_error_stays() {
    let mut app = app();
    let first = app.start().pop().unwrap();
    answer(&mut app, &first, |offset| roles(2, offset));
    let effects = key(&mut app, KeyCode::Char('y'));
    let Some(Effect::Timer {
        timer: Timer::Notice,
        ticket,
    }) = effects.last().cloned()
    else {
        panic!("{effects:?}")
    };
    assert!(app.notice.shown.as_ref().is_some_and(|n| !n.error));
    let faded = Msg::Timer {
        timer: Timer::Notice,
        ticket,
    };
    app.update(faded);
    assert!(app.notice.shown.is_none(), "gone after its time");

    // An error is not set to fade, and a late timer leaves it be.
    let Effect::Fetch { generation, .. } = key(&mut app, KeyCode::Char('r')).pop().unwrap() else {
        panic!()
    };
    let effects = app.update(Msg::Page {
        list: ScreenId::Roles,
        generation,
        offset: 0,
        result: Err(missing_scope("organization:read")),
    });
    assert!(!effects.iter().any(|e| matches!(e, Effect::Timer { .. })));
    app.update(Msg::Timer {
        timer: Timer::Notice,
        ticket,
    });
    assert!(app.notice.shown.as_ref().is_some_and(|n| n.error), "errors stay");
}

#[test]
fn colon_then_tab_lists_the_commands() {
    let mut app = app();
    let first = app.start().pop().unwrap();
    answer(&mut app, &first, |offset| roles(2, offset));
    key(&mut app, KeyCode::Char(':'));
    key(&mut app, KeyCode::Tab);
    let shown = screen(&app);
    assert!(shown.contains(":roles") && shown.contains(":ctx"), "{shown}");
}

#[test]
fn a_on_roles_opens_the_role_and_its_picker() {
    let mut app = app();
    let first = app.start().pop().unwrap();
    answer(&mut app, &first, |offset| roles(3, offset));
    key(&mut app, KeyCode::Char('j'));
    let effects = key(&mut app, KeyCode::Char('a'));
    assert!(matches!(app.mode, Mode::Picker(_)), "{:?}", app.mode);
    assert_eq!(
        app.screens
            .members
            .resource
            .role
            .as_ref()
            .map(|role| role.id.as_str()),
        Some("role-1")
    );
    assert!(effects.iter().any(
        |e| matches!(e, Effect::Ask(ScreenAsk::Members(MembersAsk::People { role, .. })) if role == "role-1")
    ));
    assert!(effects.iter().any(|e| matches!(
        e,
        Effect::Fetch {
            list: ScreenId::Members,
            ..
        }
    )));
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('q'));
    assert_eq!(app.navigation.tab, ScreenId::Roles, "back where a was pressed");
}

#[test]
fn help_says_what_s_does_on_each_screen() {
    let keymap = Keymap::default();
    let says = |screen| {
        keymap
            .help(screen)
            .into_iter()
            .find(|(keys, _, _)| keys == "s")
            .map(|(_, what, _)| what)
    };
    assert_eq!(says(ScreenId::Roles), Some("sort by the next column"));
    assert!(says(ScreenId::Subscriptions).is_some_and(|what| what.contains("next delivery")));
}

#[test]
fn throttled_the_footer_says_so_and_a_second_r_sends_nothing() {
    let mut app = app();
    let first = app.start().pop().unwrap();
    answer(&mut app, &first, |offset| roles(3, offset));
    let refresh = key(&mut app, KeyCode::Char('r'));
    assert_eq!(fetches(&refresh), vec![(ScreenId::Roles, 0)]);
    app.update(exchange(&refresh[0], 429, Some(7)));
    let shown = screen(&app);
    assert!(shown.contains("throttled, retrying in 7 s"), "{shown}");
    assert!(
        shown.contains("GET /api/organizations/@current/roles/"),
        "{shown}"
    );
    let again = key(&mut app, KeyCode::Char('r'));
    assert!(fetches(&again).is_empty(), "nothing stacked: {again:?}");
    assert_eq!(
        app.requests.in_flight, 3,
        "the names, the scopes and the one refresh"
    );
    app.update(exchange(&refresh[0], 200, None));
    answer(&mut app, &refresh[0], |offset| roles(3, offset));
    assert!(!screen(&app).contains("throttled"));
    assert_eq!(
        fetches(&key(&mut app, KeyCode::Char('r'))),
        vec![(ScreenId::Roles, 0)]
    );
}

#[test]
fn the_footer_shows_only_tries_of_the_list_shown() {
    let mut app = app();
    let first = app.start().pop().unwrap();
    let subscriptions = key(&mut app, KeyCode::Char('3')).pop().unwrap();
    app.update(exchange(&first, 200, None));
    assert!(app.requests.last.is_none(), "the roles were left");
    app.update(exchange(&subscriptions, 201, None));
    assert_eq!(app.requests.last.as_ref().and_then(|e| e.status), Some(201));
}

#[test]
fn page_down_in_help_stops_at_its_last_line() {
    let mut app = App::new(Context::default(), Keymap::default(), (80, 16));
    app.start();
    key(&mut app, KeyCode::Char('?'));
    for _ in 0..20 {
        key(&mut app, KeyCode::PageDown);
    }
    let shown = screen(&app);
    assert!(
        app.overlays.scroll.help > 0 && shown.contains(":q              quit"),
        "{shown}"
    );
    let at_end = app.overlays.scroll.help;
    key(&mut app, KeyCode::PageDown);
    assert_eq!(app.overlays.scroll.help, at_end, "no blank space past the end");
    key(&mut app, KeyCode::PageUp);
    assert_eq!(app.overlays.scroll.help, at_end.saturating_sub(10));
}

#[test]
fn deliveries_open_from_a_subscription_and_back_returns() {
    let mut app = app();
    app.start();
    let first = key(&mut app, KeyCode::Char('3')).pop().unwrap();
    answer(&mut app, &first, |offset| subscriptions(3, offset));
    key(&mut app, KeyCode::Char('j'));
    let effects = command(&mut app, "deliveries");
    assert_eq!(app.shown(), ScreenId::Deliveries);
    assert_eq!(
        app.navigation.tab,
        ScreenId::Subscriptions,
        "on the tab it was opened from"
    );
    assert!(
        effects.iter().any(|e| matches!(
            e,
            Effect::Fetch {
                request: ScreenRequest::Deliveries(screens::deliveries::Request { subscription: 2, .. }),
                ..
            }
        )),
        "{effects:?}"
    );
    assert!(screen(&app).contains("Subscriptions › #2 Report 1 › deliveries"));
    key(&mut app, KeyCode::Char('q'));
    assert_eq!(app.shown(), ScreenId::Subscriptions);
    assert_eq!(app.screens.subscriptions.rows.cursor, 1, "where it was");
}

#[test]
fn a_popup_over_wide_characters_keeps_its_left_border() {
    let mut app = app();
    let first = app.start().pop().unwrap();
    // Wide characters from the second column on: one of them straddles the
    // popup's left edge.
    answer(&mut app, &first, |offset| {
        let mut page = roles_page(30, offset);
        for role in &mut page.results {
            role.name = format!("a{}", "角色名称测试".repeat(6));
        }
        ScreenPage::new(page)
    });
    key(&mut app, KeyCode::Char('d'));
    let (width, height) = app.window.size;
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(width, height)).unwrap();
    let theme = crate::console::kit::theme::Theme::plain();
    terminal
        .draw(|frame| crate::console::shell::draw::draw(frame, &app, &theme))
        .unwrap();
    // What the terminal was sent, cell by cell, as the backend took it.
    let buffer = terminal.backend().buffer().clone();
    let row = |y: u16| (0..width).map(|x| buffer[(x, y)].symbol()).collect::<String>();
    let top = (0..height).find(|&y| row(y).contains("Are you sure?")).unwrap();
    let left = (1..width).find(|&x| buffer[(x, top)].symbol() == "╭").unwrap();
    let bottom = (top..height)
        .find(|&y| buffer[(left, y)].symbol() == "╰")
        .unwrap();
    for y in top + 1..bottom {
        assert_eq!(
            buffer[(left, y)].symbol(),
            "│",
            "the popup's left border is missing on row {y}:\n{}",
            screen(&app)
        );
    }
}

#[test]
fn cut_text_ends_in_an_ellipsis() {
    let context = Context {
        host: "http://127.0.0.1:8010".into(),
        organization: "@current".into(),
        project: "1".into(),
        ..Context::default()
    };
    let mut app = App::new(context, Keymap::default(), (64, 20));
    app.start();
    let first = key(&mut app, KeyCode::Char('3')).pop().unwrap();
    answer(&mut app, &first, |offset| {
        let mut page = subscriptions_page(3, offset);
        for subscription in &mut page.results {
            subscription.title = Some("A title far too long for its column to hold".into());
        }
        ScreenPage::new(page)
    });
    let shown = screen(&app);
    let header = shown.lines().next().unwrap();
    assert!(header.ends_with('…') && !header.contains("8010"), "{header}");
    assert!(shown.contains("A title far"), "{shown}");
    assert!(
        shown
            .lines()
            .any(|line| line.contains("A title far") && line.contains('…')),
        "{shown}"
    );
}

#[test]
fn the_sort_in_force_shows_in_the_header_and_the_footer() {
    let mut app = App::new(Context::default(), Keymap::default(), (80, 20));
    let first = app.start().pop().unwrap();
    answer(&mut app, &first, |offset| roles(3, offset));
    key(&mut app, KeyCode::Char('s'));
    // A long request path must not push the sort off the footer.
    app.update(exchange(&first, 200, None));
    if let Some(log) = app.requests.last.as_mut() {
        log.request.path = format!("/api/organizations/{}/roles/", "x".repeat(80));
    }
    app.update(Msg::Tick);
    let shown = screen(&app);
    assert!(shown.contains("NAME ▲"), "{shown}");
    assert!(shown.contains("sorted by name"), "{shown}");
    // Round the sorts to the server's order.
    let sorts = crate::console::table::listing::Listing::sorts(&app.screens.roles.resource).len();
    for _ in 1..sorts {
        key(&mut app, KeyCode::Char('s'));
    }
    let shown = screen(&app);
    assert!(
        !shown.contains('▲') && !shown.contains('▼'),
        "back to the server's order: {shown}"
    );
}

#[test]
fn relative_times_tick_only_while_they_are_on_screen() {
    let mut app = app();
    let first = app.start().pop().unwrap();
    answer(&mut app, &first, |offset| roles(3, offset));
    assert!(!app.shows_relative_times(), "roles: nothing to tick for");
    app.window.dirty = false;
    app.update(Msg::Minute);
    assert!(!app.window.dirty, "a stray minute redraws nothing");
    let effects = key(&mut app, KeyCode::Char('3'));
    assert!(!app.shows_relative_times(), "no subscription loaded yet");
    answer(&mut app, &effects[0], |offset| subscriptions(3, offset));
    assert!(app.shows_relative_times());
    app.window.dirty = false;
    app.update(Msg::Minute);
    assert!(
        app.window.dirty,
        "the minute turned: drawn again with the new now"
    );
    key(&mut app, KeyCode::Char('?'));
    assert!(!app.shows_relative_times(), "help covers the times");
}

/// On an 80-column terminal the help shows the log file's path whole: a
/// path longer than a line goes on under itself, each line ending at one
/// of its slashes, so that no directory's name is cut.
#[test]
fn the_help_shows_a_long_log_path_whole_on_80_columns() {
    let mut app = App::new(Context::default(), Keymap::default(), (80, 24));
    app.start();
    let path = "/home/alexandra.konstantinopoulou/.local/state/orgdeck-with-a-longer-name/orgdeck.log";
    app.overlays.log_path = path.into();
    key(&mut app, KeyCode::Char('?'));
    // Down to where the log file's line is at the top of the help.
    for _ in 0..60 {
        if screen(&app)
            .lines()
            .nth(1)
            .is_some_and(|line| line.contains("log file"))
        {
            break;
        }
        key(&mut app, KeyCode::Down);
    }
    let shown = screen(&app);
    let lines: Vec<&str> = shown.lines().collect();
    let first = lines
        .iter()
        .position(|line| line.contains("log file"))
        .unwrap_or_else(|| panic!("{shown}"));
    // The path's lines, inside the box, from the column it starts at.
    let at = lines[first].find("log file").unwrap();
    let start = lines[first][..at].chars().count() + "log file        ".len();
    let mut parts = Vec::new();
    for line in &lines[first..] {
        let inside: String = line.chars().skip(start).take_while(|c| *c != '│').collect();
        let part = inside.trim();
        if part.is_empty() {
            break;
        }
        parts.push(part.to_string());
    }
    assert!(parts.len() > 1, "the path is longer than a line: {shown}");
    assert_eq!(parts.concat(), path, "{shown}");
    for part in &parts[..parts.len() - 1] {
        assert!(
            part.ends_with('/'),
            "a line of the path ends mid-name: {part:?}\n{shown}"
        );
    }
}

#[test]
fn esc_while_the_rules_are_read_for_a_preview_sends_nothing() {
    use crate::console::screens::{ScreenMsg, preview};
    use ratatui::crossterm::event::{KeyEvent, KeyModifiers};
    let mut app = app();
    let first = app.start().pop().unwrap();
    answer(&mut app, &first, |offset| roles(2, offset));
    // `d` on a role: the rules are read first, and no question yet.
    let effects = app.update(Msg::Key(KeyEvent::new(KeyCode::Char('d'), KeyModifiers::NONE)));
    let Some(ticket) = effects.iter().find_map(|effect| match effect {
        Effect::Ask(ScreenAsk::Preview(preview::Ask::Read { ticket, .. })) => Some(*ticket),
        _ => None,
    }) else {
        panic!("the rules are read first: {effects:?}")
    };
    assert!(matches!(app.mode, Mode::Normal));
    assert!(app.notice.text().contains("reading the rules to preview"));
    // Another destructive key waits for it.
    key(&mut app, KeyCode::Char('d'));
    assert!(app.notice.text().contains("still on its way"));
    // Esc stops it: nothing is sent, and its late answer asks nothing.
    let effects = app.update(Msg::Key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)));
    assert!(
        !effects
            .iter()
            .any(|effect| matches!(effect, Effect::Write { .. })),
        "{effects:?}"
    );
    assert!(app.notice.text().contains("stopped: nothing was sent"));
    let late = preview::Msg::Read {
        ticket,
        outcome: preview::Outcome::Unread("late".into()),
    };
    let effects = app.update(Msg::Screen(ScreenMsg::Preview(late)));
    assert!(effects.is_empty(), "{effects:?}");
    assert!(matches!(app.mode, Mode::Normal));
}
