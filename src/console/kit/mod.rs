//! The console's floor 0: small pieces every other part of the console
//! uses and that use nothing else of the console: the theme and its
//! colours, the view context a frame is drawn from (theme, zone, time:
//! [`view::ViewCx`]), fitting text to a width, the tickets that let the latest
//! answer to a request win, the flag that stops a task ([`stop::Stop`]),
//! the notice in the footer, a table's columns and sorts, someone a write
//! is about ([`person::Person`]), and the organization and project a
//! screen is about ([`scope::Scope`]), lines wrapped to a width and a
//! page's lines, held with their cursor and filter and drawn ([`page`]).
//! The architecture test (`tests/server/architecture.rs`) keeps this
//! floor from naming anything above it.

pub mod cell;
pub mod column;
pub mod detail;
pub mod fit;
pub mod latest;
pub mod notice;
pub mod page;
pub mod person;
pub mod scope;
pub mod stop;
pub mod theme;
pub mod view;
pub mod wrap;
