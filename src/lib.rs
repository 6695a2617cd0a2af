//! orgdeck: a terminal console, a scriptable CLI and a reference server for
//! PostHog's roles, role memberships and subscriptions API.

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
