//! A TOML file read a line at a time, with the members of its roles set
//! aside rather than held: inside each `[[roles]]` table, the strings of
//! `members = [ ... ]` go to a sort outside memory ([`super::members`]),
//! and the text handed to the reader ([`super::toml`]) keeps `members = [`,
//! as many line breaks as the list held, spaces so that its `]` keeps its
//! column, and `]`: every other value keeps its line and column, and the
//! reader maps its offsets back to the file's (`origin`).
//!
//! The scanner knows enough TOML to find those lists and nothing more:
//! strings of all four kinds, comments, brackets and table headers. A
//! list that holds anything but strings, commas, blanks and comments (a
//! number, a table, a string TOML refuses, a lone carriage return, a
//! control character in a comment) or that is still open at the end of
//! the file is left in the text as it is, so that the reader reports it
//! as it always did: the scan goes on to the end, noting every such list,
//! and the file is read once more with all of them left alone (two reads
//! at most). A file with a header that is not a bare name (`[a.b]`,
//! `["x"]`), or that starts with a byte order mark, is read again with
//! every list left in the text.

use std::collections::BTreeSet;
use std::io::BufRead;

use sha2::Digest as _;

use super::members::{Gathering, Named};
use super::{MAX_FILE_BYTES, Pos};

/// The file as the reader reads it, and its members set aside.
pub(super) struct Scanned {
    pub text: String,
    /// Where each stretch of `text` starts, and where it came from in the
    /// file: offsets between two starts map linearly.
    pub origin: Vec<(usize, usize)>,
    pub members: Gathering,
    /// The `[[roles]]` tables (by place) whose members were set aside.
    pub diverted: BTreeSet<usize>,
    /// The `[[roles]]` headers read: the reader's roles, one for each.
    pub roles: usize,
    /// The file's size and SHA-256, as read.
    pub size: u64,
    pub digest: [u8; 32],
}

/// Why a file was not scanned.
#[derive(Debug)]
pub(super) enum Unscanned {
    Io(std::io::Error),
    /// Not UTF-8: the first byte that is not.
    NotUtf8(u64),
    TooLarge(u64),
    /// A member could not be set aside (the sort's temporary files).
    SetAside(std::io::Error),
}

impl From<std::io::Error> for Unscanned {
    fn from(error: std::io::Error) -> Unscanned {
        Unscanned::Io(error)
    }
}

/// Why a pass stopped before the end.
enum Again {
    /// A header that is not a bare name: the places of the roles are the
    /// reader's to count.
    Odd,
    Failed(Unscanned),
}

impl From<std::io::Error> for Again {
    fn from(error: std::io::Error) -> Again {
        Again::Failed(Unscanned::Io(error))
    }
}

/// Reads the file `open` gives (from its start, each time it is called:
/// once, or once more with every unusual list, or every list, left in
/// the text).
pub(super) fn scan<R: BufRead>(mut open: impl FnMut() -> std::io::Result<R>) -> Result<Scanned, Unscanned> {
    let mut left = BTreeSet::new();
    let mut divert = true;
    loop {
        let mut scanner = Scanner::new(&left, divert);
        let found = match scanner.run(open()?) {
            // The second read leaves every unusual list of the first in
            // the text and reads the others as the first did: it finds
            // none (were it to, a third read would leave those too).
            Ok(()) if scanner.found.is_empty() => return scanner.finish(),
            Ok(()) => scanner.found,
            Err(Again::Odd) => {
                divert = false;
                continue;
            }
            Err(Again::Failed(error)) => return Err(error),
        };
        left.extend(found);
    }
}

/// A members list being set aside.
struct List {
    role: usize,
    /// The line and column of its `[`.
    line: usize,
    column: usize,
    /// The members set aside so far.
    place: usize,
    /// A member was read since the last comma.
    after_value: bool,
    /// A multi-line string being read: its text so far and where it starts.
    element: Option<(Vec<u8>, usize, usize)>,
}

struct Scanner<'a> {
    left: &'a BTreeSet<usize>,
    divert: bool,
    /// The roles whose lists were found unusual in this read: this read's
    /// text is then not the reader's, and its members are not kept.
    found: BTreeSet<usize>,
    text: Vec<u8>,
    origin: Vec<(usize, usize)>,
    members: Gathering,
    diverted: BTreeSet<usize>,
    hasher: sha2::Sha256,
    /// The current line (1-based) and where it starts in the file.
    line: usize,
    offset: usize,
    depth: usize,
    /// Inside a multi-line string of this quote.
    multi: Option<u8>,
    /// Inside the `[[roles]]` table at this place.
    role: Option<usize>,
    roles: usize,
    list: Option<List>,
}

/// Counts characters along a line, forward only.
struct Columns<'a> {
    line: &'a [u8],
    at: usize,
    column: usize,
}

impl Columns<'_> {
    /// The column (1-based, in characters) of byte `index`.
    fn of(&mut self, index: usize) -> usize {
        let index = index.max(self.at);
        self.column += self.line[self.at..index]
            .iter()
            .filter(|byte| **byte & 0xC0 != 0x80)
            .count();
        self.at = index;
        self.column
    }
}

/// Where a single-line string starting at `start` ends (past its closing
/// quote); none if it does not end on its line.
fn string_end(line: &[u8], start: usize) -> Option<usize> {
    let quote = line[start];
    let mut at = start + 1;
    while at < line.len() {
        match line[at] {
            b'\\' if quote == b'"' => at += 2,
            b'\n' => return None,
            byte if byte == quote => return Some(at + 1),
            _ => at += 1,
        }
    }
    None
}

/// Where a multi-line string of `quote` ends on this line, from `from`
/// (past its closing quotes, of which there may be up to five); none if
/// it goes on.
fn multi_end(line: &[u8], from: usize, quote: u8) -> Option<usize> {
    let mut at = from;
    while at < line.len() {
        match line[at] {
            b'\\' if quote == b'"' => at += 2,
            byte if byte == quote => {
                let run = line[at..].iter().take_while(|byte| **byte == quote).count();
                if run >= 3 {
                    return Some(at + run.min(5));
                }
                at += run;
            }
            _ => at += 1,
        }
    }
    None
}

/// A string element's text, decoded as TOML decodes it; none for one TOML
/// refuses.
pub(super) fn decode(raw: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(raw).ok()?;
    let quote = *raw.first()?;
    let multi = raw.starts_with(&[quote; 3]);
    if !multi && raw.len() >= 2 {
        let inner = &raw[1..raw.len() - 1];
        let plain = !inner.iter().any(|&byte| {
            byte == quote
                || (byte == b'\\' && quote == b'"')
                || (byte < 0x20 && byte != b'\t')
                || byte == 0x7F
        });
        if plain {
            return Some(text[1..text.len() - 1].to_string());
        }
    }
    match text.parse::<toml_edit::Value>() {
        Ok(toml_edit::Value::String(value)) => Some(value.value().clone()),
        _ => None,
    }
}

/// The name of a header line (`[name]` or `[[name]]`, a bare name), and
/// whether it is of an array of tables; none for any other header.
fn header(line: &[u8]) -> Option<(&[u8], bool)> {
    let line = line.trim_ascii_end();
    let (inner, array) = if let Some(inner) = line.strip_prefix(b"[[") {
        (inner, true)
    } else {
        (line.strip_prefix(b"[")?, false)
    };
    let end = inner.iter().position(|byte| *byte == b']')?;
    let name = inner[..end].trim_ascii();
    let rest = &inner[end..];
    let rest = if array {
        rest.strip_prefix(b"]]")?
    } else {
        rest.strip_prefix(b"]")?
    };
    let rest = rest.trim_ascii_start();
    let bare = !name.is_empty()
        && name
            .iter()
            .all(|byte| byte.is_ascii_alphanumeric() || *byte == b'_' || *byte == b'-');
    (bare && (rest.is_empty() || rest.starts_with(b"#"))).then_some((name, array))
}

/// Where the `[` of `members = [` is, on a line that starts with it.
fn members_list(line: &[u8], first: usize) -> Option<usize> {
    let rest = line[first..].strip_prefix(b"members")?;
    let blank = |rest: &[u8]| {
        rest.iter()
            .take_while(|byte| matches!(byte, b' ' | b'\t'))
            .count()
    };
    let mut at = first + "members".len();
    at += blank(rest);
    if line.get(at) != Some(&b'=') {
        return None;
    }
    at += 1;
    at += blank(&line[at..]);
    (line.get(at) == Some(&b'[')).then_some(at)
}

impl<'a> Scanner<'a> {
    fn new(left: &'a BTreeSet<usize>, divert: bool) -> Scanner<'a> {
        Scanner {
            left,
            divert,
            found: BTreeSet::new(),
            text: Vec::new(),
            origin: vec![(0, 0)],
            members: Gathering::default(),
            diverted: BTreeSet::new(),
            hasher: sha2::Sha256::new(),
            line: 0,
            offset: 0,
            depth: 0,
            multi: None,
            role: None,
            roles: 0,
            list: None,
        }
    }

    fn run(&mut self, mut input: impl BufRead) -> Result<(), Again> {
        let mut line = Vec::new();
        loop {
            line.clear();
            if input.read_until(b'\n', &mut line)? == 0 {
                // A list still open at the end: the reader's to report.
                if let Some(list) = self.list.take() {
                    self.found.insert(list.role);
                }
                return Ok(());
            }
            let end = self.offset as u64 + line.len() as u64;
            if end > MAX_FILE_BYTES {
                return Err(Again::Failed(Unscanned::TooLarge(end)));
            }
            if let Err(error) = std::str::from_utf8(&line) {
                return Err(Again::Failed(Unscanned::NotUtf8(
                    (self.offset + error.valid_up_to()) as u64,
                )));
            }
            self.hasher.update(&line);
            // A byte order mark: the reader's to read, lists and all.
            if self.line == 0 && self.divert && line.starts_with("\u{feff}".as_bytes()) {
                return Err(Again::Odd);
            }
            self.line += 1;
            self.read_line(&line)?;
            self.offset += line.len();
        }
    }

    fn finish(self) -> Result<Scanned, Unscanned> {
        let size = self.offset as u64;
        // Valid UTF-8 read, with whole strings and comments left out and
        // ASCII put in: still UTF-8.
        let text = String::from_utf8(self.text)
            .map_err(|error| Unscanned::NotUtf8(error.utf8_error().valid_up_to() as u64))?;
        Ok(Scanned {
            text,
            origin: self.origin,
            members: self.members,
            diverted: self.diverted,
            roles: self.roles,
            size,
            digest: self.hasher.finalize().into(),
        })
    }

    fn read_line(&mut self, line: &[u8]) -> Result<(), Again> {
        let mut columns = Columns {
            line,
            at: 0,
            column: 1,
        };
        // The bytes of the line up to here are in the text (or left out);
        // none while a list is set aside.
        let mut copied = if self.list.is_some() { None } else { Some(0) };
        let mut at = 0;
        if self.depth == 0 && self.multi.is_none() && self.list.is_none() {
            let first = line
                .iter()
                .position(|byte| !matches!(byte, b' ' | b'\t'))
                .unwrap_or(line.len());
            if line.get(first) == Some(&b'[') {
                match header(&line[first..]) {
                    Some((name, array)) => {
                        self.role = (array && name == b"roles").then_some(self.roles);
                        self.roles += usize::from(array && name == b"roles");
                    }
                    None if self.divert => return Err(Again::Odd),
                    None => self.role = None,
                }
                self.text.extend_from_slice(line);
                return Ok(());
            }
            if let Some(role) = self.role.filter(|role| self.divert && !self.left.contains(role))
                && let Some(open) = members_list(line, first)
            {
                self.text.extend_from_slice(&line[..=open]);
                copied = None;
                self.diverted.insert(role);
                self.list = Some(List {
                    role,
                    line: self.line,
                    column: columns.of(open),
                    place: 0,
                    after_value: false,
                    element: None,
                });
                at = open + 1;
            }
        }
        while at < line.len() {
            if self.list.is_some() {
                match self.list_step(line, at, &mut columns)? {
                    Step::Next(next) => at = next,
                    Step::Closed(close) => {
                        copied = Some(close);
                        at = close + 1;
                    }
                    Step::Unusual(from) => {
                        // Noted, and read on as any list is (inside its
                        // `[`), to find the others in this same read.
                        if let Some(list) = self.list.take() {
                            self.found.insert(list.role);
                        }
                        self.depth = 1;
                        at = from;
                    }
                }
                continue;
            }
            if let Some(quote) = self.multi {
                match multi_end(line, at, quote) {
                    Some(end) => {
                        self.multi = None;
                        at = end;
                    }
                    None => at = line.len(),
                }
                continue;
            }
            match line[at] {
                b'#' => at = line.len(),
                quote @ (b'"' | b'\'') => {
                    if line[at..].starts_with(&[quote; 3]) {
                        self.multi = Some(quote);
                        at += 3;
                    } else {
                        at = string_end(line, at).unwrap_or(line.len());
                    }
                }
                b'[' | b'{' => {
                    self.depth += 1;
                    at += 1;
                }
                b']' | b'}' => {
                    self.depth = self.depth.saturating_sub(1);
                    at += 1;
                }
                _ => at += 1,
            }
        }
        if let Some(copied) = copied {
            self.text.extend_from_slice(&line[copied..]);
        }
        Ok(())
    }

    /// One step through a members list being set aside, at `at`.
    fn list_step(&mut self, line: &[u8], at: usize, columns: &mut Columns) -> Result<Step, Again> {
        let Some(list) = self.list.as_mut() else {
            return Ok(Step::Next(line.len()));
        };
        if let Some((raw, _, _)) = list.element.as_mut() {
            let quote = raw[0];
            return match multi_end(line, at, quote) {
                Some(end) => {
                    raw.extend_from_slice(&line[at..end]);
                    self.member(end)
                }
                None => {
                    raw.extend_from_slice(&line[at..]);
                    Ok(Step::Next(line.len()))
                }
            };
        }
        match line[at] {
            b' ' | b'\t' | b'\n' => Ok(Step::Next(at + 1)),
            // A carriage return only as part of a line break.
            b'\r' if line.get(at + 1) == Some(&b'\n') => Ok(Step::Next(at + 1)),
            b'#' => {
                let comment = &line[at..];
                let comment = comment
                    .strip_suffix(b"\r\n")
                    .or_else(|| comment.strip_suffix(b"\n"))
                    .unwrap_or(comment);
                if comment
                    .iter()
                    .any(|&byte| (byte < 0x20 && byte != b'\t') || byte == 0x7F)
                {
                    Ok(Step::Unusual(at))
                } else {
                    Ok(Step::Next(line.len()))
                }
            }
            b',' if list.after_value => {
                list.after_value = false;
                Ok(Step::Next(at + 1))
            }
            b']' => {
                let column = columns.of(at);
                let breaks = self.line - list.line;
                let spaces = match breaks {
                    0 => column - list.column - 1,
                    _ => column - 1,
                };
                self.text.extend(std::iter::repeat_n(b'\n', breaks));
                self.text.extend(std::iter::repeat_n(b' ', spaces));
                self.origin.push((self.text.len(), self.offset + at));
                self.list = None;
                Ok(Step::Closed(at))
            }
            quote @ (b'"' | b'\'') if !list.after_value => {
                let column = columns.of(at);
                if line[at..].starts_with(&[quote; 3]) {
                    list.element = Some((line[at..at + 3].to_vec(), self.line, column));
                    return Ok(Step::Next(at + 3));
                }
                let Some(end) = string_end(line, at) else {
                    return Ok(Step::Unusual(at));
                };
                list.element = Some((line[at..end].to_vec(), self.line, column));
                self.member(end)
            }
            _ => Ok(Step::Unusual(at)),
        }
    }

    /// The element just read set aside, or the list left in the text.
    fn member(&mut self, end: usize) -> Result<Step, Again> {
        let Some(list) = self.list.as_mut() else {
            return Ok(Step::Next(end));
        };
        let Some((raw, line, column)) = list.element.take() else {
            return Ok(Step::Next(end));
        };
        let Some(written) = decode(&raw) else {
            return Ok(Step::Unusual(end));
        };
        let at = Pos {
            line,
            column,
            offset: 0,
        };
        // Once a list is found unusual, this read is only to find the
        // others: nothing more is set aside.
        if self.found.is_empty() {
            self.members
                .push(Named::new(list.role, list.place, written, Some(at)))
                .map_err(|error| Again::Failed(Unscanned::SetAside(error)))?;
        }
        list.place += 1;
        list.after_value = true;
        Ok(Step::Next(end))
    }
}

enum Step {
    Next(usize),
    /// The list closed at this `]`.
    Closed(usize),
    /// The list holds something unusual here (or just before).
    Unusual(usize),
}

#[cfg(test)]
mod tests;
