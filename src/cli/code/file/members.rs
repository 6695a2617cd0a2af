//! The members the file's roles name, set aside rather than held: each
//! one a record ([`Named`]) sorted outside memory by role, then address
//! in lower case, then place in the role ([`super::super::sorted`]), and
//! read back a role at a time as the checks, the plan and the fingerprint
//! of a saved plan need them. What memory holds of them is a run of the
//! sort while the file is read, whatever the number of members, and the
//! line being read: a list written on one line is held whole while that
//! line is read (the scanner reads a line at a time).

use std::borrow::Cow;
use std::sync::Arc;

use super::Pos;
use crate::cli::code::sorted::{Record, Sorted, Sorter};

/// A member named by the file: the role's place among the file's roles,
/// the address in lower case (the order compared in), its place in the
/// role's list, the address as written, and where it stands.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Named {
    pub role: usize,
    pub lower: String,
    pub place: usize,
    pub written: String,
    pub line: usize,
    pub column: usize,
}

impl Named {
    pub fn new(role: usize, place: usize, written: String, at: Option<Pos>) -> Named {
        let (line, column) = at.map_or((0, 0), |at| (at.line, at.column));
        Named {
            role,
            lower: written.to_lowercase(),
            place,
            written,
            line,
            column,
        }
    }

    /// Where it stands in the file (none for a member of no known place).
    pub fn at(&self) -> Option<Pos> {
        (self.line > 0).then_some(Pos {
            line: self.line,
            column: self.column,
            offset: 0,
        })
    }
}

const FIELDS: usize = 6;

impl Record for Named {
    fn texts(&self) -> Vec<Cow<'_, str>> {
        vec![
            Cow::Owned(self.role.to_string()),
            Cow::Borrowed(self.lower.as_str()),
            Cow::Owned(self.place.to_string()),
            Cow::Borrowed(self.written.as_str()),
            Cow::Owned(self.line.to_string()),
            Cow::Owned(self.column.to_string()),
        ]
    }

    fn from_texts(texts: Vec<String>) -> Option<Self> {
        let [role, lower, place, written, line, column]: [String; FIELDS] = texts.try_into().ok()?;
        Some(Named {
            role: role.parse().ok()?,
            lower,
            place: place.parse().ok()?,
            written,
            line: line.parse().ok()?,
            column: column.parse().ok()?,
        })
    }
}

/// A [`Named`] ordered by address first (lower case), then role and
/// place: the order the organization's members are set aside in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ByAddress(pub Named);

impl Ord for ByAddress {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (&self.0.lower, self.0.role, self.0.place, &self.0.written).cmp(&(
            &other.0.lower,
            other.0.role,
            other.0.place,
            &other.0.written,
        ))
    }
}

impl PartialOrd for ByAddress {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Record for ByAddress {
    fn texts(&self) -> Vec<Cow<'_, str>> {
        self.0.texts()
    }

    fn from_texts(texts: Vec<String>) -> Option<Self> {
        Named::from_texts(texts).map(ByAddress)
    }
}

/// The members being set aside as the file is read.
pub(super) struct Gathering(Sorter<Named>);

impl Default for Gathering {
    fn default() -> Gathering {
        Gathering(Sorter::new(FIELDS))
    }
}

impl Gathering {
    pub(super) fn push(&mut self, named: Named) -> std::io::Result<()> {
        self.0.push(named)
    }

    /// Every member gathered, in order of role, then address.
    pub(super) fn finish(self) -> std::io::Result<RoleMembers> {
        let sorted = self.0.finish()?.set_aside_grouped(|named: &Named| named.role)?;
        Ok(RoleMembers(Some(Arc::new(sorted))))
    }
}

/// The members of the file's roles, set aside: read back a role at a
/// time (by its place among the file's roles), in order of address in
/// lower case, then of place in the role.
#[derive(Debug, Clone, Default)]
pub struct RoleMembers(Option<Arc<Sorted>>);

/// Members read back, one at a time.
pub type Members<'a> = Box<dyn Iterator<Item = std::io::Result<Named>> + 'a>;

impl RoleMembers {
    /// The members of the role at `role` among the file's roles.
    pub fn of(&self, role: usize) -> std::io::Result<Members<'_>> {
        Ok(match &self.0 {
            Some(sorted) => Box::new(sorted.read_group::<Named>(role)?),
            None => Box::new(std::iter::empty()),
        })
    }

    /// Every role's members, role after role.
    pub fn all(&self) -> std::io::Result<Members<'_>> {
        Ok(match &self.0 {
            Some(sorted) => Box::new(sorted.read::<Named>()?),
            None => Box::new(std::iter::empty()),
        })
    }

    /// Each role's members (by place), as a file would name them (tests).
    #[cfg(test)]
    pub fn held(roles: &[&[&str]]) -> RoleMembers {
        let mut gathering = Gathering::default();
        for (role, members) in roles.iter().enumerate() {
            for (place, member) in members.iter().enumerate() {
                gathering
                    .push(Named::new(role, place, member.to_string(), None))
                    .unwrap();
            }
        }
        gathering.finish().unwrap()
    }

    /// The members of `role` as written, in the file's order (tests).
    #[cfg(test)]
    pub fn written(&self, role: usize) -> Vec<String> {
        let mut named: Vec<Named> = self.of(role).unwrap().collect::<Result<_, _>>().unwrap();
        named.sort_by_key(|named| named.place);
        named.into_iter().map(|named| named.written).collect()
    }
}

/// Two readings name the same members, by role, as written and in the
/// same places (where they stand aside); a reading that fails is unequal.
impl PartialEq for RoleMembers {
    fn eq(&self, other: &Self) -> bool {
        let (Ok(mine), Ok(theirs)) = (self.all(), other.all()) else {
            return false;
        };
        let key =
            |named: std::io::Result<Named>| named.map(|named| (named.role, named.place, named.written)).ok();
        mine.map(key).eq(theirs.map(key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_equal_themselves_read_twice_at_once() {
        let names: Vec<String> = (0..5000).map(|n| format!("member{n}@example.com")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let members = RoleMembers::held(&[&names, &names[..10]]);
        assert!(members == members);
        assert!(members == members.clone());
        assert!(members != RoleMembers::held(&[&names]));
        assert_eq!(members.written(1), &names[..10]);
    }
}
