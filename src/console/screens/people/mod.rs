//! The People screen. Its folder holds, so far, its list (`list.rs`:
//! every member, paged and searched by the server, with the roles each
//! holds, and its narrowings), its typed request (`request.rs`), what else it asks (`ask.rs`: the role index, a
//! narrowing), what it and a person's page asked and "latest wins" for
//! each (`asked.rs`), its writes (`writes.rs`); what its keys do and how its answers land
//! (`console/app/people.rs`, `choose.rs`) move here as issue 30's re-cut
//! goes on.

pub mod ask;
pub mod asked;
pub mod list;
pub mod msg;
pub mod request;
pub mod writes;

pub use ask::{Ask, Narrow};
pub use msg::Msg;
pub use request::Request;
pub use writes::Write;
