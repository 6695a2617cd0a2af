//! A person's page. Its folder holds, so far, what it hears
//! (`msg.rs`: the page, gathered); the page itself
//! (`console/lists/person.rs`, `console/app/people.rs`) moves here as
//! issue 30's re-cut goes on.

pub mod msg;

pub use msg::Msg;
