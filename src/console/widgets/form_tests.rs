//! The form's tests: typing, checks, leaving, refusals.

use super::*;

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn form() -> Form {
    Form::new(
        "New role",
        vec![
            Field::text("name", "Name", "", Some(checks::role_name)),
            Field::select(
                "feature_flags_access_level",
                "Feature flags",
                &[("21", "view only"), ("37", "can always edit")],
                "37",
            ),
        ],
    )
}

#[test]
fn typing_checks_the_field_and_submit_waits_for_a_valid_form() {
    let mut form = form();
    assert_eq!(form.key(key(KeyCode::Enter)), Outcome::Editing);
    assert_eq!(form.fields[0].error.as_deref(), Some("required"));
    for c in "Ops".chars() {
        form.key(key(KeyCode::Char(c)));
    }
    assert_eq!(form.fields[0].error, None);
    form.key(key(KeyCode::Tab));
    form.key(key(KeyCode::Left));
    assert_eq!(form.value("feature_flags_access_level"), "21");
    let submit = form.key(KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL));
    assert_eq!(submit, Outcome::Submit);
    form.saving = true;
    assert_eq!(
        form.key(key(KeyCode::Enter)),
        Outcome::Editing,
        "a second submit does nothing"
    );
}

#[test]
fn a_field_added_later_starts_unchanged_and_keeps_the_focus() {
    let mut form = form();
    form.key(key(KeyCode::Tab));
    form.insert_field(1, Field::text("prompt", "Prompt", "ask", None));
    assert_eq!(form.fields[form.focus].name, "feature_flags_access_level");
    assert!(!form.changed());
    form.focus = form.position("prompt").unwrap();
    form.key(key(KeyCode::Char('!')));
    assert_eq!(form.changes(), vec![("Prompt", "ask".into(), "ask!".into())]);
    assert!(form.has("name") && !form.has("title"));
}

#[test]
fn leaving_with_changes_asks_first() {
    let mut form = form();
    assert_eq!(
        form.key(key(KeyCode::Esc)),
        Outcome::Cancel,
        "nothing changed: leave at once"
    );
    let mut form = self::form();
    form.key(key(KeyCode::Char('x')));
    assert_eq!(form.key(key(KeyCode::Esc)), Outcome::Editing);
    assert!(form.confirm_discard, "Discard changes?");
    // Enter and Esc say no: the form stays with what was typed.
    for no in [KeyCode::Enter, KeyCode::Esc, KeyCode::Char('n')] {
        assert_eq!(form.key(key(no)), Outcome::Editing);
        assert!(!form.confirm_discard, "{no:?} says no");
        assert!(form.changed(), "{no:?} keeps what was typed");
        assert_eq!(form.key(key(KeyCode::Esc)), Outcome::Editing);
        assert!(form.confirm_discard);
    }
    // Another key leaves the question open, and types nothing.
    let typed = form.value("name");
    assert_eq!(form.key(key(KeyCode::Char('z'))), Outcome::Editing);
    assert!(form.confirm_discard && form.value("name") == typed);
    assert_eq!(form.key(key(KeyCode::Char('y'))), Outcome::Cancel, "y discards");
}

#[test]
fn refusals_land_on_their_field_and_keep_what_was_typed() {
    let mut form = form();
    for c in "Engineering".chars() {
        form.key(key(KeyCode::Char(c)));
    }
    form.key(key(KeyCode::Tab));
    form.saving = true;
    form.refused("There is already a role with this name.".into(), Some("name"));
    assert!(!form.saving);
    assert_eq!(form.focus, 0);
    assert_eq!(
        form.fields[0].error.as_deref(),
        Some("There is already a role with this name.")
    );
    assert_eq!(form.value("name"), "Engineering");
    form.refused("403 permission_denied".into(), None);
    assert_eq!(form.error.as_deref(), Some("403 permission_denied"));
    assert_eq!(
        form.changes(),
        vec![("Name", String::new(), "Engineering".into())]
    );
}

#[test]
fn a_refused_save_shows_every_error_at_once_and_goes_to_the_first() {
    let mut form = Form::new(
        "New",
        vec![
            Field::text("a", "A", "", Some(checks::required)),
            Field::text("b", "B", "", Some(checks::required)),
            Field::text("c", "C", "fine", None),
        ],
    );
    form.focus = 2;
    assert_eq!(form.key(key(KeyCode::Enter)), Outcome::Editing);
    assert!(form.refused_save, "the owner is told, to add its own checks");
    assert_eq!(form.focus, 0, "the first error has the focus");
    assert!(form.fields[0].error.is_some() && form.fields[1].error.is_some());
    // What the owner checks across fields joins them; those there stay.
    form.show_errors(vec![("c", "not with A empty".into()), ("a", "other".into())]);
    assert_eq!(form.fields[2].error.as_deref(), Some("not with A empty"));
    assert_eq!(form.fields[0].error.as_deref(), Some("required"));
    assert_eq!(form.focus, 0);
}

#[test]
fn a_choice_is_named_by_its_label() {
    let choices = Field::choices(
        "dashboard_export_insights",
        "Insights",
        &[("11", "Signups"), ("12", "Retention")],
        &[],
    );
    assert_eq!(choices.label_of("11,12"), "Signups, Retention");
    assert_eq!(choices.label_of("13"), "13", "one no longer offered: as it is");
    let mut form = form();
    form.focus = 1;
    form.key(key(KeyCode::Left));
    assert_eq!(
        form.changes(),
        vec![(
            "Feature flags",
            "can always edit".to_string(),
            "view only".to_string()
        )]
    );
}

#[test]
fn typing_in_a_choice_lists_what_matches_and_arrows_go_through_those_alone() {
    let options = [
        ("1", "insight: Weekly active users"),
        ("2", "dashboard: Company KPIs"),
        ("3", "insight: Weekly revenue"),
        ("4", "insight: Signups"),
        ("5", "dashboard: Weekly review"),
    ];
    let mut form = Form::new("New", vec![Field::select("delivers", "Delivers", &options, "")]);
    for c in "weekly".chars() {
        form.key(key(KeyCode::Char(c)));
    }
    assert_eq!(form.value("delivers"), "1", "the first that matches");
    form.key(key(KeyCode::Right));
    assert_eq!(
        form.value("delivers"),
        "3",
        "the next that matches, not the next option"
    );
    form.key(key(KeyCode::Right));
    assert_eq!(form.value("delivers"), "5");
    form.key(key(KeyCode::Right));
    assert_eq!(form.value("delivers"), "1", "round again");
    form.key(key(KeyCode::Left));
    assert_eq!(form.value("delivers"), "5");
    // Drawn: the matches listed under the field, how many, the chosen marked.
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(100, 30)).unwrap();
    terminal
        .draw(|frame| {
            draw(
                frame,
                &form,
                Vec::new(),
                &crate::console::kit::theme::Theme::plain(),
            )
        })
        .unwrap();
    let buffer = terminal.backend().buffer();
    let screen: String = (0..30)
        .map(|y| {
            (0..100)
                .map(|x| buffer[(x, y)].symbol().to_string())
                .collect::<String>()
                + "\n"
        })
        .collect();
    assert!(screen.contains("3 of 5 match"), "{screen}");
    assert!(screen.contains("› dashboard: Weekly review"), "{screen}");
    assert!(screen.contains("  insight: Weekly revenue"), "{screen}");
    assert!(!screen.contains("Company KPIs"), "{screen}");
}
