//! `:ctx` in `update`: which answers are taken, what a switch resets, and
//! what waits for it.

use crate::console::screens;
use crate::console::screens::ScreenAsk;
use crate::console::screens::subscriptions::Ask as SubscriptionsAsk;
use crate::console::screens::subscriptions::Msg as SubscriptionsMsg;
use ratatui::crossterm::event::KeyCode;

use super::*;
use crate::console::shell::{Connected, Target};

fn connected(profile: &str, organization: &str) -> Box<Connected> {
    let config = api::ClientConfig::new("http://127.0.0.1:9", api::ApiKey::new("phx_other"));
    Box::new(Connected {
        context: Context {
            profile: Some(profile.into()),
            host: "http://127.0.0.1:9".into(),
            organization: organization.into(),
            project: "7".into(),
            ..Context::default()
        },
        client: api::Client::new(config).unwrap(),
    })
}

#[test]
fn ctx_takes_only_the_last_answer_and_drops_the_old_connections_answers() {
    let mut app = app();
    let first = app.start().pop().unwrap();
    answer(&mut app, &first, |offset| roles(3, offset));
    let asked = command(&mut app, "ctx staging");
    let token = |effects: &[Effect]| match effects {
        [Effect::Connect { ticket, target }] => (*ticket, target.clone()),
        other => panic!("{other:?}"),
    };
    let (first_ask, target) = token(&asked);
    assert_eq!(target, Target::Profile("staging".into()));
    let (second, _) = token(&command(&mut app, "ctx prod"));

    // The first answer comes after the second was asked for: dropped.
    assert!(!app.awaits_connection(first_ask));
    let effects = app.update(Msg::Connected {
        ticket: first_ask,
        result: Ok(connected("staging", "org-s")),
    });
    assert!(effects.is_empty() && app.context.profile.is_none());

    // A failure says why and leaves the screen as it was.
    app.update(Msg::Connected {
        ticket: second,
        result: Err("cannot open profile prod: $PROD_KEY is not set".into()),
    });
    assert!(
        app.notice
            .shown
            .as_ref()
            .is_some_and(|n| n.error && n.text.contains("PROD_KEY"))
    );
    assert_eq!(app.screens.roles.rows.list.count(), Some(3));

    let (third, _) = token(&command(&mut app, "ctx prod"));
    let effects = app.update(Msg::Connected {
        ticket: third,
        result: Ok(connected("prod", "org-p")),
    });
    assert_eq!(app.context.profile.as_deref(), Some("prod"));
    assert_eq!(app.context.organization, "org-p");
    assert_eq!(
        app.screens.roles.rows.list.count(),
        None,
        "the old organization's roles are gone"
    );
    let Some(Effect::LoadScopes { connection }) = effects
        .iter()
        .find(|e| matches!(e, Effect::LoadScopes { .. }))
        .cloned()
    else {
        panic!("{effects:?}")
    };
    assert_ne!(connection, Ticket::default(), "a new connection");
    assert!(effects.contains(&Effect::LoadNames {
        connection,
        organization: "org-p".into(),
        project: "7".into(),
    }));
    assert!(effects.iter().any(
        |e| matches!(e, Effect::Fetch { request: ScreenRequest::Roles(screens::roles::Request { organization }), .. } if organization == "org-p")
    ));

    // Answers still on their way over the old connection change nothing.
    app.update(Msg::Names {
        connection: Ticket::default(),
        current_organization: None,
        current_project: None,
        organizations: Some(Vec::new()),
        projects: Some(Vec::new()),
        cut: false,
    });
    app.update(Msg::Scopes {
        connection: Ticket::default(),
        scopes: Some(vec!["subscription:read".into()]),
    });
    assert_eq!(app.permissions.scopes, None);
    let answer_over_old = answer(&mut app, &first, |offset| roles(3, offset));
    assert!(answer_over_old.is_empty());
    assert_eq!(app.screens.roles.rows.list.count(), None);
}

#[test]
fn ctx_picker_offers_the_start_connection_and_the_profiles() {
    let mut app = app();
    app.start();
    assert_eq!(command(&mut app, "ctx"), vec![Effect::LoadProfiles]);
    app.update(Msg::Profiles(Ok(vec![
        ("cloud".into(), "https://us.posthog.com".into()),
        ("local".into(), "http://127.0.0.1:8010".into()),
    ])));
    let Mode::Switcher(switcher) = &app.mode else {
        panic!()
    };
    let ids: Vec<&str> = switcher.shown().iter().map(|choice| choice.id.as_str()).collect();
    assert_eq!(
        ids,
        ["", "cloud", "local"],
        "where the console started comes first"
    );
    assert_eq!(switcher.current, "", "and is marked as in use");
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Down);
    let effects = key(&mut app, KeyCode::Enter);
    assert!(
        matches!(&effects[..], [Effect::Connect { target: Target::Profile(name), .. }] if name == "local")
    );
}

#[test]
fn writes_wait_for_a_switch_and_the_old_keys_refusals_are_forgotten() {
    let mut app = app();
    let first = app.start().pop().unwrap();
    answer(&mut app, &first, |offset| roles(3, offset));
    let asked = command(&mut app, "ctx prod");
    let [Effect::Connect { ticket, .. }] = &asked[..] else {
        panic!("{asked:?}")
    };
    // While the key is read, no write can start: it would go who knows where.
    for write in ['n', 'e', 'd'] {
        assert!(key(&mut app, KeyCode::Char(write)).is_empty(), "{write}");
        assert!(matches!(app.mode, Mode::Normal));
        assert!(
            app.notice
                .shown
                .as_ref()
                .is_some_and(|n| n.text.contains(":ctx switch"))
        );
    }
    // The old key's refusal, arriving late, says nothing of the new key.
    let Effect::Fetch { generation, .. } = first else {
        panic!()
    };
    app.update(Msg::Connected {
        ticket: *ticket,
        result: Ok(connected("prod", "org-p")),
    });
    app.update(Msg::Page {
        list: ScreenId::Roles,
        generation,
        offset: 0,
        result: Err(missing_scope("organization:write")),
    });
    assert!(app.permissions.denied.is_empty());
    assert!(app.unavailable(crate::console::keymap::Action::New).is_none());
}

#[test]
fn a_catalog_for_a_form_closed_since_is_dropped() {
    let mut app = app();
    app.start();
    key(&mut app, KeyCode::Char('3'));
    let opened = key(&mut app, KeyCode::Char('n'));
    let Some(Effect::Ask(ScreenAsk::Subscriptions(SubscriptionsAsk::Catalog { ticket: old, .. }))) =
        opened.first().cloned()
    else {
        panic!("{opened:?}")
    };
    key(&mut app, KeyCode::Esc);
    let reopened = key(&mut app, KeyCode::Char('n'));
    let Some(Effect::Ask(ScreenAsk::Subscriptions(SubscriptionsAsk::Catalog { ticket: new, .. }))) =
        reopened.first().cloned()
    else {
        panic!("{reopened:?}")
    };
    assert_ne!(old, new);
    let in_flight = app.requests.in_flight;
    app.update(
        SubscriptionsMsg::Catalog {
            ticket: old,
            result: Err(missing_scope("dashboard:read")),
            slack: None,
        }
        .into(),
    );
    assert_eq!(app.requests.in_flight, in_flight - 1, "counted, then dropped");
    let Mode::Form(form, _) = &app.mode else { panic!() };
    let delivers = form.fields.iter().find(|field| field.name == "delivers").unwrap();
    assert_ne!(
        delivers.label, "Delivers (id)",
        "the open form did not fall back on an old answer"
    );
}

#[test]
fn the_project_follows_a_new_organization() {
    let project = |id: i64, organization: &str| api::Project {
        id,
        organization: Some(organization.into()),
        name: format!("Project {id}"),
        ..api::Project::default()
    };
    let names = |app: &mut App| {
        app.update(Msg::Names {
            connection: Ticket::default(),
            current_organization: None,
            current_project: None,
            organizations: Some(Vec::new()),
            projects: Some(vec![
                project(1, "org-1"),
                project(3, "org-2"),
                project(4, "org-2"),
            ]),
            cut: false,
        })
    };
    let mut app = app();
    app.context.organization = "org-1".into();
    app.start();
    names(&mut app);
    assert_eq!(app.context.project, "1", "nothing asked for a change");

    command(&mut app, "org org-2");
    names(&mut app);
    assert_eq!(app.context.project, "3", "the new organization's first project");
    assert!(
        app.notice
            .shown
            .as_ref()
            .is_some_and(|n| n.text.contains("Project 3 (3)"))
    );

    command(&mut app, "project 4");
    command(&mut app, "org org-2");
    names(&mut app);
    assert_eq!(app.context.project, "4", "a project of the organization stays");

    command(&mut app, "org ORG-1");
    command(&mut app, "project 9");
    names(&mut app);
    assert_eq!(app.context.project, "9", "a project chosen after :org is kept");
}

/// A key that reaches more organizations than a switcher holds is told so
/// under the list (issue 19).
#[test]
fn a_switcher_cut_at_its_limit_says_so() {
    let mut app = app();
    app.window.size = (120, 40);
    app.start();
    super::command(&mut app, "org");
    let organizations = (0..3)
        .map(|n| api::Organization {
            id: format!("org-{n}"),
            name: format!("Organization {n}"),
            ..api::Organization::default()
        })
        .collect();
    app.update(Msg::Names {
        connection: Ticket::default(),
        current_organization: None,
        current_project: None,
        organizations: Some(organizations),
        projects: Some(Vec::new()),
        cut: true,
    });
    let shown = super::screen(&app);
    assert!(shown.contains("Organization 2"), "{shown}");
    assert!(
        shown.contains(&format!(
            "showing the first {} organizations of more",
            api::PICKER_ROWS
        )),
        "{shown}"
    );
}
