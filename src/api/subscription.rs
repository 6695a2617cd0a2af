//! A subscription (api.md 2.6, posthog.md 8.1 and 15): its fields, the one
//! state on-call reads off it, what an AI summary reads besides its resource
//! (`contexts`), and an AI report's window (`ai_prompt_config`).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::enums::{Frequency, ResourceType, TargetType, Weekday};
use super::models::{User, null_as_default};
use super::time::flexible_datetime;

/// What a subscription kept whole holds besides itself: about its JSON's
/// length (its text, lists and the users it names).
impl super::paging::Kept for Subscription {
    fn heap_bytes(&self) -> u64 {
        serde_json::to_vec(self).map_or(0, |json| json.len() as u64)
    }
}

/// A subscription (api.md 2.6).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Subscription {
    #[serde(default, deserialize_with = "null_as_default")]
    pub id: i64,
    #[serde(default)]
    pub dashboard: Option<i64>,
    #[serde(default)]
    pub insight: Option<i64>,
    #[serde(default)]
    pub target_type: Option<TargetType>,
    #[serde(default)]
    pub target_value: Option<String>,
    #[serde(default)]
    pub frequency: Option<Frequency>,
    #[serde(default)]
    pub interval: Option<i64>,
    #[serde(default)]
    pub byweekday: Option<Vec<Weekday>>,
    #[serde(default)]
    pub bysetpos: Option<i64>,
    #[serde(default)]
    pub count: Option<i64>,
    #[serde(default, with = "flexible_datetime")]
    pub start_date: Option<DateTime<Utc>>,
    #[serde(default, with = "flexible_datetime")]
    pub until_date: Option<DateTime<Utc>>,
    #[serde(default, with = "flexible_datetime")]
    pub created_at: Option<DateTime<Utc>>,
    #[serde(default)]
    pub created_by: Option<User>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub deleted: bool,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub summary: Option<String>,
    #[serde(default, with = "flexible_datetime")]
    pub next_delivery_date: Option<DateTime<Utc>>,
    #[serde(default)]
    pub invite_message: Option<String>,
    // Today's PostHog (posthog.md 8.1); an older server leaves them out, and
    // they are then left out again when the subscription is written back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_type: Option<ResourceType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insight_short_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dashboard_export_insights: Option<Vec<i64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ai_prompt_config: Option<Value>,
    /// `false`: paused by a person, or disabled after failing deliveries.
    /// A server that does not send it has every subscription enabled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub integration_id: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary_enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary_prompt_guide: Option<String>,
    /// What an AI summary reads besides the subscription's own resource
    /// (posthog.md 15-3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contexts: Option<Vec<SubscriptionContext>>,
}

/// A dashboard or an insight a subscription's AI summary reads as
/// context: written as its id alone, read back with its name.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SubscriptionContext {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dashboard_id: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dashboard_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insight_id: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insight_short_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insight_name: Option<String>,
}

impl SubscriptionContext {
    /// The context as written: its id alone.
    pub fn reference(&self) -> SubscriptionContext {
        SubscriptionContext {
            dashboard_id: self.dashboard_id,
            insight_id: self.insight_id,
            ..SubscriptionContext::default()
        }
    }

    /// "dashboard Company KPIs (#1)" or "insight Weekly active users (abc123)".
    pub fn describe(&self) -> String {
        match (self.dashboard_id, self.insight_id) {
            (Some(id), _) => match &self.dashboard_name {
                Some(name) => format!("dashboard {name} (#{id})"),
                None => format!("dashboard #{id}"),
            },
            (None, Some(id)) => {
                let short = self.insight_short_id.clone().unwrap_or_else(|| format!("#{id}"));
                match &self.insight_name {
                    Some(name) => format!("insight {name} ({short})"),
                    None => format!("insight {short}"),
                }
            }
            (None, None) => "(nothing)".into(),
        }
    }
}

/// The one state a subscription is in, as on-call reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SubscriptionState {
    Active,
    /// `enabled: false`: paused by a person, or disabled after failures.
    Paused,
    /// Enabled, and its next delivery is past: it was missed.
    Overdue,
    /// No delivery left.
    Ended,
    Deleted,
    /// It delivers to a channel today's PostHog no longer supports (a
    /// legacy webhook, or any target but e-mail and Slack): nothing is
    /// delivered, and once paused it cannot be resumed.
    Unsupported,
}

impl SubscriptionState {
    pub const ALL: [SubscriptionState; 6] = [
        SubscriptionState::Active,
        SubscriptionState::Paused,
        SubscriptionState::Overdue,
        SubscriptionState::Ended,
        SubscriptionState::Deleted,
        SubscriptionState::Unsupported,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            SubscriptionState::Active => "active",
            SubscriptionState::Paused => "paused",
            SubscriptionState::Overdue => "overdue",
            SubscriptionState::Ended => "ended",
            SubscriptionState::Deleted => "deleted",
            SubscriptionState::Unsupported => "unsupported",
        }
    }

    pub fn parse(text: &str) -> Option<SubscriptionState> {
        Self::ALL.into_iter().find(|state| state.as_str() == text)
    }
}

impl std::fmt::Display for SubscriptionState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How many recipients a target of this type and value has: each address
/// of an e-mail target, else one channel or address (none when empty).
pub fn recipients(target_type: Option<&TargetType>, value: &str) -> usize {
    match target_type {
        Some(TargetType::Email) => value
            .split(',')
            .filter(|address| !address.trim().is_empty())
            .count(),
        _ => usize::from(!value.trim().is_empty()),
    }
}

impl Subscription {
    /// What on-call looks at first: deleted, unsupported (its channel is
    /// no longer delivered to), paused, ended (no delivery left), overdue
    /// (the next delivery is past: it was missed), or active.
    pub fn state(&self, now: DateTime<Utc>) -> SubscriptionState {
        if self.deleted {
            SubscriptionState::Deleted
        } else if !self.is_supported() {
            SubscriptionState::Unsupported
        } else if !self.is_enabled() {
            SubscriptionState::Paused
        } else {
            match self.next_delivery_date {
                Some(next) if next < now => SubscriptionState::Overdue,
                Some(_) => SubscriptionState::Active,
                None => SubscriptionState::Ended,
            }
        }
    }

    /// How many recipients a delivery goes to: each address of an e-mail
    /// target, else the one channel or address it names.
    pub fn recipients(&self) -> usize {
        recipients(
            self.target_type.as_ref(),
            self.target_value.as_deref().unwrap_or_default(),
        )
    }

    /// A server that sends no `enabled` has no paused subscriptions.
    pub fn is_enabled(&self) -> bool {
        self.enabled != Some(false)
    }

    /// Whether its channel is one the server delivers to: e-mail and Slack
    /// on today's PostHog (posthog.md 13-6), which sends `enabled`; an
    /// older one, which does not, delivers to webhooks too. Any other
    /// target (Teams, say) is shown as it comes and never counted active.
    pub fn is_supported(&self) -> bool {
        match &self.target_type {
            None | Some(TargetType::Email | TargetType::Slack) => true,
            Some(TargetType::Webhook) => self.enabled.is_none(),
            Some(TargetType::Other(_)) => false,
        }
    }

    /// Whether deliveries are to come on its schedule: not while it is
    /// paused, and never to a channel no longer supported.
    pub fn delivers_on_schedule(&self) -> bool {
        self.is_enabled() && self.is_supported()
    }

    /// Said before pausing one whose channel is no longer supported:
    /// "#12 delivers to webhook, which PostHog no longer supports: once
    /// paused it cannot be resumed" (posthog.md 8.2-6).
    pub fn pause_warning(&self) -> Option<String> {
        if self.is_supported() {
            return None;
        }
        let kind = self.target_type.as_ref().map_or("?", |kind| kind.as_str());
        Some(format!(
            "#{} delivers to {kind}, which PostHog no longer supports: once paused it cannot be resumed",
            self.id
        ))
    }

    /// Why nothing is to come, when nothing is: for the lists of upcoming
    /// deliveries.
    pub fn why_no_deliveries(&self) -> Option<&'static str> {
        if !self.is_supported() {
            Some("none: its channel is no longer supported")
        } else if !self.is_enabled() {
            Some("none: paused, nothing is delivered until it is resumed")
        } else {
            None
        }
    }

    /// What the target is, as what it is: "email a@b.co", "slack #ops via
    /// integration 2", "teams https://…" (a channel the client does not
    /// know is named as the server names it, never taken for Slack).
    pub fn target_words(&self) -> String {
        let kind = self.target_type.as_ref().map_or("?", |kind| kind.as_str());
        let value = self.target_value.as_deref().unwrap_or("");
        let via = match (&self.target_type, self.integration_id) {
            (_, None) => String::new(),
            (Some(TargetType::Slack), Some(id)) => format!(" via Slack integration {id}"),
            (_, Some(id)) => format!(" via integration {id}"),
        };
        format!("{kind} {value}{via}").trim_end().to_string()
    }

    /// An AI report's window, when it has one.
    pub fn window(&self) -> Option<Window> {
        self.ai_prompt_config.as_ref().and_then(Window::from_config)
    }

    /// What an AI summary reads besides the resource, in words:
    /// "dashboard Company KPIs (#1), insight Weekly active users (abc123)".
    pub fn contexts_words(&self) -> Option<String> {
        let contexts = self.contexts.as_ref().filter(|contexts| !contexts.is_empty())?;
        Some(
            contexts
                .iter()
                .map(SubscriptionContext::describe)
                .collect::<Vec<_>>()
                .join(", "),
        )
    }

    /// What it delivers: the server's word, else derived as PostHog does
    /// (insight, then dashboard, then prompt).
    pub fn delivers(&self) -> Option<ResourceType> {
        self.resource_type.clone().or_else(|| {
            if self.insight.is_some() {
                Some(ResourceType::Insight)
            } else if self.dashboard.is_some() {
                Some(ResourceType::Dashboard)
            } else if self.prompt.is_some() {
                Some(ResourceType::AiPrompt)
            } else {
                None
            }
        })
    }
}

/// The days an AI report covers (posthog.md 15-2): since it was last
/// sent, the last N days, or from START to END days ago.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window {
    SinceLastSent,
    LastDays(u16),
    DaysAgo { start: u16, end: u16 },
}

impl Window {
    /// `since-last-sent`, `last:N` (1 to 365) or `range:START-END` (START
    /// 1 to 365 days ago, END fewer, 0 for today); what is wrong, in words.
    pub fn parse(text: &str) -> Result<Window, String> {
        let text = text.trim().to_ascii_lowercase();
        let days = |text: &str, least: u16| -> Option<u16> {
            text.trim()
                .parse::<u16>()
                .ok()
                .filter(|n| (least..=365).contains(n))
        };
        if matches!(text.as_str(), "since-last-sent" | "since_last_sent") {
            return Ok(Window::SinceLastSent);
        }
        if let Some(n) = text.strip_prefix("last:") {
            return days(n, 1)
                .map(Window::LastDays)
                .ok_or_else(|| format!("\"{text}\": last:N takes N from 1 to 365 days"));
        }
        if let Some(range) = text.strip_prefix("range:") {
            let (start, end) = range
                .split_once('-')
                .and_then(|(start, end)| Some((days(start, 1)?, days(end, 0)?)))
                .ok_or_else(|| {
                    format!("\"{text}\": range:START-END takes days ago, START 1 to 365, END 0 to 365")
                })?;
            if end >= start {
                return Err(format!(
                    "\"{text}\": the range ends fewer days ago than it starts (range:14-7 is from 14 to 7 days ago)"
                ));
            }
            return Ok(Window::DaysAgo { start, end });
        }
        Err(format!(
            "\"{text}\" is not a window: since-last-sent, last:N or range:START-END (e.g. last:7, range:14-7)"
        ))
    }

    /// The `ai_prompt_config` that sets it.
    pub fn config(self) -> Value {
        let window = match self {
            Window::SinceLastSent => json!({"mode": "since_last_sent"}),
            Window::LastDays(days) => json!({"mode": "last_n_days", "start_days_ago": days}),
            Window::DaysAgo { start, end } => {
                json!({"mode": "days_ago_range", "start_days_ago": start, "end_days_ago": end})
            }
        };
        json!({ "window": window })
    }

    /// The window an `ai_prompt_config` holds; none for `{}` or what this
    /// version cannot read.
    pub fn from_config(config: &Value) -> Option<Window> {
        let window = config.get("window")?;
        let days = |name: &str| {
            window
                .get(name)
                .and_then(Value::as_u64)
                .and_then(|n| u16::try_from(n).ok())
        };
        match window.get("mode").and_then(Value::as_str)? {
            "since_last_sent" => Some(Window::SinceLastSent),
            "last_n_days" => days("start_days_ago").map(Window::LastDays),
            "days_ago_range" => Some(Window::DaysAgo {
                start: days("start_days_ago")?,
                end: days("end_days_ago").unwrap_or(0),
            }),
            _ => None,
        }
    }

    /// "since it was last sent", "last 7 days", "from 14 to 7 days ago".
    pub fn describe(self) -> String {
        match self {
            Window::SinceLastSent => "since it was last sent".into(),
            Window::LastDays(1) => "last day".into(),
            Window::LastDays(days) => format!("last {days} days"),
            Window::DaysAgo { start, end: 0 } => format!("from {start} days ago to today"),
            Window::DaysAgo { start, end } => format!("from {start} to {end} days ago"),
        }
    }

    /// How the form and `--window` write it: since-last-sent, last:N, range:START-END.
    pub fn flag(self) -> String {
        match self {
            Window::SinceLastSent => "since-last-sent".into(),
            Window::LastDays(days) => format!("last:{days}"),
            Window::DaysAgo { start, end } => format!("range:{start}-{end}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_parse_round_trip_and_say_what_is_wrong() {
        for (text, words) in [
            ("since-last-sent", "since it was last sent"),
            ("last:7", "last 7 days"),
            ("range:14-7", "from 14 to 7 days ago"),
            ("range:30-0", "from 30 days ago to today"),
        ] {
            let window = Window::parse(text).unwrap();
            assert_eq!(window.describe(), words);
            assert_eq!(Window::from_config(&window.config()), Some(window));
            assert_eq!(window.flag(), text);
        }
        assert!(Window::parse("last:0").unwrap_err().contains("1 to 365"));
        assert!(Window::parse("last:366").is_err());
        assert!(
            Window::parse("range:7-14")
                .unwrap_err()
                .contains("fewer days ago")
        );
        assert!(Window::parse("range:7").is_err());
        assert!(Window::parse("weekly").unwrap_err().contains("since-last-sent"));
        assert_eq!(Window::from_config(&json!({})), None);
    }

    fn row(target: &str, enabled: Option<bool>) -> Subscription {
        Subscription {
            target_type: Some(TargetType::from_wire(target)),
            enabled,
            next_delivery_date: Some(DateTime::<Utc>::MAX_UTC),
            ..Subscription::default()
        }
    }

    #[test]
    fn a_channel_today_s_posthog_no_longer_delivers_to_is_its_own_state() {
        let now = Utc::now();
        assert_eq!(
            row("webhook", Some(true)).state(now),
            SubscriptionState::Unsupported
        );
        assert_eq!(
            row("webhook", Some(false)).state(now),
            SubscriptionState::Unsupported
        );
        assert_eq!(row("teams", None).state(now), SubscriptionState::Unsupported);
        // An older server still delivers to webhooks.
        assert_eq!(row("webhook", None).state(now), SubscriptionState::Active);
        assert_eq!(row("slack", Some(false)).state(now), SubscriptionState::Paused);
        assert_eq!(
            SubscriptionState::parse("unsupported"),
            Some(SubscriptionState::Unsupported)
        );
        assert!(!row("teams", Some(true)).delivers_on_schedule());
        assert!(!row("email", Some(false)).delivers_on_schedule());
        assert!(row("email", Some(true)).delivers_on_schedule());
    }

    #[test]
    fn a_target_is_named_as_what_it_is() {
        let mut teams = row("teams", Some(true));
        teams.target_value = Some("https://example.webhook.office.com".into());
        teams.integration_id = Some(4);
        assert_eq!(
            teams.target_words(),
            "teams https://example.webhook.office.com via integration 4"
        );
        let mut slack = row("slack", Some(true));
        slack.target_value = Some("C1|#ops".into());
        slack.integration_id = Some(2);
        assert_eq!(slack.target_words(), "slack C1|#ops via Slack integration 2");
    }
}
