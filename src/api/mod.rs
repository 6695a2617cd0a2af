//! The API: typed models shared by the reference server and the client, and
//! the one client every face of orgdeck uses.

pub mod client;
pub mod enums;
pub mod error;
pub mod models;
pub mod operations;
pub mod paging;
pub mod secret;
pub mod time;

pub use client::{Client, ClientConfig, RetryPolicy};
pub use enums::{Frequency, TargetType, Weekday};
pub use error::{Error, Refusal, RequestLabel, TransportKind};
pub use models::*;
pub use operations::{RoleInput, SubscriptionFilter, SubscriptionInput};
pub use paging::{FetchAll, List, Row};
pub use secret::ApiKey;
