//! Typed models of the API resources (`spec/api.md` section 2).
//!
//! The reference server serialises these and the client deserialises them, so
//! decoding is deliberately tolerant of what a real PostHog instance sends:
//! unknown fields are ignored, most fields may be missing or null, dates may
//! come with or without an offset, and `members` / `associated_flags` may be a
//! list (as PostHog sends them) or a string (as api.md types them).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub use super::subscription::*;
use super::time::flexible_datetime;

/// Decodes null as the type's default: a real server may send null where
/// api.md promises a value, and one null must not lose the whole resource.
pub(crate) fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// The paging envelope of every list response (api.md 2.1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound(deserialize = "T: Deserialize<'de>"))]
pub struct Page<T> {
    #[serde(default, deserialize_with = "null_as_default")]
    pub count: u64,
    #[serde(default)]
    pub next: Option<String>,
    #[serde(default)]
    pub previous: Option<String>,
    #[serde(default = "Vec::new", deserialize_with = "null_as_default")]
    pub results: Vec<T>,
}

/// A user as embedded in other resources (api.md 2.3).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct User {
    #[serde(default, deserialize_with = "null_as_default")]
    pub id: i64,
    #[serde(default, deserialize_with = "null_as_default")]
    pub uuid: String,
    #[serde(default)]
    pub distinct_id: Option<String>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub first_name: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub last_name: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub email: String,
    #[serde(default)]
    pub is_email_verified: Option<bool>,
    #[serde(default)]
    pub hedgehog_config: Option<Map<String, Value>>,
    /// Today's PostHog: the user's role at the organization, in their
    /// words; always sent, null when unset (posthog.md 15-7).
    #[serde(default)]
    pub role_at_organization: Option<String>,
}

impl User {
    /// "First Last", or the e-mail address when the user has no name.
    pub fn display_name(&self) -> String {
        let name = format!("{} {}", self.first_name.trim(), self.last_name.trim());
        let name = name.trim();
        if name.is_empty() {
            self.email.clone()
        } else {
            name.to_string()
        }
    }
}

/// An organization member (api.md 2.4).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct OrganizationMember {
    #[serde(default, deserialize_with = "null_as_default")]
    pub id: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub user: User,
    #[serde(default, deserialize_with = "null_as_default")]
    pub level: i64,
    #[serde(default, with = "flexible_datetime")]
    pub joined_at: Option<DateTime<Utc>>,
    #[serde(default, with = "flexible_datetime")]
    pub updated_at: Option<DateTime<Utc>>,
    #[serde(default)]
    pub is_2fa_enabled: Option<bool>,
    #[serde(default)]
    pub has_social_auth: Option<bool>,
    #[serde(default, with = "flexible_datetime", skip_serializing_if = "Option::is_none")]
    pub last_login: Option<DateTime<Utc>>,
}

/// Organization member levels (compat.md).
pub mod level {
    pub const MEMBER: i64 = 1;
    pub const ADMIN: i64 = 8;
    pub const OWNER: i64 = 15;

    /// The level in words, as people say it.
    pub fn name(level: i64) -> &'static str {
        match level {
            MEMBER => "member",
            ADMIN => "admin",
            OWNER => "owner",
            _ => "unknown",
        }
    }
}

/// A role membership (api.md 2.5).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RoleMembership {
    #[serde(default, deserialize_with = "null_as_default")]
    pub id: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub role_id: String,
    #[serde(default)]
    pub organization_member: Option<OrganizationMember>,
    #[serde(default)]
    pub user: Option<User>,
    #[serde(default, with = "flexible_datetime")]
    pub joined_at: Option<DateTime<Utc>>,
    #[serde(default, with = "flexible_datetime")]
    pub updated_at: Option<DateTime<Utc>>,
    /// Write-only on a real server; present only when a body echoes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_uuid: Option<String>,
}

/// A feature flag a role is associated with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssociatedFlag {
    #[serde(default, deserialize_with = "null_as_default")]
    pub id: i64,
    #[serde(default, deserialize_with = "null_as_default")]
    pub key: String,
}

/// A field that PostHog sends as a list but api.md types as a string.
/// `Other` keeps anything else a server might send rather than failing the
/// whole role.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ListOrText<T> {
    List(Vec<T>),
    Text(String),
    Other(Value),
}

impl<T> ListOrText<T> {
    /// How many items the list holds, when it is a list.
    pub fn len(&self) -> Option<usize> {
        match self {
            ListOrText::List(items) => Some(items.len()),
            _ => None,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == Some(0)
    }
}

/// Feature-flag access levels of a role (compat.md).
pub mod access_level {
    pub const VIEW: i64 = 21;
    pub const EDIT: i64 = 37;
    pub const DEFAULT: i64 = EDIT;

    pub fn is_valid(level: i64) -> bool {
        level == VIEW || level == EDIT
    }

    /// The level in words.
    pub fn name(level: i64) -> &'static str {
        match level {
            VIEW => "view only",
            EDIT => "can edit",
            _ => "unknown",
        }
    }
}

/// A role (api.md 2.2).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Role {
    #[serde(default, deserialize_with = "null_as_default")]
    pub id: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub name: String,
    /// Older servers only: today's PostHog has no access level on roles,
    /// and then there is none to show or edit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feature_flags_access_level: Option<i64>,
    #[serde(default, with = "flexible_datetime")]
    pub created_at: Option<DateTime<Utc>>,
    #[serde(default)]
    pub created_by: Option<User>,
    #[serde(default)]
    pub members: Option<ListOrText<RoleMembership>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub associated_flags: Option<ListOrText<AssociatedFlag>>,
    /// Today's PostHog: whether new members get this role. Older servers
    /// leave it out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_default: Option<bool>,
}

/// An organization, as listed by `GET /api/organizations/`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Organization {
    #[serde(default, deserialize_with = "null_as_default")]
    pub id: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub name: String,
    #[serde(default)]
    pub slug: Option<String>,
    #[serde(default, with = "flexible_datetime")]
    pub created_at: Option<DateTime<Utc>>,
    #[serde(default)]
    pub membership_level: Option<i64>,
    /// Whether the organization resolves access most-specific-first
    /// (posthog.md 16.6); sent by the reference server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uses_most_specific_access_resolution: Option<bool>,
    /// Whether its members may see each other (posthog.md 16.4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub members_can_see_org_members: Option<bool>,
}

/// A project, as listed by `GET /api/projects/`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Project {
    #[serde(default, deserialize_with = "null_as_default")]
    pub id: i64,
    #[serde(default)]
    pub organization: Option<String>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub name: String,
    #[serde(default, with = "flexible_datetime")]
    pub created_at: Option<DateTime<Utc>>,
}

/// A dashboard or an insight, as the pickers list them: at least id and name.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct NamedItem {
    #[serde(default, deserialize_with = "null_as_default")]
    pub id: i64,
    #[serde(default)]
    pub name: Option<String>,
    /// An insight's short id (PostHog's insight list sends it); dashboards have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub short_id: Option<String>,
    /// The name PostHog makes up for an insight that has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub derived_name: Option<String>,
}

impl NamedItem {
    /// Its name and the one PostHog made up for it, those it has.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        [&self.name, &self.derived_name]
            .into_iter()
            .flatten()
            .map(String::as_str)
            .filter(|name| !name.trim().is_empty())
    }

    /// How it is named for people: its name, else PostHog's made-up one.
    pub fn shown_name(&self) -> String {
        self.names().next().unwrap_or("(no name)").to_string()
    }
}

/// The calling key, from `GET /api/personal_api_keys/@current`.
/// It holds no secret: `mask_value` is the masked form the API returns.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PersonalApiKey {
    #[serde(default, deserialize_with = "null_as_default")]
    pub id: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub label: String,
    #[serde(default)]
    pub mask_value: Option<String>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub scopes: Vec<String>,
    #[serde(default)]
    pub scoped_organizations: Option<Vec<String>>,
    #[serde(default)]
    pub scoped_teams: Option<Vec<i64>>,
    #[serde(default, with = "flexible_datetime")]
    pub created_at: Option<DateTime<Utc>>,
    #[serde(default, with = "flexible_datetime")]
    pub last_used_at: Option<DateTime<Utc>>,
    /// The key's user (posthog.md 1): PostHog's integer id, read as it
    /// comes (a number or a string); absent on older servers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_id: Option<serde_json::Value>,
}

/// Whether a key holding `scopes` may use `scope`, as PostHog decides it: an
/// exact match, the matching `:write` for a `:read`, `*`, or an empty list
/// (which means every scope).
pub fn scopes_grant(scopes: &[String], scope: &str) -> bool {
    let write_of_read = scope
        .strip_suffix(":read")
        .map(|object| format!("{object}:write"));
    scopes.is_empty()
        || scopes
            .iter()
            .any(|held| held == "*" || held == scope || Some(held.as_str()) == write_of_read.as_deref())
}

/// The error body every PostHog error carries (compat.md "Error bodies").
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ErrorBody {
    #[serde(default, rename = "type", deserialize_with = "null_as_default")]
    pub kind: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub code: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub detail: String,
    #[serde(default)]
    pub attr: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::enums::TargetType;

    #[test]
    fn role_members_decode_as_list_or_string() {
        let listed: Role = serde_json::from_str(
            r#"{"id":"r","name":"A","members":[{"id":"m","role_id":"r"}],
                "associated_flags":[{"id":1,"key":"beta"}],"extra":1}"#,
        )
        .unwrap();
        assert_eq!(listed.members.unwrap().len(), Some(1));
        assert_eq!(listed.associated_flags.unwrap().len(), Some(1));

        let texted: Role =
            serde_json::from_str(r#"{"id":"r","name":"A","members":"3","associated_flags":""}"#).unwrap();
        assert_eq!(texted.members, Some(ListOrText::Text("3".into())));
    }

    #[test]
    fn subscription_tolerates_nulls_unknown_values_and_naive_dates() {
        let sub: Subscription = serde_json::from_str(
            r#"{"id":7,"target_type":"teams","frequency":null,"byweekday":null,
                "start_date":"2026-01-01T09:00:00","until_date":null,"deleted":false,
                "created_by":null,"new_field":{"x":1}}"#,
        )
        .unwrap();
        assert_eq!(sub.target_type, Some(TargetType::Other("teams".into())));
        assert_eq!(sub.frequency, None);
        assert_eq!(sub.start_date.unwrap().to_rfc3339(), "2026-01-01T09:00:00+00:00");
    }

    /// Every field of every model set to null still decodes.
    #[test]
    fn nulls_everywhere_decode() {
        fn all_null<T: serde::de::DeserializeOwned + Serialize + Default>() -> T {
            let fields = serde_json::to_value(T::default()).unwrap();
            let nulls: Map<String, Value> = fields
                .as_object()
                .unwrap()
                .keys()
                .map(|k| (k.clone(), Value::Null))
                .collect();
            serde_json::from_value(Value::Object(nulls))
                .unwrap_or_else(|e| panic!("{}: {e}", std::any::type_name::<T>()))
        }
        all_null::<User>();
        all_null::<OrganizationMember>();
        all_null::<RoleMembership>();
        all_null::<Role>();
        all_null::<Subscription>();
        all_null::<Organization>();
        all_null::<Project>();
        all_null::<NamedItem>();
        all_null::<PersonalApiKey>();
        all_null::<ErrorBody>();
        let page: Page<Role> =
            serde_json::from_str(r#"{"count":null,"next":null,"previous":null,"results":null}"#).unwrap();
        assert_eq!(page.count, 0);
        let flag: AssociatedFlag = serde_json::from_str(r#"{"id":null,"key":null}"#).unwrap();
        assert_eq!(flag.id, 0);
    }

    #[test]
    fn user_with_null_hedgehog_config_and_missing_fields() {
        let user: User = serde_json::from_str(r#"{"id":1,"hedgehog_config":null}"#).unwrap();
        assert_eq!(user.id, 1);
        assert!(user.hedgehog_config.is_none());
    }
}
