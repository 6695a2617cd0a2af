//! Offboarding a person. Its folder holds its write (`writes.rs`), what
//! it hears (`msg.rs`), what its keys do and how its run's news and end
//! land (`handle.rs`: `O`, Space, Enter, Esc while it runs), its keys
//! (`keys.rs`), the page
//! itself (`page.rs`: the options, the plan, each step's outcome, as lines
//! the page holds with their cursor: it is no table) and its drawing
//! (`draw.rs`: each line whole, wrapped).

pub mod draw;
pub mod handle;
pub mod keys;
pub mod msg;
pub mod page;
pub mod writes;

pub use msg::Msg;
pub use writes::{Offboarded, Write};
