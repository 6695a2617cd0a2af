//! What the preview asks, run on the effects runner's task through the
//! console's one access pacer: the rules a change is previewed on (the
//! preview itself worked out on a blocking thread, off the runtime's
//! workers), and after it, the check.

use std::sync::Arc;

use super::msg::{Msg, Outcome, Previewed};
use crate::access::preview::world::Projects;
use crate::access::preview::{Change, Effect, Proposed, World, preview};
use crate::access::read::{ReadError, Reader, SMALL_ANSWERS_AT_ONCE};
use crate::api::Client;
use crate::console::kit::latest::{Stopper, Ticket};
use crate::health::budget::Pacer;

#[derive(Debug, Clone)]
pub enum Ask {
    /// The rules `proposed` moves, read to preview it.
    Read {
        ticket: Ticket,
        organization: String,
        proposed: Box<Proposed>,
        stop: Stopper,
    },
    /// The server's levels after the change, against the preview.
    Check {
        ticket: Ticket,
        previewed: Arc<Previewed>,
        stop: Stopper,
    },
}

impl PartialEq for Ask {
    /// The same request: the same ticket and kind.
    fn eq(&self, other: &Ask) -> bool {
        match (self, other) {
            (Ask::Read { ticket, .. }, Ask::Read { ticket: theirs, .. })
            | (Ask::Check { ticket, .. }, Ask::Check { ticket: theirs, .. }) => ticket == theirs,
            _ => false,
        }
    }
}

/// Runs it.
pub async fn run(ask: Ask, client: &Client, pacer: Arc<Pacer>) -> Msg {
    match ask {
        Ask::Read {
            ticket,
            organization,
            proposed,
            stop,
        } => {
            let reader = Reader::paced_by(client, SMALL_ANSWERS_AT_ONCE, pacer, stop.0);
            Msg::Read {
                ticket,
                outcome: read(&reader, &organization, &proposed).await,
            }
        }
        Ask::Check {
            ticket,
            previewed,
            stop,
        } => {
            let reader = Reader::paced_by(client, SMALL_ANSWERS_AT_ONCE, pacer, stop.0);
            let Previewed {
                world,
                change,
                effect,
            } = &*previewed;
            let result = crate::access::preview::world::check(&reader, world, change, effect)
                .await
                .map_err(|error| error.to_string());
            Msg::Checked { ticket, result }
        }
    }
}

/// The world the change is previewed on, and the preview.
async fn read(reader: &Reader, organization: &str, proposed: &Proposed) -> Outcome {
    let project = proposed.project.map(|id| id.to_string());
    let projects = match &project {
        Some(id) => Projects::One(id),
        None => Projects::All,
    };
    let mut world = match World::read(reader, organization, projects, &proposed.people).await {
        Ok(read) => read.world,
        Err(ReadError::Stopped) => return Outcome::Stopped,
        Err(ReadError::Api(error)) => return Outcome::Unread(error.to_string()),
    };
    if let (Some(project), Some(object)) = (proposed.project, proposed.object.clone()) {
        match world.read_object(reader, project, object).await {
            Ok(()) => {}
            Err(ReadError::Stopped) => return Outcome::Stopped,
            Err(ReadError::Api(error)) => return Outcome::Unread(error.to_string()),
        }
    }
    for role in deleted_roles(&proposed.change) {
        match world.read_role_objects(reader, &role).await {
            Ok(()) => {}
            Err(ReadError::Stopped) => return Outcome::Stopped,
            Err(ReadError::Api(error)) => {
                return Outcome::Refused(format!(
                    "the role's object rules could not be read, so nothing was sent: {error}"
                ));
            }
        }
    }
    let change = proposed.change.clone();
    // Seconds of work in a large organization: off the runtime's workers.
    let computed = tokio::task::spawn_blocking(move || {
        let change = change.by_membership(&world.people);
        let effect: Effect = preview(&world, &change);
        Box::new(Previewed {
            world,
            change,
            effect,
        })
    })
    .await;
    match computed {
        Ok(previewed) => Outcome::Read(previewed),
        Err(error) => Outcome::Refused(format!(
            "the preview could not be worked out, so nothing was sent: {error}"
        )),
    }
}

/// The roles a change deletes.
fn deleted_roles(change: &Change) -> Vec<String> {
    match change {
        Change::DeleteRole { role_id } => vec![role_id.clone()],
        Change::Batch(changes) => changes.iter().flat_map(deleted_roles).collect(),
        _ => Vec::new(),
    }
}
