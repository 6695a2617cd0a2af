//! Health's rows acted on: `t` and `p` on a row ask about its
//! subscription; a resume the server undoes is told with why, one that
//! holds says nothing more, and a pause that comes with a delivery is told
//! when it lands.

use crate::console::screens::subscriptions::Msg as SubscriptionsMsg;
use crate::console::screens::subscriptions::Write as SubscriptionWrite;
use ratatui::crossterm::event::KeyCode;

use super::on_call::written;
use super::{app, key};
use crate::api::health::Health;
use crate::api::{Delivery, DeliveryStatus, Subscription, TargetType};
use crate::console::shell::{Effect, LookNews, Mode, Write, Written};

use super::health::{end, news, open, row};
use crate::console::screens::ScreenAsk;
use crate::console::screens::subscriptions::Ask as SubscriptionsAsk;

#[test]
fn t_on_a_row_asks_to_test_its_subscription() {
    let mut app = app();
    let (ticket, _) = open(&mut app);
    news(&mut app, ticket, LookNews::Rows(vec![row(35, Health::Failing)]));
    key(&mut app, KeyCode::Char('t'));
    let Mode::Confirm(confirm) = &app.mode else {
        panic!("no question: {:?}", app.mode)
    };
    assert!(matches!(
        confirm.single(),
        Some(Write::Subscription(SubscriptionWrite::TestDelivery {
            id: 35,
            ..
        }))
    ));
}

fn revoked_slack(id: i64, enabled: bool) -> Subscription {
    Subscription {
        id,
        title: Some("Revenue in Slack".into()),
        target_type: Some(TargetType::Slack),
        target_value: Some("#revenue".into()),
        enabled: Some(enabled),
        ..Subscription::default()
    }
}

#[test]
fn p_resuming_an_auto_disabled_row_says_the_server_paused_it_again_and_why() {
    let mut app = app();
    let (ticket, _) = open(&mut app);
    news(
        &mut app,
        ticket,
        LookNews::Rows(vec![row(13, Health::AutoDisabled)]),
    );
    end(&mut app, ticket, false);
    // Not loaded on Subscriptions: read first, then asked about (a resume
    // delivers at once), and only y resumes it.
    let effects = key(&mut app, KeyCode::Char('p'));
    assert!(
        matches!(
            &effects[..],
            [Effect::Ask(ScreenAsk::Subscriptions(
                SubscriptionsAsk::Subscription { id: 13, .. }
            ))]
        ),
        "{effects:?}"
    );
    let effects = app.update(SubscriptionsMsg::Subscription(Ok(Box::new(revoked_slack(13, false)))).into());
    assert!(effects.is_empty(), "asked first: {effects:?}");
    assert!(
        matches!(&app.mode, Mode::Confirm(confirm) if confirm.question.starts_with("Resume #13")),
        "{:?}",
        app.mode
    );
    let effects = key(&mut app, KeyCode::Char('y'));
    let [write @ Effect::Write { .. }] = &effects[..] else {
        panic!("no resume: {effects:?}")
    };
    assert!(matches!(
        write,
        Effect::Write {
            write: Write::Subscription(SubscriptionWrite::SetEnabled {
                id: 13,
                enabled: true,
                ..
            }),
            ..
        }
    ));
    // The server takes it, and its confirmation delivery fails.
    let effects = written(
        &mut app,
        write,
        Ok(Written::Subscription(Box::new(revoked_slack(13, true)))),
    );
    assert!(
        effects.iter().any(|effect| matches!(
            effect,
            Effect::Ask(ScreenAsk::Subscriptions(SubscriptionsAsk::Subscription {
                id: 13,
                ..
            }))
        )),
        "read again: {effects:?}"
    );
    let effects = app.update(SubscriptionsMsg::Subscription(Ok(Box::new(revoked_slack(13, false)))).into());
    assert!(
        matches!(
            &effects[..],
            [Effect::Ask(ScreenAsk::Subscriptions(
                SubscriptionsAsk::NewestDelivery { subscription: 13, .. }
            ))]
        ),
        "{effects:?}"
    );
    let failed = Delivery {
        id: "d-1".into(),
        status: Some(DeliveryStatus::Failed),
        target_type: Some(TargetType::Slack),
        created_at: Some(app.window.now),
        error: Some(serde_json::json!({
            "message": "Your Slack connection is no longer active. Reconnect Slack to deliver to this channel.",
            "type": "SlackIntegrationInactive"
        })),
        ..Delivery::default()
    };
    app.update(
        SubscriptionsMsg::NewestDelivery {
            subscription: 13,
            result: Ok(Some(Box::new(failed))),
        }
        .into(),
    );
    let notice = app.notice.shown.clone().unwrap();
    assert!(notice.error);
    assert_eq!(
        notice.text,
        "resumed #13, but the server paused it again: Slack integration revoked: e edits the target (another integration), or reconnect Slack in PostHog"
    );
    assert!(
        app.screens.subscriptions.resource.watch.poll.is_none()
            && app.screens.subscriptions.resource.watch.recheck.is_none(),
        "the story is told: no more looks"
    );
}

#[test]
fn a_resume_that_holds_says_nothing_more() {
    let mut app = app();
    let (ticket, _) = open(&mut app);
    news(&mut app, ticket, LookNews::Rows(vec![row(7, Health::Paused)]));
    key(&mut app, KeyCode::Char('p'));
    let mut paused = revoked_slack(7, false);
    paused.target_type = Some(TargetType::Email);
    app.update(SubscriptionsMsg::Subscription(Ok(Box::new(paused.clone()))).into());
    let effects = key(&mut app, KeyCode::Char('y'));
    paused.enabled = Some(true);
    written(
        &mut app,
        &effects[0],
        Ok(Written::Subscription(Box::new(paused.clone()))),
    );
    app.update(SubscriptionsMsg::Subscription(Ok(Box::new(paused.clone()))).into());
    assert!(app.notice.text().starts_with("resumed #7"));
    // Its confirmation delivery lands, and it is still enabled after.
    let delivered = Delivery {
        id: "d-3".into(),
        status: Some(DeliveryStatus::Completed),
        created_at: Some(app.window.now),
        ..Delivery::default()
    };
    app.update(
        SubscriptionsMsg::NewestDelivery {
            subscription: 7,
            result: Ok(Some(Box::new(delivered))),
        }
        .into(),
    );
    app.update(SubscriptionsMsg::Subscription(Ok(Box::new(paused))).into());
    assert!(app.screens.subscriptions.resource.watch.recheck.is_none());
    let notice = app.notice.shown.clone().unwrap();
    assert!(
        !notice.error && notice.text.starts_with("the delivery of #7 landed: completed"),
        "{notice:?}"
    );
}

#[test]
fn a_pause_that_comes_with_the_delivery_is_told_when_it_lands() {
    let mut app = app();
    let (ticket, _) = open(&mut app);
    news(
        &mut app,
        ticket,
        LookNews::Rows(vec![row(13, Health::AutoDisabled)]),
    );
    key(&mut app, KeyCode::Char('p'));
    app.update(SubscriptionsMsg::Subscription(Ok(Box::new(revoked_slack(13, false)))).into());
    let effects = key(&mut app, KeyCode::Char('y'));
    written(
        &mut app,
        &effects[0],
        Ok(Written::Subscription(Box::new(revoked_slack(13, true)))),
    );
    // Read at once: still enabled, the delivery not run yet.
    app.update(SubscriptionsMsg::Subscription(Ok(Box::new(revoked_slack(13, true)))).into());
    assert!(
        app.screens.subscriptions.resource.watch.recheck.is_some(),
        "kept while the delivery is watched for"
    );
    let failed = Delivery {
        id: "d-2".into(),
        status: Some(DeliveryStatus::Failed),
        target_type: Some(TargetType::Slack),
        created_at: Some(app.window.now),
        error: Some(serde_json::json!({"message": "Your Slack connection is no longer active."})),
        ..Delivery::default()
    };
    let effects = app.update(
        SubscriptionsMsg::NewestDelivery {
            subscription: 13,
            result: Ok(Some(Box::new(failed))),
        }
        .into(),
    );
    assert!(
        effects.iter().any(|effect| matches!(
            effect,
            Effect::Ask(ScreenAsk::Subscriptions(SubscriptionsAsk::Subscription {
                id: 13,
                ..
            }))
        )),
        "{effects:?}"
    );
    app.update(SubscriptionsMsg::Subscription(Ok(Box::new(revoked_slack(13, false)))).into());
    let notice = app.notice.shown.clone().unwrap();
    assert!(
        notice.error
            && notice
                .text
                .starts_with("resumed #13, but the server paused it again: Slack integration revoked"),
        "{notice:?}"
    );
    assert!(app.screens.subscriptions.resource.watch.recheck.is_none());
}
