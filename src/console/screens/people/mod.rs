//! The People screen. Its folder holds its list (`list.rs`: every
//! member, paged and searched by the server, with the roles each holds,
//! and its narrowings), its typed request (`request.rs`), what else it
//! asks (`ask.rs`: the role index, a narrowing), what it asked and
//! "latest wins" for each (`asked.rs`), what it shares with a person's
//! page and its choosers (`shared.rs`: the role index), how its answers
//! and keys land (`handle.rs`: the index, the narrowings, Esc and `r`),
//! what it hears of other screens' writes (`news.rs`), its writes
//! (`writes.rs`), its keys (`keys.rs`), and what `a` and `L` choose and
//! ask for the people acted on (`choose.rs`). What its handlers ask of
//! the shell is every screen's [`Heard`](super::heard::Heard).

pub mod ask;
pub mod asked;
pub mod choose;
pub mod handle;
pub mod keys;
pub mod list;
pub mod msg;
pub mod news;
pub mod request;
pub mod shared;
pub mod writes;

pub use ask::{Ask, Narrow};
pub use msg::Msg;
pub use request::Request;
pub use writes::Write;
