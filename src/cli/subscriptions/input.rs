//! The flags of `subs create` and `subs update`, read into the one typed
//! [`SubscriptionInput`] that every face sends; a `--body` file is the
//! base the flags are laid over. What needs the API to fill in is resolved
//! here too: a dashboard or an insight by name or short id (in
//! `catalog`), a dashboard's insights (every one by default: the server's
//! cap is learnt from its refusal, see [`Prepared::capped`]), a Slack
//! channel by name (in `slack`), and whether to say `send_test_now`
//! (today's PostHog alone).

use serde_json::{Map, Value};

use super::super::catalog::{Kind, resolve, resolve_nullable};
use super::super::{UsageError, body_from};
use super::slack::slack_target;
use crate::api::time::parse_user_datetime;
use crate::api::{
    Client, DeliveryStatus, Frequency, ResourceType, SubscriptionContext, SubscriptionInput, TargetType,
    Weekday, Window,
};
use crate::schedule::position_name;
use crate::text::printable;

/// The most contexts an AI summary reads (posthog.md 15-3).
const MOST_CONTEXTS: usize = 3;

/// Every writable field as a flag. `none` clears a nullable one.
#[derive(Debug, clap::Args)]
pub struct SubscriptionFields {
    /// email or slack (webhook on older servers).
    #[arg(long, value_name = "TYPE", value_parser = parse_enum::<TargetType>)]
    target_type: Option<String>,
    /// Comma-separated addresses, a Slack channel, or an http(s) URL.
    #[arg(long, value_name = "VALUE")]
    target_value: Option<String>,
    /// A Slack channel by name ('#ops') or id, found through the project's
    /// Slack integration; sets the target to it.
    #[arg(long, value_name = "CHANNEL", conflicts_with_all = ["target_value"])]
    slack_channel: Option<String>,
    /// The Slack integration to post through, where the project has several.
    #[arg(long, value_name = "ID")]
    integration: Option<i64>,
    /// daily, weekly, monthly or yearly.
    #[arg(long, value_parser = parse_enum::<Frequency>)]
    frequency: Option<String>,
    /// Every N periods (default 1 on create).
    #[arg(long, value_name = "N")]
    interval: Option<i64>,
    /// Days, e.g. monday,friday (or weekdays, or none).
    #[arg(long, value_name = "DAYS")]
    byweekday: Option<String>,
    /// Which of the days in a period: 1-4, first..fourth, -1/last, or none.
    #[arg(long, value_name = "POSITION", allow_hyphen_values = true)]
    bysetpos: Option<String>,
    /// Deliveries in all, or none.
    #[arg(long, value_name = "N")]
    count: Option<String>,
    /// 2026-12-01, "2026-12-01 09:00" or ISO 8601 (UTC unless an offset is given).
    #[arg(long, value_name = "WHEN")]
    start_date: Option<String>,
    /// Like --start-date, or none.
    #[arg(long, value_name = "WHEN")]
    until_date: Option<String>,
    /// Its title, as recipients see it (else the resource's name is shown).
    #[arg(long)]
    title: Option<String>,
    /// A message sent once to new e-mail recipients.
    #[arg(long, value_name = "TEXT")]
    invite_message: Option<String>,
    /// Deliver this insight: its id, short id or name (`orgdeck insights
    /// list` shows them), or none.
    #[arg(long, value_name = "INSIGHT")]
    insight: Option<String>,
    /// Deliver this dashboard: its id or name (`orgdeck dashboards list`
    /// shows them), or none.
    #[arg(long, value_name = "DASHBOARD")]
    dashboard: Option<String>,
    /// An insight of the dashboard to export, by id, short id or name
    /// (repeatable; default: every insight on it, or the first ones the
    /// server allows).
    #[arg(long = "export-insight", value_name = "INSIGHT")]
    export_insights: Vec<String>,
    /// Deliver an AI report answering this prompt.
    #[arg(long, value_name = "TEXT")]
    prompt: Option<String>,
    /// The days an AI report covers: since-last-sent, last:N (1-365) or
    /// range:START-END days ago (e.g. range:14-7), or none.
    #[arg(long, value_name = "WINDOW", value_parser = parse_window)]
    window: Option<WindowFlag>,
    /// What an AI summary reads besides the resource: dashboard:ID or
    /// insight:ID, each by id or name (repeatable, at most 3), or none to
    /// clear them.
    #[arg(long = "context", value_name = "KIND:ID", value_parser = parse_context)]
    contexts: Vec<ContextFlag>,
    /// Deliver once to every recipient when saved (today's PostHog; without
    /// it nothing is sent on save).
    #[arg(long)]
    send_now: bool,
    /// A JSON body from a file, or - for stdin; flags override its fields.
    #[arg(long, value_name = "FILE")]
    body: Option<String>,
}

/// The body to send, and what orgdeck chose for the user to be told.
pub struct Prepared {
    pub body: Map<String, Value>,
    pub notes: Vec<String>,
    /// The insights exported because none were chosen (every one of the
    /// dashboard), with their names, in the tiles' order.
    pub default_exports: Option<(i64, Vec<(i64, String)>)>,
}

impl Prepared {
    /// The server refused the default export, naming its cap: the same
    /// body with the first `cap` insights, and a note saying so. `None`
    /// when the exports were the user's choice (the refusal stands).
    pub fn capped(&self, cap: usize) -> Option<Prepared> {
        let (dashboard, insights) = self.default_exports.as_ref()?;
        if cap == 0 || insights.len() <= cap {
            return None;
        }
        let kept = &insights[..cap];
        let mut body = self.body.clone();
        body.insert(
            "dashboard_export_insights".into(),
            Value::from(kept.iter().map(|(id, _)| *id).collect::<Vec<_>>()),
        );
        let mut notes: Vec<String> = self
            .notes
            .iter()
            .filter(|note| !note.starts_with(EVERY_INSIGHT))
            .cloned()
            .collect();
        notes.push(format!(
            "the server allows {cap} insights: exporting the first {cap} of {} of dashboard {dashboard}: {}; choose others with --export-insight",
            insights.len(),
            names(kept)
        ));
        Some(Prepared {
            body,
            notes,
            default_exports: None,
        })
    }
}

/// How the note of a default export begins.
const EVERY_INSIGHT: &str = "exporting every insight of dashboard";

fn names(insights: &[(i64, String)]) -> String {
    insights
        .iter()
        .map(|(id, name)| format!("{} ({id})", printable(name)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `--window`: a window, or none (`{}`: the server's default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowFlag {
    Set(Window),
    Clear,
}

fn parse_window(text: &str) -> Result<WindowFlag, String> {
    if is_none(text) {
        return Ok(WindowFlag::Clear);
    }
    Window::parse(text).map(WindowFlag::Set)
}

/// One `--context`: a dashboard or an insight (by id, or by name or short
/// id, found once the API is at hand), or none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContextFlag {
    Read(Kind, String),
    Clear,
}

fn parse_context(text: &str) -> Result<ContextFlag, String> {
    if is_none(text) {
        return Ok(ContextFlag::Clear);
    }
    let wrong = || {
        format!(
            "\"{text}\" is not a context: dashboard:ID, insight:ID or none (a name or short id serves as the ID)"
        )
    };
    let (kind, named) = text.trim().split_once(':').ok_or_else(wrong)?;
    let named = named.trim();
    if named.is_empty() {
        return Err(wrong());
    }
    match kind.trim().to_ascii_lowercase().as_str() {
        "dashboard" => Ok(ContextFlag::Read(Kind::Dashboard, named.to_string())),
        "insight" => Ok(ContextFlag::Read(Kind::Insight, named.to_string())),
        _ => Err(wrong()),
    }
}

/// `--target-type`, checked before anything is sent.
pub fn parse_target_type(text: &str) -> Result<String, String> {
    parse_enum::<TargetType>(text)
}

/// A value of a known enumeration, lowercased; the allowed values listed
/// when it is none of them.
pub fn parse_enum<T: std::str::FromStr + EnumValues>(text: &str) -> Result<String, String> {
    let text = text.trim().to_ascii_lowercase();
    text.parse::<T>().map(|_| text.clone()).map_err(|_| {
        format!(
            "\"{text}\" is not one of the allowed values: {}",
            T::values().join(", ")
        )
    })
}

/// The values an enumeration's flag allows, for its error message.
pub trait EnumValues {
    fn values() -> Vec<&'static str>;
}

macro_rules! enum_values {
    ($($kind:ty),+) => {
        $(impl EnumValues for $kind {
            fn values() -> Vec<&'static str> {
                Self::ALL
                    .iter()
                    .map(|value| match value.as_str() {
                        "webhook" => "webhook (older servers)",
                        text => text,
                    })
                    .collect()
            }
        })+
    };
}

enum_values!(TargetType, Frequency, ResourceType, DeliveryStatus);

fn is_none(text: &str) -> bool {
    matches!(text.trim().to_ascii_lowercase().as_str(), "none" | "null")
}

fn usage(flag: &str, message: String) -> anyhow::Error {
    UsageError(format!("--{flag}: {message}")).into()
}

/// The flags that name a dashboard or an insight, as ids.
#[derive(Debug, Default)]
struct Named {
    dashboard: Option<Option<i64>>,
    insight: Option<Option<i64>>,
    export_insights: Option<Vec<i64>>,
    contexts: Option<Vec<SubscriptionContext>>,
}

fn nullable_id(flag: &str, text: &str) -> anyhow::Result<Option<i64>> {
    if is_none(text) {
        return Ok(None);
    }
    text.trim()
        .parse::<i64>()
        .map(Some)
        .map_err(|_| usage(flag, format!("\"{text}\" is not a number (or none)")))
}

fn weekdays(text: &str) -> anyhow::Result<Option<Vec<Weekday>>> {
    if is_none(text) {
        return Ok(None);
    }
    if text.trim().eq_ignore_ascii_case("weekdays") {
        return Ok(Some(Weekday::ALL[..5].to_vec()));
    }
    let mut days = Vec::new();
    for part in text
        .split(',')
        .map(|part| part.trim().to_ascii_lowercase())
        .filter(|p| !p.is_empty())
    {
        let day = Weekday::ALL
            .iter()
            .find(|day| day.as_str() == part || (part.len() >= 3 && day.as_str().starts_with(&part)))
            .ok_or_else(|| usage("byweekday", format!("\"{part}\" is not a day of the week")))?;
        days.push(day.clone());
    }
    Ok(Some(days))
}

fn position(text: &str) -> anyhow::Result<Option<i64>> {
    if is_none(text) {
        return Ok(None);
    }
    let lowered = text.trim().to_ascii_lowercase();
    let named = [1, 2, 3, 4, -1]
        .into_iter()
        .find(|&n| position_name(n) == Some(lowered.as_str()));
    named.or_else(|| lowered.parse().ok()).map(Some).ok_or_else(|| {
        usage(
            "bysetpos",
            format!("\"{text}\" is not a position: 1-4, first..fourth, -1, last or none"),
        )
    })
}

fn when(flag: &str, text: &str) -> anyhow::Result<chrono::DateTime<chrono::Utc>> {
    parse_user_datetime(text).ok_or_else(|| {
        usage(
            flag,
            format!("\"{text}\" is not a date: use 2026-12-01, \"2026-12-01 09:00\" or ISO 8601"),
        )
    })
}

impl SubscriptionFields {
    /// What names a dashboard or an insight, as ids: a name or a short id
    /// is looked up (a usage error when none or several have it).
    async fn named(&self, client: &Client, project: &str) -> anyhow::Result<Named> {
        let dashboard = match &self.dashboard {
            Some(text) => Some(resolve_nullable(client, project, Kind::Dashboard, text, "dashboard").await?),
            None => None,
        };
        let insight = match &self.insight {
            Some(text) => Some(resolve_nullable(client, project, Kind::Insight, text, "insight").await?),
            None => None,
        };
        let mut exports = Vec::new();
        for text in &self.export_insights {
            exports.push(resolve(client, project, Kind::Insight, text, "export-insight").await?);
        }
        let contexts = match self.contexts()? {
            Some(named) => {
                let mut contexts = Vec::new();
                for (kind, text) in named {
                    let id = resolve(client, project, kind, &text, "context").await?;
                    contexts.push(match kind {
                        Kind::Dashboard => SubscriptionContext {
                            dashboard_id: Some(id),
                            ..SubscriptionContext::default()
                        },
                        Kind::Insight => SubscriptionContext {
                            insight_id: Some(id),
                            ..SubscriptionContext::default()
                        },
                    });
                }
                Some(contexts)
            }
            None => None,
        };
        Ok(Named {
            dashboard,
            insight,
            export_insights: (!exports.is_empty()).then_some(exports),
            contexts,
        })
    }

    /// The flags as a typed input, with what names a dashboard or an
    /// insight already looked up.
    fn input(&self, named: Named) -> anyhow::Result<SubscriptionInput> {
        let text = |value: &Option<String>| value.as_ref().map(|text| text.trim().to_string());
        let nullable_text =
            |value: &Option<String>| value.as_ref().map(|text| (!is_none(text)).then(|| text.clone()));
        Ok(SubscriptionInput {
            target_type: text(&self.target_type).map(|text| TargetType::from_wire(&text)),
            target_value: self.target_value.clone(),
            frequency: text(&self.frequency).map(|text| Frequency::from_wire(&text)),
            interval: self.interval,
            byweekday: self.byweekday.as_deref().map(weekdays).transpose()?,
            bysetpos: self.bysetpos.as_deref().map(position).transpose()?,
            count: self
                .count
                .as_deref()
                .map(|text| nullable_id("count", text))
                .transpose()?,
            start_date: self
                .start_date
                .as_deref()
                .map(|text| when("start-date", text))
                .transpose()?,
            until_date: self
                .until_date
                .as_deref()
                .map(|text| {
                    if is_none(text) {
                        Ok(None)
                    } else {
                        when("until-date", text).map(Some)
                    }
                })
                .transpose()?,
            title: self.title.clone().map(Some),
            invite_message: nullable_text(&self.invite_message),
            dashboard: named.dashboard,
            insight: named.insight,
            dashboard_export_insights: named.export_insights,
            prompt: nullable_text(&self.prompt),
            integration_id: self.integration.map(Some),
            ai_prompt_config: self.window.map(|window| match window {
                WindowFlag::Set(window) => window.config(),
                WindowFlag::Clear => Value::Object(Map::new()),
            }),
            contexts: named.contexts,
            ..SubscriptionInput::default()
        })
    }

    /// `--context` as given, checked: none given leaves them; `none`
    /// alone clears them; at most three.
    fn contexts(&self) -> anyhow::Result<Option<Vec<(Kind, String)>>> {
        if self.contexts.is_empty() {
            return Ok(None);
        }
        let read: Vec<(Kind, String)> = self
            .contexts
            .iter()
            .filter_map(|context| match context {
                ContextFlag::Read(kind, named) => Some((*kind, named.clone())),
                ContextFlag::Clear => None,
            })
            .collect();
        if read.len() != self.contexts.len() && !read.is_empty() {
            return Err(usage("context", "none clears them: give it alone".into()));
        }
        if read.len() > MOST_CONTEXTS {
            return Err(usage(
                "context",
                format!("at most {MOST_CONTEXTS} contexts, {} were given", read.len()),
            ));
        }
        Ok(Some(read))
    }

    /// Whether `--send-now` was given: an update of nothing else is a
    /// delivery alone.
    pub fn send_now(&self) -> bool {
        self.send_now
    }

    /// The body to send: `--body` first, every flag over it, and what the
    /// API must tell (a dashboard's insights, a Slack channel) filled in.
    /// `today`: the server is today's PostHog, which is told
    /// `send_test_now` (true with `--send-now`, else false); an older one
    /// never sees the field.
    pub async fn prepare(
        &self,
        client: &Client,
        project: &str,
        creating: bool,
        today: bool,
    ) -> anyhow::Result<Prepared> {
        if !self.export_insights.is_empty() && self.dashboard.is_none() {
            return Err(usage(
                "export-insight",
                "goes with --dashboard: it picks which of the dashboard's insights to export".into(),
            ));
        }
        if self.send_now && !today {
            return Err(usage(
                "send-now",
                "this server does not deliver on request when saving (an older PostHog); save, then run subs test".into(),
            ));
        }
        // What can be checked without the API is, first.
        self.contexts()?;
        let mut input = self.input(self.named(client, project).await?)?;
        let mut body = match &self.body {
            Some(source) => body_from(source)?,
            None => Map::new(),
        };
        if creating && input.interval.is_none() && !body.contains_key("interval") {
            // Today's PostHog requires it; older servers took 1 as the
            // default. One the body gives is kept.
            input.interval = Some(1);
        }
        let mut notes = Vec::new();
        let mut default_exports = None;
        // A dashboard from a flag, else from the body, exports its insights
        // unless the flags or the body choose them.
        let dashboard = match input.dashboard {
            Some(chosen) => chosen,
            None => body.get("dashboard").and_then(Value::as_i64),
        };
        if let Some(dashboard) = dashboard
            && input.dashboard_export_insights.is_none()
            && !body.contains_key("dashboard_export_insights")
            && let Some(insights) = dashboard_insights(client, project, dashboard).await?
        {
            input.dashboard_export_insights = Some(insights.iter().map(|(id, _)| *id).collect());
            notes.push(format!("{EVERY_INSIGHT} {dashboard}: {}", names(&insights)));
            default_exports = Some((dashboard, insights));
        }
        if let Some(channel) = &self.slack_channel {
            let (integration, target, note) =
                slack_target(client, project, channel, self.integration).await?;
            input.target_type = Some(TargetType::Slack);
            input.target_value = Some(target);
            input.integration_id = Some(Some(integration));
            notes.push(note);
        }
        let Value::Object(flags) = serde_json::to_value(&input)? else {
            return Err(anyhow::anyhow!(
                "a subscription input did not serialise to an object"
            ));
        };
        body.extend(flags);
        if today {
            // `--send-now`, or a `--body` that asks for it; else false.
            let asked = self.send_now || body.get("send_test_now") == Some(&Value::Bool(true));
            body.insert("send_test_now".into(), Value::Bool(asked));
        } else {
            body.remove("send_test_now");
        }
        Ok(Prepared {
            body,
            notes,
            default_exports,
        })
    }
}

/// The insights of a dashboard to export by default: every one on it, in
/// the tiles' order, with their names. `None` from a server that shows no
/// dashboard's tiles (an older PostHog), which delivers the whole dashboard.
async fn dashboard_insights(
    client: &Client,
    project: &str,
    dashboard: i64,
) -> anyhow::Result<Option<Vec<(i64, String)>>> {
    let Some(found) = client.dashboard_tiles(project, dashboard).await? else {
        return Ok(None);
    };
    let insights = found.default_exports();
    if insights.is_empty() {
        return Err(UsageError(format!(
            "dashboard {dashboard} has no insights to export; add one to it first, or deliver an insight with --insight"
        ))
        .into());
    }
    Ok(Some(
        insights
            .iter()
            .map(|insight| (insight.id, insight.title()))
            .collect(),
    ))
}
