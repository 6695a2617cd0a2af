//! State files: Health's index, offboarding records and journals, apply's
//! locks and saved plans. Each is opened without following a symbolic link,
//! must be a regular file of a bounded size, and is created 0600 in a 0700
//! directory, so that a link planted at a state path is refused rather than
//! followed, a FIFO is never waited on, and `/dev/zero` is never read
//! without end. Every refusal names the path and the reason.
//!
//! Files the user names and owns (an as-code file) are not state files:
//! [`replace_keeping_mode`] rewrites them atomically and keeps their mode.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::Path;

/// How a state file is opened for writing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Create {
    /// Created, or emptied if it exists.
    Truncate,
    /// Created, or written after what it holds.
    Append,
    /// Created; an existing file is an error (`AlreadyExists`).
    New,
}

/// Reads a state file whole, refusing a link, anything but a regular file,
/// and a file over `limit` bytes. `Ok(None)` when there is no file.
pub fn read_bounded(path: &Path, limit: u64) -> io::Result<Option<Vec<u8>>> {
    let file = match open(path, OpenOptions::new().read(true)) {
        Ok(file) => file,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(error),
    };
    let size = file.metadata()?.len();
    if size > limit {
        return Err(too_large(path, limit));
    }
    let mut bytes = Vec::with_capacity(size as usize);
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(path, limit));
    }
    Ok(Some(bytes))
}

/// Checks a state file another library opens (Health's SQLite index):
/// absent, or a regular file of at most `limit` bytes that is not a link,
/// made owner-only; its directory is made owner-only if missing. The file
/// is opened the same way as [`read_bounded`] opens one (no link followed,
/// no FIFO waited on), so what is refused is refused with the same words.
pub fn check_private(path: &Path, limit: u64) -> io::Result<()> {
    if let Some(parent) = path.parent().filter(|parent| !parent.as_os_str().is_empty()) {
        super::create_private_dir(parent).map_err(io::Error::other)?;
    }
    let file = match open(path, OpenOptions::new().read(true)) {
        Ok(file) => file,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(error),
    };
    if file.metadata()?.len() > limit {
        return Err(too_large(path, limit));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    Ok(())
}

/// Opens a state file for writing (and reading: a journal reads its own
/// beginning), owner-only (an existing file's mode is set to 0600 too), its
/// directory made owner-only if missing.
pub fn create_private(path: &Path, how: Create) -> io::Result<File> {
    if let Some(parent) = path.parent().filter(|parent| !parent.as_os_str().is_empty()) {
        super::create_private_dir(parent).map_err(io::Error::other)?;
    }
    let mut options = OpenOptions::new();
    options.read(true).write(true);
    match how {
        Create::Truncate => options.create(true),
        Create::Append => options.create(true).append(true),
        Create::New => options.create_new(true),
    };
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let file = open(path, &mut options)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    if how == Create::Truncate {
        file.set_len(0)?;
    }
    Ok(file)
}

/// Writes a state file whole, atomically (a private temporary file in the
/// same directory, flushed, then renamed over it), so that a reader or a
/// crash sees the old contents or the new, never a part. A link at the
/// path is replaced, not followed.
pub fn replace_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = parent_of(path);
    super::create_private_dir(dir).map_err(io::Error::other)?;
    replace(path, dir, bytes, None)
}

/// Rewrites a file the user owns atomically, keeping its mode (a new file
/// gets the process's default). A symbolic link at the path is followed to
/// the file it names, which is the one rewritten, so a file kept in a
/// dotfiles repository stays there.
pub fn replace_keeping_mode(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let target = match std::fs::canonicalize(path) {
        Ok(target) => target,
        Err(error) if error.kind() == io::ErrorKind::NotFound => path.to_path_buf(),
        Err(error) => return Err(error),
    };
    let permissions = match std::fs::metadata(&target) {
        Ok(metadata) if metadata.is_file() => Some(metadata.permissions()),
        Ok(_) => return Err(not_regular(&target)),
        Err(error) if error.kind() == io::ErrorKind::NotFound => None,
        Err(error) => return Err(error),
    };
    replace(&target, parent_of(&target), bytes, permissions)
}

/// As [`replace_keeping_mode`], with the new content written by `write`
/// (a file written a piece at a time, never held whole): the file is
/// replaced only once `write` has written all of it.
pub fn replace_keeping_mode_with<E: From<io::Error>>(
    path: &Path,
    write: impl FnOnce(&mut io::BufWriter<&std::fs::File>) -> Result<(), E>,
) -> Result<(), E> {
    let target = match std::fs::canonicalize(path) {
        Ok(target) => target,
        Err(error) if error.kind() == io::ErrorKind::NotFound => path.to_path_buf(),
        Err(error) => return Err(error.into()),
    };
    let permissions = match std::fs::metadata(&target) {
        Ok(metadata) if metadata.is_file() => Some(metadata.permissions()),
        Ok(_) => return Err(not_regular(&target).into()),
        Err(error) if error.kind() == io::ErrorKind::NotFound => None,
        Err(error) => return Err(error.into()),
    };
    let dir = parent_of(&target);
    // NamedTempFile creates its file 0600, with a name nobody can guess.
    let temporary = tempfile::NamedTempFile::new_in(dir)?;
    {
        let mut out = io::BufWriter::new(temporary.as_file());
        write(&mut out)?;
        out.flush()?;
    }
    if let Some(permissions) = permissions {
        temporary.as_file().set_permissions(permissions)?;
    }
    temporary.as_file().sync_all()?;
    temporary.persist(&target).map_err(|error| error.error)?;
    sync_dir(dir);
    Ok(())
}

fn replace(
    path: &Path,
    dir: &Path,
    bytes: &[u8],
    permissions: Option<std::fs::Permissions>,
) -> io::Result<()> {
    // NamedTempFile creates its file 0600, with a name nobody can guess.
    let mut temporary = tempfile::NamedTempFile::new_in(dir)?;
    temporary.write_all(bytes)?;
    if let Some(permissions) = permissions {
        temporary.as_file().set_permissions(permissions)?;
    }
    temporary.as_file().sync_all()?;
    temporary.persist(path).map_err(|error| error.error)?;
    sync_dir(dir);
    Ok(())
}

fn parent_of(path: &Path) -> &Path {
    path.parent()
        .filter(|parent| !parent.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Flushes a directory's entries, so that a rename survives a crash. Best
/// effort: some file systems do not let a directory be opened for it.
fn sync_dir(dir: &Path) {
    if let Ok(handle) = File::open(dir) {
        let _ = handle.sync_all();
    }
}

/// Opens without following a link at the last component and without
/// waiting on a FIFO, then insists on a regular file.
fn open(path: &Path, options: &mut OpenOptions) -> io::Result<File> {
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(options, libc::O_NOFOLLOW | libc::O_NONBLOCK);
    let file = options.open(path).map_err(|error| {
        #[cfg(unix)]
        if error.raw_os_error() == Some(libc::ELOOP) {
            return io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{} is a symbolic link; orgdeck does not follow links at its state paths",
                    path.display()
                ),
            );
        }
        error
    })?;
    if !file.metadata()?.is_file() {
        return Err(not_regular(path));
    }
    Ok(file)
}

fn not_regular(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{} is not a regular file", path.display()),
    )
}

fn too_large(path: &Path, limit: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{} is larger than {limit} bytes", path.display()),
    )
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn a_link_at_a_state_path_is_refused_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let link = dir.path().join("index.json");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        let error = create_private(&link, Create::Truncate).unwrap_err();
        assert!(error.to_string().contains("symbolic link"), "{error}");
        assert!(
            read_bounded(&link, 10)
                .unwrap_err()
                .to_string()
                .contains("symbolic link")
        );
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
    }

    #[test]
    fn devices_and_fifos_are_not_regular_files() {
        let error = read_bounded(Path::new("/dev/zero"), 1024).unwrap_err();
        assert!(error.to_string().contains("not a regular file"), "{error}");
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        // Returns at once: a FIFO with no writer is not waited on.
        let error = read_bounded(&fifo, 1024).unwrap_err();
        assert!(error.to_string().contains("not a regular file"), "{error}");
    }

    #[test]
    fn a_file_past_its_bound_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big");
        std::fs::write(&path, vec![b'x'; 2048]).unwrap();
        assert!(
            read_bounded(&path, 1024)
                .unwrap_err()
                .to_string()
                .contains("larger than 1024")
        );
        assert_eq!(read_bounded(&path, 4096).unwrap().unwrap().len(), 2048);
        assert_eq!(read_bounded(&dir.path().join("missing"), 10).unwrap(), None);
    }

    #[test]
    fn state_files_are_owner_only_in_owner_only_directories() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state").join("record.json");
        let mut file = create_private(&path, Create::Truncate).unwrap();
        file.write_all(b"one").unwrap();
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(path.parent().unwrap()), 0o700);
        // An existing 0644 file is made owner-only, then appended to.
        let open = dir.path().join("open.json");
        std::fs::write(&open, "a").unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o644)).unwrap();
        create_private(&open, Create::Append)
            .unwrap()
            .write_all(b"b")
            .unwrap();
        assert_eq!(mode(&open), 0o600);
        assert_eq!(std::fs::read_to_string(&open).unwrap(), "ab");
        let error = create_private(&open, Create::New).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::AlreadyExists);
    }

    #[test]
    fn replacing_is_atomic_and_keeps_the_user_s_mode() {
        let dir = tempfile::tempdir().unwrap();
        let private = dir.path().join("private").join("plan.json");
        replace_private(&private, b"{}").unwrap();
        assert_eq!(mode(&private), 0o600);
        let mine = dir.path().join("org.toml");
        std::fs::write(&mine, "old").unwrap();
        std::fs::set_permissions(&mine, std::fs::Permissions::from_mode(0o640)).unwrap();
        let link = dir.path().join("link.toml");
        std::os::unix::fs::symlink(&mine, &link).unwrap();
        replace_keeping_mode(&link, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&mine).unwrap(), "new");
        assert_eq!(mode(&mine), 0o640);
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    }
}
