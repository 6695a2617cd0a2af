//! Reading the settings answers row by row. `access_control_members` and
//! `access_control_roles` are not paginated (posthog.md 16.4): one answer
//! holds every member (or role) times every resource, some 9 MB for 1,000
//! people, 800 MB for 90,000. The answer is decoded as it arrives: its
//! chunks are handed to a [`Chunks`](crate::api::chunks::Chunks) reader that a decoder on a blocking
//! thread reads, one row at a time into the caller's sink, so that memory
//! holds a few chunks and a single row, never the answer nor its rows;
//! rows past the client's row cap stop it, and its bytes are bounded by
//! the client (`Client::max_fed`).

use std::cell::RefCell;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::models::SettingsHeader;
use crate::api::AccessLevel;

/// Why decoding stopped early.
pub(crate) enum Stopped<E> {
    /// The sink said so (its own error, or enough rows).
    Sink(E),
    /// More rows than the cap.
    TooMany,
    /// The bytes are not the answer the API sends.
    Malformed(String),
}

/// Decodes `{ …header…, "results": [row, …] }` from `bytes`, handing each
/// row to `sink` as it is decoded; at most `cap` rows.
#[cfg(test)]
pub(crate) fn rows<T, E>(
    bytes: &[u8],
    cap: u64,
    sink: impl FnMut(T) -> Result<(), E>,
) -> Result<(SettingsHeader, u64), Stopped<E>>
where
    T: for<'de> Deserialize<'de>,
{
    decode(serde_json::Deserializer::from_slice(bytes), cap, sink)
}

/// [`rows`] from a reader, as its bytes come.
pub(crate) fn rows_from<T, E>(
    reader: impl std::io::Read,
    cap: u64,
    sink: impl FnMut(T) -> Result<(), E>,
) -> Result<(SettingsHeader, u64), Stopped<E>>
where
    T: for<'de> Deserialize<'de>,
{
    decode(serde_json::Deserializer::from_reader(reader), cap, sink)
}

fn decode<'de, R, T, E>(
    mut deserializer: serde_json::Deserializer<R>,
    cap: u64,
    sink: impl FnMut(T) -> Result<(), E>,
) -> Result<(SettingsHeader, u64), Stopped<E>>
where
    R: serde_json::de::Read<'de>,
    T: Deserialize<'de>,
{
    let state = RefCell::new(State {
        sink,
        cap,
        rows: 0,
        stopped: None,
    });
    let decoded = Answer {
        state: &state,
        row: PhantomData::<T>,
    }
    .deserialize(&mut deserializer)
    .and_then(|header| deserializer.end().map(|()| header));
    let state = state.into_inner();
    match (decoded, state.stopped) {
        (_, Some(stopped)) => Err(stopped),
        (Ok(header), None) => Ok((header, state.rows)),
        (Err(error), None) => Err(Stopped::Malformed(error.to_string())),
    }
}

struct State<F, E> {
    sink: F,
    cap: u64,
    rows: u64,
    stopped: Option<Stopped<E>>,
}

struct Answer<'s, F, E, T> {
    state: &'s RefCell<State<F, E>>,
    row: PhantomData<T>,
}

impl<'de, F, E, T> DeserializeSeed<'de> for Answer<'_, F, E, T>
where
    F: FnMut(T) -> Result<(), E>,
    T: Deserialize<'de>,
{
    type Value = SettingsHeader;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de, F, E, T> Visitor<'de> for Answer<'_, F, E, T>
where
    F: FnMut(T) -> Result<(), E>,
    T: Deserialize<'de>,
{
    type Value = SettingsHeader;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("an object with results")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut header = SettingsHeader::default();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "results" => map.next_value_seed(Results {
                    state: self.state,
                    row: PhantomData::<T>,
                })?,
                "available_project_levels" => {
                    header.available_project_levels =
                        map.next_value::<Option<Vec<AccessLevel>>>()?.unwrap_or_default()
                }
                "available_resource_levels" => {
                    header.available_resource_levels =
                        map.next_value::<Option<Vec<AccessLevel>>>()?.unwrap_or_default()
                }
                "can_edit" => header.can_edit = map.next_value::<Option<bool>>()?.unwrap_or_default(),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(header)
    }
}

struct Results<'s, F, E, T> {
    state: &'s RefCell<State<F, E>>,
    row: PhantomData<T>,
}

impl<'de, F, E, T> DeserializeSeed<'de> for Results<'_, F, E, T>
where
    F: FnMut(T) -> Result<(), E>,
    T: Deserialize<'de>,
{
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, F, E, T> Visitor<'de> for Results<'_, F, E, T>
where
    F: FnMut(T) -> Result<(), E>,
    T: Deserialize<'de>,
{
    type Value = ();

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a list of rows")
    }

    /// `"results": null` holds no rows.
    fn visit_unit<Er: de::Error>(self) -> Result<(), Er> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(row) = seq.next_element::<T>()? {
            let mut state = self.state.borrow_mut();
            state.rows += 1;
            if state.rows > state.cap {
                state.stopped = Some(Stopped::TooMany);
                return Err(de::Error::custom("too many rows"));
            }
            if let Err(error) = (state.sink)(row) {
                state.stopped = Some(Stopped::Sink(error));
                return Err(de::Error::custom("stopped"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::chunks::Chunks;

    #[test]
    fn rows_are_handed_over_one_at_a_time_with_the_header() {
        let bytes = br#"{"available_project_levels":["none","member","admin"],"can_edit":true,"results":[{"a":1},{"a":2}],"extra":{"x":[1]}}"#;
        let mut seen = Vec::new();
        let (header, count) = rows::<serde_json::Value, ()>(bytes, 10, |row| {
            seen.push(row["a"].as_i64().unwrap());
            Ok(())
        })
        .ok()
        .unwrap();
        assert_eq!(seen, [1, 2]);
        assert_eq!(count, 2);
        assert!(header.can_edit);
        assert_eq!(header.available_project_levels.len(), 3);
    }

    #[test]
    fn a_cap_a_sink_and_bad_bytes_stop_it() {
        let bytes = br#"{"results":[1,2,3]}"#;
        assert!(matches!(
            rows::<u8, ()>(bytes, 2, |_| Ok(())),
            Err(Stopped::TooMany)
        ));
        assert!(matches!(
            rows::<u8, &str>(bytes, 9, |row| if row == 2 { Err("enough") } else { Ok(()) }),
            Err(Stopped::Sink("enough"))
        ));
        assert!(matches!(
            rows::<u8, ()>(br#"{"results":[1,2"#, 9, |_| Ok(())),
            Err(Stopped::Malformed(_))
        ));
        assert!(matches!(
            rows::<u8, ()>(br#"{"results":[1]} trailing"#, 9, |_| Ok(())),
            Err(Stopped::Malformed(_))
        ));
        assert!(rows::<u8, ()>(br#"{"results":null}"#, 9, |_| Ok(())).is_ok());
    }

    #[test]
    fn rows_are_read_across_chunks_however_they_are_cut() {
        let bytes: &[u8] = br#"{"can_edit":true,"results":[{"a":1},{"a":22},{"a":333}]}"#;
        for size in [1, 2, 5, bytes.len()] {
            let (to, from) = tokio::sync::mpsc::channel(bytes.len());
            for chunk in bytes.chunks(size) {
                to.try_send(bytes::Bytes::copy_from_slice(chunk)).unwrap();
            }
            drop(to);
            let mut seen = Vec::new();
            let (header, count) = rows_from::<serde_json::Value, ()>(Chunks::new(from), 10, |row| {
                seen.push(row["a"].as_i64().unwrap());
                Ok(())
            })
            .ok()
            .unwrap();
            assert_eq!(
                (seen.as_slice(), count, header.can_edit),
                ([1, 22, 333].as_slice(), 3, true)
            );
        }
        // A body cut short is not an answer.
        let (to, from) = tokio::sync::mpsc::channel(1);
        to.try_send(bytes::Bytes::from_static(br#"{"results":[1,"#))
            .unwrap();
        drop(to);
        assert!(matches!(
            rows_from::<u8, ()>(Chunks::new(from), 9, |_| Ok(())),
            Err(Stopped::Malformed(_))
        ));
    }
}
