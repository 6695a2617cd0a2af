//! A server's JSON text written out as it came, laid out as
//! [`super::json::write_json`] lays out a value (serde_json's pretty
//! layout), without reading it into a value first: the text is walked once,
//! its whitespace laid out again, and inside strings the characters a
//! terminal would act on escaped the JSON way, as `write_json` escapes
//! them. Numbers and escapes stay as the server wrote them, which is the
//! same value. A list of 90,000 rows costs a pass over its bytes, not a
//! value built and taken apart for every row.

use std::io::{self, Write};

use crate::api::raw::{skip_space, string_end};

/// Writes `json`, the text of one JSON value (checked JSON: a
/// [`serde_json::value::RawValue`]), laid out as if it stood `depth` levels
/// deep.
pub fn write_verbatim(out: &mut impl Write, json: &str, mut depth: usize) -> io::Result<()> {
    let bytes = json.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            open @ (b'{' | b'[') => {
                let close = if open == b'{' { b'}' } else { b']' };
                let next = skip_space(bytes, at + 1);
                if bytes.get(next) == Some(&close) {
                    out.write_all(&[open, close])?;
                    at = next + 1;
                } else {
                    depth += 1;
                    out.write_all(&[open, b'\n'])?;
                    indent(out, depth)?;
                    at += 1;
                }
            }
            close @ (b'}' | b']') => {
                depth = depth.saturating_sub(1);
                out.write_all(b"\n")?;
                indent(out, depth)?;
                out.write_all(&[close])?;
                at += 1;
            }
            b',' => {
                out.write_all(b",\n")?;
                indent(out, depth)?;
                at += 1;
            }
            b':' => {
                out.write_all(b": ")?;
                at += 1;
            }
            b' ' | b'\t' | b'\n' | b'\r' => at += 1,
            b'"' => {
                let end = string_end(bytes, at);
                out.write_all(b"\"")?;
                // Both ends are at ASCII bytes (or the text's end): char
                // boundaries.
                write_content(out, json.get(at + 1..end).unwrap_or_default())?;
                out.write_all(b"\"")?;
                at = end + 1;
            }
            _ => {
                let start = at;
                while at < bytes.len()
                    && !matches!(
                        bytes[at],
                        b',' | b'}' | b']' | b':' | b' ' | b'\t' | b'\n' | b'\r'
                    )
                {
                    at += 1;
                }
                out.write_all(&bytes[start..at])?;
            }
        }
    }
    Ok(())
}

fn indent(out: &mut impl Write, depth: usize) -> io::Result<()> {
    const SPACES: &[u8] = &[b' '; 64];
    let mut left = depth * 2;
    while left > 0 {
        let now = left.min(SPACES.len());
        out.write_all(&SPACES[..now])?;
        left -= now;
    }
    Ok(())
}

/// A string's text between its quotes, escapes and all: printable ASCII
/// as it is, anything else through [`crate::text::write_safe_fragment`].
fn write_content(out: &mut impl Write, content: &str) -> io::Result<()> {
    if content.bytes().all(|byte| (0x20..0x7f).contains(&byte)) {
        out.write_all(content.as_bytes())
    } else {
        crate::text::write_safe_fragment(out, content)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::output::json::write_json;

    fn laid_out(json: &str, depth: usize) -> String {
        let mut out = Vec::new();
        write_verbatim(&mut out, json, depth).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_layout_is_write_jsons_byte_for_byte() {
        let values = [
            serde_json::json!({"id": 1, "name": "a", "tags": [], "empty": {}, "nested": {"list": [1, {"x": null}, [[]], [{}]]}}),
            serde_json::json!([{"a": true, "b": false, "c": -1.5, "d": 1e300, "e": "q\"uo\\te"}, [], {}]),
            serde_json::json!({"name": "x\u{1b}[2J\u{202e}é\n\u{9b}\u{7f}\u{200b}\u{e0041}", "ok": "日本"}),
            serde_json::json!("text"),
            serde_json::json!(12),
            serde_json::json!([]),
        ];
        for value in values {
            for depth in [0, 1, 3] {
                let mut expected = Vec::new();
                let mut serializer = serde_json::Serializer::with_formatter(
                    &mut expected,
                    crate::text::SafeJson::at_depth(depth),
                );
                serde::Serialize::serialize(&value, &mut serializer).unwrap();
                let expected = String::from_utf8(expected).unwrap();
                // As a server sends it (compact), and spaced out.
                let compact = serde_json::to_string(&value).unwrap();
                assert_eq!(laid_out(&compact, depth), expected, "{compact}");
                let pretty = serde_json::to_string_pretty(&value).unwrap();
                assert_eq!(laid_out(&pretty, depth), expected, "{pretty}");
            }
            let mut whole = Vec::new();
            write_json(&mut whole, &value).unwrap();
            assert_eq!(
                laid_out(&serde_json::to_string(&value).unwrap(), 0),
                String::from_utf8(whole).unwrap()
            );
        }
    }

    #[test]
    fn what_a_terminal_acts_on_is_escaped_and_the_value_stays() {
        // Raw in the text as a server may send them (DEL, C1, bidi, a tag).
        let sent = "{\"t\":\"a\u{7f}b\u{9b}c\u{202e}d\u{e0041}\",\"k\\u001b\":\"\\u001b[2J\"}";
        let text = laid_out(sent, 0);
        assert!(
            !text.chars().any(|c| c != '\n' && crate::text::is_unsafe(c)),
            "{text}"
        );
        for escape in ["\\u007f", "\\u009b", "\\u202e", "\\udb40\\udc41", "\\u001b[2J"] {
            assert!(text.contains(escape), "{escape} in {text}");
        }
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&text).unwrap(),
            serde_json::from_str::<serde_json::Value>(sent).unwrap()
        );
    }
}
