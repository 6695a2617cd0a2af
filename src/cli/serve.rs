//! `orgdeck serve`, `orgdeck demo` and `orgdeck keys create`.

use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};

use crate::logging;
use crate::server::demo::{self};
use crate::server::store::{Db, directory, keys};
use crate::server::{self, Seed, ServeOptions};

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// Waits for SIGINT (Ctrl-C) or SIGTERM.
async fn stop_signal() -> anyhow::Result<()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut terminate = signal(SignalKind::terminate())?;
        tokio::select! {
            result = tokio::signal::ctrl_c() => result?,
            _ = terminate.recv() => {}
        }
    }
    #[cfg(not(unix))]
    tokio::signal::ctrl_c().await?;
    Ok(())
}

pub fn serve(options: ServeOptions) -> anyhow::Result<ExitCode> {
    logging::init()?;
    runtime()?.block_on(async {
        let running = server::start(options).await?;
        let mut stdout = std::io::stdout().lock();
        serde_json::to_writer(&mut stdout, &running.ready)?;
        writeln!(stdout)?;
        stdout.flush()?;
        drop(stdout);
        stop_signal().await?;
        tracing::info!("stopping on signal");
        running.stop().await?;
        Ok(ExitCode::SUCCESS)
    })
}

/// Until the console exists, `demo` runs the reference server with the demo
/// data on a free port and says how to reach it.
pub fn demo(db: Option<PathBuf>) -> anyhow::Result<ExitCode> {
    logging::init()?;
    let temporary = match db {
        Some(_) => None,
        None => Some(tempfile::tempdir().context("cannot create a temporary directory")?),
    };
    let db_path = match (&db, &temporary) {
        (Some(path), _) => path.clone(),
        (None, Some(dir)) => dir.path().join("demo.sqlite"),
        (None, None) => unreachable!("a temporary directory exists whenever --db is absent"),
    };
    runtime()?.block_on(async {
        let running = server::start(ServeOptions {
            listen: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            db: db_path.clone(),
            seed: Seed::Demo,
            generate_subscriptions: 0,
            rate_limit: None,
            delay: None,
        })
        .await?;
        let ready = &running.ready;
        println!("DEMO  orgdeck reference server with the demo data");
        println!("  address       {}", ready.base_url);
        println!("  organization  {}", ready.organization_id);
        println!("  project       {}", ready.project_id);
        println!("  database      {}", db_path.display());
        println!();
        println!("Mint a key for the demo owner with:");
        println!("  orgdeck keys create --db {} --scopes '*'", db_path.display());
        println!(
            "then call it with: curl -H \"Authorization: Bearer $KEY\" {}/api/organizations/@current/roles/",
            ready.base_url
        );
        println!();
        println!(
            "Press Ctrl-C to stop{}.",
            if temporary.is_some() {
                " (the temporary data goes with it)"
            } else {
                ""
            }
        );
        stop_signal().await?;
        running.stop().await?;
        Ok(ExitCode::SUCCESS)
    })
}

pub fn create_key(
    db_path: &Path,
    scopes: &[String],
    email: Option<&str>,
    label: Option<&str>,
) -> anyhow::Result<ExitCode> {
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
    let db = Db::open(db_path).with_context(|| format!("cannot open the database {}", db_path.display()))?;
    let failed =
        |error: server::ApiError| anyhow::anyhow!("database error: {:?}", error.body.map(|b| b.detail));
    // A new file gets an organization and its owner, so a key has someone to belong to.
    demo::prepare(&db, Seed::None, 0).map_err(failed)?;
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
        .write_blocking(|tx| keys::mint(tx, user_id, &label, &scopes))
        .map_err(failed)?;
    println!("{key}");
    Ok(ExitCode::SUCCESS)
}
