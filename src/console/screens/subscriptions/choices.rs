//! What the subscription form offers to choose from, as the server says
//! it: the project's dashboards and insights for "Delivers" (fixed on an
//! edit), a dashboard's insights from its tiles (as many as the server
//! allows, once a refusal has said how many), the Slack integrations and
//! their channels, an AI report's window and "Deliver once on save" on
//! today's PostHog; which fields apply to what the form says; and the field
//! a refusal is about.

use super::fields::{PROMPT, TODAY_TARGET_TYPES, prompt, window};
use crate::api::{Dashboard, Integration, NamedItem, SlackChannel, Subscription};
use crate::console::widgets::form::{Field, Form, Value as FieldValue};
use crate::text::printable;

/// Said of "Delivers" on an edit.
pub(super) const FIXED: &str = "(cannot change: make a new subscription for another)";

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
pub(super) const BROKEN: &str = "revoked:";

/// The dashboard's insights arrived: "Insights" offers them, every one
/// chosen (or those an edited subscription exports); once the server's
/// cap is known, no more than it at once, the first ones chosen.
pub fn exports(form: &mut Form, dashboard: &Dashboard, exported: Option<&[i64]>, cap: Option<usize>) {
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
            .take(cap.unwrap_or(usize::MAX))
            .map(|insight| insight.id.to_string())
            .collect(),
    };
    let options: Vec<(&str, &str)> = options.iter().map(|(v, l)| (v.as_str(), l.as_str())).collect();
    let mut field = Field::choices("dashboard_export_insights", "Insights", &options, &chosen)
        .at_most(cap.unwrap_or(usize::MAX));
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
    // Typing the target when the list came: the list takes over there.
    let on_target = form
        .fields
        .get(form.focus)
        .is_some_and(|field| field.name == "target_value");
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
    if on_target && let Some(at) = form.position("channel") {
        form.focus = at;
    }
}

/// The server refused more insights than its cap: "Insights" learns it,
/// and from then refuses a choice beyond it as it is made.
pub fn learn_export_cap(form: &mut Form, cap: usize) {
    let Some(at) = form.position("dashboard_export_insights") else {
        return;
    };
    let field = &mut form.fields[at];
    if let FieldValue::Choices { most, .. } = &mut field.value {
        *most = cap;
    }
    let chosen = field.current().split(',').filter(|id| !id.is_empty()).count();
    if chosen > cap {
        field.error = Some(format!(
            "the server allows {cap} insights and {chosen} are chosen: Space on a chosen one frees a place"
        ));
    }
}

/// On today's PostHog, "Deliver once on save": a save mails every
/// recipient only when asked (posthog.md 15-1). Checked for a new
/// subscription, as PostHog's own form starts; unchecked on an edit.
pub fn deliver_on_save(form: &mut Form, editing: bool) {
    if form.has(SEND_NOW.0) {
        return;
    }
    let chosen = if editing {
        Vec::new()
    } else {
        vec![SEND_NOW.1.to_string()]
    };
    let field = Field::choices(
        SEND_NOW.0,
        "Deliver once on save",
        &[(SEND_NOW.1, SEND_NOW.2)],
        &chosen,
    );
    let at = form.fields.len();
    form.insert_field(at, field);
}

/// The checkbox's name, its one value, and its label.
pub const SEND_NOW: (&str, &str, &str) = ("send_test_now", "yes", "to every recipient, when saved");

/// Whether the form asks for a delivery on save.
pub fn delivers_on_save(form: &Form) -> bool {
    form.value(SEND_NOW.0) == SEND_NOW.1
}

/// Shows the fields that apply to what the form says: the prompt and the
/// window for an AI report, the insights for a dashboard, the integration
/// and channel for Slack (instead of a typed target, once the channels are
/// known).
pub fn visibility(form: &mut Form) {
    let delivers = form.value("delivers");
    let slack = form.value("target_type") == "slack";
    form.show("prompt", delivers == PROMPT.0);
    form.show("ai_prompt_config", delivers == PROMPT.0);
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
pub fn today(form: &mut Form, existing: Option<&Subscription>, editing: bool, slack: &[Integration]) {
    if form.has("prompt") {
        return;
    }
    if !editing
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
    // An AI report's window: since-last-sent, last:N or range:START-END;
    // empty for the server's default.
    let covered = existing
        .and_then(Subscription::window)
        .map(|covered| covered.flag())
        .unwrap_or_default();
    form.insert_field(
        after_delivers + 1,
        Field::text("ai_prompt_config", "Window", &covered, Some(window)),
    );
    deliver_on_save(form, editing);
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
