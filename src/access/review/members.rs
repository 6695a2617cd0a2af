//! The organization's members as the review holds them: set aside in
//! owner-only temporary files (unnamed, gone when closed) and read back in
//! the review's order (e-mail address in any case, then membership id),
//! with only compact indexes in memory: each member's membership id (and,
//! while the roles are read, user uuid) as a number beside their place,
//! and the roles they hold as places in the directory's roles: some 30
//! bytes a member and 4 a role held, whatever their names and addresses.
//!
//! The members arrive in the server's order; they are sorted a run of
//! [`RUN`] at a time, each run set aside, and the runs merged into the
//! review's order (an external merge sort: memory holds one run, then a
//! member of each run).

use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, HashMap};
use std::io::{BufRead, BufReader, BufWriter, Seek, SeekFrom, Write};

use crate::access::directory::{Person, RoleMember};

/// Members sorted in memory at once before they are set aside.
const RUN: usize = 8_192;

/// An id as the index holds it: a UUID (as the server writes it, in lower
/// case) as its number, any other text by its place among [`Keys`]' texts
/// (marked by a first word no UUID held as a number has).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Key([u64; 2]);

/// The ids that are not UUIDs, each once (a server of ours sends none).
#[derive(Default)]
struct Keys {
    places: HashMap<Box<str>, u32>,
}

impl Keys {
    fn number(text: &str) -> Option<Key> {
        crate::people::uuid_number(text, false).map(|number| Key([(number >> 64) as u64, number as u64]))
    }

    fn key(&mut self, text: &str) -> Key {
        if let Some(key) = Keys::number(text) {
            return key;
        }
        let next = u32::try_from(self.places.len()).unwrap_or(u32::MAX);
        let place = *self.places.entry(text.into()).or_insert(next);
        Key([u64::MAX, u64::from(place)])
    }

    fn find(&self, text: &str) -> Option<Key> {
        Keys::number(text).or_else(|| {
            self.places
                .get(text)
                .map(|place| Key([u64::MAX, u64::from(*place)]))
        })
    }
}

/// The review's order of two members, by their lowercased addresses.
fn order(a: (&str, &Person), b: (&str, &Person)) -> Ordering {
    a.0.cmp(b.0)
        .then_with(|| a.1.membership_id.cmp(&b.1.membership_id))
}

/// Members as they arrive, set aside a sorted run at a time.
pub struct Gathering {
    run: Vec<Person>,
    runs: Vec<std::fs::File>,
    /// Members pushed.
    people: usize,
    /// Members a run holds.
    run_size: usize,
}

impl Gathering {
    pub fn new() -> Gathering {
        Gathering::with_runs_of(RUN)
    }

    fn with_runs_of(run_size: usize) -> Gathering {
        Gathering {
            run: Vec::new(),
            runs: Vec::new(),
            people: 0,
            run_size: run_size.max(1),
        }
    }

    pub fn push(&mut self, person: Person) -> std::io::Result<()> {
        self.run.push(person);
        self.people += 1;
        if self.run.len() >= self.run_size {
            self.set_aside()?;
        }
        Ok(())
    }

    fn set_aside(&mut self) -> std::io::Result<()> {
        if self.run.is_empty() {
            return Ok(());
        }
        let mut run: Vec<(String, Person)> = std::mem::take(&mut self.run)
            .into_iter()
            .map(|person| (person.email.to_lowercase(), person))
            .collect();
        run.sort_by(|a, b| order((&a.0, &a.1), (&b.0, &b.1)));
        let mut file = BufWriter::new(tempfile::tempfile()?);
        for (_, person) in &run {
            serde_json::to_writer(&mut file, person)?;
            file.write_all(b"\n")?;
        }
        let mut file = file.into_inner().map_err(|error| error.into_error())?;
        file.seek(SeekFrom::Start(0))?;
        self.runs.push(file);
        Ok(())
    }

    /// Merges the runs into the review's order (a member listed twice
    /// kept once), indexing each by membership id and user uuid.
    pub fn finish(mut self) -> std::io::Result<Members> {
        self.set_aside()?;
        let mut runs: Vec<Runs> = self.runs.into_iter().map(Runs::new).collect();
        let mut heads: Vec<Option<Person>> = Vec::with_capacity(runs.len());
        let mut queue = BinaryHeap::new();
        for (at, run) in runs.iter_mut().enumerate() {
            let head = run.next().transpose()?;
            if let Some(person) = &head {
                queue.push(Reverse((
                    person.email.to_lowercase(),
                    person.membership_id.clone(),
                    at,
                )));
            }
            heads.push(head);
        }
        let mut keys = Keys::default();
        let total = self.people;
        let mut memberships: Vec<(Packed, u32)> = Vec::with_capacity(total);
        let mut users: Vec<(Packed, u32)> = Vec::with_capacity(total);
        let mut file = BufWriter::new(tempfile::tempfile()?);
        let mut last: Option<String> = None;
        let mut count = 0u32;
        while let Some(Reverse((_, _, at))) = queue.pop() {
            let Some(person) = heads[at].take() else {
                continue;
            };
            let next = runs[at].next().transpose()?;
            if let Some(next) = &next {
                queue.push(Reverse((
                    next.email.to_lowercase(),
                    next.membership_id.clone(),
                    at,
                )));
            }
            heads[at] = next;
            if last.as_deref() == Some(person.membership_id.as_str()) {
                continue;
            }
            memberships.push((packed(keys.key(&person.membership_id)), count));
            users.push((packed(keys.key(&person.user_uuid)), count));
            serde_json::to_writer(&mut file, &person)?;
            file.write_all(b"\n")?;
            count = count
                .checked_add(1)
                .ok_or_else(|| std::io::Error::other("more than 4 billion members"))?;
            last = Some(person.membership_id);
        }
        let memberships = Index::of(memberships);
        let users = Index::of(users);
        Ok(Members {
            file: file.into_inner().map_err(|error| error.into_error())?,
            count: count as usize,
            keys,
            memberships,
            users,
            role_starts: Vec::new(),
            roles: Vec::new(),
        })
    }
}

impl Default for Gathering {
    fn default() -> Self {
        Gathering::new()
    }
}

/// A run of members set aside, read back one at a time.
struct Runs {
    lines: std::io::Lines<BufReader<std::fs::File>>,
}

impl Runs {
    fn new(file: std::fs::File) -> Runs {
        Runs {
            lines: BufReader::new(file).lines(),
        }
    }
}

impl Iterator for Runs {
    type Item = std::io::Result<Person>;

    fn next(&mut self) -> Option<Self::Item> {
        let line = self.lines.next()?;
        Some(line.and_then(|line| serde_json::from_str(&line).map_err(std::io::Error::other)))
    }
}

/// The members, in the review's order, set aside and indexed.
pub struct Members {
    file: std::fs::File,
    count: usize,
    keys: Keys,
    /// Membership ids and their members' places.
    memberships: Index,
    /// User uuids likewise, until the roles are held.
    users: Index,
    /// Where each member's roles start in `roles`, and where the last ends.
    role_starts: Vec<u32>,
    /// Places in the directory's roles, each member's in the roles' order.
    roles: Vec<u32>,
}

/// Ids and the places of their members, by id: 20 bytes an id (a place
/// last among one id's: the last such member wins, as a map would have it),
/// sorted where they were gathered, never copied.
#[derive(Default)]
struct Index {
    entries: Vec<(Packed, u32)>,
}

/// A [`Key`] in 4-byte words, high first (the same order), so that an
/// entry of an [`Index`] takes 20 bytes, not 24.
type Packed = [u32; 4];

fn packed(Key([high, low]): Key) -> Packed {
    [(high >> 32) as u32, high as u32, (low >> 32) as u32, low as u32]
}

impl Index {
    fn of(mut entries: Vec<(Packed, u32)>) -> Index {
        entries.sort_unstable();
        Index { entries }
    }

    /// The place of the last entry with `key`.
    fn place(&self, key: Key) -> Option<usize> {
        let key = packed(key);
        let end = self.entries.partition_point(|(at, _)| *at <= key);
        let at = end.checked_sub(1)?;
        match self.entries.get(at) {
            Some((found, place)) if *found == key => Some(*place as usize),
            _ => None,
        }
    }
}

impl Members {
    /// How many members there are.
    pub fn count(&self) -> usize {
        self.count
    }

    /// The place of the member with this membership id (any case).
    pub fn position(&self, membership_id: &str) -> Option<usize> {
        let key = self.keys.find(&membership_id.to_lowercase())?;
        self.memberships.place(key)
    }

    /// The places of the members a role's member is: by membership id,
    /// and by user uuid (the two may name two members, or one twice).
    pub fn holders(&self, member: &RoleMember) -> impl Iterator<Item = usize> + '_ {
        let by_membership = member
            .membership_id
            .as_deref()
            .and_then(|id| self.memberships.place(self.keys.find(id)?));
        let by_user = member
            .user_uuid
            .as_deref()
            .and_then(|uuid| self.users.place(self.keys.find(uuid)?))
            .filter(|place| Some(*place) != by_membership);
        by_membership.into_iter().chain(by_user)
    }

    /// Holds the roles each member holds, from (member's place, role's
    /// place) pairs; the user uuids, needed only to find them, are let go.
    pub fn set_roles(&mut self, mut held: Vec<(u32, u32)>) {
        // Let go first: the most held at once is then the pairs and the
        // starts, never the user uuids beside them.
        self.users = Index::default();
        held.sort_unstable();
        held.dedup();
        // Pairs of members past the last (none come from `holders`) are
        // dropped, as they always were.
        held.retain(|(at, _)| (*at as usize) < self.count);
        let mut starts = Vec::with_capacity(self.count + 1);
        let mut pairs = held.iter().peekable();
        let mut taken = 0u32;
        for position in 0..self.count {
            starts.push(taken);
            while pairs.next_if(|(at, _)| *at as usize == position).is_some() {
                taken = taken.saturating_add(1);
            }
        }
        starts.push(taken);
        self.role_starts = starts;
        // In place: the pairs' room becomes the roles' (the same
        // alignment), then shrinks to them.
        let mut roles: Vec<u32> = held.into_iter().map(|(_, role)| role).collect();
        roles.shrink_to_fit();
        self.roles = roles;
    }

    /// The places in the directory's roles of the roles the member at
    /// `position` holds, in the roles' order.
    pub fn roles_of(&self, position: usize) -> &[u32] {
        let (Some(start), Some(end)) = (self.role_starts.get(position), self.role_starts.get(position + 1))
        else {
            return &[];
        };
        self.roles.get(*start as usize..*end as usize).unwrap_or_default()
    }

    /// The members in the review's order, read back from the start (one
    /// reading at a time: they share the file's place).
    pub fn read(&self) -> std::io::Result<impl Iterator<Item = std::io::Result<Person>> + use<>> {
        let mut file = self.file.try_clone()?;
        file.seek(SeekFrom::Start(0))?;
        Ok(Runs::new(file).take(self.count))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn person(email: &str, membership_id: &str, user_uuid: &str) -> Person {
        Person {
            membership_id: membership_id.into(),
            user_uuid: user_uuid.into(),
            email: email.into(),
            name: format!("name of {email}"),
            level: 1,
            last_login: None,
        }
    }

    fn uuid(n: u32) -> String {
        format!("00000000-0000-4000-8000-{n:012x}")
    }

    #[test]
    fn runs_merge_into_the_reviews_order_each_member_once() {
        // 50 members in runs of 7, in a scrambled order, one listed twice,
        // one with ids that are not UUIDs.
        let mut gathering = Gathering::with_runs_of(7);
        let mut order: Vec<u32> = (0..50).collect();
        order.sort_by_key(|n| (n * 37) % 50);
        for n in &order {
            let email = if n % 2 == 0 {
                format!("User{n:02}@x.dev")
            } else {
                format!("user{n:02}@x.dev")
            };
            gathering
                .push(person(&email, &uuid(*n), &uuid(1000 + n)))
                .unwrap();
        }
        gathering
            .push(person("user07@x.dev", &uuid(7), &uuid(1007)))
            .unwrap();
        gathering
            .push(person("odd@x.dev", "m-not-a-uuid", "u-not-a-uuid"))
            .unwrap();
        let mut members = gathering.finish().unwrap();
        assert_eq!(members.count(), 51);
        let read: Vec<Person> = members.read().unwrap().map(Result::unwrap).collect();
        let emails: Vec<String> = read.iter().map(|person| person.email.to_lowercase()).collect();
        let mut sorted = emails.clone();
        sorted.sort();
        assert_eq!(emails, sorted, "by address in any case");
        assert_eq!(emails[0], "odd@x.dev");
        assert_eq!(members.position(&uuid(7).to_uppercase()), Some(8));
        assert_eq!(members.position("m-not-a-uuid"), Some(0));
        assert_eq!(members.position(&uuid(99)), None);
        // Roles by membership id or user uuid, each once, in the roles' order.
        let holder = |membership: Option<&str>, user: Option<&str>| RoleMember {
            membership_id: membership.map(str::to_string),
            user_uuid: user.map(str::to_string),
            email: String::new(),
            name: String::new(),
        };
        let mut held = Vec::new();
        for (role, member) in [
            (1, holder(Some(&uuid(7)), Some(&uuid(1007)))),
            (0, holder(None, Some(&uuid(1007)))),
            (0, holder(Some(&uuid(7)), None)),
            (2, holder(None, Some("u-not-a-uuid"))),
            (2, holder(Some(&uuid(98)), None)),
        ] {
            for position in members.holders(&member) {
                held.push((position as u32, role));
            }
        }
        members.set_roles(held);
        assert_eq!(members.roles_of(8), [0, 1]);
        assert_eq!(members.roles_of(0), [2]);
        assert!(members.roles_of(1).is_empty());
        assert!(members.roles_of(51).is_empty());
        // Read again from the start.
        assert_eq!(members.read().unwrap().count(), 51);
    }
}
