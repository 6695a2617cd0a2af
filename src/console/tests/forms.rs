//! Forms and what answers do to them (only what changed is sent, a late
//! answer never touches another form), roles' access levels, a filter
//! over subscriptions and the detail where there is no pane.

use super::*;

#[test]
fn the_role_form_sends_only_what_changed() {
    let mut app = app();
    let first = app.start().pop().unwrap();
    answer(&mut app, &first, |offset| roles_with_access(2, offset));
    key(&mut app, KeyCode::Char('e'));
    assert!(matches!(app.mode, Mode::Form(..)));
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Left);
    let effects = key(&mut app, KeyCode::Enter);
    let Some(Effect::Write {
        write: crate::console::shell::Write::Role(crate::console::screens::roles::Write::Update { input, .. }),
        ..
    }) = effects.first()
    else {
        panic!("{effects:?}")
    };
    assert_eq!(input.name, None, "the name did not change");
    assert_eq!(input.feature_flags_access_level, Some(21));
    assert!(
        key(&mut app, KeyCode::Enter).is_empty(),
        "a second submit while saving does nothing"
    );
}

/// Today's roles have no access level: none is shown, sorted by, asked for
/// or sent; the default role is marked. An older server's are.
#[test]
fn roles_show_an_access_level_only_where_the_server_keeps_one() {
    let mut app = app();
    let first = app.start().pop().unwrap();
    answer(&mut app, &first, |offset| {
        let page = roles_page(2, offset);
        let mut results = page.results;
        results[1].is_default = Some(true);
        results[0].is_default = Some(false);
        ScreenPage::new(Page { results, ..page })
    });
    let table = &app.screens.roles;
    let headers: Vec<&str> = crate::console::screens::list::List::columns(table)
        .iter()
        .map(|column| column.header)
        .collect();
    assert_eq!(headers, ["NAME", "DEFAULT", "MEMBERS", "CREATED BY", "CREATED"]);
    assert!(!table.resource.access_levels);
    let theme = crate::console::kit::theme::Theme::plain();
    let cells = |app: &App, row| {
        let view = crate::console::kit::view::ViewCx {
            theme: &theme,
            zone: app.context.zone,
            now: app.window.now,
        };
        crate::console::screens::list::List::cells(&app.screens.roles, row, &view).unwrap()
    };
    assert_eq!(
        (
            cells(&app, 0)[1].content.as_ref(),
            cells(&app, 1)[1].content.as_ref()
        ),
        ("", "default")
    );
    key(&mut app, KeyCode::Char('n'));
    let Mode::Form(form, _) = &app.mode else {
        panic!("no form")
    };
    let names: Vec<&str> = form.fields.iter().map(|field| field.name).collect();
    assert_eq!(names, ["name"]);
    for c in "Ops".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    let effects = key(&mut app, KeyCode::Enter);
    let Some(Effect::Write {
        write: crate::console::shell::Write::Role(crate::console::screens::roles::Write::Create { input, .. }),
        ..
    }) = effects.first()
    else {
        panic!("{effects:?}")
    };
    assert_eq!(
        (input.name.as_deref(), input.feature_flags_access_level),
        (Some("Ops"), None)
    );

    let mut older = super::app();
    let first = older.start().pop().unwrap();
    answer(&mut older, &first, |offset| roles_with_access(2, offset));
    let headers: Vec<&str> = crate::console::screens::list::List::columns(&older.screens.roles)
        .iter()
        .map(|column| column.header)
        .collect();
    assert_eq!(headers[1], "ACCESS");
    key(&mut older, KeyCode::Char('n'));
    let Mode::Form(form, _) = &older.mode else {
        panic!("no form")
    };
    assert_eq!(form.value("feature_flags_access_level"), "37");
}

#[test]
fn a_late_answer_never_touches_another_form() {
    use crate::console::shell::{WriteAnswer, Written};
    let mut app = app();
    let first = app.start().pop().unwrap();
    answer(&mut app, &first, |offset| roles(2, offset));
    key(&mut app, KeyCode::Char('n'));
    for c in "Ops".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    let effects = key(&mut app, KeyCode::Enter);
    let Some(Effect::Write { ticket, write }) = effects.first().cloned() else {
        panic!("{effects:?}")
    };
    // Typing while it saves changes nothing; leaving is allowed.
    key(&mut app, KeyCode::Char('x'));
    let Mode::Form(form, _) = &app.mode else { panic!() };
    assert_eq!(form.value("name"), "Ops");
    key(&mut app, KeyCode::Esc); // asks: something was typed
    key(&mut app, KeyCode::Char('y'));
    assert!(matches!(app.mode, Mode::Normal));
    // Another form is open when the answer comes.
    key(&mut app, KeyCode::Char('n'));
    for c in "Zzz".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    let created = Role {
        id: "role-new".into(),
        name: "Ops".into(),
        ..Role::default()
    };
    app.update(Msg::Written(Box::new(WriteAnswer {
        ticket,
        write,
        result: Ok(Written::Role(Box::new(created))),
    })));
    let Mode::Form(form, _) = &app.mode else {
        panic!("the new form was closed")
    };
    assert_eq!(form.value("name"), "Zzz", "nothing typed is lost");
    assert_eq!(
        app.screens.roles.rows.list.len(),
        3,
        "the table still takes the new role"
    );
    // A second destructive change waits for the first.
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('y'));
    key(&mut app, KeyCode::Char('d'));
    let effects = key(&mut app, KeyCode::Char('y'));
    assert!(matches!(effects.first(), Some(Effect::Write { .. })));
    key(&mut app, KeyCode::Char('d'));
    assert!(app.notice.text().contains("still on its way"));
    assert!(matches!(app.mode, Mode::Normal));
}

#[test]
fn filtering_subscriptions_fetches_no_more_pages() {
    let mut app = app();
    app.start();
    let first = key(&mut app, KeyCode::Char('3')).pop().unwrap();
    answer(&mut app, &first, |offset| subscriptions(100_000, offset));
    key(&mut app, KeyCode::Char('/'));
    let mut effects = Vec::new();
    for c in "Report".chars() {
        effects.extend(key(&mut app, KeyCode::Char(c)));
    }
    assert!(
        fetches(&effects).is_empty(),
        "the server searches; the console filters what it has: {effects:?}"
    );
    assert!(app.screens.subscriptions.rows.list.held() <= 200);
}

#[test]
fn the_detail_opens_over_the_table_where_there_is_no_pane() {
    let mut app = App::new(Context::default(), Keymap::default(), (80, 14));
    assert!(!app.has_detail_pane());
    app.start();
    let first = key(&mut app, KeyCode::Char('3')).pop().unwrap();
    answer(&mut app, &first, |offset| subscriptions(10, offset));
    key(&mut app, KeyCode::Char('v'));
    assert!(app.overlays.detail_open);
    key(&mut app, KeyCode::Char('J'));
    assert_eq!(app.overlays.scroll.detail, 3);
    // J stops where the last line is at the bottom: no blank pages.
    for _ in 0..50 {
        key(&mut app, KeyCode::Char('J'));
    }
    let last = app.overlays.scroll.detail;
    assert!(last > 3 && last < 40, "{last}");
    assert!(
        screen(&app).contains("none left in the schedule"),
        "{}",
        screen(&app)
    );
    key(&mut app, KeyCode::Esc);
    assert!(!app.overlays.detail_open && !app.window.quit);
    key(&mut app, KeyCode::Char('v'));
    assert!(app.overlays.detail_open, "v opens it too where there is no pane");
}
