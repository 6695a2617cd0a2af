//! Logging through `tracing` to a file, never to the terminal the console
//! draws on. The file is created readable by its owner alone.

use std::fs::OpenOptions;
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
/// (default `info`). Returns the path. The default log is a state file:
/// in the owner-only state directory, created 0600, never through a link.
/// A file named by `ORGDECK_LOG` is the user's choice (`/dev/null` too), and
/// is only made owner-only.
pub fn init() -> anyhow::Result<PathBuf> {
    let Some(path) = std::env::var_os("ORGDECK_LOG").map(PathBuf::from) else {
        let path = crate::config::create_platform_state_dir()?.join("orgdeck.log");
        let file = crate::config::files::create_private(&path, crate::config::files::Create::Append)
            .with_context(|| format!("cannot open the log file {}", path.display()))?;
        return start(file, path);
    };
    if let Some(parent) = path.parent().filter(|parent| !parent.as_os_str().is_empty()) {
        crate::config::create_private_dir(parent)?;
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
    // A log file that was there before is made the owner's alone too (a
    // device such as /dev/null is left as it is).
    #[cfg(unix)]
    if file.metadata().is_ok_and(|metadata| metadata.is_file()) {
        use std::os::unix::fs::PermissionsExt;
        let _ = file.set_permissions(std::fs::Permissions::from_mode(0o600));
    }
    start(file, path)
}

/// Sends `tracing` to `file`.
fn start(file: std::fs::File, path: PathBuf) -> anyhow::Result<PathBuf> {
    let filter = EnvFilter::try_from_env("ORGDECK_LOG_LEVEL").unwrap_or_else(|_| EnvFilter::new("info"));
    // A second init (tests, a demo inside a process that logs) keeps the first.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(Mutex::new(file))
        .try_init();
    Ok(path)
}
