//! What `:switch-preview` runs: the organization, its people, its roles
//! and every project's rules read as `orgdeck access switch-preview`
//! reads them (`World::read`, every project, everyone), through a
//! [`Reader`] paced by the console's one access budget and stopped by the
//! screen's Stopper; then `switch`, pure, on the runner's task.

use super::msg::Found;
use super::{Ask, Msg};
use crate::access::directory::People;
use crate::access::preview::world::Projects;
use crate::access::preview::{World, switch};
use crate::access::read::{ReadError, Reader};
use crate::api::Client;

/// Reads every project's rules and works out what the switch changes.
pub async fn run(ask: Ask, client: &Client, pacer: std::sync::Arc<crate::health::budget::Pacer>) -> Msg {
    let Ask::Read {
        ticket,
        organization,
        stop,
    } = ask;
    let reader = Reader::paced_by(client, crate::access::read::CONCURRENCY, pacer, stop.0);
    let read = World::read(&reader, &organization, Projects::All, &People::Everyone).await;
    let stopped = matches!(read, Err(ReadError::Stopped));
    let result = read
        .map(|read| {
            Box::new(Found {
                organization: read.directory.organization.name.clone(),
                switch: switch(&read.world),
                projects: read.world.projects.len(),
                requests: reader.requests(),
            })
        })
        .map_err(|error| error.to_string());
    Msg::Read {
        ticket,
        result,
        stopped,
    }
}
