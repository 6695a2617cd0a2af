//! A table's cells and the JSON of a row, made safe: text that may come
//! from a server is shown through `text::printable`, never sent raw, and a
//! row's JSON has its controls escaped. Also the two ways a list's filter
//! matches a row's text (a substring, ignoring case; a UUID's first
//! group at least).

use ratatui::style::Style;
use ratatui::text::Span;
use serde::Serialize;

use crate::text::printable;

/// A cell of text that may come from a server: shown, never sent raw.
pub fn text(value: impl Into<String>) -> Span<'static> {
    Span::raw(safe(value.into()))
}

pub fn styled(value: impl Into<String>, style: Style) -> Span<'static> {
    Span::styled(safe(value.into()), style)
}

fn safe(value: String) -> String {
    match printable(&value) {
        std::borrow::Cow::Borrowed(_) => value,
        std::borrow::Cow::Owned(shown) => shown,
    }
}

/// The row as pretty JSON, for the raw view and `Y`: the same value, with
/// controls, bidi controls and invisible format characters escaped the JSON
/// way (`\u202e`), so that neither the pane nor the clipboard gets them raw.
pub fn pretty(value: &impl Serialize) -> String {
    crate::text::to_safe_json(value).unwrap_or_else(|error| format!("(cannot show: {error})"))
}

/// Whether `haystack` holds a lowercase needle, ignoring case.
pub fn contains(haystack: &str, needle: &str) -> bool {
    haystack.to_lowercase().contains(needle)
}

/// Whether a UUID starts with a lowercase needle of at least its first
/// group (8 characters): what is pasted from a log or a URL, never a
/// letter or two of a name, which every UUID's hexadecimal would hold.
pub fn id_starts(id: &str, needle: &str) -> bool {
    needle.len() >= 8 && id.to_lowercase().starts_with(needle)
}
