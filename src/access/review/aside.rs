//! One project's access rows set aside as its answer arrives. The server
//! lists the members in its own order and the review writes them in its
//! own (by e-mail address), so each row is written, as it is made, to an
//! unnamed temporary file (owner-only, gone when closed), and only where
//! it lies is held: 12 bytes a member of the organization, whatever the
//! number of resources. The rows are then read back one at a time, in the
//! review's order, as the project is written out.

use std::collections::HashMap;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};

use super::AccessRow;

/// Where a row lies in the file: its offset and length.
type Place = (u64, u32);

/// A project's rows, set aside.
pub struct Aside {
    file: BufWriter<std::fs::File>,
    written: u64,
    /// Each member's row by their place among the people read (e-mail
    /// order), `None` until the server lists them.
    places: Vec<Option<Place>>,
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
            places: vec![None; people],
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
            Some(slot) => *slot = Some(place),
            None => {
                self.others
                    .insert(row.membership_id.clone(), (row.email.to_lowercase(), place));
            }
        }
        Ok(())
    }

    /// Reads the rows back, one at a time: each member's in the order of
    /// the people (`missing(position)` for one the server did not list),
    /// then the others by e-mail address and membership id.
    pub fn each(
        self,
        missing: impl Fn(usize) -> AccessRow,
        mut each: impl FnMut(&AccessRow) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let mut file = self.file.into_inner().map_err(|error| error.into_error())?;
        let mut buffer = Vec::new();
        let mut read = |place: Place| -> std::io::Result<AccessRow> {
            let (offset, length) = place;
            buffer.resize(length as usize, 0);
            file.seek(SeekFrom::Start(offset))?;
            file.read_exact(&mut buffer)?;
            Ok(serde_json::from_slice(&buffer)?)
        };
        for (position, place) in self.places.iter().enumerate() {
            let row = match place {
                Some(place) => read(*place)?,
                None => missing(position),
            };
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
