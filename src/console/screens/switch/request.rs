//! What `:switch-preview` runs: the organization, its people, its roles
//! and every project's rules read as `orgdeck access switch-preview`
//! reads them (`World::read_told`, every project, everyone, each project
//! told as it arrives), through a
//! [`Reader`] paced by the console's one access budget and stopped by the
//! screen's Stopper; then `switch`, pure, on a blocking thread (seconds
//! in an organization of 1,000 members and 20 projects).

use super::msg::Found;
use super::{Ask, Msg};
use crate::access::directory::People;
use crate::access::preview::world::Projects;
use crate::access::preview::{World, switch};
use crate::access::read::{ReadError, Reader};
use crate::api::Client;
use crate::console::screens::request::Tell;

/// Reads every project's rules and works out what the switch changes.
pub async fn run(
    ask: Ask,
    client: &Client,
    pacer: std::sync::Arc<crate::health::budget::Pacer>,
    tell: Tell<Msg>,
) -> Msg {
    let Ask::Read {
        ticket,
        organization,
        stop,
    } = ask;
    let reader = Reader::paced_by(client, crate::access::read::CONCURRENCY, pacer, stop.0);
    let told = |done: usize, total: usize| tell(Msg::Progress { ticket, done, total });
    let read = World::read_told(&reader, &organization, Projects::All, &People::Everyone, &told).await;
    let stopped = matches!(read, Err(ReadError::Stopped));
    let requests = reader.requests();
    let result = match read {
        // Seconds of work in a large organization: off the runtime's workers.
        Ok(read) => tokio::task::spawn_blocking(move || {
            Box::new(Found {
                organization: read.directory.organization.name.clone(),
                switch: switch(&read.world),
                projects: read.world.projects.len(),
                requests,
            })
        })
        .await
        .map_err(|error| format!("the switch preview could not be worked out: {error}")),
        Err(error) => Err(error.to_string()),
    };
    Msg::Read {
        ticket,
        result,
        stopped,
    }
}
