//! The checks a subscription's values pass before they are stored: the
//! target's form (both flavors), the catalog rules of compat.md (seed) and
//! the validation of today's serializer, in its order (posthog.md 8.2).

use rusqlite::Connection;

use crate::api::{ResourceType, TargetType};
use crate::server::error::{ApiError, ApiResult};
use crate::server::store::directory::{self, Catalog};
use crate::server::store::subscriptions::{Computed, SubscriptionValues};

/// The target value must suit the target type.
pub fn check_target(values: &SubscriptionValues) -> ApiResult<()> {
    let invalid = |detail: String| ApiError::validation("invalid", detail).on("target_value");
    let value = values.target_value.trim();
    match values.target_type {
        TargetType::Email => {
            for address in value.split(',').map(str::trim) {
                if !is_email(address) {
                    return Err(invalid(format!(
                        "Enter valid e-mail addresses separated by commas; \"{address}\" is not one."
                    )));
                }
            }
        }
        TargetType::Webhook => {
            let url = url::Url::parse(value).ok().filter(|url| {
                matches!(url.scheme(), "http" | "https")
                    && url.host_str().is_some_and(|host| !host.is_empty())
            });
            if url.is_none() {
                return Err(invalid("Enter a valid http or https URL for the webhook.".into()));
            }
        }
        TargetType::Slack | TargetType::Other(_) => {}
    }
    Ok(())
}

/// A plain check of an e-mail address: one `@`, a local part, and a domain
/// with a dot, no spaces.
fn is_email(address: &str) -> bool {
    let Some((local, domain)) = address.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && !domain.contains('@')
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !address.chars().any(|c| c.is_whitespace() || c == ',')
}

/// A dashboard or insight given must be one of the project's; not both.
pub fn check_catalog(connection: &Connection, project: i64, values: &SubscriptionValues) -> ApiResult<()> {
    if values.dashboard.is_some() && values.insight.is_some() {
        return Err(ApiError::validation(
            "invalid_input",
            "A subscription delivers either a dashboard or an insight, not both.",
        ));
    }
    for (catalog, field, id) in [
        (Catalog::Dashboards, "dashboard", values.dashboard),
        (Catalog::Insights, "insight", values.insight),
    ] {
        if let Some(id) = id
            && !directory::catalog_has(connection, catalog, project, id)?
        {
            return Err(ApiError::validation(
                "does_not_exist",
                format!("Invalid pk \"{id}\" - object does not exist."),
            )
            .on(field));
        }
    }
    Ok(())
}

/// DRF's own check of a related field, before any of the serializer's:
/// a dashboard or insight id that names nothing at all (in today's flavor;
/// one of another project is step 2's). An integration must be one of the
/// project's whatever the target: stored against an e-mail target it would
/// otherwise point into another team (or, naming nothing, fail the write).
pub fn check_references(connection: &Connection, project: i64, values: &SubscriptionValues) -> ApiResult<()> {
    let does_not_exist = |field: &str, id: i64| {
        ApiError::validation(
            "does_not_exist",
            format!("Invalid pk \"{id}\" - object does not exist."),
        )
        .on(field)
    };
    for (catalog, field, id) in [
        (Catalog::Dashboards, "dashboard", values.dashboard),
        (Catalog::Insights, "insight", values.insight),
    ] {
        if let Some(id) = id
            && !directory::catalog_exists(connection, catalog, id)?
        {
            return Err(does_not_exist(field, id));
        }
    }
    // PostHog's own words for a Slack target's (posthog.md 8.2-8).
    if let Some(id) = values.today.integration_id
        && directory::integration_kind(connection, project, id)?.is_none()
    {
        return Err(ApiError::validation(
            "invalid_input",
            "This integration does not exist or does not belong to your team.",
        )
        .on("integration_id"));
    }
    Ok(())
}

/// The plan's limit (posthog.md 8.2-1, `serve --subscription-limit`): a
/// create, or a restore, may not take a project's undeleted subscriptions
/// past it.
pub fn check_plan_limit(connection: &Connection, project: i64, limit: Option<u64>) -> ApiResult<()> {
    let Some(limit) = limit else {
        return Ok(());
    };
    let count: i64 = connection
        .prepare_cached("SELECT COUNT(*) FROM subscriptions WHERE project_id = ?1 AND deleted = 0")?
        .query_row([project], |row| row.get(0))?;
    if u64::try_from(count).unwrap_or(0) >= limit {
        return Err(ApiError::validation(
            "invalid_input",
            format!("Your plan is limited to {limit} subscriptions."),
        )
        .on("subscription"));
    }
    Ok(())
}

/// What an update does beyond its values, for the checks that depend on it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Intent {
    /// A disabled row sent `enabled: true`.
    pub re_enabling: bool,
    /// The body sent `dashboard_export_insights: []`.
    pub clears_export: bool,
    /// An enabled row's schedule changed.
    pub reschedules: bool,
}

/// The resource a subscription delivers: on create the first of insight,
/// dashboard, prompt that is set; on update the stored row's.
pub fn resource_type(values: &SubscriptionValues) -> Option<ResourceType> {
    if values.insight.is_some() {
        Some(ResourceType::Insight)
    } else if values.dashboard.is_some() {
        Some(ResourceType::Dashboard)
    } else if values.today.prompt.is_some() {
        Some(ResourceType::AiPrompt)
    } else {
        None
    }
}

/// Today's serializer: the checks of posthog.md 8.2, 2 to 8, in order.
/// `stored` is the row an update changes; `computed` the schedule's
/// outcome when it was computed again.
pub fn check_today(
    connection: &Connection,
    project: i64,
    stored: Option<&SubscriptionValues>,
    values: &SubscriptionValues,
    intent: Intent,
    computed: Option<&Computed>,
    export_cap: usize,
) -> ApiResult<()> {
    let invalid = |field: &str, detail: &str| ApiError::validation("invalid_input", detail).on(field);
    // 2. The catalog is the project's.
    for (catalog, field, id, detail) in [
        (
            Catalog::Dashboards,
            "dashboard",
            values.dashboard,
            "This dashboard does not belong to your team.",
        ),
        (
            Catalog::Insights,
            "insight",
            values.insight,
            "This insight does not belong to your team.",
        ),
    ] {
        if let Some(id) = id
            && !directory::catalog_has(connection, catalog, project, id)?
        {
            return Err(invalid(field, detail));
        }
    }
    // 3 and 4. One resource, and only the fields of its type.
    let kind = match stored {
        Some(stored) => resource_type(stored),
        None => resource_type(values),
    };
    let prompt = values.today.prompt.is_some();
    match kind {
        // A stored row with no resource (from before today's rules) keeps
        // its shape; only a new one must name one.
        None if stored.is_some() => {}
        None => {
            return Err(ApiError::validation(
                "invalid_input",
                "A subscription must have an insight, a dashboard, or a prompt.",
            ));
        }
        Some(ResourceType::Insight) => {
            if values.insight.is_none() {
                return Err(invalid(
                    "insight",
                    "Insight is required for insight subscriptions.",
                ));
            }
            if values.dashboard.is_some() || prompt {
                return Err(invalid(
                    "insight",
                    "Insight subscriptions cannot also set dashboard or prompt.",
                ));
            }
        }
        Some(ResourceType::Dashboard) => {
            if values.dashboard.is_none() {
                return Err(invalid(
                    "dashboard",
                    "Dashboard is required for dashboard subscriptions.",
                ));
            }
            if values.insight.is_some() || prompt {
                return Err(invalid(
                    "dashboard",
                    "Dashboard subscriptions cannot also set insight or prompt.",
                ));
            }
        }
        Some(_) => {
            if values.insight.is_some() || values.dashboard.is_some() {
                return Err(invalid(
                    "prompt",
                    "AI subscriptions cannot also set insight or dashboard.",
                ));
            }
            if !prompt {
                return Err(invalid("prompt", "Prompt is required for AI subscriptions."));
            }
            if !matches!(values.target_type, TargetType::Email | TargetType::Slack) {
                return Err(invalid(
                    "target_type",
                    "AI subscriptions only support email or slack delivery.",
                ));
            }
        }
    }
    check_export(connection, project, stored.is_none(), values, intent, export_cap)?;
    // 6. What a re-enable needs.
    if intent.re_enabling {
        match &values.target_type {
            TargetType::Slack if values.today.integration_id.is_none() => {
                return Err(invalid(
                    "enabled",
                    "Cannot re-enable Slack subscription: no integration configured. Reconnect Slack first.",
                ));
            }
            TargetType::Email | TargetType::Slack => {}
            other => {
                return Err(invalid(
                    "enabled",
                    &format!(
                        "Cannot re-enable {} subscription: this delivery channel is not currently supported.",
                        other.as_str()
                    ),
                ));
            }
        }
    }
    // 7. A schedule with no delivery left.
    if computed.is_some_and(|computed| computed.next_delivery_date.is_none()) {
        const ENDED: &str =
            "Subscription schedule has reached its end date. Extend until_date or remove count.";
        if intent.re_enabling {
            return Err(invalid(
                "enabled",
                "Subscription schedule has reached its end date. Extend until_date or remove count before re-enabling.",
            ));
        }
        if stored.is_none() {
            return Err(invalid("start_date", ENDED));
        }
        if intent.reschedules {
            return Err(ApiError::validation("invalid_input", ENDED));
        }
    }
    // 8. Slack goes through one of the project's Slack integrations.
    if values.target_type == TargetType::Slack {
        let Some(integration) = values.today.integration_id else {
            return Err(invalid(
                "integration_id",
                "A Slack integration is required for Slack subscriptions.",
            ));
        };
        match directory::integration_kind(connection, project, integration)? {
            None => {
                return Err(invalid(
                    "integration_id",
                    "This integration does not exist or does not belong to your team.",
                ));
            }
            Some(kind) if kind != "slack" => {
                return Err(invalid(
                    "integration_id",
                    "Slack subscriptions require a Slack integration.",
                ));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// 8.2-5: the insights of a dashboard subscription.
fn check_export(
    connection: &Connection,
    project: i64,
    creating: bool,
    values: &SubscriptionValues,
    intent: Intent,
    export_cap: usize,
) -> ApiResult<()> {
    let invalid =
        |detail: &str| ApiError::validation("invalid_input", detail).on("dashboard_export_insights");
    let chosen = &values.today.dashboard_export_insights;
    let Some(dashboard) = values.dashboard else {
        if !chosen.is_empty() {
            return Err(invalid("Cannot set insights selection without a dashboard."));
        }
        return Ok(());
    };
    if (creating && chosen.is_empty()) || intent.clears_export {
        return Err(invalid("Select at least one insight for this subscription."));
    }
    let mut distinct = chosen.clone();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() > export_cap {
        return Err(invalid(&format!(
            "Cannot select more than {export_cap} insights."
        )));
    }
    for &insight in &distinct {
        if !directory::catalog_has(connection, Catalog::Insights, project, insight)? {
            return Err(invalid(
                "Some insights do not belong to your team or do no longer exist.",
            ));
        }
    }
    let on_tiles = directory::dashboard_insights(connection, dashboard)?;
    let stray = distinct.iter().filter(|id| !on_tiles.contains(id)).count();
    if stray > 0 {
        return Err(invalid(&format!("{stray} invalid insight(s) selected.")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn email_lists_are_checked_address_by_address() {
        for good in ["a@b.co", "first.last+tag@sub.example.org"] {
            assert!(is_email(good), "{good}");
        }
        for bad in ["", "a", "a@b", "@b.co", "a@.co", "a b@c.co", "a@b@c.co"] {
            assert!(!is_email(bad), "{bad}");
        }
    }
}
