//! JSON for programs: exact values, laid out as `serde_json`'s pretty
//! printer does, with the characters a terminal would act on or hide
//! escaped the JSON way (serde escapes the C0 controls; this escapes C1
//! controls, bidi controls, line separators and invisible format characters
//! too, as `\uXXXX`, a surrogate pair beyond U+FFFF, which is still the same
//! JSON value): the layout and the escaping are [`crate::text::SafeJson`],
//! which the console's `Y` uses too.
//!
//! A list is written a row at a time, so that `subs list -o json` streams
//! rows as pages arrive and holds none of them.

use std::io::Write;

use serde::Serialize;

use crate::text::SafeJson;

/// Writes `value` as pretty JSON.
pub fn write_json(out: &mut impl Write, value: &impl Serialize) -> std::io::Result<()> {
    write_at(out, value, 0)
}

/// Writes `value` as pretty JSON laid out as if it stood `depth` levels deep.
pub fn write_at(out: &mut impl Write, value: &impl Serialize, depth: usize) -> std::io::Result<()> {
    let mut serializer = serde_json::Serializer::with_formatter(out, SafeJson::at_depth(depth));
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
        let text = crate::text::to_safe_json(&value).unwrap();
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
