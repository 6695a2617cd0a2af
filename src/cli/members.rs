//! `orgdeck members list|add|remove --role ROLE` (an id or a role's name)

use crate::text::printable;
use clap::Subcommand;
use serde::Serialize;

use super::connection::Connection;
use super::output::{self, Column, Format, ListWriter, fixed, flexible};
use super::preview::{Decision, PreviewArgs, Session};
use super::{UsageError, day, search_list};
use crate::access::directory::People;
use crate::access::preview::world::Projects;
use crate::access::preview::{Change, Effect};
use crate::api::models::level;
use crate::api::{List, Raw, RoleMembership};

const ROLE_HELP: &str = "The role: its id, or its name (any case)";

#[derive(Debug, Subcommand)]
pub enum MembersCommand {
    /// List the members of a role.
    List {
        #[arg(long, value_name = "ROLE", help = ROLE_HELP)]
        role: String,
    },
    /// Assign users to a role, by UUID or e-mail address (repeatable).
    Add {
        #[arg(long, value_name = "ROLE", help = ROLE_HELP)]
        role: String,
        /// A user's UUID.
        #[arg(long = "user", value_name = "UUID")]
        users: Vec<String>,
        /// Looked up among the organization's members.
        #[arg(long = "email", value_name = "ADDRESS")]
        emails: Vec<String>,
        #[command(flatten)]
        preview: PreviewArgs,
    },
    /// Remove a user from a role: by membership id, user UUID or e-mail.
    Remove {
        #[arg(long, value_name = "ROLE", help = ROLE_HELP)]
        role: String,
        /// The membership's id (as `members list` shows it).
        #[arg(value_name = "MEMBERSHIP_ID")]
        membership: Option<String>,
        /// Or the user's UUID.
        #[arg(long, value_name = "UUID")]
        user: Option<String>,
        /// Or the user's e-mail address.
        #[arg(long, value_name = "ADDRESS")]
        email: Option<String>,
        #[command(flatten)]
        preview: PreviewArgs,
    },
}

impl MembersCommand {
    /// Whether the command changes anything (refused under --read-only).
    pub fn writes(&self) -> bool {
        match self {
            MembersCommand::List { .. } => false,
            MembersCommand::Add { preview, .. } | MembersCommand::Remove { preview, .. } => !preview.dry_run,
        }
    }

    /// How long it may take by default (`--deadline`).
    pub fn span(&self) -> super::Span {
        match self {
            MembersCommand::List { .. } => super::Span::Lists,
            _ => super::Span::One,
        }
    }
}

/// The outcome of assigning one user, for `-o json`.
#[derive(Serialize)]
struct Assignment {
    user: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    membership: Option<Raw<RoleMembership>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

pub async fn run(command: MembersCommand, connection: Connection, format: Format) -> anyhow::Result<()> {
    let client = &connection.client;
    let organization = connection.organization.as_str();
    let command = match command {
        MembersCommand::List { role } => MembersCommand::List {
            role: role_id(client, organization, role).await?,
        },
        MembersCommand::Add {
            role,
            users,
            emails,
            preview,
        } => MembersCommand::Add {
            role: role_id(client, organization, role).await?,
            users,
            emails,
            preview,
        },
        MembersCommand::Remove {
            role,
            membership,
            user,
            email,
            preview,
        } => MembersCommand::Remove {
            role: role_id(client, organization, role).await?,
            membership,
            user,
            email,
            preview,
        },
    };
    match command {
        MembersCommand::List { role } => {
            // Written as the pages arrive, and not kept.
            let mut writer = ListWriter::new(format, COLUMNS.to_vec())?;
            let list = List::memberships(organization, &role).raw();
            let read = client
                .for_each_page(
                    &list,
                    &super::list_options("members"),
                    |members: Vec<Raw<RoleMembership>>| writer.rows(&members, |member| cells(member)),
                )
                .await;
            super::end_list(writer, read)
        }
        MembersCommand::Add {
            role,
            users,
            emails,
            preview,
        } => {
            if users.is_empty() && emails.is_empty() {
                return Err(UsageError("members add needs --user UUID or --email ADDRESS".into()).into());
            }
            let previewed = previewed(&connection, &preview, format, &role, &users, &emails, true).await?;
            let Some(previewed) = previewed else {
                return Ok(());
            };
            // Users by e-mail are found among the organization's members.
            let mut targets: Vec<(String, Result<String, String>)> =
                users.into_iter().map(|uuid| (uuid.clone(), Ok(uuid))).collect();
            if !emails.is_empty() {
                // Read until every address is found, keeping only those.
                let wanted: Vec<String> = emails.iter().map(|email| email.trim().to_lowercase()).collect();
                let distinct = wanted.iter().collect::<std::collections::HashSet<_>>().len();
                let mut found: std::collections::HashMap<String, String> = Default::default();
                search_list(
                    client,
                    &List::members(organization),
                    "organization members",
                    |member| {
                        let email = member.user.email.to_lowercase();
                        if wanted.contains(&email) {
                            found.entry(email).or_insert(member.user.uuid);
                        }
                        found.len() == distinct
                    },
                )
                .await?;
                for (email, key) in emails.into_iter().zip(wanted) {
                    let uuid = found.get(&key).cloned().ok_or_else(|| {
                        format!("no member of the organization has the e-mail address {email}")
                    });
                    targets.push((email, uuid));
                }
            }
            let mut results = Vec::new();
            for (user, uuid) in targets {
                let outcome = match uuid {
                    Ok(uuid) => client
                        .add_member(organization, &role, &uuid)
                        .await
                        .map_err(|error| error.to_string()),
                    Err(reason) => Err(reason),
                };
                results.push(match outcome {
                    Ok(membership) => Assignment {
                        user,
                        membership: Some(membership),
                        error: None,
                    },
                    Err(error) => Assignment {
                        user,
                        membership: None,
                        error: Some(error),
                    },
                });
            }
            let failed = results.iter().filter(|result| result.error.is_some()).count();
            if let Some((session, change, effect)) = &previewed {
                super::preview::check(session, change, effect).await;
            }
            match format {
                Format::Json => output::print_json(&results)?,
                Format::Table => {
                    for result in &results {
                        match (&result.membership, &result.error) {
                            (Some(membership), _) => output::print(&format!(
                                "added {} (membership {})\n",
                                printable(&result.user),
                                printable(&membership.id)
                            ))?,
                            (_, Some(error)) => eprintln!(
                                "orgdeck: could not add {}: {}",
                                printable(&result.user),
                                printable(&error.to_string())
                            ),
                            _ => {}
                        }
                    }
                }
            }
            if failed > 0 {
                anyhow::bail!("{failed} of {} users were not added", results.len());
            }
            Ok(())
        }
        MembersCommand::Remove {
            role,
            membership,
            user,
            email,
            preview,
        } => {
            let id = match (membership, user, email) {
                (Some(id), None, None) => id,
                (None, Some(user), None) => {
                    find(
                        client,
                        organization,
                        &role,
                        |m| user_uuid(m) == Some(user.as_str()),
                        &user,
                    )
                    .await?
                }
                (None, None, Some(email)) => {
                    find(
                        client,
                        organization,
                        &role,
                        |m| user_email(m).is_some_and(|e| e.eq_ignore_ascii_case(&email)),
                        &email,
                    )
                    .await?
                }
                _ => {
                    return Err(UsageError(
                        "members remove takes one of: MEMBERSHIP_ID, --user UUID, --email ADDRESS".into(),
                    )
                    .into());
                }
            };
            // Whose membership it is, for the preview.
            let mut whose: Option<(String, String)> = None;
            search_list(
                client,
                &List::memberships(organization, &role),
                "members",
                |found| {
                    let hit = found.id == id;
                    if hit {
                        whose = Some((
                            user_uuid(&found).unwrap_or_default().to_string(),
                            user_email(&found).unwrap_or_default().to_string(),
                        ));
                    }
                    hit
                },
            )
            .await?;
            let (uuids, emails): (Vec<String>, Vec<String>) = whose.into_iter().unzip();
            let previewed = previewed(&connection, &preview, format, &role, &uuids, &emails, false).await?;
            let Some(previewed) = previewed else {
                return Ok(());
            };
            client.remove_member(organization, &role, &id).await?;
            if let Some((session, change, effect)) = &previewed {
                super::preview::check(session, change, effect).await;
            }
            match format {
                Format::Json => output::print_json(&serde_json::json!({"id": id, "deleted": true})),
                Format::Table => output::print(&format!("removed membership {}\n", printable(&id))),
            }
        }
    }
}

/// A session, change and its effect, to check after the change.
type Previewed = Option<(Session, Change, Effect)>;

/// The preview of people joining (or leaving) a role: `None` for a dry
/// run (printed, nothing to do), `Some(None)` when there is no preview.
async fn previewed(
    connection: &Connection,
    args: &PreviewArgs,
    format: Format,
    role: &str,
    uuids: &[String],
    emails: &[String],
    join: bool,
) -> anyhow::Result<Option<Previewed>> {
    let people = People::only(
        [],
        uuids.iter().map(String::as_str),
        emails.iter().map(String::as_str),
    );
    let Some(session) = Session::open_or_note(connection, Projects::All, &people, args).await? else {
        return Ok(Some(None));
    };
    let world = &session.read.world;
    let role_id = role.to_lowercase();
    let role_name = session
        .read
        .directory
        .role(&role_id)
        .map_or_else(|| role.to_string(), |found| found.name.clone());
    let mut names = Vec::new();
    let changes: Vec<Change> = world
        .people
        .iter()
        .filter(|person| {
            uuids
                .iter()
                .any(|uuid| uuid.eq_ignore_ascii_case(&person.user_uuid))
                || emails
                    .iter()
                    .any(|email| email.trim().eq_ignore_ascii_case(&person.email))
        })
        .map(|person| {
            names.push(person.email.clone());
            let membership_id = person.membership_id.clone();
            let role_id = role_id.clone();
            if join {
                Change::Join {
                    role_id,
                    membership_id,
                }
            } else {
                Change::Leave {
                    role_id,
                    membership_id,
                }
            }
        })
        .collect();
    let change = Change::Batch(changes);
    let what = format!(
        "{} {} {} role {}",
        if join { "Adding" } else { "Removing" },
        names.join(", "),
        if join { "to" } else { "from" },
        role_name
    );
    let (effect, decision) = super::preview::show_and_ask(world, &change, args, format, &what)?;
    match decision {
        Decision::DryRun => Ok(None),
        Decision::Go => Ok(Some(Some((session, change, effect)))),
    }
}

fn user_uuid(membership: &RoleMembership) -> Option<&str> {
    membership.user.as_ref().map(|user| user.uuid.as_str())
}

fn user_email(membership: &RoleMembership) -> Option<&str> {
    membership.user.as_ref().map(|user| user.email.as_str())
}

/// How many roles an error names when none or several match.
const ROLES_NAMED: usize = 20;

/// The role's id: `role` itself when it is a UUID, else the id of the one
/// role of the organization with that name, compared in any case. The
/// roles are read a page at a time and only those named so are kept.
pub(super) async fn role_id(
    client: &crate::api::Client,
    organization: &str,
    role: String,
) -> anyhow::Result<String> {
    if uuid::Uuid::parse_str(&role).is_ok() {
        return Ok(role);
    }
    let wanted = role.to_lowercase();
    let mut named: Vec<String> = Vec::new();
    let mut names: Vec<String> = Vec::new();
    let mut roles = 0usize;
    search_list(
        client,
        &List::roles(organization),
        "roles",
        |candidate: crate::api::Role| {
            roles += 1;
            if candidate.name.to_lowercase() == wanted {
                named.push(candidate.id);
            } else if names.len() < ROLES_NAMED {
                names.push(format!("\"{}\"", printable(&candidate.name)));
            }
            // Enough to refuse with.
            named.len() >= ROLES_NAMED
        },
    )
    .await?;
    match named.as_slice() {
        [one] => Ok(one.clone()),
        [] => {
            let more = roles.saturating_sub(names.len());
            Err(UsageError(format!(
                "no role is named \"{}\"; the roles are: {}{}",
                printable(&role),
                names.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            ))
            .into())
        }
        several => Err(UsageError(format!(
            "{} roles are named \"{}\"; give the id of one: {}",
            several.len(),
            printable(&role),
            several.join(", ")
        ))
        .into()),
    }
}

/// The id of the role's membership that matches, read no further than it.
async fn find(
    client: &crate::api::Client,
    organization: &str,
    role: &str,
    matches: impl Fn(&RoleMembership) -> bool,
    who: &str,
) -> anyhow::Result<String> {
    let mut found = None;
    search_list(
        client,
        &List::memberships(organization, role),
        "members",
        |membership| {
            let hit = matches(&membership);
            if hit {
                found = Some(membership.id);
            }
            hit
        },
    )
    .await?;
    found.ok_or_else(|| anyhow::anyhow!("{who} is not a member of role {role}"))
}

const COLUMNS: [Column; 5] = [
    fixed("ID"),
    flexible("NAME"),
    flexible("EMAIL"),
    fixed("LEVEL"),
    fixed("JOINED"),
];

fn cells(membership: &RoleMembership) -> Vec<String> {
    let user = membership.user.clone().unwrap_or_default();
    let member_level = membership.organization_member.as_ref().map(|member| member.level);
    vec![
        membership.id.clone(),
        user.display_name(),
        user.email.clone(),
        member_level
            .map(|l| level::name(l).to_string())
            .unwrap_or_else(|| "-".into()),
        day(membership.joined_at),
    ]
}
