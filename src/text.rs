//! Text written by other people, made safe to show on a terminal.
//!
//! Role names, subscription titles, targets, user names and error bodies
//! come from whoever can write to the organization, or from whatever answers
//! at the host. Written raw they could retitle the terminal (OSC 0), clear
//! it, write the clipboard (OSC 52), fake extra lines of output with `\n`
//! and `\r`, or reorder what the reader sees with bidi overrides (the
//! "Trojan Source" trick). Invisible format characters (zero-width spaces
//! and joiners, the word joiner, the byte-order mark, tag characters) would
//! make `Ad\u{200b}min` look like `Admin`. Every human-readable output of
//! the CLI and the console passes such text through [`printable`], which
//! shows those characters visibly instead of emitting them, as ripgrep and
//! bat do.
//!
//! JSON output is not text for people: it stays exact, with the same
//! characters escaped the JSON way ([`to_safe_json`], [`SafeJson`]), which
//! the CLI's `-o json` and the console's `Y` share.

use std::borrow::Cow;
use std::fmt::Write;
use std::io;

/// "5,000": thousands apart, as people read them.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (at, digit) in digits.chars().enumerate() {
        if at > 0 && (digits.len() - at).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// "1 role", "1,200 roles": a count and its noun, plural past one.
pub fn counted(n: usize, noun: &str) -> String {
    format!("{} {noun}{}", thousands(n as u64), plural(n))
}

/// "s" unless there is one.
pub fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Whether a character must never reach a terminal raw: C0 and C1 controls
/// and DEL (ESC among them), the bidi embeddings, overrides, isolates and
/// marks, the Unicode line and paragraph separators, and the invisible
/// format characters of [`is_invisible`].
pub fn is_unsafe(c: char) -> bool {
    c.is_control()
        || is_invisible(c)
        || matches!(
            c,
            '\u{061C}'              // Arabic letter mark
            | '\u{202A}'..='\u{202E}' // embeddings and overrides
            | '\u{2066}'..='\u{2069}' // isolates
            | '\u{2028}' | '\u{2029}' // line and paragraph separators
        )
}

/// Whether a character is an invisible format character: zero-width space,
/// non-joiner and joiner, the left-to-right and right-to-left marks
/// (U+200B–U+200F), the word joiner and invisible operators
/// (U+2060–U+2064), the byte-order mark (U+FEFF) and the tag characters
/// (U+E0000–U+E007F). Shown raw, two different names look the same.
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{200B}'..='\u{200F}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}' | '\u{E0000}'..='\u{E007F}'
    )
}

/// `text` with every unsafe character shown as an escape: `\n`, `\r`, `\t`,
/// or `\u{1b}` for the rest. Safe text is borrowed, not copied, and text
/// that went through once comes back unchanged (the escapes are plain).
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        push_printable(&mut out, c);
    }
    Cow::Owned(out)
}

/// Like [`printable`], but keeps line breaks: for messages of our own made
/// of several lines, whose server-written parts were escaped already.
pub fn printable_lines(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c != '\n' && is_unsafe(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c == '\n' {
            out.push(c);
        } else {
            push_printable(&mut out, c);
        }
    }
    Cow::Owned(out)
}

fn push_printable(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if is_unsafe(c) => {
            // Writing to a String cannot fail.
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
        c => out.push(c),
    }
}

/// `value` as pretty JSON in a string, escaped as `cli::output::write_json` writes it.
pub fn to_safe_json(value: &impl serde::Serialize) -> Result<String, serde_json::Error> {
    let mut out = Vec::new();
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, SafeJson::at_depth(0));
    value.serialize(&mut serializer)?;
    // The serializer writes UTF-8 and escapes alone.
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// Writes part of a JSON string's text with every character [`is_unsafe`]
/// names escaped as `\uXXXX`.
pub fn write_safe_fragment<W: ?Sized + io::Write>(writer: &mut W, fragment: &str) -> io::Result<()> {
    let mut rest = fragment;
    while let Some(at) = rest.find(is_unsafe) {
        writer.write_all(&rest.as_bytes()[..at])?;
        let c = rest[at..].chars().next().unwrap_or_default();
        // Beyond U+FFFF (the tag characters) JSON escapes a surrogate pair.
        for unit in c.encode_utf16(&mut [0; 2]) {
            write!(writer, "\\u{:04x}", unit)?;
        }
        rest = &rest[at + c.len_utf8()..];
    }
    writer.write_all(rest.as_bytes())
}

/// serde_json's pretty layout (two spaces), starting at any depth, with the
/// characters [`is_unsafe`] names escaped inside strings.
pub struct SafeJson {
    depth: usize,
    has_value: bool,
}

impl SafeJson {
    pub fn at_depth(depth: usize) -> SafeJson {
        SafeJson {
            depth,
            has_value: false,
        }
    }

    fn indent<W: ?Sized + io::Write>(&self, writer: &mut W) -> io::Result<()> {
        for _ in 0..self.depth {
            writer.write_all(b"  ")?;
        }
        Ok(())
    }
}

impl serde_json::ser::Formatter for SafeJson {
    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        write_safe_fragment(writer, fragment)
    }

    fn begin_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        writer.write_all(b"[")
    }

    fn end_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            writer.write_all(b"\n")?;
            self.indent(writer)?;
        }
        writer.write_all(b"]")
    }

    fn begin_array_value<W: ?Sized + io::Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        writer.write_all(if first { b"\n" } else { b",\n" })?;
        self.indent(writer)
    }

    fn end_array_value<W: ?Sized + io::Write>(&mut self, _writer: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        writer.write_all(b"{")
    }

    fn end_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            writer.write_all(b"\n")?;
            self.indent(writer)?;
        }
        writer.write_all(b"}")
    }

    fn begin_object_key<W: ?Sized + io::Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        writer.write_all(if first { b"\n" } else { b",\n" })?;
        self.indent(writer)
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        writer.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + io::Write>(&mut self, _writer: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_read_as_people_say_them() {
        assert_eq!(counted(1, "role"), "1 role");
        assert_eq!(counted(1200, "role"), "1,200 roles");
        assert_eq!(counted(0, "key"), "0 keys");
    }

    #[test]
    fn escapes_and_controls_are_shown_not_sent() {
        assert_eq!(printable("x\u{1b}]0;pwned\u{7}"), "x\\u{1b}]0;pwned\\u{7}");
        assert_eq!(printable("\u{1b}[2J"), "\\u{1b}[2J");
        assert_eq!(printable("a\nname: fake\rb\tc"), "a\\nname: fake\\rb\\tc");
        assert_eq!(printable("\u{9b}31m"), "\\u{9b}31m");
        assert_eq!(printable("abc\u{202E}fed"), "abc\\u{202e}fed");
        assert_eq!(printable("\u{2066}x\u{2069}"), "\\u{2066}x\\u{2069}");
        assert_eq!(printable("a\u{7f}b"), "a\\u{7f}b");
    }

    #[test]
    fn invisible_format_characters_are_shown() {
        assert_eq!(printable("Ad\u{200b}min"), "Ad\\u{200b}min");
        assert_ne!(printable("Ad\u{200b}min"), printable("Admin"));
        assert_eq!(printable("a\u{200c}\u{200d}b"), "a\\u{200c}\\u{200d}b");
        assert_eq!(printable("x\u{2060}y\u{2064}"), "x\\u{2060}y\\u{2064}");
        assert_eq!(printable("\u{feff}Admin"), "\\u{feff}Admin");
        assert_eq!(printable("flag\u{e0067}\u{e007f}"), "flag\\u{e0067}\\u{e007f}");
        for c in [
            '\u{200b}',
            '\u{200f}',
            '\u{2060}',
            '\u{2064}',
            '\u{feff}',
            '\u{e0000}',
            '\u{e007f}',
        ] {
            assert!(is_invisible(c) && is_unsafe(c), "{c:?}");
        }
        // Their neighbours stay as they are: visible text is not escaped.
        for c in [
            '\u{200a}',
            '\u{2010}',
            '\u{2065}',
            '\u{fefe}',
            '\u{dffff}',
            '\u{e0080}',
            'é',
            '🦔',
        ] {
            assert!(!is_invisible(c), "{c:?}");
        }
        assert_eq!(printable_lines("one\nt\u{200b}wo"), "one\nt\\u{200b}wo");
    }

    #[test]
    fn safe_text_is_borrowed_and_escaping_twice_changes_nothing() {
        for text in ["Engineering", "Zoë 🦔 数据", "C:\\path", ""] {
            assert!(matches!(printable(text), Cow::Borrowed(_)), "{text}");
        }
        let once = printable("x\u{1b}[2J\n").into_owned();
        assert_eq!(printable(&once), once);
    }

    #[test]
    fn lines_keep_their_breaks_and_lose_the_rest() {
        assert_eq!(printable_lines("one\ntwo\u{1b}[2J\r"), "one\ntwo\\u{1b}[2J\\r");
    }

    #[test]
    fn nothing_unsafe_survives() {
        let every: String = (0u32..0x3000)
            .chain(0xfe00..0x10000)
            .chain(0xe0000..0xe0100)
            .filter_map(char::from_u32)
            .collect();
        let shown = printable(&every);
        assert!(!shown.chars().any(is_unsafe));
        assert!(!printable_lines(&every).chars().any(|c| c != '\n' && is_unsafe(c)));
    }
}
