//! Writes the ids of created entries back into the file as soon as the
//! server answers, one atomic rewrite after each create, every other byte
//! as it was (comments, layout, escapes): the id is written as the entry's
//! first key (`id = 42` after its `[[subscriptions]]` line, `id = 42, `
//! inside an inline table, `"id": 42,` first in a JSON object), where the
//! file's reading found the entry. Nothing is parsed again: a file of any
//! size costs one copy per write.
//!
//! The file is the user's: it is rewritten keeping its mode, and only
//! while it is still what orgdeck read. If someone edited it meanwhile,
//! nothing is written over their edit; the ids are then kept in the lock's
//! journal for the next apply to write (see `lock`).

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::file::{CodeFile, toml_string};

/// A created entry: which list, its place there, the server's id.
#[derive(Debug, Clone, PartialEq)]
pub enum NewId {
    Role { index: usize, id: String },
    Subscription { index: usize, id: i64 },
}

/// The file as read, and where each entry starts in it.
pub struct Writeback {
    path: PathBuf,
    text: String,
    json: bool,
    roles: Vec<Option<usize>>,
    subscriptions: Vec<Option<usize>>,
    /// The file's length and modification time as last read or written:
    /// another writer shows as a change of either.
    seen: Option<(u64, SystemTime)>,
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

fn stamp(path: &Path) -> Option<(u64, SystemTime)> {
    let metadata = std::fs::metadata(path).ok()?;
    Some((metadata.len(), metadata.modified().ok()?))
}

impl Writeback {
    /// For the file at `path` whose text is `text`, read as `file`.
    pub fn new(path: &Path, text: String, file: &CodeFile) -> Writeback {
        Writeback {
            path: path.to_path_buf(),
            json: text.trim_start().starts_with('{'),
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
            seen: stamp(path),
            text,
        }
    }

    /// The text as it now stands.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Writes one id into its entry and the file to disk, atomically.
    pub fn write(&mut self, new: &NewId) -> Result<(), Unwritten> {
        if stamp(&self.path) != self.seen {
            return Err(Unwritten::Changed(self.path.clone()));
        }
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
        let (insert_at, inserted) =
            placement(&self.text, at, self.json, new).map_err(Unwritten::Placement)?;
        let mut text = String::with_capacity(self.text.len() + inserted.len());
        text.push_str(&self.text[..insert_at]);
        text.push_str(&inserted);
        text.push_str(&self.text[insert_at..]);
        crate::config::files::replace_keeping_mode(&self.path, text.as_bytes()).map_err(|error| {
            Unwritten::Io {
                path: self.path.clone(),
                error,
            }
        })?;
        self.text = text;
        self.seen = stamp(&self.path);
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

/// Where the id goes for the entry starting at `at`, and the text to put
/// there.
fn placement(text: &str, at: usize, json: bool, new: &NewId) -> Result<(usize, String), String> {
    let value = |json: bool| match new {
        NewId::Role { id, .. } if json => crate::text::to_safe_json(id).unwrap_or_default(),
        NewId::Role { id, .. } => toml_string(id),
        NewId::Subscription { id, .. } => id.to_string(),
    };
    let rest = text.get(at..).unwrap_or_default();
    if rest.starts_with('[') && !json {
        // A table header: the id is the line after it, in its line ending.
        let Some(end) = rest.find('\n') else {
            return Ok((text.len(), format!("\nid = {}\n", value(false))));
        };
        let ending = if rest[..end].ends_with('\r') { "\r\n" } else { "\n" };
        let indent: String = text[..at]
            .rsplit('\n')
            .next()
            .unwrap_or_default()
            .chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .collect();
        return Ok((at + end + 1, format!("{indent}id = {}{ending}", value(false))));
    }
    if let Some(inside) = rest.strip_prefix('{') {
        let blank = inside.find(|c: char| !c.is_whitespace()).unwrap_or(inside.len());
        let after = at + 1 + blank;
        let empty = text[after..].starts_with('}');
        let between = &text[at + 1..after];
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
        let file = super::super::file::parse(text).unwrap();
        let mut writeback = Writeback::new(&path, text.to_string(), &file);
        for id in ids {
            writeback.write(id).unwrap();
        }
        let on_disk = std::fs::read_to_string(&path).unwrap();
        assert_eq!(on_disk, writeback.text());
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
    fn an_edit_made_meanwhile_is_never_written_over() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("file");
        let text = format!("{HEADER}\n[[roles]]\nname = \"A\"\n");
        std::fs::write(&path, &text).unwrap();
        let file = super::super::file::parse(&text).unwrap();
        let mut writeback = Writeback::new(&path, text.clone(), &file);
        std::fs::write(&path, format!("{text}# an edit\n")).unwrap();
        let error = writeback
            .write(&NewId::Role {
                index: 0,
                id: "x".into(),
            })
            .unwrap_err();
        assert!(matches!(error, Unwritten::Changed(_)), "{error}");
        assert!(std::fs::read_to_string(&path).unwrap().ends_with("# an edit\n"));
    }
}
