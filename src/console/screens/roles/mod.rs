//! The Roles screen. Its folder holds, so far, its list (`list.rs`: the
//! rows, their form, how news lands on them), its typed request
//! (`request.rs`), its writes (`writes.rs`) and its own keys (`keys.rs`,
//! which the shell's keymap gathers for handling keys, help and the
//! footer); its drawing is still the view's, and moves here as issue 30's
//! re-cut goes on.

pub mod chosen;
pub mod keys;
pub mod list;
pub mod request;
pub mod writes;

pub use request::Request;
pub use writes::Write;
