//! What the Deliveries screen asks the server for: a page of one
//! subscription's deliveries, which the server pages by cursor.

use crate::api::{self, Client, Delivery, DeliveryStatus, Page};
use crate::console::screens::request::{PageRequest, ScreenRequest};
use crate::console::table::pager::Cursored;

/// The first page, or the one a cursor link of the server's points at.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub project: String,
    pub subscription: i64,
    /// Only those of this status (the failed ones, `f`).
    pub status: Option<DeliveryStatus>,
    pub after: Option<String>,
}

impl PageRequest for Request {
    type Row = Delivery;

    fn into_screen(self) -> ScreenRequest {
        ScreenRequest::Deliveries(self)
    }

    /// Paged by cursor, 50 a page: a page of the console's is filled from
    /// as many of the server's as it takes, following its links. The
    /// server gives no count (0 here); the list works its length out.
    async fn run(self, client: &Client, _offset: u64, limit: u64) -> Result<Page<Delivery>, api::Error> {
        let window = client
            .deliveries_window(
                &self.project,
                self.subscription,
                self.status.as_ref(),
                self.after.as_deref(),
                limit as usize,
            )
            .await?;
        Ok(Page {
            count: 0,
            next: window.next,
            previous: None,
            results: window.results,
        })
    }
}

/// A later page is asked for by the link the page before it gave.
impl Cursored for Request {
    fn after(self, link: String) -> Self {
        Request {
            after: Some(link),
            ..self
        }
    }
}
