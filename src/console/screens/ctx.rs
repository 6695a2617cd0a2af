//! What the shell lends a screen's handler: the notice line, the flag
//! that asks for a frame, the time, the rows a table shows, which screen
//! is shown, the organization and project in use and the zone times
//! are shown in. A handler takes one
//! [`Ctx`] instead of `App`, so that nothing below the shell sees `App`
//! and a screen's handling reads top to bottom in its folder (gitui's
//! `Environment`, narrowed to what a screen may touch).

use chrono::{DateTime, Utc};

use crate::console::kit::notice::Notice;
use crate::console::kit::scope::Scope;
use crate::console::screens::ScreenId;

/// The shell's shared state a screen's handler may read or change.
pub struct Ctx<'a> {
    /// The notice line: a handler says what happened here.
    pub notice: &'a mut Option<Notice>,
    /// Set when what is drawn changed and a frame is due.
    pub dirty: &'a mut bool,
    pub now: DateTime<Utc>,
    /// Rows a table shows at the current size.
    pub height: u64,
    /// The screen on show (a handler speaks up only on its own).
    pub shown: ScreenId,
    /// The organization and project the connection is about.
    pub scope: Scope<'a>,
    /// The zone times are shown in (a person's page lays its dates out in it).
    pub zone: crate::display::Zone,
}
