//! Today's PostHog as pure `update` tests (posthog.md 15): a save that
//! delivers asks first and Enter says no; a refusal of more insights teaches
//! the form the cap; a subscription to a channel no longer supported is its
//! own state and `p` warns that pausing it is for good.

use chrono::{Duration, Utc};
use ratatui::crossterm::event::KeyCode;

use super::on_call::{refusal, written};
use super::{answer, app, command, key};
use crate::api::{Dashboard, DashboardTile, Page, Subscription, SubscriptionState, TargetType, TileInsight};
use crate::console::screens::ScreenAsk;
use crate::console::screens::subscriptions::Ask as SubscriptionsAsk;
use crate::console::screens::subscriptions::Msg as SubscriptionsMsg;
use crate::console::screens::subscriptions::Write as SubscriptionWrite;
use crate::console::shell::{App, Effect, Mode, ScreenPage, Write};
use crate::console::widgets::question::Answer;

/// Today's rows (they carry `enabled`): #1 to a legacy webhook, the others
/// by e-mail, each with a delivery to come.
fn today_rows(count: u64, offset: u64) -> ScreenPage {
    let results = (offset..(offset + 100).min(count))
        .map(|n| Subscription {
            id: n as i64 + 1,
            title: Some(format!("Report {n}")),
            target_type: Some(if n == 0 {
                TargetType::Webhook
            } else {
                TargetType::Email
            }),
            target_value: Some("a@b.co".into()),
            enabled: Some(true),
            next_delivery_date: Some(Utc::now() + Duration::days(1)),
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

fn opened(count: u64) -> App {
    let mut app = app();
    app.start();
    let first = key(&mut app, KeyCode::Char('3')).pop().unwrap();
    answer(&mut app, &first, |offset| today_rows(count, offset));
    app
}

/// Tabs to the form's field of this name.
fn focus(app: &mut App, name: &str) {
    for _ in 0..30 {
        if let Mode::Form(form, _) = &app.mode
            && form.fields[form.focus].name == name
        {
            return;
        }
        key(app, KeyCode::Tab);
    }
    panic!("no field {name}");
}

fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        key(app, KeyCode::Char(c));
    }
}

#[test]
fn p_on_a_webhook_warns_that_pausing_it_is_for_good_and_enter_says_no() {
    let mut app = opened(3);
    assert_eq!(
        app.screens
            .subscriptions
            .selected()
            .map(|row| row.state(app.window.now)),
        Some(SubscriptionState::Unsupported)
    );
    assert!(key(&mut app, KeyCode::Char('p')).is_empty());
    let Mode::Confirm(confirm) = &app.mode else {
        panic!("asks first")
    };
    assert!(
        confirm.question.starts_with(
            "#1 delivers to webhook, which PostHog no longer supports: once paused it cannot be resumed"
        ),
        "{}",
        confirm.question
    );
    assert_eq!(confirm.highlighted, Answer::No, "only y pauses it");
    assert!(key(&mut app, KeyCode::Enter).is_empty(), "Enter: no");
    assert!(matches!(app.mode, Mode::Normal));
    key(&mut app, KeyCode::Char('p'));
    let effects = key(&mut app, KeyCode::Char('y'));
    assert!(matches!(
        &effects[..],
        [Effect::Write {
            write: Write::Subscription(SubscriptionWrite::SetEnabled {
                id: 1,
                enabled: false,
                ..
            }),
            ..
        }]
    ));
    // :state unsupported keeps it alone.
    let effects = command(&mut app, "state unsupported");
    assert_eq!(
        app.screens.subscriptions.resource.state,
        Some(SubscriptionState::Unsupported)
    );
    let fetch = effects
        .iter()
        .find(|effect| matches!(effect, Effect::Fetch { .. }))
        .expect("the rows again, narrowed as they arrive");
    answer(&mut app, fetch, |offset| today_rows(3, offset));
    let table = &app.screens.subscriptions;
    assert_eq!(table.rows.len(), 1);
    assert_eq!(table.rows.row(0).map(|row| row.id), Some(1));
}

#[test]
fn a_supported_one_pauses_as_before() {
    let mut app = opened(3);
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Char('p'));
    let Mode::Confirm(confirm) = &app.mode else {
        panic!("asks first")
    };
    assert!(confirm.question.starts_with("Pause #2"), "{}", confirm.question);
    assert_eq!(confirm.highlighted, Answer::Yes, "pausing is harmless");
}

/// A new subscription's form with a target typed; today's rows put
/// "Deliver once on save" there, checked.
fn new_form(app: &mut App) {
    key(app, KeyCode::Char('n'));
    let Mode::Form(form, _) = &app.mode else {
        panic!("a form")
    };
    assert_eq!(form.value("send_test_now"), "yes", "checked on a new one");
    focus(app, "target_value");
    type_text(app, "a@b.co");
}

#[test]
fn a_save_that_delivers_asks_first_and_enter_says_no() {
    let mut app = opened(3);
    new_form(&mut app);
    assert!(key(&mut app, KeyCode::Enter).is_empty());
    let Mode::Confirm(confirm) = &app.mode else {
        panic!("asks first")
    };
    assert!(
        confirm.question.contains("deliver it once now") && confirm.question.contains("(a@b.co)"),
        "{}",
        confirm.question
    );
    assert_eq!(confirm.highlighted, Answer::No, "it reaches people");
    assert!(key(&mut app, KeyCode::Enter).is_empty(), "Enter: no");
    assert!(matches!(app.mode, Mode::Form(..)), "back to the form");
    key(&mut app, KeyCode::Enter);
    let effects = key(&mut app, KeyCode::Char('y'));
    let [
        Effect::Write {
            write: Write::Subscription(SubscriptionWrite::Create { body, .. }),
            ..
        },
    ] = &effects[..]
    else {
        panic!("{effects:?}")
    };
    assert_eq!(body.send_test_now, Some(true));

    // Unchecked: saved at once, and the body says false.
    let mut app = opened(3);
    new_form(&mut app);
    focus(&mut app, "send_test_now");
    key(&mut app, KeyCode::Char(' '));
    let effects = key(&mut app, KeyCode::Enter);
    let [
        Effect::Write {
            write: Write::Subscription(SubscriptionWrite::Create { body, .. }),
            ..
        },
    ] = &effects[..]
    else {
        panic!("{effects:?}")
    };
    assert_eq!(body.send_test_now, Some(false));
}

#[test]
fn an_edit_that_delivers_says_so_and_only_y_sends_it() {
    let mut app = opened(3);
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Char('e'));
    let Mode::Form(form, _) = &app.mode else {
        panic!("a form")
    };
    assert_eq!(form.value("send_test_now"), "", "unchecked on an edit");
    focus(&mut app, "send_test_now");
    key(&mut app, KeyCode::Char(' '));
    key(&mut app, KeyCode::Enter);
    let Mode::Confirm(confirm) = &app.mode else {
        panic!("asks first")
    };
    assert!(
        confirm
            .question
            .starts_with("Deliver subscription #2 once now, changing nothing?"),
        "{}",
        confirm.question
    );
    assert_eq!(confirm.highlighted, Answer::No, "it reaches people");
    let effects = key(&mut app, KeyCode::Char('y'));
    let [
        Effect::Write {
            write: Write::Subscription(SubscriptionWrite::Update { body, .. }),
            ..
        },
    ] = &effects[..]
    else {
        panic!("{effects:?}")
    };
    assert_eq!(body.send_test_now, Some(true));
    assert!(body.target_value.is_none(), "nothing else: {body:?}");
}

#[test]
fn a_refusal_of_more_insights_teaches_the_form_the_cap() {
    let mut app = opened(3);
    let effects = key(&mut app, KeyCode::Char('n'));
    let Some(Effect::Ask(ScreenAsk::Subscriptions(SubscriptionsAsk::Catalog { ticket, .. }))) =
        effects.first().cloned()
    else {
        panic!("{effects:?}")
    };
    let dashboard = crate::api::NamedItem {
        id: 1,
        name: Some("KPIs".into()),
        short_id: None,
        derived_name: None,
    };
    app.update(
        SubscriptionsMsg::Catalog {
            ticket,
            result: Ok((vec![dashboard], Vec::new())),
            slack: Some(Vec::new()),
        }
        .into(),
    );
    let effects = key(&mut app, KeyCode::Right);
    let Some(Effect::Ask(ScreenAsk::Subscriptions(SubscriptionsAsk::Tiles { ticket, .. }))) =
        effects.first().cloned()
    else {
        panic!("{effects:?}")
    };
    let tile = |id: i64| DashboardTile {
        id,
        insight: Some(TileInsight {
            id,
            ..TileInsight::default()
        }),
    };
    app.update(
        SubscriptionsMsg::Tiles {
            ticket,
            dashboard: 1,
            result: Ok(Some(Dashboard {
                id: 1,
                name: None,
                tiles: (1..=3).map(tile).collect(),
            })),
        }
        .into(),
    );
    focus(&mut app, "target_value");
    type_text(&mut app, "a@b.co");
    key(&mut app, KeyCode::Enter);
    let effects = key(&mut app, KeyCode::Char('y'));
    let [
        Effect::Write {
            write: Write::Subscription(SubscriptionWrite::Create { body, .. }),
            ..
        },
    ] = &effects[..]
    else {
        panic!("{effects:?}")
    };
    assert_eq!(
        body.dashboard_export_insights,
        Some(vec![1, 2, 3]),
        "no cap assumed"
    );
    written(
        &mut app,
        &effects[0],
        Err(refusal(
            400,
            "Cannot select more than 2 insights.",
            Some("dashboard_export_insights"),
        )),
    );
    assert_eq!(app.permissions.export_cap, Some(2));
    let Mode::Form(form, _) = &app.mode else {
        panic!("the form comes back: {:?}", app.mode)
    };
    let field = &form.fields[form.focus];
    assert_eq!(field.name, "dashboard_export_insights");
    assert_eq!(
        field.error.as_deref(),
        Some("the server allows 2 insights and 3 are chosen: Space on a chosen one frees a place")
    );
    // A place freed, then taken again: beyond the cap, refused as chosen.
    key(&mut app, KeyCode::Char(' '));
    key(&mut app, KeyCode::Char(' '));
    let Mode::Form(form, _) = &app.mode else {
        panic!("a form")
    };
    assert_eq!(form.value("dashboard_export_insights"), "2,3");
    assert!(
        form.fields[form.focus]
            .error
            .as_deref()
            .unwrap()
            .starts_with("at most 2")
    );
}
