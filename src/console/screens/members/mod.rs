//! The Members screen. Its folder holds, so far, its typed request
//! (`request.rs`), what else it asks (`ask.rs`: the picker's people, a role
//! by name) and what runs it, its writes (`writes.rs`); the list itself (`console/lists/members.rs`) moves here as
//! issue 30's re-cut goes on.

pub mod ask;
pub mod msg;
pub mod request;
pub mod writes;

pub use ask::Ask;
pub use msg::Msg;
pub use request::Request;
pub use writes::Write;
