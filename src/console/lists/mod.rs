//! What is left of the lists: every list has moved into its screen's
//! folder (`screens/<name>/list.rs`, `screens/health/board.rs`, and a
//! person's page and an offboarding in `screens/person/page.rs` and
//! `screens/offboard/page.rs`), re-exported here by their old names while
//! the shell still reaches them so; the member picker (`picker.rs`, which
//! moves into Members with the picker's state) and the holder of the
//! screens (`holder.rs`, which moves to `screens/`) remain. Each says what its
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
//! reached through `Screens::confirm_delete` and `Screens::bulk`, one arm a
//! screen. The app holds them in `Screens` (`holder.rs`), keyed by [`ScreenId`]; issue 30
//! moves each into its screen's folder.
//!
//! Adding a list is adding a module here, a [`ScreenId`] variant and its
//! [`Screen`] impl, a field of `Screens` (`holder.rs`) (the compiler then names the two
//! matches that reach it), its request type in its screen's folder
//! (`screens/<name>/request.rs`) with a [`ScreenRequest`] and a
//! [`ScreenPage`] variant (the compiler then names the arms that run it and
//! land its pages), and a way to open it: a key or a command. A list held
//! whole in memory (Health, whose rows a look sends) asks nothing page by
//! page: its request is [`Held`].
//!
//! Marks and bulk actions are one constant of [`Hooks`] and one arm of
//! `Screens::bulk` away: `MARKS`, and its screen's `bulk` (the module
//! `screens::bulk` says how).

pub mod holder;
pub mod picker;

// Columns and sorts are the kit's (floor 0): named here too while the
// lists that name them through `super::` move into their screens.
pub use crate::console::kit::cell::{contains, id_starts, pretty, styled, text};
// The lists moved into their screens' folders, by their old names.
pub use crate::console::kit::column::{Column, Size, Sort};
pub use crate::console::kit::scope::Scope;
pub use crate::console::screens::bulk::{self, Bulk, Verb};
pub use crate::console::screens::deliveries::list::Deliveries;
pub use crate::console::screens::health::Board;
pub use crate::console::screens::list::{AnyTable, Resource};
pub use crate::console::screens::members::list::Members;
pub use crate::console::screens::offboard::page as offboard;
pub use crate::console::screens::people::list as people;
pub use crate::console::screens::person::page as person;
pub use crate::console::screens::roles::list::{self as roles, Roles};
pub use crate::console::screens::subscriptions::list as subscriptions;
pub use crate::console::screens::write::{Confirm, Confirmed, FormPurpose, Write};
pub use crate::console::table::Table;
pub use crate::console::table::hooks::Hooks;
pub use crate::console::table::listing::Listing;
pub use crate::console::table::marking::MarkAll;
pub use crate::console::table::pager::{Asks, ByCursor, ByOffset, Pager, Whole};
pub use offboard::Offboarding;
pub use people::People;
pub use person::Person;
pub use subscriptions::Subscriptions;

// Which screen: the screens' own name, named here while the lists move
// into their screens' folders.
pub use crate::console::screens::{Held, PageRequest, Screen, ScreenId, ScreenPage, ScreenRequest};
pub use holder::Screens;
