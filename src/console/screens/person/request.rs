//! What a person's page asks: their page gathered ([`Ask::Gather`]) from
//! the role index and the organization's lists, and their access
//! ([`Ask::Access`]) read as `orgdeck access person` reads it
//! (`crate::access::person`), on the effects runner's task; their answers
//! are the page's own messages, the access read's progress told as each
//! project is read.

use super::{Ask, Msg};
use crate::access::directory::{Directory, Person, roles_held};
use crate::access::person::PersonAccess;
use crate::access::read::{Reader, SMALL_ANSWERS_AT_ONCE};
use crate::api::Client;
use crate::console::screens::request::Tell;
use crate::people::profile;

/// Runs what the page asks.
pub async fn run(
    ask: Ask,
    client: &Client,
    pacer: std::sync::Arc<crate::health::budget::Pacer>,
    tell: Tell<Msg>,
) -> Msg {
    match ask {
        Ask::Gather {
            ticket,
            organization,
            email,
            index,
        } => {
            // What the page holds is one budget (--max-held-mib).
            let client = client.with_holding();
            let result = profile::gather(&client, &organization, &email, &index.0)
                .await
                .map(Box::new)
                .map_err(|error| format!("{error:#}"));
            Msg::Profile { ticket, result }
        }
        Ask::Access {
            ticket,
            organization,
            member,
            index,
            stop,
        } => {
            let reader = Reader::paced_by(client, SMALL_ANSWERS_AT_ONCE, pacer, stop.0);
            let person = Person::from_member(&member);
            // The roles as People's index has them, the person their one
            // member: no role's memberships are read again.
            let roles = roles_held(&index.0, &person);
            let result = async {
                let directory = Directory::load_with_roles(&reader, &organization, roles).await?;
                tell(Msg::AccessRead {
                    ticket,
                    done: 0,
                    total: directory.projects.len(),
                });
                PersonAccess::read(&reader, &directory, person, None, &|done, total| {
                    tell(Msg::AccessRead { ticket, done, total })
                })
                .await
            }
            .await;
            tracing::info!(requests = reader.requests(), "a person's access, for their page");
            Msg::Access {
                ticket,
                result: result.map(Box::new).map_err(|error| error.to_string()),
            }
        }
    }
}
