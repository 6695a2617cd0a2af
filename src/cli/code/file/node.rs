//! The file's text as a tree of values with where each stands, from TOML
//! or JSON alike, in time linear in the file's size: positions are found
//! in one sweep over the text (offsets gathered, sorted, then counted in
//! order), never by counting from a line's start once per value, so that
//! 100,000 values on one line cost no more than on 100,000 lines, and
//! nothing is held per line of the file.
//!
//! TOML is read by `toml_edit` a table header at a time (see `toml`).
//! JSON is read twice: by `serde_json` (which says what is wrong, with its
//! line), then by a small reader of valid JSON that keeps positions and
//! refuses a key given twice in one object, as TOML does.

use std::collections::HashMap;

use super::{Pos, Problem};

/// A parsed value with where it stands.
#[derive(Debug, Clone)]
pub(super) enum Node {
    Text(String),
    Integer(i64),
    Bool(bool),
    List(Vec<(Node, Option<Pos>)>),
    /// Keys with where each key stands, and the values.
    Table(Vec<(String, Option<Pos>, Node, Option<Pos>)>),
    /// Anything else (a float, a date, null): its kind, for messages.
    Other(&'static str),
    /// A `[[subscriptions]]` table checked as soon as it was read, its
    /// entry kept in order ([`super::read::Checked`]): its tree is not held.
    Checked,
}

impl Node {
    pub(super) fn kind(&self) -> &'static str {
        match self {
            Node::Text(_) => "a string",
            Node::Integer(_) => "an integer",
            Node::Bool(_) => "true or false",
            Node::List(_) => "a list",
            Node::Table(_) | Node::Checked => "a table",
            Node::Other(kind) => kind,
        }
    }
}

/// Counts lines and characters through a text, forward only: positions
/// asked in increasing order cost one pass over the text in all.
pub(super) struct Sweep<'a> {
    bytes: &'a [u8],
    at: usize,
    line: usize,
    column: usize,
    /// Where each stretch of the text starts, and where it came from in
    /// the file (a text with lists set aside, see `scan`): the offsets
    /// given are the file's.
    origin: &'a [(usize, usize)],
}

/// The file's offset of an offset of a text made of stretches of it.
pub(super) fn original(origin: &[(usize, usize)], offset: usize) -> usize {
    let index = origin.partition_point(|(start, _)| *start <= offset);
    match index.checked_sub(1).map(|index| origin[index]) {
        Some((start, from)) => from + (offset - start),
        None => offset,
    }
}

impl<'a> Sweep<'a> {
    #[cfg(test)]
    pub(super) fn new(text: &'a str) -> Sweep<'a> {
        Sweep::with_origin(text, &[])
    }

    /// A sweep over a text made of stretches of the file, giving the
    /// file's offsets.
    pub(super) fn with_origin(text: &'a str, origin: &'a [(usize, usize)]) -> Sweep<'a> {
        Sweep {
            bytes: text.as_bytes(),
            at: 0,
            line: 1,
            column: 1,
            origin,
        }
    }

    /// The position of `offset`, at or after the last one asked (an
    /// earlier one is answered as the last).
    pub(super) fn to(&mut self, offset: usize) -> Pos {
        let offset = offset.min(self.bytes.len()).max(self.at);
        for &byte in &self.bytes[self.at..offset] {
            if byte == b'\n' {
                self.line += 1;
                self.column = 1;
            } else if byte & 0xC0 != 0x80 {
                // A character starts here (not a UTF-8 continuation byte).
                self.column += 1;
            }
        }
        self.at = offset;
        Pos {
            line: self.line,
            column: self.column,
            offset: original(self.origin, offset),
        }
    }
}

/// Positions of a set of offsets known beforehand, found by one sweep.
pub(super) struct Positions(Vec<(usize, Pos)>);

impl Positions {
    /// The positions of `offsets` (keys), each mapped to the text's own
    /// offset by `place`, which must keep their order.
    pub(super) fn of(
        sweep: &mut Sweep,
        mut offsets: Vec<usize>,
        place: impl Fn(usize) -> usize,
    ) -> Positions {
        offsets.sort_unstable();
        offsets.dedup();
        Positions(
            offsets
                .into_iter()
                .map(|offset| (offset, sweep.to(place(offset))))
                .collect(),
        )
    }

    /// The position of an offset given to [`Positions::of`].
    pub(super) fn get(&self, offset: usize) -> Option<Pos> {
        self.0
            .binary_search_by_key(&offset, |(at, _)| *at)
            .ok()
            .map(|index| self.0[index].1)
    }
}

/// The position of one offset (a parse error's), in one pass.
#[cfg(test)]
pub(super) fn position(text: &str, offset: usize) -> Pos {
    Sweep::new(text).to(offset)
}

/// JSON as a tree with positions; every key given twice in an object is
/// a problem at its line. The text is checked by `serde_json` first, so
/// the reader below only ever sees valid JSON (nested at most 128 deep,
/// serde_json's limit).
pub(super) fn json(text: &str) -> Result<Node, Vec<Problem>> {
    if let Err(error) = serde_json::from_str::<serde::de::IgnoredAny>(text) {
        return Err(vec![Problem {
            at: Some(Pos {
                line: error.line(),
                column: error.column(),
                offset: 0,
            }),
            message: format!("not JSON: {error}"),
        }]);
    }
    let mut reader = JsonReader {
        text,
        bytes: text.as_bytes(),
        at: 0,
        line: 1,
        column: 1,
        problems: Vec::new(),
    };
    reader.blank();
    let node = reader.value().map_err(|message| {
        vec![Problem {
            at: Some(reader.pos()),
            message: format!("not JSON: {message}"),
        }]
    })?;
    if reader.problems.is_empty() {
        Ok(node)
    } else {
        Err(reader.problems)
    }
}

/// Reads valid JSON, keeping line and column as it goes.
struct JsonReader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
    line: usize,
    column: usize,
    problems: Vec<Problem>,
}

impl JsonReader<'_> {
    fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            column: self.column,
            offset: self.at,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    /// Moves past one byte, counting lines and characters.
    fn bump(&mut self) {
        if let Some(&byte) = self.bytes.get(self.at) {
            if byte == b'\n' {
                self.line += 1;
                self.column = 1;
            } else if byte & 0xC0 != 0x80 {
                self.column += 1;
            }
            self.at += 1;
        }
    }

    fn blank(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.bump();
        }
    }

    fn expect(&mut self, byte: u8) -> Result<(), String> {
        if self.peek() == Some(byte) {
            self.bump();
            Ok(())
        } else {
            Err(format!("expected `{}`", char::from(byte)))
        }
    }

    fn value(&mut self) -> Result<Node, String> {
        match self.peek() {
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => self.string().map(Node::Text),
            Some(b't') => self.word("true", Node::Bool(true)),
            Some(b'f') => self.word("false", Node::Bool(false)),
            Some(b'n') => self.word("null", Node::Other("null")),
            Some(b'-' | b'0'..=b'9') => Ok(self.number()),
            _ => Err("expected a value".into()),
        }
    }

    fn word(&mut self, word: &str, node: Node) -> Result<Node, String> {
        if self.bytes[self.at..].starts_with(word.as_bytes()) {
            for _ in 0..word.len() {
                self.bump();
            }
            Ok(node)
        } else {
            Err(format!("expected `{word}`"))
        }
    }

    fn number(&mut self) -> Node {
        let begin = self.at;
        while matches!(self.peek(), Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')) {
            self.bump();
        }
        let token = &self.text[begin..self.at];
        match token.parse::<i64>() {
            Ok(number) => Node::Integer(number),
            Err(_) => Node::Other("a fraction"),
        }
    }

    /// A string token, decoded by serde_json (escapes and surrogate pairs).
    fn string(&mut self) -> Result<String, String> {
        let begin = self.at;
        self.bump();
        loop {
            match self.peek() {
                None => return Err("a string does not end".into()),
                Some(b'"') => {
                    self.bump();
                    break;
                }
                Some(b'\\') => {
                    self.bump();
                    self.bump();
                }
                Some(_) => self.bump(),
            }
        }
        serde_json::from_str::<String>(&self.text[begin..self.at]).map_err(|error| error.to_string())
    }

    fn array(&mut self) -> Result<Node, String> {
        self.bump();
        self.blank();
        let mut items = Vec::new();
        if self.peek() == Some(b']') {
            self.bump();
            return Ok(Node::List(items));
        }
        loop {
            let at = self.pos();
            items.push((self.value()?, Some(at)));
            self.blank();
            match self.peek() {
                Some(b',') => {
                    self.bump();
                    self.blank();
                }
                Some(b']') => {
                    self.bump();
                    return Ok(Node::List(items));
                }
                _ => return Err("expected `,` or `]`".into()),
            }
        }
    }

    fn object(&mut self) -> Result<Node, String> {
        self.bump();
        self.blank();
        let mut entries = Vec::new();
        let mut seen: HashMap<String, Pos> = HashMap::new();
        if self.peek() == Some(b'}') {
            self.bump();
            return Ok(Node::Table(entries));
        }
        loop {
            let key_at = self.pos();
            let key = self.string()?;
            self.blank();
            self.expect(b':')?;
            self.blank();
            let value_at = self.pos();
            let value = self.value()?;
            match seen.get(&key) {
                Some(first) => self.problems.push(Problem {
                    at: Some(key_at),
                    message: format!(
                        "the key `{key}` is given twice in one object (first at line {}, column {}); JSON keeps only one, so orgdeck refuses both",
                        first.line, first.column
                    ),
                }),
                None => {
                    seen.insert(key.clone(), key_at);
                    entries.push((key, Some(key_at), value, Some(value_at)));
                }
            }
            self.blank();
            match self.peek() {
                Some(b',') => {
                    self.bump();
                    self.blank();
                }
                Some(b'}') => {
                    self.bump();
                    return Ok(Node::Table(entries));
                }
                _ => return Err("expected `,` or `}`".into()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: usize, column: usize, offset: usize) -> Pos {
        Pos { line, column, offset }
    }

    #[test]
    fn positions_count_characters_and_lines_in_one_pass() {
        let text = "ab\ncé d\n\nx";
        let mut sweep = Sweep::new(text);
        let positions = Positions::of(&mut sweep, vec![9, 0, 5, 3], |offset| offset);
        assert_eq!(positions.get(0), Some(at(1, 1, 0)));
        assert_eq!(positions.get(3), Some(at(2, 1, 3)));
        assert_eq!(positions.get(6), None);
        // "cé" is three bytes and two characters.
        assert_eq!(positions.get(5), Some(at(2, 3, 5)));
        assert_eq!(positions.get(9), Some(at(3, 1, 9)));
        assert_eq!(sweep.to(10), at(4, 1, 10));
        assert_eq!(position(text, 40), at(4, 2, 11));
    }

    #[test]
    fn json_keeps_positions_and_refuses_a_key_twice() {
        let text = "{\n  \"a\": [1, \"x\\u00e9\"],\n  \"b\": {\"c\": 1, \"c\": 2},\n  \"a\": true\n}";
        let problems = json(text).unwrap_err();
        let lines: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(
            lines[0].starts_with(
                "line 3, column 17: the key `c` is given twice in one object (first at line 3, column 9)"
            ),
            "{lines:?}"
        );
        assert!(lines[1].starts_with("line 4, column 3: the key `a`"), "{lines:?}");

        let Node::Table(entries) = json("{\"a\": [1, \"é\", 2.5, null]}").unwrap() else {
            panic!("a table");
        };
        let Node::List(items) = &entries[0].2 else {
            panic!("a list");
        };
        assert!(matches!(items[0].0, Node::Integer(1)));
        assert!(matches!(&items[1].0, Node::Text(text) if text == "é"));
        assert_eq!(items[2].1, Some(at(1, 16, 16)));
        assert_eq!(items[2].0.kind(), "a fraction");
        let error = json("{\"a\": }").unwrap_err();
        assert!(error[0].message.starts_with("not JSON"), "{error:?}");
    }
}
