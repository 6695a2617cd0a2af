//! What `:who` asks, run: the organization's directory (its roles name
//! how people reach the thing), then `users_with_access` of the thing,
//! found by id or name as `orgdeck access who` finds it
//! (`crate::access::who`).

use super::{Ask, Msg};
use crate::access::directory::Directory;
use crate::access::read::{Reader, SMALL_ANSWERS_AT_ONCE};
use crate::access::who::WhoAccess;
use crate::api::Client;

/// Reads who reaches the thing.
pub async fn run(ask: Ask, client: &Client, pacer: std::sync::Arc<crate::health::budget::Pacer>) -> Msg {
    let Ask::Read {
        ticket,
        organization,
        project,
        thing,
        stop,
    } = ask;
    let reader = Reader::paced_by(client, SMALL_ANSWERS_AT_ONCE, pacer, stop.0);
    let result = async {
        let directory = Directory::load(&reader, &organization).await?;
        WhoAccess::read(&reader, &directory, &project, &thing).await
    }
    .await;
    Msg::Read {
        ticket,
        result: result.map(Box::new).map_err(|error| error.to_string()),
    }
}
