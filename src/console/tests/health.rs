//! The Health view: a look's news arriving, in any order, in batches; the
//! heading's counts; Esc stopping the look; the tab bar's count from any
//! tab; new marks; Enter on a row (`health_acts.rs`: `t` and `p` on
//! one).

use crate::console::screens;
use crate::console::screens::ScreenAsk;
use crate::console::screens::health::Ask as HealthAsk;
use crate::console::screens::health::Msg as HealthMsg;
use crate::console::screens::subscriptions::Write as SubscriptionWrite;
use ratatui::crossterm::event::KeyCode;

use super::on_call::written;
use super::{app, command, key, screen};
use crate::api::Subscription;
use crate::api::health::{FailedRecipient, Health};
use crate::console::screens::list::List as _;
use crate::console::shell::{
    App, Effect, LookNews, Mode, ScreenId, ScreenRequest, Stop, Ticket, Write, Written,
};
use crate::health::{Coverage, HealthRow, LookSummary};

pub(super) fn row(id: i64, health: Health) -> HealthRow {
    HealthRow {
        id,
        title: format!("Report {id}"),
        target: "email a@example.com".into(),
        health,
        since: None,
        streak: u32::from(health.pages()),
        last_delivery: None,
        failed_recipients: match health {
            Health::Failing | Health::Partial => vec![FailedRecipient {
                recipient: "gone@example.invalid".into(),
                error: "Domain example.invalid does not exist".into(),
            }],
            _ => Vec::new(),
        },
        next_delivery_date: None,
        fix: health
            .pages()
            .then(|| "address does not exist: remove it from the recipients (e)".into()),
        newly: false,
        pending: false,
    }
}

/// How far a look came: `known` of `total`, `requests` made.
fn coverage(total: u64, known: u64, requests: u64) -> Coverage {
    Coverage {
        total,
        known,
        left: total - known,
        requests,
        ..Coverage::default()
    }
}

/// `H`: Health is shown and its first look starts.
pub(super) fn open(app: &mut App) -> (Ticket, Stop) {
    let effects = key(app, KeyCode::Char('H'));
    assert_eq!(app.shown(), ScreenId::Health);
    match &effects[..] {
        [
            Effect::Ask(ScreenAsk::Health(HealthAsk::Look {
                ticket,
                project,
                stop,
                max_requests: None,
            })),
        ] => {
            assert_eq!(project, "1");
            (*ticket, stop.clone())
        }
        other => panic!("no look: {other:?}"),
    }
}

pub(super) fn news(app: &mut App, ticket: Ticket, news: LookNews) {
    let effects = app.update(HealthMsg::LookNews { ticket, news }.into());
    assert!(effects.is_empty(), "news asks for nothing: {effects:?}");
}

/// The look ends: complete unless stopped (then 2 of 5 are not known).
pub(super) fn end(app: &mut App, ticket: Ticket, stopped: bool) {
    let known = if stopped { 3 } else { 5 };
    app.update(
        HealthMsg::Looked {
            ticket,
            result: Ok(LookSummary {
                coverage: coverage(5, known, 7),
                read: 5,
                stopped,
                ..LookSummary::default()
            }),
        }
        .into(),
    );
}

fn ids(app: &App) -> Vec<i64> {
    app.screens
        .health
        .rows
        .list
        .loaded()
        .map(|(_, row)| row.id)
        .collect()
}

#[test]
fn rows_arriving_in_any_order_show_worst_first_and_are_counted() {
    let mut app = app();
    let (ticket, _) = open(&mut app);
    assert_eq!(app.requests.in_flight, 1, "the look is in flight");
    news(&mut app, ticket, LookNews::Listed(coverage(6, 0, 1)));
    news(
        &mut app,
        ticket,
        LookNews::Rows(vec![
            row(1, Health::Ok),
            row(2, Health::Overdue),
            row(3, Health::Partial),
        ]),
    );
    assert_eq!(ids(&app), [3, 2, 1]);
    news(
        &mut app,
        ticket,
        LookNews::Rows(vec![
            row(4, Health::Ok),
            row(5, Health::Failing),
            row(6, Health::AutoDisabled),
        ]),
    );
    news(&mut app, ticket, LookNews::Progress(coverage(6, 6, 7)));
    assert_eq!(ids(&app), [5, 3, 6, 2, 1, 4]);
    let shown = screen(&app);
    assert!(shown.contains("6 of 6 known · 7 requests · Esc stops"), "{shown}");
    end(&mut app, ticket, false);
    assert_eq!(app.requests.in_flight, 0);
    assert_eq!(
        app.screens.health.heading(),
        "Health · 1 failing · 1 partial · 1 auto-disabled · 1 overdue · 2 ok"
    );
    let shown = screen(&app);
    assert!(
        shown.contains("looked now · looked at all 5 · 7 requests"),
        "{shown}"
    );
    assert!(shown.contains("failing"), "{shown}");
}

#[test]
fn a_row_looked_at_again_takes_the_place_of_the_one_before() {
    let mut app = app();
    let (ticket, _) = open(&mut app);
    news(
        &mut app,
        ticket,
        LookNews::Rows(vec![row(1, Health::Ok), row(2, Health::Failing)]),
    );
    let again = key(&mut app, KeyCode::Char('r'));
    assert!(
        !again
            .iter()
            .any(|effect| matches!(effect, Effect::Ask(ScreenAsk::Health(HealthAsk::Look { .. })))),
        "one look at a time: {again:?}"
    );
    key(&mut app, KeyCode::Char('j'));
    assert_eq!(app.screens.health.selected().map(|row| row.id), Some(1));
    news(&mut app, ticket, LookNews::Rows(vec![row(1, Health::Failing)]));
    assert_eq!(ids(&app), [1, 2], "the oldest failing first, by id");
    assert_eq!(
        app.screens.health.selected().map(|row| row.id),
        Some(1),
        "the cursor kept its row"
    );
    assert_eq!(app.screens.health.rows.list.count(), Some(2));
    // A whole look drops the rows of subscriptions it no longer found.
    end(&mut app, ticket, false);
    let (ticket, _) = match &key(&mut app, KeyCode::Char('r'))[..] {
        [Effect::Ask(ScreenAsk::Health(HealthAsk::Look { ticket, stop, .. }))] => (*ticket, stop.clone()),
        other => panic!("no look: {other:?}"),
    };
    news(&mut app, ticket, LookNews::Listed(coverage(1, 1, 1)));
    news(&mut app, ticket, LookNews::Rows(vec![row(2, Health::Ok)]));
    assert_eq!(ids(&app), [1, 2], "kept until the look ends");
    end(&mut app, ticket, false);
    assert_eq!(ids(&app), [2]);
}

#[test]
fn esc_stops_the_look_and_keeps_its_rows() {
    let mut app = app();
    let (ticket, stop) = open(&mut app);
    news(&mut app, ticket, LookNews::Rows(vec![row(1, Health::Failing)]));
    key(&mut app, KeyCode::Esc);
    assert!(stop.is_stopped());
    assert_eq!(
        app.shown(),
        ScreenId::Health,
        "Esc stopped the look, nothing else"
    );
    end(&mut app, ticket, true);
    assert_eq!(ids(&app), [1]);
    assert!(app.notice.text().contains("look stopped"));
    assert!(screen(&app).contains("stopped before the end: r goes on"));
    // `r` looks again.
    assert!(matches!(
        &key(&mut app, KeyCode::Char('r'))[..],
        [Effect::Ask(ScreenAsk::Health(HealthAsk::Look { .. }))]
    ));
}

#[test]
fn the_tab_bar_counts_the_failing_from_any_tab_after_the_first_look() {
    let mut app = app();
    let before = screen(&app);
    assert!(!before.contains("failing"), "{before}");
    let (ticket, _) = open(&mut app);
    news(
        &mut app,
        ticket,
        LookNews::Rows(vec![
            row(1, Health::Failing),
            row(2, Health::Partial),
            row(3, Health::AutoDisabled),
            row(4, Health::Overdue),
            row(5, Health::Ok),
        ]),
    );
    end(&mut app, ticket, false);
    key(&mut app, KeyCode::Char('1'));
    assert_eq!(app.shown(), ScreenId::Roles);
    let tabs = screen(&app).lines().nth(1).unwrap().to_string();
    assert!(tabs.contains("H Health 3 failing"), "{tabs}");
    // Back on Health, no second look starts by itself.
    assert!(key(&mut app, KeyCode::Char('H')).is_empty());
}

#[test]
fn rows_unhealthy_since_the_previous_look_are_marked_new() {
    let mut app = app();
    let (ticket, _) = open(&mut app);
    let mut newly = row(2, Health::Failing);
    newly.newly = true;
    news(
        &mut app,
        ticket,
        LookNews::Rows(vec![row(1, Health::Failing), newly]),
    );
    end(&mut app, ticket, false);
    let shown = screen(&app);
    let line = |id: &str| {
        shown
            .lines()
            .find(|line| line.contains(&format!("Report {id}")) && line.contains("failing"))
            .unwrap_or_default()
            .to_string()
    };
    assert!(line("2").contains("new"), "{shown}");
    assert!(!line("1").contains("new"), "{shown}");
}

#[test]
fn enter_opens_the_rows_deliveries_and_back_returns_to_health() {
    let mut app = app();
    let (ticket, _) = open(&mut app);
    news(
        &mut app,
        ticket,
        LookNews::Rows(vec![row(35, Health::Failing), row(1, Health::Ok)]),
    );
    end(&mut app, ticket, false);
    let effects = key(&mut app, KeyCode::Enter);
    assert_eq!(app.shown(), ScreenId::Deliveries);
    assert!(
        effects.iter().any(|effect| matches!(
            effect,
            Effect::Fetch {
                request: ScreenRequest::Deliveries(screens::deliveries::Request { subscription: 35, .. }),
                ..
            }
        )),
        "{effects:?}"
    );
    key(&mut app, KeyCode::Char('q'));
    assert_eq!(app.shown(), ScreenId::Health);
    assert_eq!(app.navigation.tab, ScreenId::Health);
}

#[test]
fn another_project_forgets_the_look() {
    let mut app = app();
    let (ticket, stop) = open(&mut app);
    news(&mut app, ticket, LookNews::Rows(vec![row(1, Health::Failing)]));
    command(&mut app, "project 2");
    assert!(stop.is_stopped());
    news(&mut app, ticket, LookNews::Rows(vec![row(2, Health::Failing)]));
    assert!(ids(&app).is_empty(), "news of the look left is dropped");
}

/// PostHog pauses a subscription only once the delivery on its way has
/// failed, after the resume's answer and the read that follows it: the
/// console reads it again when the delivery lands, and says so then.
#[test]
fn marked_rows_are_paused_together_and_the_paused_ones_left_alone() {
    let mut app = app();
    let (ticket, _) = open(&mut app);
    let rows = vec![
        row(1, Health::Failing),
        row(2, Health::Paused),
        row(3, Health::Ok),
    ];
    news(&mut app, ticket, LookNews::Rows(rows));
    end(&mut app, ticket, false);
    key(&mut app, KeyCode::Char('*'));
    assert_eq!(app.screens.health.marked(), 3);
    assert!(screen(&app).contains("3 marked"));
    key(&mut app, KeyCode::Char('p'));
    let Mode::Confirm(confirm) = &app.mode else {
        panic!("asks first: {:?}", app.mode)
    };
    assert!(
        confirm.question.starts_with("Pause 2 subscriptions?\n#1 \"Report 1\", #3 \"Report 3\"\n1 marked is left as it is: 1 already paused"),
        "{}",
        confirm.question
    );
    let effects = key(&mut app, KeyCode::Char('y'));
    let paused: Vec<i64> = effects
        .iter()
        .filter_map(|effect| match effect {
            Effect::Write {
                write:
                    Write::Subscription(SubscriptionWrite::SetEnabled {
                        id, enabled: false, ..
                    }),
                ..
            } => Some(*id),
            _ => None,
        })
        .collect();
    assert_eq!(paused, [1, 3]);
    for effect in &effects {
        let Effect::Write {
            write: Write::Subscription(SubscriptionWrite::SetEnabled { id, .. }),
            ..
        } = effect
        else {
            continue;
        };
        let subscription = Subscription {
            id: *id,
            enabled: Some(false),
            ..Subscription::default()
        };
        written(
            &mut app,
            effect,
            Ok(Written::Subscription(Box::new(subscription))),
        );
    }
    assert_eq!(
        app.screens.health.marked(),
        0,
        "done, and the paused one left as it was: unmarked"
    );
    assert!(app.notice.shown.clone().unwrap().text.contains("r looks again"));
}

#[test]
fn a_paused_row_promises_no_next_delivery_and_names_its_channel() {
    use crate::console::screens::health::Board;
    use crate::console::table::listing::Listing;
    let theme = crate::console::kit::theme::Theme::plain();
    let now = crate::api::time::parse_datetime("2026-11-22T10:00:00Z").unwrap();
    let view = crate::console::kit::view::ViewCx {
        theme: &theme,
        zone: crate::display::Zone::Utc,
        now,
    };
    let mut disabled = row(13, Health::AutoDisabled);
    disabled.target = "slack C0001000|#metrics".into();
    disabled.next_delivery_date = crate::api::time::parse_datetime("2026-11-23T09:00:00Z");
    disabled.failed_recipients = vec![FailedRecipient {
        recipient: "C0001000|#metrics".into(),
        error: "Your Slack connection is no longer active.".into(),
    }];
    let (_, lines) = Board::default().detail(&disabled, &view);
    let text: Vec<String> = lines.iter().map(ToString::to_string).collect();
    assert!(
        text.iter()
            .any(|line| line.contains("next delivery  none while paused")),
        "{text:#?}"
    );
    assert!(
        text.iter()
            .any(|line| line.contains("target         Slack #metrics")),
        "{text:#?}"
    );
    assert!(
        text.iter().any(|line| line.contains("✗ #metrics  Your Slack")),
        "{text:#?}"
    );
    assert!(!text.iter().any(|line| line.contains("C0001000")), "{text:#?}");
    let cells = Board::default().cells(&disabled, &view);
    assert_eq!(
        cells[6].content,
        "#metrics: Your Slack connection is no longer active."
    );
    let mut ok = row(14, Health::Ok);
    ok.next_delivery_date = disabled.next_delivery_date;
    let (_, lines) = Board::default().detail(&ok, &view);
    assert!(lines.iter().any(|line| line.to_string().contains("in 23h")));
}
