//! The Deliveries screen. Its folder holds its list (`list.rs`:
//! a subscription's deliveries, newest first, paged by the server's
//! cursor, and the scan for the failed ones), its typed request
//! (`request.rs`), a recipient's failure in words (`words.rs`, which
//! Health says too) and its own keys (`keys.rs`, gathered by the shell's
//! keymap for handling keys, help and the footer). Its keys that act on
//! the subscription whose deliveries these are (`t`, `p`, `e`, `u`) are
//! that subscription's: the shell hands them to Subscriptions
//! (`subscriptions/on_call.rs`).

pub mod keys;
pub mod list;
pub mod request;
pub mod words;

pub use request::Request;
