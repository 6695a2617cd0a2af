//! The lists the console shows, one module per resource: the members of a
//! role, subscriptions, the deliveries of a subscription, people, a
//! person's page, an offboarding and Health's board (roles have moved into
//! their screen's folder, `screens/roles/list.rs`, re-exported here as
//! `lists::roles` while the others follow). Each says what its
//! rows are through [`Listing`] (columns, cells, detail, identity, filter,
//! sorts: the table floor's), how they arrive through its [`Pager`] (by
//! offset, by cursor, held whole: the table floor's too), what it asks the
//! server through its own request type (its screen's `request.rs`), its
//! place among the screens (id, title, tab, parent, the scope its writes
//! need) through [`Screen`] (the screens floor's), its narrowing and
//! server search through [`Hooks`] (the table floor's), and the rest
//! through [`Resource`]: its request, its heading and words (the screens
//! floor's, `screens/list.rs`, with [`AnyTable`], so that a list can move
//! into its screen's folder; its cells' helpers are the kit's `cell.rs`,
//! re-exported here while the lists move). What `d` and
//! the bulk keys ask is its screen's writes' (`screens/<name>/writes.rs`),
//! reached through [`Lists::confirm_delete`] and [`Lists::bulk`], one arm a
//! screen. The app holds them in [`Lists`], keyed by [`ScreenId`]; issue 30
//! moves each into its screen's folder.
//!
//! Adding a list is adding a module here, a [`ScreenId`] variant and its
//! [`Screen`] impl, a field of [`Lists`] (the compiler then names the two
//! matches that reach it), its request type in its screen's folder
//! (`screens/<name>/request.rs`) with a [`ScreenRequest`] and a
//! [`ScreenPage`] variant (the compiler then names the arms that run it and
//! land its pages), and a way to open it: a key or a command. A list held
//! whole in memory (Health, whose rows a look sends) asks nothing page by
//! page: its request is [`Held`].
//!
//! Marks and bulk actions are one constant of [`Hooks`] and one arm of
//! [`Lists::bulk`] away: `MARKS`, and its screen's `bulk` (the module
//! `screens::bulk` says how).

pub mod deliveries;
pub mod health;
pub mod members;
pub mod offboard;
pub mod people;
pub mod person;
pub mod picker;
pub mod subscriptions;

use crate::console::kit::latest::Ticket;
use crate::console::screens;
use crate::console::screens::members::writes::OfRole;

// Columns and sorts are the kit's (floor 0): named here too while the
// lists that name them through `super::` move into their screens.
pub use crate::console::kit::cell::{contains, id_starts, pretty, styled, text};
pub use crate::console::kit::column::{Column, Size, Sort};
pub use crate::console::kit::scope::Scope;
pub use crate::console::screens::bulk::{self, Bulk, Verb};
pub use crate::console::screens::list::{AnyTable, Resource};
pub use crate::console::screens::roles::list::{self as roles, Roles};
pub use crate::console::screens::write::{Confirm, Confirmed, FormPurpose, Write};
pub use crate::console::table::Table;
pub use crate::console::table::hooks::Hooks;
pub use crate::console::table::listing::Listing;
pub use crate::console::table::marking::MarkAll;
pub use crate::console::table::pager::{Asks, ByCursor, ByOffset, Pager, Whole};
pub use deliveries::Deliveries;
pub use health::Board;
pub use members::Members;
pub use offboard::Offboarding;
pub use people::People;
pub use person::Person;
pub use subscriptions::Subscriptions;

// Which screen: the screens' own name, named here while the lists are
// still held in [`Lists`].
pub use crate::console::screens::{Held, PageRequest, Screen, ScreenId, ScreenPage, ScreenRequest};

/// The lists, one table each.
#[derive(Default)]
pub struct Lists {
    pub roles: Table<Roles>,
    pub members: Table<Members>,
    pub subscriptions: Table<Subscriptions>,
    pub deliveries: Table<Deliveries>,
    pub people: Table<People>,
    pub person: Table<Person>,
    pub offboard: Table<Offboarding>,
    pub health: Table<Board>,
}

impl Lists {
    pub fn get(&self, id: ScreenId) -> &dyn AnyTable {
        match id {
            ScreenId::Roles => &self.roles,
            ScreenId::Members => &self.members,
            ScreenId::Subscriptions => &self.subscriptions,
            ScreenId::Deliveries => &self.deliveries,
            ScreenId::People => &self.people,
            ScreenId::Person => &self.person,
            ScreenId::Offboard => &self.offboard,
            ScreenId::Health => &self.health,
        }
    }

    pub fn get_mut(&mut self, id: ScreenId) -> &mut dyn AnyTable {
        match id {
            ScreenId::Roles => &mut self.roles,
            ScreenId::Members => &mut self.members,
            ScreenId::Subscriptions => &mut self.subscriptions,
            ScreenId::Deliveries => &mut self.deliveries,
            ScreenId::People => &mut self.people,
            ScreenId::Person => &mut self.person,
            ScreenId::Offboard => &mut self.offboard,
            ScreenId::Health => &mut self.health,
        }
    }

    /// A page arrived: it lands on the table whose rows it holds (the
    /// match pairs each kind of page with its table, checked by the
    /// compiler). Whether the rows were taken (not of an older generation).
    pub fn receive(&mut self, generation: Ticket, offset: u64, page: ScreenPage, height: u64) -> bool {
        match page {
            ScreenPage::Roles(page) => self.roles.receive(generation, offset, page, height),
            ScreenPage::Members(page) => self.members.receive(generation, offset, page, height),
            ScreenPage::Subscriptions(page) => self.subscriptions.receive(generation, offset, page, height),
            ScreenPage::Deliveries(page) => self.deliveries.receive(generation, offset, page, height),
            ScreenPage::People(page) => self.people.receive(generation, offset, page, height),
        }
    }

    /// `d` on the row under the cursor of a screen: the question before
    /// deleting (or removing, or soft-deleting) it, as its screen's writes
    /// word it; `None` where `d` deletes nothing.
    pub fn confirm_delete(&self, id: ScreenId, scope: Scope) -> Option<Confirm> {
        match id {
            ScreenId::Roles => Some(screens::roles::writes::ask_delete(self.roles.selected()?, scope)),
            ScreenId::Members => {
                let role = self.members.resource.role.as_ref()?;
                let membership = self.members.selected()?;
                let who = screens::members::writes::person(membership);
                Some(screens::members::writes::ask_remove(
                    &who,
                    of_role(role),
                    &membership.id,
                    scope,
                ))
            }
            ScreenId::Subscriptions => {
                screens::subscriptions::writes::ask_soft_delete(self.subscriptions.selected()?, scope)
            }
            // A role on a person's page: they leave it.
            ScreenId::Person => {
                let person::Item::Role(role) = self.person.selected()? else {
                    return None;
                };
                let who = self.person.resource.heading();
                let of = OfRole {
                    id: &role.id,
                    name: &role.name,
                };
                Some(screens::members::writes::ask_remove(
                    &who,
                    of,
                    &role.membership_id,
                    scope,
                ))
            }
            ScreenId::Deliveries | ScreenId::People | ScreenId::Offboard | ScreenId::Health => None,
        }
    }

    /// What a bulk key does to a screen's marked rows (as last seen, in
    /// the order marked), as its screen's writes say: a write each behind
    /// one question. `None`: nothing marked, or the key does not act in
    /// bulk there; `Some(Err(why))`: nothing to do.
    pub fn bulk(&self, id: ScreenId, verb: Verb, scope: Scope) -> Option<Result<Bulk, String>> {
        match id {
            ScreenId::Roles => screens::roles::writes::bulk(verb, &self.roles.marked_if_any()?, scope),
            ScreenId::Members => {
                let rows = self.members.marked_if_any()?;
                let role = self.members.resource.role.as_ref().map(of_role);
                screens::members::writes::bulk(verb, role, &rows, scope)
            }
            ScreenId::Subscriptions => {
                let rows = self.subscriptions.marked_if_any()?;
                let marked: Vec<_> = rows.into_iter().map(subscriptions::bulk::Marked::of).collect();
                Some(subscriptions::bulk::bulk(verb, &marked, scope))
            }
            ScreenId::Health => screens::health::bulk::bulk(verb, &self.health.marked_if_any()?, scope),
            ScreenId::Deliveries | ScreenId::People | ScreenId::Person | ScreenId::Offboard => None,
        }
    }

    /// Every list, for what concerns them all (a new connection).
    pub fn all_mut(&mut self) -> impl Iterator<Item = &mut dyn AnyTable> {
        let Lists {
            roles,
            members,
            subscriptions,
            deliveries,
            people,
            person,
            offboard,
            health,
        } = self;
        [
            roles as &mut dyn AnyTable,
            members as &mut dyn AnyTable,
            subscriptions as &mut dyn AnyTable,
            deliveries as &mut dyn AnyTable,
            people as &mut dyn AnyTable,
            person as &mut dyn AnyTable,
            offboard as &mut dyn AnyTable,
            health as &mut dyn AnyTable,
        ]
        .into_iter()
    }
}

/// The role Members shows, as its writes name it.
fn of_role(role: &members::ChosenRole) -> OfRole<'_> {
    OfRole {
        id: &role.id,
        name: &role.name,
    }
}
