//! The API: typed models shared by the reference server and the client, and
//! the one client every face of orgdeck uses.

pub mod client;
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
pub mod raw;
pub mod secret;
pub mod subscription;
pub mod time;
mod transport;

pub use client::{Client, ClientConfig, Exchange, Observer, RetryPolicy};
pub use deliveries::{CursorPage, Delivery, DeliveryError, RecipientCounts, RecipientResult};
pub use enums::{DeliveryStatus, Frequency, RecipientStatus, ResourceType, TargetType, TriggerType, Weekday};
pub use error::{Error, Refusal, RequestLabel, TransportKind, Unreachable};
pub use integrations::{
    ChannelQuery, Channels, Dashboard, DashboardTile, Integration, SlackChannel, SummaryQuota, TileInsight,
};
pub use members::{KeySummary, ScopedApiKeys};
pub use models::*;
pub use operations::{RoleInput, SubscriptionFilter, SubscriptionInput};
pub use paging::{FetchAll, List, PICKER_ROWS, Row, Streamed};
pub use raw::Raw;
pub use secret::ApiKey;
