//! The subscription form: every writable field of api.md, the body it
//! sends, the changes an edit would make, and the schedule it describes (for
//! the live preview of the summary and the next deliveries).
//!
//! On today's PostHog (the project answers for its Slack integrations) the
//! form grows what it needs there: an AI report to deliver with its prompt,
//! the Slack integration a Slack target posts through, no new webhooks, and
//! something to deliver is required (posthog.md 8.2). A dashboard's
//! insights to export are chosen when the form is sent (`effects.rs`).

use chrono::{DateTime, Duration, DurationRound, Utc};

use ratatui::text::{Line, Span};

use crate::api::time::parse_user_datetime;
use crate::api::{
    Dashboard, EXPORT_CAP, Frequency, Integration, NamedItem, SlackChannel, Subscription, SubscriptionInput,
    TargetType, Weekday,
};
use crate::console::widgets::form::{Field, Form, Value as FieldValue};
use crate::console::widgets::popup::LABEL;
use crate::schedule::Schedule;
use crate::text::printable;

const TARGET_TYPES: [(&str, &str); 3] = [("email", "email"), ("slack", "Slack"), ("webhook", "webhook")];
/// Today's PostHog has no webhooks (posthog.md 13-6).
const TODAY_TARGET_TYPES: [(&str, &str); 2] = [("email", "email"), ("slack", "Slack")];
/// The "Delivers" choice of an AI report, whose question is the prompt.
const PROMPT: (&str, &str) = ("prompt", "AI report: answers the prompt below");
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

fn prompt(text: &str) -> Result<(), String> {
    let length = text.trim().chars().count();
    if length > PROMPT_LIMIT {
        Err(format!("at most {PROMPT_LIMIT} characters ({length} now)"))
    } else {
        Ok(())
    }
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
    let next_hour = now.duration_trunc(Duration::hours(1)).unwrap_or(now) + Duration::hours(1);
    let delivered = delivers(s);
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
    let fields = vec![
        Field::select("delivers", "Delivers", &delivers_options, &delivered),
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
        Field::text(
            "invite_message",
            "Invite message",
            &text(s.and_then(|s| s.invite_message.as_ref())),
            None,
        ),
    ];
    let title = match s {
        Some(subscription) => format!("Edit subscription #{}", subscription.id),
        None => "New subscription".into(),
    };
    Form::new(title, fields)
}

/// Said of "Delivers" on an edit.
const FIXED: &str = "(cannot change: make a new subscription for another)";

/// On an edit, "Delivers" names what it delivers, from the catalog.
pub fn fixed_delivers(form: &mut Form, dashboards: &[NamedItem], insights: &[NamedItem]) {
    let Some(field) = form.fields.iter_mut().find(|field| field.name == "delivers") else {
        return;
    };
    let delivered = field.current();
    let label = catalog_options(dashboards, insights)
        .into_iter()
        .find(|(value, _)| *value == delivered)
        .map(|(_, label)| label)
        .unwrap_or_else(|| {
            if delivered == PROMPT.0 {
                "AI report".into()
            } else {
                delivered.clone()
            }
        });
    if let FieldValue::Select { options, .. } = &mut field.value {
        *options = vec![(delivered, format!("{label} {FIXED}"))];
    }
}

/// The options of the "Delivers" field from the project's catalog.
pub fn catalog_options(dashboards: &[NamedItem], insights: &[NamedItem]) -> Vec<(String, String)> {
    let name = |item: &NamedItem| {
        printable(&item.name.clone().unwrap_or_else(|| format!("#{}", item.id))).into_owned()
    };
    std::iter::once((String::new(), "nothing chosen".to_string()))
        .chain(
            dashboards
                .iter()
                .map(|d| (format!("dashboard:{}", d.id), format!("dashboard: {}", name(d)))),
        )
        .chain(
            insights
                .iter()
                .map(|i| (format!("insight:{}", i.id), format!("insight: {}", name(i)))),
        )
        .collect()
}

/// The value of a revoked integration's option.
const BROKEN: &str = "revoked:";

/// The dashboard's insights arrived: "Insights" offers them, every one
/// chosen up to the cap (or those an edited subscription exports), no
/// more than the cap at once.
pub fn exports(form: &mut Form, dashboard: &Dashboard, exported: Option<&[i64]>) {
    let insights = dashboard.insights();
    let options: Vec<(String, String)> = insights
        .iter()
        .map(|insight| (insight.id.to_string(), printable(&insight.title()).into_owned()))
        .collect();
    let chosen: Vec<String> = match exported {
        Some(ids) => ids.iter().map(i64::to_string).collect(),
        None => dashboard
            .default_exports()
            .iter()
            .map(|insight| insight.id.to_string())
            .collect(),
    };
    let options: Vec<(&str, &str)> = options.iter().map(|(v, l)| (v.as_str(), l.as_str())).collect();
    let mut field =
        Field::choices("dashboard_export_insights", "Insights", &options, &chosen).at_most(EXPORT_CAP);
    if options.is_empty() {
        field.error = Some("this dashboard has no insights to export: choose another".into());
    }
    match form.position("dashboard_export_insights") {
        Some(at) => form.fields[at] = field,
        None => {
            let after = form
                .position("prompt")
                .or_else(|| form.position("delivers"))
                .map_or(0, |at| at + 1);
            form.insert_field(after, field);
        }
    }
    visibility(form);
}

/// The integration's channels arrived: "Channel" offers them, searched as
/// typed, private ones marked; the target a subscription has stays chosen.
pub fn channels(form: &mut Form, channels: &[SlackChannel], target: Option<&str>) {
    let mut options = vec![(String::new(), "choose a channel: type to search".to_string())];
    options.extend(channels.iter().map(|channel| {
        let private = if channel.is_private { "  🔒 private" } else { "" };
        (
            channel.target_value(),
            printable(&format!("#{}{private}", channel.name)).into_owned(),
        )
    }));
    // "C123|#name", "#name" or "C123": the channel it names.
    let chosen = target
        .and_then(|target| {
            let id = target.split('|').next().unwrap_or(target);
            channels
                .iter()
                .find(|c| c.id == id || format!("#{}", c.name) == target || c.name == target)
                .map(SlackChannel::target_value)
                .or_else(|| Some(target.to_string()).filter(|t| !t.is_empty()))
        })
        .unwrap_or_default();
    if !chosen.is_empty() && !options.iter().any(|(value, _)| *value == chosen) {
        options.push((chosen.clone(), printable(&chosen).into_owned()));
    }
    let options: Vec<(&str, &str)> = options.iter().map(|(v, l)| (v.as_str(), l.as_str())).collect();
    let field = Field::select("channel", "Channel", &options, &chosen);
    match form.position("channel") {
        Some(at) => {
            let focus = form.focus;
            form.fields[at] = field;
            form.focus = focus;
        }
        None => {
            let after = form
                .position("integration_id")
                .or_else(|| form.position("target_type"))
                .map_or(0, |at| at + 1);
            form.insert_field(after, field);
        }
    }
    visibility(form);
}

/// Shows the fields that apply to what the form says: the prompt for an AI
/// report, the insights for a dashboard, the integration and channel for
/// Slack (instead of a typed target, once the channels are known).
pub fn visibility(form: &mut Form) {
    let delivers = form.value("delivers");
    let slack = form.value("target_type") == "slack";
    form.show("prompt", delivers == PROMPT.0);
    form.show("dashboard_export_insights", delivers.starts_with("dashboard:"));
    form.show("integration_id", slack);
    form.show("channel", slack);
    let channel_chosen_from_list = slack && form.has("channel");
    form.show("target_value", !channel_chosen_from_list);
}

/// What the form needs from the server now: the tiles of the dashboard it
/// delivers, and the channels of the Slack integration it posts through.
pub fn wants(form: &Form) -> (Option<i64>, Option<i64>) {
    let dashboard = form
        .value("delivers")
        .strip_prefix("dashboard:")
        .and_then(|id| id.trim().parse().ok());
    let integration = (form.value("target_type") == "slack" && form.has("integration_id"))
        .then(|| form.value("integration_id").parse().ok())
        .flatten();
    (dashboard, integration)
}

/// The field of the form a refusal's `attr` is about: "dashboard",
/// "insight" and "prompt" are chosen under "Delivers" (the prompt has its
/// own field while shown), a Slack target under "Channel"; others by name.
pub fn form_field<'a>(form: &Form, attr: Option<&'a str>) -> Option<&'a str> {
    let attr = attr?;
    let shown = |name: &str| form.position(name).is_some_and(|at| !form.fields[at].hidden);
    Some(match attr.split("__").next().unwrap_or(attr) {
        "prompt" if shown("prompt") => "prompt",
        "dashboard" | "insight" | "prompt" => "delivers",
        "target_value" if shown("channel") => "channel",
        _ => attr,
    })
}

/// Where the catalog cannot be listed, "Delivers" takes an id as text.
pub fn catalog_fallback(form: &mut Form) {
    fn check(text: &str) -> Result<(), String> {
        let text = text.trim();
        let ok = text.is_empty()
            || text == PROMPT.0
            || ["dashboard:", "insight:"].iter().any(|kind| {
                text.strip_prefix(kind)
                    .is_some_and(|id| id.trim().parse::<i64>().is_ok())
            });
        if ok {
            Ok(())
        } else {
            Err("dashboard:ID, insight:ID, prompt, or nothing".into())
        }
    }
    if let Some(field) = form.fields.iter_mut().find(|field| field.name == "delivers") {
        let current = field.current();
        *field = Field::text("delivers", "Delivers (id)", &current, Some(check));
    }
}

/// The project answered for its Slack integrations: today's PostHog. The
/// form offers an AI report and its prompt, the integration a Slack target
/// posts through (working ones first), and no webhook for a new target (a
/// subscription that has one keeps it).
pub fn today(form: &mut Form, existing: Option<&Subscription>, slack: &[Integration]) {
    if form.has("prompt") {
        return;
    }
    if existing.is_none()
        && let Some(field) = form.fields.iter_mut().find(|field| field.name == "delivers")
        && let FieldValue::Select { options, .. } = &field.value
        && !options.iter().any(|(value, _)| value == PROMPT.0)
    {
        let mut options = options.clone();
        options.push((PROMPT.0.to_string(), PROMPT.1.to_string()));
        field.set_options(options);
    }
    let after_delivers = form.position("delivers").map_or(0, |at| at + 1);
    let asked = existing.and_then(|s| s.prompt.clone()).unwrap_or_default();
    form.insert_field(
        after_delivers,
        Field::text("prompt", "Prompt", &asked, Some(prompt)),
    );
    if let Some(field) = form.fields.iter_mut().find(|field| field.name == "target_type") {
        field.set_options(
            TODAY_TARGET_TYPES
                .iter()
                .map(|(value, label)| (value.to_string(), label.to_string()))
                .collect(),
        );
    }
    if slack.is_empty() {
        visibility(form);
        return;
    }
    let mut ordered: Vec<&Integration> = slack.iter().filter(|i| !i.is_broken()).collect();
    ordered.extend(slack.iter().filter(|i| i.is_broken()));
    // A revoked one is shown as such; choosing it is refused on the field.
    let options: Vec<(String, String)> = ordered
        .iter()
        .map(|integration| {
            let name = printable(&integration.name()).into_owned();
            if integration.is_broken() {
                (
                    format!("{BROKEN}{}", integration.id),
                    format!("{name} (revoked: cannot deliver)"),
                )
            } else {
                (integration.id.to_string(), name)
            }
        })
        .collect();
    let options: Vec<(&str, &str)> = options.iter().map(|(v, l)| (v.as_str(), l.as_str())).collect();
    // An edit shows the integration it has; a new one starts on the first
    // that works (the only one, where there is one).
    let chosen = existing
        .and_then(|s| s.integration_id)
        .map(|id| match slack.iter().find(|i| i.id == id) {
            Some(integration) if integration.is_broken() => format!("{BROKEN}{id}"),
            _ => id.to_string(),
        })
        .unwrap_or_default();
    let after_target_type = form.position("target_type").map_or(0, |at| at + 1);
    form.insert_field(
        after_target_type,
        Field::select("integration_id", "Slack via", &options, &chosen),
    );
    visibility(form);
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
pub fn body(form: &Form) -> Result<SubscriptionInput, Vec<(&'static str, String)>> {
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
    let mut prompt = None;
    if delivers.trim() == PROMPT.0 {
        let asked = form.value("prompt").trim().to_string();
        if asked.is_empty() {
            errors.push(("prompt", "required: the question the AI report answers".into()));
        }
        prompt = Some(Some(asked));
    }
    let target_type = form.value("target_type");
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
    let mut exports = None;
    if dashboard.is_some() && form.has("dashboard_export_insights") {
        let chosen: Vec<i64> = form
            .value("dashboard_export_insights")
            .split(',')
            .filter_map(|id| id.parse().ok())
            .collect();
        if chosen.is_empty() {
            errors.push((
                "dashboard_export_insights",
                format!("choose 1 to {EXPORT_CAP} of the dashboard's insights"),
            ));
        }
        exports = Some(chosen);
    }
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
        ..SubscriptionInput::default()
    };
    if errors.is_empty() { Ok(input) } else { Err(errors) }
}

/// For an edit: only the fields that changed, and "label: old → new" lines.
pub fn changes(form: &Form, input: &SubscriptionInput) -> (SubscriptionInput, Vec<String>) {
    let mut names: Vec<&str> = Vec::new();
    let mut lines = Vec::new();
    for (label, before, after) in form.changes() {
        let Some(field) = form.fields.iter().find(|field| field.label == label) else {
            continue;
        };
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
    theme: &crate::console::view::theme::Theme,
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
            crate::console::view::format::relative(at, now)
        )));
    }
    lines
}

#[cfg(test)]
#[path = "fields_tests.rs"]
mod tests;
