//! `:who` (issue 31 req 5): who reaches the project, a dashboard, an
//! insight or a feature flag, at what level and how, in the words of
//! `orgdeck access who` (`crate::access::words`), from the server's
//! `users_with_access`. Its folder holds its list (`list.rs`: the rows,
//! held whole, and what the table says of them), what it asks (`ask.rs`:
//! the read, stoppable) and hears (`msg.rs`: the answer), what runs the
//! read (`request.rs`) and how its answer, Enter and `r` land
//! (`handle.rs`: Enter opens the person's page).

pub mod ask;
pub mod handle;
pub mod list;
pub mod msg;
pub mod request;

pub use ask::Ask;
pub use msg::Msg;
