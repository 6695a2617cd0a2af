//! The Deliveries screen. Its folder holds, so far, its typed request
//! (`request.rs`) and a recipient's failure in words (`words.rs`, which
//! Health says too); the list itself (`console/lists/deliveries.rs`) moves here as
//! issue 30's re-cut goes on.

pub mod request;
pub mod words;

pub use request::Request;
