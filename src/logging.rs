//! Logging through `tracing` to a file, never to the terminal the console
//! draws on. The caller opens the file (`config::open_log` finds it and
//! makes it the owner's alone) and hands it here: this module knows nothing
//! of where logs live.

use std::sync::Mutex;

use tracing_subscriber::EnvFilter;

/// Sends `tracing` to `file`; the level comes from `ORGDECK_LOG_LEVEL`
/// (default `info`).
pub fn init(file: std::fs::File) {
    let filter = EnvFilter::try_from_env("ORGDECK_LOG_LEVEL").unwrap_or_else(|_| EnvFilter::new("info"));
    // A second init (tests, a demo inside a process that logs) keeps the first.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(Mutex::new(file))
        .try_init();
}
