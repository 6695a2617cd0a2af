//! A subscription's values as people say them, not as the API stores
//! them: a title, or what it delivers when it has none (as PostHog's web
//! app does); a Slack channel by its name, the workspace beside it when
//! the project has several; the integration by its name and state; no
//! next delivery promised by one that will not deliver.

use chrono::{DateTime, Utc};

use crate::api::{Integration, ResourceType, Subscription, SubscriptionState, TargetType};
use crate::display::relative;
use crate::display::{Zone, next_delivery};

/// The project's Slack integrations, as the server listed them; `None`
/// until it has (or where it has none to list: an older server, a key
/// without `integration:read`).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Integrations(pub Option<Vec<Integration>>);

impl Integrations {
    /// The integration of this id, when the list is known and has it.
    pub fn get(&self, id: i64) -> Option<&Integration> {
        self.0.as_ref()?.iter().find(|integration| integration.id == id)
    }

    /// Whether the project has more than one Slack integration: a channel
    /// is then named with its workspace.
    pub fn several(&self) -> bool {
        self.0.as_ref().is_some_and(|known| known.len() > 1)
    }
}

/// The title, or `None` when it has none (blank counts as none).
pub fn title(subscription: &Subscription) -> Option<&str> {
    subscription
        .title
        .as_deref()
        .filter(|title| !title.trim().is_empty())
}

/// What an untitled subscription is called: the name of what it
/// delivers, as the server gives it (PostHog writes "None" for an insight
/// with neither a name nor a derived one), else what it is.
pub fn untitled(subscription: &Subscription) -> String {
    delivered(subscription).unwrap_or_else(|| "(untitled)".into())
}

/// The name of what it delivers, or what it is ("insight 12"), when known.
pub fn delivered(subscription: &Subscription) -> Option<String> {
    let kind = subscription.delivers();
    let named = subscription
        .resource_name
        .as_deref()
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .filter(|name| !(*name == "None" && kind == Some(ResourceType::Insight)));
    if let Some(name) = named {
        return Some(name.to_string());
    }
    match (kind, subscription.insight, subscription.dashboard) {
        (Some(ResourceType::Insight), Some(id), _) => Some(format!("insight {id}")),
        (Some(ResourceType::Dashboard), _, Some(id)) => Some(format!("dashboard {id}")),
        (Some(ResourceType::AiPrompt), _, _) => Some("AI report".into()),
        _ => None,
    }
}

/// A Slack target as its channel: `C0123|#ops` (what PostHog's own form
/// writes) is `#ops`; a bare channel id or a name stays as it is.
pub fn channel(value: &str) -> &str {
    match value.split_once('|') {
        Some((_, name)) if !name.trim().is_empty() => name.trim(),
        _ => value.trim(),
    }
}

/// Several e-mail addresses as the first and how many more:
/// `a@b.co +2`.
fn addresses(value: &str) -> String {
    let all: Vec<&str> = value
        .split(',')
        .map(str::trim)
        .filter(|address| !address.is_empty())
        .collect();
    match all.as_slice() {
        [] => String::new(),
        [one] => (*one).to_string(),
        [first, rest @ ..] => format!("{first} +{}", rest.len()),
    }
}

/// The target in a table's cell: `a@b.co +2`, `#ops`, `#ops · Hedgebox`
/// when the project has several Slack workspaces, `webhook https://…`.
pub fn target_cell(subscription: &Subscription, integrations: &Integrations) -> String {
    let value = subscription.target_value.as_deref().unwrap_or("");
    match &subscription.target_type {
        Some(TargetType::Email) => addresses(value),
        Some(TargetType::Slack) => {
            let channel = channel(value).to_string();
            match subscription.integration_id {
                Some(id) if integrations.several() => match integrations.get(id) {
                    Some(integration) => format!("{channel} · {}", integration.name()),
                    None => format!("{channel} · integration {id}"),
                },
                _ => channel,
            }
        }
        Some(other) => format!("{} {value}", other.as_str()).trim_end().to_string(),
        None => value.to_string(),
    }
}

/// The target in the detail: `email a@b.co, c@d.co`, `Slack #ops`.
pub fn target_detail(subscription: &Subscription) -> String {
    let value = subscription.target_value.as_deref().unwrap_or("");
    match &subscription.target_type {
        Some(TargetType::Slack) => format!("Slack {}", channel(value)),
        Some(other) => format!("{} {value}", other.as_str()).trim_end().to_string(),
        None => value.to_string(),
    }
}

/// Whether a Slack subscription posts through an integration the
/// server says is broken (revoked, uninstalled).
pub fn through_broken(subscription: &Subscription, integrations: &Integrations) -> bool {
    subscription
        .integration_id
        .and_then(|id| integrations.get(id))
        .is_some_and(Integration::is_broken)
}

/// The integration it posts through, by name and state: "Hedgebox,
/// connected", "Hedgebox (old workspace), revoked"; by id where the
/// project's integrations are not known.
pub fn integration(id: i64, integrations: &Integrations) -> String {
    match (integrations.get(id), &integrations.0) {
        (Some(integration), _) if integration.is_broken() => {
            format!("{}, revoked", integration.name())
        }
        (Some(integration), _) => format!("{}, connected", integration.name()),
        (None, Some(_)) => format!("integration {id}, not among the project's"),
        (None, None) => format!("integration {id}"),
    }
}

/// The next delivery in a narrow column: relative, or why there is none.
pub fn next_short(subscription: &Subscription, now: DateTime<Utc>) -> String {
    match no_delivery(subscription, now) {
        Some(why) => why.into(),
        None => subscription
            .next_delivery_date
            .map(|at| relative(at, now))
            .unwrap_or_else(|| "-".into()),
    }
}

/// The next delivery in a wide column: relative and in the zone, or why
/// there is none.
pub fn next_long(subscription: &Subscription, now: DateTime<Utc>, zone: Zone) -> String {
    match no_delivery(subscription, now) {
        Some("-") if subscription.state(now) == SubscriptionState::Ended => "none left".into(),
        Some(why) => why.into(),
        None => next_delivery(subscription.next_delivery_date, now, zone),
    }
}

/// Why nothing is to come, in a word: paused, or a dash for the deleted,
/// the ended and those to a channel no longer delivered to; `None` when
/// the next delivery stands (overdue ones included: it was missed).
fn no_delivery(subscription: &Subscription, now: DateTime<Utc>) -> Option<&'static str> {
    match subscription.state(now) {
        SubscriptionState::Paused => Some("paused"),
        SubscriptionState::Deleted | SubscriptionState::Ended | SubscriptionState::Unsupported => Some("-"),
        SubscriptionState::Active | SubscriptionState::Overdue => None,
    }
}

/// The next delivery in the detail: when, or why there is none.
pub fn next_detail(subscription: &Subscription, now: DateTime<Utc>, zone: Zone) -> String {
    match subscription.state(now) {
        SubscriptionState::Paused => "none while paused (p resumes it)".into(),
        SubscriptionState::Deleted => "none: soft-deleted (u restores it)".into(),
        SubscriptionState::Unsupported => "none: its channel is no longer supported".into(),
        _ => next_delivery(subscription.next_delivery_date, now, zone),
    }
}

/// `#12 "Weekly revenue"`: a subscription in questions and results (which
/// show it escaped).
pub fn label(subscription: &Subscription) -> String {
    match subscription
        .title
        .as_deref()
        .filter(|title| !title.trim().is_empty())
    {
        Some(title) => format!("#{} \"{title}\"", subscription.id),
        None => format!("#{}", subscription.id),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::time::parse_datetime;

    fn slack(id: i64, name: &str, errors: &str) -> Integration {
        Integration {
            id,
            kind: "slack".into(),
            display_name: Some(name.into()),
            errors: Some(errors.into()),
            ..Integration::default()
        }
    }

    fn to(kind: &str, value: &str, integration: Option<i64>) -> Subscription {
        Subscription {
            target_type: Some(TargetType::from_wire(kind)),
            target_value: Some(value.into()),
            integration_id: integration,
            ..Subscription::default()
        }
    }

    #[test]
    fn a_slack_target_is_its_channel_with_its_workspace_when_there_are_several() {
        let one = Integrations(Some(vec![slack(2, "Hedgebox", "")]));
        let two = Integrations(Some(vec![
            slack(1, "Hedgebox (old workspace)", "token_revoked"),
            slack(2, "Hedgebox", ""),
        ]));
        let oncall = to("slack", "C00001074|#oncall", Some(2));
        assert_eq!(target_cell(&oncall, &one), "#oncall");
        assert_eq!(target_cell(&oncall, &Integrations(None)), "#oncall");
        assert_eq!(target_cell(&oncall, &two), "#oncall · Hedgebox");
        assert_eq!(target_detail(&oncall), "Slack #oncall");
        assert_eq!(channel("#plain"), "#plain");
        assert_eq!(channel("C0123"), "C0123");
        let old = to("slack", "#metrics", Some(1));
        assert_eq!(target_cell(&old, &two), "#metrics · Hedgebox (old workspace)");
        assert!(through_broken(&old, &two) && !through_broken(&oncall, &two));
        assert_eq!(integration(1, &two), "Hedgebox (old workspace), revoked");
        assert_eq!(integration(2, &two), "Hedgebox, connected");
        assert_eq!(integration(9, &two), "integration 9, not among the project's");
        assert_eq!(integration(9, &Integrations(None)), "integration 9");
        assert_eq!(
            target_cell(&to("email", "a@b.co, c@d.co,e@f.co", None), &two),
            "a@b.co +2"
        );
        assert_eq!(
            target_cell(&to("webhook", "https://x", None), &two),
            "webhook https://x"
        );
    }

    #[test]
    fn an_untitled_subscription_is_called_by_what_it_delivers() {
        let mut untitled_one = Subscription {
            title: Some("  ".into()),
            insight: Some(12),
            resource_name: Some("Weekly active users".into()),
            ..Subscription::default()
        };
        assert_eq!(title(&untitled_one), None);
        assert_eq!(untitled(&untitled_one), "Weekly active users");
        // PostHog's word for an insight without a name is no name.
        untitled_one.resource_name = Some("None".into());
        assert_eq!(untitled(&untitled_one), "insight 12");
        let dashboard = Subscription {
            dashboard: Some(4),
            ..Subscription::default()
        };
        assert_eq!(untitled(&dashboard), "dashboard 4");
        assert_eq!(untitled(&Subscription::default()), "(untitled)");
    }

    #[test]
    fn paused_ended_and_deleted_ones_promise_no_next_delivery() {
        let now = parse_datetime("2026-11-22T10:00:00Z").unwrap();
        let next = parse_datetime("2026-11-22T13:20:00Z");
        let active = Subscription {
            enabled: Some(true),
            next_delivery_date: next,
            ..to("email", "a@b.co", None)
        };
        assert_eq!(next_short(&active, now), "in 3h 20m");
        assert_eq!(next_long(&active, now, Zone::Utc), "in 3h 20m · 2026-11-22 13:20");
        let paused = Subscription {
            enabled: Some(false),
            ..active.clone()
        };
        assert_eq!(next_short(&paused, now), "paused");
        assert_eq!(next_long(&paused, now, Zone::Utc), "paused");
        assert!(next_detail(&paused, now, Zone::Utc).starts_with("none while paused"));
        let deleted = Subscription {
            deleted: true,
            ..active.clone()
        };
        assert_eq!(next_short(&deleted, now), "-");
        assert!(next_detail(&deleted, now, Zone::Utc).contains("soft-deleted"));
        let ended = Subscription {
            next_delivery_date: None,
            ..active.clone()
        };
        assert_eq!(next_short(&ended, now), "-");
        assert_eq!(next_long(&ended, now, Zone::Utc), "none left");
        let overdue = Subscription {
            next_delivery_date: parse_datetime("2026-11-22T09:00:00Z"),
            ..active
        };
        assert_eq!(next_short(&overdue, now), "1h ago");
    }
}
