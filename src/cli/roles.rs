//! `orgdeck roles list|get|create|update|delete`

use clap::Subcommand;

use super::connection::Connection;
use super::output::{self, Column, Format, ListWriter, fixed, flexible};
use super::{UsageError, body_from, date, day};
use crate::api::models::access_level;
use crate::api::{List, Raw, Role, RoleInput};

#[derive(Debug, Subcommand)]
pub enum RolesCommand {
    /// List the organization's roles.
    List,
    /// Show one role, by id or by name.
    Get {
        /// The role's id, or its name (in any case).
        role: String,
    },
    /// Create a role.
    Create {
        #[command(flatten)]
        fields: RoleFields,
    },
    /// Rename a role or change its access level.
    Update {
        /// The role's id, or its name (in any case).
        role: String,
        #[command(flatten)]
        fields: RoleFields,
    },
    /// Delete a role, its memberships and its access rules: who loses
    /// access is shown first, and asked about once more (Enter means no);
    /// a role with a rule Terraform manages under a project's lock is
    /// refused before anything is sent.
    Delete {
        /// The role's id, or its name (in any case).
        role: String,
        #[command(flatten)]
        preview: super::preview::PreviewArgs,
    },
}

impl RolesCommand {
    /// Whether the command changes anything (refused under --read-only).
    pub fn writes(&self) -> bool {
        match self {
            RolesCommand::List | RolesCommand::Get { .. } => false,
            RolesCommand::Delete { preview, .. } => !preview.dry_run,
            _ => true,
        }
    }

    /// How long it may take by default (`--deadline`).
    pub fn span(&self) -> super::Span {
        match self {
            RolesCommand::List => super::Span::Lists,
            _ => super::Span::One,
        }
    }
}

#[derive(Debug, clap::Args)]
pub struct RoleFields {
    /// The role's name (at most 200 characters, unique in the organization).
    #[arg(long)]
    name: Option<String>,
    /// Feature-flag access: view (21) or edit (37).
    #[arg(long, value_name = "view|edit|21|37", value_parser = parse_access_level)]
    access_level: Option<i64>,
    /// A JSON body from a file, or - for stdin; flags override its fields.
    #[arg(long, value_name = "FILE")]
    body: Option<String>,
}

fn parse_access_level(text: &str) -> Result<i64, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "view" | "21" => Ok(access_level::VIEW),
        "edit" | "37" => Ok(access_level::EDIT),
        other => Err(format!(
            "\"{other}\" is not an access level: use view (21) or edit (37)"
        )),
    }
}

impl RoleFields {
    fn input(&self) -> anyhow::Result<RoleInput> {
        let mut input: RoleInput = match &self.body {
            Some(source) => serde_json::from_value(serde_json::Value::Object(body_from(source)?))
                .map_err(|error| UsageError(format!("--body: {error}")))?,
            None => RoleInput::default(),
        };
        if let Some(name) = &self.name {
            input.name = Some(name.clone());
        }
        if let Some(level) = self.access_level {
            input.feature_flags_access_level = Some(level);
        }
        Ok(input)
    }
}

pub async fn run(command: RolesCommand, connection: Connection, format: Format) -> anyhow::Result<()> {
    let client = &connection.client;
    let organization = connection.organization.as_str();
    match command {
        RolesCommand::List => {
            // Written as the pages arrive and not kept; the first page says
            // which columns this server's roles have.
            let mut writer = ListWriter::new(format, columns(Shape::default()))?;
            let mut shape = None;
            let read = client
                .for_each_page(
                    &List::roles(organization).raw(),
                    &super::list_options("roles"),
                    |roles: Vec<Raw<Role>>| {
                        let shape = *shape.get_or_insert_with(|| {
                            let typed: Vec<Role> = roles.iter().map(|role| role.typed.clone()).collect();
                            let shape = Shape::of(&typed);
                            writer.set_columns(columns(shape));
                            shape
                        });
                        writer.rows(&roles, |role| cells(role, shape))
                    },
                )
                .await;
            super::end_list(writer, read)
        }
        RolesCommand::Get { role } => {
            let id = super::members::role_id(client, organization, role).await?;
            show(&client.role(organization, &id).await?, format)
        }
        RolesCommand::Create { fields } => {
            let input = fields.input()?;
            if input.name.is_none() {
                return Err(UsageError("roles create needs --name (or a name in --body)".into()).into());
            }
            if input.feature_flags_access_level.is_some() {
                // Any role says whether this server keeps access levels.
                let sample = client.page(&List::roles(organization), 1, 0).await?;
                if let Some(role) = sample.results.first() {
                    check_has_access_level(role)?;
                }
            }
            let created = client.create_role(organization, &input).await?;
            if input.feature_flags_access_level.is_some() {
                check_has_access_level(&created)
                    .map_err(|error| anyhow::anyhow!("the role {} was created, but {error:#}", created.id))?;
            }
            show(&created, format)
        }
        RolesCommand::Update { role, fields } => {
            let input = fields.input()?;
            if input == RoleInput::default() {
                return Err(UsageError("nothing to change: give --name or --access-level".into()).into());
            }
            let id = super::members::role_id(client, organization, role).await?;
            if input.feature_flags_access_level.is_some() {
                check_has_access_level(&client.role(organization, &id).await?.typed)?;
            }
            show(&client.update_role(organization, &id, &input).await?, format)
        }
        RolesCommand::Delete { role, preview } => {
            let id = super::members::role_id(client, organization, role).await?;
            let session = super::preview::Session::open_or_note(
                &connection,
                crate::access::preview::world::Projects::All,
                &crate::access::directory::People::Everyone,
                &preview,
            )
            .await?;
            let mut previewed = None;
            if let Some(mut session) = session {
                session
                    .read
                    .world
                    .read_role_objects(&session.reader, &id.to_lowercase())
                    .await
                    .map_err(|error| {
                        anyhow::anyhow!(
                            "the role's object rules could not be read, so nothing was sent: {error}"
                        )
                    })?;
                let change = crate::access::preview::Change::DeleteRole {
                    role_id: id.to_lowercase(),
                };
                let name = session
                    .read
                    .directory
                    .role(&id)
                    .map_or_else(|| id.clone(), |found| found.name.clone());
                let (effect, decision) = super::preview::show_and_ask(
                    &session.read.world,
                    &change,
                    &preview,
                    format,
                    &format!("Deleting role {name}, its memberships and its access rules"),
                )?;
                if let super::preview::Decision::DryRun = decision {
                    return Ok(());
                }
                previewed = Some((session, change, effect));
            }
            client.delete_role(organization, &id).await?;
            if let Some((session, change, effect)) = &previewed {
                super::preview::check(session, change, effect).await;
            }
            match format {
                Format::Json => output::print_json(&serde_json::json!({"id": id, "deleted": true})),
                Format::Table => output::print(&format!("deleted role {}\n", crate::text::printable(&id))),
            }
        }
    }
}

/// Today's PostHog has no access level on roles and ignores one sent: say
/// so rather than pretend it was set.
fn check_has_access_level(role: &Role) -> anyhow::Result<()> {
    if role.feature_flags_access_level.is_none() {
        return Err(UsageError(
            "--access-level: this server's roles have no access level (today's PostHog dropped it); leave the flag out"
                .into(),
        )
        .into());
    }
    Ok(())
}

fn member_count(role: &Role) -> String {
    role.members
        .as_ref()
        .and_then(|members| members.len())
        .map(|count| count.to_string())
        .unwrap_or_else(|| "-".into())
}

fn access(role: &Role) -> String {
    role.feature_flags_access_level
        .map(|level| access_level::name(level).to_string())
        .unwrap_or_else(|| "-".into())
}

/// Which columns the roles' table has: ACCESS where the server has access
/// levels (older PostHog), DEFAULT where it names a default role.
#[derive(Debug, Default, Clone, Copy)]
struct Shape {
    access: bool,
    default: bool,
}

impl Shape {
    fn of(roles: &[Role]) -> Shape {
        Shape {
            access: roles.iter().any(|role| role.feature_flags_access_level.is_some()),
            default: roles.iter().any(|role| role.is_default.is_some()),
        }
    }
}

fn columns(shape: Shape) -> Vec<Column> {
    let mut columns = vec![fixed("ID"), flexible("NAME")];
    if shape.access {
        columns.push(fixed("ACCESS"));
    }
    if shape.default {
        columns.push(fixed("DEFAULT"));
    }
    columns.extend([fixed("MEMBERS"), fixed("CREATED")]);
    columns
}

fn cells(role: &Role, shape: Shape) -> Vec<String> {
    let mut row = vec![role.id.clone(), role.name.clone()];
    if shape.access {
        row.push(access(role));
    }
    if shape.default {
        row.push(if role.is_default == Some(true) {
            "default".into()
        } else {
            String::new()
        });
    }
    row.extend([member_count(role), day(role.created_at)]);
    row
}

/// A role: its JSON as the server sent it, or its fields.
fn show(role: &Raw<Role>, format: Format) -> anyhow::Result<()> {
    if format == Format::Json {
        return output::print_json(role);
    }
    let members = match &role.members {
        Some(crate::api::ListOrText::List(members)) => {
            let names: Vec<String> = members
                .iter()
                .filter_map(|m| m.user.as_ref())
                .map(|u| u.display_name())
                .collect();
            format!(
                "{} {}",
                names.len(),
                if names.is_empty() {
                    String::new()
                } else {
                    format!("({})", names.join(", "))
                }
            )
        }
        Some(crate::api::ListOrText::Text(text)) => text.clone(),
        _ => "-".into(),
    };
    let created_by = role
        .created_by
        .as_ref()
        .map(|user| format!("{} <{}>", user.display_name(), user.email))
        .unwrap_or_else(|| "-".into());
    let mut fields = vec![("id", role.id.clone()), ("name", role.name.clone())];
    // Older servers have access levels; today's PostHog says which role is the default.
    if let Some(level) = role.feature_flags_access_level {
        fields.push(("access level", format!("{} ({level})", access_level::name(level))));
    }
    if let Some(is_default) = role.is_default {
        fields.push(("default", if is_default { "yes" } else { "no" }.into()));
    }
    fields.extend([
        ("members", members.trim().to_string()),
        ("created by", created_by),
        ("created at", date(role.created_at)),
    ]);
    output::print(&output::record(&fields))
}
