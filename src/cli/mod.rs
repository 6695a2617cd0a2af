//! The command line of design.md (a fixed interface) and its dispatch.

mod serve;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::server::{RateLimit, Seed, ServeOptions};

#[derive(Debug, Parser)]
#[command(
    name = "orgdeck",
    version,
    about = "A terminal console for PostHog organization roles and project subscriptions",
    arg_required_else_help = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Start the reference server on 127.0.0.1 (a free port) with the demo data.
    Demo {
        /// Keep the data in this SQLite file (default: a temporary one).
        #[arg(long)]
        db: Option<PathBuf>,
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
        /// Add this many synthetic subscriptions to the first project at start.
        #[arg(long, value_name = "N", default_value_t = 0)]
        generate_subscriptions: u64,
        /// Limit each key's requests as PostHog does, e.g. 480/4800 (per minute/per hour).
        #[arg(long, value_name = "PER_MINUTE/PER_HOUR")]
        rate_limit: Option<RateLimit>,
    },
    /// Personal API keys of the reference server's database.
    Keys {
        #[command(subcommand)]
        command: KeysCommand,
    },
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
    },
}

/// Runs a parsed command line; returns the process exit status.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Demo { db } => serve::demo(db),
        Command::Serve {
            listen,
            db,
            seed,
            generate_subscriptions,
            rate_limit,
        } => serve::serve(ServeOptions {
            listen,
            db,
            seed,
            generate_subscriptions,
            rate_limit,
        }),
        Command::Keys {
            command:
                KeysCommand::Create {
                    db,
                    scopes,
                    email,
                    label,
                },
        } => serve::create_key(&db, &scopes, email.as_deref(), label.as_deref()),
    }
}
