//! What the Subscriptions screen asks the server for: a page of the
//! project's subscriptions, filtered, searched and ordered by the server.

use crate::api::{self, Client, Page, Subscription, SubscriptionFilter};
use crate::console::screens::request::{PageRequest, ScreenRequest};

#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub project: String,
    pub filter: SubscriptionFilter,
}

impl PageRequest for Request {
    type Row = Subscription;

    fn into_screen(self) -> ScreenRequest {
        ScreenRequest::Subscriptions(self)
    }

    async fn run(self, client: &Client, offset: u64, limit: u64) -> Result<Page<Subscription>, api::Error> {
        client
            .subscriptions_page(&self.project, &self.filter, limit, offset)
            .await
    }
}
