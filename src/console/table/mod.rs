//! The console's floor 2: the machinery of a virtual table that knows
//! nothing of what its rows are. [`paging::VirtualList`] holds a list's
//! pages by offset and asks for the ones around the cursor (or holds a
//! list whole); [`rows::Rows`] keeps the cursor, the scroll position and a
//! local filtered or sorted view; [`marks::Marks`] keeps the rows chosen
//! for a bulk action by id; [`listing::Listing`] is what every list says
//! about its rows (columns, cells, detail, identity, filter and sorts),
//! which each screen implements above. It names the kit alone (the
//! architecture test keeps it so).
//!
//! Issue 30 brings the rest of the table here from `lists/table.rs` as the
//! screens move into their folders: the typed `Table` of a `Listing`, how
//! its rows arrive (`Pager`), the marking and its drawing.

pub mod listing;
pub mod marks;
pub mod pager;
pub mod paging;
pub mod rows;
