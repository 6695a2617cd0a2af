//! The Access tab: everyone's access (or every role's) as a grid, people
//! by project, or by the resources of one project, each cell the level the
//! server resolved, coloured by level, and the source of the cell under
//! the cursor said in words. Its folder holds its state and the narrowing
//! of its rows and columns (`state.rs`), what it is as a page (`page.rs`),
//! what it asks and hears (`ask.rs`, `msg.rs`, `request.rs`: the grid read
//! a project at a time in the background by `access::grid`), how its keys
//! and answers land and what it hears of other screens' writes (`handle.rs`:
//! access changed, the grid read again), a rule edited (`edit.rs`,
//! `writes.rs`), its keys (`keys.rs`) and its drawing
//! (`draw.rs`: the name column frozen, the others scrolled sideways).

pub mod ask;
pub mod draw;
pub mod edit;
pub mod handle;
pub mod keys;
pub mod msg;
pub mod page;
pub mod request;
pub mod state;
pub mod writes;

pub use ask::Ask;
pub use msg::Msg;
pub use writes::Write;
