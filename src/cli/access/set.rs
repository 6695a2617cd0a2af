//! `orgdeck access set|unset`: a rule for a role, a member or everyone on
//! a project, one of its resources, or one dashboard or insight. The level
//! is checked against PostHog's levels and bounds before anything is sent
//! (posthog.md 16.1-16.2), the change is previewed by who gains and who
//! loses (`cli::preview`), a rule Terraform manages under the project's
//! lock is refused before sending (16.7), and the server's refusal is said
//! in words (status, code, detail, field).

use clap::Args;
use serde_json::json;

use super::super::connection::Connection;
use super::super::output::{self, Format};
use super::super::preview::{self, Decision, PreviewArgs, Session};
use super::super::{Exit, UsageError};
use crate::access::preview::world::Projects;
use crate::access::preview::{Change, ObjectRef};
use crate::access::rule;
use crate::access::who::{Thing, WhoError};
use crate::api::access::Subject;
use crate::api::access::levels::{self, AccessLevel, PROJECT, RESOURCES};
use crate::text::printable;

/// Whom the rule is for: one of them.
#[derive(Debug, Clone, Args)]
#[group(required = true, multiple = false)]
pub struct Whom {
    /// A role, by name (any case) or id.
    #[arg(long, value_name = "NAME")]
    role: Option<String>,
    /// A member, by e-mail address.
    #[arg(long, value_name = "EMAIL")]
    member: Option<String>,
    /// Everyone in the project (PostHog's default).
    #[arg(long)]
    everyone: bool,
}

/// What the rule is on: without these, the project itself (the global
/// --project, else the current one).
#[derive(Debug, Clone, Args)]
pub struct On {
    /// A whole resource of the project: dashboard, insight, feature_flag, notebook, …
    #[arg(long, value_name = "R", conflicts_with_all = ["dashboard", "insight"])]
    resource: Option<String>,
    /// One dashboard, by id or name.
    #[arg(long, value_name = "ID|NAME", conflicts_with = "insight")]
    dashboard: Option<String>,
    /// One insight, by id, short id or name.
    #[arg(long, value_name = "ID|NAME")]
    insight: Option<String>,
}

#[derive(Debug, Clone, Args)]
pub struct SetArgs {
    #[command(flatten)]
    whom: Whom,
    #[command(flatten)]
    on: On,
    /// The level: none, member or admin on a project; none, viewer, editor
    /// or manager elsewhere (within the resource's bounds).
    level: String,
    #[command(flatten)]
    preview: PreviewArgs,
}

#[derive(Debug, Clone, Args)]
pub struct UnsetArgs {
    #[command(flatten)]
    whom: Whom,
    #[command(flatten)]
    on: On,
    #[command(flatten)]
    preview: PreviewArgs,
}

impl SetArgs {
    pub fn dry_run(&self) -> bool {
        self.preview.dry_run
    }
}

impl UnsetArgs {
    pub fn dry_run(&self) -> bool {
        self.preview.dry_run
    }
}

pub async fn set(args: SetArgs, connection: Connection, format: Format) -> anyhow::Result<()> {
    let resource = resource_of(&args.on)?;
    let level = AccessLevel::from_wire(args.level.trim());
    if let Some(refusal) = levels::level_refusal(&resource, &level) {
        // PostHog's words may end without a stop; the two sentences get one.
        let stop = if refusal.ends_with('.') { "" } else { "." };
        return Err(UsageError(format!("{refusal}{stop} Nothing was sent.")).into());
    }
    write(
        args.whom,
        args.on,
        resource,
        Some(level),
        args.preview,
        connection,
        format,
    )
    .await
}

pub async fn unset(args: UnsetArgs, connection: Connection, format: Format) -> anyhow::Result<()> {
    let resource = resource_of(&args.on)?;
    write(
        args.whom,
        args.on,
        resource,
        None,
        args.preview,
        connection,
        format,
    )
    .await
}

/// The resource the rule is about, checked.
fn resource_of(on: &On) -> anyhow::Result<String> {
    match (&on.resource, &on.dashboard, &on.insight) {
        (_, Some(_), _) => Ok("dashboard".into()),
        (_, _, Some(_)) => Ok("insight".into()),
        (Some(resource), _, _) => {
            let resource = resource.trim().to_lowercase().replace(['-', ' '], "_");
            if resource == PROJECT || RESOURCES.contains(&resource.as_str()) {
                Ok(resource)
            } else {
                Err(UsageError(format!(
                    "--resource {}: not a resource that takes rules; one of: {}",
                    printable(&resource),
                    RESOURCES.join(", ")
                ))
                .into())
            }
        }
        _ => Ok(PROJECT.into()),
    }
}

async fn write(
    whom: Whom,
    on: On,
    resource: String,
    level: Option<AccessLevel>,
    args: PreviewArgs,
    connection: Connection,
    format: Format,
) -> anyhow::Result<()> {
    let mut session = Session::open(&connection, Projects::One(&connection.project))
        .await
        .map_err(|error| {
            anyhow::anyhow!("the access rules could not be read, so nothing was sent: {error}")
        })?;
    let project = session
        .read
        .world
        .projects
        .first()
        .map(|project| project.project.clone())
        .ok_or_else(|| anyhow::anyhow!("no project {} to set a rule in", printable(&connection.project)))?;
    let world = &session.read.world;
    let (subject, whom_words) = match (&whom.role, &whom.member) {
        (Some(role), _) => {
            let found = session.read.directory.role(role).ok_or_else(|| {
                let names: Vec<String> = session
                    .read
                    .directory
                    .roles
                    .iter()
                    .map(|role| role.name.clone())
                    .collect();
                preview::unknown(format!(
                    "no role is named \"{}\"; the roles are: {}",
                    printable(role),
                    printable(&names.join(", "))
                ))
            })?;
            if !world.plan.role_based_access {
                return Err(UsageError(
                    "Role-based access controls require the Role-based access feature (the organization's plan lacks it). Nothing was sent.".into(),
                )
                .into());
            }
            (Subject::Role(found.id.clone()), format!("role {}", found.name))
        }
        (_, Some(email)) => {
            let person = world
                .people
                .iter()
                .find(|person| person.email.eq_ignore_ascii_case(email.trim()))
                .ok_or_else(|| {
                    preview::unknown(format!(
                        "no member of the organization has the e-mail address {}",
                        printable(email)
                    ))
                })?;
            (Subject::Member(person.membership_id.clone()), person.label())
        }
        _ => (Subject::Everyone, "everyone".to_string()),
    };
    let thing = match (&on.dashboard, &on.insight) {
        (Some(dashboard), _) => Some(Thing::Dashboard(dashboard.clone())),
        (_, Some(insight)) => Some(Thing::Insight(insight.clone())),
        _ => None,
    };
    let project_key = project.id.to_string();
    let (resource_id, on_words) = match &thing {
        Some(thing) => {
            let found =
                crate::access::who::find(&session.reader, &session.read.directory, &project_key, thing)
                    .await
                    .map_err(|error| match error {
                        WhoError::NotFound(message) => preview::unknown(message),
                        WhoError::Read(error) => anyhow::anyhow!("{error}"),
                    })?;
            let object = ObjectRef {
                resource: found.resource.clone(),
                id: found.id.clone(),
                name: found.name.clone(),
                creator: None,
            };
            session
                .read
                .world
                .read_object(&session.reader, project.id, object)
                .await
                .map_err(|error| {
                    anyhow::anyhow!("the object's rules could not be read, so nothing was sent: {error}")
                })?;
            let words = format!(
                "{} \"{}\" ({})",
                resource.trim_end_matches('s'),
                found.name,
                found.id
            );
            (Some(found.id), words)
        }
        None if resource == PROJECT => (Some(project_key.clone()), "the project".to_string()),
        None => (None, levels::display_name(&resource)),
    };
    let world = &session.read.world;
    let existing = world.projects.first().and_then(|known| {
        crate::access::rule::existing(&known.rules, &resource, resource_id.as_deref(), &subject)
    });
    let was = existing
        .and_then(|rule| rule.access_level.clone())
        .map_or("no rule".to_string(), |level| level.to_string());
    let will = level
        .as_ref()
        .map_or("no rule".to_string(), AccessLevel::to_string);
    let locked = world.projects.first().is_some_and(|known| known.locked);
    let managed = existing.is_some_and(|rule| rule.is_managed());
    let mark = if managed {
        format!(" [{}]", crate::access::terraform_mark(locked))
    } else {
        String::new()
    };
    let what = format!(
        "{}'s rule on {on_words} in {}: {was} → {will}{mark}",
        whom_words,
        project.label()
    );
    // Under the lock the preview refuses it before sending (`show_and_ask`).
    if managed && !locked {
        eprintln!(
            "orgdeck: warning: Terraform manages this rule and the project's lock is off: the next terraform apply puts it back unless its configuration changes too"
        );
    }
    if existing.and_then(|rule| rule.access_level.clone()) == level {
        let words = format!("{} already so: nothing to change.\n", printable(&what));
        return match format {
            Format::Json => output::print_json(&json!({"change": what, "unchanged": true})),
            Format::Table => output::print(&words),
        };
    }
    let change = Change::Rule {
        project: project.id,
        resource: resource.clone(),
        resource_id: resource_id.clone(),
        subject: subject.clone(),
        level: level.clone(),
    };
    let (effect, decision) =
        preview::show_and_ask(world, &change, &args, format, &format!("Access: {what}"))?;
    if let Decision::DryRun = decision {
        return Ok(());
    }
    let on = match (&thing, resource.as_str()) {
        (None, PROJECT) => rule::On::Project,
        (None, _) => rule::On::Resource(resource.clone()),
        (Some(_), _) => rule::On::Object {
            resource: resource.clone(),
            id: resource_id.clone().unwrap_or_default(),
        },
    };
    let sent = rule::send(&connection.client, &project_key, &on, &subject, level.clone()).await;
    let written = sent.map_err(|error| Exit {
        code: 1,
        message: format!("the server refused the change: {error}"),
    })?;
    if format == Format::Table {
        output::print(&match &written {
            Some(rule) => format!(
                "Set: {}'s rule is now {}.\n",
                printable(&whom_words),
                rule.access_level.as_ref().map_or("-", AccessLevel::as_str)
            ),
            None => format!("Removed: {}'s rule.\n", printable(&whom_words)),
        })?;
    }
    let checked = preview::check(&session, &change, &effect).await;
    if format == Format::Json {
        output::print_json(&json!({
            "change": what,
            "preview": effect,
            "rule": written,
            "check": checked,
        }))?;
    }
    Ok(())
}
