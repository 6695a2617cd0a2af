//! The Members screen. Its folder holds, so far, its typed request
//! (`request.rs`), its writes (`writes.rs`); the list itself (`console/lists/members.rs`) moves here as
//! issue 30's re-cut goes on.

pub mod msg;
pub mod request;
pub mod writes;

pub use msg::Msg;
pub use request::Request;
pub use writes::Write;
