//! Records sorted outside memory, for what grows with the organization's
//! members (a role's memberships, `export --roles` and `plan`): they are
//! taken in any order, sorted a run of at most [`RUN_BYTES`] at a time,
//! each run set aside in an unnamed temporary file (owner-only, gone when
//! closed), and the runs merged back in order, equal records once (an
//! external merge sort: memory holds one run, then a record of each run).
//! The merged records can be set aside again ([`Sorted::set_aside`]), to
//! be read back in order as often as needed, one at a time.

use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};

/// The bytes of records sorted in memory at once before they are set aside.
pub const RUN_BYTES: usize = 256 * 1024;

/// A record that can be set aside: written and read back, length first
/// (so that any text, line breaks and all, comes back as it was).
pub trait Record: Ord + Sized {
    /// Its texts, in order (numbers written as text).
    fn texts(&self) -> Vec<Cow<'_, str>>;
    /// Made again from its texts (as many as [`Record::texts`] gives).
    fn from_texts(texts: Vec<String>) -> Option<Self>;
    /// About what it takes in memory.
    fn bytes(&self) -> usize {
        self.texts().iter().map(|text| text.len() + 24).sum()
    }
}

impl Record for String {
    fn texts(&self) -> Vec<Cow<'_, str>> {
        vec![Cow::Borrowed(self.as_str())]
    }

    fn from_texts(mut texts: Vec<String>) -> Option<Self> {
        (texts.len() == 1).then(|| texts.swap_remove(0))
    }
}

impl Record for (String, String) {
    fn texts(&self) -> Vec<Cow<'_, str>> {
        vec![Cow::Borrowed(self.0.as_str()), Cow::Borrowed(self.1.as_str())]
    }

    fn from_texts(texts: Vec<String>) -> Option<Self> {
        let [first, second]: [String; 2] = texts.try_into().ok()?;
        Some((first, second))
    }
}

impl Record for (String, String, String) {
    fn texts(&self) -> Vec<Cow<'_, str>> {
        vec![
            Cow::Borrowed(self.0.as_str()),
            Cow::Borrowed(self.1.as_str()),
            Cow::Borrowed(self.2.as_str()),
        ]
    }

    fn from_texts(texts: Vec<String>) -> Option<Self> {
        let [first, second, third]: [String; 3] = texts.try_into().ok()?;
        Some((first, second, third))
    }
}

/// The bytes [`write_record`] writes of a record.
fn record_bytes<R: Record>(record: &R) -> u64 {
    record.texts().iter().map(|text| 4 + text.len() as u64).sum()
}

fn write_record<R: Record>(out: &mut impl Write, record: &R) -> std::io::Result<()> {
    for text in record.texts() {
        let length = u32::try_from(text.len()).map_err(|_| std::io::Error::other("a text past 4 GiB"))?;
        out.write_all(&length.to_le_bytes())?;
        out.write_all(text.as_bytes())?;
    }
    Ok(())
}

/// The next record of `input`, `None` at its end.
fn read_record<R: Record>(input: &mut impl Read, fields: usize) -> std::io::Result<Option<R>> {
    let mut texts = Vec::with_capacity(fields);
    for field in 0..fields {
        let mut length = [0u8; 4];
        if field == 0 {
            // The end of the input, or a record.
            let mut got = 0;
            while got < length.len() {
                match input.read(&mut length[got..])? {
                    0 if got == 0 => return Ok(None),
                    0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
                    read => got += read,
                }
            }
        } else {
            input.read_exact(&mut length)?;
        }
        let mut bytes = vec![0u8; u32::from_le_bytes(length) as usize];
        input.read_exact(&mut bytes)?;
        texts.push(String::from_utf8(bytes).map_err(std::io::Error::other)?);
    }
    R::from_texts(texts)
        .map(Some)
        .ok_or_else(|| std::io::Error::other("a record set aside does not read back"))
}

/// Records being taken, in any order.
pub struct Sorter<R> {
    run: Vec<R>,
    run_bytes: usize,
    limit: usize,
    runs: Vec<std::fs::File>,
    fields: usize,
}

impl<R: Record> Sorter<R> {
    /// A sorter of records of `fields` texts each.
    pub fn new(fields: usize) -> Sorter<R> {
        Sorter::with_runs_of(fields, RUN_BYTES)
    }

    fn with_runs_of(fields: usize, limit: usize) -> Sorter<R> {
        Sorter {
            run: Vec::new(),
            run_bytes: 0,
            limit: limit.max(1),
            runs: Vec::new(),
            fields,
        }
    }

    pub fn push(&mut self, record: R) -> std::io::Result<()> {
        self.run_bytes += record.bytes();
        self.run.push(record);
        if self.run_bytes >= self.limit {
            self.set_run_aside()?;
        }
        Ok(())
    }

    fn set_run_aside(&mut self) -> std::io::Result<()> {
        let mut run = std::mem::take(&mut self.run);
        self.run_bytes = 0;
        run.sort_unstable();
        run.dedup();
        let mut out = BufWriter::new(tempfile::tempfile()?);
        for record in &run {
            write_record(&mut out, record)?;
        }
        let mut file = out.into_inner().map_err(|error| error.into_error())?;
        file.seek(SeekFrom::Start(0))?;
        self.runs.push(file);
        Ok(())
    }

    /// The records in order, each once.
    pub fn finish(mut self) -> std::io::Result<Merged<R>> {
        if self.runs.is_empty() {
            // One run: sorted where it is, never set aside.
            self.run.sort_unstable();
            self.run.dedup();
            self.run.reverse();
            return Ok(Merged {
                held: self.run,
                runs: Vec::new(),
                heads: BinaryHeap::new(),
                last: None,
                fields: self.fields,
            });
        }
        if !self.run.is_empty() {
            self.set_run_aside()?;
        }
        let mut runs: Vec<BufReader<std::fs::File>> = self
            .runs
            .into_iter()
            .map(|file| BufReader::with_capacity(16 * 1024, file))
            .collect();
        let mut heads = BinaryHeap::with_capacity(runs.len());
        for (at, run) in runs.iter_mut().enumerate() {
            if let Some(record) = read_record(run, self.fields)? {
                heads.push(Reverse((record, at)));
            }
        }
        Ok(Merged {
            held: Vec::new(),
            runs,
            heads,
            last: None,
            fields: self.fields,
        })
    }
}

/// The records of a [`Sorter`], in order, each once.
pub struct Merged<R> {
    /// Records never set aside, in reverse order (taken from the end).
    held: Vec<R>,
    runs: Vec<BufReader<std::fs::File>>,
    heads: BinaryHeap<Reverse<(R, usize)>>,
    /// The last record given, so that a record in two runs is given once.
    last: Option<R>,
    fields: usize,
}

impl<R: Record + Clone> Merged<R> {
    fn next_record(&mut self) -> std::io::Result<Option<R>> {
        if let Some(record) = self.held.pop() {
            return Ok(Some(record));
        }
        loop {
            let Some(Reverse((record, at))) = self.heads.pop() else {
                return Ok(None);
            };
            if let Some(run) = self.runs.get_mut(at)
                && let Some(next) = read_record(run, self.fields)?
            {
                self.heads.push(Reverse((next, at)));
            }
            if self.last.as_ref() == Some(&record) {
                continue;
            }
            self.last = Some(record.clone());
            return Ok(Some(record));
        }
    }

    /// Sets the records aside, in order, in one file to be read back as
    /// often as needed ([`Sorted`]).
    pub fn set_aside(self) -> std::io::Result<Sorted> {
        self.set_aside_in(None)
    }

    /// As [`Merged::set_aside`], with where each group of records starts
    /// (records in order give `group` in increasing order: records of
    /// group `g` are read back alone by [`Sorted::read_group`]).
    pub fn set_aside_grouped(self, group: impl Fn(&R) -> usize) -> std::io::Result<Sorted> {
        self.set_aside_in(Some(&group))
    }

    fn set_aside_in(mut self, group: Option<&dyn Fn(&R) -> usize>) -> std::io::Result<Sorted> {
        let mut out = BufWriter::new(tempfile::tempfile()?);
        let mut count = 0u64;
        let mut written = 0u64;
        let mut groups: Vec<(u64, u64)> = Vec::new();
        while let Some(record) = self.next_record()? {
            if let Some(group) = group {
                let at = group(&record);
                // Groups without records start where the next one does.
                while groups.len() <= at {
                    groups.push((written, 0));
                }
                groups[at].1 += 1;
                written += record_bytes(&record);
            }
            write_record(&mut out, &record)?;
            count += 1;
        }
        let file = out.into_inner().map_err(|error| error.into_error())?;
        Ok(Sorted {
            file,
            count,
            fields: self.fields,
            groups,
        })
    }
}

impl<R: Record + Clone> Iterator for Merged<R> {
    type Item = std::io::Result<R>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_record().transpose()
    }
}

/// Records set aside in order, in an unnamed temporary file.
#[derive(Debug)]
pub struct Sorted {
    file: std::fs::File,
    count: u64,
    fields: usize,
    /// Where each group starts, and its records ([`Merged::set_aside_grouped`]).
    groups: Vec<(u64, u64)>,
}

impl Sorted {
    /// No records.
    #[cfg(test)]
    pub fn empty(fields: usize) -> std::io::Result<Sorted> {
        Ok(Sorted {
            file: tempfile::tempfile()?,
            count: 0,
            fields,
            groups: Vec::new(),
        })
    }

    /// How many records there are.
    pub fn len(&self) -> u64 {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The records, in order, read back one at a time.
    pub fn read<R: Record>(&self) -> std::io::Result<Reading<'_, R>> {
        self.read_from(0, self.count)
    }

    /// The records of group `group` ([`Merged::set_aside_grouped`]), in
    /// order; none for a group past the last.
    pub fn read_group<R: Record>(&self, group: usize) -> std::io::Result<Reading<'_, R>> {
        let (start, count) = self.groups.get(group).copied().unwrap_or((0, 0));
        self.read_from(start, count)
    }

    /// Each reading reads at its own place in the file (never the file's
    /// one position): two readings at once each get their records.
    fn read_from<R: Record>(&self, start: u64, count: u64) -> std::io::Result<Reading<'_, R>> {
        Ok(Reading {
            input: BufReader::with_capacity(
                16 * 1024,
                At {
                    file: &self.file,
                    offset: start,
                },
            ),
            fields: self.fields,
            left: count,
            kind: std::marker::PhantomData,
        })
    }
}

/// A file read from a place of its own, without moving the file's
/// position (shared by every reading of it).
struct At<'a> {
    file: &'a std::fs::File,
    offset: u64,
}

impl Read for At<'_> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        #[cfg(unix)]
        let got = std::os::unix::fs::FileExt::read_at(self.file, buffer, self.offset)?;
        // Moves the file's position, which no reading relies on.
        #[cfg(windows)]
        let got = std::os::windows::fs::FileExt::seek_read(self.file, buffer, self.offset)?;
        self.offset += got as u64;
        Ok(got)
    }
}

/// The records of a [`Sorted`], in order.
pub struct Reading<'a, R> {
    input: BufReader<At<'a>>,
    fields: usize,
    /// The records still to read.
    left: u64,
    kind: std::marker::PhantomData<R>,
}

impl<R: Record> Iterator for Reading<'_, R> {
    type Item = std::io::Result<R>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        read_record(&mut self.input, self.fields).transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_come_back_sorted_and_once_across_runs() {
        let mut sorter: Sorter<(String, String)> = Sorter::with_runs_of(2, 64);
        let mut wanted = Vec::new();
        for n in (0..500).rev() {
            let record = (format!("role{}", n % 7), format!("person{n}\nline@example.com"));
            sorter.push(record.clone()).unwrap();
            wanted.push(record);
        }
        // Twice, in another run.
        sorter
            .push(("role3".into(), "person3\nline@example.com".into()))
            .unwrap();
        wanted.sort();
        wanted.dedup();
        let merged = sorter.finish().unwrap();
        assert!(!merged.runs.is_empty(), "the records went past a run");
        let sorted = merged.set_aside().unwrap();
        assert_eq!(sorted.len(), wanted.len() as u64);
        for _ in 0..2 {
            let read: Vec<(String, String)> = sorted.read().unwrap().collect::<Result<_, _>>().unwrap();
            assert_eq!(read, wanted);
        }
    }

    #[test]
    fn two_readings_at_once_each_read_their_own() {
        let mut sorter: Sorter<String> = Sorter::with_runs_of(1, 4096);
        let wanted: Vec<String> = (0..20_000).map(|n| format!("record {n:06}")).collect();
        for text in wanted.iter().rev() {
            sorter.push(text.clone()).unwrap();
        }
        let sorted = sorter.finish().unwrap().set_aside().unwrap();
        let mut first = sorted.read::<String>().unwrap();
        let mut second = sorted.read::<String>().unwrap();
        // The second starts later, then both go on in turn.
        let mut late = Vec::new();
        for _ in 0..5000 {
            late.push(first.next().unwrap().unwrap());
        }
        let mut read = (late, Vec::new());
        loop {
            match (first.next(), second.next()) {
                (None, None) => break,
                (one, two) => {
                    read.0.extend(one.map(Result::unwrap));
                    read.1.extend(two.map(Result::unwrap));
                }
            }
        }
        assert_eq!(read.0, wanted);
        assert_eq!(read.1, wanted);
    }

    #[test]
    fn one_run_is_sorted_in_memory() {
        let mut sorter: Sorter<String> = Sorter::new(1);
        for text in ["b", "a", "c", "a"] {
            sorter.push(text.to_string()).unwrap();
        }
        let merged = sorter.finish().unwrap();
        assert!(merged.runs.is_empty());
        let read: Vec<String> = merged.collect::<Result<_, _>>().unwrap();
        assert_eq!(read, ["a", "b", "c"]);
        assert!(
            Sorted::empty(1)
                .unwrap()
                .read::<String>()
                .unwrap()
                .next()
                .is_none()
        );
    }
}
