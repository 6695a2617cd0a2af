//! The command line of design.md (a fixed interface) and its dispatch.

mod access;
mod catalog;
mod code;
mod connection;
mod dashboards;
mod insights;
mod login;
mod members;
mod offboard;
pub mod output;
mod people;
mod preview;
mod roles;
mod serve;
mod shell;
mod subscriptions;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use std::io::Write as _;

use clap::{Parser, Subcommand};

use crate::server::store::keys::Restrictions;
use crate::server::{Flavor, RateLimit, Seed, ServeOptions};

#[derive(Debug, Parser)]
#[command(
    name = "orgdeck",
    version,
    about = "A terminal console for PostHog organization roles and project subscriptions",
    long_about = "A terminal console for PostHog organization roles and project subscriptions.\n\n\
                  Without a command, orgdeck opens the console on the host, organization and project\n\
                  of the flags and environment (ORGDECK_HOST, ORGDECK_ORG, ORGDECK_PROJECT,\n\
                  ORGDECK_API_KEY). `orgdeck demo` opens it on a reference server of its own."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub connection: connection::ConnectionArgs,
    /// Output format of the scriptable commands.
    #[arg(
        short,
        long,
        global = true,
        value_enum,
        default_value = "table",
        help_heading = "Global options"
    )]
    pub output: output::Requested,
    /// Change nothing: the console disables every write, and a command that
    /// would write (create, update, delete, add, remove, pause, resume, test,
    /// login, keys) refuses to run.
    #[arg(long, global = true, help_heading = "Global options")]
    pub read_only: bool,
    /// The console fetches the list on screen again every SECONDS (1 to
    /// 86400), keeping the cursor on its row; off by default, and a
    /// profile may set `refresh = N`. For the console only (`orgdeck`,
    /// `orgdeck demo`): other commands refuse it.
    #[arg(long, global = true, value_name = "SECONDS", value_parser = clap::value_parser!(u32).range(1..=86_400),
          help_heading = "Global options")]
    pub refresh: Option<u32>,
    /// The console takes no clicks or wheel (the terminal's own selection
    /// works without Shift); a config file may say `mouse = false`.
    #[arg(long, global = true, help_heading = "Global options")]
    pub no_mouse: bool,
    /// The zone the console shows times in: local (the default), UTC, or
    /// one like Europe/Paris; a profile may set `tz = "..."`.
    #[arg(long, global = true, value_name = "ZONE", help_heading = "Global options")]
    pub tz: Option<String>,
}

/// What the console is asked for beyond the connection.
#[derive(Debug, Clone)]
pub struct ConsoleFlags {
    pub read_only: bool,
    pub refresh: Option<u32>,
    pub no_mouse: bool,
    pub tz: Option<String>,
}

// The command line is parsed once per run: the size of its largest variant
// costs nothing worth boxing for.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Open the console on a reference server of its own with the demo data.
    Demo {
        /// Keep the data in this SQLite file (default: a temporary one).
        #[arg(long)]
        db: Option<PathBuf>,
        /// Which PostHog the server behaves as: today's, or the older docs'.
        #[arg(long, value_enum, default_value = "current")]
        api: Flavor,
    },
    /// Run the reference server headless; prints one JSON ready line.
    Serve {
        /// Address to listen on; port 0 picks a free port.
        #[arg(long, default_value = "127.0.0.1:8010")]
        listen: SocketAddr,
        /// The SQLite file holding the data (created when missing).
        #[arg(long, default_value = "./orgdeck.sqlite")]
        db: PathBuf,
        /// What an empty database is filled with.
        #[arg(long, value_enum, default_value = "none")]
        seed: Seed,
        /// Which PostHog to behave as: today's (spec/posthog.md), or the
        /// older docs' (spec/api.md and compat.md) for older self-hosted instances.
        #[arg(long, value_enum, default_value = "current")]
        api: Flavor,
        /// Add this many synthetic subscriptions to the first project at start.
        #[arg(long, value_name = "N", default_value_t = 0,
              value_parser = clap::value_parser!(u64).range(0..=10_000_000))]
        generate_subscriptions: u64,
        /// Add this many synthetic active members to the first organization at
        /// start (generated names and addresses), to rehearse a large company.
        #[arg(long, value_name = "N", default_value_t = 0,
              value_parser = clap::value_parser!(u64).range(0..=10_000_000))]
        generate_members: u64,
        /// Limit each key's requests as PostHog does, e.g. 480/4800 (per minute/per hour).
        #[arg(long, value_name = "PER_MINUTE/PER_HOUR")]
        rate_limit: Option<RateLimit>,
        /// Hold every answer this many milliseconds, to rehearse a distant or slow server.
        #[arg(long, value_name = "MS")]
        delay: Option<u64>,
        /// The address clients reach the server at, when not the listen
        /// address (behind a proxy): paging links are built on it.
        #[arg(long, value_name = "URL", value_parser = parse_public_url)]
        public_url: Option<String>,
        /// Refuse to create (or restore) a subscription past this many in a
        /// project, with the plan-limit error of today's PostHog.
        #[arg(long, value_name = "N")]
        subscription_limit: Option<u64>,
        /// The most rows one page may hold: a larger `limit` is lowered to it, as
        /// DRF's `max_limit` does. PostHog sets none, nor does this server unless asked.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        max_limit: Option<u64>,
        /// The most insights a dashboard subscription may export: 6 as on PostHog's free
        /// plan, more as on a paid one (25 by default there).
        #[arg(long, value_name = "N", default_value_t = crate::server::DEFAULT_EXPORT_CAP as u16,
              value_parser = clap::value_parser!(u16).range(1..))]
        export_cap: u16,
        #[command(flatten)]
        access: serve::AccessFlags,
    },
    /// Set up a profile: asks for host and key, checks the key, picks organization and
    /// project, and writes the profile (named by --profile, else "default") owner-only.
    Login {
        /// Replace the profile if it exists, without asking (for scripts).
        #[arg(long)]
        replace: bool,
    },
    /// Personal API keys of the reference server's database.
    Keys {
        #[command(subcommand)]
        command: KeysCommand,
    },
    /// Organization roles.
    Roles {
        #[command(subcommand)]
        command: roles::RolesCommand,
    },
    /// Members of a role.
    Members {
        #[command(subcommand)]
        command: members::MembersCommand,
    },
    /// The organization by person: who holds which roles, what a person
    /// created and receives, offboarding in one reviewed step, levels.
    People {
        #[command(subcommand)]
        command: people::PeopleCommand,
    },
    /// Write the organization's roles and the project's subscriptions to one
    /// human-editable file (TOML; JSON with -o json), to review and apply as code.
    Export(code::ExportArgs),
    /// Compare a file of `export` with the server and print the plan: exit 0
    /// with nothing to do, 2 with changes, 1 on an error.
    Plan(code::PlanArgs),
    /// Show the plan of a file, ask once, then apply it in a safe order;
    /// entries created get their new id written back into the file.
    Apply(code::apply::ApplyArgs),
    /// Project subscriptions.
    #[command(alias = "subs")]
    Subscriptions {
        #[command(subcommand)]
        command: subscriptions::SubscriptionsCommand,
    },
    /// What each person can reach and why, what a role grants, who reaches
    /// a thing, and the access review (PostHog's access control).
    Access {
        #[command(subcommand)]
        command: access::AccessCommand,
    },
    /// The project's dashboards, which a subscription can deliver
    /// (`--dashboard` takes an id or a name).
    Dashboards {
        #[command(subcommand)]
        command: dashboards::DashboardsCommand,
    },
    /// The project's insights, which a subscription can deliver
    /// (`--insight` takes an id, a short id or a name).
    Insights {
        #[command(subcommand)]
        command: insights::InsightsCommand,
    },
    /// Print the completion script for a shell: bash, zsh, fish or powershell
    /// (e.g. `orgdeck completions bash > ~/.local/share/bash-completion/completions/orgdeck`).
    Completions {
        /// The shell to complete for.
        #[arg(value_enum)]
        shell: shell::Shell,
    },
    /// Print the manual page of orgdeck and its commands, in roff
    /// (e.g. `orgdeck man | man -l -`).
    Man,
}

impl Command {
    /// Whether the command changes anything on a server or on disk.
    fn writes(&self) -> bool {
        match self {
            Command::Roles { command } => command.writes(),
            Command::Members { command } => command.writes(),
            Command::People { command } => command.writes(),
            Command::Subscriptions { command } => command.writes(),
            Command::Access { command } => command.writes(),
            Command::Login { .. } | Command::Keys { .. } => true,
            Command::Export(_)
            | Command::Plan(_)
            | Command::Dashboards { .. }
            | Command::Insights { .. }
            | Command::Completions { .. }
            | Command::Man => false,
            Command::Apply(_) => true,
            // The reference server is the user's own rehearsal; the console
            // of `demo` honours --read-only itself.
            Command::Demo { .. } | Command::Serve { .. } => false,
        }
    }

    /// Whether `--deadline` bounds the command: those that work against a
    /// server, not the console, the reference server, `login` (which
    /// waits for answers) or what works offline.
    fn has_deadline(&self) -> bool {
        match self {
            Command::Roles { .. }
            | Command::Members { .. }
            | Command::People { .. }
            | Command::Subscriptions { .. }
            | Command::Dashboards { .. }
            | Command::Insights { .. }
            | Command::Access { .. }
            | Command::Plan(_)
            | Command::Apply(_) => true,
            Command::Export(args) => !code::export_is_offline(args),
            Command::Login { .. }
            | Command::Keys { .. }
            | Command::Demo { .. }
            | Command::Serve { .. }
            | Command::Completions { .. }
            | Command::Man => false,
        }
    }

    /// How long the command may take unless `--deadline` says otherwise.
    fn span(&self) -> Span {
        match self {
            Command::Roles { command } => command.span(),
            Command::Members { command } => command.span(),
            Command::People { command } => command.span(),
            Command::Subscriptions { command } => command.span(),
            Command::Export(_) | Command::Plan(_) | Command::Dashboards { .. } | Command::Insights { .. } => {
                Span::Lists
            }
            // A review reads every project and object, paced.
            Command::Access { command } if command.is_long() => Span::Paced,
            Command::Access { .. } => Span::Lists,
            Command::Apply(_) => Span::Paced,
            Command::Login { .. }
            | Command::Keys { .. }
            | Command::Demo { .. }
            | Command::Serve { .. }
            | Command::Completions { .. }
            | Command::Man => Span::One,
        }
    }

    /// The command as typed, for messages: `roles delete`.
    fn name(&self) -> String {
        let (group, action) = match self {
            Command::Roles { command } => ("roles", format!("{command:?}")),
            Command::Members { command } => ("members", format!("{command:?}")),
            Command::People { command } => ("people", format!("{command:?}")),
            Command::Subscriptions { command } => ("subscriptions", format!("{command:?}")),
            Command::Access { command } => ("access", format!("{command:?}")),
            Command::Dashboards { command } => ("dashboards", format!("{command:?}")),
            Command::Insights { command } => ("insights", format!("{command:?}")),
            Command::Login { .. } => return "login".into(),
            Command::Export(_) => return "export".into(),
            Command::Plan(_) => return "plan".into(),
            Command::Apply(_) => return "apply".into(),
            Command::Keys { .. } => return "keys create".into(),
            Command::Demo { .. } => return "demo".into(),
            Command::Serve { .. } => return "serve".into(),
            Command::Completions { .. } => return "completions".into(),
            Command::Man => return "man".into(),
        };
        let action = action
            .split([' ', '{', '('])
            .next()
            .unwrap_or_default()
            .to_lowercase();
        format!("{group} {action}")
    }
}

impl Cli {
    fn console_flags(&self) -> ConsoleFlags {
        ConsoleFlags {
            read_only: self.read_only,
            refresh: self.refresh,
            no_mouse: self.no_mouse,
            tz: self.tz.clone(),
        }
    }
}

/// `--public-url`: an absolute http(s) URL without query or fragment.
fn parse_public_url(text: &str) -> Result<String, String> {
    let url = url::Url::parse(text).map_err(|error| format!("not a URL ({error})"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err("give an http:// or https:// address, e.g. https://orgdeck.example.com".into());
    }
    if url.query().is_some()
        || url.fragment().is_some()
        || !url.username().is_empty()
        || url.password().is_some()
    {
        return Err("give the address alone, without credentials, query or fragment".into());
    }
    Ok(url.as_str().trim_end_matches('/').to_string())
}

/// A command line that cannot work as given: exits with status 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// A command that ran and has a status of its own to exit with (`subs
/// health --check` finding failures: 3), and says why on stderr.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Exit {
    pub code: u8,
    pub message: String,
}

/// The exit status for an error: 2 for usage errors, a command's own for
/// [`Exit`], 1 for the rest.
pub fn exit_code(error: &anyhow::Error) -> ExitCode {
    if error.downcast_ref::<UsageError>().is_some() {
        ExitCode::from(2)
    } else if let Some(exit) = error.downcast_ref::<Exit>() {
        ExitCode::from(exit.code)
    } else {
        ExitCode::FAILURE
    }
}

/// A command line clap refused (or help and version, which it prints):
/// printed as clap prints it, with clap's status (2 for a usage error) but
/// for `plan`, whose 2 means "changes" (Terraform's -detailed-exitcode), so
/// that its usage errors exit 1.
pub fn refused_command_line(error: clap::Error) -> ExitCode {
    use clap::CommandFactory as _;
    let _ = error.print();
    if !error.use_stderr() {
        return ExitCode::SUCCESS;
    }
    let partial = Cli::command()
        .ignore_errors(true)
        .try_get_matches_from(std::env::args_os());
    match partial {
        Ok(matches) if matches.subcommand_name() == Some("plan") => ExitCode::FAILURE,
        _ => ExitCode::from(2),
    }
}

/// A JSON object from a file, or from stdin for `-`.
fn body_from(source: &str) -> anyhow::Result<serde_json::Map<String, serde_json::Value>> {
    let text = if source == "-" {
        std::io::read_to_string(std::io::stdin())
            .map_err(|error| UsageError(format!("--body -: cannot read stdin: {error}")))?
    } else {
        std::fs::read_to_string(source).map_err(|error| UsageError(format!("--body {source}: {error}")))?
    };
    match serde_json::from_str(&text) {
        Ok(serde_json::Value::Object(object)) => Ok(object),
        Ok(_) => Err(UsageError(format!("--body {source}: the body must be a JSON object")).into()),
        Err(error) => Err(UsageError(format!("--body {source}: not JSON: {error}")).into()),
    }
}

/// A date-time for people: `2026-11-23 09:00:00 UTC`, or `-`.
fn date(at: Option<chrono::DateTime<chrono::Utc>>) -> String {
    at.map(|at| at.format("%Y-%m-%d %H:%M:%S UTC").to_string())
        .unwrap_or_else(|| "-".into())
}

/// The day alone, for tables: `2026-11-23`, or nothing.
fn day(at: Option<chrono::DateTime<chrono::Utc>>) -> String {
    at.map(|at| at.format("%Y-%m-%d").to_string()).unwrap_or_default()
}

/// What a command does, for the time it is given by default (`--deadline`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Span {
    /// Reads or changes one thing: 2 minutes.
    One,
    /// Reads lists, or the organization as a whole (`export`, `plan`,
    /// `people show`, an offboarding's plan): 10 minutes.
    Lists,
    /// Changes many things, or reads many, paced under PostHog's rate limit
    /// (`apply`, `people offboard`, `subs health`): an hour.
    Paced,
}

impl Span {
    pub fn deadline(self) -> std::time::Duration {
        std::time::Duration::from_secs(match self {
            Span::One => 120,
            Span::Lists => 600,
            Span::Paced => 3600,
        })
    }
}

/// How the CLI fetches a whole list: pages ahead in parallel, a progress
/// line on a terminal; the row cap is the client's (`--max-rows`).
fn list_options(what: &str) -> crate::api::FetchAll {
    crate::api::FetchAll {
        progress: output::progress(what),
        ..crate::api::FetchAll::default()
    }
}

/// Ends a list whose rows were written as its pages arrived: the output
/// closed (a JSON array's bracket), and when the server did not send the
/// list whole, what it did wrong as warnings on stderr (rows repeated,
/// fewer than its count, a list that changed meanwhile) and exit 1: the
/// rows written are not all of it.
fn end_list(writer: output::ListWriter, read: anyhow::Result<crate::api::Complete>) -> anyhow::Result<()> {
    let error = match read {
        Ok(_) => return writer.finish(),
        Err(error) => error,
    };
    let Some(crate::api::Error::Incomplete(incomplete)) = error.downcast_ref::<crate::api::Error>() else {
        return Err(error);
    };
    writer.finish()?;
    let mut stderr = std::io::stderr().lock();
    if std::io::IsTerminal::is_terminal(&stderr) {
        // The progress line stopped short of its count: clear it first.
        let _ = std::io::Write::write_all(&mut stderr, b"\r\x1b[2K");
    }
    for warning in incomplete.warnings() {
        let _ = writeln!(stderr, "orgdeck: warning: {}", crate::text::printable(&warning));
    }
    Err(Exit {
        code: 1,
        message: format!(
            "{}: the rows written are not the whole list of {}, as the warnings say",
            incomplete.request,
            crate::text::printable(&incomplete.list)
        ),
    }
    .into())
}

/// Why a search through a list stopped before its end.
enum Stop {
    /// It found what it looked for.
    Found,
    Failed(anyhow::Error),
}

impl From<crate::api::Error> for Stop {
    fn from(error: crate::api::Error) -> Self {
        Stop::Failed(error.into())
    }
}

/// Reads a list a page at a time, handing each row to `look`, until `look`
/// says it has found what it wanted (`true`) or the list ends; holds none of
/// the rows. Returns whether it stopped on a find.
async fn search_list<T: crate::api::Row>(
    client: &crate::api::Client,
    list: &crate::api::List<T>,
    what: &str,
    mut look: impl FnMut(T) -> bool,
) -> anyhow::Result<bool> {
    let outcome = client
        .for_each_page(list, &list_options(what), |rows: Vec<T>| {
            for row in rows {
                if look(row) {
                    return Err(Stop::Found);
                }
            }
            Ok(())
        })
        .await;
    match outcome {
        Ok(_) => Ok(false),
        Err(Stop::Found) => Ok(true),
        Err(Stop::Failed(error)) => Err(error),
    }
}

#[derive(Debug, Subcommand)]
pub enum KeysCommand {
    /// Mint a personal API key; prints the key alone.
    Create {
        /// The reference server's SQLite file.
        #[arg(long)]
        db: PathBuf,
        /// Comma-separated scopes, e.g. organization:read,subscription:write or *.
        #[arg(long, value_delimiter = ',', required = true)]
        scopes: Vec<String>,
        /// Whose key it is (default: the organization's owner).
        #[arg(long)]
        email: Option<String>,
        /// A label to recognise the key by.
        #[arg(long)]
        label: Option<String>,
        /// Limit the key to this organization (a UUID); repeat for more.
        #[arg(long = "scoped-organization", value_name = "UUID")]
        scoped_organizations: Vec<uuid::Uuid>,
        /// Limit the key to this project (an id); repeat for more.
        #[arg(long = "scoped-project", value_name = "ID")]
        scoped_projects: Vec<i64>,
        /// Create the database (with an organization and its owner) when
        /// the file does not exist, rather than refusing.
        #[arg(long)]
        create: bool,
    },
}

/// Runs a parsed command line; returns the process exit status.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let requested = cli.output;
    let flags = cli.console_flags();
    let Some(command) = cli.command else {
        if cli.connection.deadline.is_some() {
            return Err(UsageError(
                "--deadline bounds a command; the console runs until you quit it, and --timeout bounds each of its requests".into(),
            )
            .into());
        }
        return serve::console(&cli.connection, flags);
    };
    let format = match requested.format() {
        Some(format) => format,
        None if matches!(&command, Command::Access { command } if command.takes_csv()) => {
            output::Format::Table
        }
        None => {
            return Err(UsageError(format!(
                "-o csv is for `orgdeck access review`; `orgdeck {}` prints a table or JSON",
                command.name()
            ))
            .into());
        }
    };
    if cli.tz.is_some() && !matches!(command, Command::Demo { .. }) {
        return Err(UsageError(format!(
            "--tz is for the console (`orgdeck`, `orgdeck demo`); `orgdeck {}` prints UTC (and -o json the server's times)",
            command.name()
        ))
        .into());
    }
    if cli.no_mouse && !matches!(command, Command::Demo { .. }) {
        return Err(UsageError(format!(
            "--no-mouse is for the console (`orgdeck`, `orgdeck demo`); `orgdeck {}` has no mouse",
            command.name()
        ))
        .into());
    }
    if cli.refresh.is_some() && !matches!(command, Command::Demo { .. }) {
        return Err(UsageError(format!(
            "--refresh is for the console (`orgdeck`, `orgdeck demo`); `orgdeck {}` runs once",
            command.name()
        ))
        .into());
    }
    if cli.connection.deadline.is_some() && !command.has_deadline() {
        return Err(UsageError(format!(
            "--deadline bounds a command that works against a server; `orgdeck {}` has none",
            command.name()
        ))
        .into());
    }
    let span = command.span();
    if cli.read_only && command.writes() {
        return Err(UsageError(format!(
            "--read-only: `orgdeck {}` would change things, so it does not run",
            command.name()
        ))
        .into());
    }
    match command {
        Command::Completions { shell } => shell::completions(shell).map(|()| ExitCode::SUCCESS),
        Command::Man => shell::man().map(|()| ExitCode::SUCCESS),
        Command::Roles { command } => run_api(&cli.connection, span, |c| roles::run(command, c, format)),
        Command::Members { command } => run_api(&cli.connection, span, |c| members::run(command, c, format)),
        Command::People { command } => run_api(&cli.connection, span, |c| people::run(command, c, format)),
        Command::Subscriptions { command } => {
            run_api(&cli.connection, span, |c| subscriptions::run(command, c, format))
        }
        Command::Dashboards { command } => {
            run_api(&cli.connection, span, |c| dashboards::run(command, c, format))
        }
        Command::Insights { command } => {
            run_api(&cli.connection, span, |c| insights::run(command, c, format))
        }
        Command::Access { command } => {
            let project = cli.connection.project.clone();
            run_api(&cli.connection, span, |c| {
                access::run(command, c, requested, project)
            })
        }
        Command::Export(args) if code::export_is_offline(&args) => {
            code::print_schema()?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Export(args) => run_api(&cli.connection, span, |c| code::export(args, c, format)),
        // Terraform's -detailed-exitcode: 2 means changes, so any error is 1.
        Command::Plan(args) => {
            run_api(&cli.connection, span, |c| code::plan(args, c, format)).map_err(exit_one)
        }
        // Apply fails with 1 too, naming the failed steps.
        Command::Apply(args) => {
            run_api(&cli.connection, span, |c| code::apply::apply(args, c, format)).map_err(exit_one)
        }
        Command::Demo { db, api } => serve::demo(db, api, flags),
        Command::Login { replace } => {
            let name = cli.connection.profile.clone().unwrap_or_else(|| "default".into());
            login::login(&cli.connection, &name, replace)
        }
        Command::Serve {
            listen,
            db,
            seed,
            api,
            generate_subscriptions,
            generate_members,
            rate_limit,
            delay,
            public_url,
            subscription_limit,
            max_limit,
            export_cap,
            access,
        } => serve::serve(ServeOptions {
            listen,
            db,
            seed,
            generate_subscriptions,
            generate_members,
            rate_limit,
            delay: delay.map(std::time::Duration::from_millis),
            clock: crate::clock::Clock::system(),
            public_url,
            read_timeouts: Default::default(),
            flavor: api,
            subscription_limit,
            max_limit,
            export_cap: usize::from(export_cap),
            access: access.options(),
            keys_listed: false,
        }),
        Command::Keys {
            command:
                KeysCommand::Create {
                    db,
                    scopes,
                    email,
                    label,
                    scoped_organizations,
                    scoped_projects,
                    create,
                },
        } => serve::create_key(&serve::NewKey {
            db_path: &db,
            scopes: &scopes,
            email: email.as_deref(),
            label: label.as_deref(),
            restrictions: Restrictions {
                organizations: scoped_organizations
                    .iter()
                    .map(|id| id.hyphenated().to_string())
                    .collect(),
                projects: scoped_projects,
            },
            create,
        }),
    }
}

/// Any error as exit status 1 unless it has its own (plan's changes: 2).
fn exit_one(error: anyhow::Error) -> anyhow::Error {
    if error.downcast_ref::<Exit>().is_some() {
        error
    } else {
        Exit {
            code: 1,
            message: format!("{error:#}"),
        }
        .into()
    }
}

/// Time left to a command past its deadline to end on its own (each
/// request and wait is cut to the deadline already) before it is stopped.
const GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// Runs one of the API commands on a small runtime, logging to the log
/// file, within its deadline (`--deadline`, else the span's) and holding
/// no more than `--max-held-mib` of the lists it reads whole.
fn run_api<F>(
    args: &connection::ConnectionArgs,
    span: Span,
    command: impl FnOnce(connection::Connection) -> F,
) -> anyhow::Result<ExitCode>
where
    F: std::future::Future<Output = anyhow::Result<()>>,
{
    crate::logging::init(crate::config::open_log()?);
    let deadline = args.deadline(span);
    let connection = args.connect_command(deadline)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let client = connection.client.clone();
    let outcome = runtime.block_on(async {
        match tokio::time::timeout(deadline + GRACE, command(connection)).await {
            Ok(outcome) => outcome,
            Err(_) => Err(Exit {
                code: 1,
                message: format!(
                    "the command's deadline of {} s passed (--deadline), so orgdeck stopped it; give it longer with --deadline SECONDS",
                    deadline.as_secs_f64()
                ),
            }
            .into()),
        }
    });
    // What the client worked around on an older server, said once.
    for note in client.take_notes() {
        eprintln!("orgdeck: note: {}", crate::text::printable(&note));
    }
    outcome?;
    Ok(ExitCode::SUCCESS)
}
