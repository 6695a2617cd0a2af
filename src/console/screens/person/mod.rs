//! A person's page. Its folder holds, so far, what it asks
//! (`ask.rs`: the page gathered) and hears (`msg.rs`: the page); the page itself
//! (`console/lists/person.rs`, `console/app/people.rs`) moves here as
//! issue 30's re-cut goes on.

pub mod ask;
pub mod msg;

pub use ask::Ask;
pub use msg::Msg;
