//! The subscription form: every writable field of api.md, the body it
//! sends, the changes an edit would make, and the schedule it describes (for
//! the live preview of the summary and the next deliveries).
//!
//! On today's PostHog (the project answers for its Slack integrations) the
//! form grows what it needs there: an AI report to deliver with its prompt,
//! the Slack integration a Slack target posts through, no new webhooks, and
//! something to deliver is required (posthog.md 8.2); what it offers to
//! choose from there (a dashboard's insights, Slack channels) is in
//! `choices`. A dashboard whose tiles could not be read exports every
//! insight on it when the form is sent (`effects.rs`); the server's cap is
//! never assumed. On today's PostHog the body always says `send_test_now`:
//! true only when "Deliver once on save" is checked.

use chrono::{DateTime, Duration, DurationRound, Utc};

use ratatui::text::{Line, Span};

use super::choices::{BROKEN, FIXED, SEND_NOW, delivers_on_save, visibility};
use crate::api::time::parse_user_datetime;
use crate::api::{Frequency, Subscription, SubscriptionInput, TargetType, Weekday, Window};
use crate::console::widgets::form::{Field, Form};
use crate::console::widgets::popup::LABEL;
use crate::schedule::Schedule;

const TARGET_TYPES: [(&str, &str); 3] = [("email", "email"), ("slack", "Slack"), ("webhook", "webhook")];
/// Today's PostHog has no webhooks (posthog.md 13-6).
pub(super) const TODAY_TARGET_TYPES: [(&str, &str); 2] = [("email", "email"), ("slack", "Slack")];
/// The "Delivers" choice of an AI report, whose question is the prompt.
pub(super) const PROMPT: (&str, &str) = ("prompt", "AI report: answers the prompt below");
/// The longest prompt PostHog takes (posthog.md 8.2-4).
const PROMPT_LIMIT: usize = 4000;
const FREQUENCIES: [(&str, &str); 4] = [
    ("daily", "daily"),
    ("weekly", "weekly"),
    ("monthly", "monthly"),
    ("yearly", "yearly"),
];
const WEEKDAYS: [(&str, &str); 7] = [
    ("monday", "Mo"),
    ("tuesday", "Tu"),
    ("wednesday", "We"),
    ("thursday", "Th"),
    ("friday", "Fr"),
    ("saturday", "Sa"),
    ("sunday", "Su"),
];
const POSITIONS: [(&str, &str); 6] = [
    ("", "none"),
    ("1", "first"),
    ("2", "second"),
    ("3", "third"),
    ("4", "fourth"),
    ("-1", "last"),
];

fn positive(text: &str) -> Result<(), String> {
    match text.trim().parse::<i64>() {
        Ok(n) if (1..=i64::from(i32::MAX)).contains(&n) => Ok(()),
        _ => Err("a whole number, 1 or more".into()),
    }
}

fn optional_positive(text: &str) -> Result<(), String> {
    if text.trim().is_empty() {
        Ok(())
    } else {
        positive(text)
    }
}

fn date(text: &str) -> Result<(), String> {
    parse_user_datetime(text)
        .map(|_| ())
        .ok_or_else(|| "a date: 2026-12-01, 2026-12-01 09:00 or ISO 8601 (UTC)".into())
}

fn optional_date(text: &str) -> Result<(), String> {
    if text.trim().is_empty() {
        Ok(())
    } else {
        date(text)
    }
}

fn title(text: &str) -> Result<(), String> {
    let length = text.trim().chars().count();
    if length > 100 {
        Err(format!("at most 100 characters ({length} now)"))
    } else {
        Ok(())
    }
}

fn required(text: &str) -> Result<(), String> {
    crate::console::widgets::form::checks::required(text)
}

/// How a date shows in the form: UTC, to the minute.
fn when(at: Option<DateTime<Utc>>) -> String {
    at.map(|at| at.format("%Y-%m-%d %H:%M").to_string())
        .unwrap_or_default()
}

pub(super) fn prompt(text: &str) -> Result<(), String> {
    let length = text.trim().chars().count();
    if length > PROMPT_LIMIT {
        Err(format!("at most {PROMPT_LIMIT} characters ({length} now)"))
    } else {
        Ok(())
    }
}

/// An AI report's window as typed: since-last-sent, last:N,
/// range:START-END, or empty for the server's default.
pub(super) fn window(text: &str) -> Result<(), String> {
    if text.trim().is_empty() {
        return Ok(());
    }
    Window::parse(text).map(|_| ())
}

/// "dashboard:5", "insight:7", "prompt" or "" for what a subscription delivers.
fn delivers(subscription: Option<&Subscription>) -> String {
    match subscription {
        Some(Subscription {
            dashboard: Some(id), ..
        }) => format!("dashboard:{id}"),
        Some(Subscription {
            insight: Some(id), ..
        }) => format!("insight:{id}"),
        Some(Subscription { prompt: Some(_), .. }) => PROMPT.0.to_string(),
        _ => String::new(),
    }
}

/// The form for a new subscription (`existing` None) or for editing one.
pub fn form(existing: Option<&Subscription>, now: DateTime<Utc>) -> Form {
    let s = existing;
    let text = |value: Option<&String>| value.cloned().unwrap_or_default();
    let mut fields = vec![
        delivers_field(existing),
        Field::select(
            "target_type",
            "Target type",
            &TARGET_TYPES,
            s.and_then(|s| s.target_type.as_ref())
                .map(TargetType::as_str)
                .unwrap_or("email"),
        ),
        Field::text(
            "target_value",
            "Target",
            &text(s.and_then(|s| s.target_value.as_ref())),
            Some(required),
        ),
        Field::text(
            "title",
            "Title",
            &text(s.and_then(|s| s.title.as_ref())),
            Some(title),
        ),
    ];
    fields.extend(schedule_fields(existing, now));
    fields.push(Field::text(
        "invite_message",
        "Invite message",
        &text(s.and_then(|s| s.invite_message.as_ref())),
        None,
    ));
    let title = match s {
        Some(subscription) => format!("Edit subscription #{}", subscription.id),
        None => "New subscription".into(),
    };
    Form::new(title, fields)
}

/// What the subscription delivers: fixed for an edit, chosen for a new
/// one once the project's dashboards and insights are loaded.
fn delivers_field(existing: Option<&Subscription>) -> Field {
    let delivered = delivers(existing);
    let fixed = format!("{delivered} {FIXED}");
    let delivers_options = if existing.is_some() {
        // What a subscription delivers cannot change (posthog.md 8.2): shown, not offered.
        vec![(delivered.as_str(), fixed.as_str())]
    } else {
        vec![(
            "",
            "nothing chosen (loading the project's dashboards and insights…)",
        )]
    };
    Field::select("delivers", "Delivers", &delivers_options, &delivered)
}

/// When it delivers: the rule (frequency, interval, weekdays, position,
/// count) and its start and end, a new one starting at the next hour.
fn schedule_fields(existing: Option<&Subscription>, now: DateTime<Utc>) -> Vec<Field> {
    let s = existing;
    let next_hour = now.duration_trunc(Duration::hours(1)).unwrap_or(now) + Duration::hours(1);
    vec![
        Field::select(
            "frequency",
            "Frequency",
            &FREQUENCIES,
            s.and_then(|s| s.frequency.as_ref())
                .map(Frequency::as_str)
                .unwrap_or("weekly"),
        ),
        Field::text(
            "interval",
            "Every",
            &s.and_then(|s| s.interval).unwrap_or(1).to_string(),
            Some(positive),
        ),
        Field::choices(
            "byweekday",
            "Weekdays",
            &WEEKDAYS,
            &s.and_then(|s| s.byweekday.as_ref())
                .map(|days| {
                    days.iter()
                        .map(|day| day.as_str().to_string())
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default(),
        ),
        Field::select(
            "bysetpos",
            "Position",
            &POSITIONS,
            &s.and_then(|s| s.bysetpos)
                .map(|p| p.to_string())
                .unwrap_or_default(),
        ),
        Field::text(
            "count",
            "Deliveries",
            &s.and_then(|s| s.count).map(|n| n.to_string()).unwrap_or_default(),
            Some(optional_positive),
        ),
        Field::text(
            "start_date",
            "Starts (UTC)",
            &when(s.and_then(|s| s.start_date).or(Some(next_hour))),
            Some(date),
        ),
        Field::text(
            "until_date",
            "Until (UTC)",
            &when(s.and_then(|s| s.until_date)),
            Some(optional_date),
        ),
    ]
}

fn is_email(address: &str) -> bool {
    let Some((local, domain)) = address.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !address.contains(char::is_whitespace)
}

/// The target value must suit the target type.
fn check_target(target_type: &str, value: &str) -> Result<(), String> {
    match target_type {
        "email" => match value.split(',').map(str::trim).find(|address| !is_email(address)) {
            Some(bad) => Err(format!(
                "\"{bad}\" is not an e-mail address (separate several with commas)"
            )),
            None => Ok(()),
        },
        "webhook" => {
            let url = url::Url::parse(value.trim()).ok();
            if url.is_some_and(|url| matches!(url.scheme(), "http" | "https") && url.host_str().is_some()) {
                Ok(())
            } else {
                Err("an http:// or https:// address".into())
            }
        }
        _ => Ok(()),
    }
}

/// After each key: the target checked against its type as it is typed, and
/// dates in the fields the user has left shown back in UTC.
pub fn after_key(form: &mut Form) {
    let target_type = form.value("target_type");
    let focused = form.fields.get(form.focus).map(|field| field.name);
    for field in &mut form.fields {
        match field.name {
            "target_value" if !field.current().trim().is_empty() => {
                field.error = check_target(&target_type, &field.current()).err();
            }
            "start_date" | "until_date" if Some(field.name) != focused => {
                if let Some(at) = parse_user_datetime(&field.current()) {
                    let shown = when(Some(at));
                    if shown != field.current() {
                        field.set_text(&shown);
                    }
                }
            }
            _ => {}
        }
    }
    visibility(form);
}

/// The request body of the whole form, or what is wrong, by field.
pub fn body(form: &Form) -> Result<SubscriptionInput, Errors> {
    let mut errors = Vec::new();
    if !(form.value("target_type") == "slack" && form.has("channel"))
        && let Err(error) = check_target(&form.value("target_type"), &form.value("target_value"))
    {
        errors.push(("target_value", error));
    }
    let number = |name: &str| form.value(name).trim().parse::<i64>().ok();
    let delivers = form.value("delivers");
    let (dashboard, insight) = match delivers.trim().split_once(':') {
        Some(("dashboard", id)) => (id.trim().parse::<i64>().ok(), None),
        Some(("insight", id)) => (None, id.trim().parse::<i64>().ok()),
        _ => (None, None),
    };
    // Today's PostHog (the form has a prompt) delivers something, always.
    if form.has("prompt") && delivers.trim().is_empty() {
        errors.push((
            "delivers",
            "choose what it delivers: a dashboard, an insight or an AI report".into(),
        ));
    }
    let (prompt, ai_prompt_config) = ai_report(form, &delivers, &mut errors);
    let target_type = form.value("target_type");
    let (integration_id, target_value) = slack_target(form, &target_type, &mut errors);
    let exports = chosen_exports(form, dashboard.is_some(), &mut errors);
    let days = form.value("byweekday");
    let start_date = parse_user_datetime(&form.value("start_date"));
    if start_date.is_none() {
        errors.push((
            "start_date",
            "a date: 2026-12-01, 2026-12-01 09:00 or ISO 8601 (UTC)".into(),
        ));
    }
    let input = SubscriptionInput {
        dashboard: Some(dashboard),
        insight: Some(insight),
        prompt,
        integration_id,
        target_type: Some(TargetType::from_wire(&target_type)),
        target_value: Some(target_value),
        dashboard_export_insights: exports,
        title: Some(Some(form.value("title").trim().to_string())),
        frequency: Some(Frequency::from_wire(&form.value("frequency"))),
        interval: number("interval"),
        byweekday: Some((!days.is_empty()).then(|| days.split(',').map(Weekday::from_wire).collect())),
        bysetpos: Some(form.value("bysetpos").parse::<i64>().ok()),
        count: Some(number("count")),
        start_date,
        until_date: Some(parse_user_datetime(&form.value("until_date"))),
        invite_message: Some(Some(form.value("invite_message"))),
        ai_prompt_config,
        // Today's PostHog alone has the checkbox; an older one never sees the field.
        send_test_now: form.has(SEND_NOW.0).then(|| delivers_on_save(form)),
        ..SubscriptionInput::default()
    };
    if errors.is_empty() { Ok(input) } else { Err(errors) }
}

/// What the body says is wrong, by field.
pub type Errors = Vec<(&'static str, String)>;

/// An AI report's question and the window it covers (today's PostHog),
/// where the form delivers one: none otherwise.
fn ai_report(
    form: &Form,
    delivers: &str,
    errors: &mut Errors,
) -> (Option<Option<String>>, Option<serde_json::Value>) {
    let mut prompt = None;
    let mut ai_prompt_config = None;
    if delivers.trim() == PROMPT.0 {
        let asked = form.value("prompt").trim().to_string();
        if asked.is_empty() {
            errors.push(("prompt", "required: the question the AI report answers".into()));
        }
        prompt = Some(Some(asked));
        if form.has("ai_prompt_config") {
            let typed = form.value("ai_prompt_config");
            ai_prompt_config = match typed.trim() {
                "" => Some(serde_json::json!({})),
                typed => match Window::parse(typed) {
                    Ok(covered) => Some(covered.config()),
                    Err(error) => {
                        errors.push(("ai_prompt_config", error));
                        None
                    }
                },
            };
        }
    }
    (prompt, ai_prompt_config)
}

/// The integration a Slack target posts through and the target value
/// (a Slack channel chosen where the form offers channels).
fn slack_target(form: &Form, target_type: &str, errors: &mut Errors) -> (Option<Option<i64>>, String) {
    let number = |name: &str| form.value(name).trim().parse::<i64>().ok();
    let slack = target_type == "slack";
    if slack && form.value("integration_id").starts_with(BROKEN) {
        errors.push((
            "integration_id",
            "revoked: it cannot deliver; reconnect Slack in PostHog, or choose another".into(),
        ));
    }
    let integration_id = (slack && form.has("integration_id")).then(|| number("integration_id"));
    let mut target_value = form.value("target_value").trim().to_string();
    if slack && form.has("channel") {
        target_value = form.value("channel");
        if target_value.is_empty() {
            errors.push(("channel", "choose a channel: type to search".into()));
        }
    }
    (integration_id, target_value)
}

/// The insights of a dashboard its deliveries export, where the form
/// offers them (at least one).
fn chosen_exports(form: &Form, dashboard: bool, errors: &mut Errors) -> Option<Vec<i64>> {
    let mut exports = None;
    if dashboard && form.has("dashboard_export_insights") {
        let chosen: Vec<i64> = form
            .value("dashboard_export_insights")
            .split(',')
            .filter_map(|id| id.parse().ok())
            .collect();
        if chosen.is_empty() {
            errors.push((
                "dashboard_export_insights",
                "choose at least one of the dashboard's insights".into(),
            ));
        }
        exports = Some(chosen);
    }
    exports
}

/// For an edit: only the fields that changed, and "label: old → new"
/// lines; `send_test_now` goes as the form says, whatever changed (it is
/// no field of the subscription, and the question says it apart).
pub fn changes(form: &Form, input: &SubscriptionInput) -> (SubscriptionInput, Vec<String>) {
    let mut names: Vec<&str> = vec![SEND_NOW.0];
    let mut lines = Vec::new();
    for (label, before, after) in form.changes() {
        let Some(field) = form.fields.iter().find(|field| field.label == label) else {
            continue;
        };
        if field.name == SEND_NOW.0 {
            continue;
        }
        // A change of target type takes its integration with it.
        match field.name {
            "delivers" => names.extend(["dashboard", "insight", "prompt"]),
            "target_type" => names.extend(["target_type", "integration_id"]),
            "channel" => names.push("target_value"),
            name => names.push(name),
        }
        let shown = |text: &str| {
            if text.is_empty() {
                "(none)".to_string()
            } else {
                text.to_string()
            }
        };
        lines.push(format!("{label}: {} → {}", shown(&before), shown(&after)));
    }
    (input.only(&names), lines)
}

/// The schedule the form describes, when it describes one.
pub fn schedule(form: &Form) -> Option<Schedule> {
    Some(Schedule {
        frequency: Frequency::from_wire(&form.value("frequency")),
        interval: form
            .value("interval")
            .trim()
            .parse()
            .ok()
            .filter(|&n: &i64| n > 0)?,
        byweekday: form
            .value("byweekday")
            .split(',')
            .filter(|d| !d.is_empty())
            .map(Weekday::from_wire)
            .collect(),
        bysetpos: form.value("bysetpos").parse().ok(),
        count: form.value("count").trim().parse().ok(),
        start: parse_user_datetime(&form.value("start_date"))?,
        until: parse_user_datetime(&form.value("until_date")),
        // A preview follows today's PostHog; the rules differ only at the
        // edges (posthog.md 8.5), and the saved row shows the server's own.
        rules: crate::schedule::Rules::Today,
    })
}

/// What a subscription form's schedule would do: its summary and next
/// deliveries, or a warning when none is left.
pub fn preview(
    form: &Form,
    now: chrono::DateTime<chrono::Utc>,
    theme: &crate::console::kit::theme::Theme,
) -> Vec<Line<'static>> {
    let Some(schedule) = schedule(form) else {
        return vec![Line::styled(
            " preview: the schedule is not complete yet",
            theme.dim,
        )];
    };
    let mut lines = vec![Line::from(vec![
        Span::styled(format!(" {:<LABEL$}  ", "Preview"), theme.accent),
        Span::raw(schedule.summary()),
    ])];
    let next = schedule.occurrences_after(now + crate::schedule::DELIVERY_LEAD, 5);
    if next.is_empty() {
        lines.push(Line::styled(
            "   no delivery is left in this schedule: the server will refuse it",
            theme.warning,
        ));
    }
    for at in next {
        lines.push(Line::raw(format!(
            "   {}  {}",
            at.format("%a %Y-%m-%d %H:%M UTC"),
            crate::display::relative(at, now)
        )));
    }
    lines
}

#[cfg(test)]
#[path = "fields_tests.rs"]
mod tests;
