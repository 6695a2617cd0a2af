//! The Roles screen. Its folder holds its list (`list.rs`: the
//! rows, their form, how news lands on them), its typed request
//! (`request.rs`), its writes (`writes.rs`), the role Members opens for
//! and the names loaded (`chosen.rs`) and its own keys (`keys.rs`, which
//! the shell's keymap gathers for handling keys, help and the footer); it
//! is drawn as its cells (`list.rs`) in the table's drawing
//! (`table/draw.rs`); and a role's page (`grants/`: what the role grants
//! in each project, `w`).

pub mod chosen;
pub mod grants;
pub mod keys;
pub mod list;
pub mod request;
pub mod writes;

pub use request::Request;
pub use writes::Write;
