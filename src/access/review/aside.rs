//! One project's access rows set aside as its answer arrives. The server
//! lists the members in its own order and the review writes them in its
//! own (by e-mail address), so each row is written, as it is made, to an
//! unnamed temporary file (owner-only, gone when closed), and only where
//! it lies is held: 8 bytes a member of the organization, whatever the
//! number of resources. The rows are then read back one at a time, in the
//! review's order, as the project is written out.

use std::collections::HashMap;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};

use super::AccessRow;
use crate::access::directory::Person;

/// Where a row lies in the file: its offset and length.
type Place = (u64, u32);

/// A member's place packed in a word: the offset in the high 40 bits (1
/// TiB), the length in the low 24 (16 MiB); all ones for none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Packed(u64);

impl Packed {
    const NONE: Packed = Packed(u64::MAX);
    const LENGTH_BITS: u32 = 24;

    fn new((offset, length): Place) -> std::io::Result<Packed> {
        if length >= 1 << Packed::LENGTH_BITS || offset >= 1 << (64 - Packed::LENGTH_BITS) {
            return Err(std::io::Error::other(
                "an access row past 16 MiB, or rows past 1 TiB in all",
            ));
        }
        Ok(Packed(offset << Packed::LENGTH_BITS | u64::from(length)))
    }

    fn place(self) -> Option<Place> {
        (self != Packed::NONE).then(|| {
            let length = (self.0 & ((1 << Packed::LENGTH_BITS) - 1)) as u32;
            (self.0 >> Packed::LENGTH_BITS, length)
        })
    }
}

/// A project's rows, set aside.
pub struct Aside {
    file: BufWriter<std::fs::File>,
    written: u64,
    /// Each member's row by their place among the people read (e-mail
    /// order), none until the server lists them.
    places: Vec<Packed>,
    /// Rows of anyone the server lists who is not among the people read,
    /// by membership id: their e-mail address in lower case and place.
    others: HashMap<String, (String, Place)>,
}

impl Aside {
    /// Room for the rows of `people` members.
    pub fn new(people: usize) -> std::io::Result<Aside> {
        Ok(Aside {
            file: BufWriter::new(tempfile::tempfile()?),
            written: 0,
            places: vec![Packed::NONE; people],
            others: HashMap::new(),
        })
    }

    /// Sets `row` aside, as the row of the member at `position` among the
    /// people, or of someone not among them; a member listed twice keeps
    /// their last row.
    pub fn put(&mut self, position: Option<usize>, row: &AccessRow) -> std::io::Result<()> {
        let bytes = serde_json::to_vec(row)?;
        let length =
            u32::try_from(bytes.len()).map_err(|_| std::io::Error::other("an access row past 4 GiB"))?;
        self.file.write_all(&bytes)?;
        let place = (self.written, length);
        self.written += u64::from(length);
        match position.and_then(|position| self.places.get_mut(position)) {
            Some(slot) => *slot = Packed::new(place)?,
            None => {
                self.others
                    .insert(row.membership_id.clone(), (row.email.to_lowercase(), place));
            }
        }
        Ok(())
    }

    /// Reads the rows back, one at a time: each member's in the order of
    /// the people (read back beside them; `missing(person)` for one the
    /// server did not list), with their name, then the others by e-mail
    /// address and membership id.
    pub fn each(
        self,
        people: impl Iterator<Item = std::io::Result<Person>>,
        missing: impl Fn(&Person) -> AccessRow,
        mut each: impl FnMut(&AccessRow) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let mut people = people;
        let mut file = self.file.into_inner().map_err(|error| error.into_error())?;
        let mut buffer = Vec::new();
        let mut read = |place: Place| -> std::io::Result<AccessRow> {
            let (offset, length) = place;
            buffer.resize(length as usize, 0);
            file.seek(SeekFrom::Start(offset))?;
            file.read_exact(&mut buffer)?;
            Ok(serde_json::from_slice(&buffer)?)
        };
        for place in &self.places {
            let person = people
                .next()
                .ok_or_else(|| std::io::Error::other("the members set aside end early"))??;
            let mut row = match place.place() {
                Some(place) => read(place)?,
                None => missing(&person),
            };
            row.name = person.name;
            each(&row)?;
        }
        let mut others: Vec<(String, String, Place)> = self
            .others
            .into_iter()
            .map(|(membership, (email, place))| (email, membership, place))
            .collect();
        others.sort();
        for (_, _, place) in others {
            each(&read(place)?)?;
        }
        Ok(())
    }
}
