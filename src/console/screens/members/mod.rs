//! The Members screen. Its folder holds its list (`list.rs`: a
//! role's memberships and how news lands on them), its typed request
//! (`request.rs`), what else it asks (`ask.rs`: the picker's people, a
//! role by name) and what runs it, how those answers land (`heard.rs`:
//! `on_msg`, handing back to the shell a role to open), its
//! writes (`writes.rs`), the member picker (`picker.rs`: its state,
//! keys and drawing; `assign.rs`: opened, searched, its choice sent; the shell holds the open one among its overlays) and
//! its own keys (`keys.rs`, gathered by the shell's keymap): `a` opens the
//! picker, `d` asks its removal's question (`writes.rs`, through the
//! holder's `confirm_delete`).

pub mod ask;
pub mod assign;
pub mod heard;
pub mod keys;
pub mod list;
pub mod msg;
pub mod picker;
pub mod request;
pub mod writes;

pub use ask::Ask;
pub use msg::Msg;
pub use request::Request;
pub use writes::Write;
