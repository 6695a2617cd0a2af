//! `orgdeck people list|show|offboard|level`: the organization by person.

use clap::{Subcommand, ValueEnum};
use serde_json::{Value, json};

use super::connection::Connection;
use super::output::{self, Column, Format, JsonRow, ListWriter, fixed, flexible};
use super::{UsageError, date, day};
use crate::api::models::level;
use crate::api::raw::field;
use crate::api::{List, OrganizationMember, Verbatim};
use crate::people::profile::{self, Found, Keys, Profile};
use crate::people::{Keep, LightIndex, RoleIndex, RoleRef};
use crate::text::printable;

#[derive(Debug, Subcommand)]
pub enum PeopleCommand {
    /// List the organization's members with their roles.
    List {
        /// Only people in no role.
        #[arg(long, conflicts_with = "role")]
        no_role: bool,
        /// Only the people of this role (its id or its name, any case).
        #[arg(long, value_name = "NAME")]
        role: Option<String>,
        /// Only people whose name or e-mail address contains TEXT (searched by the server).
        #[arg(long, value_name = "TEXT")]
        search: Option<String>,
    },
    /// Everything about one person: roles, the subscriptions they created and
    /// those that mail them, their API keys, and what would break if they left.
    Show {
        /// Their e-mail address.
        email: String,
    },
    /// Take a person out of every role and every recipient list in one reviewed
    /// step: prints the plan, checks the key can do it all, asks once, runs
    /// it, and writes a record as it goes.
    Offboard(super::offboard::OffboardArgs),
    /// Change a member's level.
    Level {
        /// Their e-mail address.
        email: String,
        /// The level to give them.
        #[arg(value_enum)]
        level: Level,
        #[command(flatten)]
        preview: super::preview::PreviewArgs,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Level {
    Member,
    Admin,
    Owner,
}

impl Level {
    fn number(self) -> i64 {
        match self {
            Level::Member => level::MEMBER,
            Level::Admin => level::ADMIN,
            Level::Owner => level::OWNER,
        }
    }
}

impl PeopleCommand {
    /// Whether the command changes anything (refused under --read-only).
    pub fn writes(&self) -> bool {
        match self {
            PeopleCommand::List { .. } | PeopleCommand::Show { .. } => false,
            PeopleCommand::Offboard(args) => !args.dry_run,
            PeopleCommand::Level { preview, .. } => !preview.dry_run,
        }
    }

    /// How long it may take by default (`--deadline`).
    pub fn span(&self) -> super::Span {
        match self {
            PeopleCommand::List { .. } | PeopleCommand::Show { .. } => super::Span::Lists,
            PeopleCommand::Offboard(args) if args.dry_run => super::Span::Lists,
            PeopleCommand::Offboard(_) => super::Span::Paced,
            PeopleCommand::Level { .. } => super::Span::One,
        }
    }
}

pub async fn run(command: PeopleCommand, connection: Connection, format: Format) -> anyhow::Result<()> {
    match command {
        PeopleCommand::List {
            no_role,
            role,
            search,
        } => list(&connection, format, no_role, role, search).await,
        PeopleCommand::Show { email } => show(&connection, format, &email).await,
        PeopleCommand::Offboard(args) => super::offboard::run(&connection, format, args).await,
        PeopleCommand::Level {
            email,
            level,
            preview,
        } => set_level(&connection, format, &email, level, preview).await,
    }
}

/// The role memberships' progress line on a terminal, as (roles read,
/// roles in all).
fn memberships_progress() -> impl Fn(usize, usize) + Send + Sync {
    let progress = output::progress("role memberships");
    move |done: usize, total: usize| {
        if let Some(progress) = &progress {
            progress(done as u64, total as u64);
        }
    }
}

/// The roles of everyone, or of the one user `only` names, with a
/// progress line on a terminal.
async fn role_index(connection: &Connection, only: Option<&str>) -> anyhow::Result<RoleIndex> {
    let progress = memberships_progress();
    let (client, organization) = (&connection.client, connection.organization.as_str());
    let index = match only {
        Some(user_uuid) => RoleIndex::load_of(client, organization, user_uuid, &progress).await?,
        None => RoleIndex::load(client, organization, &progress).await?,
    };
    Ok(index)
}

/// The roles `list` prints: those `keep` asks, with the same progress
/// line.
async fn light_index(connection: &Connection, keep: Keep, roles: Vec<RoleRef>) -> anyhow::Result<LightIndex> {
    let progress = memberships_progress();
    let (client, organization) = (&connection.client, connection.organization.as_str());
    Ok(LightIndex::load(client, organization, roles, keep, &progress).await?)
}

/// A member with their roles, for a table.
struct PersonRow {
    member: OrganizationMember,
    roles: Vec<RoleRef>,
}

/// A member with their roles, for `-o json`: the server's object as it
/// came, `roles` added.
struct PersonJson {
    member: Verbatim<OrganizationMember>,
    roles: Vec<RoleRef>,
}

impl JsonRow for PersonJson {
    fn write_json(&self, out: &mut impl std::io::Write, depth: usize) -> std::io::Result<()> {
        let json = self.member.json.get().trim();
        let roles = serde_json::to_string(&self.roles).map_err(std::io::Error::other)?;
        // `roles` added as the last key, unless the object has one (then
        // it is replaced where it stands, as a map would).
        let text = match json.strip_suffix('}') {
            Some(open) if field(json, "roles").is_none() => {
                let comma = if open.trim_end() == "{" { "" } else { "," };
                format!("{open}{comma}\"roles\":{roles}}}")
            }
            _ => {
                let mut value: Value = serde_json::from_str(json).map_err(std::io::Error::other)?;
                if let Value::Object(object) = &mut value {
                    object.insert("roles".into(), json!(self.roles));
                }
                value.to_string()
            }
        };
        output::write_verbatim(out, &text, depth)
    }
}

/// The user UUID of a member as the server sent it (`user.uuid`), read
/// off the text; empty where it has none, as the typed reading gives.
fn user_uuid(member: &Verbatim<OrganizationMember>) -> String {
    field(member.json.get(), "user")
        .and_then(|user| field(user, "uuid"))
        .and_then(|uuid| serde_json::from_str::<String>(uuid).ok())
        .unwrap_or_default()
}

const LIST_COLUMNS: [Column; 6] = [
    flexible("NAME"),
    flexible("EMAIL"),
    fixed("LEVEL"),
    flexible("ROLES"),
    fixed("LAST LOGIN"),
    fixed("JOINED"),
];

fn list_cells(row: &PersonRow) -> Vec<String> {
    let member = &row.member;
    let roles = if row.roles.is_empty() {
        "none".to_string()
    } else {
        row.roles
            .iter()
            .map(|role| role.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    vec![
        member.user.display_name(),
        member.user.email.clone(),
        level::name(member.level).to_string(),
        roles,
        day(member.last_login),
        day(member.joined_at),
    ]
}

async fn list(
    connection: &Connection,
    format: Format,
    no_role: bool,
    role: Option<String>,
    search: Option<String>,
) -> anyhow::Result<()> {
    let client = &connection.client;
    // The roles first: an unknown --role is told before any membership is
    // read. Then only what the rows need of each person's roles.
    let roles = crate::people::read_roles(client, &connection.organization).await?;
    let keep = match &role {
        Some(name) => Keep::MembersOf(
            crate::people::find_role(&roles, name)
                .ok_or_else(|| {
                    let names: Vec<String> = roles.iter().map(|role| format!("\"{}\"", role.name)).collect();
                    UsageError(format!(
                        "no role is named \"{}\"; the roles are: {}",
                        printable(name),
                        printable(&names.join(", "))
                    ))
                })?
                .id
                .clone(),
        ),
        None if no_role => Keep::Holders,
        None => Keep::Everyone,
    };
    let index = light_index(connection, keep, roles).await?;
    let mut members = List::members(&connection.organization);
    if let Some(search) = search
        .as_deref()
        .map(str::trim)
        .filter(|search| !search.is_empty())
    {
        members = members.with("search", search);
    }
    let mut writer = ListWriter::new(format, LIST_COLUMNS.to_vec())?;
    let options = super::list_options("organization members");
    let read = match format {
        // The server's objects passed on as they came, `roles` added.
        Format::Json => {
            client
                .for_each_page(
                    &members.verbatim(),
                    &options,
                    |page: Vec<Verbatim<OrganizationMember>>| {
                        let rows: Vec<PersonJson> = page
                            .into_iter()
                            .filter_map(|member| {
                                let roles = index.listed(&user_uuid(&member))?;
                                Some(PersonJson { roles, member })
                            })
                            .collect();
                        writer.json_rows(&rows)
                    },
                )
                .await
        }
        Format::Table => {
            client
                .for_each_page(&members, &options, |page: Vec<OrganizationMember>| {
                    let rows: Vec<PersonRow> = page
                        .into_iter()
                        .filter_map(|member| {
                            let roles = index.listed(&member.user.uuid)?;
                            Some(PersonRow { roles, member })
                        })
                        .collect();
                    writer.table_rows(&rows, list_cells)
                })
                .await
        }
    };
    super::end_list(writer, read)
}

async fn show(connection: &Connection, format: Format, email: &str) -> anyhow::Result<()> {
    let profile = profile_of(connection, email).await?;
    match format {
        Format::Json => output::print_json(&profile),
        Format::Table => output::print(&page(&profile)),
    }
}

/// The person's profile, or an error when the address is nobody's.
pub(super) async fn profile_of(connection: &Connection, email: &str) -> anyhow::Result<Profile> {
    Ok(profile_and_roles(connection, email).await?.0)
}

/// [`profile_of`], with the role index it was gathered from (a member's
/// roles alone in it, every role's size known): an offboarding previews
/// their access from it rather than reading every role again.
pub(super) async fn profile_and_roles(
    connection: &Connection,
    email: &str,
) -> anyhow::Result<(Profile, RoleIndex)> {
    if !email.contains('@') {
        return Err(UsageError(format!("\"{}\" is not an e-mail address", printable(email))).into());
    }
    let client = &connection.client;
    let (organization_id, member) = profile::member_of(client, &connection.organization, email).await?;
    // A member's roles are theirs alone in the index; someone who left is
    // known by what they created, and looked for in everyone's.
    let index = role_index(
        connection,
        member.as_ref().map(|member| member.user.uuid.as_str()),
    )
    .await?;
    let profile = profile::gather_member(client, &organization_id, email, member, &index).await?;
    if profile.member.is_none()
        && profile.created_subscriptions.is_empty()
        && profile.receiving_subscriptions.is_empty()
    {
        anyhow::bail!(
            "nobody with the e-mail address {} is a member of the organization, created a \
             subscription or receives one",
            printable(email)
        );
    }
    for warning in &profile.warnings {
        eprintln!("orgdeck: warning: {}", printable(warning));
    }
    Ok((profile, index))
}

/// A person's page, for people.
fn page(profile: &Profile) -> String {
    let mut out = String::new();
    let person = &profile.person;
    let mut fields = vec![("Name", person.name.clone()), ("E-mail", person.email.clone())];
    match &profile.member {
        Some(member) => {
            fields.push(("Level", level::name(member.level).into()));
            fields.push(("Joined", date(member.joined_at)));
            fields.push(("Last login", date(member.last_login)));
        }
        None => fields.push(("Member", "no (not a member of the organization)".into())),
    }
    fields.push((
        "Keys",
        match &profile.keys {
            Keys::Known(keys) if keys.has_keys => format!(
                "{} personal API key{}{}",
                keys.keys.len(),
                crate::text::plural(keys.keys.len()),
                if keys.has_keys_active_last_week {
                    ", used in the last week"
                } else {
                    ", none used in the last week"
                }
            ),
            Keys::Known(_) => "none".into(),
            Keys::Unlisted { unlisted } => format!("not listed: {unlisted}"),
            Keys::Unknown { unknown } => format!("unknown: {unknown}"),
        },
    ));
    out.push_str(&output::record(&fields));
    out.push_str(&format!("\nRoles ({})\n", profile.roles.len()));
    if profile.roles.is_empty() {
        out.push_str("  none\n");
    }
    for role in &profile.roles {
        out.push_str(&format!(
            "  {}  since {}\n",
            printable(&role.name),
            day(role.joined_at)
        ));
    }
    for (title, found) in [
        ("Created", &profile.created_subscriptions),
        ("Receiving", &profile.receiving_subscriptions),
    ] {
        out.push_str(&format!("\n{title} subscriptions ({})\n", found.len()));
        if found.is_empty() {
            out.push_str("  none\n");
        }
        for found in found {
            out.push_str(&format!("  {}\n", printable(&subscription_line(found))));
        }
    }
    if let Keys::Known(keys) = &profile.keys {
        for key in &keys.keys {
            out.push_str(&format!(
                "  key \"{}\" ({}), last used {}\n",
                printable(key.label.as_deref().unwrap_or("unlabelled")),
                printable(&key.scopes.join(",")),
                date(key.last_used_at)
            ));
        }
    }
    out.push_str(&format!("\nIf they left ({})\n", profile.would_break.len()));
    if profile.would_break.is_empty() {
        out.push_str("  nothing breaks\n");
    }
    for line in &profile.would_break {
        out.push_str(&format!("  {}\n", printable(line)));
    }
    out
}

/// `#47 "Weekly revenue" · project "Hedgebox" · to 3 · paused`.
fn subscription_line(found: &Found) -> String {
    let subscription = &found.subscription;
    let mut parts = vec![found.label(), format!("project \"{}\"", found.project.name)];
    let recipients = profile::recipients(subscription).count();
    if recipients > 0 {
        parts.push(if found.sole_recipient {
            "mails them alone".to_string()
        } else {
            format!("{recipients} recipient{}", crate::text::plural(recipients))
        });
    }
    if found.is_ai_report() {
        parts.push("AI report".into());
    }
    if subscription.enabled == Some(false) {
        parts.push("paused".into());
    }
    parts.join(" · ")
}

/// Refuses, before any preview or question, a level change the key's
/// user may not make (a plain member, their own level, an owner's): the
/// server would refuse it after the question. When the server will not
/// say who the key is, the server judges.
async fn refuse_what_the_key_cannot(
    connection: &Connection,
    member: &crate::api::OrganizationMember,
    wanted: Level,
) -> anyhow::Result<()> {
    let client = &connection.client;
    let caller = match client.organization(&connection.organization).await {
        Ok(organization) => client.caller(&organization.id).await,
        Err(error) => Err(error),
    };
    let caller = match caller {
        Ok(caller) => caller,
        Err(error) => {
            tracing::info!("the key could not be checked before changing a level: {error}");
            return Ok(());
        }
    };
    let missing = caller.missing([(
        1,
        crate::api::Operation::SetLevel {
            user_uuid: member.user.uuid.clone(),
            from: member.level,
            to: wanted.number(),
        },
    )]);
    match missing.as_slice() {
        [] => Ok(()),
        lacks => {
            let lacks: Vec<String> = lacks
                .iter()
                .map(|lack| lack.trim_end_matches(" (step 1)").to_string())
                .collect();
            Err(super::Exit {
                code: 1,
                message: printable(&format!(
                    "this key cannot change {}'s level, so nothing was asked or sent: {}",
                    member.user.email,
                    lacks.join("; ")
                ))
                .into_owned(),
            }
            .into())
        }
    }
}

async fn set_level(
    connection: &Connection,
    format: Format,
    email: &str,
    wanted: Level,
    preview: super::preview::PreviewArgs,
) -> anyhow::Result<()> {
    let client = &connection.client;
    let member = client
        .member_by_email(&connection.organization, email)
        .await?
        .ok_or_else(|| {
            anyhow::anyhow!(
                "no member of the organization has the e-mail address {}",
                printable(email)
            )
        })?;
    if member.level == wanted.number() {
        return match format {
            Format::Json => output::print_json(&member),
            Format::Table => output::print(&format!(
                "{} is {} already\n",
                printable(email),
                level::name(member.level)
            )),
        };
    }
    refuse_what_the_key_cannot(connection, &member, wanted).await?;
    let mut previewed = None;
    // The change moves their access alone: only they are read.
    let people = crate::access::directory::People::known(&[&member]);
    if let Some(session) = super::preview::Session::open_or_note(
        connection,
        crate::access::preview::world::Projects::All,
        &people,
        &preview,
    )
    .await?
    {
        let change = crate::access::preview::Change::Level {
            membership_id: member.id.to_lowercase(),
            level: wanted.number(),
        };
        let what = format!(
            "Making {} {} (now {})",
            member.user.email,
            level::name(wanted.number()),
            level::name(member.level)
        );
        let (effect, decision) =
            super::preview::show_and_ask(&session.read.world, &change, &preview, format, &what)?;
        if let super::preview::Decision::DryRun = decision {
            return Ok(());
        }
        previewed = Some((session, change, effect));
    }
    let changed = client
        .set_member_level(&connection.organization, &member.user.uuid, wanted.number())
        .await?;
    if let Some((session, change, effect)) = &previewed {
        super::preview::check(session, change, effect).await;
    }
    match format {
        Format::Json => output::print_json(&changed),
        Format::Table => output::print(&format!(
            "{} is now {} (was {})\n",
            printable(email),
            level::name(changed.level),
            level::name(member.level)
        )),
    }
}
