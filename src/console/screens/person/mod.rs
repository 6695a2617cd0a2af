//! A person's page. Its folder holds, so far, what it asks
//! (`ask.rs`: the page gathered) and hears (`msg.rs`: the page), and the
//! page itself (`page.rs`: its lines, still drawn as a table's rows);
//! how its answer lands (`console/app/people.rs`) moves here as issue 30's
//! re-cut goes on.

pub mod ask;
pub mod msg;
pub mod page;

pub use ask::Ask;
pub use msg::Msg;
