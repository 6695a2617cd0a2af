//! What a role's page asks, run: the organization's directory (its
//! projects, and the role's members by name), then the role's rules and
//! what its members get in each project, as `orgdeck access role` reads
//! them (`crate::access::role`), a few at a time, telling each project.

use super::{Ask, Msg};
use crate::access::directory::Directory;
use crate::access::read::{Reader, SMALL_ANSWERS_AT_ONCE};
use crate::access::role::RoleGrants;
use crate::api::Client;
use crate::console::screens::request::Tell;

/// Reads what the role grants.
pub async fn run(
    ask: Ask,
    client: &Client,
    pacer: std::sync::Arc<crate::health::budget::Pacer>,
    tell: Tell<Msg>,
) -> Msg {
    let Ask::Read {
        ticket,
        organization,
        role,
        stop,
    } = ask;
    let reader = Reader::paced_by(client, SMALL_ANSWERS_AT_ONCE, pacer, stop.0);
    let result = async {
        let directory = Directory::load(&reader, &organization)
            .await
            .map_err(|error| error.to_string())?;
        let Some(found) = directory.role(&role) else {
            return Err(format!(
                "the role is no longer in {}",
                directory.organization.name
            ));
        };
        tell(Msg::Progress {
            ticket,
            done: 0,
            total: directory.projects.len(),
        });
        RoleGrants::read(&reader, &directory, found, None, &|done, total| {
            tell(Msg::Progress { ticket, done, total })
        })
        .await
        .map_err(|error| error.to_string())
    }
    .await;
    tracing::info!(requests = reader.requests(), "what a role grants, for its page");
    Msg::Read {
        ticket,
        result: result.map(Box::new),
    }
}
