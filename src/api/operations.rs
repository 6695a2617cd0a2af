//! A typed method for every operation of api.md and the picker endpoints of
//! compat.md. Organizations are a UUID or `@current`; projects an id or
//! `@current`.

use chrono::{DateTime, Utc};
use reqwest::Method;
use serde::{Deserialize, Serialize};

use super::client::Client;
use super::enums::{Frequency, TargetType, Weekday};
use super::error::Result;
use super::models::{
    Organization, PersonalApiKey, Project, Role, RoleMembership, Subscription, SubscriptionContext,
};
use super::query::SubscriptionFilter;
use super::raw::Raw;
use super::time::flexible_datetime;

/// The writable fields of a role; `None` leaves a field out of the body.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RoleInput {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feature_flags_access_level: Option<i64>,
}

/// The writable fields of a subscription. `None` leaves a field out of the
/// body (a PATCH changes only what it sends); for nullable fields `Some(None)`
/// sends an explicit null.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SubscriptionInput {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dashboard: Option<Option<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub insight: Option<Option<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_type: Option<TargetType>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_value: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frequency: Option<Frequency>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub byweekday: Option<Option<Vec<Weekday>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bysetpos: Option<Option<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<Option<i64>>,
    #[serde(skip_serializing_if = "Option::is_none", with = "flexible_datetime")]
    pub start_date: Option<DateTime<Utc>>,
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "nullable_datetime")]
    pub until_date: Option<Option<DateTime<Utc>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deleted: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invite_message: Option<Option<String>>,
    // Today's PostHog (posthog.md 8.1); left out, an older server never sees them.
    /// The insights a dashboard subscription exports (some of its tiles, up
    /// to the cap of the organization's plan).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dashboard_export_insights: Option<Vec<i64>>,
    /// The question an AI-report subscription asks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// The Slack integration a Slack subscription posts through.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub integration_id: Option<Option<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary_enabled: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary_prompt_guide: Option<String>,
    /// An AI report's window, `{"window": {...}}` (posthog.md 15-2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ai_prompt_config: Option<serde_json::Value>,
    /// What an AI summary reads besides the resource, by id; `[]` clears
    /// them (posthog.md 15-3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contexts: Option<Vec<SubscriptionContext>>,
    /// Deliver once on this save (`true`) or not (`false`): today's
    /// PostHog alone; the client sends `false` unless the user asks
    /// (posthog.md 15-1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub send_test_now: Option<bool>,
}

impl SubscriptionInput {
    /// The same input with only the named fields kept (the others left
    /// out of the body): an edit sends what changed.
    pub fn only(&self, names: &[&str]) -> SubscriptionInput {
        let keep = |name: &str| names.contains(&name);
        let all = self.clone();
        SubscriptionInput {
            dashboard: all.dashboard.filter(|_| keep("dashboard")),
            insight: all.insight.filter(|_| keep("insight")),
            target_type: all.target_type.filter(|_| keep("target_type")),
            target_value: all.target_value.filter(|_| keep("target_value")),
            frequency: all.frequency.filter(|_| keep("frequency")),
            interval: all.interval.filter(|_| keep("interval")),
            byweekday: all.byweekday.filter(|_| keep("byweekday")),
            bysetpos: all.bysetpos.filter(|_| keep("bysetpos")),
            count: all.count.filter(|_| keep("count")),
            start_date: all.start_date.filter(|_| keep("start_date")),
            until_date: all.until_date.filter(|_| keep("until_date")),
            deleted: all.deleted.filter(|_| keep("deleted")),
            title: all.title.filter(|_| keep("title")),
            invite_message: all.invite_message.filter(|_| keep("invite_message")),
            dashboard_export_insights: all
                .dashboard_export_insights
                .filter(|_| keep("dashboard_export_insights")),
            prompt: all.prompt.filter(|_| keep("prompt")),
            enabled: all.enabled.filter(|_| keep("enabled")),
            integration_id: all.integration_id.filter(|_| keep("integration_id")),
            summary_enabled: all.summary_enabled.filter(|_| keep("summary_enabled")),
            summary_prompt_guide: all.summary_prompt_guide.filter(|_| keep("summary_prompt_guide")),
            ai_prompt_config: all.ai_prompt_config.filter(|_| keep("ai_prompt_config")),
            contexts: all.contexts.filter(|_| keep("contexts")),
            send_test_now: all.send_test_now.filter(|_| keep("send_test_now")),
        }
    }

    /// Whether the body would set nothing.
    pub fn is_empty(&self) -> bool {
        *self == SubscriptionInput::default()
    }
}

fn nullable_datetime<S: serde::Serializer>(
    value: &Option<Option<DateTime<Utc>>>,
    serializer: S,
) -> std::result::Result<S::Ok, S::Error> {
    flexible_datetime::serialize(&value.flatten(), serializer)
}

const NO_BODY: Option<&()> = None;

/// Single objects come back with the server's JSON beside their typed
/// reading ([`Raw`]): `-o json` prints what the server sent.
impl Client {
    pub async fn role(&self, organization: &str, id: &str) -> Result<Raw<Role>> {
        self.call(
            Method::GET,
            self.url(&["api", "organizations", organization, "roles", id]),
            NO_BODY,
        )
        .await
    }

    /// Creates a role; after a 5xx or a lost answer, looks for it by name
    /// before answering (see `creates`).
    pub async fn create_role(&self, organization: &str, role: &RoleInput) -> Result<Raw<Role>> {
        let made = self
            .call(
                Method::POST,
                self.url(&["api", "organizations", organization, "roles"]),
                Some(role),
            )
            .await;
        match (made, &role.name) {
            (Err(error), Some(name)) => self.settle_role(organization, name, error).await,
            (made, _) => made,
        }
    }

    pub async fn update_role(&self, organization: &str, id: &str, changes: &RoleInput) -> Result<Raw<Role>> {
        self.call(
            Method::PATCH,
            self.url(&["api", "organizations", organization, "roles", id]),
            Some(changes),
        )
        .await
    }

    /// Deletes the role and, with it, its memberships.
    pub async fn delete_role(&self, organization: &str, id: &str) -> Result<()> {
        self.call_empty(
            Method::DELETE,
            self.url(&["api", "organizations", organization, "roles", id]),
        )
        .await
    }

    /// Assigns the user with this UUID to the role; after a 5xx or a lost
    /// answer, looks for the membership before answering.
    pub async fn add_member(
        &self,
        organization: &str,
        role: &str,
        user_uuid: &str,
    ) -> Result<Raw<RoleMembership>> {
        let url = self.url(&[
            "api",
            "organizations",
            organization,
            "roles",
            role,
            "role_memberships",
        ]);
        let made = self
            .call(
                Method::POST,
                url,
                Some(&serde_json::json!({ "user_uuid": user_uuid })),
            )
            .await;
        match made {
            Err(error) => self.settle_membership(organization, role, user_uuid, error).await,
            made => made,
        }
    }

    pub async fn remove_member(&self, organization: &str, role: &str, membership: &str) -> Result<()> {
        let url = self.url(&[
            "api",
            "organizations",
            organization,
            "roles",
            role,
            "role_memberships",
            membership,
        ]);
        self.call_empty(Method::DELETE, url).await
    }

    pub async fn subscription(&self, project: &str, id: i64) -> Result<Raw<Subscription>> {
        let url = self.url(&["api", "projects", project, "subscriptions", &id.to_string()]);
        self.call(Method::GET, url, NO_BODY).await
    }

    /// A page of the subscription list as the console shows it. A search
    /// for an id (`12`, `#12`) finds that subscription too, though PostHog
    /// searches only titles and names: it is read, and when the list's
    /// other filters hold it and the search would not find it, it comes
    /// first, the server's rows one place later (so every page asks for it
    /// again, to place the rows alike).
    pub async fn subscriptions_page(
        &self,
        project: &str,
        filter: &SubscriptionFilter,
        limit: u64,
        offset: u64,
    ) -> Result<super::Page<Subscription>> {
        let list = super::List::subscriptions(project, filter);
        let pinned = match filter.searched_id() {
            Some(id) => match self.subscription(project, id).await {
                Ok(found) => Some(found.into_typed())
                    .filter(|found| filter.holds(found) && !filter.search_finds(found)),
                // None with that id (or none this key may read): the search alone.
                Err(error) => {
                    tracing::debug!(id, %error, "no subscription with the searched id");
                    None
                }
            },
            None => None,
        };
        let Some(pinned) = pinned else {
            return self.page(&list, limit, offset).await;
        };
        let limit = limit.max(2);
        let (server_limit, server_offset) = match offset {
            0 => (limit - 1, 0),
            offset => (limit, offset - 1),
        };
        let mut page = self.page(&list, server_limit, server_offset).await?;
        page.count = page.count.saturating_add(1);
        if offset == 0 {
            page.results.insert(0, pinned);
        }
        Ok(page)
    }

    /// Creates a subscription from any body that serialises to the API's
    /// fields: a [`SubscriptionInput`], or a JSON object a user wrote.
    /// After a 5xx or a lost answer, looks for it (the same fields, made by
    /// the key's user in the last minutes) before answering.
    pub async fn create_subscription(
        &self,
        project: &str,
        body: &(impl Serialize + ?Sized),
    ) -> Result<Raw<Subscription>> {
        let sent = Utc::now();
        let made = self
            .call(
                Method::POST,
                self.url(&["api", "projects", project, "subscriptions"]),
                Some(body),
            )
            .await;
        match made {
            Err(error) => self.settle_subscription(project, body, sent, error).await,
            made => made,
        }
    }

    /// PATCHes the fields the body holds and only those.
    pub async fn update_subscription(
        &self,
        project: &str,
        id: i64,
        body: &(impl Serialize + ?Sized),
    ) -> Result<Raw<Subscription>> {
        let url = self.url(&["api", "projects", project, "subscriptions", &id.to_string()]);
        self.call(Method::PATCH, url, Some(body)).await
    }

    /// Whether the project's server is today's PostHog, which takes the
    /// newest write-only fields (`send_test_now`): its subscriptions carry
    /// `enabled`. With none to look at, its today-only `summary_quota`
    /// answers (an older server has no such path: 404).
    pub async fn is_todays_posthog(&self, project: &str) -> Result<bool> {
        let list =
            super::paging::List::<Subscription>::subscriptions(project, &SubscriptionFilter::default());
        if let Some(row) = self.page(&list, 1, 0).await?.results.first() {
            return Ok(row.enabled.is_some());
        }
        match self.summary_quota(project).await {
            Ok(_) => Ok(true),
            Err(error) if error.status() == Some(404) => Ok(false),
            Err(error) => Err(error),
        }
    }

    /// The soft delete: `PATCH {"deleted": true}`.
    pub async fn soft_delete_subscription(&self, project: &str, id: i64) -> Result<Raw<Subscription>> {
        self.update_subscription(project, id, &serde_json::json!({ "deleted": true }))
            .await
    }

    /// Undoes a soft delete: `PATCH {"deleted": false}`.
    pub async fn restore_subscription(&self, project: &str, id: i64) -> Result<Raw<Subscription>> {
        self.update_subscription(project, id, &serde_json::json!({ "deleted": false }))
            .await
    }

    /// The API's DELETE of a subscription, which PostHog always refuses
    /// (405): hard delete is not allowed. It exists so that the refusal can
    /// be shown; orgdeck itself soft-deletes.
    pub async fn hard_delete_subscription(&self, project: &str, id: i64) -> Result<()> {
        let url = self.url(&["api", "projects", project, "subscriptions", &id.to_string()]);
        self.call_empty(Method::DELETE, url).await
    }

    /// One organization; `@current` is the key owner's.
    pub async fn organization(&self, id: &str) -> Result<Organization> {
        self.call(Method::GET, self.url(&["api", "organizations", id]), NO_BODY)
            .await
    }

    /// One project; `@current` is the key owner's.
    pub async fn project(&self, id: &str) -> Result<Project> {
        self.call(Method::GET, self.url(&["api", "projects", id]), NO_BODY)
            .await
    }

    /// The calling key: its scopes and the organizations and projects it may reach.
    pub async fn current_key(&self) -> Result<PersonalApiKey> {
        self.call(
            Method::GET,
            self.url(&["api", "personal_api_keys", "@current"]),
            NO_BODY,
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn inputs_send_only_what_is_set_and_null_when_asked() {
        let input = SubscriptionInput {
            title: Some(None),
            interval: Some(2),
            until_date: Some(None),
            byweekday: Some(Some(vec![Weekday::Monday])),
            ..SubscriptionInput::default()
        };
        assert_eq!(
            serde_json::to_value(&input).unwrap(),
            json!({"title": null, "interval": 2, "until_date": null, "byweekday": ["monday"]})
        );
        let dated = SubscriptionInput {
            start_date: crate::api::time::parse_datetime("2026-12-01T09:00:00Z"),
            ..SubscriptionInput::default()
        };
        assert_eq!(
            serde_json::to_value(&dated).unwrap(),
            json!({"start_date": "2026-12-01T09:00:00Z"})
        );
        assert_eq!(serde_json::to_value(RoleInput::default()).unwrap(), json!({}));
    }
}
