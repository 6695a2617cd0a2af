//! People's answers without a network: each kind of request is taken from
//! its latest ticket alone, so that a late answer for a narrowing or an
//! index the user has left behind changes nothing.

use std::sync::Arc;

use ratatui::crossterm::event::KeyCode;

use super::{app, key};
use crate::api::{OrganizationMember, User};
use crate::console::screens::ScreenAsk;
use crate::console::screens::people::Ask as PeopleAsk;
use crate::console::screens::people::Msg as PeopleMsg;
use crate::console::shell::{App, Effect, PeopleNews, ScreenId, SharedIndex, Ticket};
use crate::people::RoleIndex;

fn command(app: &mut App, line: &str) -> Vec<Effect> {
    key(app, KeyCode::Char(':'));
    for c in line.chars() {
        key(app, KeyCode::Char(c));
    }
    key(app, KeyCode::Enter)
}

fn index_ticket(effects: &[Effect]) -> Ticket {
    effects
        .iter()
        .find_map(|effect| match effect {
            Effect::Ask(ScreenAsk::People(PeopleAsk::RoleIndex { ticket, .. })) => Some(*ticket),
            _ => None,
        })
        .expect("the index is read")
}

fn narrowing_ticket(effects: &[Effect]) -> Ticket {
    effects
        .iter()
        .find_map(|effect| match effect {
            Effect::Ask(ScreenAsk::People(PeopleAsk::Narrow { ticket, .. })) => Some(*ticket),
            _ => None,
        })
        .expect("a narrowing starts")
}

fn person(email: &str) -> OrganizationMember {
    OrganizationMember {
        user: User {
            uuid: email.into(),
            email: email.into(),
            ..User::default()
        },
        ..OrganizationMember::default()
    }
}

fn index() -> SharedIndex {
    SharedIndex(Arc::new(RoleIndex::default()))
}

#[test]
fn a_narrowing_left_behind_and_an_index_asked_again_drop_their_late_answers() {
    let mut app = app();
    let opened = key(&mut app, KeyCode::Char('4'));
    assert_eq!(app.shown(), ScreenId::People);
    let first = index_ticket(&opened);
    assert!(
        opened.iter().any(|effect| matches!(
            effect,
            Effect::Fetch {
                list: ScreenId::People,
                ..
            }
        )),
        "the first page is asked for at once, the roles meanwhile"
    );
    // :no-role waits for the index, then looks.
    assert!(
        !command(&mut app, "no-role")
            .iter()
            .any(|effect| matches!(effect, Effect::Ask(ScreenAsk::People(PeopleAsk::Narrow { .. }))))
    );
    let looked = app.update(
        PeopleMsg::RoleIndex {
            ticket: first,
            result: Ok(index()),
        }
        .into(),
    );
    let narrowing = narrowing_ticket(&looked);
    app.update(
        PeopleMsg::PeopleNews {
            ticket: narrowing,
            news: PeopleNews::Rows(vec![person("a@x.io")]),
        }
        .into(),
    );
    assert_eq!(app.screens.people.rows.len(), 1);

    // :people leaves it: its news that comes late is dropped.
    command(&mut app, "people");
    assert_eq!(app.screens.people.resource.narrowing, None);
    app.update(
        PeopleMsg::PeopleNews {
            ticket: narrowing,
            news: PeopleNews::Rows(vec![person("b@x.io")]),
        }
        .into(),
    );
    assert_eq!(
        app.screens.people.rows.list.held(),
        0,
        "nothing of the narrowing left"
    );

    // r reads the index again: an answer to the earlier read is dropped.
    let again = index_ticket(&key(&mut app, KeyCode::Char('r')));
    assert_ne!(again, first);
    app.update(
        PeopleMsg::RoleIndex {
            ticket: first,
            result: Err("late".into()),
        }
        .into(),
    );
    assert!(app.screens.people.resource.index_error.is_none());
    assert!(app.screens.people.resource.reading.is_some(), "still reading");
}

#[test]
fn esc_stops_a_look_then_clears_the_narrowing() {
    let mut app = app();
    let opened = key(&mut app, KeyCode::Char('4'));
    app.update(
        PeopleMsg::RoleIndex {
            ticket: index_ticket(&opened),
            result: Ok(index()),
        }
        .into(),
    );
    let effects = command(&mut app, "no-role");
    let stop = effects
        .iter()
        .find_map(|effect| match effect {
            Effect::Ask(ScreenAsk::People(PeopleAsk::Narrow { stop, .. })) => Some(stop.clone()),
            _ => None,
        })
        .unwrap();
    key(&mut app, KeyCode::Esc);
    assert!(stop.is_stopped());
    assert!(
        app.screens.people.resource.narrowing.is_some(),
        "the first Esc stops the look"
    );
    app.update(
        PeopleMsg::PeopleNarrowed {
            ticket: narrowing_ticket(&effects),
            result: Ok(true),
        }
        .into(),
    );
    assert!(app.notice.text().starts_with("stopped"));
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.screens.people.resource.narrowing, None, "the next clears it");
}
