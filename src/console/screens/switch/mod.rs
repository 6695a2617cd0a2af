//! `:switch-preview` (issue 32 req 3): what switching the organization to
//! the other resolution mode would change, the console's view of
//! `orgdeck access switch-preview`, in its words
//! (`crate::access::preview::switch_told`). Every project's rules are read
//! in the background through the console's shared access pacer, Esc
//! stopping the read (`ask.rs`, `msg.rs`, `request.rs`), then one line a
//! member, project and resource whose level moves: who, what, today →
//! after the switch, because, and the fix (`page.rs`: a page of lines,
//! `/` filters them, only those on screen drawn). Enter (or `e`) on a line
//! offers its fix as an edit (the access edit's chooser, the fix's level
//! chosen already); how its answers and keys land is `handle.rs`, its
//! keys `keys.rs`.

pub mod ask;
pub mod handle;
pub mod keys;
pub mod msg;
pub mod page;
pub mod request;

pub use ask::Ask;
pub use msg::Msg;
