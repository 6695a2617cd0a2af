//! `orgdeck apply FILE`: the plan, asked once, then done in a safe order
//! (roles, then their members, then removed roles; subscriptions with
//! their insights resolved, then soft deletes), a few requests at a time,
//! each step's result said; a failed step does not stop the others.

use std::collections::HashMap;
use std::io::{BufRead as _, Write as _};
use std::path::PathBuf;

use futures_util::StreamExt;
use serde::Serialize;
use serde_json::json;

use super::diff::{self, Action, Change, Live, Plan, Prune};
use super::file::{self, CodeFile, InsightRef, SubscriptionEntry};
use super::writeback::{self, NewId};
use super::{failure, invalid};
use crate::api::{Client, Frequency, RoleInput, SubscriptionInput, TargetType, Weekday};
use crate::cli::connection::Connection;
use crate::cli::output::{self, Format};
use crate::text::printable;

/// Requests in flight at once.
const AT_ONCE: usize = 4;

#[derive(Debug, clap::Args)]
pub struct ApplyArgs {
    /// The file of `orgdeck export`, edited (TOML or JSON).
    file: PathBuf,
    /// Also remove what is not in the file: role members and subscriptions
    /// (soft delete, never a hard one); `--prune=roles` deletes roles too.
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "members", value_enum)]
    prune: Option<Prune>,
    /// Apply without asking.
    #[arg(long)]
    yes: bool,
    /// Write each step and its result to this file, as JSON.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
}

/// One request and how it went.
#[derive(Debug, Clone, Serialize)]
struct Step {
    step: String,
    ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

impl Step {
    fn line(&self) -> String {
        match (&self.error, &self.id) {
            (Some(error), _) => format!("✗ {}: {}\n", printable(&self.step), printable(error)),
            (None, Some(id)) => format!("✓ {} ({})\n", printable(&self.step), printable(id)),
            (None, None) => format!("✓ {}\n", printable(&self.step)),
        }
    }
}

pub async fn apply(args: ApplyArgs, connection: Connection, format: Format) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(&args.file)
        .map_err(|error| failure(format!("cannot read {}: {error}", args.file.display())))?;
    let wanted = file::parse(&text).map_err(|problems| invalid(&args.file, &problems))?;
    let (live, _) = super::fetch(
        &connection,
        wanted.roles.is_some(),
        wanted.subscriptions.is_some(),
    )
    .await?;
    let plan = super::checked_plan(&connection.client, &args.file, &wanted, &live, args.prune).await?;
    if plan.is_empty() {
        return match format {
            Format::Json => output::print_json(&json!({"plan": plan.to_json(), "steps": []})),
            Format::Table => output::print("Nothing to do: the server matches the file.\n"),
        };
    }
    if format == Format::Table {
        output::print(&plan.to_text())?;
    }
    if !args.yes && !confirmed()? {
        return Err(failure(
            "not applied: nothing was changed (answer yes to apply)".into(),
        ));
    }
    let client = &connection.client;
    let project = live.file.header.project.to_string();
    let today = if wanted.subscriptions.is_some() {
        client.is_todays_posthog(&project).await?
    } else {
        false
    };
    let run = Run {
        client,
        pace: Pace::cloud(),
        organization: &live.file.header.organization,
        project: &project,
        today,
        live: &live,
        wanted: &wanted,
    };
    let (steps, ids) = run.all(&plan, format).await;
    if !ids.is_empty() {
        let updated = writeback::with_ids(&text, &ids)?;
        std::fs::write(&args.file, updated).map_err(|error| {
            anyhow::anyhow!(
                "applied, but cannot write the new ids to {}: {error}",
                args.file.display()
            )
        })?;
    }
    if let Some(path) = &args.record {
        let mut record = output::to_safe_string(&json!({"file": args.file, "steps": steps}))?;
        record.push('\n');
        std::fs::write(path, record)
            .map_err(|error| anyhow::anyhow!("cannot write the record {}: {error}", path.display()))?;
    }
    if format == Format::Json {
        output::print_json(&json!({"plan": plan.to_json(), "steps": steps}))?;
    }
    let failed: Vec<&Step> = steps.iter().filter(|step| !step.ok).collect();
    if failed.is_empty() {
        if format == Format::Table {
            output::print(&format!("\nApplied: {} steps done.\n", steps.len()))?;
        }
        return Ok(());
    }
    let mut message = format!(
        "{} of {} steps failed (the others were done):",
        failed.len(),
        steps.len()
    );
    for step in failed {
        message.push_str(&format!(
            "\n  {}: {}",
            step.step,
            step.error.as_deref().unwrap_or("")
        ));
    }
    Err(failure(message))
}

/// Asks once on the terminal (stderr) and reads the answer from stdin.
fn confirmed() -> anyhow::Result<bool> {
    eprint!("Apply these changes? Only 'yes' applies them: ");
    std::io::stderr().flush()?;
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    Ok(line.trim() == "yes")
}

struct Run<'a> {
    client: &'a Client,
    pace: Pace,
    organization: &'a str,
    project: &'a str,
    today: bool,
    live: &'a Live,
    wanted: &'a CodeFile,
}

/// A step to take: what it says, and the request.
type Job<'a> = (
    String,
    futures_util::future::BoxFuture<'a, Result<Option<String>, String>>,
);

impl<'a> Run<'a> {
    /// One request in its turn; a 429 (the write was not taken) waits as
    /// asked and goes again, three times at most.
    async fn paced<T, F, Fut>(&self, mut send: F) -> Result<T, String>
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
                    let wait = refusal.retry_after().unwrap_or(std::time::Duration::from_secs(1));
                    tokio::time::sleep(wait.min(std::time::Duration::from_secs(60))).await;
                }
                outcome => return outcome.map_err(|error| error.to_string()),
            }
        }
    }

    /// Runs the jobs a few at a time, printing each result as it comes.
    async fn phase(&self, jobs: Vec<Job<'a>>, format: Format, steps: &mut Vec<Step>) -> Vec<Step> {
        let done: Vec<Step> = futures_util::stream::iter(jobs.into_iter().map(|(step, job)| async move {
            match job.await {
                Ok(id) => Step {
                    step,
                    ok: true,
                    id,
                    error: None,
                },
                Err(error) => Step {
                    step,
                    ok: false,
                    id: None,
                    error: Some(error),
                },
            }
        }))
        .buffered(AT_ONCE)
        .collect()
        .await;
        if format == Format::Table {
            let text: String = done.iter().map(Step::line).collect();
            let _ = output::print(&text);
        }
        steps.extend(done.iter().cloned());
        done
    }

    async fn all(&self, plan: &Plan, format: Format) -> (Vec<Step>, Vec<NewId>) {
        if format == Format::Table {
            let _ = output::print("\n");
        }
        let mut steps = Vec::new();
        let mut ids = Vec::new();
        let roles: Vec<&Change> = plan
            .changes
            .iter()
            .filter(|change| change.kind == "role")
            .collect();
        let subscriptions: Vec<&Change> = plan
            .changes
            .iter()
            .filter(|change| change.kind == "subscription")
            .collect();

        // 1. Roles created and renamed.
        let mut jobs: Vec<Job> = Vec::new();
        let mut role_of_job = Vec::new();
        for change in roles.iter().filter(|change| change.action != Action::Remove) {
            let renamed = change.fields.iter().any(|field| field.field == "name");
            if change.action == Action::Create || renamed {
                let input = RoleInput {
                    name: Some(change.name.clone()),
                    feature_flags_access_level: None,
                };
                let (step, job): Job = match (&change.action, &change.id) {
                    (Action::Change, Some(id)) => {
                        let id = id.clone();
                        (
                            format!("rename role \"{}\"", change.name),
                            Box::pin(async move {
                                self.paced(|| self.client.update_role(self.organization, &id, &input))
                                    .await
                                    .map(|_| None)
                            }),
                        )
                    }
                    _ => (
                        format!("create role \"{}\"", change.name),
                        Box::pin(async move {
                            self.paced(|| self.client.create_role(self.organization, &input))
                                .await
                                .map(|role| Some(role.id.clone()))
                        }),
                    ),
                };
                jobs.push((step, job));
                role_of_job.push(*change);
            }
        }
        let done = self.phase(jobs, format, &mut steps).await;
        // Each role's id: the server's, the new one, or none when its creation failed.
        let mut role_ids: HashMap<usize, Option<String>> = HashMap::new();
        for (change, step) in role_of_job.iter().zip(&done) {
            if change.action == Action::Create {
                let id = step.id.clone().filter(|_| step.ok);
                if let (Some(index), Some(id)) = (change.index, &id) {
                    ids.push(NewId::Role {
                        index,
                        id: id.clone(),
                    });
                }
                role_ids.insert(change.index.unwrap_or(usize::MAX), id);
            }
        }

        // 2. Members added and removed, once their role is there.
        let mut jobs: Vec<Job> = Vec::new();
        for change in roles.iter().filter(|change| change.action != Action::Remove) {
            let role_id = match change.action {
                Action::Create => role_ids
                    .get(&change.index.unwrap_or(usize::MAX))
                    .cloned()
                    .flatten(),
                _ => change.id.clone(),
            };
            for email in &change.members_added {
                let step = format!("add {email} to role \"{}\"", change.name);
                let uuid = self.live.member_uuids.get(&email.to_lowercase()).cloned();
                let role_id = role_id.clone();
                jobs.push((
                    step,
                    Box::pin(async move {
                        let role_id = role_id.ok_or("skipped: the role was not created")?;
                        let uuid = uuid.ok_or("not a member of the organization")?;
                        self.paced(|| self.client.add_member(self.organization, &role_id, &uuid))
                            .await
                            .map(|_| None)
                    }),
                ));
            }
            for email in &change.members_removed {
                let step = format!("remove {email} from role \"{}\"", change.name);
                let membership = role_id
                    .as_ref()
                    .and_then(|id| self.live.memberships.get(id))
                    .and_then(|memberships| memberships.get(&email.to_lowercase()))
                    .cloned();
                let role_id = role_id.clone();
                jobs.push((
                    step,
                    Box::pin(async move {
                        let (Some(role_id), Some(membership)) = (role_id, membership) else {
                            return Err("no such membership".to_string());
                        };
                        self.paced(|| {
                            self.client
                                .remove_member(self.organization, &role_id, &membership)
                        })
                        .await
                        .map(|_| None)
                    }),
                ));
            }
        }
        self.phase(jobs, format, &mut steps).await;

        // 3. Roles removed (only with --prune=roles).
        let mut jobs: Vec<Job> = Vec::new();
        for change in roles.iter().filter(|change| change.action == Action::Remove) {
            let id = change.id.clone().unwrap_or_default();
            jobs.push((
                format!("delete role \"{}\"", change.name),
                Box::pin(async move {
                    self.paced(|| self.client.delete_role(self.organization, &id))
                        .await
                        .map(|_| None)
                }),
            ));
        }
        self.phase(jobs, format, &mut steps).await;

        // 4. Subscriptions created and changed, then soft-deleted.
        let entries = self.wanted.subscriptions.as_deref().unwrap_or_default();
        let mut jobs: Vec<Job> = Vec::new();
        let mut created = Vec::new();
        for change in subscriptions
            .iter()
            .filter(|change| change.action != Action::Remove)
        {
            let Some(entry) = change.index.and_then(|index| entries.get(index)) else {
                continue;
            };
            let entry = diff::resolve(entry, self.live, &mut |_, _| {});
            let mut body = input(&entry, &self.live.insights);
            body.send_test_now = self.today.then_some(false);
            match (change.action, entry.id) {
                (Action::Change, Some(id)) => {
                    let mut names: Vec<&str> =
                        change.fields.iter().map(|field| api_name(&field.field)).collect();
                    if self.today {
                        names.push("send_test_now");
                    }
                    let body = body.only(&names);
                    jobs.push((
                        format!("change subscription \"{}\" ({id})", change.name),
                        Box::pin(async move {
                            self.paced(|| self.client.update_subscription(self.project, id, &body))
                                .await
                                .map(|_| None)
                        }),
                    ));
                }
                _ => {
                    created.push(change.index);
                    jobs.push((
                        format!("create subscription \"{}\"", change.name),
                        Box::pin(async move {
                            self.paced(|| self.client.create_subscription(self.project, &body))
                                .await
                                .map(|subscription| Some(subscription.id.to_string()))
                        }),
                    ));
                }
            }
        }
        let done = self.phase(jobs, format, &mut steps).await;
        let mut created = created.into_iter();
        for step in &done {
            if !step.step.starts_with("create ") {
                continue;
            }
            let index = created.next().flatten();
            if let (Some(index), true, Some(id)) =
                (index, step.ok, step.id.as_ref().and_then(|id| id.parse().ok()))
            {
                ids.push(NewId::Subscription { index, id });
            }
        }
        let mut jobs: Vec<Job> = Vec::new();
        for change in subscriptions
            .iter()
            .filter(|change| change.action == Action::Remove)
        {
            let Some(id) = change.id.as_ref().and_then(|id| id.parse::<i64>().ok()) else {
                continue;
            };
            jobs.push((
                format!("soft-delete subscription \"{}\" ({id})", change.name),
                Box::pin(async move {
                    self.paced(|| self.client.soft_delete_subscription(self.project, id))
                        .await
                        .map(|_| None)
                }),
            ));
        }
        self.phase(jobs, format, &mut steps).await;
        (steps, ids)
    }
}

/// The API's name of a field of the file.
fn api_name(field: &str) -> &str {
    match field {
        "export_insights" => "dashboard_export_insights",
        "integration" => "integration_id",
        other => other,
    }
}

/// The write body of a subscription entry, every field set.
fn input(entry: &SubscriptionEntry, insights: &HashMap<String, i64>) -> SubscriptionInput {
    let id_of = |reference: &InsightRef| match reference {
        InsightRef::Short(short) => insights.get(short).copied(),
        InsightRef::Id(id) => Some(*id),
    };
    let date = |text: &str| {
        chrono::DateTime::parse_from_rfc3339(text)
            .ok()
            .map(|at| at.with_timezone(&chrono::Utc))
    };
    SubscriptionInput {
        dashboard: Some(entry.dashboard),
        insight: Some(entry.insight.as_ref().and_then(id_of)),
        target_type: Some(TargetType::from_wire(&entry.target_type)),
        target_value: Some(entry.target_value.clone()),
        frequency: Some(Frequency::from_wire(&entry.frequency)),
        interval: Some(entry.interval),
        byweekday: Some(Some(
            entry
                .byweekday
                .iter()
                .map(|day| Weekday::from_wire(day))
                .collect(),
        )),
        bysetpos: Some(entry.bysetpos),
        count: Some(entry.count),
        start_date: date(&entry.start_date),
        until_date: Some(entry.until_date.as_deref().and_then(date)),
        title: Some(entry.title.clone()),
        invite_message: Some(entry.invite_message.clone()),
        dashboard_export_insights: entry
            .dashboard
            .map(|_| entry.export_insights.iter().filter_map(id_of).collect()),
        prompt: entry.prompt.clone().map(Some),
        enabled: Some(entry.enabled),
        integration_id: Some(entry.integration),
        ..SubscriptionInput::default()
    }
}

/// PostHog Cloud's limits on a key, 480 requests a minute and 4,800 an
/// hour, kept with room to spare: two token buckets, each request waiting
/// for a token of both.
pub struct Pace {
    buckets: tokio::sync::Mutex<[Bucket; 2]>,
}

struct Bucket {
    /// May go below zero: requests queued for later tokens.
    tokens: f64,
    capacity: f64,
    per_second: f64,
    at: tokio::time::Instant,
}

impl Bucket {
    fn new(capacity: f64, per_second: f64) -> Bucket {
        Bucket {
            tokens: capacity,
            capacity,
            per_second,
            at: tokio::time::Instant::now(),
        }
    }

    /// Takes a token; returns how long until it is there.
    fn take(&mut self, now: tokio::time::Instant) -> std::time::Duration {
        let elapsed = now.saturating_duration_since(self.at).as_secs_f64();
        self.tokens = (self.tokens + elapsed * self.per_second).min(self.capacity);
        self.at = now;
        self.tokens -= 1.0;
        if self.tokens >= 0.0 {
            std::time::Duration::ZERO
        } else {
            std::time::Duration::from_secs_f64(-self.tokens / self.per_second)
        }
    }
}

impl Pace {
    /// 40 at once, then 7 a second (at most 460 in any minute); 4,000 at
    /// once over the hour, then 4,800 an hour.
    pub fn cloud() -> Pace {
        Pace {
            buckets: tokio::sync::Mutex::new([
                Bucket::new(40.0, 7.0),
                Bucket::new(4_000.0, 4_800.0 / 3_600.0),
            ]),
        }
    }

    /// Waits for this request's turn.
    pub async fn turn(&self) {
        let wait = {
            let mut buckets = self.buckets.lock().await;
            wait_at(&mut buckets, tokio::time::Instant::now())
        };
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
    }
}

/// How long a request arriving `now` waits for a token of each bucket.
fn wait_at(buckets: &mut [Bucket; 2], now: tokio::time::Instant) -> std::time::Duration {
    let [minute, hour] = buckets;
    minute.take(now).max(hour.take(now))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 600 requests at once: a burst of 40, then 7 a second, never more
    /// than 480 in any minute (times computed, not slept).
    #[test]
    fn requests_keep_under_the_cloud_limit() {
        let Pace { buckets } = Pace::cloud();
        let mut buckets = buckets.into_inner();
        let start = tokio::time::Instant::now();
        let times: Vec<f64> = (0..600)
            .map(|_| wait_at(&mut buckets, start).as_secs_f64())
            .collect();
        assert_eq!(times.iter().filter(|at| **at == 0.0).count(), 40);
        for (index, at) in times.iter().enumerate() {
            let in_minute = times[index..]
                .iter()
                .take_while(|later| **later < at + 60.0)
                .count();
            assert!(in_minute <= 480, "{in_minute} requests in the minute from {at}");
        }
        assert!((times[599] - 560.0 / 7.0).abs() < 0.01, "{}", times[599]);
    }
}
