//! A page decoded a row at a time, each row handed on as it is read: a
//! list held against a budget stops at the row that would take it past
//! it, and a streamed one passes its rows on in small runs, rather than
//! either decoding a whole page that a server made as large as it could.

use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// What a page says besides its rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Head {
    pub count: u64,
    pub next: Option<String>,
    /// Rows it held.
    pub rows: u64,
}

/// What decodes a page the way [`super::super::models::Page`]'s derived
/// `Deserialize` does (a missing or null `count` or `results` is 0 or
/// none), handing each row to `each` as it is read; a `false` ends the
/// decoding with an error, and [`Rows::stopped`] is then set.
pub(super) struct Rows<'e, T> {
    each: &'e mut dyn FnMut(T) -> bool,
    pub stopped: bool,
    read: u64,
    rows: PhantomData<fn() -> T>,
}

impl<'e, T> Rows<'e, T> {
    pub fn new(each: &'e mut dyn FnMut(T) -> bool) -> Self {
        Rows {
            each,
            stopped: false,
            read: 0,
            rows: PhantomData,
        }
    }
}

impl<'de, T: Deserialize<'de>> DeserializeSeed<'de> for &mut Rows<'_, T> {
    type Value = Head;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Head, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for &mut Rows<'_, T> {
    type Value = Head;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a page of a list")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Head, A::Error> {
        let mut head = Head {
            count: 0,
            next: None,
            rows: 0,
        };
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "count" => head.count = map.next_value::<Option<u64>>()?.unwrap_or_default(),
                "next" => head.next = map.next_value()?,
                "results" => map.next_value_seed(Results { rows: &mut *self })?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        head.rows = self.read;
        Ok(head)
    }
}

/// The `results` of a page: null or an array, each row handed on.
struct Results<'r, 'e, T> {
    rows: &'r mut Rows<'e, T>,
}

impl<'de, T: Deserialize<'de>> DeserializeSeed<'de> for Results<'_, '_, T> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_option(self)
    }
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for Results<'_, '_, T> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of rows")
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_some<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(row) = seq.next_element()? {
            self.rows.read += 1;
            if !(self.rows.each)(row) {
                self.rows.stopped = true;
                return Err(de::Error::custom("the list stopped at this row"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::models::Page;

    /// The head and rows of `text`, `most` rows taken at most.
    fn decode(text: &str, most: usize) -> (Result<Head, serde_json::Error>, Vec<u32>, bool) {
        let mut taken = Vec::new();
        let mut each = |row: u32| {
            taken.push(row);
            taken.len() < most
        };
        let mut rows = Rows::new(&mut each);
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let head = (&mut rows).deserialize(&mut deserializer);
        let stopped = rows.stopped;
        (head, taken, stopped)
    }

    #[test]
    fn a_page_decodes_as_the_derived_one_does() {
        for text in [
            r#"{"count": 3, "next": "n", "previous": null, "results": [1, 2, 3], "extra": {"a": [1]}}"#,
            r#"{"results": [4, 5], "count": 9}"#,
            r#"{"results": null, "count": null}"#,
            r#"{}"#,
        ] {
            let derived: Page<u32> = serde_json::from_str(text).unwrap();
            let (head, rows, stopped) = decode(text, 100);
            assert_eq!(
                head.unwrap(),
                Head {
                    count: derived.count,
                    next: derived.next,
                    rows: derived.results.len() as u64
                },
                "{text}"
            );
            assert_eq!(rows, derived.results, "{text}");
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
    fn a_false_stops_the_rows_there() {
        let (head, rows, stopped) = decode(r#"{"count": 5, "results": [1, 2, 3, 4, 5]}"#, 3);
        assert!(head.is_err() && stopped);
        assert_eq!(rows, [1, 2, 3]);
    }
}
