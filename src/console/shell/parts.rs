//! The parts of [`App`](super::App) that are the shell's own, each a group
//! of what changes together: the window drawn into, the requests on their
//! way, what is drawn over the list, the notice line, and the bulk action.
//! (The connection, `--refresh`, the writes and the prompt keep their own
//! types beside the code that runs them.)

use chrono::{DateTime, Utc};

use super::bulk::BulkRun;
use super::{Latest, Notice, Scroll};
use crate::api;
use crate::console::widgets::results::Report;

/// The terminal window the console draws into, and the loop that draws.
pub struct Window {
    /// Columns and rows.
    pub size: (u16, u16),
    /// The time relative dates are counted from; the loop sets it before
    /// drawing, so that a frame is drawn at one time.
    pub now: DateTime<Utc>,
    /// Whether anything shown changed since the last draw.
    pub dirty: bool,
    /// Set when the console is to close.
    pub quit: bool,
}

impl Window {
    pub fn new(size: (u16, u16)) -> Self {
        Window {
            size,
            now: crate::clock::system_now(),
            dirty: true,
            quit: false,
        }
    }
}

/// The requests on their way, as the footer shows them.
#[derive(Default)]
pub struct Requests {
    /// Requests sent and not yet answered: counted in
    /// [`App::update`](super::App::update) alone, where effects start and
    /// answers arrive.
    pub in_flight: usize,
    /// The spinner's step, turned each tick while a request is in flight.
    pub spinner: usize,
    /// The client's record of the last try of a request the footer shows
    /// (a page of the list shown, or a write).
    pub last: Option<api::Exchange>,
}

/// What is drawn over the list besides the mode's own overlay: the detail
/// of the row under the cursor, and the scroll of the detail and the help.
pub struct Overlays {
    /// The detail drawn over the table (Enter on a subscription or member,
    /// or `v` where there is no room for the pane).
    pub detail_open: bool,
    /// The detail shows the row's JSON rather than its fields.
    pub detail_json: bool,
    /// How far the detail and the help are scrolled.
    pub scroll: Scroll,
    /// Where the log goes, as the help shows it.
    pub log_path: std::path::PathBuf,
}

impl Default for Overlays {
    fn default() -> Self {
        Overlays {
            detail_open: false,
            detail_json: false,
            scroll: Scroll::default(),
            log_path: crate::config::log_path(),
        }
    }
}

/// The notice line at the bottom: what it says, and the timer of a
/// success notice set to fade.
#[derive(Default)]
pub struct NoticeLine {
    /// The notice shown, if any.
    pub shown: Option<Notice>,
    /// The last success notice set to fade; only its timer clears it.
    pub(super) fades: Latest,
}

impl NoticeLine {
    /// What the notice shown says; empty when there is none.
    pub fn text(&self) -> &str {
        self.shown
            .as_ref()
            .map(|notice| notice.text.as_str())
            .unwrap_or_default()
    }
}

/// Bulk actions (`d`, `p`, `t` on marked rows): the one under way and the
/// results of the last, row by row.
#[derive(Default)]
pub struct BulkRuns {
    /// The bulk action under way.
    pub(super) run: Option<BulkRun>,
    /// The results of the last bulk action, row by row.
    pub report: Option<Report>,
}
