//! One person's levels in one project, cell by cell, in one mode, through
//! the one resolver (`api::access::resolve`), and why each is what it is,
//! in words.

use super::{Cell, ProjectWorld, World};
use crate::api::access::levels::{self, AccessLevel, PROJECT};
use crate::api::access::{
    Member, Mode, Plan, Principal, Resolved, Resolver, Rule, RuleSet, Source, Subject, SubjectKind, Target,
};

/// A project's rules as the resolver reads them (ids lowercased, as the
/// directory has them).
fn rule_set(project: &ProjectWorld) -> RuleSet {
    RuleSet::new(project.rules.iter().filter_map(|rule| {
        let mut rule = rule.rule()?;
        rule.subject = match rule.subject {
            Subject::Member(id) => Subject::Member(id.to_lowercase()),
            Subject::Role(id) => Subject::Role(id.to_lowercase()),
            Subject::Everyone => Subject::Everyone,
        };
        Some(rule)
    }))
}

/// The levels of one person in one project, cell by cell, in one mode.
pub(super) struct Levels<'w> {
    world: &'w World,
    pub(super) rules: RuleSet,
    project: &'w ProjectWorld,
}

impl<'w> Levels<'w> {
    pub(super) fn new(world: &'w World, project: &'w ProjectWorld) -> Levels<'w> {
        Levels {
            world,
            rules: rule_set(project),
            project,
        }
    }

    pub(super) fn resolve(&self, mode: Mode, member: &Member, cell: Cell) -> Resolved {
        let resolver = Resolver::new(&self.rules, self.world.plan, mode);
        let who = Principal::Member(member);
        let project_id = self.project.project.id.to_string();
        match cell {
            Cell::Project => resolver
                .object(who, Target::project(&project_id))
                .unwrap_or_else(|| nothing(PROJECT)),
            Cell::Resource(resource) => resolver.resource(who, resource),
            Cell::Object(object) => resolver
                .object(
                    who,
                    Target {
                        resource: &object.resource,
                        id: &object.id,
                        creator: object.creator.as_deref(),
                    },
                )
                .unwrap_or_else(|| nothing(&object.resource)),
        }
    }

    /// Why `resolved` is what it is for `member`, in words.
    pub(super) fn because(&self, mode: Mode, member: &Member, resolved: &Resolved) -> String {
        let decider = match resolved.source {
            Source::OrgAdmin => return "they are an organization admin, who bypasses every rule".into(),
            Source::Creator => return "they created it".into(),
            Source::OrgMembership => return "their organization membership decides".into(),
            Source::SystemDefault if !self.world.plan.access_control => {
                return "the plan reads no rule: the built-in default".into();
            }
            Source::SystemDefault => return "no rule applies to them: the built-in default".into(),
            _ => match &resolved.subject {
                Some(kind) => kind.clone(),
                None => return "no rule decides".into(),
            },
        };
        let applying: Vec<&Rule> = self
            .rules
            .iter()
            .filter(|rule| {
                rule.resource == resolved.resource
                    && rule.resource_id == resolved.resource_id
                    && applies(rule, member, self.world.plan)
            })
            .collect();
        let name = |kind: &SubjectKind, level: &AccessLevel| -> String {
            match kind {
                SubjectKind::Member => "their own rule".to_string(),
                SubjectKind::Role => {
                    let names: Vec<String> = applying
                        .iter()
                        .filter(|rule| rule.subject.kind() == SubjectKind::Role && &rule.level == level)
                        .filter_map(|rule| match &rule.subject {
                            Subject::Role(id) => Some(self.world.role_name(id)),
                            _ => None,
                        })
                        .collect();
                    match names.as_slice() {
                        [] => "a role's rule".to_string(),
                        [one] => format!("the rule of {one}"),
                        several => format!("the rules of {}", several.join(", ")),
                    }
                }
                SubjectKind::Default => "everyone's rule".to_string(),
                SubjectKind::Other(other) => format!("a rule ({other})"),
            }
        };
        let mut words = format!("{} ({})", name(&decider, &resolved.level), resolved.level);
        let rank = |level: &AccessLevel| levels::rank(&resolved.resource, level);
        let specificity = |kind: &SubjectKind| match kind {
            SubjectKind::Member => 2,
            SubjectKind::Role => 1,
            _ => 0,
        };
        let whose = |kind: &SubjectKind| match kind {
            SubjectKind::Member => "their own".to_string(),
            SubjectKind::Role => "their roles'".to_string(),
            _ => "everyone's".to_string(),
        };
        match mode {
            Mode::MostSpecific => {
                // A higher rule of a less specific subject that lost.
                if let Some(lost) = applying.iter().find(|rule| {
                    specificity(&rule.subject.kind()) < specificity(&decider)
                        && rank(&rule.level) > rank(&resolved.level)
                }) {
                    words.push_str(&format!(
                        " is more specific than {} ({})",
                        whose(&lost.subject.kind()),
                        lost.level
                    ));
                }
            }
            Mode::HighestWins => {
                if let Some(lost) = applying.iter().find(|rule| {
                    specificity(&rule.subject.kind()) > specificity(&decider)
                        && rank(&rule.level) < rank(&resolved.level)
                }) {
                    words.push_str(&format!(
                        " is higher than {} ({}), and the highest rule wins",
                        whose(&lost.subject.kind()),
                        lost.level
                    ));
                }
            }
        }
        words
    }
}

pub(super) fn nothing(resource: &str) -> Resolved {
    Resolved {
        level: AccessLevel::None,
        source: Source::SystemDefault,
        subject: None,
        resource: resource.to_string(),
        resource_id: None,
    }
}

/// Whether a rule is about this member.
fn applies(rule: &Rule, member: &Member, plan: Plan) -> bool {
    match &rule.subject {
        Subject::Everyone => true,
        Subject::Member(id) => member.membership_id.eq_ignore_ascii_case(id),
        Subject::Role(id) => {
            plan.role_based_access && member.role_ids.iter().any(|role| role.eq_ignore_ascii_case(id))
        }
    }
}
