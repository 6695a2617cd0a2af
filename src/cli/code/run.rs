//! Running a plan's steps, each checked against the server just before:
//! the object a step changes is read again and compared with what the
//! plan read. Unchanged, the step is done; already as the plan wants it
//! (an apply run before, interrupted), it is said so and skipped; changed
//! otherwise, the step is refused with what changed and the others go on.
//! A step never removes what the plan did not read (a membership or a
//! subscription made since is never pruned).
//!
//! The reads are batched: roles are read once a phase (the role list,
//! and the memberships its steps need), subscriptions in batches of up to
//! [`BATCH`] steps, by one read of the list when that is fewer requests
//! than a GET a step. What the plan itself read counts as read when it is
//! under [`FRESH`] old (`apply --yes` just after planning).
//!
//! Each subscription create is written to the lock's journal before it is
//! sent, and its id into the file as soon as the server answers.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use serde::Serialize;
use serde_json::Value;

use super::file::SubscriptionEntry;
use super::lock::{Lock, Sending};
use super::pace::Pace;
use super::steps::{Fields, RoleRead, RoleRef, Step, as_written, entry_of, fields_of};
use super::writeback::{NewId, Unwritten, Writeback};

mod roles;
mod told;
use crate::api::{Client, FetchAll, List, SubscriptionFilter};
use crate::cli::output::{self, Format};
use crate::text::printable;
use told::{changes, outcome, role_changes};

/// Requests in flight at once.
const AT_ONCE: usize = 4;

/// Steps checked by one read of the subscription list at most.
pub const BATCH: usize = 100;

/// What was read longer ago than this is read again before a step.
pub const FRESH: Duration = Duration::from_secs(5);

/// Rows a page of the subscription list is read with, for the re-check
/// (PostHog has no maximum `limit`, posthog.md 4).
const CHECK_PAGE: u64 = 1000;

/// How a step went.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    pub step: String,
    /// Done, or already as the plan wants it.
    pub ok: bool,
    /// `done`, `already done`, `refused` (its object changed since the
    /// plan) or `failed`.
    pub result: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Outcome {
    pub fn line(&self) -> String {
        let step = printable(&self.step);
        match (self.result, &self.error, &self.id, &self.note) {
            (_, Some(error), ..) => format!("✗ {step}: {}\n", printable(error)),
            (_, None, Some(id), Some(note)) => format!("✓ {step} ({}): {}\n", printable(id), printable(note)),
            (_, None, Some(id), None) => format!("✓ {step} ({})\n", printable(id)),
            (_, None, None, Some(note)) => format!("✓ {step}: {}\n", printable(note)),
            (_, None, None, None) => format!("✓ {step}\n"),
        }
    }
}

/// What a step comes to, before it is said.
pub(super) enum Done {
    /// Done, with the id of what it made.
    Made(Option<String>, Option<String>),
    Already(String),
    Refused(String),
    Failed(String),
}

/// What was read of the server, and when.
pub struct Reads {
    pub at: tokio::time::Instant,
    pub roles: Option<HashMap<String, RoleRead>>,
    /// Subscriptions by id; `None` when none was read.
    pub subscriptions: Option<Held>,
}

/// Subscriptions by id as read, each the compact entry that gives its
/// fields when a step compares them ([`as_written`]): not the server's
/// objects, nor a map of fields each.
pub type Held = Arc<HashMap<i64, SubscriptionEntry>>;

/// Where the steps act and what they write to.
pub struct Runner<'a> {
    pub client: &'a Client,
    pub pace: Pace,
    pub organization: &'a str,
    pub project: &'a str,
    pub host: &'a str,
    pub project_id: i64,
    pub lock: Mutex<Lock>,
    pub writeback: Mutex<Writeback>,
    /// The ids the file's entries hold now, by place.
    pub role_ids: Vec<Option<String>>,
    pub subscription_ids: Vec<Option<i64>>,
    /// The project's subscriptions when the plan was made: the size of a
    /// read of the list.
    pub listed: u64,
    pub format: Format,
}

impl Runner<'_> {
    /// Runs every step in its phase, a few at a time, each said as it ends.
    pub async fn run(&self, steps: &[Step], mut reads: Option<Reads>) -> Vec<Outcome> {
        if self.format == Format::Table {
            let _ = output::print("\n");
        }
        let created: Mutex<HashMap<usize, String>> = Mutex::new(HashMap::new());
        let mut outcomes = Vec::new();
        for phase in 0..5 {
            let in_phase: Vec<&Step> = steps.iter().filter(|step| step.phase() == phase).collect();
            if in_phase.is_empty() {
                continue;
            }
            for batch in in_phase.chunks(if phase >= 3 { BATCH } else { usize::MAX }) {
                let fresh = reads.as_ref().filter(|reads| reads.at.elapsed() < FRESH);
                let (roles, subscriptions) = match phase {
                    0..=2 => {
                        let roles = match fresh.and_then(|reads| reads.roles.clone()) {
                            Some(roles) => Ok(roles),
                            None => self.read_roles(batch).await,
                        };
                        (Some(roles), None)
                    }
                    _ => {
                        let needs = batch.iter().filter(|step| step.rereads_subscription()).count();
                        let pages = self.listed.div_ceil(CHECK_PAGE).max(1) as usize;
                        let subscriptions = match fresh.and_then(|reads| reads.subscriptions.clone()) {
                            Some(held) if needs > 0 => Some(Ok(held)),
                            _ if needs > pages => Some(self.read_subscriptions().await),
                            // A GET a step, just before it.
                            _ => None,
                        };
                        (None, subscriptions)
                    }
                };
                if let Some(Ok(held)) = &subscriptions {
                    reads = Some(Reads {
                        at: tokio::time::Instant::now(),
                        roles: None,
                        subscriptions: Some(held.clone()),
                    });
                }
                let roles = roles.map(|roles| roles.map_err(|error| format!("{error:#}")));
                let subscriptions = subscriptions.map(|held| held.map_err(|error| format!("{error:#}")));
                let done: Vec<Outcome> = futures_util::stream::iter(batch.iter().map(|step| {
                    let roles = roles.as_ref();
                    let subscriptions = subscriptions.as_ref();
                    let created = &created;
                    async move {
                        let done = self.step(step, roles, subscriptions, created).await;
                        outcome(step, done)
                    }
                }))
                .buffered(AT_ONCE)
                .collect()
                .await;
                if self.format == Format::Table {
                    let text: String = done.iter().map(Outcome::line).collect();
                    let _ = output::print(&text);
                }
                outcomes.extend(done);
            }
            // Roles changed in this phase: the next reads them again.
            if let Some(reads) = reads.as_mut().filter(|_| phase <= 2) {
                reads.roles = None;
            }
        }
        outcomes
    }

    /// One request in its turn; a 429 (the write was not taken) waits as
    /// asked and goes again, three times at most.
    pub(super) async fn paced<T, F, Fut>(&self, mut send: F) -> crate::api::error::Result<T>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = crate::api::error::Result<T>>,
    {
        let mut tries = 0;
        loop {
            self.pace.turn().await;
            match send().await {
                Err(crate::api::Error::Api(refusal)) if refusal.status == 429 && tries < 3 => {
                    tries += 1;
                    let wait = refusal.retry_after().unwrap_or(Duration::from_secs(1));
                    tokio::time::sleep(wait.min(Duration::from_secs(60))).await;
                }
                outcome => return outcome,
            }
        }
    }

    /// The project's subscriptions as they are now (soft-deleted ones are
    /// not listed).
    async fn read_subscriptions(&self) -> anyhow::Result<Held> {
        let options = FetchAll {
            page_size: CHECK_PAGE,
            concurrency: 2,
            ..FetchAll::default()
        };
        let list = List::subscriptions(self.project, &SubscriptionFilter::default());
        let mut held = HashMap::new();
        for _ in 0..self.listed.div_ceil(CHECK_PAGE).max(1) {
            self.pace.turn().await;
        }
        // Read whole or refused: a step is never checked against half a list.
        let _whole = self
            .client
            .for_each_page(&list, &options, |rows| {
                for row in rows {
                    held.insert(row.id, entry_of(&row));
                }
                Ok::<_, crate::api::Error>(())
            })
            .await?;
        Ok(Arc::new(held))
    }

    /// One subscription as it is now; `None` when soft-deleted or gone.
    async fn subscription_now(&self, id: i64) -> Result<Option<Fields>, String> {
        match self.paced(|| self.client.subscription(self.project, id)).await {
            Ok(found) if found.deleted => Ok(None),
            Ok(found) => Ok(Some(fields_of(&found))),
            Err(error) if error.status() == Some(404) => Ok(None),
            Err(error) => Err(format!("cannot read it again before the step: {error}")),
        }
    }

    async fn step(
        &self,
        step: &Step,
        roles: Option<&Result<HashMap<String, RoleRead>, String>>,
        subscriptions: Option<&Result<Held, String>>,
        created: &Mutex<HashMap<usize, String>>,
    ) -> Done {
        let roles = match roles {
            Some(Ok(roles)) => Some(roles),
            Some(Err(error)) => {
                return Done::Failed(format!("cannot read the roles again before the step: {error}"));
            }
            None => None,
        };
        match step {
            Step::CreateRole { index, body } => self.create_role(*index, body, roles, created).await,
            Step::UpdateRole { id, before, body } => {
                let Some(now) = roles.and_then(|roles| roles.get(id)) else {
                    return Done::Refused("the role was deleted since the plan".into());
                };
                let after = RoleRead {
                    name: body.name.clone().unwrap_or_else(|| before.name.clone()),
                    feature_flags_access_level: body
                        .feature_flags_access_level
                        .or(before.feature_flags_access_level),
                    members: now.members.clone(),
                };
                let same = |read: &RoleRead| {
                    read.name == now.name && read.feature_flags_access_level == now.feature_flags_access_level
                };
                if same(&after) {
                    return Done::Already("already as planned".into());
                }
                if !same(before) {
                    return Done::Refused(role_changes(before, now));
                }
                match self
                    .paced(|| self.client.update_role(self.organization, id, body))
                    .await
                {
                    Ok(_) => Done::Made(None, None),
                    Err(error) => Done::Failed(error.to_string()),
                }
            }
            Step::AddMember {
                role, email, user, ..
            } => {
                let role_id = match role {
                    RoleRef::Existing(id) => id.clone(),
                    RoleRef::Created(index) => {
                        match created.lock().ok().and_then(|held| held.get(index).cloned()) {
                            Some(id) => id,
                            None => return Done::Failed("skipped: the role was not created".into()),
                        }
                    }
                };
                let now = roles.and_then(|roles| roles.get(&role_id));
                if let RoleRef::Existing(_) = role {
                    let Some(now) = now else {
                        return Done::Refused("the role was deleted since the plan".into());
                    };
                    if now.members.contains_key(&email.to_lowercase()) {
                        return Done::Already("already a member".into());
                    }
                } else if now.is_some_and(|now| now.members.contains_key(&email.to_lowercase())) {
                    return Done::Already("already a member".into());
                }
                if user.is_empty() {
                    return Done::Failed("not a member of the organization".into());
                }
                match self
                    .paced(|| self.client.add_member(self.organization, &role_id, user))
                    .await
                {
                    Ok(_) => Done::Made(None, None),
                    Err(error) => Done::Failed(error.to_string()),
                }
            }
            Step::RemoveMember {
                role,
                email,
                membership,
                ..
            } => {
                let Some(now) = roles.and_then(|roles| roles.get(role)) else {
                    return Done::Already("the role is gone, and its memberships with it".into());
                };
                match now.members.get(&email.to_lowercase()) {
                    None => Done::Already("no longer a member".into()),
                    Some(held) if held != membership => Done::Refused(format!(
                        "{email} left the role and joined it again since the plan; the membership reviewed is gone, and the new one is not removed"
                    )),
                    Some(_) => match self
                        .paced(|| self.client.remove_member(self.organization, role, membership))
                        .await
                    {
                        Ok(()) => Done::Made(None, None),
                        Err(error) if error.status() == Some(404) => {
                            Done::Already("no longer a member".into())
                        }
                        Err(error) => Done::Failed(error.to_string()),
                    },
                }
            }
            Step::DeleteRole { id, before } => {
                let Some(now) = roles.and_then(|roles| roles.get(id)) else {
                    return Done::Already("already deleted".into());
                };
                if now != before {
                    return Done::Refused(role_changes(before, now));
                }
                match self
                    .paced(|| self.client.delete_role(self.organization, id))
                    .await
                {
                    Ok(()) => Done::Made(None, None),
                    Err(error) => Done::Failed(error.to_string()),
                }
            }
            Step::CreateSubscription {
                index,
                label,
                entry,
                body,
            } => self.create_subscription(*index, label, entry, body).await,
            Step::UpdateSubscription {
                id,
                before,
                after,
                body,
                ..
            } => {
                let now = match self.now(*id, subscriptions).await {
                    Ok(Some(now)) => now,
                    Ok(None) => return Done::Refused("the subscription was deleted since the plan".into()),
                    Err(error) => return Done::Failed(error),
                };
                let wanted: Fields = before
                    .iter()
                    .map(|(field, value)| (field.clone(), after.get(field).unwrap_or(value).clone()))
                    .collect();
                if now == wanted {
                    return Done::Already("already as planned".into());
                }
                if now != *before {
                    return Done::Refused(changes(before, &now));
                }
                match self
                    .paced(|| self.client.update_subscription(self.project, *id, body))
                    .await
                {
                    Ok(_) => Done::Made(None, None),
                    Err(error) => Done::Failed(error.to_string()),
                }
            }
            Step::SetRule {
                project,
                resource,
                object,
                subject,
                before,
                level,
                ..
            } => {
                super::access_rules::run_step(
                    self,
                    *project,
                    resource,
                    object.as_deref(),
                    subject,
                    before.as_ref(),
                    level.as_ref(),
                    created,
                )
                .await
            }
            Step::SoftDeleteSubscription { id, before, .. } => {
                let now = match self.now(*id, subscriptions).await {
                    Ok(Some(now)) => now,
                    Ok(None) => return Done::Already("already deleted".into()),
                    Err(error) => return Done::Failed(error),
                };
                if now != *before {
                    return Done::Refused(changes(before, &now));
                }
                match self
                    .paced(|| self.client.soft_delete_subscription(self.project, *id))
                    .await
                {
                    Ok(_) => Done::Made(None, None),
                    Err(error) => Done::Failed(error.to_string()),
                }
            }
        }
    }

    /// A subscription as it is now, from the batch's read or a GET.
    async fn now(&self, id: i64, read: Option<&Result<Held, String>>) -> Result<Option<Fields>, String> {
        match read {
            Some(Ok(held)) => Ok(held.get(&id).map(as_written)),
            Some(Err(error)) => Err(format!(
                "cannot read the subscriptions again before the step: {error}"
            )),
            None => self.subscription_now(id).await,
        }
    }

    async fn create_role(
        &self,
        index: usize,
        body: &crate::api::RoleInput,
        roles: Option<&HashMap<String, RoleRead>>,
        created: &Mutex<HashMap<usize, String>>,
    ) -> Done {
        let name = body.name.clone().unwrap_or_default();
        let remember = |id: &str| {
            if let Ok(mut held) = created.lock() {
                held.insert(index, id.to_string());
            }
        };
        // Roles are matched by name: one of that name made since the plan
        // (or by an apply interrupted before its id reached the file) is
        // this entry's.
        if let Some(id) = self.role_ids.get(index).cloned().flatten() {
            remember(&id);
            return Done::Already(format!("in the file as {id}"));
        }
        let existing = roles.and_then(|roles| {
            roles
                .iter()
                .find(|(_, role)| role.name.to_lowercase() == name.to_lowercase())
        });
        let (id, made) = match existing {
            Some((id, _)) => (id.clone(), false),
            None => match self
                .paced(|| self.client.create_role(self.organization, body))
                .await
            {
                Ok(role) => (role.id.clone(), true),
                Err(error) => return Done::Failed(error.to_string()),
            },
        };
        remember(&id);
        let written = self.write_id(&NewId::Role {
            index,
            id: id.clone(),
        });
        match (made, written) {
            (true, None) => Done::Made(Some(id), None),
            (true, Some(note)) => Done::Made(Some(id), Some(note)),
            (false, None) => Done::Already(format!(
                "a role of this name exists ({id}); its id is now in the file"
            )),
            (false, Some(note)) => Done::Already(format!("a role of this name exists ({id}); {note}")),
        }
    }

    async fn create_subscription(&self, index: usize, label: &str, entry: &Fields, body: &Value) -> Done {
        if let Some(id) = self.subscription_ids.get(index).copied().flatten() {
            return Done::Already(format!("in the file as {id}"));
        }
        let sending = Sending {
            index,
            label: label.to_string(),
            entry: Value::Object(entry.clone()),
            body: body.clone(),
            host: self.host.to_string(),
            project: self.project_id,
            at: chrono::Utc::now(),
            id: None,
        };
        if let Err(error) = self.journal(|lock| lock.sending(&sending)) {
            return Done::Failed(format!("not sent: cannot write the lock's journal ({error})"));
        }
        match self
            .paced(|| self.client.create_subscription(self.project, body))
            .await
        {
            Ok(made) => {
                let note = self.write_id(&NewId::Subscription { index, id: made.id });
                match note {
                    None => {
                        let _ = self.journal(|lock| lock.settled(index));
                    }
                    Some(_) => {
                        let _ = self.journal(|lock| lock.answered(index, made.id));
                    }
                }
                Done::Made(Some(made.id.to_string()), note)
            }
            // Whether it was made cannot be told: the journal keeps it, and
            // the next apply looks for it before creating anything.
            Err(error @ crate::api::Error::CreateUnknown { .. }) => Done::Failed(format!(
                "{error}; the next apply looks for it before creating anything"
            )),
            Err(error) => {
                let _ = self.journal(|lock| lock.settled(index));
                Done::Failed(error.to_string())
            }
        }
    }

    fn journal(&self, write: impl FnOnce(&mut Lock) -> std::io::Result<()>) -> std::io::Result<()> {
        match self.lock.lock() {
            Ok(mut lock) => write(&mut lock),
            Err(_) => Err(std::io::Error::other("the journal is unusable")),
        }
    }

    /// Writes a new id into the file; a note when it could not be.
    fn write_id(&self, new: &NewId) -> Option<String> {
        let written = match self.writeback.lock() {
            Ok(mut writeback) => writeback.write(new),
            Err(_) => return Some("the id could not be written into the file".into()),
        };
        match written {
            Ok(()) => None,
            Err(error @ Unwritten::Changed(_)) => {
                Some(format!("{error}; the next apply writes it (the lock keeps it)"))
            }
            Err(error) => Some(format!("{error}; the next apply writes it (the lock keeps it)")),
        }
    }
}
