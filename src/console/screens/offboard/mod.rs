//! Offboarding a person. Its folder holds, so far, its write
//! (`writes.rs`), what it hears (`msg.rs`) and the page itself (`page.rs`:
//! the options, the plan, each step's outcome, still drawn as a table's
//! rows); what its keys do (`console/app/offboard.rs`) moves here as issue
//! 30's re-cut goes on.

pub mod msg;
pub mod page;
pub mod writes;

pub use msg::Msg;
pub use writes::{Offboarded, Write};
