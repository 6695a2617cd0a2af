//! Access control (posthog.md 16): who reaches which project, resource and
//! object, and why. Below the client and the server alike: the levels and
//! resources (`levels`), the one resolution both use (`resolve`: rules in,
//! levels and reasons out), the answers as the API sends them (`models`),
//! and the client's calls (`client`, reading the unpaginated settings
//! answers a row at a time through `stream`).

pub mod client;
pub mod levels;
pub mod models;
pub mod resolve;
mod stream;

pub use client::AccessTarget;
pub use levels::AccessLevel;
pub use models::*;
pub use resolve::{
    AccessSource, Entry, Member, Mode, Plan, Principal, Resolved, Resolver, Rule, RuleSet, Source, Subject,
    SubjectKind, Target,
};
