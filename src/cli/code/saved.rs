//! Saved plans, as Terraform's: `orgdeck plan FILE --save PLAN` writes the
//! exact plan (its steps, and for each object what the plan read of it)
//! to an owner-only file; `orgdeck apply PLAN` applies exactly that.
//!
//! A saved plan is refused whole when it is older than [`MAX_AGE`] (or
//! dated ahead of this machine's clock), was made for another host,
//! organization or project, or when its file changed since: the file's
//! entries are fingerprinted, ids aside for the entries the plan creates
//! (an apply of the plan that was interrupted wrote those), so that an
//! interrupted `apply PLAN` can be run again and finish.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::Digest as _;

use super::diff::Plan;
use super::file::CodeFile;
use super::steps::Step;

/// The version of the saved plan's format.
const FORMAT: u32 = 1;

/// How old a saved plan may be: past it, plan again. An hour covers a
/// review and its approval; a plan older than that was reviewed against
/// an organization that has had time to change in ways a step's own check
/// cannot see (new roles, new subscriptions a prune would keep).
pub const MAX_AGE: chrono::TimeDelta = chrono::TimeDelta::hours(1);

/// How far ahead of this machine's clock a plan may be dated (another
/// machine's clock).
const SKEW: chrono::TimeDelta = chrono::TimeDelta::minutes(5);

/// The largest saved plan read.
const MAX_BYTES: u64 = 256 * 1024 * 1024;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SavedPlan {
    /// The format's version; also what tells a saved plan from a file.
    pub orgdeck_plan: u32,
    pub made_at: DateTime<Utc>,
    pub host: String,
    pub organization: String,
    pub project: i64,
    /// The as-code file, absolute.
    pub file: PathBuf,
    pub fingerprint: String,
    /// The project's subscriptions when the plan was made.
    pub listed: u64,
    pub plan: Plan,
    pub steps: Vec<Step>,
}

/// Whether a file's text is a saved plan rather than an as-code file.
pub fn is_saved_plan(text: &str) -> bool {
    text.trim_start().starts_with('{') && text.contains("\"orgdeck_plan\"")
}

/// The entries' fingerprint: the file read, ids left out of the entries
/// the plan creates, and its roles' members read back from where they
/// were set aside (each role's, by address, with its place in the role).
pub fn fingerprint(file: &CodeFile, steps: &[Step]) -> std::io::Result<String> {
    let mut value = file.to_json();
    for step in steps {
        let (list, index) = match step {
            Step::CreateRole { index, .. } => ("roles", *index),
            Step::CreateSubscription { index, .. } => ("subscriptions", *index),
            _ => continue,
        };
        if let Some(entry) = value
            .get_mut(list)
            .and_then(|entries| entries.get_mut(index))
            .and_then(serde_json::Value::as_object_mut)
        {
            entry.shift_remove("id");
        }
    }
    let mut hasher = sha2::Sha256::new();
    hasher.update(value.to_string().as_bytes());
    for member in file.members.all()? {
        let member = member?;
        // Lengths first: no two lists read the same.
        hasher.update(format!("\n{} {} {} ", member.role, member.place, member.written.len()).as_bytes());
        hasher.update(member.written.as_bytes());
    }
    Ok(hex::encode(hasher.finalize()))
}

impl SavedPlan {
    /// Writes the plan to `path`, owner-only; a link there is refused.
    pub fn save(&self, path: &Path) -> anyhow::Result<()> {
        let mut text = serde_json::to_string_pretty(self)?;
        text.push('\n');
        let cannot =
            |error: std::io::Error| anyhow::anyhow!("cannot save the plan to {}: {error}", path.display());
        let mut file = crate::config::files::create_private(path, crate::config::files::Create::Truncate)
            .map_err(cannot)?;
        file.write_all(text.as_bytes()).map_err(cannot)?;
        file.sync_all().map_err(cannot)?;
        Ok(())
    }

    /// Reads a saved plan, refusing one of another format.
    pub fn load(path: &Path) -> anyhow::Result<SavedPlan> {
        let bytes = crate::config::files::read_bounded(path, MAX_BYTES)
            .map_err(|error| anyhow::anyhow!("cannot read the plan {}: {error}", path.display()))?
            .ok_or_else(|| anyhow::anyhow!("there is no plan {}", path.display()))?;
        let saved: SavedPlan = serde_json::from_slice(&bytes).map_err(|error| {
            anyhow::anyhow!(
                "{} is not a plan orgdeck can apply ({error}); make it again with `orgdeck plan FILE --save PLAN`",
                path.display()
            )
        })?;
        if saved.orgdeck_plan != FORMAT {
            anyhow::bail!(
                "{} is a plan of another orgdeck (format {}); make it again with this one",
                path.display(),
                saved.orgdeck_plan
            );
        }
        Ok(saved)
    }

    /// Refuses a plan too old, or dated ahead of this machine's clock.
    pub fn check_age(&self, path: &Path, now: DateTime<Utc>) -> anyhow::Result<()> {
        let made = self.made_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        if now - self.made_at > MAX_AGE {
            anyhow::bail!(
                "the plan {} was made at {made}, more than {} minutes ago, so nothing was applied: plan again (`orgdeck plan FILE --save PLAN`), review it, and apply that",
                path.display(),
                MAX_AGE.num_minutes()
            );
        }
        if self.made_at - now > SKEW {
            anyhow::bail!(
                "the plan {} is dated {made}, ahead of this machine's clock, so nothing was applied: check the clocks and plan again",
                path.display()
            );
        }
        Ok(())
    }

    /// Refuses a plan made for another host, organization or project.
    pub fn check_target(
        &self,
        path: &Path,
        host: &str,
        organization: &str,
        project: i64,
    ) -> anyhow::Result<()> {
        let mut wrong = Vec::new();
        if self.host != host {
            wrong.push(format!("host {} (this connection: {host})", self.host));
        }
        if self.organization != organization {
            wrong.push(format!(
                "organization {} (this connection: {organization}; pass --org)",
                self.organization
            ));
        }
        if self.project != project {
            wrong.push(format!(
                "project {} (this connection: {project}; pass --project)",
                self.project
            ));
        }
        if !wrong.is_empty() {
            anyhow::bail!(
                "the plan {} was made for {}, so nothing was applied",
                path.display(),
                wrong.join(", ")
            );
        }
        Ok(())
    }

    /// Refuses a plan whose file changed since (beyond the ids an
    /// interrupted apply of this plan wrote).
    pub fn check_file(&self, path: &Path, file: &CodeFile) -> anyhow::Result<()> {
        if fingerprint(file, &self.steps)? != self.fingerprint {
            anyhow::bail!(
                "{} changed since the plan {} was made, so nothing was applied: plan it again, review it, and apply that",
                self.file.display(),
                path.display()
            );
        }
        Ok(())
    }
}
