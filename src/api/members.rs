//! An organization's members one at a time (posthog.md 7 and 15-13): a
//! member found by e-mail address, their level changed, their removal, the
//! summary of their personal API keys, and the caller themselves.

use chrono::{DateTime, Utc};
use reqwest::Method;
use serde::{Deserialize, Serialize};

use super::client::Client;
use super::error::Result;
use super::models::{OrganizationMember, User};
use super::paging::List;
use super::raw::Raw;
use super::time::flexible_datetime;

/// What `…/members/:uuid/scoped_api_keys/` tells of a member's keys.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ScopedApiKeys {
    #[serde(default)]
    pub has_keys: bool,
    #[serde(default)]
    pub has_keys_active_last_week: bool,
    #[serde(default)]
    pub keys: Vec<KeySummary>,
}

/// One key of a member: what it is called and may do, never the key.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct KeySummary {
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub label: Option<String>,
    #[serde(default)]
    pub scopes: Vec<String>,
    #[serde(default, with = "flexible_datetime")]
    pub last_used_at: Option<DateTime<Utc>>,
}

/// Why a search through the members stopped early.
enum Found {
    It,
    Failed(super::Error),
}

impl From<super::Error> for Found {
    fn from(error: super::Error) -> Self {
        Found::Failed(error)
    }
}

impl Client {
    /// The member with this e-mail address (any case), or `None`: one
    /// request, through the list's exact `email` filter.
    pub async fn member_by_email(
        &self,
        organization: &str,
        email: &str,
    ) -> Result<Option<OrganizationMember>> {
        let list = List::members(organization).with("email", email.trim());
        let page = self.page(&list, 10, 0).await?;
        let wanted = email.trim().to_lowercase();
        let is_wanted = |member: &OrganizationMember| member.user.email.to_lowercase() == wanted;
        let listed = page.results.len() as u64;
        if let Some(found) = page.results.into_iter().find(is_wanted) {
            return Ok(Some(found));
        }
        if page.count <= listed {
            return Ok(None);
        }
        // A server that ignores the filter sent everyone: read on.
        self.first_member(&list, is_wanted).await
    }

    /// The member whose user has this id (PostHog's integer user id, or a
    /// UUID): a walk through the members, a page at a time, keeping none
    /// but the one looked for. For a key whose user cannot be read through
    /// `users/@me` (which needs `user:read`), from the key's `user_id`.
    pub async fn member_by_user_id(
        &self,
        organization: &str,
        user_id: &str,
    ) -> Result<Option<OrganizationMember>> {
        let is_wanted = |member: &OrganizationMember| {
            member.user.id.to_string() == user_id || member.user.uuid.eq_ignore_ascii_case(user_id)
        };
        self.first_member(&List::members(organization), is_wanted).await
    }

    /// The first member of a list that `is_wanted`, read a page at a time.
    async fn first_member(
        &self,
        list: &List<OrganizationMember>,
        is_wanted: impl Fn(&OrganizationMember) -> bool,
    ) -> Result<Option<OrganizationMember>> {
        let mut found = None;
        let outcome = self
            .for_each_page(
                list,
                &super::FetchAll::default(),
                |rows: Vec<OrganizationMember>| {
                    found = rows.into_iter().find(|member| is_wanted(member));
                    match found {
                        Some(_) => Err(Found::It),
                        None => Ok(()),
                    }
                },
            )
            .await;
        match outcome {
            Ok(_) | Err(Found::It) => Ok(found),
            Err(Found::Failed(error)) => Err(error),
        }
    }

    /// Sets a member's level (1 member, 8 admin, 15 owner).
    pub async fn set_member_level(
        &self,
        organization: &str,
        user_uuid: &str,
        level: i64,
    ) -> Result<Raw<OrganizationMember>> {
        let url = self.url(&["api", "organizations", organization, "members", user_uuid]);
        self.call(Method::PATCH, url, Some(&serde_json::json!({ "level": level })))
            .await
    }

    /// Removes a member from the organization (their role memberships go
    /// with them; what they created stays).
    pub async fn remove_from_organization(&self, organization: &str, user_uuid: &str) -> Result<()> {
        let url = self.url(&["api", "organizations", organization, "members", user_uuid]);
        self.call_empty(Method::DELETE, url).await
    }

    /// The summary of a member's personal API keys.
    pub async fn scoped_api_keys(&self, organization: &str, user_uuid: &str) -> Result<ScopedApiKeys> {
        let url = self.url(&[
            "api",
            "organizations",
            organization,
            "members",
            user_uuid,
            "scoped_api_keys",
        ]);
        self.call(Method::GET, url, None::<&()>).await
    }

    /// The user whose key this is (`/api/users/@me/`).
    pub async fn me(&self) -> Result<User> {
        self.call(Method::GET, self.url(&["api", "users", "@me"]), None::<&()>)
            .await
    }
}
