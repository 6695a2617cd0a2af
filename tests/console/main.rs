//! The console driven by key events against a real reference server, with
//! snapshots of its screens; and the real binary in a pseudo-terminal.

#[path = "../support/mod.rs"]
mod support;

mod commands;
mod contexts;
mod edits;
mod emptied;
mod flows;
mod health;
mod marks;
mod on_call;
mod pty;
mod today;
mod widths;
