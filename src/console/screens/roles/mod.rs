//! The Roles screen. Its folder holds, so far, its list (`list.rs`: the
//! rows, their form, how news lands on them), its typed request
//! (`request.rs`) and its writes (`writes.rs`); its keys and drawing are
//! still the shell's and the view's, and move here as issue 30's re-cut
//! goes on.

pub mod list;
pub mod request;
pub mod writes;

pub use request::Request;
pub use writes::Write;
