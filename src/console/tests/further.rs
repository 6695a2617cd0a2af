//! A narrowing to one state that stops at its limit among very many rows,
//! and `L`, which has its look go on (issue 21).

use ratatui::crossterm::event::KeyCode;

use super::on_call::with_states;
use super::{answer, app, fetches, key, screen};
use crate::api::SubscriptionState;
use crate::console::screens::subscriptions::list::SCAN_LIMIT;
use crate::console::shell::Effect;

/// Answers every page the look asks for until it asks for none; the
/// offsets asked for.
fn answer_all(app: &mut crate::console::shell::App, mut effects: Vec<Effect>) -> Vec<u64> {
    let now = app.window.now;
    let mut asked = Vec::new();
    while let Some(fetch) = effects
        .iter()
        .find(|effect| matches!(effect, Effect::Fetch { .. }))
        .cloned()
    {
        asked.extend(
            fetches(std::slice::from_ref(&fetch))
                .into_iter()
                .map(|(_, offset)| offset),
        );
        effects = answer(app, &fetch, |offset| with_states(100_000, offset, now));
        assert!(asked.len() < 1_000, "the look never stops");
    }
    asked
}

#[test]
fn a_look_stopped_at_its_limit_goes_on_when_asked() {
    let mut app = app();
    app.window.size = (160, 40);
    let now = app.window.now;
    app.start();
    let first = key(&mut app, KeyCode::Char('3')).pop().unwrap();
    answer(&mut app, &first, |offset| with_states(100_000, offset, now));
    // Paused: one in five of 100,000, all the way down.
    let effects = super::command(&mut app, "state paused");
    answer_all(&mut app, effects);
    let table = &app.screens.subscriptions;
    assert_eq!(table.resource.state, Some(SubscriptionState::Paused));
    assert_eq!(table.rows.len(), SCAN_LIMIT / 5);
    let shown = screen(&app);
    assert!(
        shown.contains("match in the first 5000 of 100000 · L: more"),
        "{shown}"
    );
    // L: 5,000 more, from where it stopped.
    let effects = key(&mut app, KeyCode::Char('L'));
    let asked = answer_all(&mut app, effects);
    assert_eq!(asked.first(), Some(&SCAN_LIMIT), "{asked:?}");
    assert_eq!(asked.last(), Some(&(2 * SCAN_LIMIT - 100)));
    assert_eq!(app.screens.subscriptions.rows.len(), 2 * SCAN_LIMIT / 5);
    assert!(screen(&app).contains("match in the first 10000 of 100000 · L: more"));
    // A new narrowing starts at the limit again.
    let effects = key(&mut app, KeyCode::Char('f'));
    answer_all(&mut app, effects);
    assert_eq!(app.screens.subscriptions.resource.looked_further, 0);
    assert_eq!(
        app.screens.subscriptions.resource.state,
        Some(SubscriptionState::Ended)
    );
}
