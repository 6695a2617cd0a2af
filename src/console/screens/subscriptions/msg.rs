//! What the Subscriptions screen and its form hear: the project's
//! dashboards and insights, a dashboard's tiles and a Slack integration's
//! channels for the form; a subscription read again and its newest
//! delivery, for the watch after a test or a resume.

use crate::console::kit::latest::Ticket;

#[derive(Debug)]
pub enum Msg {
    /// The project's dashboards and insights, for the subscription form;
    /// and its Slack integrations, `None` from a server without them (an
    /// older PostHog).
    Catalog {
        ticket: Ticket,
        result: Result<(Vec<crate::api::NamedItem>, Vec<crate::api::NamedItem>), crate::api::Error>,
        slack: Option<Vec<crate::api::Integration>>,
    },
    /// A dashboard with its tiles, for the form's "Insights"; `None` from a
    /// server that shows none.
    Tiles {
        ticket: Ticket,
        dashboard: i64,
        result: Result<Option<crate::api::Dashboard>, crate::api::Error>,
    },
    /// A Slack integration's channels, for the form's "Channel".
    Channels {
        ticket: Ticket,
        integration: i64,
        result: Result<Vec<crate::api::SlackChannel>, crate::api::Error>,
    },
    /// A subscription's newest delivery, for the watch (`None`: it has none).
    NewestDelivery {
        subscription: i64,
        result: Result<Option<Box<crate::api::Delivery>>, crate::api::Error>,
    },
    /// A subscription read again; its row changes in place.
    Subscription(Result<Box<crate::api::Subscription>, crate::api::Error>),
}

impl Msg {
    /// Whether it answers a request an effect sent: each one does.
    pub fn is_answer(&self) -> bool {
        true
    }
}
