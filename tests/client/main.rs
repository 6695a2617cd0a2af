//! The API client and the scriptable CLI against the real reference server
//! over HTTP, with faults injected by a proxy in front of it.

#[path = "../support/mod.rs"]
mod support;

mod access;
mod access_cli;
mod access_figures;
mod bounds;
mod cli;
mod code;
mod faults;
mod health;
mod hostile;
mod login;
mod on_call;
mod operations;
mod paging;
mod passthrough;
mod people;
mod profiles;
mod readme;
mod today;
