//! The Deliveries screen. Its folder holds, so far, its list (`list.rs`:
//! a subscription's deliveries, newest first, paged by the server's
//! cursor, and the scan for the failed ones), its typed request
//! (`request.rs`), a recipient's failure in words (`words.rs`, which
//! Health says too) and its own keys (`keys.rs`, gathered by the shell's
//! keymap for handling keys, help and the footer); what its keys do is
//! still the shell's, and moves here as issue 30's re-cut goes on.

pub mod keys;
pub mod list;
pub mod request;
pub mod words;

pub use request::Request;
