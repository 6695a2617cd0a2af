//! Logging through `tracing` to a file, never to the terminal the console
//! draws on. The file is created readable by its owner alone.

use std::fs::{self, OpenOptions};
use std::path::PathBuf;
use std::sync::Mutex;

use anyhow::Context;
use tracing_subscriber::EnvFilter;

/// Where the log goes: `ORGDECK_LOG`, else the platform's state directory
/// (`~/.local/state/orgdeck/orgdeck.log` on Linux).
pub fn log_path() -> PathBuf {
    if let Some(path) = std::env::var_os("ORGDECK_LOG") {
        return PathBuf::from(path);
    }
    crate::config::platform_state_dir().join("orgdeck.log")
}

/// Starts logging to [`log_path`]; the level comes from `ORGDECK_LOG_LEVEL`
/// (default `info`). Returns the path.
pub fn init() -> anyhow::Result<PathBuf> {
    let path = log_path();
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
    }
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let file = options
        .open(&path)
        .with_context(|| format!("cannot open the log file {}", path.display()))?;
    // A log file that was there before is made the owner's alone too.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = file.set_permissions(std::fs::Permissions::from_mode(0o600));
    }
    let filter = EnvFilter::try_from_env("ORGDECK_LOG_LEVEL").unwrap_or_else(|_| EnvFilter::new("info"));
    // A second init (tests, a demo inside a process that logs) keeps the first.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(Mutex::new(file))
        .try_init();
    Ok(path)
}
