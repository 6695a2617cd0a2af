//! What the Members screen asks of the server besides a page of its rows
//! ([`Ask`]), and what runs it: the organization's members for the picker
//! (with who is in the role already), and the role `:role NAME` names.
//! Its answer is the screen's own [`Msg`], so the compiler pairs them.

use super::Msg;
use crate::api::{Client, FetchAll, List, PICKER_ROWS, Role};
use crate::console::kit::latest::Ticket;

#[derive(Debug, Clone, PartialEq)]
pub enum Ask {
    /// The organization's members for the picker (`Msg::People`), as the
    /// catalog.
    People {
        ticket: Ticket,
        organization: String,
        role: String,
        /// What the server is to search the members for (`Some("")`: the
        /// first ones again); `None` for the picker's first load, which
        /// also reads who is in the role.
        search: Option<String>,
    },
    /// `:role NAME` not among the roles loaded: look for it by name
    /// (`Msg::RoleFound`).
    FindRole { organization: String, name: String },
}

impl Ask {
    /// Runs it: its answer is the screen's own message.
    pub async fn run(self, client: &Client) -> Msg {
        match self {
            Ask::People {
                ticket,
                organization,
                role,
                search,
            } => {
                // The picker holds the first members alone, however many
                // the organization has (or a server says it has).
                let options = FetchAll::default();
                let people = match search.as_deref() {
                    Some(search) if !search.is_empty() => List::members(&organization).with("search", search),
                    _ => List::members(&organization),
                };
                let people = client.first_rows(&people, PICKER_ROWS, &options);
                let (people, in_role) = if search.is_some() {
                    (people.await, None)
                } else {
                    let members = List::memberships(&organization, &role);
                    let (people, members) =
                        tokio::join!(people, client.first_rows(&members, PICKER_ROWS, &options));
                    let in_role = members.ok().map(|(members, _)| {
                        members
                            .into_iter()
                            .filter_map(|m| m.user.map(|user| user.uuid))
                            .collect()
                    });
                    (people, in_role)
                };
                Msg::People {
                    ticket,
                    people,
                    in_role,
                }
            }
            Ask::FindRole { organization, name } => {
                let wanted = name.to_lowercase();
                let list = List::roles(&organization);
                let found = client
                    .first_rows(&list, PICKER_ROWS, &FetchAll::default())
                    .await
                    .map(|(roles, _)| {
                        roles
                            .into_iter()
                            .find(|role: &Role| role.name.to_lowercase() == wanted)
                            .map(|role| (role.id, role.name))
                    })
                    .map_err(|error| error.to_string());
                Msg::RoleFound { name, found }
            }
        }
    }
}
