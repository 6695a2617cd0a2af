//! What an offboarding leaves behind, and what running one needs to know
//! first: the [`Session`] (the organization's id, whether the server is
//! today's PostHog, who runs it) and the [`Record`] written when it ends,
//! to a file only its owner reads. The CLI and the console share both.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::{Value, json};

use super::offboard::{Action, Options, Plan, Status, Step};
use super::profile::Person;
use crate::api::Client;

/// What an offboarding leaves behind: who, when, by whom, and every step.
#[derive(Debug, Clone, Serialize)]
pub struct Record<'a> {
    pub kind: &'static str,
    pub version: u32,
    pub organization: &'a str,
    pub host: &'a str,
    pub person: &'a Person,
    /// The owner of the key that ran it.
    pub by: Value,
    pub started_at: DateTime<Utc>,
    pub finished_at: DateTime<Utc>,
    pub options: Options,
    pub dry_run: bool,
    pub summary: Value,
    pub warnings: &'a [String],
    pub steps: &'a [Step],
}

impl Plan {
    /// Counts for a record and the last line.
    pub fn summary(&self) -> Value {
        json!({
            "done": self.count(Status::Done),
            "unchanged": self.count(Status::Unchanged),
            "failed": self.count(Status::Failed),
            "planned": self.count(Status::Planned),
            "noted": self.count(Status::Noted),
        })
    }
}

/// Where a record goes by default: the state directory's `offboarding/`,
/// named by the person and the time.
pub fn default_record_path(
    state_dir: &std::path::Path,
    email: &str,
    at: DateTime<Utc>,
) -> std::path::PathBuf {
    let safe: String = email
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "@.-_".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    state_dir
        .join("offboarding")
        .join(format!("{safe}-{}.json", at.format("%Y%m%dT%H%M%S%.3fZ")))
}

/// Writes a file only its owner may read, its directory (owner-only too)
/// made if missing.
pub fn write_owner_only(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(parent) = path.parent().filter(|parent| !parent.as_os_str().is_empty()) {
        crate::config::create_private_dir(parent).map_err(std::io::Error::other)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    std::io::Write::write_all(&mut file, bytes)?;
    file.sync_all()
}

/// What running a plan needs besides the plan, asked of the server once
/// before the first step: the organization's id, whether the server is
/// today's PostHog (whose edits then take `send_test_now: false`), and who
/// runs it, for the record. The CLI and the console both start here.
#[derive(Debug, Clone)]
pub struct Session {
    pub organization_id: String,
    pub today: bool,
    /// The owner of the key, or why they are not known.
    pub by: Value,
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
        let by = match client.me().await {
            Ok(user) => json!({"email": user.email, "name": user.display_name(), "uuid": user.uuid}),
            Err(error) => json!({"unknown": error.to_string()}),
        };
        Ok(Session {
            organization_id,
            today,
            by,
            started_at,
        })
    }
}

impl<'a> Record<'a> {
    /// The record of a plan that ran in `session` and ended at `finished_at`.
    pub fn of(plan: &'a Plan, session: &'a Session, host: &'a str, finished_at: DateTime<Utc>) -> Record<'a> {
        Record {
            kind: "orgdeck offboarding record",
            version: 1,
            organization: &session.organization_id,
            host,
            person: &plan.person,
            by: session.by.clone(),
            started_at: session.started_at,
            finished_at,
            options: plan.options,
            dry_run: false,
            summary: plan.summary(),
            warnings: &plan.warnings,
            steps: &plan.steps,
        }
    }

    /// Writes it as JSON (controls escaped) to a file only its owner reads.
    pub fn write(&self, path: &std::path::Path) -> anyhow::Result<()> {
        let mut text = crate::cli::output::to_safe_string(self)?;
        text.push('\n');
        write_owner_only(path, text.as_bytes())?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_named_by_the_person_and_the_time() {
        let at = DateTime::parse_from_rfc3339("2026-11-25T10:00:00Z")
            .unwrap()
            .to_utc();
        let path = default_record_path(std::path::Path::new("/s"), "a/b@x.io", at);
        assert_eq!(
            path,
            std::path::Path::new("/s/offboarding/a_b@x.io-20261125T100000.000Z.json")
        );
    }
}
