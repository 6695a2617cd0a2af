//! What is left of the lists: every list has moved into its screen's
//! folder (`screens/<name>/list.rs`, `screens/health/board.rs`, and a
//! person's page and an offboarding in `screens/person/page.rs` and
//! `screens/offboard/page.rs`), and the screens' holder to
//! `screens/holder.rs`; the member picker to `screens/members/picker.rs`.
//! What remains is the names the shell still reaches the lists and their
//! words by, re-exported from where they now are (the kit's cells and
//! columns, the table's paging, the screens' lists, `Resource` and
//! `List`): each goes as the shell's code that names it moves into its
//! screen.

pub use crate::console::screens::members::picker;

// The kit's cells, columns and scope.
pub use crate::console::kit::cell::{contains, id_starts, pretty, styled, text};
pub use crate::console::kit::column::{Column, Size, Sort};
pub use crate::console::kit::scope::Scope;
// The lists, in their screens' folders, by their old names.
pub use crate::console::screens::deliveries::list::Deliveries;
pub use crate::console::screens::health::Board;
pub use crate::console::screens::members::list::Members;
pub use crate::console::screens::offboard::page as offboard;
pub use crate::console::screens::people::list as people;
pub use crate::console::screens::person::page as person;
pub use crate::console::screens::roles::list::{self as roles, Roles};
pub use crate::console::screens::subscriptions::list as subscriptions;
pub use offboard::Offboarding;
pub use people::People;
pub use person::Person;
pub use subscriptions::Subscriptions;
// The screens floor's words for a list, its writes and its bulk runs.
pub use crate::console::screens::bulk::{self, Bulk, Verb};
pub use crate::console::screens::list::{List, Resource};
pub use crate::console::screens::write::{Confirm, Confirmed, FormPurpose, Write};
pub use crate::console::screens::{Held, PageRequest, Screen, ScreenId, ScreenPage, ScreenRequest};
// The table floor's.
pub use crate::console::table::Table;
pub use crate::console::table::hooks::Hooks;
pub use crate::console::table::listing::Listing;
pub use crate::console::table::marking::MarkAll;
pub use crate::console::table::pager::{Asks, ByCursor, ByOffset, Pager, Whole};
