//! What `:who` asks, run: the organization's directory (its roles name
//! how people reach the thing), then `users_with_access` of the thing,
//! found by id or name as `orgdeck access who` finds it
//! (`crate::access::who`).

use super::{Ask, Msg};
use crate::access::directory::Directory;
use crate::access::read::{ReadError, Reader};
use crate::access::who::{WhoAccess, WhoError};
use crate::api::Client;

/// Requests in flight at once: as `orgdeck access who` sends them.
const AT_ONCE: usize = 32;

/// Reads who reaches the thing.
pub async fn run(ask: Ask, client: &Client, pacer: std::sync::Arc<crate::health::budget::Pacer>) -> Msg {
    let Ask::Read {
        ticket,
        organization,
        project,
        thing,
        stop,
    } = ask;
    let reader = Reader::paced_by(client, AT_ONCE, pacer, stop.0);
    let result = async {
        let directory = Directory::load(&reader, &organization).await?;
        WhoAccess::read(&reader, &directory, &project, &thing).await
    }
    .await;
    Msg::Read {
        ticket,
        result: result.map(Box::new).map_err(|error| match error {
            WhoError::NotFound(message) => message,
            WhoError::Read(ReadError::Stopped) => "stopped".into(),
            WhoError::Read(ReadError::Api(error)) => error.to_string(),
        }),
    }
}
