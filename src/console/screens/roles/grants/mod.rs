//! A role's page (issue 31 req 4): what the role grants, as `orgdeck
//! access role NAME` says it (`crate::access::words`): in each project its
//! project access, its resource rules and what its members get from them,
//! its object rules, with its members (count and names). `w` opens it from
//! Roles (the role under the cursor) or from a role's members. Its folder
//! holds the page (`page.rs`: whom it shows, what was read, its lines),
//! what it asks (`ask.rs`) and hears (`msg.rs`), what runs the read
//! (`request.rs`) and how it lands (`handle.rs`).

pub mod ask;
pub mod handle;
pub mod msg;
pub mod page;
pub mod request;

pub use ask::Ask;
pub use msg::Msg;
