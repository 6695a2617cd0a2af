//! Tests of the subscription form's fields, body and preview.

use super::*;
use crate::api::time::parse_datetime;
use crate::api::{Dashboard, Integration, NamedItem, SlackChannel};
use crate::console::screens::subscriptions::choices::*;

#[test]
fn a_new_form_makes_a_body_the_api_accepts() {
    let now = parse_datetime("2026-11-22T10:20:00Z").unwrap();
    let form = form(None, now);
    let errors = body(&form).unwrap_err();
    assert!(errors.iter().any(|(name, _)| *name == "target_value"));
    let mut form = form;
    form.fields[2] = Field::text("target_value", "Target", "a@b.co, c@d.co", None);
    let body = serde_json::to_value(body(&form).unwrap()).unwrap();
    assert_eq!(body["start_date"], "2026-11-22T11:00:00Z");
    assert_eq!(body["frequency"], "weekly");
    assert_eq!(body["byweekday"], serde_json::Value::Null);
    let schedule = schedule(&form).unwrap();
    assert_eq!(schedule.summary(), "sent every week");
}

#[test]
fn an_edit_sends_only_what_changed() {
    let existing = Subscription {
        id: 7,
        target_type: Some(TargetType::Slack),
        target_value: Some("#ops".into()),
        frequency: Some(Frequency::Daily),
        interval: Some(1),
        insight: Some(3),
        start_date: parse_datetime("2026-01-01T09:00:00Z"),
        ..Subscription::default()
    };
    let mut form = form(Some(&existing), parse_datetime("2026-06-01T09:00:00Z").unwrap());
    form.fields[3] = Field::text("title", "Title", "Ops digest", None);
    let input = body(&form).unwrap();
    let (changed, lines) = changes(&form, &input);
    assert_eq!(
        serde_json::to_value(&changed).unwrap(),
        serde_json::json!({"title": "Ops digest"})
    );
    assert_eq!(lines, ["Title: (none) → Ops digest"]);
    assert_eq!(serde_json::to_value(&input).unwrap()["insight"], 3);
}

#[test]
fn dates_show_back_in_utc_once_left_and_targets_are_checked_as_typed() {
    let mut form = form(None, parse_datetime("2026-11-22T10:20:00Z").unwrap());
    let start = form.fields.iter().position(|f| f.name == "start_date").unwrap();
    form.fields[start].set_text("2026-12-01T09:00:00+02:00");
    form.fields[2].set_text("a@b.co, nope");
    form.focus = 2;
    after_key(&mut form);
    assert_eq!(form.value("start_date"), "2026-12-01 07:00");
    assert!(form.fields[2].error.as_deref().unwrap().contains("\"nope\""));
}

#[test]
fn targets_are_checked_for_their_type() {
    assert!(check_target("email", "a@b.co,c@d.co").is_ok());
    assert!(check_target("email", "a@b.co, nope").is_err());
    assert!(check_target("webhook", "ftp://x").is_err());
    assert!(check_target("webhook", "https://hooks.example.com/x").is_ok());
    assert!(check_target("slack", "#anything").is_ok());
}

fn integration(id: i64, name: &str, errors: &str) -> Integration {
    Integration {
        id,
        kind: "slack".into(),
        display_name: Some(name.into()),
        errors: Some(errors.into()),
        ..Integration::default()
    }
}

#[test]
fn todays_form_needs_something_to_deliver_and_posts_slack_through_an_integration() {
    let now = parse_datetime("2026-11-22T10:20:00Z").unwrap();
    let mut form = form(None, now);
    let slack = [
        integration(1, "Old", "invalid_auth"),
        integration(2, "Hedgebox", ""),
    ];
    today(&mut form, None, false, &slack);
    today(&mut form, None, false, &slack);
    let names: Vec<&str> = form.fields.iter().map(|field| field.name).collect();
    assert_eq!(
        &names[..6],
        [
            "delivers",
            "prompt",
            "ai_prompt_config",
            "target_type",
            "integration_id",
            "target_value"
        ],
        "added once"
    );
    assert_eq!(names.last(), Some(&"send_test_now"));
    assert!(!form.changed(), "what was added starts unchanged");
    let slack_via = &form.fields[4];
    assert_eq!(
        (slack_via.current(), slack_via.shown()),
        ("2".to_string(), "Hedgebox".to_string()),
        "the working one first"
    );
    // No webhook for a new target: email, Slack, and round again.
    let at = form.position("target_type").unwrap();
    form.focus = at;
    form.key(ratatui::crossterm::event::KeyEvent::from(
        ratatui::crossterm::event::KeyCode::Right,
    ));
    form.key(ratatui::crossterm::event::KeyEvent::from(
        ratatui::crossterm::event::KeyCode::Right,
    ));
    assert_eq!(form.value("target_type"), "email");

    form.fields[5].set_text("a@b.co");
    let errors = body(&form).unwrap_err();
    assert_eq!(
        errors.iter().map(|(name, _)| *name).collect::<Vec<_>>(),
        ["delivers"]
    );
    let delivers = form.position("delivers").unwrap();
    form.fields[delivers] = Field::text("delivers", "Delivers", "prompt", None);
    let errors = body(&form).unwrap_err();
    assert_eq!(
        errors.iter().map(|(name, _)| *name).collect::<Vec<_>>(),
        ["prompt"]
    );
    form.fields[1].set_text("  What changed?  ");
    let sent = serde_json::to_value(body(&form).unwrap()).unwrap();
    assert_eq!(sent["prompt"], "What changed?");
    assert!(sent.get("integration_id").is_none(), "only for Slack: {sent:?}");
    form.fields[3] = Field::select("target_type", "Target type", &TODAY_TARGET_TYPES, "slack");
    let sent = serde_json::to_value(body(&form).unwrap()).unwrap();
    assert_eq!(sent["integration_id"], 2);
}

#[test]
fn an_edit_to_slack_takes_the_integration_and_an_ai_report_shows_its_prompt() {
    let existing = Subscription {
        id: 9,
        target_type: Some(TargetType::Email),
        target_value: Some("a@b.co".into()),
        frequency: Some(Frequency::Daily),
        interval: Some(1),
        prompt: Some("What changed?".into()),
        start_date: parse_datetime("2026-01-01T09:00:00Z"),
        ..Subscription::default()
    };
    let mut form = form(Some(&existing), parse_datetime("2026-06-01T09:00:00Z").unwrap());
    assert_eq!(form.value("delivers"), "prompt");
    today(
        &mut form,
        Some(&existing),
        true,
        &[integration(2, "Hedgebox", "")],
    );
    assert_eq!(form.value("prompt"), "What changed?");
    let at = form.position("target_type").unwrap();
    form.fields[at] = Field::select("target_type", "Target type", &TODAY_TARGET_TYPES, "slack");
    let target = form.position("target_value").unwrap();
    form.fields[target].set_text("#ops");
    let input = body(&form).unwrap();
    let (changed, lines) = changes(&form, &input);
    let changed = serde_json::to_value(&changed).unwrap();
    let mut keys: Vec<&String> = changed.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(
        keys,
        ["integration_id", "send_test_now", "target_type", "target_value"]
    );
    assert_eq!(
        changed["send_test_now"], false,
        "an edit delivers only when asked"
    );
    assert_eq!(lines[0], "Target type: email → Slack");
}

#[test]
fn refusals_land_on_the_field_that_chose_what_they_name() {
    let mut form = form(None, parse_datetime("2026-11-22T10:20:00Z").unwrap());
    today(&mut form, None, false, &[]);
    assert_eq!(form_field(&form, Some("dashboard")), Some("delivers"));
    assert_eq!(form_field(&form, Some("insight")), Some("delivers"));
    assert_eq!(
        form_field(&form, Some("prompt")),
        Some("delivers"),
        "hidden: what shows it"
    );
    assert_eq!(form_field(&form, Some("interval")), Some("interval"));
    assert_eq!(form_field(&form, Some("subscription")), Some("subscription"));
    assert_eq!(form_field(&form, None), None);
}

fn press(form: &mut Form, code: ratatui::crossterm::event::KeyCode) {
    form.key(ratatui::crossterm::event::KeyEvent::new(
        code,
        ratatui::crossterm::event::KeyModifiers::NONE,
    ));
    after_key(form);
}

#[test]
fn a_dashboard_offers_its_insights_every_one_chosen_until_a_refusal_tells_the_cap() {
    use crate::api::{DashboardTile, TileInsight};
    use ratatui::crossterm::event::KeyCode;
    let mut form = form(None, parse_datetime("2026-11-22T10:20:00Z").unwrap());
    today(&mut form, None, false, &[integration(2, "Hedgebox", "")]);
    let delivers = form.position("delivers").unwrap();
    form.fields[delivers].set_options(catalog_options(
        &[NamedItem {
            id: 1,
            name: Some("KPIs".into()),
            short_id: None,
            derived_name: None,
        }],
        &[],
    ));
    press(&mut form, KeyCode::Right);
    assert_eq!(wants(&form), (Some(1), None), "the dashboard's tiles are wanted");
    let dashboard = Dashboard {
        id: 1,
        name: Some("KPIs".into()),
        tiles: (1..=8)
            .map(|n| DashboardTile {
                id: n,
                insight: Some(TileInsight {
                    id: n,
                    name: Some(format!("Insight {n}")),
                    ..TileInsight::default()
                }),
            })
            .collect(),
    };
    // Once a refusal has told the cap, the first ones within it are chosen.
    let mut capped = form.clone();
    exports(&mut capped, &dashboard, None, Some(6));
    assert_eq!(capped.value("dashboard_export_insights"), "1,2,3,4,5,6");
    // Until then no cap is assumed: every one is chosen.
    exports(&mut form, &dashboard, None, None);
    assert_eq!(form.value("dashboard_export_insights"), "1,2,3,4,5,6,7,8");
    // The server refuses more than 6: the form learns it from the refusal.
    learn_export_cap(&mut form, 6);
    let at = form.position("dashboard_export_insights").unwrap();
    assert_eq!(
        form.fields[at].error.as_deref(),
        Some("the server allows 6 insights and 8 are chosen: Space on a chosen one frees a place")
    );
    // Two freed; choosing one again beyond the cap is refused as it is chosen.
    form.focus = at;
    for _ in 0..6 {
        press(&mut form, KeyCode::Right);
    }
    press(&mut form, KeyCode::Char(' '));
    press(&mut form, KeyCode::Right);
    press(&mut form, KeyCode::Char(' '));
    assert_eq!(form.value("dashboard_export_insights"), "1,2,3,4,5,6");
    press(&mut form, KeyCode::Char(' '));
    let field = &form.fields[form.focus];
    assert!(field.error.as_deref().unwrap().starts_with("at most 6"));
    assert_eq!(form.value("dashboard_export_insights"), "1,2,3,4,5,6");
    press(&mut form, KeyCode::Left);
    press(&mut form, KeyCode::Left);
    press(&mut form, KeyCode::Char(' '));
    press(&mut form, KeyCode::Right);
    press(&mut form, KeyCode::Char(' '));
    assert_eq!(form.value("dashboard_export_insights"), "1,2,3,4,5,7");
    // Slack: the channel is chosen from the integration's, private marked.
    form.focus = form.position("target_type").unwrap();
    press(&mut form, KeyCode::Right);
    assert_eq!(wants(&form), (Some(1), Some(2)));
    let channel = |id: &str, name: &str, private: bool| SlackChannel {
        id: id.into(),
        name: name.into(),
        is_private: private,
        ..SlackChannel::default()
    };
    channels(
        &mut form,
        &[channel("C1", "growth", false), channel("C2", "exec", true)],
        None,
    );
    assert!(
        form.fields[form.position("target_value").unwrap()].hidden,
        "no typed target"
    );
    let refused = body(&form).unwrap_err();
    assert!(refused.iter().any(|(name, _)| *name == "channel"), "{refused:?}");
    form.focus = form.position("channel").unwrap();
    for c in "exe".chars() {
        press(&mut form, KeyCode::Char(c));
    }
    assert!(form.fields[form.focus].shown().contains("🔒 private"));
    let input = body(&form).unwrap();
    assert_eq!(input.target_value.as_deref(), Some("C2|#exec"));
    assert_eq!(input.integration_id, Some(Some(2)));
    assert_eq!(input.dashboard_export_insights, Some(vec![1, 2, 3, 4, 5, 7]));
}

#[test]
fn todays_form_delivers_on_save_only_when_checked_and_sets_an_ai_report_s_window() {
    use ratatui::crossterm::event::KeyCode;
    let now = parse_datetime("2026-11-22T10:20:00Z").unwrap();
    let mut form = form(None, now);
    today(&mut form, None, false, &[]);
    assert!(delivers_on_save(&form), "checked on a new subscription");
    // An AI report: its window is offered, checked as typed.
    press(&mut form, KeyCode::Right);
    assert_eq!(form.value("delivers"), PROMPT.0);
    let window_at = form.position("ai_prompt_config").unwrap();
    assert!(!form.fields[window_at].hidden);
    let (prompt_at, target_at) = (
        form.position("prompt").unwrap(),
        form.position("target_value").unwrap(),
    );
    form.fields[prompt_at].set_text("Summarise churn");
    form.fields[target_at].set_text("a@b.co");
    form.fields[window_at].set_text("range:7-14");
    let refused = body(&form).unwrap_err();
    assert!(
        refused
            .iter()
            .any(|(name, error)| *name == "ai_prompt_config" && error.contains("fewer days ago")),
        "{refused:?}"
    );
    form.fields[window_at].set_text("range:14-7");
    let input = body(&form).unwrap();
    assert_eq!(
        input.ai_prompt_config,
        Some(
            serde_json::json!({"window": {"mode": "days_ago_range", "start_days_ago": 14, "end_days_ago": 7}})
        )
    );
    assert_eq!(input.send_test_now, Some(true));
    // Unchecked: the body says false, never leaves it to the server.
    form.focus = form.position(SEND_NOW.0).unwrap();
    press(&mut form, KeyCode::Char(' '));
    assert_eq!(body(&form).unwrap().send_test_now, Some(false));

    // An edit starts unchecked, shows the window it has, and sends false
    // with what changed.
    let existing = Subscription {
        id: 3,
        prompt: Some("Summarise churn".into()),
        ai_prompt_config: Some(serde_json::json!({"window": {"mode": "last_n_days", "start_days_ago": 7}})),
        enabled: Some(true),
        target_type: Some(TargetType::Email),
        target_value: Some("a@b.co".into()),
        frequency: Some(Frequency::Weekly),
        interval: Some(1),
        start_date: Some(now),
        ..Subscription::default()
    };
    let mut edit = super::form(Some(&existing), now);
    today(&mut edit, Some(&existing), true, &[]);
    assert_eq!(edit.value("ai_prompt_config"), "last:7");
    assert!(!delivers_on_save(&edit));
    let (changed, lines) = changes(&edit, &body(&edit).unwrap());
    assert!(lines.is_empty(), "{lines:?}");
    assert_eq!(changed.send_test_now, Some(false));
    let window_at = edit.position("ai_prompt_config").unwrap();
    edit.fields[window_at].set_text("last:30");
    let (changed, lines) = changes(&edit, &body(&edit).unwrap());
    assert_eq!(lines, ["Window: last:7 → last:30"]);
    assert_eq!(
        changed.ai_prompt_config,
        Some(serde_json::json!({"window": {"mode": "last_n_days", "start_days_ago": 30}}))
    );
    assert_eq!((changed.send_test_now, changed.title), (Some(false), None));
}

#[test]
fn an_edit_names_the_integrations_it_moves_between_not_their_ids() {
    let existing = Subscription {
        id: 13,
        target_type: Some(TargetType::Slack),
        target_value: Some("#metrics".into()),
        integration_id: Some(1),
        frequency: Some(Frequency::Daily),
        interval: Some(1),
        insight: Some(3),
        start_date: parse_datetime("2026-01-01T09:00:00Z"),
        ..Subscription::default()
    };
    let mut form = form(Some(&existing), parse_datetime("2026-06-01T09:00:00Z").unwrap());
    let slack = [
        integration(1, "Hedgebox (old workspace)", "token_revoked"),
        integration(2, "Hedgebox", ""),
    ];
    today(&mut form, Some(&existing), true, &slack);
    assert_eq!(form.value("integration_id"), format!("{BROKEN}1"));
    form.focus = form.position("integration_id").unwrap();
    press(&mut form, ratatui::crossterm::event::KeyCode::Left);
    assert_eq!(form.value("integration_id"), "2");
    let (changed, lines) = changes(&form, &body(&form).unwrap());
    assert_eq!(
        lines,
        ["Slack via: Hedgebox (old workspace) (revoked: cannot deliver) → Hedgebox"]
    );
    assert_eq!(serde_json::to_value(&changed).unwrap()["integration_id"], 2);
}
