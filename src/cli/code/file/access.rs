//! The file's access rules (`[[access]]`): each project's rules on the
//! project, on its resources and on its dashboards, insights, notebooks
//! and feature flags, the subject a role by name, a member by e-mail
//! address, or everyone; written sorted so that two exports of the same
//! rules are the same text, and read back with every problem at its line.

use serde_json::{Value, json};

use super::node::Node;
use super::read::Check;
use super::{Pos, is_email, toml_string};
use crate::api::access::levels::{self, AccessLevel, PROJECT};

/// Every key of an access rule, in the file's order.
pub const ACCESS_KEYS: &[&str] = &[
    "project", "resource", "object", "role", "member", "everyone", "level",
];

/// Whom a rule of the file is for.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RuleSubject {
    Everyone,
    /// A role, by name.
    Role(String),
    /// A member, by e-mail address.
    Member(String),
}

impl RuleSubject {
    /// The subject compared: names and addresses in any case.
    pub fn key(&self) -> RuleSubject {
        match self {
            RuleSubject::Everyone => RuleSubject::Everyone,
            RuleSubject::Role(name) => RuleSubject::Role(name.to_lowercase()),
            RuleSubject::Member(email) => RuleSubject::Member(email.to_lowercase()),
        }
    }

    /// "role Contractors", "ada@hedgebox.dev", "everyone".
    pub fn words(&self) -> String {
        match self {
            RuleSubject::Everyone => "everyone".into(),
            RuleSubject::Role(name) => format!("role {name}"),
            RuleSubject::Member(email) => email.clone(),
        }
    }
}

/// One access rule as the file holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleEntry {
    pub project: i64,
    /// `project`, or a resource (`dashboard`, `insight`, …).
    pub resource: String,
    /// The object's id (a notebook's too), for a rule on one object.
    pub object: Option<String>,
    pub subject: RuleSubject,
    pub level: AccessLevel,
    /// What the export says in comments, not compared: the object's name,
    /// and that Terraform manages the rule under the project's lock.
    pub object_name: Option<String>,
    pub managed: Option<String>,
    pub at: Option<Pos>,
}

/// What makes a rule the one rule of its place: two entries with the same
/// key are the same rule.
pub type RuleKey = (i64, String, Option<String>, RuleSubject);

impl RuleEntry {
    pub fn key(&self) -> RuleKey {
        (
            self.project,
            self.resource.clone(),
            self.object.clone(),
            self.subject.key(),
        )
    }

    /// "role Contractors on dashboards in project 2", "everyone on
    /// dashboard 14 in project 2", "ada@… on project 2".
    pub fn describe(&self) -> String {
        let on = match (&self.object, self.resource.as_str()) {
            (_, PROJECT) => format!("project {}", self.project),
            (Some(id), resource) => format!(
                "{} {id} in project {}",
                levels::display_name(resource).trim_end_matches('s'),
                self.project
            ),
            (None, resource) => format!("{} in project {}", levels::display_name(resource), self.project),
        };
        format!("{} on {on}", self.subject.words())
    }

    /// The order of the file: project, the project's rule before the
    /// resources', resource, object (by number where it is one), then
    /// everyone, roles, members.
    pub fn order(&self) -> impl Ord + use<> {
        let object = self.object.clone().map(|id| (id.parse::<i64>().ok(), id));
        (
            self.project,
            self.resource != PROJECT,
            self.resource.clone(),
            object,
            self.subject.key(),
        )
    }

    /// The fields written, in the file's order.
    pub fn fields(&self) -> Vec<(&'static str, Value)> {
        let mut fields = vec![
            ("project", json!(self.project)),
            ("resource", json!(self.resource)),
        ];
        if let Some(object) = &self.object {
            fields.push(("object", json!(object)));
        }
        match &self.subject {
            RuleSubject::Everyone => fields.push(("everyone", json!(true))),
            RuleSubject::Role(name) => fields.push(("role", json!(name))),
            RuleSubject::Member(email) => fields.push(("member", json!(email))),
        }
        fields.push(("level", json!(self.level.as_str())));
        fields
    }

    /// The entry as TOML, with its comments above it.
    pub fn to_toml(&self) -> String {
        let mut out = String::from("\n");
        if let Some(name) = &self.object_name {
            out.push_str(&format!("# {}\n", super::comment(&format!("\"{name}\""))));
        }
        if let Some(managed) = &self.managed {
            out.push_str(&format!("# {}\n", super::comment(managed)));
        }
        out.push_str("[[access]]\n");
        for (key, value) in self.fields() {
            let value = match &value {
                Value::String(text) => toml_string(text),
                other => other.to_string(),
            };
            out.push_str(&format!("{key} = {value}\n"));
        }
        out
    }

    pub fn to_json(&self) -> Value {
        Value::Object(
            self.fields()
                .into_iter()
                .map(|(key, value)| (key.to_string(), value))
                .collect(),
        )
    }
}

impl Check {
    /// One `[[access]]` entry, checked offline: its subject named once, its
    /// resource one that takes rules, its level one PostHog accepts there.
    pub(super) fn access_rule(&mut self, node: &Node, at: Option<Pos>) -> Option<RuleEntry> {
        let fields = self.table(node, at, "an access rule", ACCESS_KEYS)?;
        let what = "access";
        let key_at = |key: &str| fields.get(key).and_then(|(_, at)| at).or(at);
        let project = self.integer(&fields, "project", what);
        let project = self.required(project, &fields, "project", at, "an access rule")?;
        let resource = self.text(&fields, "resource", what);
        let resource = self.required(resource, &fields, "resource", at, "an access rule")?;
        if resource != PROJECT && !levels::RESOURCES.contains(&resource.as_str()) {
            self.problem(
                key_at("resource"),
                format!("\"{resource}\" is not a resource that takes access rules"),
            );
            return None;
        }
        let object = self.text(&fields, "object", what);
        if let Some(object) = &object {
            if resource == PROJECT {
                self.problem(key_at("object"), "a rule on the project names no object");
            } else if crate::api::access::client::collection(&resource).is_none() {
                self.problem(
                    key_at("object"),
                    format!(
                        "rules on one object are for dashboards, insights, notebooks and feature flags, not {resource}"
                    ),
                );
            } else if object.trim().is_empty() {
                self.problem(key_at("object"), "an object's id cannot be empty");
            }
        }
        let role = self.text(&fields, "role", what);
        let member = self.text(&fields, "member", what);
        let everyone = self.boolean(&fields, "everyone", what);
        let subject = match (role, member, everyone) {
            (Some(role), None, None | Some(false)) if !role.trim().is_empty() => RuleSubject::Role(role),
            (None, Some(member), None | Some(false)) if is_email(&member) => RuleSubject::Member(member),
            (None, Some(member), None | Some(false)) => {
                self.problem(key_at("member"), format!("\"{member}\" is not an e-mail address"));
                return None;
            }
            (None, None, Some(true)) => RuleSubject::Everyone,
            _ => {
                self.problem(
                    at,
                    "an access rule names one subject: `role = \"NAME\"`, `member = \"EMAIL\"` or `everyone = true`",
                );
                return None;
            }
        };
        let level = self.text(&fields, "level", what);
        let level = self.required(level, &fields, "level", at, "an access rule")?;
        let level = AccessLevel::from_wire(level.trim());
        if let Some(refusal) = levels::level_refusal(&resource, &level) {
            self.problem(key_at("level"), format!("{refusal} ({resource})"));
            return None;
        }
        Some(RuleEntry {
            project,
            resource,
            object,
            subject,
            level,
            object_name: None,
            managed: None,
            at,
        })
    }

    /// Each rule once: a second entry for the same place and subject is a
    /// problem at its line.
    pub(super) fn unique_rules(&mut self, rules: &[RuleEntry]) {
        let mut seen = std::collections::HashSet::new();
        for rule in rules {
            if !seen.insert(rule.key()) {
                self.problem(
                    rule.at,
                    format!("the rule of {} is in the file twice", rule.describe()),
                );
            }
        }
    }
}
