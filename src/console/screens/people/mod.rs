//! The People screen. Its folder holds, so far, its typed request
//! (`request.rs`), what else it asks (`ask.rs`: the role index, a
//! narrowing), what it and a person's page asked and "latest wins" for
//! each (`asked.rs`), its writes (`writes.rs`); the list itself
//! (`console/lists/people.rs`) moves here as issue 30's re-cut goes on.

pub mod ask;
pub mod asked;
pub mod msg;
pub mod request;
pub mod writes;

pub use ask::{Ask, Narrow};
pub use msg::Msg;
pub use request::Request;
pub use writes::Write;
