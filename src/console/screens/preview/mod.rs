//! The preview before a change that can move access (issue 32): a
//! component without a screen of its own, which the shell puts in front
//! of every write that moves access ([`crate::console::screens::Write::access_change`]),
//! a single one or a bulk run's. It reads the rules in the background
//! (`ask.rs`: `World::read`, the object's rules when the change is about
//! one, the role's object rules under a Terraform lock for a role
//! deleted), through the console's one access pacer and a [`Stopper`]
//! (Esc stops it and nothing is sent), computes who gains and who loses
//! (`crate::access::preview::preview`) and hands the question its words
//! (`crate::access::preview::told`). After the change it checks the
//! server's levels against the preview (`world::check`) and the shell
//! says the outcome in the notice and announces
//! `Change::AccessChanged`. What it holds between those moments is in
//! `state.rs`; the shell's side (when to read, the question, the second
//! question, the check) is `shell/preview.rs`.
//!
//! [`Stopper`]: crate::console::kit::latest::Stopper

pub mod ask;
pub mod msg;
pub mod state;

pub use ask::Ask;
pub use msg::{Msg, Outcome, Previewed};
pub use state::{Pending, Preview};
