//! The API's typed models, shared by the reference server and the client.

pub mod enums;
pub mod models;
pub mod time;

pub use enums::{Frequency, TargetType, Weekday};
pub use models::*;
