//! Opening an as-code file: TOML read a line at a time, its roles'
//! members set aside as they are read ([`super::scan`]); JSON read whole.

use std::io::Read as _;
use std::path::Path;

use super::read::{self as reader, too_large};
use super::{CodeFile, MAX_FILE_BYTES, Problem, scan};

/// The words of a file that cannot be read.
fn cannot(path: &Path, error: impl std::fmt::Display) -> String {
    format!("cannot read {}: {error}", path.display())
}

/// Opens the file at `path`, refusing anything but a file, and one past
/// [`MAX_FILE_BYTES`] (by its size, without reading it) unless `any_size`.
fn open_file(path: &Path, any_size: bool) -> Result<(std::fs::File, u64), String> {
    let file = std::fs::File::open(path).map_err(|error| cannot(path, error))?;
    let metadata = file.metadata().map_err(|error| cannot(path, error))?;
    if !metadata.is_file() {
        return Err(cannot(path, "not a regular file"));
    }
    if !any_size && metadata.len() > MAX_FILE_BYTES {
        return Err(format!("{}: {}", path.display(), too_large(metadata.len())));
    }
    Ok((file, metadata.len()))
}

/// Reads an as-code file whole, refusing one past [`MAX_FILE_BYTES`]
/// (without reading it) and anything but a file.
pub fn read_text(path: &Path) -> Result<String, String> {
    let cannot = |error: std::io::Error| cannot(path, error);
    let (file, size) = open_file(path, false)?;
    let mut bytes = Vec::with_capacity(size as usize);
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!("{}: {}", path.display(), too_large(bytes.len() as u64)));
    }
    String::from_utf8(bytes).map_err(|error| {
        format!(
            "cannot read {}: not UTF-8 text (byte {})",
            path.display(),
            error.utf8_error().valid_up_to()
        )
    })
}

/// What was read of a file: its size and SHA-256, to tell later whether
/// it is still what was read without holding its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seen {
    pub size: u64,
    pub digest: [u8; 32],
    /// JSON (else TOML).
    pub json: bool,
}

impl Seen {
    /// Of a text held whole.
    fn of(text: &str) -> Seen {
        use sha2::Digest as _;
        Seen {
            size: text.len() as u64,
            digest: sha2::Sha256::digest(text.as_bytes()).into(),
            json: true,
        }
    }
}

/// Why a file was not read: it could not be, or it has problems.
#[derive(Debug)]
pub enum Unread {
    Cannot(String),
    Problems(Vec<Problem>),
}

/// The words of a file not scanned.
#[cfg(test)]
pub(super) fn unscanned(error: scan::Unscanned) -> String {
    match error {
        scan::Unscanned::Io(error) => format!("cannot read: {error}"),
        scan::Unscanned::NotUtf8(at) => format!("not UTF-8 text (byte {at})"),
        scan::Unscanned::TooLarge(size) => too_large(size),
        scan::Unscanned::SetAside(error) => super::read::cannot_set_aside(&error).message,
    }
}

/// Whether the file at `path` is JSON (its first character that is not
/// blank is `{`): a JSON file is read whole ([`read_text`]).
pub fn is_json_file(path: &Path) -> Result<bool, String> {
    let cannot = |error: std::io::Error| cannot(path, error);
    let (file, _) = open_file(path, true)?;
    let mut input = std::io::BufReader::new(file);
    loop {
        let buffer = std::io::BufRead::fill_buf(&mut input).map_err(cannot)?;
        if buffer.is_empty() {
            return Ok(false);
        }
        let blank = buffer
            .iter()
            .take_while(|byte| byte.is_ascii_whitespace())
            .count();
        if blank < buffer.len() {
            return Ok(buffer[blank] == b'{');
        }
        std::io::BufRead::consume(&mut input, blank);
    }
}

/// The words of a file not scanned.
fn not_scanned(path: &Path, error: scan::Unscanned) -> String {
    match error {
        scan::Unscanned::Io(error) => cannot(path, error),
        scan::Unscanned::NotUtf8(at) => cannot(path, format_args!("not UTF-8 text (byte {at})")),
        scan::Unscanned::TooLarge(size) => format!("{}: {}", path.display(), too_large(size)),
        // Not the file's fault: the sort's temporary files (a full disk).
        scan::Unscanned::SetAside(error) => format!(
            "{}: {}",
            path.display(),
            super::read::cannot_set_aside(&error).message
        ),
    }
}

/// Reads and checks an as-code file, TOML or JSON, refusing one past
/// [`MAX_FILE_BYTES`] and anything but a file. TOML is read a line at a
/// time, its roles' members set aside as they are read ([`scan`]): what
/// is held is the rest of its text while it is parsed. JSON is read whole.
pub fn read(path: &Path) -> Result<(CodeFile, Seen), Unread> {
    if is_json_file(path).map_err(Unread::Cannot)? {
        let text = read_text(path).map_err(Unread::Cannot)?;
        let file = reader::parse_json(&text).map_err(Unread::Problems)?;
        return Ok((file, Seen::of(&text)));
    }
    let (file, _) = open_file(path, false).map_err(Unread::Cannot)?;
    let scanned = scan::scan(|| {
        use std::io::Seek as _;
        let mut input = &file;
        input.seek(std::io::SeekFrom::Start(0))?;
        Ok(std::io::BufReader::with_capacity(64 * 1024, input))
    })
    .map_err(|error| Unread::Cannot(not_scanned(path, error)))?;
    let seen = Seen {
        size: scanned.size,
        digest: scanned.digest,
        json: false,
    };
    let file = reader::parse_scanned(scanned).map_err(Unread::Problems)?;
    Ok((file, seen))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sort_that_fails_is_not_told_as_the_file() {
        let path = Path::new("roles.toml");
        let full = || std::io::Error::new(std::io::ErrorKind::StorageFull, "no space left");
        assert_eq!(
            not_scanned(path, scan::Unscanned::SetAside(full())),
            "roles.toml: cannot set aside the members of the file's roles: no space left"
        );
        assert_eq!(
            not_scanned(path, scan::Unscanned::Io(full())),
            "cannot read roles.toml: no space left"
        );
    }
}
