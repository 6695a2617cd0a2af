//! orgdeck: a terminal console, a scriptable CLI and a reference server for
//! PostHog's roles, role memberships and subscriptions API.

// Outside tests nothing unwraps, expects or panics on what it is given: an
// answer from a server, a file or a key press is an error shown, never a
// crash. An exception is allowed one by one, where it stands, with the
// proof that it cannot fail beside it.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

pub mod access;
pub mod api;
pub mod cli;
pub mod clock;
pub mod config;
pub mod console;
pub mod display;
pub mod health;
pub mod logging;
pub mod people;
pub mod schedule;
pub mod server;
pub mod text;
