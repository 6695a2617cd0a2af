//! The console driven by key events against a real reference server, with
//! snapshots of its screens; and the real binary in a pseudo-terminal.

// Test code: a setup or an answer that is not what the test expects stops it, loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../support/mod.rs"]
mod support;

mod access;
mod access_edit;
mod access_figures;
mod access_pages;
mod access_preview;
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
mod pty_access_pages;
mod pty_access_preview;
mod pty_grid;
mod pty_health;
mod smaller;
mod switch_preview;
mod today;
mod whole;
mod widths;
