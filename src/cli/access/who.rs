//! `orgdeck access who`: who reaches a project, a dashboard, an insight or
//! a feature flag, at what level, and how.

use super::super::connection::Connection;
use super::super::output::{self, Column, Requested, fixed, flexible};
use super::{Pace, ProgressLine, failed, not_found, reader};
use crate::access::directory::Directory;
use crate::access::who::{Thing, WhoAccess, WhoError};
use crate::access::words;
use crate::text::printable;

/// Without --dashboard, --insight or --feature-flag: the project itself
/// (the global --project, else the current one).
#[derive(Debug, Clone, clap::Args)]
pub struct WhoArgs {
    /// A dashboard of the project, by id or name.
    #[arg(long, value_name = "ID|NAME", conflicts_with_all = ["insight", "feature_flag"])]
    dashboard: Option<String>,
    /// An insight of the project, by id, short id or name.
    #[arg(long, value_name = "ID|NAME", conflicts_with = "feature_flag")]
    insight: Option<String>,
    /// A feature flag of the project, by id, key or name.
    #[arg(long, value_name = "ID|KEY")]
    feature_flag: Option<String>,
    #[command(flatten)]
    pace: Pace,
}

pub async fn run(args: WhoArgs, connection: Connection, requested: Requested) -> anyhow::Result<()> {
    let thing = match (&args.dashboard, &args.insight, &args.feature_flag) {
        (Some(dashboard), _, _) => Thing::Dashboard(dashboard.clone()),
        (_, Some(insight), _) => Thing::Insight(insight.clone()),
        (_, _, Some(flag)) => Thing::FeatureFlag(flag.clone()),
        _ => Thing::Project,
    };
    let (reader, _ctrl_c) = reader(&connection, &args.pace, super::SMALL_ANSWERS_AT_ONCE);
    let progress = ProgressLine::new();
    progress.say("reading…");
    let directory = Directory::load(&reader, &connection.organization).await;
    let directory = match directory {
        Ok(directory) => directory,
        Err(error) => {
            progress.clear();
            return Err(failed(error));
        }
    };
    let found = WhoAccess::read(&reader, &directory, &connection.project, &thing).await;
    progress.clear();
    let who = match found {
        Ok(who) => who,
        Err(WhoError::NotFound(message)) => return Err(not_found(message)),
        Err(WhoError::Read(error)) => return Err(failed(error)),
    };
    match requested {
        Requested::Json => output::print_json(&who),
        _ => output::print(&page(&who)),
    }
}

const COLUMNS: [Column; 5] = [
    fixed("LEVEL"),
    flexible("NAME"),
    flexible("EMAIL"),
    flexible("HOW"),
    fixed("ORG LEVEL"),
];

fn page(who: &WhoAccess) -> String {
    let mut out = format!("{}:\n", printable(&words::who_heading(who)));
    let rows: Vec<Vec<String>> = who.users.iter().map(words::who_row).collect();
    out.push_str(&output::table(&COLUMNS, &rows, output::output_width()));
    if let Some(note) = words::who_count_note(who) {
        out.push_str(&format!("{note}\n"));
    }
    out
}
