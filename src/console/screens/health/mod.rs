//! The Health screen. Its folder holds what it asks (`ask.rs`: a
//! look), what its keys do to marked rows (`bulk.rs`) and what guards its looks
//! ([`looks::Looks`]: the latest look's ticket, its stop, and whether a
//! look the server cut short starts again) and the board itself
//! (`board.rs`: its rows, columns, detail and heading; `board_look.rs`:
//! how a look's news lands on them, `on_look_news` handing the list's
//! states to Subscriptions as a `Change`, `on_looked` its end, `look` and
//! `stop_look` starting and stopping one, `forget` what another project
//! drops) and when a look starts by itself and what the row under the
//! cursor offers the keys that act on a subscription (`handle.rs`), and
//! what its tab says from any tab (`tab.rs`), and its keys (`keys.rs`).

pub mod ask;
pub mod board;
pub mod bulk;
pub mod handle;
pub mod keys;
pub mod looks;
pub mod msg;
pub mod request;
pub mod tab;

pub use ask::Ask;
pub use board::Board;
pub use looks::Looks;
pub use msg::Msg;
