//! The access-control answers and requests as the API sends them (posthog.md
//! 16.2-16.7), shared by the reference server (which writes them) and the
//! client (which reads what any PostHog sends: unknown values kept, missing
//! fields defaulted, both shapes of the inherited level, posthog.md 15-20).

use chrono::{DateTime, Utc};
use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::levels::{AccessLevel, PROJECT};
use super::resolve::{AccessSource, Entry, Resolved, Rule, Source, Subject, SubjectKind};
use crate::api::models::{User, null_as_default};
use crate::api::time::flexible_datetime;

/// One rule (`AccessControl`). `managed_by` and `managed_at` are what the
/// reference server adds so that a client can say which rules Terraform
/// owns (posthog.md 16.7); a PostHog that does not send them reads as
/// unmanaged.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AccessControl {
    #[serde(default)]
    pub access_level: Option<AccessLevel>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub resource: String,
    #[serde(default)]
    pub resource_id: Option<String>,
    /// The membership id of the member the rule is for.
    #[serde(default)]
    pub organization_member: Option<String>,
    /// The id of the role the rule is for.
    #[serde(default)]
    pub role: Option<String>,
    /// The id of the user who wrote it.
    #[serde(default)]
    pub created_by: Option<i64>,
    #[serde(default, with = "flexible_datetime")]
    pub created_at: Option<DateTime<Utc>>,
    #[serde(default, with = "flexible_datetime")]
    pub updated_at: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub managed_by: Option<String>,
    #[serde(default, with = "flexible_datetime", skip_serializing_if = "Option::is_none")]
    pub managed_at: Option<DateTime<Utc>>,
}

impl AccessControl {
    /// Whom the rule is for; `None` for a rule naming both a member and a
    /// role, which no server should hold.
    pub fn subject(&self) -> Option<Subject> {
        Subject::from_fields(self.organization_member.as_deref(), self.role.as_deref())
    }

    /// The rule as the resolver reads it; `None` without a level or with
    /// both subjects.
    pub fn rule(&self) -> Option<Rule> {
        Some(Rule {
            resource: self.resource.clone(),
            resource_id: self.resource_id.clone(),
            subject: self.subject()?,
            level: self.access_level.clone()?,
        })
    }

    /// Whether Terraform owns the rule.
    pub fn is_managed(&self) -> bool {
        self.managed_by
            .as_deref()
            .is_some_and(|manager| !manager.is_empty())
    }
}

/// A resolved level and where it came from (`ResolvedAccess`, and
/// `inherited_access` with its display name).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InheritedAccess {
    pub access_level: AccessLevel,
    pub source: Source,
    #[serde(default)]
    pub source_subject: Option<SubjectKind>,
    #[serde(default)]
    pub source_resource: Option<String>,
    #[serde(default)]
    pub source_resource_id: Option<String>,
    /// Only on an object's `access_controls` answer.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub source_display_name: Option<Option<String>>,
}

impl InheritedAccess {
    /// The wire form of a resolution; `display_name` set for an object's
    /// `access_controls` answer (which carries the key, null or not).
    pub fn of(resolved: &Resolved, display_name: Option<Option<String>>) -> InheritedAccess {
        InheritedAccess {
            access_level: resolved.level.clone(),
            source: resolved.source.clone(),
            source_subject: resolved.subject.clone(),
            source_resource: Some(resolved.resource.clone()),
            source_resource_id: resolved.resource_id.clone(),
            source_display_name: display_name,
        }
    }
}

/// The answer of `GET …/access_controls` (an object or the project) and of
/// `GET …/resource_access_controls`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AccessControls {
    #[serde(default, deserialize_with = "null_as_default")]
    pub access_controls: Vec<AccessControl>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub available_access_levels: Vec<AccessLevel>,
    #[serde(default)]
    pub default_access_level: Option<AccessLevel>,
    #[serde(default)]
    pub minimum_access_level: Option<AccessLevel>,
    #[serde(default)]
    pub maximum_access_level: Option<AccessLevel>,
    #[serde(default)]
    pub user_access_level: Option<AccessLevel>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub user_can_edit_access_levels: bool,
    /// Absent on the resource-wide answer; null for a project; else the
    /// level the object falls back to for everyone.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub inherited_access: Option<Option<InheritedAccess>>,
}

/// Tells a key sent as null (`Some(None)`) from one left out (`None`).
fn present<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

/// A rule to write: `access_level` null removes it. The resource and object
/// come from the path on `…/access_controls`; the resource-wide and the
/// object-rule endpoints take them in the body.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RuleInput {
    pub access_level: Option<AccessLevel>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub organization_member: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
}

impl RuleInput {
    /// A rule for `subject` at `level` (`None` removes it).
    pub fn new(subject: &Subject, level: Option<AccessLevel>) -> RuleInput {
        let mut input = RuleInput {
            access_level: level,
            ..RuleInput::default()
        };
        match subject {
            Subject::Member(id) => input.organization_member = Some(id.clone()),
            Subject::Role(id) => input.role = Some(id.clone()),
            Subject::Everyone => {}
        }
        input
    }

    /// The same rule about `resource` (and one object of it).
    pub fn on(mut self, resource: &str, resource_id: Option<&str>) -> RuleInput {
        self.resource = Some(resource.to_string());
        self.resource_id = resource_id.map(str::to_string);
        self
    }
}

/// `GET …/users_with_access`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct UsersWithAccess {
    #[serde(default, deserialize_with = "null_as_default")]
    pub users: Vec<UserWithAccess>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub total_count: u64,
}

/// One person who reaches a thing, and how.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserWithAccess {
    /// The user's uuid.
    #[serde(default, deserialize_with = "null_as_default")]
    pub user_id: String,
    pub access_level: AccessLevel,
    pub access_source: AccessSource,
    #[serde(default)]
    pub organization_membership_id: Option<String>,
    /// `member`, `admin` or `owner`.
    #[serde(default)]
    pub organization_membership_level: Option<String>,
}

/// `GET …/access_control_defaults`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AccessDefaults {
    #[serde(default, deserialize_with = "null_as_default")]
    pub available_project_levels: Vec<AccessLevel>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub available_resource_levels: Vec<AccessLevel>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub can_edit: bool,
    #[serde(default)]
    pub project_access_level: Option<AccessLevel>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub resource_access_levels: Ordered<ResourceDefault>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub object_rule_resources: Vec<ObjectRuleResource>,
}

/// Everyone's rule on one resource, and its bounds.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ResourceDefault {
    #[serde(default)]
    pub access_level: Option<AccessLevel>,
    #[serde(default)]
    pub minimum: Option<AccessLevel>,
    #[serde(default)]
    pub maximum: Option<AccessLevel>,
}

/// A resource whose objects take rules.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ObjectRuleResource {
    #[serde(default, deserialize_with = "null_as_default")]
    pub resource: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub available_access_levels: Vec<AccessLevel>,
    #[serde(default)]
    pub minimum_access_level: Option<AccessLevel>,
}

/// One cell of the settings answers: the subject's own rule, the level
/// enforced, and what applies without their rule, in either shape PostHog
/// has sent (`inherited_access {…}`, or in mid-2026 `inherited_access_level`
/// with `inherited_access_level_reason`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SettingsEntry {
    #[serde(default)]
    pub access_level: Option<AccessLevel>,
    #[serde(default)]
    pub effective_access_level: Option<AccessLevel>,
    #[serde(default)]
    pub inherited_access: Option<InheritedAccess>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inherited_access_level: Option<AccessLevel>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inherited_access_level_reason: Option<String>,
    #[serde(default)]
    pub minimum: Option<AccessLevel>,
    #[serde(default)]
    pub maximum: Option<AccessLevel>,
}

impl SettingsEntry {
    /// The wire form of a resolver's cell.
    pub fn of(entry: &Entry) -> SettingsEntry {
        SettingsEntry {
            access_level: entry.access_level.clone(),
            effective_access_level: entry.effective.clone(),
            inherited_access: entry
                .inherited
                .as_ref()
                .map(|resolved| InheritedAccess::of(resolved, None)),
            inherited_access_level: None,
            inherited_access_level_reason: None,
            minimum: Some(entry.minimum.clone()),
            maximum: Some(entry.maximum.clone()),
        }
    }

    /// What applies without the subject's own rule, whichever shape the
    /// server sent. The older shape's reasons read as: `organization_admin`
    /// the admin bypass, `role_override` a role's rule, `project_default`
    /// everyone's rule, anything else (or none) the built-in default.
    /// `resource` is what the cell is about (`project` or a resource).
    pub fn inherited(&self, resource: &str) -> Option<InheritedAccess> {
        if let Some(inherited) = &self.inherited_access {
            return Some(inherited.clone());
        }
        let level = self.inherited_access_level.clone()?;
        let by_rule = if resource == PROJECT {
            Source::Object
        } else {
            Source::Resource
        };
        let (source, subject) = match self.inherited_access_level_reason.as_deref() {
            Some("organization_admin") => (Source::OrgAdmin, None),
            Some("role_override") => (by_rule, Some(SubjectKind::Role)),
            Some("project_default") => (by_rule, Some(SubjectKind::Default)),
            _ => (Source::SystemDefault, None),
        };
        Some(InheritedAccess {
            access_level: level,
            source,
            source_subject: subject,
            source_resource: Some(resource.to_string()),
            source_resource_id: None,
            source_display_name: None,
        })
    }
}

/// The user in a settings row.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AccessUser {
    #[serde(default, deserialize_with = "null_as_default")]
    pub uuid: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub first_name: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub last_name: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub email: String,
}

/// One member's access in a project (`access_control_members`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MemberAccess {
    #[serde(default, deserialize_with = "null_as_default")]
    pub organization_membership_id: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub user: AccessUser,
    /// 1 member, 8 admin, 15 owner.
    #[serde(default, deserialize_with = "null_as_default")]
    pub organization_level: i64,
    #[serde(default, deserialize_with = "null_as_default")]
    pub project: SettingsEntry,
    #[serde(default, deserialize_with = "null_as_default")]
    pub resources: Ordered<SettingsEntry>,
}

/// One role's access in a project (`access_control_roles`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RoleAccess {
    #[serde(default, deserialize_with = "null_as_default")]
    pub role_id: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub role_name: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub project: SettingsEntry,
    #[serde(default, deserialize_with = "null_as_default")]
    pub resources: Ordered<SettingsEntry>,
}

/// What the members and roles answers say besides their rows.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SettingsHeader {
    #[serde(default, deserialize_with = "null_as_default")]
    pub available_project_levels: Vec<AccessLevel>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub available_resource_levels: Vec<AccessLevel>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub can_edit: bool,
}

/// The members or roles answer whole (what the server writes; a client
/// reads it row by row, see `stream`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(bound(deserialize = "T: Deserialize<'de>"))]
pub struct SettingsAnswer<T> {
    #[serde(flatten)]
    pub header: SettingsHeader,
    #[serde(default = "Vec::new", deserialize_with = "null_as_default")]
    pub results: Vec<T>,
}

/// `GET …/access_control_{default,member,role}_objects`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ObjectRules {
    #[serde(default, deserialize_with = "null_as_default")]
    pub results: Vec<ObjectRule>,
}

/// One object rule of a subject, with the object's name.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ObjectRule {
    #[serde(default, deserialize_with = "null_as_default")]
    pub resource: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub resource_id: String,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub short_id: Option<String>,
    #[serde(default)]
    pub access_level: Option<AccessLevel>,
}

/// `GET …/access_control_object_search`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ObjectSearch {
    #[serde(default, deserialize_with = "null_as_default")]
    pub results: Vec<FoundObject>,
}

/// An object found: its primary key (what rules store) and name.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FoundObject {
    #[serde(default, deserialize_with = "null_as_default")]
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
}

/// `PUT …/access_control_management`: which rule to claim or release.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ManagementClaim {
    pub resource: String,
    #[serde(default)]
    pub resource_id: Option<String>,
    #[serde(default)]
    pub role: Option<String>,
    #[serde(default)]
    pub organization_member: Option<String>,
    /// `terraform` to claim, null to release.
    pub managed_by: Option<String>,
}

/// Who manages a rule, and since when.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ManagementState {
    #[serde(default)]
    pub managed_by: Option<String>,
    #[serde(default, with = "flexible_datetime")]
    pub managed_at: Option<DateTime<Utc>>,
}

/// `…/access_control_management_settings`: the project's Terraform lock.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ManagementSettings {
    #[serde(default, deserialize_with = "null_as_default")]
    pub lock_terraform_managed_rules: bool,
    #[serde(default, deserialize_with = "null_as_default")]
    pub has_terraform_managed_rules: bool,
}

/// A notebook, as far as access needs one.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Notebook {
    /// A uuid: what rules store.
    #[serde(default, deserialize_with = "null_as_default")]
    pub id: String,
    /// What the notebook's address (and its `access_controls`) use.
    #[serde(default, deserialize_with = "null_as_default")]
    pub short_id: String,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub created_by: Option<User>,
    #[serde(default, with = "flexible_datetime")]
    pub created_at: Option<DateTime<Utc>>,
    #[serde(default, with = "flexible_datetime")]
    pub last_modified_at: Option<DateTime<Utc>>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub deleted: bool,
    #[serde(default)]
    pub user_access_level: Option<AccessLevel>,
}

/// A feature flag, as far as access needs one.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FeatureFlag {
    #[serde(default, deserialize_with = "null_as_default")]
    pub id: i64,
    #[serde(default, deserialize_with = "null_as_default")]
    pub key: String,
    /// What the flag is for, in words (PostHog's `name`).
    #[serde(default, deserialize_with = "null_as_default")]
    pub name: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub active: bool,
    #[serde(default, deserialize_with = "null_as_default")]
    pub deleted: bool,
    #[serde(default)]
    pub created_by: Option<User>,
    #[serde(default, with = "flexible_datetime")]
    pub created_at: Option<DateTime<Utc>>,
    #[serde(default)]
    pub user_access_level: Option<AccessLevel>,
}

/// A dashboard or insight as a list shows it with its creator and the
/// caller's level (what access needs beyond `NamedItem`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AccessItem {
    #[serde(default, deserialize_with = "null_as_default")]
    pub id: i64,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub short_id: Option<String>,
    #[serde(default)]
    pub created_by: Option<User>,
    #[serde(default)]
    pub user_access_level: Option<AccessLevel>,
}

/// A JSON object kept in the server's order (resources in PostHog's order).
#[derive(Debug, Clone, PartialEq)]
pub struct Ordered<V>(pub Vec<(String, V)>);

impl<V> Default for Ordered<V> {
    fn default() -> Self {
        Ordered(Vec::new())
    }
}

impl<V> Ordered<V> {
    /// The value under `key`.
    pub fn get(&self, key: &str) -> Option<&V> {
        self.0
            .iter()
            .find(|(known, _)| known == key)
            .map(|(_, value)| value)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &V)> {
        self.0.iter().map(|(key, value)| (key.as_str(), value))
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<V: Serialize> Serialize for Ordered<V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, value) in &self.0 {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for Ordered<V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Entries<V>(std::marker::PhantomData<V>);

        impl<'de, V: Deserialize<'de>> Visitor<'de> for Entries<V> {
            type Value = Ordered<V>;

            fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
                formatter.write_str("an object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
                let mut entries = Vec::new();
                while let Some((key, value)) = access.next_entry::<String, V>()? {
                    entries.push((key, value));
                }
                Ok(Ordered(entries))
            }
        }

        deserializer.deserialize_map(Entries(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_shapes_of_the_inherited_level_read_the_same() {
        let newer: SettingsEntry = serde_json::from_str(
            r#"{"access_level":null,"effective_access_level":"editor","inherited_access":{"access_level":"editor","source":"resource","source_subject":"role","source_resource":"dashboard","source_resource_id":null},"minimum":"none","maximum":"manager"}"#,
        )
        .unwrap();
        let older: SettingsEntry = serde_json::from_str(
            r#"{"access_level":null,"effective_access_level":"editor","inherited_access_level":"editor","inherited_access_level_reason":"role_override","minimum":"none","maximum":"manager"}"#,
        )
        .unwrap();
        let (newer, older) = (
            newer.inherited("dashboard").unwrap(),
            older.inherited("dashboard").unwrap(),
        );
        assert_eq!(newer.access_level, older.access_level);
        assert_eq!(newer.source, older.source);
        assert_eq!(newer.source_subject, older.source_subject);
        let admin: SettingsEntry = serde_json::from_str(
            r#"{"inherited_access_level":"admin","inherited_access_level_reason":"organization_admin"}"#,
        )
        .unwrap();
        assert_eq!(admin.inherited("project").unwrap().source, Source::OrgAdmin);
        let unknown: SettingsEntry =
            serde_json::from_str(r#"{"effective_access_level":"owner-ish","inherited_access":null}"#)
                .unwrap();
        assert_eq!(
            unknown.effective_access_level,
            Some(AccessLevel::Other("owner-ish".into()))
        );
        assert_eq!(unknown.inherited("dashboard"), None);
    }

    #[test]
    fn an_absent_inherited_level_stays_absent_and_a_null_one_null() {
        let resource_wide: AccessControls = serde_json::from_str(r#"{"access_controls":[]}"#).unwrap();
        assert_eq!(resource_wide.inherited_access, None);
        let project: AccessControls =
            serde_json::from_str(r#"{"access_controls":[],"inherited_access":null}"#).unwrap();
        assert_eq!(project.inherited_access, Some(None));
        let written = serde_json::to_value(&project).unwrap();
        assert!(written["inherited_access"].is_null() && written.get("inherited_access").is_some());
    }

    #[test]
    fn ordered_objects_keep_their_order() {
        let resources: Ordered<u8> = serde_json::from_str(r#"{"z":1,"a":2}"#).unwrap();
        assert_eq!(resources.0[0].0, "z");
        assert_eq!(serde_json::to_string(&resources).unwrap(), r#"{"z":1,"a":2}"#);
    }
}
