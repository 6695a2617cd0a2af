//! Marks and bulk actions, driven through `update`: Space, `*` and Esc, the
//! one question, at most four writes on their way, and what stays marked.

use ratatui::crossterm::event::KeyCode;

use super::on_call::{refusal, written};
use super::{answer, app, fetches, key, roles, screen, subscriptions};
use crate::api::Subscription;
use crate::console::keymap::Keymap;
use crate::console::screens::subscriptions::Write as SubscriptionWrite;
use crate::console::shell::{App, Confirmed, Context, Effect, Mode, ScreenId, ScreenPage, Write, Written};
use crate::console::widgets::question::Answer;
use crate::console::widgets::results::Outcome;

/// Answers every page the effects (and the answers) ask for.
fn answer_all(app: &mut App, effects: Vec<Effect>, make: impl Fn(u64) -> ScreenPage + Copy) {
    let mut waiting = effects;
    while let Some(effect) = waiting.pop() {
        if matches!(effect, Effect::Fetch { .. }) {
            waiting.extend(answer(app, &effect, make));
        }
    }
}

/// Subscriptions shown, `count` of them, the pages around the cursor loaded.
fn subscriptions_shown(count: u64) -> App {
    let mut app = app();
    app.start();
    let effects = key(&mut app, KeyCode::Char('3'));
    answer_all(&mut app, effects, move |offset| subscriptions(count, offset));
    app
}

fn marked(app: &App, list: ScreenId) -> usize {
    app.screens.shown(list).marked()
}

#[test]
fn space_marks_and_moves_down_and_marks_survive_a_sort_and_a_refresh() {
    let mut app = app();
    let first = app.start().pop().unwrap();
    answer(&mut app, &first, |offset| roles(8, offset));
    key(&mut app, KeyCode::Char(' '));
    key(&mut app, KeyCode::Char(' '));
    assert_eq!(app.screens.roles.rows.cursor, 2, "Space moves down");
    assert_eq!(marked(&app, ScreenId::Roles), 2);
    let shown = screen(&app);
    assert!(shown.contains("2 marked"), "{shown}");
    let row = |name: &str| {
        shown
            .lines()
            .find(|line| line.contains(name))
            .unwrap()
            .to_string()
    };
    assert!(
        row("Role 0 ").contains('●') && !row("Role 2 ").contains('●'),
        "{shown}"
    );
    // Space on a marked row unmarks it.
    key(&mut app, KeyCode::Char('k'));
    key(&mut app, KeyCode::Char(' '));
    assert_eq!(marked(&app, ScreenId::Roles), 1);
    // Kept by id: another order, a refresh, moving the row elsewhere.
    key(&mut app, KeyCode::Char('s'));
    key(&mut app, KeyCode::Char('s'));
    let effects = key(&mut app, KeyCode::Char('r'));
    answer(&mut app, &effects[0], |offset| roles(8, offset));
    assert!(app.screens.roles.marks.contains("role-0"));
    assert_eq!(marked(&app, ScreenId::Roles), 1);
}

#[test]
fn star_marks_every_row_the_filter_shows() {
    let mut app = app();
    let first = app.start().pop().unwrap();
    answer(&mut app, &first, |offset| roles(30, offset));
    key(&mut app, KeyCode::Char('/'));
    for c in "role 1".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    let shown = app.screens.roles.rows.len();
    assert_eq!(shown, 11, "Role 1 and Role 10 to 19");
    key(&mut app, KeyCode::Char('*'));
    assert_eq!(marked(&app, ScreenId::Roles), 11);
    let notice = app.notice.shown.clone().unwrap();
    assert!(
        notice.text.starts_with("marked the 11 roles the filter shows"),
        "{notice:?}"
    );
    assert!(!app.screens.roles.marks.contains("role-2"));
}

#[test]
fn star_fetches_the_rows_not_loaded_and_marks_them_as_they_come() {
    let mut app = subscriptions_shown(250);
    assert!(
        app.screens.subscriptions.rows.list.get(200).is_none(),
        "the last page is not loaded"
    );
    let effects = key(&mut app, KeyCode::Char('*'));
    assert_eq!(
        fetches(&effects),
        vec![(ScreenId::Subscriptions, 200)],
        "{effects:?}"
    );
    assert_eq!(
        marked(&app, ScreenId::Subscriptions),
        200,
        "the loaded rows at once"
    );
    answer_all(&mut app, effects, |offset| subscriptions(250, offset));
    assert_eq!(marked(&app, ScreenId::Subscriptions), 250);
    let notice = app.notice.shown.clone().unwrap();
    assert!(
        notice
            .text
            .starts_with("marked the 250 subscriptions the filter shows"),
        "{notice:?}"
    );
}

#[test]
fn star_refuses_more_than_a_thousand() {
    let mut app = subscriptions_shown(1_500);
    key(&mut app, KeyCode::Char('*'));
    assert_eq!(marked(&app, ScreenId::Subscriptions), 0);
    let notice = app.notice.shown.clone().unwrap();
    assert!(notice.error, "{notice:?}");
    assert!(
        notice
            .text
            .contains("* marks at most 1,000 rows, and this list shows 1,500: narrow it with / first"),
        "{notice:?}"
    );
}

#[test]
fn esc_clears_the_marks_before_it_means_back() {
    let mut app = app();
    let first = app.start().pop().unwrap();
    answer(&mut app, &first, |offset| roles(3, offset));
    let effects = key(&mut app, KeyCode::Enter);
    answer(&mut app, &effects[0], |_| {
        ScreenPage::new(crate::api::Page::<crate::api::RoleMembership> {
            count: 2,
            next: None,
            previous: None,
            results: vec![
                crate::api::RoleMembership {
                    id: "m-1".into(),
                    ..Default::default()
                },
                crate::api::RoleMembership {
                    id: "m-2".into(),
                    ..Default::default()
                },
            ],
        })
    });
    assert_eq!(app.shown(), ScreenId::Members);
    key(&mut app, KeyCode::Char(' '));
    assert_eq!(marked(&app, ScreenId::Members), 1);
    key(&mut app, KeyCode::Esc);
    assert_eq!(marked(&app, ScreenId::Members), 0);
    assert_eq!(
        app.shown(),
        ScreenId::Members,
        "the first Esc only clears the marks"
    );
    assert!(!screen(&app).contains("marked"));
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.shown(), ScreenId::Roles, "the next one goes back");
}

#[test]
fn a_bulk_pause_asks_once_sends_four_at_a_time_and_keeps_the_failed_marked() {
    let mut app = subscriptions_shown(10);
    for _ in 0..6 {
        key(&mut app, KeyCode::Char(' '));
    }
    assert!(key(&mut app, KeyCode::Char('p')).is_empty());
    let Mode::Confirm(confirm) = &app.mode else {
        panic!("one question: {:?}", app.mode)
    };
    assert!(
        confirm.question.starts_with("Pause 6 subscriptions?"),
        "{}",
        confirm.question
    );
    assert_eq!(confirm.highlighted, Answer::Yes, "pausing is harmless");
    assert!(matches!(&confirm.then, Confirmed::Bulk(bulk) if bulk.items.len() == 6));
    assert!(screen(&app).contains("[Y] yes  [n] no  · Enter: yes"));
    let mut flying = key(&mut app, KeyCode::Enter);
    assert_eq!(flying.len(), 4, "at most four on their way: {flying:?}");
    assert!(matches!(app.mode, Mode::Results));
    assert!(flying.iter().all(|effect| matches!(
        effect,
        Effect::Write {
            write: Write::Subscription(SubscriptionWrite::SetEnabled { enabled: false, .. }),
            ..
        }
    )));
    // Each answer lets the next go; #2 is refused.
    let mut sent = 4;
    while let Some(effect) = flying.pop() {
        let Effect::Write {
            write: Write::Subscription(SubscriptionWrite::SetEnabled { id, .. }),
            ..
        } = &effect
        else {
            panic!("{effect:?}")
        };
        let result = if *id == 2 {
            Err(refusal(400, "Cannot pause this one.", Some("enabled")))
        } else {
            Ok(Written::Subscription(Box::new(Subscription {
                id: *id,
                enabled: Some(false),
                ..Subscription::default()
            })))
        };
        let next = written(&mut app, &effect, result);
        let writes: Vec<Effect> = next
            .into_iter()
            .filter(|effect| matches!(effect, Effect::Write { .. }))
            .collect();
        sent += writes.len();
        flying.extend(writes);
        assert!(flying.len() <= 4);
    }
    assert_eq!(sent, 6, "one write a row");
    let report = app.bulk.report.clone().unwrap();
    assert_eq!(report.counts().done, 5);
    let failed = report
        .entries
        .iter()
        .find(|entry| matches!(entry.outcome, Outcome::Failed(_)))
        .unwrap();
    assert_eq!(failed.id, "2");
    assert!(
        matches!(&failed.outcome, Outcome::Failed(text) if text.contains("400 invalid_input: Cannot pause this one."))
    );
    // Only the failed one stays marked; the others changed in place.
    assert_eq!(marked(&app, ScreenId::Subscriptions), 1);
    assert!(app.screens.subscriptions.marks.contains("2"));
    assert_eq!(app.screens.subscriptions.find(1).unwrap().enabled, Some(false));
    let shown = screen(&app);
    assert!(
        shown.contains("Pause 6 subscriptions: 5 done · 1 failed"),
        "{shown}"
    );
    assert!(
        shown.contains("✗ #2 \"Report 1\": failed: 400 invalid_input: Cannot pause this one."),
        "{shown}"
    );
    key(&mut app, KeyCode::Esc);
    assert!(matches!(app.mode, Mode::Normal));
    assert!(screen(&app).contains("1 marked"));
}

#[test]
fn a_bulk_delete_says_no_on_enter_and_read_only_refuses_it() {
    let mut app = app();
    let first = app.start().pop().unwrap();
    answer(&mut app, &first, |offset| roles(4, offset));
    key(&mut app, KeyCode::Char('*'));
    key(&mut app, KeyCode::Char('d'));
    let Mode::Confirm(confirm) = &app.mode else {
        panic!("asks first")
    };
    assert!(
        confirm.question.starts_with("Delete 4 roles?"),
        "{}",
        confirm.question
    );
    assert!(screen(&app).contains("[y] yes  [N] no  · Enter: no"));
    // Any other key leaves the question open; Enter says no.
    assert!(key(&mut app, KeyCode::Char('j')).is_empty());
    assert!(matches!(app.mode, Mode::Confirm(_)));
    assert!(key(&mut app, KeyCode::Enter).is_empty());
    assert!(matches!(app.mode, Mode::Normal));
    assert_eq!(marked(&app, ScreenId::Roles), 4, "nothing done: all still marked");

    let context = Context {
        host: "test".into(),
        organization: "@current".into(),
        project: "1".into(),
        read_only: true,
        ..Context::default()
    };
    let mut app = App::new(context, Keymap::default(), (120, 40));
    let first = app.start().pop().unwrap();
    answer(&mut app, &first, |offset| roles(4, offset));
    key(&mut app, KeyCode::Char('*'));
    assert_eq!(marked(&app, ScreenId::Roles), 4, "marking writes nothing");
    assert!(key(&mut app, KeyCode::Char('d')).is_empty());
    assert!(matches!(app.mode, Mode::Normal));
    assert!(app.notice.shown.clone().unwrap().text.contains("read-only"));
}

#[test]
fn lists_without_marks_say_so() {
    let mut app = subscriptions_shown(3);
    let effects = key(&mut app, KeyCode::Enter);
    assert_eq!(app.shown(), ScreenId::Deliveries, "{effects:?}");
    key(&mut app, KeyCode::Char(' '));
    assert!(
        app.notice
            .shown
            .clone()
            .unwrap()
            .text
            .contains("the deliveries take no marks")
    );
}
