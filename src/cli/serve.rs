//! `orgdeck serve`, `orgdeck demo` and `orgdeck keys create`.

use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};

use super::connection::{Connection, ConnectionArgs};
use super::{ConsoleFlags, UsageError};
use crate::api::{ApiKey, Client, ClientConfig};
use crate::console::{self, Context as ConsoleContext};
use crate::logging;
use crate::server::demo::{self};
use crate::server::store::keys::Restrictions;
use crate::server::store::{Db, directory, keys};
use crate::server::{self, Flavor, Seed, ServeOptions};

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// Once the console has quit, nothing it started is worth waiting for: a
/// request or a profile's key command still running is abandoned.
fn quit_without_waiting(runtime: tokio::runtime::Runtime) {
    crate::config::stop_running_key_commands();
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
}

/// SIGINT (Ctrl-C) and SIGTERM, caught from the moment this is made: make
/// it before saying the server is ready, so that a signal sent right after
/// the ready line stops the server cleanly instead of killing it.
struct StopSignals {
    interrupt: tokio::signal::unix::Signal,
    terminate: tokio::signal::unix::Signal,
}

impl StopSignals {
    fn install() -> anyhow::Result<StopSignals> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(StopSignals {
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
        })
    }

    async fn wait(mut self) {
        tokio::select! {
            _ = self.interrupt.recv() => {}
            _ = self.terminate.recv() => {}
        }
    }
}

/// `serve`'s access-control options (posthog.md 16).
#[derive(Debug, Clone, clap::Args)]
pub struct AccessFlags {
    /// Serve a plan without access control: no rule is read and every level is
    /// the built-in default, as PostHog does without the feature.
    #[arg(long)]
    pub no_access_control: bool,
    /// Serve a plan without role-based access: roles' rules are ignored and a
    /// rule naming a role is refused.
    #[arg(long)]
    pub no_role_based_access: bool,
    /// How an organization that has not chosen resolves rules that disagree: the
    /// highest level wins (PostHog today), or the most specific rule wins (an
    /// organization chooses with `uses_most_specific_access_resolution`).
    #[arg(long, value_enum, value_name = "MODE", default_value = "highest-wins")]
    pub access_resolution: Resolution,
    /// Add this many synthetic roles to the first organization at start, each
    /// active member in one to three of them.
    #[arg(long, value_name = "N", default_value_t = 0,
          value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    pub generate_roles: u64,
    /// Add this many synthetic projects, with access rules, to the first
    /// organization at start.
    #[arg(long, value_name = "N", default_value_t = 0,
          value_parser = clap::value_parser!(u64).range(0..=1_000))]
    pub generate_projects: u64,
}

/// `--access-resolution`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Resolution {
    HighestWins,
    MostSpecific,
}

impl AccessFlags {
    pub fn options(&self) -> crate::server::access::AccessOptions {
        crate::server::access::AccessOptions {
            plan: crate::api::access::Plan {
                access_control: !self.no_access_control,
                role_based_access: !self.no_role_based_access,
            },
            resolution: match self.access_resolution {
                Resolution::HighestWins => crate::api::access::Mode::HighestWins,
                Resolution::MostSpecific => crate::api::access::Mode::MostSpecific,
            },
            generate_roles: self.generate_roles,
            generate_projects: self.generate_projects,
        }
    }
}

pub fn serve(options: ServeOptions) -> anyhow::Result<ExitCode> {
    logging::init(crate::config::open_log()?);
    runtime()?.block_on(async {
        let running = server::start(options).await?;
        let signals = StopSignals::install()?;
        let mut stdout = std::io::stdout().lock();
        serde_json::to_writer(&mut stdout, &running.ready)?;
        writeln!(stdout)?;
        stdout.flush()?;
        drop(stdout);
        signals.wait().await;
        tracing::info!("stopping on signal");
        running.stop().await?;
        Ok(ExitCode::SUCCESS)
    })
}

/// `orgdeck demo`: the reference server with the demo data on a free
/// loopback port, in this process, and the console on it. The data lives in
/// a temporary file unless `--db` names one.
pub fn demo(db: Option<PathBuf>, flavor: Flavor, flags: ConsoleFlags) -> anyhow::Result<ExitCode> {
    logging::init(crate::config::open_log()?);
    // The temporary directory lives as long as the demo does.
    let (db_path, _temporary) = match db {
        Some(path) => (path, None),
        None => {
            let dir = tempfile::tempdir().context("cannot create a temporary directory")?;
            (dir.path().join("demo.sqlite"), Some(dir))
        }
    };
    let runtime = runtime()?;
    let outcome = runtime.block_on(async {
        let running = server::start(ServeOptions {
            listen: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            db: db_path.clone(),
            seed: Seed::Demo,
            generate_subscriptions: 0,
            generate_members: 0,
            rate_limit: None,
            delay: None,
            clock: crate::clock::Clock::system(),
            public_url: None,
            read_timeouts: Default::default(),
            flavor,
            subscription_limit: None,
            max_limit: None,
            export_cap: crate::server::DEFAULT_EXPORT_CAP,
            access: Default::default(),
            keys_listed: false,
        })
        .await?;
        let key = match running.ready.api_key.clone() {
            Some(key) => key,
            // A kept --db was seeded before: mint a fresh key for its owner.
            None => {
                let db = running.db.clone();
                let owner = db
                    .read_blocking(directory::first_owner)
                    .map_err(|error| anyhow::anyhow!("cannot read the demo database: {:?}", error.body))?
                    .context("the demo database has no owner")?;
                db.write_blocking(|tx| keys::mint(tx, owner, "orgdeck demo", &["*".to_string()]))
                    .map_err(|error| anyhow::anyhow!("cannot mint a demo key: {:?}", error.body))?
            }
        };
        let client = Client::new(ClientConfig::new(&running.ready.base_url, ApiKey::new(key)))?;
        let file = crate::config::load()?.map(|(file, _)| file);
        let zone = show_times_in(flags.tz.as_deref(), None)?;
        let context = ConsoleContext {
            host: running.ready.base_url.clone(),
            demo: true,
            organization: running.ready.organization_id.clone(),
            project: running.ready.project_id.to_string(),
            read_only: flags.read_only,
            refresh: flags.refresh,
            mouse: wants_mouse(&flags, file.as_ref()),
            zone_given: flags.tz.is_some(),
            zone,
            ..ConsoleContext::default()
        };
        let outcome = console::run(client, context, file).await;
        running.stop().await?;
        Ok(outcome?.exit_code())
    });
    quit_without_waiting(runtime);
    outcome
}

/// `orgdeck` alone: the console on the configured host.
pub fn console(connection: &ConnectionArgs, flags: ConsoleFlags) -> anyhow::Result<ExitCode> {
    logging::init(crate::config::open_log()?);
    let Connection {
        client,
        organization,
        project,
        profile,
        origin,
        file,
        refresh: profile_refresh,
        look,
    } = connection.connect().map_err(|error| {
        anyhow::Error::from(UsageError(format!(
            "{error}; or try `orgdeck demo` for a console on demo data"
        )))
    })?;
    if let Some(seconds) = profile_refresh.filter(|seconds| *seconds > 86_400) {
        return Err(UsageError(format!(
            "the profile's refresh = {seconds} is more than a day: 1 to 86400 seconds, or 0 for off"
        ))
        .into());
    }
    let mut context = ConsoleContext {
        host: client.base_url().as_str().trim_end_matches('/').to_string(),
        profile,
        origin,
        demo: false,
        organization,
        project,
        read_only: flags.read_only,
        // The flag wins over the profile; 0 in a profile is off.
        refresh: flags.refresh.or(profile_refresh).filter(|seconds| *seconds > 0),
        mouse: wants_mouse(&flags, file.as_ref()),
        color: look
            .color
            .as_deref()
            .map(crate::config::colour::profile_color)
            .transpose()
            .map_err(|error| UsageError(format!("the profile's {error}")))?,
        production: look.production,
        zone_given: flags.tz.is_some(),
        ..ConsoleContext::default()
    };
    context.zone = show_times_in(flags.tz.as_deref(), look.tz.as_deref())?;
    let runtime = runtime()?;
    let outcome = runtime.block_on(console::run(client, context, file));
    quit_without_waiting(runtime);
    Ok(outcome?.exit_code())
}

/// The zone the console shows times in: the flag's, else the profile's,
/// else the machine's own.
fn show_times_in(flag: Option<&str>, profile: Option<&str>) -> anyhow::Result<crate::display::Zone> {
    let (text, whose) = match (flag, profile) {
        (Some(text), _) => (text, "--tz"),
        (None, Some(text)) => (text, "the profile's tz"),
        (None, None) => ("local", ""),
    };
    let zone = text
        .parse::<crate::display::Zone>()
        .map_err(|error| UsageError(format!("{whose}: {error}")))?;
    Ok(zone)
}

/// The mouse is on unless `--no-mouse` or the config file's `mouse = false`.
fn wants_mouse(flags: &ConsoleFlags, file: Option<&crate::config::ConfigFile>) -> bool {
    !flags.no_mouse && file.and_then(|file| file.mouse) != Some(false)
}

/// What `orgdeck keys create` was asked for.
pub struct NewKey<'a> {
    pub db_path: &'a Path,
    pub scopes: &'a [String],
    pub email: Option<&'a str>,
    pub label: Option<&'a str>,
    pub restrictions: Restrictions,
    /// Whether a missing database file may be created.
    pub create: bool,
}

pub fn create_key(request: &NewKey) -> anyhow::Result<ExitCode> {
    let NewKey {
        db_path,
        scopes,
        email,
        label,
        restrictions,
        create,
    } = request;
    let scopes: Vec<String> = scopes
        .iter()
        .map(|scope| scope.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    if scopes.is_empty() {
        bail!(
            "--scopes needs at least one scope, e.g. --scopes organization:read,subscription:read or --scopes '*'"
        );
    }
    if let Some(bad) = scopes.iter().find(|scope| !keys::is_valid_scope(scope)) {
        bail!("\"{bad}\" is not a scope; scopes look like organization:read, subscription:write or *");
    }
    // A typo must not mint a key for a database nobody serves.
    if !create && !db_path.exists() {
        bail!(
            "there is no database at {}; give the path `orgdeck serve --db` uses, or add --create to make a new one",
            db_path.display()
        );
    }
    let db = Db::open(db_path).with_context(|| format!("cannot open the database {}", db_path.display()))?;
    let failed =
        |error: server::ApiError| anyhow::anyhow!("database error: {:?}", error.body.map(|b| b.detail));
    // A new file gets an organization and its owner, so a key has someone to belong to.
    demo::prepare(
        &db,
        Seed::None,
        demo::Scale::default(),
        crate::clock::system_now(),
        Default::default(),
    )
    .map_err(failed)?;
    let organizations = restrictions.organizations.clone();
    let projects = restrictions.projects.clone();
    let unknown = db
        .read_blocking(move |connection| {
            let mut unknown = Vec::new();
            for organization in &organizations {
                if !directory::organization_exists(connection, organization)? {
                    unknown.push(format!("organization {organization}"));
                }
            }
            for &project in &projects {
                if directory::project_organization(connection, project)?.is_none() {
                    unknown.push(format!("project {project}"));
                }
            }
            Ok(unknown)
        })
        .map_err(failed)?;
    if !unknown.is_empty() {
        bail!("{} has no {}", db_path.display(), unknown.join(", no "));
    }
    let user_id = match email {
        Some(email) => db
            .read_blocking(|connection| directory::user_by_email(connection, email))
            .map_err(failed)?
            .with_context(|| format!("no user with the e-mail address {email} in {}", db_path.display()))?,
        None => db
            .read_blocking(directory::first_owner)
            .map_err(failed)?
            .with_context(|| {
                format!(
                    "{} has no organization owner to mint a key for",
                    db_path.display()
                )
            })?,
    };
    let label = label.unwrap_or("orgdeck keys create").to_string();
    let key = db
        .write_blocking(|tx| keys::mint_restricted(tx, user_id, &label, &scopes, restrictions))
        .map_err(failed)?;
    println!("{key}");
    Ok(ExitCode::SUCCESS)
}
