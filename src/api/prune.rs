//! A page's rows without one of their fields, cut out as the answer
//! arrives: what a list whose rows embed another whole list (PostHog's
//! roles carry every membership, `members`) costs when the command reads
//! that other list on its own, a page at a time, or not at all.
//!
//! [`Pruner`] reads the answer's bytes in the chunks they come in and
//! passes on all but the value of the named key in each object of the
//! page's `results`, which becomes `null` (a role whose members are not
//! embedded, as an older PostHog sends it). Nothing of the cut value is
//! held: an answer of any size is read into what is kept of it. The JSON
//! is not checked here (the decoder after it does); a key written with
//! escapes is not recognised, and its value is kept as it came.

/// Cuts the value of `key` out of every row of a page, `null` in its place.
#[derive(Debug)]
pub(crate) struct Pruner {
    key: &'static str,
    /// Containers open (objects and arrays), the one being read last.
    depth: usize,
    /// Whether each of the first three containers is an object.
    objects: [bool; 3],
    /// Inside a string, and just after a backslash in it.
    in_string: bool,
    escaped: bool,
    /// At a row's level, before a key (after `{` or `,`).
    expect_key: bool,
    /// The key being read at a row's level, up to one byte past `key`.
    reading_key: Option<Vec<u8>>,
    /// The key read was `key`: its value comes after the colon.
    matched: bool,
    /// Skipping the value: the depth it started at, or `None` before it
    /// starts (after the colon, whitespace).
    skipping: Option<Skip>,
}

#[derive(Debug, Clone, Copy)]
enum Skip {
    /// Before the value's first byte.
    Before,
    /// In a scalar (number, `true`, `false`, `null`).
    Scalar,
    /// In a string.
    Text,
    /// In a container, this deep inside it.
    Nested(usize),
}

/// The depth of a row of a page: the page, its `results`, the row.
const ROW: usize = 3;

impl Pruner {
    pub(crate) fn new(key: &'static str) -> Pruner {
        Pruner {
            key,
            depth: 0,
            objects: [false; 3],
            in_string: false,
            escaped: false,
            expect_key: false,
            reading_key: None,
            matched: false,
            skipping: None,
        }
    }

    /// Passes `chunk` on into `out`, but for what is cut.
    pub(crate) fn feed(&mut self, chunk: &[u8], out: &mut bytes::BytesMut) {
        let mut run_start = 0;
        for (at, &byte) in chunk.iter().enumerate() {
            if let Some(skip) = self.skipping {
                if let Some(next) = self.skip(skip, byte) {
                    if matches!(
                        (skip, next),
                        (Skip::Before, Skip::Text | Skip::Nested(_) | Skip::Scalar)
                    ) {
                        out.extend_from_slice(b"null");
                    }
                    self.skipping = Some(next);
                    continue;
                }
                // The value ended before this byte (a scalar's end, or
                // none) or with it.
                self.skipping = None;
                let ended_with_it = !matches!(skip, Skip::Scalar | Skip::Before);
                run_start = if ended_with_it { at + 1 } else { at };
                if ended_with_it {
                    continue;
                }
            }
            self.read(byte);
            if self.matched && byte == b':' && !self.in_string {
                self.matched = false;
                out.extend_from_slice(&chunk[run_start..=at]);
                self.skipping = Some(Skip::Before);
                run_start = at + 1;
            }
        }
        if self.skipping.is_none() {
            out.extend_from_slice(&chunk[run_start..]);
        }
    }

    /// The state after `byte` of the value being cut; `None` once it ended
    /// (a scalar ends before the byte that ends it, which is then read).
    fn skip(&mut self, skip: Skip, byte: u8) -> Option<Skip> {
        match skip {
            Skip::Before => match byte {
                b' ' | b'\t' | b'\n' | b'\r' => Some(Skip::Before),
                // No value: nothing is written for it, and the decoder
                // refuses the page as it came.
                b',' | b'}' | b']' => None,
                b'"' => Some(Skip::Text),
                b'{' | b'[' => Some(Skip::Nested(1)),
                _ => Some(Skip::Scalar),
            },
            Skip::Scalar => match byte {
                b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r' => None,
                _ => Some(Skip::Scalar),
            },
            Skip::Text => {
                if self.escaped {
                    self.escaped = false;
                    Some(Skip::Text)
                } else {
                    match byte {
                        b'\\' => {
                            self.escaped = true;
                            Some(Skip::Text)
                        }
                        b'"' => None,
                        _ => Some(Skip::Text),
                    }
                }
            }
            Skip::Nested(depth) => {
                if self.in_string {
                    self.string_byte(byte);
                    return Some(skip);
                }
                match byte {
                    b'"' => {
                        self.in_string = true;
                        Some(skip)
                    }
                    b'{' | b'[' => Some(Skip::Nested(depth + 1)),
                    b'}' | b']' if depth == 1 => None,
                    b'}' | b']' => Some(Skip::Nested(depth - 1)),
                    _ => Some(skip),
                }
            }
        }
    }

    /// Follows one byte inside a string (escapes included): whether it
    /// closed the string.
    fn string_byte(&mut self, byte: u8) -> bool {
        if self.escaped {
            self.escaped = false;
        } else if byte == b'\\' {
            self.escaped = true;
        } else if byte == b'"' {
            self.in_string = false;
            return true;
        }
        false
    }

    /// Follows one byte passed on: strings, containers, a row's keys.
    fn read(&mut self, byte: u8) {
        if self.in_string {
            if self.string_byte(byte) {
                if let Some(key) = self.reading_key.take() {
                    self.matched = key == self.key.as_bytes();
                }
                return;
            }
            if let Some(key) = &mut self.reading_key {
                if byte == b'\\' {
                    // An escaped key is not compared: it never matches.
                    key.resize(self.key.len() + 1, 0);
                } else if key.len() <= self.key.len() {
                    key.push(byte);
                }
            }
            return;
        }
        match byte {
            b'"' => {
                self.in_string = true;
                if self.at_row() && self.expect_key {
                    self.expect_key = false;
                    self.reading_key = Some(Vec::with_capacity(self.key.len() + 1));
                }
            }
            b'{' | b'[' => {
                if let Some(object) = self.objects.get_mut(self.depth) {
                    *object = byte == b'{';
                }
                self.depth += 1;
                self.expect_key = self.at_row();
            }
            b'}' | b']' => {
                self.depth = self.depth.saturating_sub(1);
                self.matched = false;
            }
            b',' => self.expect_key = self.at_row(),
            b' ' | b'\t' | b'\n' | b'\r' | b':' => {}
            _ => self.matched = false,
        }
    }

    /// Inside an object of the page's array inside the page's object.
    fn at_row(&self) -> bool {
        self.depth == ROW && self.objects == [true, false, true]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pruned(text: &str, chunk: usize) -> String {
        let mut pruner = Pruner::new("members");
        let mut out = bytes::BytesMut::new();
        for piece in text.as_bytes().chunks(chunk) {
            pruner.feed(piece, &mut out);
        }
        String::from_utf8(out.to_vec()).unwrap()
    }

    #[test]
    fn each_row_s_members_become_null_in_chunks_of_any_size() {
        let text = r#"{"count":2,"members":[1],"results":[{"id":"a","members":[{"id":"m","user":{"x":"]}\"members\":"}}],"name":"A"},{"members" : "t\"x","id":"b"},{"id":"c","members":12,"name":"C"},{"id":"d","members":null},{"id":"e","members":true }],"next":null}"#;
        let want = r#"{"count":2,"members":[1],"results":[{"id":"a","members":null,"name":"A"},{"members" :null,"id":"b"},{"id":"c","members":null,"name":"C"},{"id":"d","members":null},{"id":"e","members":null }],"next":null}"#;
        for chunk in 1..=text.len() {
            assert_eq!(pruned(text, chunk), want, "chunks of {chunk}");
        }
        let value: serde_json::Value = serde_json::from_str(want).unwrap();
        assert_eq!(value["results"][0]["name"], "A");
    }

    #[test]
    fn other_keys_values_and_nesting_are_left_as_they_are() {
        for text in [
            r#"{"results":[{"membersx":[1],"xmembers":2,"name":"members","m":{"members":[3]}}]}"#,
            r#"{"results":[[{"members":[1]}]],"members":4}"#,
            r#"[{"results":[{"members":[1]}]}]"#,
            r#"{"results":[{"\u006dembers":[1]}]}"#,
            r#"{"results":[{"id":"a\\","members_":1}]}"#,
            r#"{"results":[{"members":,"id":1}]}"#,
        ] {
            for chunk in 1..=text.len() {
                assert_eq!(pruned(text, chunk), text, "{text} in chunks of {chunk}");
            }
        }
    }
}
