//! What the People screen asks the server for: a page of the
//! organization's members, searched and ordered by the server.

use crate::api::{self, Client, List, OrganizationMember, Page};
use crate::console::screens::request::{PageRequest, ScreenRequest};

#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub organization: String,
    pub search: Option<String>,
    /// `joined_at` or `-joined_at`.
    pub order: &'static str,
}

impl PageRequest for Request {
    type Row = OrganizationMember;

    fn into_screen(self) -> ScreenRequest {
        ScreenRequest::People(self)
    }

    async fn run(
        self,
        client: &Client,
        offset: u64,
        limit: u64,
    ) -> Result<Page<OrganizationMember>, api::Error> {
        let mut people = List::members(&self.organization).with("order", self.order);
        if let Some(search) = self.search {
            people = people.with("search", search);
        }
        client.page(&people, limit, offset).await
    }
}
