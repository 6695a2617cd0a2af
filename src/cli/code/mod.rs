//! `orgdeck export` and `orgdeck plan`: roles, subscriptions and access
//! rules as code. The file model is in [`file`], the comparison in
//! [`diff`] (access rules in [`access_rules`]), the steps of a plan in
//! [`steps`] (saved by `plan --save`, see [`saved`]) and how `apply` runs
//! them in [`run`], under the file's [`lock`]. What grows with the
//! organization is set aside rather than held: the subscriptions
//! ([`spill`]), the members and each role's memberships, sorted
//! outside memory ([`members_aside`], [`sorted`]), and the members the
//! file's roles name, as a TOML file is read a line at a time
//! ([`file::read`], [`file::members`]); `apply` writes ids back by a copy
//! of the file from disk ([`writeback`]), never its text held.

pub mod access_rules;
pub mod apply;
mod caller;
pub mod diff;
pub mod file;
pub mod lock;
mod members_aside;
pub mod pace;
pub mod run;
pub mod saved;
mod sorted;
mod spill;
pub mod steps;
pub mod writeback;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use futures_util::{StreamExt, TryStreamExt};

use super::Exit;
use super::connection::Connection;
use super::output::{self, Format};
use crate::api::{Client, FetchAll, List, NamedItem, RoleMembership, Subscription};
use diff::{Live, Prune};
use file::{CodeFile, Header, InsightRef, Names, RoleEntry, SubscriptionEntry};

#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// Roles only (with --subscriptions too: both, as without either).
    #[arg(long)]
    roles: bool,
    /// Subscriptions only.
    #[arg(long)]
    subscriptions: bool,
    /// Each project's access rules (alone, or with --roles and
    /// --subscriptions: those too).
    #[arg(long)]
    access: bool,
    /// Print a JSON Schema of the file, for editors, and nothing else.
    #[arg(long, conflicts_with_all = ["roles", "subscriptions", "access", "file"])]
    schema: bool,
    /// Write the file here rather than to stdout.
    file: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct PlanArgs {
    /// The file of `orgdeck export`, edited (TOML or JSON).
    file: PathBuf,
    /// Also remove what is not in the file: role members and subscriptions
    /// (soft delete); `--prune=roles` removes roles too.
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "members", value_enum)]
    prune: Option<Prune>,
    /// Save the exact plan here (owner-only; a symbolic link is refused):
    /// `orgdeck apply PLAN` applies it, within an hour.
    #[arg(long, value_name = "PLAN")]
    save: Option<PathBuf>,
    /// Accepted for symmetry with the commands that change things: `plan`
    /// never changes anything, with or without it.
    #[arg(long)]
    dry_run: bool,
}

/// Whether export needs the server at all (`--schema` does not).
pub fn export_is_offline(args: &ExportArgs) -> bool {
    args.schema
}

/// `orgdeck export --schema`.
pub fn print_schema() -> anyhow::Result<()> {
    output::print_json(&file::schema())
}

pub async fn export(args: ExportArgs, connection: Connection, format: Format) -> anyhow::Result<()> {
    let only_access = args.access && !args.roles && !args.subscriptions;
    let both = args.roles == args.subscriptions && !only_access;
    let (mut live, names) = fetch(&connection, false, false).await?;
    // Each role's members are set aside, sorted, as they are walked
    // ([`members_aside`]), and written back a member at a time.
    let role_members = match args.roles || both {
        true => {
            let organization = live.file.header.organization.clone();
            let (entries, members): (Vec<RoleEntry>, Vec<sorted::Sorted>) =
                members_aside::read(&connection.client, &organization)
                    .await?
                    .into_iter()
                    .unzip();
            live.file.roles = Some(entries);
            Some(members)
        }
        false => None,
    };
    // The subscriptions are set aside as they are walked and written an
    // entry at a time, in id order ([`spill`]).
    let spilled = match args.subscriptions || both {
        true => Some(spill::Spilled::read(&connection.client, &live.file.header.project.to_string()).await?),
        false => None,
    };
    access_rules::read_into(&connection, &mut live, args.access).await?;
    if args.access {
        for note in &live.access.notes {
            eprintln!("orgdeck: note: {}", crate::text::printable(note));
        }
        live.file.access = Some(live.access.rules.clone());
    }
    live.file.subscriptions = spilled.as_ref().map(|_| Vec::new());
    let aside = spill::Aside {
        role_members: role_members.as_deref(),
        subscriptions: spilled.as_ref(),
    };
    let write = |out: &mut dyn std::io::Write| spill::write(out, format, &live.file, &names, &aside);
    match &args.file {
        Some(path) => crate::config::files::replace_keeping_mode_with(path, |out| write(out))
            .map_err(|error| anyhow::anyhow!("cannot write {}: {error:#}", path.display())),
        None => {
            let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
            let written = write(&mut stdout).and_then(|()| Ok(std::io::Write::flush(&mut stdout)?));
            written.map_err(|error| match error.downcast::<std::io::Error>() {
                Ok(error) => output::output_error(error),
                Err(error) => error,
            })
        }
    }
}

/// `orgdeck plan FILE`: exit 0 with nothing to do, 2 with changes, 1 on
/// an error (Terraform's `-detailed-exitcode`).
pub async fn plan(args: PlanArgs, connection: Connection, format: Format) -> anyhow::Result<()> {
    // `--dry-run` changes nothing here: plan changes nothing either way.
    tracing::debug!(
        dry_run = args.dry_run,
        "plan changes nothing; --dry-run is accepted for symmetry"
    );
    // Read a line at a time, the roles' members set aside ([`file::read`]).
    let (wanted, _) = read_file(&args.file)?;
    let (mut live, _) = fetch(
        &connection,
        wanted.roles.is_some(),
        wanted.subscriptions.is_some(),
    )
    .await
    .map_err(|error| failure(format!("{error:#}")))?;
    access_rules::read_into(&connection, &mut live, wanted.access.is_some())
        .await
        .map_err(|error| failure(format!("{error:#}")))?;
    let plan = checked_plan(&connection.client, &args.file, &wanted, &live, args.prune).await?;
    access_rules::read_for_preview(&connection, &mut live, &wanted, &plan).await;
    let preview = access_rules::preview(&wanted, &live, &plan);
    let unsettled = lock::unsettled(&args.file);
    if !unsettled.is_empty() {
        eprintln!(
            "orgdeck: warning: an apply of {} was interrupted with {} unanswered; the plan may show {} as to add, and `orgdeck apply` looks for {} before creating anything",
            crate::text::printable(&args.file.display().to_string()),
            crate::text::counted(unsettled.len(), "create"),
            if unsettled.len() == 1 { "it" } else { "them" },
            if unsettled.len() == 1 { "it" } else { "them" },
        );
    }
    if let Some(path) = &args.save {
        save_plan(&connection, &args.file, path, &wanted, &live, &plan)
            .await
            .map_err(|error| failure(format!("{error:#}")))?;
    }
    match (format, &preview) {
        (Format::Json, Some(effect)) => {
            let mut json = plan.to_json();
            json["preview"] = serde_json::to_value(effect)?;
            output::print_json(&json)?
        }
        (Format::Json, None) => output::print_json(&plan.to_json())?,
        (Format::Table, _) => output::print(&access_rules::with_preview(plan.to_text(), preview.as_ref()))?,
    }
    if let (Some(path), Format::Table) = (&args.save, format) {
        output::print(&format!(
            "\nSaved the plan to {}: `orgdeck apply {}` applies exactly it, within {} minutes.\n",
            crate::text::printable(&path.display().to_string()),
            crate::text::printable(&path.display().to_string()),
            saved::MAX_AGE.num_minutes()
        ))?;
    }
    if plan.is_empty() {
        Ok(())
    } else {
        Err(Exit {
            code: 2,
            message: "the plan has changes (exit 2, as Terraform's -detailed-exitcode)".into(),
        }
        .into())
    }
}

/// Writes the plan's steps, and what they read, to `path`.
async fn save_plan(
    connection: &Connection,
    file: &std::path::Path,
    path: &std::path::Path,
    wanted: &CodeFile,
    live: &Live,
    plan: &diff::Plan,
) -> anyhow::Result<()> {
    let today = if steps::writes_subscriptions(plan) {
        connection
            .client
            .is_todays_posthog(&live.file.header.project.to_string())
            .await?
    } else {
        false
    };
    let steps = steps::build(plan, wanted, live, &live.subscriptions_of(plan)?, today)?;
    let saved = saved::SavedPlan {
        orgdeck_plan: 1,
        made_at: crate::clock::Clock::system().now(),
        host: live.file.header.host.clone(),
        organization: live.file.header.organization.clone(),
        project: live.file.header.project,
        file: std::fs::canonicalize(file)?,
        fingerprint: saved::fingerprint(wanted, &steps)?,
        listed: live.listed(),
        plan: plan.clone(),
        steps,
    };
    saved.save(path)
}

/// The plan, once the file has passed the server's checks too; else
/// every problem, exit 1.
async fn checked_plan(
    client: &Client,
    path: &std::path::Path,
    wanted: &CodeFile,
    live: &Live,
    prune: Option<Prune>,
) -> anyhow::Result<diff::Plan> {
    let slack = check_slack(client, live, wanted)
        .await
        .map_err(|error| failure(format!("{error:#}")))?;
    let planned = diff::plan(wanted, live, prune).and_then(|mut plan| {
        let problems = access_rules::plan_into(wanted, live, prune, &mut plan);
        if problems.is_empty() {
            Ok(plan)
        } else {
            Err(problems)
        }
    });
    match planned {
        Ok(plan) if slack.is_empty() => Ok(plan),
        Ok(_) => Err(invalid(path, &slack)),
        Err(mut problems) => {
            problems.extend(slack);
            problems.sort_by_key(|problem| problem.at.map(|at| (at.line, at.column)));
            Err(invalid(path, &problems))
        }
    }
}

/// The as-code file at `path`, read and checked ([`file::read`]), and
/// what was read of it: a problem of the file is exit 1.
fn read_file(path: &std::path::Path) -> anyhow::Result<(CodeFile, file::Seen)> {
    file::read(path).map_err(|unread| match unread {
        file::Unread::Cannot(message) => failure(message),
        file::Unread::Problems(problems) => invalid(path, &problems),
    })
}

/// An error of plan: exit 1, as Terraform's.
fn failure(message: String) -> anyhow::Error {
    Exit { code: 1, message }.into()
}

/// Every problem of the file, one a line, exit 1: each problem escaped
/// whole, so that a line break or control inside a value of the file can
/// never make a line of its own.
fn invalid(path: &std::path::Path, problems: &[file::Problem]) -> anyhow::Error {
    let mut message = format!(
        "{} has {} problem{}; nothing was compared:",
        path.display(),
        problems.len(),
        if problems.len() == 1 { "" } else { "s" }
    );
    for problem in problems {
        let line = format!("{}: {problem}", path.display());
        message.push_str(&format!("\n  {}", crate::text::printable(&line)));
    }
    failure(message)
}

/// The Slack channels of new subscriptions, and of those whose channel
/// changed, exist through their integration: a problem for each that
/// does not (a few look-ups at a time).
pub async fn check_slack(
    client: &Client,
    live: &Live,
    wanted: &CodeFile,
) -> anyhow::Result<Vec<file::Problem>> {
    let project = live.file.header.project.to_string();
    let mut to_check: Vec<(&SubscriptionEntry, i64)> = Vec::new();
    for entry in wanted.subscriptions.iter().flatten() {
        let Some(integration) = entry.integration.filter(|_| entry.target_type == "slack") else {
            continue;
        };
        let current = match entry.id {
            Some(id) => live.subscription(id)?,
            None => None,
        };
        if current
            .is_none_or(|was| was.target_value != entry.target_value || was.integration != entry.integration)
        {
            to_check.push((entry, integration));
        }
    }
    if to_check.is_empty() {
        return Ok(Vec::new());
    }
    let integrations = client.integrations(&project, "slack").await?.results;
    let project = project.as_str();
    let problems: Vec<Option<file::Problem>> =
        futures_util::stream::iter(to_check.into_iter().map(|(entry, integration)| {
            let known = integrations.iter().find(|found| found.id == integration).cloned();
            async move {
                let problem = |message: String| {
                    Some(file::Problem {
                        at: entry.at,
                        message,
                    })
                };
                let Some(known) = known else {
                    return anyhow::Ok(problem(format!("there is no Slack integration {integration}")));
                };
                let (id, name) = match entry.target_value.split_once('|') {
                    Some((id, name)) => (Some(id.trim()), name.trim().trim_start_matches('#')),
                    None => (None, entry.target_value.trim().trim_start_matches('#')),
                };
                if let Some(id) = id.filter(|id| !id.is_empty()) {
                    if client.channel(project, integration, id).await?.is_some() {
                        return Ok(None);
                    }
                } else {
                    let query = crate::api::ChannelQuery {
                        search: Some(name.to_string()),
                        limit: Some(200),
                        offset: None,
                    };
                    let listed = client.channels(project, integration, &query).await?.channels;
                    if listed
                        .iter()
                        .any(|channel| channel.name.eq_ignore_ascii_case(name))
                    {
                        return Ok(None);
                    }
                }
                Ok(problem(format!(
                    "there is no Slack channel \"{}\" through {}",
                    entry.target_value,
                    known.name()
                )))
            }
        }))
        .buffer_unordered(4)
        .try_collect()
        .await?;
    Ok(problems.into_iter().flatten().collect())
}

fn all_options() -> FetchAll {
    FetchAll::default()
}

/// What the server holds, as a file, with the names its comments give.
pub async fn fetch(
    connection: &Connection,
    roles: bool,
    subscriptions: bool,
) -> anyhow::Result<(Live, Names)> {
    let client = &connection.client;
    let (organization, project) = tokio::try_join!(
        client.organization(&connection.organization),
        client.project(&connection.project),
    )?;
    let org = organization.id.as_str();
    let project_id = project.id.to_string();
    let mut live = Live {
        file: CodeFile {
            header: Header {
                host: client.base_url().as_str().trim_end_matches('/').to_string(),
                organization: organization.id.clone(),
                project: project.id,
            },
            roles: None,
            subscriptions: None,
            access: None,
            members: file::RoleMembers::default(),
        },
        ..Live::default()
    };
    let names = Names {
        organization: organization.name.clone(),
        project: project.name.clone(),
    };
    if roles {
        // The members PostHog embeds in each role (every one) are cut out
        // of the roles' page as it arrives, and each role's memberships
        // read a page at a time instead; they and the organization's
        // members are set aside in order of address ([`members_aside`]).
        let (entries, members) = members_aside::LiveMembers::read(client, org).await?;
        live.file.roles = Some(entries);
        live.members = Arc::new(members);
    }
    if subscriptions {
        let options = all_options();
        let insight_list = List::<NamedItem>::insights(&project_id);
        let dashboard_list = List::<NamedItem>::dashboards(&project_id);
        // Each subscription is set aside as its page arrives, the entry the
        // file and the plan compare, and only its id and place are held
        // ([`spill`]); its insights are named by short id as it is read back.
        let ((mut spilled, named_by_subscriptions), insights, dashboards) = tokio::try_join!(
            spill::Spilled::walk(client, &project_id),
            async { anyhow::Ok(client.all(&insight_list, &options).await?) },
            async { anyhow::Ok(client.all(&dashboard_list, &options).await?) },
        )?;
        for insight in insights {
            if let Some(short) = insight.short_id.filter(|short| !short.is_empty()) {
                live.insights.insert(short.clone(), insight.id);
                live.insight_short.insert(insight.id, short);
            }
        }
        // A subscription names its insight's short id even where the
        // insight list does not.
        for (id, short) in named_by_subscriptions {
            live.insights.entry(short.clone()).or_insert(id);
            live.insight_short.entry(id).or_insert(short);
        }
        live.dashboards = dashboards.iter().map(|dashboard| dashboard.id).collect();
        spilled.name_by(live.insight_short.clone());
        live.subscriptions = Some(std::sync::Arc::new(spilled));
    }
    Ok((live, names))
}

/// A membership's member's address (as the server writes it) and the
/// membership's id; none for a membership that names no user.
fn member_of(membership: &RoleMembership) -> Option<(String, String)> {
    let user = membership
        .user
        .as_ref()
        .or(membership.organization_member.as_ref().map(|member| &member.user))?;
    Some((user.email.clone(), membership.id.clone()))
}

/// A date as the file writes it: RFC 3339 in UTC, to the second.
fn stamp(at: chrono::DateTime<chrono::Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// The entry's insights by short id where one is known (an entry made
/// before the insights were read names them by id).
fn name_insights(entry: &mut SubscriptionEntry, shorts: &HashMap<i64, String>) {
    let name = |reference: &mut InsightRef| {
        if let InsightRef::Id(id) = reference
            && let Some(short) = shorts.get(id)
        {
            *reference = InsightRef::Short(short.clone());
        }
    };
    entry.insight.iter_mut().for_each(name);
    entry.export_insights.iter_mut().for_each(name);
}

fn subscription_entry(subscription: &Subscription, shorts: &HashMap<i64, String>) -> SubscriptionEntry {
    let reference = |id: i64| {
        shorts
            .get(&id)
            .map(|short| InsightRef::Short(short.clone()))
            .unwrap_or(InsightRef::Id(id))
    };
    let text = |value: &Option<String>| value.clone().filter(|text| !text.is_empty());
    SubscriptionEntry {
        id: Some(subscription.id),
        title: text(&subscription.title),
        insight: subscription.insight.map(reference),
        dashboard: subscription.dashboard,
        export_insights: subscription
            .dashboard_export_insights
            .iter()
            .flatten()
            .map(|id| reference(*id))
            .collect(),
        prompt: if subscription.insight.is_none() && subscription.dashboard.is_none() {
            Some(subscription.prompt.clone().unwrap_or_default())
        } else {
            None
        },
        target_type: subscription
            .target_type
            .as_ref()
            .map(|kind| kind.as_str().to_string())
            .unwrap_or_default(),
        target_value: subscription.target_value.clone().unwrap_or_default(),
        integration: subscription.integration_id,
        frequency: subscription
            .frequency
            .as_ref()
            .map(|frequency| frequency.as_str().to_string())
            .unwrap_or_default(),
        interval: subscription.interval.unwrap_or(1),
        byweekday: subscription
            .byweekday
            .iter()
            .flatten()
            .map(|day| day.as_str().to_string())
            .collect(),
        bysetpos: subscription.bysetpos,
        count: subscription.count,
        start_date: subscription.start_date.map(stamp).unwrap_or_default(),
        until_date: subscription.until_date.map(stamp),
        enabled: subscription.is_enabled(),
        invite_message: text(&subscription.invite_message),
        summary: text(&subscription.summary),
        next_delivery: subscription.next_delivery_date.map(stamp),
        at: None,
    }
}
