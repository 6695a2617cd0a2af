//! What the Members screen asks the server for: a page of one role's
//! memberships.

use crate::api::{self, Client, List, Page, RoleMembership};
use crate::console::screens::request::{PageRequest, ScreenRequest};

#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub organization: String,
    /// The role's id.
    pub role: String,
}

impl PageRequest for Request {
    type Row = RoleMembership;

    fn into_screen(self) -> ScreenRequest {
        ScreenRequest::Members(self)
    }

    async fn run(self, client: &Client, offset: u64, limit: u64) -> Result<Page<RoleMembership>, api::Error> {
        client
            .page(&List::memberships(&self.organization, &self.role), limit, offset)
            .await
    }
}
