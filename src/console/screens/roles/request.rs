//! What the Roles screen asks the server for: a page of the organization's
//! roles.

use crate::api::{self, Client, List, Page, Role};
use crate::console::screens::request::{PageRequest, ScreenRequest};

#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub organization: String,
}

impl PageRequest for Request {
    type Row = Role;

    fn into_screen(self) -> ScreenRequest {
        ScreenRequest::Roles(self)
    }

    async fn run(self, client: &Client, offset: u64, limit: u64) -> Result<Page<Role>, api::Error> {
        client.page(&List::roles(&self.organization), limit, offset).await
    }
}
