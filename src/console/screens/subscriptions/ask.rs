//! What the Subscriptions screen and its form ask of the server besides a
//! page of its rows ([`Ask`]), and what runs it: the catalogue, a
//! dashboard's tiles and a Slack integration's channels for the form; a
//! subscription read again and its newest delivery, for the watch after a
//! test or a resume (and for `p`, `e`, `u` where the list has not loaded
//! it). Its answer is the screen's own [`Msg`], so the compiler pairs them.

use super::Msg;
use crate::api::{self, Client, FetchAll, List, PICKER_ROWS};
use crate::console::kit::latest::Ticket;

/// Channels asked for at a time, and the most a form offers (a bound on
/// what a server may send; workspaces have far fewer).
const CHANNEL_PAGE: u32 = 200;
const MAX_CHANNELS: usize = 5_000;

#[derive(Debug, Clone, PartialEq)]
pub enum Ask {
    /// List the project's dashboards and insights (`Msg::Catalog`); only
    /// the answer with the ticket of the form still open is taken.
    Catalog { ticket: Ticket, project: String },
    /// Ask for a subscription's newest delivery (`Msg::NewestDelivery`),
    /// for the watch after a test or a resume.
    NewestDelivery { project: String, subscription: i64 },
    /// Read one subscription again (`Msg::Subscription`): a delivery may
    /// have changed it (paused it, moved its next date).
    Subscription { project: String, id: i64 },
    /// Read a dashboard's tiles for the form (`Msg::Tiles`).
    Tiles {
        ticket: Ticket,
        project: String,
        dashboard: i64,
    },
    /// List a Slack integration's channels for the form (`Msg::Channels`).
    Channels {
        ticket: Ticket,
        project: String,
        integration: i64,
    },
}

impl Ask {
    /// Runs it: its answer is the screen's own message.
    pub async fn run(self, client: &Client) -> Msg {
        match self {
            Ask::Catalog { ticket, project } => {
                let options = FetchAll::default();
                let (dashboards, insights) = (List::dashboards(&project), List::insights(&project));
                // The form offers the first ones (typing searches them).
                let (dashboards, insights, slack) = tokio::join!(
                    client.first_rows(&dashboards, PICKER_ROWS, &options),
                    client.first_rows(&insights, PICKER_ROWS, &options),
                    client.integrations(&project, "slack"),
                );
                let result = dashboards
                    .and_then(|(dashboards, _)| insights.map(|(insights, _)| (dashboards, insights)));
                // A 404 is an older server, which has no integrations; any
                // other answer is today's PostHog.
                let slack = match slack {
                    Ok(page) => Some(page.results),
                    Err(error) if error.status() == Some(404) => None,
                    Err(_) => Some(Vec::new()),
                };
                Msg::Catalog {
                    ticket,
                    result,
                    slack,
                }
            }
            Ask::NewestDelivery {
                project,
                subscription,
            } => {
                let result = client
                    .deliveries(&project, subscription, None)
                    .await
                    .map(|page| page.results.into_iter().next().map(Box::new));
                Msg::NewestDelivery { subscription, result }
            }
            Ask::Subscription { project, id } => {
                let result = client
                    .subscription(&project, id)
                    .await
                    .map(|subscription| Box::new(subscription.into_typed()));
                Msg::Subscription(result)
            }
            Ask::Tiles {
                ticket,
                project,
                dashboard,
            } => {
                let result = client.dashboard_tiles(&project, dashboard).await;
                Msg::Tiles {
                    ticket,
                    dashboard,
                    result,
                }
            }
            Ask::Channels {
                ticket,
                project,
                integration,
            } => {
                let result = channels(client, &project, integration).await;
                Msg::Channels {
                    ticket,
                    integration,
                    result,
                }
            }
        }
    }
}

/// Every channel of a Slack integration, a page of 200 at a time, up to
/// [`MAX_CHANNELS`].
async fn channels(
    client: &Client,
    project: &str,
    integration: i64,
) -> Result<Vec<api::SlackChannel>, api::Error> {
    let mut found = Vec::new();
    // A bound on pages as well as on channels: a server sending a few a
    // page is not followed for ever.
    for _ in 0..MAX_CHANNELS.div_ceil(CHANNEL_PAGE as usize) {
        let query = api::ChannelQuery {
            search: None,
            limit: Some(CHANNEL_PAGE),
            offset: Some(found.len() as u32),
        };
        let page = client.channels(project, integration, &query).await?;
        let empty = page.channels.is_empty();
        found.extend(page.channels);
        if !page.has_more || empty || found.len() >= MAX_CHANNELS {
            break;
        }
    }
    found.truncate(MAX_CHANNELS);
    Ok(found)
}
