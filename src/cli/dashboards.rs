//! `orgdeck dashboards list [--search TEXT]`: the project's dashboards,
//! what `--dashboard` and `--context dashboard:` name by id or by name.

use clap::Subcommand;

use super::catalog::{self, Kind};
use super::connection::Connection;
use super::output::Format;

#[derive(Debug, Subcommand)]
pub enum DashboardsCommand {
    /// List the project's dashboards: id and name (all pages).
    List {
        /// Only those whose names hold this text (searched by the server).
        #[arg(long)]
        search: Option<String>,
    },
}

pub async fn run(command: DashboardsCommand, connection: Connection, format: Format) -> anyhow::Result<()> {
    match command {
        DashboardsCommand::List { search } => {
            catalog::list(
                &connection.client,
                &connection.project,
                Kind::Dashboard,
                search,
                format,
            )
            .await
        }
    }
}
