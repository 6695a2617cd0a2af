//! Why someone has a level, in the words an admin uses: organization
//! admin, their own rule, role NAME, everyone, built-in default. Read off
//! the server's resolved levels (`effective_access_level`, and
//! `inherited_access` in either of PostHog's shapes), never computed from
//! the rules: the rules are read only to name the role the server says
//! decided, and to tell a rule that is outranked.

use std::collections::HashMap;
use std::fmt;

use serde::{Serialize, Serializer};

use crate::api::access::levels::{self, AccessLevel, PROJECT};
use crate::api::access::{AccessControls, InheritedAccess, SettingsEntry, Source, SubjectKind};

/// Why a level is what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Why {
    /// Organization admins and owners bypass every rule.
    OrganizationAdmin,
    /// The object's creator has the highest level on it.
    Creator,
    /// The subject's own rule (a member's, or a role's for a role).
    OwnRule,
    /// A role's rule: the roles the subject holds with a rule at that
    /// level (several at the same level are all named; none when the
    /// server said a role and orgdeck cannot tell which).
    Roles(Vec<String>),
    /// The rule for everyone in the project.
    Everyone,
    /// No rule: PostHog's built-in default.
    BuiltInDefault,
    /// The organization itself: membership decides.
    Membership,
    /// The server resolved nothing (`effective_access_level` null).
    Nothing,
    /// A reason this version does not know, as the server sent it.
    Other(String),
    /// The server's fields do not add up: its level is neither the
    /// subject's own rule nor what applies without it.
    Unexplained,
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Why::OrganizationAdmin => f.write_str("organization admin"),
            Why::Creator => f.write_str("creator"),
            Why::OwnRule => f.write_str("own rule"),
            Why::Roles(names) if names.is_empty() => f.write_str("a role"),
            Why::Roles(names) if names.len() == 1 => write!(f, "role {}", names[0]),
            Why::Roles(names) => write!(f, "roles {}", names.join(", ")),
            Why::Everyone => f.write_str("everyone"),
            Why::BuiltInDefault => f.write_str("built-in default"),
            Why::Membership => f.write_str("organization membership"),
            Why::Nothing => f.write_str("nothing resolves"),
            Why::Other(source) => write!(f, "{source}"),
            Why::Unexplained => f.write_str("the server's reasons do not add up"),
        }
    }
}

impl Serialize for Why {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// A level the server resolved, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cell {
    /// What the server enforces; `None` when nothing resolves.
    pub level: Option<AccessLevel>,
    pub why: Why,
    /// The subject's own rule, when they have one.
    pub own: Option<AccessLevel>,
}

impl Cell {
    /// "admin", or "unknown" when nothing resolves.
    pub fn level_name(&self) -> &str {
        self.level.as_ref().map_or("-", AccessLevel::as_str)
    }
}

/// Explains one settings cell about `resource` (`project` or a resource).
/// `roles_at` names the roles of the subject whose rule on the resource is
/// at a level, for when the server says a role decided.
pub fn explain(
    entry: &SettingsEntry,
    resource: &str,
    roles_at: &dyn Fn(&AccessLevel) -> Vec<String>,
) -> Cell {
    let inherited = entry.inherited(resource);
    let own = entry.access_level.clone();
    let why = match (&entry.effective_access_level, &inherited) {
        (None, _) => Why::Nothing,
        (Some(_), Some(inherited)) if inherited.source == Source::OrgAdmin => Why::OrganizationAdmin,
        (Some(_), Some(inherited)) if inherited.source == Source::Creator => Why::Creator,
        // A tie is the own rule's, as PostHog attributes it.
        (Some(level), _) if own.as_ref() == Some(level) => Why::OwnRule,
        (Some(level), Some(inherited)) if &inherited.access_level == level => reason(inherited, roles_at),
        (Some(_), _) => Why::Unexplained,
    };
    Cell {
        level: entry.effective_access_level.clone(),
        why,
        own,
    }
}

/// The reason of an inherited level.
fn reason(inherited: &InheritedAccess, roles_at: &dyn Fn(&AccessLevel) -> Vec<String>) -> Why {
    match (&inherited.source, &inherited.source_subject) {
        (Source::SystemDefault, _) => Why::BuiltInDefault,
        (Source::OrgAdmin, _) => Why::OrganizationAdmin,
        (Source::Creator, _) => Why::Creator,
        (Source::OrgMembership, _) => Why::Membership,
        (_, Some(SubjectKind::Member)) => Why::OwnRule,
        (_, Some(SubjectKind::Role)) => Why::Roles(roles_at(&inherited.access_level)),
        (_, Some(SubjectKind::Default)) => Why::Everyone,
        (source, subject) => Why::Other(match subject {
            Some(subject) => format!("{source} ({subject})"),
            None => source.to_string(),
        }),
    }
}

/// The rules of one project on itself and on its resources, by whom they
/// are for: read from `access_controls` and `resource_access_controls`,
/// to name the project's defaults (everyone's rules) and the roles the
/// server says decided.
#[derive(Debug, Clone, Default)]
pub struct ProjectRules {
    /// Everyone's rule, by resource (`project` for the project).
    everyone: HashMap<String, AccessLevel>,
    /// Each role's rules, by role id, then resource.
    roles: HashMap<String, HashMap<String, AccessLevel>>,
    /// Each member's own rules, by membership id, then resource.
    members: HashMap<String, HashMap<String, AccessLevel>>,
    /// The rules Terraform manages (posthog.md 16.7), by subject
    /// (`everyone`, `role:ID`, `member:ID`, ids lower case) and resource.
    managed: std::collections::HashSet<(String, String)>,
    /// Whether the project's Terraform lock is on (read only when a rule
    /// is managed).
    locked: bool,
}

impl ProjectRules {
    /// The rules of the project's `access_controls` answer (about the
    /// project) and of `resource_access_controls` (about whole resources).
    pub fn new(project: &AccessControls, resources: &AccessControls) -> ProjectRules {
        let mut rules = ProjectRules::default();
        let project_rules = project
            .access_controls
            .iter()
            .filter(|rule| rule.resource == PROJECT || rule.resource.is_empty());
        let resource_rules = resources
            .access_controls
            .iter()
            .filter(|rule| rule.resource_id.is_none() && rule.resource != PROJECT);
        for (rule, resource) in project_rules
            .map(|rule| (rule, PROJECT))
            .chain(resource_rules.map(|rule| (rule, rule.resource.as_str())))
        {
            let Some(level) = rule.access_level.clone() else {
                continue;
            };
            if rule.is_managed() {
                let subject = match (&rule.organization_member, &rule.role) {
                    (None, None) => "everyone".to_string(),
                    (Some(member), None) => format!("member:{}", member.to_lowercase()),
                    (None, Some(role)) => format!("role:{}", role.to_lowercase()),
                    (Some(_), Some(_)) => String::new(),
                };
                rules.managed.insert((subject, resource.to_string()));
            }
            let by = match (&rule.organization_member, &rule.role) {
                (None, None) => {
                    rules.everyone.insert(resource.to_string(), level);
                    continue;
                }
                (Some(member), None) => rules.members.entry(member.to_lowercase()).or_default(),
                (None, Some(role)) => rules.roles.entry(role.to_lowercase()).or_default(),
                (Some(_), Some(_)) => continue,
            };
            by.insert(resource.to_string(), level);
        }
        rules
    }

    /// Whether Terraform manages any of these rules.
    pub fn has_managed(&self) -> bool {
        !self.managed.is_empty()
    }

    /// The project's Terraform lock, as read ([`super::terraform_lock`]).
    pub fn set_locked(&mut self, locked: bool) {
        self.locked = locked;
    }

    /// Whether the project's Terraform lock is on.
    pub fn locked(&self) -> bool {
        self.locked
    }

    /// Everyone's rule on `resource`.
    pub fn everyone(&self, resource: &str) -> Option<&AccessLevel> {
        self.everyone.get(resource)
    }

    /// The project's default on `resource`: everyone's rule, else the
    /// built-in default (and only that when the server reads no rule).
    pub fn default_of(&self, resource: &str, rules_read: bool) -> (AccessLevel, Why) {
        match self.everyone(resource) {
            Some(level) if rules_read => (level.clone(), Why::Everyone),
            _ => (levels::default_level(resource), Why::BuiltInDefault),
        }
    }

    /// A role's rule on `resource`.
    pub fn role(&self, role_id: &str, resource: &str) -> Option<&AccessLevel> {
        self.roles.get(&role_id.to_lowercase())?.get(resource)
    }

    /// A member's own rule on `resource`.
    pub fn member(&self, membership_id: &str, resource: &str) -> Option<&AccessLevel> {
        self.members.get(&membership_id.to_lowercase())?.get(resource)
    }

    /// Which of the rules on `resource` naming everyone, the member or
    /// their roles Terraform manages, in words ("own rule", "role NAME",
    /// "everyone").
    pub fn terraform(&self, member: Option<&str>, roles: &[(&str, &str)], resource: &str) -> Vec<String> {
        let managed = |subject: String| self.managed.contains(&(subject, resource.to_string()));
        let mut found = Vec::new();
        if member.is_some_and(|id| managed(format!("member:{}", id.to_lowercase()))) {
            found.push("own rule".to_string());
        }
        for (id, name) in roles {
            if managed(format!("role:{}", id.to_lowercase())) {
                found.push(format!("role {name}"));
            }
        }
        if managed("everyone".into()) {
            found.push("everyone".to_string());
        }
        found
    }

    /// Whether any rule for everyone is stored.
    pub fn has_everyone_rules(&self) -> bool {
        !self.everyone.is_empty()
    }
}

/// What a project's answers show of the plan: rules stored that the
/// server's levels do not follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Ignored {
    /// No rule is read: a plan without access control.
    pub all_rules: bool,
    /// Roles' rules are not read: a plan without role-based access.
    pub role_rules: bool,
}

impl Ignored {
    /// What a subject's cells show: a rule for everyone that their level
    /// does not come from (`system_default` where everyone's rule
    /// applies), or their own stored rule the answer does not carry.
    /// Organization admins bypass every rule, so their cells show nothing.
    pub fn seen_in<'a>(
        rules: &ProjectRules,
        own_rule: &dyn Fn(&str) -> Option<AccessLevel>,
        cells: impl Iterator<Item = (&'a str, &'a SettingsEntry)>,
        is_role: bool,
    ) -> Ignored {
        let mut ignored = Ignored::default();
        for (resource, entry) in cells {
            let inherited = entry.inherited(resource);
            if inherited
                .as_ref()
                .is_some_and(|inherited| inherited.source == Source::OrgAdmin)
            {
                return Ignored::default();
            }
            let from_default = inherited
                .as_ref()
                .is_some_and(|inherited| inherited.source == Source::SystemDefault);
            if rules.everyone(resource).is_some() && from_default && entry.access_level.is_none() {
                ignored.all_rules = true;
            }
            if own_rule(resource).is_some() && entry.access_level.is_none() {
                if is_role {
                    ignored.role_rules = true;
                } else {
                    ignored.all_rules = true;
                }
            }
        }
        ignored
    }

    /// In words, for a project's note.
    pub fn note(&self) -> Option<&'static str> {
        if self.all_rules {
            Some(
                "the server reads no access rule here (a plan without access control): every level is \
                 the built-in default, and the rules stored are not enforced",
            )
        } else if self.role_rules {
            Some(
                "the server reads no role's rule here (a plan without role-based access): roles' rules \
                 are stored but not enforced",
            )
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(json: &str) -> SettingsEntry {
        serde_json::from_str(json).unwrap()
    }

    fn no_roles(_: &AccessLevel) -> Vec<String> {
        Vec::new()
    }

    #[test]
    fn each_source_reads_in_words() {
        let role = |_: &AccessLevel| vec!["Engineering".to_string()];
        let cases = [
            (
                r#"{"access_level":"member","effective_access_level":"admin","inherited_access":{"access_level":"admin","source":"object","source_subject":"role"}}"#,
                "role Engineering",
            ),
            (
                r#"{"access_level":"member","effective_access_level":"member","inherited_access":{"access_level":"admin","source":"object","source_subject":"role"}}"#,
                "own rule",
            ),
            (
                r#"{"effective_access_level":"admin","inherited_access":{"access_level":"admin","source":"org_admin"}}"#,
                "organization admin",
            ),
            (
                r#"{"effective_access_level":"viewer","inherited_access":{"access_level":"viewer","source":"resource","source_subject":"default"}}"#,
                "everyone",
            ),
            (
                r#"{"effective_access_level":"editor","inherited_access":{"access_level":"editor","source":"system_default"}}"#,
                "built-in default",
            ),
            (
                r#"{"effective_access_level":"editor","inherited_access_level":"editor","inherited_access_level_reason":"project_default"}"#,
                "everyone",
            ),
            (
                r#"{"effective_access_level":"editor","inherited_access_level":"editor","inherited_access_level_reason":"role_override"}"#,
                "role Engineering",
            ),
            (r#"{"effective_access_level":null}"#, "nothing resolves"),
            (
                r#"{"access_level":"viewer","effective_access_level":"manager","inherited_access":{"access_level":"editor","source":"resource","source_subject":"role"}}"#,
                "the server's reasons do not add up",
            ),
        ];
        for (json, words) in cases {
            let cell = explain(&entry(json), "dashboard", &role);
            assert_eq!(cell.why.to_string(), words, "{json}");
        }
        let several = |_: &AccessLevel| vec!["Data".to_string(), "Product".to_string()];
        let cell = explain(
            &entry(
                r#"{"effective_access_level":"editor","inherited_access":{"access_level":"editor","source":"resource","source_subject":"role"}}"#,
            ),
            "insight",
            &several,
        );
        assert_eq!(cell.why.to_string(), "roles Data, Product");
        let unnamed = explain(
            &entry(
                r#"{"effective_access_level":"editor","inherited_access":{"access_level":"editor","source":"resource","source_subject":"role"}}"#,
            ),
            "insight",
            &no_roles,
        );
        assert_eq!(unnamed.why.to_string(), "a role");
    }

    #[test]
    fn rules_the_levels_do_not_follow_show_the_plan() {
        let project: AccessControls = serde_json::from_str(
            r#"{"access_controls":[{"resource":"project","resource_id":"1","access_level":"member"},
                {"resource":"project","resource_id":"1","access_level":"admin","role":"R1"}]}"#,
        )
        .unwrap();
        let resources: AccessControls = serde_json::from_str(
            r#"{"access_controls":[{"resource":"dashboard","access_level":"viewer","organization_member":"M1"}]}"#,
        )
        .unwrap();
        let rules = ProjectRules::new(&project, &resources);
        assert_eq!(rules.default_of("project", true).0, AccessLevel::Member);
        assert_eq!(rules.default_of("project", false).0, AccessLevel::Admin);
        assert_eq!(rules.role("r1", "project"), Some(&AccessLevel::Admin));
        assert_eq!(rules.member("m1", "dashboard"), Some(&AccessLevel::Viewer));
        let read = entry(
            r#"{"effective_access_level":"member","inherited_access":{"access_level":"member","source":"object","source_subject":"default"}}"#,
        );
        let unread = entry(
            r#"{"effective_access_level":"admin","inherited_access":{"access_level":"admin","source":"system_default"}}"#,
        );
        let none = |_: &str| None;
        assert_eq!(
            Ignored::seen_in(&rules, &none, [("project", &read)].into_iter(), false),
            Ignored::default()
        );
        assert!(Ignored::seen_in(&rules, &none, [("project", &unread)].into_iter(), false).all_rules);
        let role_rule = |resource: &str| rules.role("R1", resource).cloned();
        let role_cell = entry(
            r#"{"access_level":null,"effective_access_level":"member","inherited_access":{"access_level":"member","source":"object","source_subject":"default"}}"#,
        );
        let seen = Ignored::seen_in(&rules, &role_rule, [("project", &role_cell)].into_iter(), true);
        assert!(seen.role_rules && !seen.all_rules);
    }
}
