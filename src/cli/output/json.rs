//! JSON for programs: exact values, laid out as `serde_json`'s pretty
//! printer does, with the characters a terminal would act on or hide
//! escaped the JSON way (serde escapes the C0 controls; this escapes C1
//! controls, bidi controls, line separators and invisible format characters
//! too, as `\uXXXX`, a surrogate pair beyond U+FFFF, which is still the same
//! JSON value). The console's `Y` copies the same text to the clipboard.
//!
//! A list is written a row at a time, so that `subs list -o json` streams
//! rows as pages arrive and holds none of them.

use std::io::Write;

use serde::Serialize;

/// `value` as pretty JSON in a string, escaped as [`write_json`] writes it.
pub fn to_safe_string(value: &impl Serialize) -> Result<String, serde_json::Error> {
    let mut out = Vec::new();
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, TerminalSafeJson::at_depth(0));
    value.serialize(&mut serializer)?;
    // The serializer writes UTF-8 and escapes alone.
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// Writes `value` as pretty JSON.
pub fn write_json(out: &mut impl Write, value: &impl Serialize) -> std::io::Result<()> {
    write_at(out, value, 0)
}

/// Writes `value` as pretty JSON laid out as if it stood `depth` levels deep.
pub fn write_at(out: &mut impl Write, value: &impl Serialize, depth: usize) -> std::io::Result<()> {
    let mut serializer = serde_json::Serializer::with_formatter(out, TerminalSafeJson::at_depth(depth));
    value
        .serialize(&mut serializer)
        .map_err(|error| match error.io_error_kind() {
            // A closed pipe stays a closed pipe, which `main` treats as the end.
            Some(kind) => std::io::Error::new(kind, error),
            None => std::io::Error::other(error),
        })
}

/// A JSON array written one element at a time, byte for byte as
/// `serde_json::to_writer_pretty` would write the whole array.
pub struct JsonArray {
    written: u64,
}

impl JsonArray {
    pub fn start(out: &mut impl Write) -> std::io::Result<JsonArray> {
        out.write_all(b"[")?;
        Ok(JsonArray { written: 0 })
    }

    #[cfg(test)]
    pub fn push(&mut self, out: &mut impl Write, value: &impl Serialize) -> std::io::Result<()> {
        self.push_with(out, |out| write_at(out, value, 1))
    }

    /// Adds the element that `write` writes, laid out one level deep.
    pub fn push_with<W: Write>(
        &mut self,
        out: &mut W,
        write: impl FnOnce(&mut W) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        out.write_all(if self.written == 0 { b"\n  " } else { b",\n  " })?;
        write(out)?;
        self.written += 1;
        Ok(())
    }

    pub fn finish(self, out: &mut impl Write) -> std::io::Result<()> {
        if self.written > 0 {
            out.write_all(b"\n")?;
        }
        out.write_all(b"]\n")
    }
}

/// Writes part of a JSON string's text with every character
/// [`crate::text::is_unsafe`] names escaped as `\uXXXX`.
pub(super) fn write_safe_fragment<W: ?Sized + Write>(writer: &mut W, fragment: &str) -> std::io::Result<()> {
    let mut rest = fragment;
    while let Some(at) = rest.find(crate::text::is_unsafe) {
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
/// characters [`crate::text::is_unsafe`] names escaped inside strings.
pub(super) struct TerminalSafeJson {
    depth: usize,
    has_value: bool,
}

impl TerminalSafeJson {
    pub(super) fn at_depth(depth: usize) -> TerminalSafeJson {
        TerminalSafeJson {
            depth,
            has_value: false,
        }
    }

    fn indent<W: ?Sized + Write>(&self, writer: &mut W) -> std::io::Result<()> {
        for _ in 0..self.depth {
            writer.write_all(b"  ")?;
        }
        Ok(())
    }
}

impl serde_json::ser::Formatter for TerminalSafeJson {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        write_safe_fragment(writer, fragment)
    }

    fn begin_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        writer.write_all(b"[")
    }

    fn end_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            writer.write_all(b"\n")?;
            self.indent(writer)?;
        }
        writer.write_all(b"]")
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, writer: &mut W, first: bool) -> std::io::Result<()> {
        writer.write_all(if first { b"\n" } else { b",\n" })?;
        self.indent(writer)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, _writer: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        writer.write_all(b"{")
    }

    fn end_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            writer.write_all(b"\n")?;
            self.indent(writer)?;
        }
        writer.write_all(b"}")
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, writer: &mut W, first: bool) -> std::io::Result<()> {
        writer.write_all(if first { b"\n" } else { b",\n" })?;
        self.indent(writer)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        writer.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, _writer: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_stays_exact_and_escapes_bidi_too() {
        let value = serde_json::json!({"name": "x\u{1b}[2J\u{202e}é\n"});
        let mut out = Vec::new();
        write_json(&mut out, &value).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            !text.chars().any(|c| c != '\n' && crate::text::is_unsafe(c)),
            "{text}"
        );
        assert!(text.contains("\\u202e"), "{text}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap(), value);
    }

    #[test]
    fn invisible_and_c1_characters_are_escaped_and_the_value_stays() {
        let value = serde_json::json!({"name": "Ad\u{200b}min\u{feff}\u{2060}\u{9b}x\u{202e}\u{e0041}"});
        let text = to_safe_string(&value).unwrap();
        assert!(
            !text.chars().any(|c| c != '\n' && crate::text::is_unsafe(c)),
            "{text}"
        );
        for escape in [
            "\\u200b",
            "\\ufeff",
            "\\u2060",
            "\\u009b",
            "\\u202e",
            "\\udb40\\udc41",
        ] {
            assert!(text.contains(escape), "{escape} in {text}");
        }
        assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap(), value);
        let mut written = Vec::new();
        write_json(&mut written, &value).unwrap();
        assert_eq!(String::from_utf8(written).unwrap(), text);
    }

    #[test]
    fn the_layout_is_serde_jsons_pretty_one_and_arrays_stream_the_same() {
        let rows = serde_json::json!([
            {"id": 1, "name": "a", "tags": [], "empty": {}, "nested": {"list": [1, {"x": null}]}},
            {"id": 2, "name": "b", "tags": ["t"], "empty": {}, "nested": {"list": []}}
        ]);
        let mut whole = Vec::new();
        write_json(&mut whole, &rows).unwrap();
        assert_eq!(
            String::from_utf8(whole.clone()).unwrap(),
            serde_json::to_string_pretty(&rows).unwrap()
        );
        let mut streamed = Vec::new();
        let mut array = JsonArray::start(&mut streamed).unwrap();
        for row in rows.as_array().unwrap() {
            array.push(&mut streamed, row).unwrap();
        }
        array.finish(&mut streamed).unwrap();
        whole.push(b'\n');
        assert_eq!(
            String::from_utf8(streamed).unwrap(),
            String::from_utf8(whole).unwrap()
        );
        let mut empty = Vec::new();
        JsonArray::start(&mut empty).unwrap().finish(&mut empty).unwrap();
        assert_eq!(empty, b"[]\n");
    }
}
