//! News between screens through `screens::Change`: a write's answer told
//! to every screen that shows what it changed. Two effects came with the
//! broadcast that the lists did not have when each write landed by hand,
//! kept on purpose and held here: a role added on a person's page shows in
//! the Members list open on that role, and people assigned on Members are
//! known at once to People's index of who holds which role.

use std::sync::Arc;

use super::app;
use crate::api::{RoleMembership, User};
use crate::console::screens::members::Write as MemberWrite;
use crate::console::screens::members::list::ChosenRole;
use crate::console::screens::people::Write as PeopleWrite;
use crate::console::shell::{Msg, Ticket, Write, WriteAnswer, Written};
use crate::people::RoleIndex;

fn membership(id: &str, role: &str, user: &str) -> RoleMembership {
    RoleMembership {
        id: id.into(),
        role_id: role.into(),
        user: Some(User {
            uuid: user.into(),
            email: format!("{user}@example.com"),
            ..User::default()
        }),
        ..RoleMembership::default()
    }
}

fn answered(write: Write, memberships: Vec<RoleMembership>) -> Msg {
    let results = memberships
        .into_iter()
        .map(|membership| (membership.id.clone(), Ok(membership)))
        .collect();
    Msg::Written(Box::new(WriteAnswer {
        ticket: Ticket::default(),
        write,
        result: Ok(Written::Assigned(results)),
    }))
}

#[test]
fn a_role_added_on_a_persons_page_shows_in_the_members_list_open_on_it() {
    let mut app = app();
    app.screens.members.open(ChosenRole {
        id: "r1".into(),
        name: "Engineering".into(),
    });
    app.update(answered(
        Write::People(PeopleWrite::AddToRoles {
            organization: "o".into(),
            people: Vec::new(),
            roles: Vec::new(),
        }),
        vec![membership("m1", "r1", "u1"), membership("m2", "r2", "u1")],
    ));
    let list = &app.screens.members.rows.list;
    assert!(
        list.position(|row| row.id == "m1").is_some(),
        "its role's membership is shown"
    );
    assert!(
        list.position(|row| row.id == "m2").is_none(),
        "another role's is not"
    );
}

#[test]
fn people_assigned_on_members_are_known_to_peoples_index_at_once() {
    let mut app = app();
    app.screens.people.resource.index = Some(Arc::new(RoleIndex::default()));
    app.screens.members.open(ChosenRole {
        id: "r1".into(),
        name: "Engineering".into(),
    });
    app.update(answered(
        Write::Member(MemberWrite::Assign {
            organization: "o".into(),
            role: "r1".into(),
            people: Vec::new(),
        }),
        vec![membership("m1", "r1", "u1")],
    ));
    let index = app.screens.people.resource.index.as_ref().unwrap();
    let held = index.of("u1");
    assert_eq!(held.len(), 1);
    assert_eq!(
        (held[0].id.as_str(), held[0].membership_id.as_str()),
        ("r1", "m1")
    );
    assert!(
        app.screens
            .members
            .rows
            .list
            .position(|row| row.id == "m1")
            .is_some()
    );
}
