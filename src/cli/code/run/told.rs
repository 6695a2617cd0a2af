//! What a step's end says: its outcome, and what changed since the plan
//! read the object it would have changed.

use serde_json::Value;

use super::super::steps::{Fields, RoleRead, Step};
use super::{Done, Outcome};

/// A value as a change line shows it.
fn shown(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => "(none)".into(),
        Some(value) => value.to_string(),
    }
}

/// What changed in a subscription since the plan read it.
pub(super) fn changes(before: &Fields, now: &Fields) -> String {
    let lines: Vec<String> = before
        .keys()
        .filter(|field| before.get(*field) != now.get(*field))
        .map(|field| {
            format!(
                "{field} changed since the plan, from {} to {}",
                shown(before.get(field)),
                shown(now.get(field))
            )
        })
        .collect();
    format!("{}; not done", lines.join("; "))
}

/// What changed in a role since the plan read it.
pub(super) fn role_changes(before: &RoleRead, now: &RoleRead) -> String {
    let mut lines = Vec::new();
    if before.name != now.name {
        lines.push(format!(
            "name changed since the plan, from \"{}\" to \"{}\"",
            before.name, now.name
        ));
    }
    if before.feature_flags_access_level != now.feature_flags_access_level {
        lines.push(format!(
            "feature_flags_access_level changed since the plan, from {} to {}",
            shown(before.feature_flags_access_level.map(Value::from).as_ref()),
            shown(now.feature_flags_access_level.map(Value::from).as_ref())
        ));
    }
    let joined: Vec<&String> = now
        .members
        .keys()
        .filter(|email| !before.members.contains_key(*email))
        .collect();
    let left: Vec<&String> = before
        .members
        .keys()
        .filter(|email| !now.members.contains_key(*email))
        .collect();
    if !joined.is_empty() || !left.is_empty() {
        let names = |emails: &[&String]| {
            emails
                .iter()
                .map(|email| email.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        lines.push(format!(
            "its members changed since the plan (joined: {}; left: {})",
            if joined.is_empty() {
                "none".into()
            } else {
                names(&joined)
            },
            if left.is_empty() {
                "none".into()
            } else {
                names(&left)
            },
        ));
    }
    format!("{}; not done", lines.join("; "))
}

/// What a step's end is told as.
pub(super) fn outcome(step: &Step, done: Done) -> Outcome {
    let step = step.describe();
    match done {
        Done::Made(id, note) => Outcome {
            step,
            ok: true,
            result: "done",
            id,
            note,
            error: None,
        },
        Done::Already(note) => Outcome {
            step,
            ok: true,
            result: "already done",
            id: None,
            note: Some(note),
            error: None,
        },
        Done::Refused(why) => Outcome {
            step,
            ok: false,
            result: "refused",
            id: None,
            note: None,
            error: Some(why),
        },
        Done::Failed(why) => Outcome {
            step,
            ok: false,
            result: "failed",
            id: None,
            note: None,
            error: Some(why),
        },
    }
}
