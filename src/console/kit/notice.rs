//! A note to the user in the footer or over the table: what every screen
//! and the shell say when something is done, under way or went wrong.

use std::time::Duration;

/// A note to the user; it never stops the keys. An error stays over the
/// table until dismissed; anything else is a flash in the footer that
/// fades after [`NOTICE_FOR`].
#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    pub text: String,
    pub error: bool,
    /// Whether it goes by itself after [`NOTICE_FOR`]: news of something
    /// done does, an error or news of something under way does not.
    pub fades: bool,
}

impl Notice {
    /// Something went wrong: it stays until dismissed.
    pub fn error(text: String) -> Notice {
        Notice {
            text,
            error: true,
            fades: false,
        }
    }

    /// Something was done: a flash that fades.
    pub fn done(text: String) -> Notice {
        Notice {
            text,
            error: false,
            fades: true,
        }
    }

    /// Something is under way: it stays until its answer replaces it.
    pub fn working(text: String) -> Notice {
        Notice {
            text,
            error: false,
            fades: false,
        }
    }
}

/// How long a notice that reports success stays.
pub const NOTICE_FOR: Duration = Duration::from_secs(5);
