//! What a person's page asks: their page gathered ([`Ask::Gather`]) from
//! the role index and the organization's lists, on the effects runner's
//! task; its answer is the page's own message.

use super::{Ask, Msg};
use crate::api::Client;
use crate::people::profile;

/// Gathers the page.
pub async fn run(ask: Ask, client: &Client) -> Msg {
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
    }
}
