//! The API: typed models shared by the reference server and the client, and
//! the one client every face of orgdeck uses.

pub mod access;
pub mod caller;
pub(crate) mod chunks;
pub mod client;
pub mod creates;
pub mod deliveries;
pub mod enums;
pub mod error;
pub mod health;
pub mod integrations;
pub mod members;
pub mod models;
mod older;
pub mod operations;
pub mod paging;
mod prune;
pub mod query;
pub mod raw;
pub mod secret;
pub mod subscription;
pub mod time;
mod transport;

pub use access::AccessLevel;
pub use caller::{Caller, Lack, Operation, Shortfall};
pub use client::{Client, ClientConfig, Deadline, Exchange, Observer, RetryPolicy};
pub use deliveries::{CursorPage, Delivery, DeliveryError, RecipientCounts, RecipientResult};
pub use enums::{DeliveryStatus, Frequency, RecipientStatus, ResourceType, TargetType, TriggerType, Weekday};
pub use error::{Error, Incomplete, Refusal, RequestLabel, TransportKind, Unreachable};
pub use integrations::{
    ChannelQuery, Channels, Dashboard, DashboardTile, Integration, SlackChannel, SummaryQuota, TileInsight,
};
pub use members::{KeySummary, ScopedApiKeys};
pub use models::*;
pub use operations::{RoleInput, SubscriptionInput};
pub use paging::{Complete, FetchAll, Holding, Kept, List, PICKER_ROWS, Pace, Row, Whole};
pub use query::SubscriptionFilter;
pub use raw::{Raw, Verbatim};
pub use secret::ApiKey;
