//! Writes the ids of created entries back into the file as soon as the
//! server answers, one atomic rewrite after each create, every other byte
//! as it was (comments, layout, escapes): the id is written as the entry's
//! first key (`id = 42` after its `[[subscriptions]]` line, `id = 42, `
//! inside an inline table, `"id": 42,` first in a JSON object), where the
//! file's reading found the entry. Nothing is parsed again, and the text
//! is not held: a file of any size costs one copy per write, from the
//! file on disk to the new one, a buffer at a time.
//!
//! The file is the user's: it is rewritten keeping its mode, and only
//! while it is still what orgdeck read (the size and SHA-256 of what is
//! copied, checked before the new file takes its place; a file only
//! touched is still what was read). The place of the id is found in the
//! same open file the copy then reads. If someone edited it meanwhile,
//! nothing is written over their edit; the ids are then kept in the
//! lock's journal for the next apply to write (see `lock`).

use std::io::{BufRead as _, Read as _, Seek as _, Write as _};
use std::path::{Path, PathBuf};

use sha2::Digest as _;

use super::file::{CodeFile, Seen, toml_string};

/// A created entry: which list, its place there, the server's id.
#[derive(Debug, Clone, PartialEq)]
pub enum NewId {
    Role { index: usize, id: String },
    Subscription { index: usize, id: i64 },
}

/// What was read of the file, and where each entry starts in it.
pub struct Writeback {
    path: PathBuf,
    /// Its size and digest as last read or written.
    read: Seen,
    roles: Vec<Option<usize>>,
    subscriptions: Vec<Option<usize>>,
}

/// Why an id was not written.
#[derive(Debug, thiserror::Error)]
pub enum Unwritten {
    #[error("{} changed since orgdeck read it; the new ids were not written over the edit", .0.display())]
    Changed(PathBuf),
    #[error("cannot write {}: {error}", .path.display())]
    Io { path: PathBuf, error: std::io::Error },
    #[error("{0}")]
    Placement(String),
}

/// Why a copy stopped.
enum Copy {
    Io(std::io::Error),
    Changed,
}

impl From<std::io::Error> for Copy {
    fn from(error: std::io::Error) -> Copy {
        Copy::Io(error)
    }
}

/// A copy from the file to its new text: what was read of the file, and
/// what was written.
#[derive(Default)]
struct Copied {
    read: sha2::Sha256,
    written: sha2::Sha256,
    size: u64,
}

impl Copied {
    /// Copies `source` to its end, a buffer at a time.
    fn copy(&mut self, source: &mut dyn std::io::Read, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let mut buffer = vec![0u8; 64 * 1024];
        loop {
            let got = source.read(&mut buffer)?;
            if got == 0 {
                return Ok(());
            }
            self.read.update(&buffer[..got]);
            self.written.update(&buffer[..got]);
            self.size += got as u64;
            out.write_all(&buffer[..got])?;
        }
    }
}

/// The most bytes before an entry read to find its line's indent.
const BEFORE: u64 = 64 * 1024;

impl Writeback {
    /// For the file at `path`, read as `file` (`read` what was read of it).
    pub fn new(path: &Path, read: Seen, file: &CodeFile) -> Writeback {
        Writeback {
            path: path.to_path_buf(),
            read,
            roles: file
                .roles
                .iter()
                .flatten()
                .map(|role| role.at.map(|at| at.offset))
                .collect(),
            subscriptions: file
                .subscriptions
                .iter()
                .flatten()
                .map(|entry| entry.at.map(|at| at.offset))
                .collect(),
        }
    }

    /// What was read or last written of the file.
    #[cfg(test)]
    pub fn read(&self) -> Seen {
        self.read
    }

    /// Writes one id into its entry and the file to disk, atomically.
    pub fn write(&mut self, new: &NewId) -> Result<(), Unwritten> {
        let (list, index) = match new {
            NewId::Role { index, .. } => (&self.roles, *index),
            NewId::Subscription { index, .. } => (&self.subscriptions, *index),
        };
        let kind = if matches!(new, NewId::Role { .. }) {
            "role"
        } else {
            "subscription"
        };
        let at = list.get(index).copied().flatten().ok_or_else(|| {
            Unwritten::Placement(format!("no place for the id of {kind} entry {}", index + 1))
        })?;
        let io = |error: std::io::Error| Unwritten::Io {
            path: self.path.clone(),
            error,
        };
        let mut source = std::fs::File::open(&self.path).map_err(io)?;
        let (insert_at, inserted) = self
            .placement(&mut source, at, new)
            .map_err(io)?
            .map_err(Unwritten::Placement)?;
        source.seek(std::io::SeekFrom::Start(0)).map_err(io)?;
        let mut copied = Copied::default();
        let done = crate::config::files::replace_keeping_mode_with(&self.path, |out| {
            copied.copy(&mut (&mut source).take(insert_at as u64), out)?;
            if copied.size != insert_at as u64 {
                return Err(Copy::Changed);
            }
            copied.written.update(inserted.as_bytes());
            out.write_all(inserted.as_bytes())?;
            copied.copy(&mut source, out)?;
            let digest: [u8; 32] = copied.read.clone().finalize().into();
            if copied.size != self.read.size || digest != self.read.digest {
                return Err(Copy::Changed);
            }
            Ok::<(), Copy>(())
        });
        match done {
            Ok(()) => {}
            Err(Copy::Changed) => return Err(Unwritten::Changed(self.path.clone())),
            Err(Copy::Io(error)) => return Err(io(error)),
        }
        self.read = Seen {
            size: copied.size + inserted.len() as u64,
            digest: copied.written.finalize().into(),
            json: self.read.json,
        };
        for offset in self
            .roles
            .iter_mut()
            .chain(self.subscriptions.iter_mut())
            .flatten()
        {
            if *offset >= insert_at {
                *offset += inserted.len();
            }
        }
        Ok(())
    }
}

impl Writeback {
    /// Where the id goes for the entry starting at `at` in the file, and
    /// the text to put there: the file read around it (its line before
    /// it, the rest of its header's line, or the blanks after its `{`).
    /// `file` is the open file the copy reads next.
    fn placement(
        &self,
        file: &mut std::fs::File,
        at: usize,
        new: &NewId,
    ) -> std::io::Result<Result<(usize, String), String>> {
        let start = (at as u64).saturating_sub(BEFORE);
        file.seek(std::io::SeekFrom::Start(start))?;
        let mut before = Vec::new();
        (&mut *file).take(at as u64 - start).read_to_end(&mut before)?;
        // From its line's start (or as far as was read), whole characters.
        let line_start = before
            .iter()
            .rposition(|byte| *byte == b'\n')
            .map_or(0, |at| at + 1);
        let mut line_start = line_start;
        while line_start < before.len() && before[line_start] & 0xC0 == 0x80 {
            line_start += 1;
        }
        let before = String::from_utf8_lossy(&before[line_start..]).into_owned();
        let mut input = std::io::BufReader::new(&mut *file);
        let mut rest = Vec::new();
        match input.fill_buf()?.first() {
            Some(b'[') => {
                input.read_until(b'\n', &mut rest)?;
            }
            Some(b'{') => loop {
                let buffer = input.fill_buf()?;
                let Some(&byte) = buffer.first() else { break };
                rest.push(byte);
                input.consume(1);
                if rest.len() > 1 && !byte.is_ascii_whitespace() {
                    break;
                }
            },
            _ => {}
        }
        let rest = String::from_utf8_lossy(&rest);
        Ok(placement(&before, &rest, at, self.read.json, new))
    }
}

/// Where the id goes for the entry starting at `at` (the file's offset),
/// and the text to put there: `before` is the entry's line up to it,
/// `rest` the file from it (to the end of a header's line, or past the
/// blanks after a `{`).
fn placement(
    before: &str,
    rest: &str,
    at: usize,
    json: bool,
    new: &NewId,
) -> Result<(usize, String), String> {
    let value = |json: bool| match new {
        NewId::Role { id, .. } if json => crate::text::to_safe_json(id).unwrap_or_default(),
        NewId::Role { id, .. } => toml_string(id),
        NewId::Subscription { id, .. } => id.to_string(),
    };
    if rest.starts_with('[') && !json {
        // A table header: the id is the line after it, in its line ending.
        let Some(end) = rest.find('\n') else {
            return Ok((at + rest.len(), format!("\nid = {}\n", value(false))));
        };
        let ending = if rest[..end].ends_with('\r') { "\r\n" } else { "\n" };
        let indent: String = before.chars().take_while(|c| *c == ' ' || *c == '\t').collect();
        return Ok((at + end + 1, format!("{indent}id = {}{ending}", value(false))));
    }
    if let Some(inside) = rest.strip_prefix('{') {
        let blank = inside.find(|c: char| !c.is_whitespace()).unwrap_or(inside.len());
        let after = at + 1 + blank;
        let empty = inside[blank..].starts_with('}');
        let between = &inside[..blank];
        let inserted = match (json, empty) {
            (true, true) => format!("\"id\": {}{between}", value(true)),
            (true, false) if between.is_empty() => format!("\"id\": {}, ", value(true)),
            (true, false) => format!("\"id\": {},{between}", value(true)),
            (false, true) => format!("id = {} ", value(false)),
            (false, false) => format!("id = {}, ", value(false)),
        };
        return Ok((after, inserted));
    }
    Err("the file's entry is not where orgdeck read it".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(text: &str, ids: &[NewId]) -> String {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("file");
        std::fs::write(&path, text).unwrap();
        let (file, read) = super::super::file::read(&path).unwrap();
        let mut writeback = Writeback::new(&path, read, &file);
        for id in ids {
            writeback.write(id).unwrap();
        }
        let on_disk = std::fs::read_to_string(&path).unwrap();
        // What it wrote is what it holds as read.
        assert_eq!(writeback.read().size, on_disk.len() as u64);
        let digest: [u8; 32] = sha2::Sha256::digest(on_disk.as_bytes()).into();
        assert_eq!(writeback.read().digest, digest);
        on_disk
    }

    const HEADER: &str = "[orgdeck]\nhost = \"h\"\norganization = \"o\"\nproject = 1\n";

    #[test]
    fn ids_go_first_and_every_other_byte_stays() {
        let text = format!(
            "# Ours.\n{HEADER}\n[[roles]]\nname = \"A\" # the first\n\n# A new report.\n[[subscriptions]] # here\ntitle = \"T\\u202E\"\ninsight = 1\ntarget_type = \"email\"\ntarget_value = \"a@b.co\"\nfrequency = \"daily\"\nstart_date = \"2026-01-05T09:00:00Z\"\n"
        );
        let out = written(
            &text,
            &[
                NewId::Subscription { index: 0, id: 42 },
                NewId::Role {
                    index: 0,
                    id: "r-1\u{202e}".into(),
                },
            ],
        );
        assert_eq!(
            out,
            text.replace("[[roles]]\n", "[[roles]]\nid = \"r-1\\u202E\"\n")
                .replace(
                    "[[subscriptions]] # here\n",
                    "[[subscriptions]] # here\nid = 42\n"
                )
        );
        let inline = format!("roles = [{{name = \"A\"}}, {{ name = \"B\" }}]\n{HEADER}");
        let out = written(
            &inline,
            &[
                NewId::Role {
                    index: 1,
                    id: "b".into(),
                },
                NewId::Role {
                    index: 0,
                    id: "a".into(),
                },
            ],
        );
        assert!(
            out.starts_with("roles = [{id = \"a\", name = \"A\"}, { id = \"b\", name = \"B\" }]\n"),
            "{out}"
        );
    }

    #[test]
    fn json_keeps_its_layout() {
        let pretty = "{\n  \"orgdeck\": {\"host\": \"h\", \"organization\": \"o\", \"project\": 1},\n  \"roles\": [\n    {\n      \"name\": \"A\"\n    },\n    {\"name\": \"B\"}\n  ]\n}\n";
        let out = written(
            pretty,
            &[
                NewId::Role {
                    index: 0,
                    id: "a".into(),
                },
                NewId::Role {
                    index: 1,
                    id: "b".into(),
                },
            ],
        );
        assert_eq!(
            out,
            pretty
                .replace(
                    "{\n      \"name\": \"A\"",
                    "{\n      \"id\": \"a\",\n      \"name\": \"A\""
                )
                .replace("{\"name\": \"B\"}", "{\"id\": \"b\", \"name\": \"B\"}")
        );
        let value: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(value["roles"][1]["id"], "b");
    }

    #[test]
    fn a_file_only_touched_is_still_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("file");
        let text = format!("{HEADER}\n[[roles]]\nname = \"A\"\n");
        std::fs::write(&path, &text).unwrap();
        let (file, read) = super::super::file::read(&path).unwrap();
        let mut writeback = Writeback::new(&path, read, &file);
        let later =
            std::fs::metadata(&path).unwrap().modified().unwrap() + std::time::Duration::from_secs(60);
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(later)
            .unwrap();
        writeback
            .write(&NewId::Role {
                index: 0,
                id: "x".into(),
            })
            .unwrap();
        assert!(
            std::fs::read_to_string(&path)
                .unwrap()
                .ends_with("[[roles]]\nid = \"x\"\nname = \"A\"\n")
        );
    }

    #[test]
    fn an_edit_made_meanwhile_is_never_written_over() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("file");
        let text = format!("{HEADER}\n[[roles]]\nname = \"A\"\n");
        std::fs::write(&path, &text).unwrap();
        let (file, read) = super::super::file::read(&path).unwrap();
        let mut writeback = Writeback::new(&path, read, &file);
        std::fs::write(&path, format!("{text}# an edit\n")).unwrap();
        let error = writeback
            .write(&NewId::Role {
                index: 0,
                id: "x".into(),
            })
            .unwrap_err();
        assert!(matches!(error, Unwritten::Changed(_)), "{error}");
        assert!(std::fs::read_to_string(&path).unwrap().ends_with("# an edit\n"));
        // An edit of the same size, its modification time put back: the
        // digest of what is copied tells it.
        std::fs::write(&path, &text).unwrap();
        let (file, read) = super::super::file::read(&path).unwrap();
        let mut writeback = Writeback::new(&path, read, &file);
        let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
        let edited = text.replace("\"A\"", "\"B\"");
        std::fs::write(&path, &edited).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(modified)
            .unwrap();
        let error = writeback
            .write(&NewId::Role {
                index: 0,
                id: "x".into(),
            })
            .unwrap_err();
        assert!(matches!(error, Unwritten::Changed(_)), "{error}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), edited);
    }
}
