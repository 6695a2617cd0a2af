//! `orgdeck roles list|get|create|update|delete`

use clap::Subcommand;

use super::connection::Connection;
use super::output::{self, Format, fixed, flexible};
use super::{UsageError, body_from, date, day, fetch_all};
use crate::api::models::access_level;
use crate::api::{List, Role, RoleInput};

#[derive(Debug, Subcommand)]
pub enum RolesCommand {
    /// List the organization's roles.
    List,
    /// Show one role.
    Get { id: String },
    /// Create a role.
    Create {
        #[command(flatten)]
        fields: RoleFields,
    },
    /// Rename a role or change its access level.
    Update {
        id: String,
        #[command(flatten)]
        fields: RoleFields,
    },
    /// Delete a role and its memberships.
    Delete { id: String },
}

#[derive(Debug, clap::Args)]
pub struct RoleFields {
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
            let roles = fetch_all(client, &List::roles(organization), "roles").await?;
            match format {
                Format::Json => output::print_json(&roles),
                Format::Table => output::print(&table(&roles)),
            }
        }
        RolesCommand::Get { id } => show(&client.role(organization, &id).await?, format),
        RolesCommand::Create { fields } => {
            let input = fields.input()?;
            if input.name.is_none() {
                return Err(UsageError("roles create needs --name (or a name in --body)".into()).into());
            }
            show(&client.create_role(organization, &input).await?, format)
        }
        RolesCommand::Update { id, fields } => {
            let input = fields.input()?;
            if input == RoleInput::default() {
                return Err(UsageError("nothing to change: give --name or --access-level".into()).into());
            }
            show(&client.update_role(organization, &id, &input).await?, format)
        }
        RolesCommand::Delete { id } => {
            client.delete_role(organization, &id).await?;
            match format {
                Format::Json => output::print_json(&serde_json::json!({"id": id, "deleted": true})),
                Format::Table => output::print(&format!("deleted role {}\n", crate::text::printable(&id))),
            }
        }
    }
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

fn table(roles: &[Role]) -> String {
    let rows: Vec<Vec<String>> = roles
        .iter()
        .map(|role| {
            vec![
                role.id.clone(),
                role.name.clone(),
                access(role),
                member_count(role),
                day(role.created_at),
            ]
        })
        .collect();
    let columns = [
        fixed("ID"),
        flexible("NAME"),
        fixed("ACCESS"),
        fixed("MEMBERS"),
        fixed("CREATED"),
    ];
    output::table(&columns, &rows, output::output_width())
}

fn show(role: &Role, format: Format) -> anyhow::Result<()> {
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
    output::print(&output::record(&[
        ("id", role.id.clone()),
        ("name", role.name.clone()),
        (
            "access level",
            role.feature_flags_access_level
                .map(|level| format!("{} ({level})", access_level::name(level)))
                .unwrap_or_else(|| "-".into()),
        ),
        ("members", members.trim().to_string()),
        ("created by", created_by),
        ("created at", date(role.created_at)),
    ]))
}
