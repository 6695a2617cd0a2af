//! The Members screen. Its folder holds, so far, its list (`list.rs`: a
//! role's memberships and how news lands on them), its typed request
//! (`request.rs`), what else it asks (`ask.rs`: the picker's people, a
//! role by name) and what runs it, its writes (`writes.rs`); the picker
//! (`console/lists/picker.rs`, held in the shell's mode) and what its keys
//! do move here as issue 30's re-cut goes on.

pub mod ask;
pub mod list;
pub mod msg;
pub mod request;
pub mod writes;

pub use ask::Ask;
pub use msg::Msg;
pub use request::Request;
pub use writes::Write;
