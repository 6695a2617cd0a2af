//! Offboarding a person. Its folder holds, so far, its write
//! (`writes.rs`); the screen itself (`console/lists/offboard.rs`,
//! `console/app/offboard.rs`) moves here as issue 30's re-cut goes on.

pub mod msg;
pub mod writes;

pub use msg::Msg;
pub use writes::{Offboarded, Write};
