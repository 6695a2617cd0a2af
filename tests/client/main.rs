//! The API client and the scriptable CLI against the real reference server
//! over HTTP, with faults injected by a proxy in front of it.

// Test code: a setup or an answer that is not what the test expects stops it, loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../support/mod.rs"]
mod support;

mod access;
mod access_cli;
mod access_code;
mod access_code_objects;
mod access_dry_runs;
mod access_figures;
mod access_managed;
mod access_preview;
mod access_preview_props;
mod apply;
mod apply_checks;
mod bounds;
mod catalog;
mod cli;
mod code;
mod code_files;
mod code_members;
mod creates;
mod endless;
mod faults;
mod health;
mod health_cli;
mod held;
mod hostile;
mod login;
mod offboarding;
mod offboarding_checks;
mod offboarding_files;
mod older;
mod on_call;
mod operations;
mod paging;
mod passthrough;
mod people;
mod profiles;
mod readme;
mod today;
mod whole;
