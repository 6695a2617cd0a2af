//! What running an offboarding needs to know before its first step, asked
//! of the server once: the organization's id, whether the server is
//! today's PostHog, and who runs it: the key's user, their level and the
//! key's scopes ([`Caller`]), so that a plan the key cannot finish is
//! refused before it starts rather than stopped half-way by a 403. The CLI
//! and the console both start here.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use super::offboard::{Action, Plan};
use crate::api::models::level;
use crate::api::{Caller, Client, Operation};

#[derive(Debug, Clone)]
pub struct Session {
    pub organization_id: String,
    pub today: bool,
    /// Who the key is, in the organization.
    pub caller: Caller,
    pub started_at: DateTime<Utc>,
}

impl Session {
    pub async fn open(
        client: &Client,
        organization: &str,
        plan: &Plan,
        started_at: DateTime<Utc>,
    ) -> crate::api::error::Result<Session> {
        let organization_id = client.organization(organization).await?.id;
        let project = plan.steps.iter().find_map(|step| match &step.action {
            Action::EditSubscription { project, .. } => Some(*project),
            _ => None,
        });
        let today = match project {
            Some(project) => client.is_todays_posthog(&project.to_string()).await?,
            None => false,
        };
        let caller = client.caller(&organization_id).await?;
        Ok(Session {
            organization_id,
            today,
            caller,
            started_at,
        })
    }

    /// Who ran it, for the record.
    pub fn by(&self) -> Value {
        let user = &self.caller.user;
        json!({
            "email": user.email,
            "name": user.display_name(),
            "uuid": user.uuid,
            "level": self.caller.level.map(level::name),
        })
    }

    /// What the key lacks to run every step of `plan` that writes, one
    /// line per lack naming the steps it stops (by their numbers in the
    /// plan). Empty: the key may run it all.
    pub fn missing(&self, plan: &Plan) -> Vec<String> {
        let operations = plan.steps.iter().enumerate().filter_map(|(at, step)| {
            let operation = match &step.action {
                Action::LeaveRole { .. } => Operation::ChangeRoleMembers,
                Action::EditSubscription {
                    project, ai_prompt, ..
                } => Operation::ChangeSubscription {
                    project: *project,
                    ai_prompt: *ai_prompt,
                },
                Action::MakeAdmin { user_uuid } => Operation::SetLevel {
                    user_uuid: user_uuid.clone(),
                    from: level::OWNER,
                    to: level::ADMIN,
                },
                // An owner is made admin by the step before; anyone else is
                // at most an admin, whom an admin may remove.
                Action::RemoveMember { user_uuid } => Operation::RemoveMember {
                    user_uuid: user_uuid.clone(),
                    level: level::ADMIN,
                },
                Action::Note => return None,
            };
            Some((at + 1, operation))
        });
        self.caller.missing(operations)
    }
}
