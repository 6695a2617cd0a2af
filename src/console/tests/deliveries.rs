//! A subscription's deliveries, as pure `update` tests: paged by cursor
//! and only while shown, a server that keeps no history, a later page's
//! 404, and a delivery's text from the server shown escaped.

use super::on_call::refusal;
use super::*;
use crate::api::{Delivery, DeliveryStatus};
use crate::console::screens;

/// A page of deliveries at `offset`, `rows` long, with a next link while
/// `more`.
fn deliveries(offset: u64, rows: u64, more: bool) -> ScreenPage {
    let results = (offset..offset + rows)
        .map(|n| Delivery {
            id: format!("d{n}"),
            status: Some(if n == 0 {
                DeliveryStatus::Failed
            } else {
                DeliveryStatus::Completed
            }),
            ..Delivery::default()
        })
        .collect();
    ScreenPage::new(Page {
        count: 0,
        next: more.then(|| {
            format!(
                "/api/projects/1/subscriptions/1/deliveries/?cursor=c{}",
                offset + rows
            )
        }),
        previous: None,
        results,
    })
}

#[test]
fn deliveries_follow_the_cursor_a_page_at_a_time_and_only_when_shown() {
    let mut app = app();
    app.start();
    let first = key(&mut app, KeyCode::Char('3')).pop().unwrap();
    answer(&mut app, &first, |offset| subscriptions(3, offset));
    let effects = key(&mut app, KeyCode::Enter);
    assert_eq!(app.shown(), ScreenId::Deliveries);
    assert_eq!(fetches(&effects), vec![(ScreenId::Deliveries, 0)]);
    let effects = answer(&mut app, &effects[0], |offset| deliveries(offset, 100, true));
    assert!(
        fetches(&effects).is_empty(),
        "the next page waits until the screen needs it"
    );
    assert!(screen(&app).contains("1/100+"), "more to come: {}", screen(&app));
    assert!(
        screen(&app).contains("FAILED"),
        "a failed one stands out in words"
    );
    let effects = key(&mut app, KeyCode::Char('G'));
    let [fetch] = effects.as_slice() else {
        panic!("{effects:?}")
    };
    assert!(
        matches!(fetch, Effect::Fetch { offset: 100, request: ScreenRequest::Deliveries(screens::deliveries::Request { after: Some(link), .. }), .. } if link.ends_with("cursor=c100")),
        "{fetch:?}"
    );
    answer(&mut app, fetch, |offset| deliveries(offset, 30, false));
    assert_eq!(app.screens.deliveries.rows.list.count(), Some(130));
    assert!(
        screen(&app).contains("/130 "),
        "the end is known: {}",
        screen(&app)
    );
    // Enter on a delivery: its detail.
    key(&mut app, KeyCode::Enter);
    assert!(app.overlays.detail_open);
}

#[test]
fn a_server_without_deliveries_says_it_keeps_no_history() {
    let mut app = app();
    app.start();
    let first = key(&mut app, KeyCode::Char('3')).pop().unwrap();
    answer(&mut app, &first, |offset| subscriptions(3, offset));
    let fetch = key(&mut app, KeyCode::Enter).pop().unwrap();
    let Effect::Fetch {
        list,
        generation,
        offset,
        ..
    } = fetch
    else {
        panic!()
    };
    let not_found = api::Error::Api(Box::new(Refusal {
        status: 404,
        kind: "invalid_request".into(),
        code: "not_found".into(),
        detail: "Not found.".into(),
        attr: None,
        request: api::RequestLabel {
            method: "GET".into(),
            path: "/api/projects/1/subscriptions/1/deliveries/".into(),
        },
    }));
    app.update(Msg::Page {
        list,
        generation,
        offset,
        result: Err(not_found),
    });
    assert_eq!(app.notice.shown, None, "not an error");
    assert!(
        screen(&app).contains("this server keeps no delivery history"),
        "{}",
        screen(&app)
    );
}

#[test]
fn a_later_page_s_404_is_a_failure_not_an_empty_history() {
    let mut app = app();
    app.start();
    let first = key(&mut app, KeyCode::Char('3')).pop().unwrap();
    answer(&mut app, &first, |offset| subscriptions(3, offset));
    let fetch = key(&mut app, KeyCode::Enter).pop().unwrap();
    answer(&mut app, &fetch, |offset| deliveries(offset, 100, true));
    let Some(Effect::Fetch {
        list,
        generation,
        offset,
        ..
    }) = key(&mut app, KeyCode::Char('G')).pop()
    else {
        panic!("the next page")
    };
    app.update(Msg::Page {
        list,
        generation,
        offset,
        result: Err(refusal(404, "Not found.", None)),
    });
    assert!(app.notice.shown.as_ref().is_some_and(|notice| notice.error));
    assert_eq!(
        app.screens.deliveries.rows.list.count(),
        Some(101),
        "the first page stays"
    );
    assert!(!app.screens.deliveries.resource.no_history);
}

#[test]
fn a_delivery_s_text_from_the_server_is_shown_escaped() {
    let mut app = app();
    app.start();
    let first = key(&mut app, KeyCode::Char('3')).pop().unwrap();
    answer(&mut app, &first, |offset| subscriptions(3, offset));
    let fetch = key(&mut app, KeyCode::Enter).pop().unwrap();
    answer(&mut app, &fetch, |_| {
        ScreenPage::new(Page {
            count: 0,
            next: None,
            previous: None,
            results: vec![Delivery {
                id: "d\u{1b}[2J".into(),
                status: Some(DeliveryStatus::Other("fa\u{202e}iled".into())),
                error: Some(serde_json::json!({"message": "boom\u{1b}]52;c;aGk=\u{7}"})),
                recipient_results: vec![api::RecipientResult {
                    recipient: "x@\u{202e}evil".into(),
                    status: Some(api::RecipientStatus::Failed),
                    error: Some(api::DeliveryError {
                        message: Some("no\u{1b}[31m".into()),
                        kind: None,
                    }),
                }],
                ..Delivery::default()
            }],
        })
    });
    for detail in [false, true] {
        if detail {
            key(&mut app, KeyCode::Enter);
        }
        let shown = screen(&app);
        assert!(
            !shown.contains('\u{1b}') && !shown.contains('\u{202e}') && !shown.contains('\u{7}'),
            "{shown}"
        );
        assert!(shown.contains("boom"), "{shown}");
    }
}
