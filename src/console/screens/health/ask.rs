//! What the Health screen asks for: a look at the project's subscriptions
//! ([`Ask::Look`]). A look runs long and tells its news as it goes, with
//! the console's clock and state directory, so it runs on the effects
//! runner's task (`request.rs`); its news and end are the screen's own
//! [`Msg`].
//!
//! [`Msg`]: super::Msg

use crate::console::kit::latest::Ticket;
use crate::console::kit::stop::Stop;

#[derive(Debug, Clone, PartialEq)]
pub enum Ask {
    /// Look at the health of every subscription of the project: news comes
    /// back as `Msg::LookNews` as it goes, and the end as `Msg::Looked`,
    /// all with this ticket; `stop` ends it between requests.
    Look {
        ticket: Ticket,
        project: String,
        stop: Stop,
        /// The most delivery requests (`Some(0)`: the list alone, for the
        /// state filters of Subscriptions).
        max_requests: Option<u64>,
    },
}
