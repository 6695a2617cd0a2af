//! What the Access tab's reads run (and the read of a rule before `e`
//! edits it, `crate::access::rule::current`): `access::grid::read` through a
//! [`Reader`] (a few requests at a time under PostHog Cloud's limits,
//! stopped by the tab's [`super::ask::Stopper`]), on the effects runner's
//! task, each of its news told to the tab as it comes.

use super::{Ask, Msg};
use crate::access::grid;
use crate::access::read::Reader;
use crate::api::Client;
use crate::console::screens::request::Tell;

/// Reads the grid; its end is the tab's message.
pub async fn run(
    ask: Ask,
    client: &Client,
    pacer: std::sync::Arc<crate::health::budget::Pacer>,
    tell: Tell<Msg>,
) -> Msg {
    match ask {
        Ask::Read {
            ticket,
            kind,
            organization,
            first,
            stop,
        } => {
            let reader = Reader::paced_by(client, crate::access::read::CONCURRENCY, pacer, stop.0.clone());
            let news = |news: grid::News| tell(Msg::News { ticket, kind, news });
            let result = grid::read(&reader, &organization, kind, first, &news).await;
            let stopped = grid::stopped(&result);
            Msg::Ended {
                ticket,
                kind,
                stopped,
                // A stop is no failure: what arrived stays.
                result: result.or_else(|error| if stopped { Ok(()) } else { Err(error.to_string()) }),
                requests: reader.requests(),
            }
        }
        Ask::Rule {
            ticket,
            organization,
            target,
        } => {
            let stop = crate::access::read::Stop::new();
            let reader = Reader::paced_by(client, crate::access::read::CONCURRENCY, pacer, stop);
            let result = crate::access::rule::current(
                &reader,
                &organization,
                target.project.id,
                &target.on(),
                &target.subject,
            )
            .await
            .map_err(|error| error.to_string());
            Msg::Rule {
                ticket,
                target,
                result,
            }
        }
    }
}
