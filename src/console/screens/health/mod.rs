//! The Health screen. Its folder holds, so far, what it asks (`ask.rs`: a
//! look), what its keys do to marked rows (`bulk.rs`) and what guards its looks
//! ([`looks::Looks`]: the latest look's ticket, its stop, and whether a
//! look the server cut short starts again); the board itself
//! (`console/lists/health.rs`, `health_look.rs`) and the landing of a
//! look's news (`console/app/health.rs`) move here as issue 30's re-cut
//! goes on.

pub mod ask;
pub mod bulk;
pub mod looks;
pub mod msg;

pub use ask::Ask;
pub use looks::Looks;
pub use msg::Msg;
