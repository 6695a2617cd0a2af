//! How access resolves (posthog.md 16.6): rules in, levels and their
//! reasons out. Pure: no I/O, no clock, nothing but the rules of one
//! project and who is asking about what.
//!
//! The reference server answers every access question through this module,
//! and a client's preview of a change computes with it, so the two cannot
//! disagree. It follows PostHog's `UserAccessControl` and
//! `SubjectAccessControl` step for step, in both of PostHog's modes:
//!
//! - **highest wins** (what PostHog enforces today): among the rules that
//!   apply, the highest level wins; on an object, rules naming a member or a
//!   role come first, then resource-wide rules, then the object's rule for
//!   everyone;
//! - **most specific wins** (RFC 557, an organization's
//!   `uses_most_specific_access_resolution`): the member's own rule decides,
//!   else the highest of their roles' rules, else the rule for everyone,
//!   even when it is lower than another; the object before the resource.
//!
//! Organization admins and owners bypass every rule, and an object's
//! creator has the highest level on it. A plan without access control
//! reads no rule (every level is the built-in default); a plan without
//! role-based access reads no role's rule.

use std::collections::HashMap;

use super::levels::{self, AccessLevel, PROJECT};
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::api::enums::{UnknownValue, string_enum};
use crate::api::models::level;

string_enum!(
    /// How a level was reached (`ResolvedAccess.source`).
    Source {
        Object => "object",
        ParentObject => "parent_object",
        Resource => "resource",
        ParentResource => "parent_resource",
        SystemDefault => "system_default",
        OrgAdmin => "org_admin",
        Creator => "creator",
        OrgMembership => "org_membership",
    }
);

string_enum!(
    /// Whose rule decided (`source_subject`).
    SubjectKind {
        Member => "member",
        Role => "role",
        Default => "default",
    }
);

string_enum!(
    /// How a person reaches a thing, as `users_with_access` says it.
    AccessSource {
        Creator => "creator",
        OrganizationAdmin => "organization_admin",
        ExplicitMember => "explicit_member",
        ExplicitRole => "explicit_role",
        ProjectAdmin => "project_admin",
        Default => "default",
    }
);

/// Whom a rule is for.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Subject {
    /// One member, by their organization membership id.
    Member(String),
    /// A role, by its id.
    Role(String),
    /// Everyone in the project (PostHog's "default").
    Everyone,
}

impl Subject {
    /// A rule's subject from its two fields; `None` when both are set
    /// (PostHog refuses such a rule).
    pub fn from_fields(member: Option<&str>, role: Option<&str>) -> Option<Subject> {
        match (member, role) {
            (Some(_), Some(_)) => None,
            (Some(member), None) => Some(Subject::Member(member.to_string())),
            (None, Some(role)) => Some(Subject::Role(role.to_string())),
            (None, None) => Some(Subject::Everyone),
        }
    }

    pub fn kind(&self) -> SubjectKind {
        match self {
            Subject::Member(_) => SubjectKind::Member,
            Subject::Role(_) => SubjectKind::Role,
            Subject::Everyone => SubjectKind::Default,
        }
    }

    /// How specific the subject is: a member's own rule over a role's
    /// over everyone's.
    fn specificity(&self) -> u8 {
        match self {
            Subject::Member(_) => 2,
            Subject::Role(_) => 1,
            Subject::Everyone => 0,
        }
    }
}

/// One stored rule (`AccessControl`): a level for a subject on a resource,
/// or on one object of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub resource: String,
    /// The object; `None` for a rule on the whole resource.
    pub resource_id: Option<String>,
    pub subject: Subject,
    pub level: AccessLevel,
}

/// A project's rules, grouped by what they are about so that a question
/// reads only the rules that bear on it.
#[derive(Debug, Clone, Default)]
pub struct RuleSet {
    scopes: HashMap<String, Scope>,
}

#[derive(Debug, Clone, Default)]
struct Scope {
    wide: Vec<Rule>,
    objects: HashMap<String, Vec<Rule>>,
}

impl RuleSet {
    pub fn new(rules: impl IntoIterator<Item = Rule>) -> RuleSet {
        let mut set = RuleSet::default();
        for rule in rules {
            set.insert(rule);
        }
        set
    }

    /// Adds a rule, replacing the one for the same target and subject (a
    /// write is an upsert, posthog.md 16.2).
    pub fn insert(&mut self, rule: Rule) {
        let scope = self.scopes.entry(rule.resource.clone()).or_default();
        let rules = match &rule.resource_id {
            Some(id) => scope.objects.entry(id.clone()).or_default(),
            None => &mut scope.wide,
        };
        match rules.iter_mut().find(|known| known.subject == rule.subject) {
            Some(known) => *known = rule,
            None => rules.push(rule),
        }
    }

    /// Removes the rule for this target and subject, if there is one.
    pub fn remove(&mut self, resource: &str, resource_id: Option<&str>, subject: &Subject) -> Option<Rule> {
        let scope = self.scopes.get_mut(resource)?;
        let rules = match resource_id {
            Some(id) => scope.objects.get_mut(id)?,
            None => &mut scope.wide,
        };
        let at = rules.iter().position(|rule| &rule.subject == subject)?;
        Some(rules.remove(at))
    }

    /// Removes every rule naming this role (what deleting a role does).
    pub fn remove_role(&mut self, role_id: &str) {
        let named = |rule: &Rule| matches!(&rule.subject, Subject::Role(id) if id == role_id);
        for scope in self.scopes.values_mut() {
            scope.wide.retain(|rule| !named(rule));
            for rules in scope.objects.values_mut() {
                rules.retain(|rule| !named(rule));
            }
        }
    }

    /// Every rule, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &Rule> {
        self.scopes
            .values()
            .flat_map(|scope| scope.wide.iter().chain(scope.objects.values().flatten()))
    }

    pub fn len(&self) -> usize {
        self.iter().count()
    }

    pub fn is_empty(&self) -> bool {
        self.iter().next().is_none()
    }

    /// The rules on the whole of `resource`.
    fn wide(&self, resource: &str) -> &[Rule] {
        self.scopes
            .get(resource)
            .map(|scope| scope.wide.as_slice())
            .unwrap_or_default()
    }

    /// The rules on one object.
    fn object(&self, resource: &str, id: &str) -> &[Rule] {
        self.scopes
            .get(resource)
            .and_then(|scope| scope.objects.get(id))
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    /// The rules on any object of `resource`.
    fn objects_of(&self, resource: &str) -> impl Iterator<Item = &Rule> {
        self.scopes
            .get(resource)
            .into_iter()
            .flat_map(|scope| scope.objects.values().flatten())
    }

    /// The rules on `resource` itself or on one of its objects.
    fn rules_of(&self, resource: &str, id: Option<&str>) -> &[Rule] {
        match id {
            Some(id) => self.object(resource, id),
            None => self.wide(resource),
        }
    }
}

/// A member of the organization as access sees them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Member {
    /// Their organization membership id: what a member's rule names.
    pub membership_id: String,
    /// Their user's id (the uuid), what an object's creator is compared to.
    pub user_id: String,
    /// 1 member, 8 admin, 15 owner.
    pub organization_level: i64,
    /// The roles they hold in this organization.
    pub role_ids: Vec<String>,
}

impl Member {
    /// Admins and owners bypass every rule.
    pub fn is_organization_admin(&self) -> bool {
        self.organization_level >= level::ADMIN
    }
}

/// Whose access is asked about.
#[derive(Debug, Clone, Copy)]
pub enum Principal<'a> {
    /// A member: everyone's rules, their own and their roles'.
    Member(&'a Member),
    /// A role: everyone's rules and the role's.
    Role(&'a str),
    /// Everyone: the rules for everyone alone.
    Everyone,
}

/// An object asked about: a project, a dashboard, an insight, ...
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    pub resource: &'a str,
    pub id: &'a str,
    /// The user id (uuid) of whoever created it.
    pub creator: Option<&'a str>,
}

impl<'a> Target<'a> {
    /// A project, as the object its access rules are on.
    pub fn project(id: &'a str) -> Target<'a> {
        Target {
            resource: PROJECT,
            id,
            creator: None,
        }
    }
}

/// What the organization's plan includes (posthog.md 16.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// Rules are read at all (`access_control`).
    pub access_control: bool,
    /// Roles' rules are read (`role_based_access`).
    pub role_based_access: bool,
}

impl Default for Plan {
    fn default() -> Self {
        Plan {
            access_control: true,
            role_based_access: true,
        }
    }
}

/// How rules that disagree are settled (posthog.md 16.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Mode {
    /// The highest level among the rules that apply wins.
    #[default]
    HighestWins,
    /// The most specific rule wins, even when it is lower.
    MostSpecific,
}

impl Mode {
    /// The mode an organization's `uses_most_specific_access_resolution` names.
    pub fn from_most_specific(most_specific: bool) -> Mode {
        if most_specific {
            Mode::MostSpecific
        } else {
            Mode::HighestWins
        }
    }

    /// In words, as orgdeck writes it (`highest-wins`, `most-specific`).
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::HighestWins => "highest-wins",
            Mode::MostSpecific => "most-specific",
        }
    }

    /// Both modes, the enforced one first.
    pub const BOTH: [Mode; 2] = [Mode::HighestWins, Mode::MostSpecific];
}

/// A level and the rule (or bypass) it came from (`ResolvedAccess`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    pub level: AccessLevel,
    pub source: Source,
    /// Whose rule decided; `None` when no rule did.
    pub subject: Option<SubjectKind>,
    /// The resource of the deciding rule (for the built-in default, the
    /// resource whose rules would have decided).
    pub resource: String,
    /// The deciding rule's object; `None` for a resource-wide rule.
    pub resource_id: Option<String>,
}

/// One cell of the settings endpoints (posthog.md 16.4's ENTRY): a subject's
/// own rule, what is enforced, and what would be without their rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub access_level: Option<AccessLevel>,
    pub effective: Option<AccessLevel>,
    pub inherited: Option<Resolved>,
    pub minimum: AccessLevel,
    pub maximum: AccessLevel,
}

/// Answers access questions about one project's rules.
#[derive(Debug, Clone, Copy)]
pub struct Resolver<'a> {
    rules: &'a RuleSet,
    plan: Plan,
    mode: Mode,
}

/// What one question leaves out.
#[derive(Debug, Clone, Copy, Default)]
struct Lens<'b> {
    /// The subject's own rules on this target (resource, object) are left
    /// out: the inherited level, what applies without them.
    mask: Option<(&'b str, Option<&'b str>)>,
    /// The admin bypass is not taken: whether a rule grants the project.
    suspend_admin: bool,
}

impl<'a> Resolver<'a> {
    pub fn new(rules: &'a RuleSet, plan: Plan, mode: Mode) -> Resolver<'a> {
        Resolver { rules, plan, mode }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    pub fn plan(&self) -> Plan {
        self.plan
    }

    /// The same rules, settled in another mode.
    pub fn in_mode(&self, mode: Mode) -> Resolver<'a> {
        Resolver { mode, ..*self }
    }

    /// Access to a whole resource (`access_level_for_resource`, or its
    /// most-specific twin).
    pub fn resource(&self, who: Principal, resource: &str) -> Resolved {
        self.resource_in(who, Lens::default(), resource)
    }

    /// Access to one object (`get_user_access_level`); `None` when nothing
    /// resolves, which never happens for a member.
    pub fn object(&self, who: Principal, target: Target) -> Option<Resolved> {
        self.object_in(who, Lens::default(), target, false)
    }

    /// Access to one object from a rule or a bypass alone, never from the
    /// built-in default (`explicit=True`).
    pub fn object_explicit(&self, who: Principal, target: Target) -> Option<Resolved> {
        self.object_in(who, Lens::default(), target, true)
    }

    /// What `who` would have on the object without their own rule on it
    /// (`inherited_access_for_object`); `None` for everyone's access to a
    /// project, which has nothing above it.
    pub fn inherited_object(&self, who: Principal, target: Target) -> Option<Resolved> {
        if matches!(who, Principal::Everyone) && !levels::has_resource_rules(target.resource) {
            return None;
        }
        let lens = Lens {
            mask: Some((target.resource, Some(target.id))),
            suspend_admin: false,
        };
        self.object_in(who, lens, target, false)
    }

    /// What `who` would have on the resource without their own
    /// resource-wide rule (`inherited_access_for_resource`).
    pub fn inherited_resource(&self, who: Principal, resource: &str) -> Resolved {
        let lens = Lens {
            mask: Some((levels::deciding_resource(resource), None)),
            suspend_admin: false,
        };
        self.resource_in(who, lens, resource)
    }

    /// The level of `who`'s own stored rule on the resource or object
    /// (`stored_level`): the rule a settings page edits.
    pub fn stored(&self, who: Principal, resource: &str, resource_id: Option<&str>) -> Option<AccessLevel> {
        self.rows(who, Lens::default(), resource, resource_id)
            .into_iter()
            .find(|rule| is_own(rule, who))
            .map(|rule| rule.level.clone())
    }

    /// A settings cell for a project: the subject's rule on it, their
    /// level, and what they would have without their rule.
    pub fn project_entry(&self, who: Principal, project: Target) -> Entry {
        Entry {
            access_level: self.stored(who, PROJECT, Some(project.id)),
            effective: self.object(who, project).map(|resolved| resolved.level),
            inherited: self.inherited_object(who, project),
            minimum: levels::minimum_level(PROJECT),
            maximum: levels::maximum_level(PROJECT),
        }
    }

    /// A settings cell for a resource of a project.
    pub fn resource_entry(&self, who: Principal, resource: &str) -> Entry {
        Entry {
            access_level: self.stored(who, resource, None),
            effective: Some(self.resource(who, resource).level),
            inherited: Some(self.inherited_resource(who, resource)),
            minimum: levels::minimum_level(resource),
            maximum: levels::maximum_level(resource),
        }
    }

    /// Whether `who` may change the rules of `target`
    /// (`check_can_modify_access_levels_for_object`): its creator, an
    /// explicit project admin, an organization admin, or, on anything but
    /// a project, someone with explicit `manager` on it.
    pub fn can_modify(&self, who: Principal, target: Target, project: Target) -> bool {
        if is_creator(who, target) {
            return true;
        }
        let project_admin = self
            .object_explicit(who, project)
            .is_some_and(|resolved| levels::reaches(PROJECT, &resolved.level, &AccessLevel::Admin));
        if target.resource == PROJECT {
            return project_admin;
        }
        project_admin
            || self.object_explicit(who, target).is_some_and(|resolved| {
                levels::reaches(target.resource, &resolved.level, &AccessLevel::Manager)
            })
    }

    /// Whether a rule, not the admin bypass, grants `who` the project
    /// (`has_project_scoped_access`): who a hidden member list still shows.
    pub fn project_scoped(&self, who: Principal, project: Target) -> bool {
        let lens = Lens {
            mask: None,
            suspend_admin: true,
        };
        self.object_in(who, lens, project, false)
            .is_some_and(|resolved| resolved.level != AccessLevel::None)
    }

    /// Whether `who` reaches the project at all (`member` or more).
    pub fn reaches_project(&self, who: Principal, project: Target) -> bool {
        self.object(who, project)
            .is_some_and(|resolved| levels::reaches(PROJECT, &resolved.level, &AccessLevel::Member))
    }

    /// Whether `who` reaches `required` on the object.
    pub fn reaches_object(&self, who: Principal, target: Target, required: &AccessLevel) -> bool {
        self.object(who, target)
            .is_some_and(|resolved| levels::reaches(target.resource, &resolved.level, required))
    }

    /// Whether a list shows `target` to `who` (`filter_queryset_by_access_level`).
    /// With no access to the resource, only objects granted to them and
    /// their own; otherwise everything but objects their rules deny, unless
    /// they created it. In the highest-wins mode rules naming them or their
    /// roles decide before the rule for everyone; in the most-specific mode
    /// their own rule, then their roles', then everyone's.
    pub fn visible(&self, who: Principal, target: Target) -> bool {
        if is_creator(who, target) {
            return true;
        }
        let rows = self.rows(who, Lens::default(), target.resource, Some(target.id));
        let deciding: Vec<&Rule> = match self.mode {
            Mode::HighestWins => {
                let named: Vec<&Rule> = rows
                    .iter()
                    .copied()
                    .filter(|rule| rule.subject != Subject::Everyone)
                    .collect();
                if named.is_empty() { rows } else { named }
            }
            Mode::MostSpecific => most_specific_group(&rows),
        };
        // Some rule decides, and grants something / denies everything.
        let granted = deciding.iter().any(|rule| rule.level != AccessLevel::None);
        let denied = !deciding.is_empty() && !granted;
        let explicitly_granted = granted && deciding.iter().any(|rule| rule.subject != Subject::Everyone);
        let resource_access = self.resource(who, target.resource).level != AccessLevel::None;
        if resource_access {
            !denied
        } else {
            explicitly_granted
        }
    }

    /// Whether a rule naming `who` or their roles grants `required` on some
    /// object of `resource` (`has_any_specific_access_for_resource`): what
    /// lets someone without the resource list the objects granted to them.
    pub fn has_object_grant(&self, who: Principal, resource: &str, required: &AccessLevel) -> bool {
        if is_admin(who, Lens::default()) {
            return true;
        }
        if !self.plan.access_control {
            return false;
        }
        self.rules.objects_of(resource).any(|rule| {
            rule.subject != Subject::Everyone
                && self.applies(rule, who)
                && levels::reaches(resource, &rule.level, required)
        })
    }

    /// How `who` reaches the object, as `users_with_access` names it
    /// (`get_access_source_for_object`).
    pub fn access_source(&self, who: Principal, target: Target, project: Target) -> AccessSource {
        if is_creator(who, target) {
            return AccessSource::Creator;
        }
        if is_admin(who, Lens::default()) {
            return AccessSource::OrganizationAdmin;
        }
        if !self.plan.access_control {
            return AccessSource::Default;
        }
        let rows = self.rows(who, Lens::default(), target.resource, Some(target.id));
        if rows.iter().any(|rule| matches!(rule.subject, Subject::Member(_))) {
            return AccessSource::ExplicitMember;
        }
        if rows.iter().any(|rule| matches!(rule.subject, Subject::Role(_))) {
            return AccessSource::ExplicitRole;
        }
        let project_rows = self.rows(who, Lens::default(), PROJECT, Some(project.id));
        if project_rows
            .iter()
            .any(|rule| matches!(rule.subject, Subject::Member(_)))
        {
            return AccessSource::ProjectAdmin;
        }
        AccessSource::Default
    }

    fn resource_in(&self, who: Principal, lens: Lens, resource: &str) -> Resolved {
        if let Some(parent) = levels::inherits_from(resource) {
            return self.resource_in(who, lens, parent);
        }
        if !levels::has_resource_rules(resource) {
            return system_default(resource);
        }
        if is_admin(who, lens) {
            return bypass(resource, Source::OrgAdmin);
        }
        if !self.plan.access_control {
            return system_default(resource);
        }
        let rows = self.rows(who, lens, resource, None);
        match self.settle(resource, &rows) {
            Some(rule) => decided(resource, rule, Source::Resource),
            None => system_default(resource),
        }
    }

    /// Whether any resource-wide rule applies (`has_access_levels_for_resource`).
    fn has_resource_rows(&self, who: Principal, lens: Lens, resource: &str) -> bool {
        if !levels::has_resource_rules(resource) {
            return false;
        }
        if let Some(parent) = levels::inherits_from(resource) {
            return self.has_resource_rows(who, lens, parent);
        }
        !self.rows(who, lens, resource, None).is_empty()
    }

    fn object_in(&self, who: Principal, lens: Lens, target: Target, explicit: bool) -> Option<Resolved> {
        let resource = target.resource;
        if is_creator(who, target) {
            return Some(bypass(resource, Source::Creator));
        }
        if is_admin(who, lens) {
            return Some(bypass(resource, Source::OrgAdmin));
        }
        if resource == levels::ORGANIZATION {
            let level = match who {
                Principal::Member(member) if member.is_organization_admin() => AccessLevel::Admin,
                _ => AccessLevel::Member,
            };
            return Some(Resolved {
                level,
                source: Source::OrgMembership,
                subject: None,
                resource: resource.to_string(),
                resource_id: None,
            });
        }
        if !self.plan.access_control {
            return (!explicit).then(|| system_default(resource));
        }
        let rows = self.rows(who, lens, resource, Some(target.id));
        let first = match self.mode {
            // Rules naming a member or a role first, then the resource's.
            Mode::HighestWins => {
                let named: Vec<&Rule> = rows
                    .iter()
                    .copied()
                    .filter(|rule| rule.subject != Subject::Everyone)
                    .collect();
                highest(resource, &named)
            }
            Mode::MostSpecific => self.settle(resource, &rows),
        };
        if let Some(rule) = first {
            return Some(decided(resource, rule, Source::Object));
        }
        if self.has_resource_rows(who, lens, resource) {
            return Some(self.resource_in(who, lens, resource));
        }
        if self.mode == Mode::HighestWins
            && let Some(rule) = highest(resource, &rows)
        {
            return Some(decided(resource, rule, Source::Object));
        }
        if explicit {
            return None;
        }
        Some(system_default(levels::deciding_resource(resource)))
    }

    /// The rule that decides among `rows` in this resolver's mode.
    fn settle<'r>(&self, resource: &str, rows: &[&'r Rule]) -> Option<&'r Rule> {
        match self.mode {
            Mode::HighestWins => highest(resource, rows),
            Mode::MostSpecific => highest(resource, &most_specific_group(rows)),
        }
    }

    /// The rules on the resource or object that apply to `who`, less what
    /// the lens leaves out; none without access control.
    fn rows(&self, who: Principal, lens: Lens, resource: &str, id: Option<&str>) -> Vec<&'a Rule> {
        if !self.plan.access_control {
            return Vec::new();
        }
        let masked = lens
            .mask
            .is_some_and(|(masked, masked_id)| masked == resource && masked_id == id);
        self.rules
            .rules_of(resource, id)
            .iter()
            .filter(|rule| self.applies(rule, who) && !(masked && is_own(rule, who)))
            .collect()
    }

    /// Whether a rule is about `who`: everyone's always, a member's for
    /// that member, a role's for the role and its members (with role-based
    /// access).
    fn applies(&self, rule: &Rule, who: Principal) -> bool {
        match &rule.subject {
            Subject::Everyone => true,
            Subject::Member(id) => matches!(who, Principal::Member(member) if member.membership_id == *id),
            Subject::Role(id) => {
                self.plan.role_based_access
                    && match who {
                        Principal::Member(member) => member.role_ids.iter().any(|role| role == id),
                        Principal::Role(role) => role == id,
                        Principal::Everyone => false,
                    }
            }
        }
    }
}

/// The most specific subject's rules: the member's own, else their roles',
/// else everyone's.
fn most_specific_group<'r>(rows: &[&'r Rule]) -> Vec<&'r Rule> {
    for kind in [SubjectKind::Member, SubjectKind::Role, SubjectKind::Default] {
        let group: Vec<&Rule> = rows
            .iter()
            .copied()
            .filter(|rule| rule.subject.kind() == kind)
            .collect();
        if !group.is_empty() {
            return group;
        }
    }
    Vec::new()
}

/// The rule with the highest level; at the same level the most specific
/// subject's (a member's over a role's over everyone's), and the first of
/// equals, so that the reason reported is always the same.
fn highest<'r>(resource: &str, rows: &[&'r Rule]) -> Option<&'r Rule> {
    let key = |rule: &Rule| {
        (
            levels::rank(resource, &rule.level).map_or(-1, |rank| rank as i64),
            rule.subject.specificity(),
        )
    };
    let mut best: Option<&Rule> = None;
    for rule in rows.iter().copied() {
        if best.is_none_or(|known| key(rule) > key(known)) {
            best = Some(rule);
        }
    }
    best
}

fn is_own(rule: &Rule, who: Principal) -> bool {
    match (who, &rule.subject) {
        (Principal::Member(member), Subject::Member(id)) => member.membership_id == *id,
        (Principal::Role(role), Subject::Role(id)) => role == id,
        (Principal::Everyone, Subject::Everyone) => true,
        _ => false,
    }
}

fn is_creator(who: Principal, target: Target) -> bool {
    match who {
        Principal::Member(member) => target.creator.is_some_and(|creator| creator == member.user_id),
        _ => false,
    }
}

fn is_admin(who: Principal, lens: Lens) -> bool {
    !lens.suspend_admin && matches!(who, Principal::Member(member) if member.is_organization_admin())
}

fn decided(resource: &str, rule: &Rule, source: Source) -> Resolved {
    Resolved {
        level: rule.level.clone(),
        source,
        subject: Some(rule.subject.kind()),
        resource: resource.to_string(),
        resource_id: rule.resource_id.clone(),
    }
}

fn system_default(resource: &str) -> Resolved {
    Resolved {
        level: levels::default_level(resource),
        source: Source::SystemDefault,
        subject: None,
        resource: resource.to_string(),
        resource_id: None,
    }
}

fn bypass(resource: &str, source: Source) -> Resolved {
    Resolved {
        level: levels::maximum_level(resource),
        source,
        subject: None,
        resource: resource.to_string(),
        resource_id: None,
    }
}

#[cfg(test)]
#[path = "resolve_tests.rs"]
mod tests;
