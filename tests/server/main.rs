//! Conformance of the reference server: every operation, scope and error of
//! `spec/`, over real HTTP on 127.0.0.1.

// Test code: a setup or an answer that is not what the test expects stops it, loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../support/mod.rs"]
mod support;

mod access;
mod access_demo;
mod access_rules;
mod access_terraform;
mod architecture;
mod auth;
mod cli;
mod current;
mod deep_pages;
mod deliveries;
mod delivery_task;
mod demo;
mod durability;
mod errors;
mod fuzz;
mod hostile;
mod integrations;
mod latest;
mod limits;
mod listing;
mod memberships;
mod owners;
mod paging;
mod roles;
mod schedules;
mod schema;
mod scoped_keys;
mod seed;
mod subscriptions;
mod today;
