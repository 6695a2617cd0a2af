//! A page decoded a row at a time, each row let in by a gate as it is
//! read: a list held against a budget stops at the row that would take it
//! past it, rather than after a whole page of rows the server made as
//! large as it could.

use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::super::models::Page;

/// What decodes a [`Page`] the way its derived `Deserialize` does (a
/// missing or null `count` or `results` is 0 or none), asking `gate`
/// after each row is read; a `false` ends the decoding with an error, and
/// [`Counted::stopped`] is then set.
pub(super) struct Counted<'g, T> {
    gate: &'g mut dyn FnMut() -> bool,
    pub stopped: bool,
    rows: PhantomData<fn() -> T>,
}

impl<'g, T> Counted<'g, T> {
    pub fn new(gate: &'g mut dyn FnMut() -> bool) -> Self {
        Counted {
            gate,
            stopped: false,
            rows: PhantomData,
        }
    }
}

impl<'de, T: Deserialize<'de>> DeserializeSeed<'de> for &mut Counted<'_, T> {
    type Value = Page<T>;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Page<T>, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for &mut Counted<'_, T> {
    type Value = Page<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a page of a list")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Page<T>, A::Error> {
        let mut page = Page {
            count: 0,
            next: None,
            previous: None,
            results: Vec::new(),
        };
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "count" => page.count = map.next_value::<Option<u64>>()?.unwrap_or_default(),
                "next" => page.next = map.next_value()?,
                "previous" => page.previous = map.next_value()?,
                "results" => page.results = map.next_value_seed(Rows { counted: &mut *self })?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(page)
    }
}

/// The `results` of a page: null or an array, each row let in by the gate.
struct Rows<'c, 'g, T> {
    counted: &'c mut Counted<'g, T>,
}

impl<'de, T: Deserialize<'de>> DeserializeSeed<'de> for Rows<'_, '_, T> {
    type Value = Vec<T>;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Vec<T>, D::Error> {
        deserializer.deserialize_option(self)
    }
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for Rows<'_, '_, T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of rows")
    }

    fn visit_none<E: de::Error>(self) -> Result<Vec<T>, E> {
        Ok(Vec::new())
    }

    fn visit_unit<E: de::Error>(self) -> Result<Vec<T>, E> {
        Ok(Vec::new())
    }

    fn visit_some<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Vec<T>, D::Error> {
        deserializer.deserialize_seq(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        let mut rows = Vec::new();
        while let Some(row) = seq.next_element()? {
            if !(self.counted.gate)() {
                self.counted.stopped = true;
                return Err(de::Error::custom("the rows read were more than may be held"));
            }
            rows.push(row);
        }
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(text: &str, most: usize) -> (Result<Page<u32>, serde_json::Error>, bool, usize) {
        let mut asked = 0;
        let mut gate = || {
            asked += 1;
            asked <= most
        };
        let mut counted = Counted::new(&mut gate);
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let page = (&mut counted).deserialize(&mut deserializer);
        let stopped = counted.stopped;
        (page, stopped, asked)
    }

    #[test]
    fn a_page_decodes_as_the_derived_one_does() {
        for text in [
            r#"{"count": 3, "next": "n", "previous": null, "results": [1, 2, 3], "extra": {"a": [1]}}"#,
            r#"{"results": null, "count": null}"#,
            r#"{}"#,
            r#"{"count": 2, "results": []}"#,
        ] {
            let derived: Page<u32> = serde_json::from_str(text).unwrap();
            let (counted, stopped, _) = decode(text, 100);
            assert_eq!(counted.unwrap(), derived, "{text}");
            assert!(!stopped);
        }
        for bad in [
            r#"{"count": "x"}"#,
            r#"{"results": {}}"#,
            r#""text""#,
            r#"{"results": ["a"]}"#,
        ] {
            assert!(serde_json::from_str::<Page<u32>>(bad).is_err(), "{bad}");
            assert!(decode(bad, 100).0.is_err(), "{bad}");
        }
    }

    #[test]
    fn the_gate_stops_the_rows_where_it_says() {
        let text = r#"{"count": 5, "results": [1, 2, 3, 4, 5]}"#;
        let (page, stopped, asked) = decode(text, 2);
        assert!(page.is_err() && stopped);
        assert_eq!(asked, 3, "asked after each row, stopped at the third");
        let (page, stopped, asked) = decode(text, 5);
        assert_eq!(page.unwrap().results.len(), 5);
        assert!(!stopped);
        assert_eq!(asked, 5);
    }
}
