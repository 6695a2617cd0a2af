//! The Subscriptions screen. Its folder holds, so far, its list
//! (`list.rs`, with `held.rs`: the rows, searched, ordered and filtered by
//! the server, or a state held whole), its form (`fields.rs`: the fields
//! and what they send; `choices.rs`: what its choices offer; `form.rs`:
//! the form opened, submitted and refused), its typed request
//! (`request.rs`), what else it asks and what runs it (`ask.rs`), its
//! writes (`writes.rs`), what its keys do to marked rows (`bulk.rs`), a
//! subscription in words (`words.rs`), the soft delete `u` undoes
//! (`undo.rs`), the watch after a test or a resume and how its answers
//! land (`watch.rs`), a subscription read before a key acts on it
//! (`read.rs`), what `f`, `o`, `:state`, `:target` and `:delivers` set
//! on the list (`narrow.rs`), what on-call's keys (`t`, `p`, `u`) come to before
//! anything is sent (`on_call.rs`), what its form asks for as it is filled in, with the
//! tickets that guard those answers, and how they land in the form
//! (`asked.rs`), what the shell's keys ask of its narrowing, each one call
//! (`state_keys.rs`), the subscription Deliveries opens for (`chosen.rs`),
//! the routing of its messages (`heard.rs`: `on_msg`, handing back every
//! screen's `Heard` for the shell to do) and its own keys
//! (`keys.rs`, gathered by the shell's keymap). The shell
//! (`console/shell/`) routes its keys and messages here, calling its
//! methods, and names none of its fields.

pub mod ask;
pub mod asked;
pub mod bulk;
pub mod choices;
pub mod chosen;
pub mod fields;
pub mod form;
pub mod heard;
pub mod keys;
pub mod list;
pub mod msg;
pub mod narrow;
pub mod on_call;
pub mod read;
pub mod request;
pub mod state_keys;
pub mod undo;
pub mod watch;
pub mod words;
pub mod writes;

pub use ask::Ask;
pub use heard::Lent;
pub use msg::Msg;
pub use request::Request;
pub use writes::Write;
