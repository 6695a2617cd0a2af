//! Where the log is written, and opening it the owner's alone. `logging`
//! takes the opened file from its caller.

use std::fs::{File, OpenOptions};
use std::path::PathBuf;

use anyhow::Context;

/// Where the log goes: `ORGDECK_LOG`, else the platform's state directory
/// (`~/.local/state/orgdeck/orgdeck.log` on Linux).
pub fn log_path() -> PathBuf {
    if let Some(path) = std::env::var_os("ORGDECK_LOG") {
        return PathBuf::from(path);
    }
    super::platform_state_dir().join("orgdeck.log")
}

/// Opens the log file at [`log_path`] for `logging::init`. The default log is a state file:
/// in the owner-only state directory, created 0600, never through a link.
/// A file named by `ORGDECK_LOG` is the user's choice (`/dev/null` too), and
/// is only made owner-only.
pub fn open_log() -> anyhow::Result<File> {
    let Some(path) = std::env::var_os("ORGDECK_LOG").map(PathBuf::from) else {
        let path = super::create_platform_state_dir()?.join("orgdeck.log");
        let file = super::files::create_private(&path, super::files::Create::Append)
            .with_context(|| format!("cannot open the log file {}", path.display()))?;
        return Ok(file);
    };
    if let Some(parent) = path.parent().filter(|parent| !parent.as_os_str().is_empty()) {
        super::create_private_dir(parent)?;
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
    Ok(file)
}
