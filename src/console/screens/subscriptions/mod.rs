//! The Subscriptions screen. Its folder holds, so far, its typed request
//! (`request.rs`); the list itself (`console/lists/subscriptions/`) moves here as
//! issue 30's re-cut goes on.

pub mod request;

pub use request::Request;
