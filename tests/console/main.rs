//! The console driven by key events against a real reference server, with
//! snapshots of its screens; and the real binary in a pseudo-terminal.

#[path = "../support/mod.rs"]
mod support;

mod commands;
mod connection;
mod contexts;
mod defects;
mod drive;
mod edits;
mod emptied;
mod flows;
mod health;
mod marks;
mod on_call;
mod people;
mod production;
mod pty;
mod pty_access;
mod pty_health;
mod smaller;
mod today;
mod whole;
mod widths;
