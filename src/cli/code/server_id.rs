//! An id as the server wrote it, held compactly: a UUID in its canonical
//! form (lower case, hyphenated) as its 16 bytes ([`crate::people::uuid_number`],
//! as the role index holds them), anything else as text.
//! What it gives back is byte for byte what the server sent.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ServerId {
    Uuid([u8; 16]),
    Text(Box<str>),
}

impl ServerId {
    /// Holds `text`, as 16 bytes where it writes back the same.
    pub fn new(text: String) -> Self {
        match crate::people::uuid_number(&text, false) {
            Some(number) => Self::Uuid(number.to_be_bytes()),
            None => Self::Text(text.into_boxed_str()),
        }
    }
}

impl fmt::Display for ServerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Uuid(bytes) => fmt::Display::fmt(&uuid::Uuid::from_bytes(*bytes).hyphenated(), f),
            Self::Text(text) => f.write_str(text),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_id_reads_back_as_sent() {
        for text in [
            "0190b5a4-7e1c-7d3a-9f00-1234567890ab",
            "0190B5A4-7E1C-7D3A-9F00-1234567890AB",
            "0190b5a47e1c7d3a9f001234567890ab",
            "{0190b5a4-7e1c-7d3a-9f00-1234567890ab}",
            "42",
            "",
        ] {
            let held = ServerId::new(text.to_string());
            assert_eq!(held.to_string(), text);
            let compact = matches!(held, ServerId::Uuid(_));
            assert_eq!(compact, text == "0190b5a4-7e1c-7d3a-9f00-1234567890ab", "{text}");
        }
    }
}
