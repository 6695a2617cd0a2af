//! One access-rule step of `apply`: the rule read again just before, then
//! written (an upsert) or removed.

use std::collections::HashMap;
use std::sync::Mutex;

use super::RuleTarget;
use crate::api::access::levels::{AccessLevel, PROJECT};
use crate::api::access::{AccessControl, AccessTarget, Subject};
use crate::cli::code::run::{Done, Runner};
use crate::cli::code::steps::RoleRef;

/// A step's subject as the API names it; `None` for a role that was not
/// created.
fn subject_of(target: &RuleTarget, created: &Mutex<HashMap<usize, String>>) -> Option<Subject> {
    match target {
        RuleTarget::Everyone => Some(Subject::Everyone),
        RuleTarget::Member { membership, .. } => Some(Subject::Member(membership.clone())),
        RuleTarget::Role {
            role: RoleRef::Existing(id),
            ..
        } => Some(Subject::Role(id.clone())),
        RuleTarget::Role {
            role: RoleRef::Created(index),
            ..
        } => created
            .lock()
            .ok()
            .and_then(|held| held.get(index).cloned())
            .map(Subject::Role),
    }
}

/// One rule step: the rule read just before; already as planned, it is
/// said so; changed since the plan, refused; else written.
#[allow(clippy::too_many_arguments)]
pub(in crate::cli::code) async fn run_step(
    runner: &Runner<'_>,
    project: i64,
    resource: &str,
    object: Option<&str>,
    target: &RuleTarget,
    before: Option<&AccessLevel>,
    level: Option<&AccessLevel>,
    created: &Mutex<HashMap<usize, String>>,
) -> Done {
    let Some(subject) = subject_of(target, created) else {
        return Done::Failed("skipped: the role was not created".into());
    };
    if matches!(&subject, Subject::Member(id) | Subject::Role(id) if id.is_empty()) {
        return Done::Failed("its subject is not on the server".into());
    }
    let key = project.to_string();
    let now = match rule_now(runner, &key, resource, object, &subject).await {
        Ok(now) => now,
        Err(error) => return Done::Failed(format!("cannot read the rule again before the step: {error}")),
    };
    let shown = |level: Option<&AccessLevel>| level.map_or("no rule", AccessLevel::as_str).to_string();
    if now.as_ref() == level {
        return Done::Already("already as planned".into());
    }
    if now.as_ref() != before {
        return Done::Refused(format!(
            "the rule is {} on the server now, and was {} when planned; not done",
            shown(now.as_ref()),
            shown(before)
        ));
    }
    let level = level.cloned();
    let sent = match (resource, object) {
        (PROJECT, _) => {
            runner
                .paced(|| {
                    runner
                        .client
                        .set_access_control(&key, AccessTarget::Project, &subject, level.clone())
                })
                .await
        }
        (resource, None) => {
            runner
                .paced(|| {
                    runner
                        .client
                        .set_resource_access_control(&key, resource, &subject, level.clone())
                })
                .await
        }
        (resource, Some(object)) => {
            runner
                .paced(|| {
                    runner
                        .client
                        .set_object_rule(&key, resource, object, &subject, level.clone())
                })
                .await
        }
    };
    match sent {
        Ok(_) => Done::Made(None, None),
        Err(error) => Done::Failed(error.to_string()),
    }
}

/// The subject's rule on the project, resource or object as it is now.
async fn rule_now(
    runner: &Runner<'_>,
    key: &str,
    resource: &str,
    object: Option<&str>,
    subject: &Subject,
) -> crate::api::error::Result<Option<AccessLevel>> {
    let client = runner.client;
    let same = |rule: &AccessControl| {
        rule.subject().is_some_and(|found| match (&found, subject) {
            (Subject::Member(a), Subject::Member(b)) | (Subject::Role(a), Subject::Role(b)) => {
                a.eq_ignore_ascii_case(b)
            }
            (Subject::Everyone, Subject::Everyone) => true,
            _ => false,
        })
    };
    match (resource, object) {
        (PROJECT, _) => {
            let rules = runner
                .paced(|| client.access_controls(key, AccessTarget::Project))
                .await?;
            Ok(rules
                .access_controls
                .into_iter()
                .find(|rule| rule.resource == PROJECT && same(rule))
                .and_then(|rule| rule.access_level))
        }
        (resource, None) => {
            let rules = runner.paced(|| client.resource_access_controls(key)).await?;
            Ok(rules
                .access_controls
                .into_iter()
                .find(|rule| rule.resource == resource && rule.resource_id.is_none() && same(rule))
                .and_then(|rule| rule.access_level))
        }
        (resource, Some(object)) => {
            let rules = runner.paced(|| client.object_rules(key, subject)).await?;
            Ok(rules
                .results
                .into_iter()
                .find(|rule| rule.resource == resource && rule.resource_id == object)
                .and_then(|rule| rule.access_level))
        }
    }
}
