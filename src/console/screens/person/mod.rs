//! A person's page. Its folder holds what it asks (`ask.rs`: the page
//! gathered), what it asked and what waits on that (`asked.rs`: "latest
//! wins" for the page, the wait for People's index, `O` waiting for the
//! page) and hears (`msg.rs`: the page), how that lands and what
//! Enter does (`handle.rs`), its keys (`keys.rs`), the page itself
//! (`page.rs`: whom it shows, what was gathered, its lines and the cursor
//! over them, held by the page itself: it is no table) and its drawing
//! (`draw.rs`: each line whole, wrapped), and its Access section
//! (`access.rs`: what `orgdeck access person` says, read after the page).

pub mod access;
pub mod ask;
pub mod asked;
pub mod draw;
pub mod handle;
pub mod keys;
pub mod msg;
pub mod page;
pub mod request;

pub use ask::Ask;
pub use msg::Msg;
