//! Whether the key may make every step of a plan, asked before the first
//! one, as offboarding asks: the key's user and level (`users/@me`, their
//! membership) and the key's scopes and limits
//! (`personal_api_keys/@current`), checked against what each step needs
//! ([`crate::api::caller`]), so that an apply never stops half-way on a
//! 403 it could have foreseen.

use serde_json::Value;

use super::steps::Step;
use crate::api::{Client, Operation};

/// What the key lacks to make `steps`, one line per lack naming the steps
/// it stops (by their numbers in the plan). Empty: the key may make them
/// all. When the server will not say who the key is, a note on stderr and
/// nothing refused: each step's own answer says it then.
pub async fn missing(client: &Client, organization_id: &str, project: i64, steps: &[Step]) -> Vec<String> {
    let caller = match client.caller(organization_id).await {
        Ok(caller) => caller,
        Err(error) => {
            eprintln!(
                "orgdeck: note: the key could not be checked before the steps ({}); each step says what the server refuses",
                crate::text::printable(&error.to_string())
            );
            return Vec::new();
        }
    };
    let operations = steps
        .iter()
        .enumerate()
        .map(|(at, step)| (at + 1, operation(step, project)));
    caller.missing(operations)
}

/// What a step asks of the key.
fn operation(step: &Step, project: i64) -> Operation {
    match step {
        Step::CreateRole { .. } | Step::UpdateRole { .. } | Step::DeleteRole { .. } => Operation::ChangeRole,
        Step::AddMember { .. } | Step::RemoveMember { .. } => Operation::ChangeRoleMembers,
        Step::CreateSubscription { body, .. } | Step::UpdateSubscription { body, .. } => {
            Operation::ChangeSubscription {
                project,
                ai_prompt: is_ai_prompt(body),
            }
        }
        Step::SoftDeleteSubscription { .. } => Operation::ChangeSubscription {
            project,
            ai_prompt: false,
        },
        Step::SetRule { project, object, .. } => Operation::ChangeAccess {
            project: *project,
            object: object.is_some(),
        },
    }
}

/// Whether a subscription's body makes it an AI-prompt subscription
/// (which PostHog lets only a key with `query:read` write).
fn is_ai_prompt(body: &Value) -> bool {
    body.get("resource_type").and_then(Value::as_str) == Some("ai_prompt")
        || body.get("prompt").is_some_and(|prompt| !prompt.is_null())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_ai_prompt_is_known_by_its_type_or_its_prompt() {
        assert!(is_ai_prompt(&json!({"resource_type": "ai_prompt"})));
        assert!(is_ai_prompt(&json!({"prompt": "Summarise the week"})));
        assert!(!is_ai_prompt(&json!({"prompt": null, "insight": 3})));
        assert!(!is_ai_prompt(&json!({"dashboard": 1})));
    }
}
