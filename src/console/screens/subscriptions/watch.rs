//! The watch after a test delivery or a resume: the delivery the console
//! waits to see land (its newest delivery asked for a few times, further
//! apart each time; "latest wins" for those looks), and the subscription
//! read again to learn whether the server paused it, and why.

use crate::api::TriggerType;
use crate::console::kit::latest::Latest;

/// What is watched for now.
#[derive(Debug, Default)]
pub struct Watch {
    /// The delivery waited for, if any.
    pub poll: Option<Poll>,
    /// The looks' tickets: only the latest look's timer is taken.
    pub polls: Latest,
    /// The subscription read again, if any.
    pub recheck: Option<Recheck>,
}

/// A delivery the console waits to see land.
#[derive(Debug, Clone, PartialEq)]
pub struct Poll {
    pub subscription: i64,
    /// The trigger of the delivery waited for (manual, for a test).
    pub expect: Option<TriggerType>,
    /// The newest delivery shown when it was asked for, if any.
    pub before: Option<String>,
    /// No delivery recorded before this is the one waited for (a few
    /// minutes before it was asked for, for clocks that disagree).
    pub since: chrono::DateTime<chrono::Utc>,
    /// How many looks have been taken.
    pub looks: u8,
}

/// A subscription read again after a resume or a test.
#[derive(Debug, Clone, PartialEq)]
pub struct Recheck {
    pub id: i64,
    /// What was done: "resumed", "tested".
    pub done: &'static str,
    /// The read showed it paused; its newest delivery is to say why.
    pub paused_again: bool,
    /// Why, from the delivery that landed, once one has.
    pub why: Option<String>,
}
