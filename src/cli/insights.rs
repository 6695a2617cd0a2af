//! `orgdeck insights list [--search TEXT]`: the project's insights, what
//! `--insight`, `--export-insight` and `--context insight:` name by id,
//! short id or name.

use clap::Subcommand;

use super::catalog::{self, Kind};
use super::connection::Connection;
use super::output::Format;

#[derive(Debug, Subcommand)]
pub enum InsightsCommand {
    /// List the project's insights: id, short id and name (all pages).
    List {
        /// Only those the server's search finds (names, descriptions, tags).
        #[arg(long)]
        search: Option<String>,
    },
}

pub async fn run(command: InsightsCommand, connection: Connection, format: Format) -> anyhow::Result<()> {
    match command {
        InsightsCommand::List { search } => {
            catalog::list(
                &connection.client,
                &connection.project,
                Kind::Insight,
                search,
                format,
            )
            .await
        }
    }
}
