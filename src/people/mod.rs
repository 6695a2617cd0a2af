//! People, not roles: which roles each person of an organization holds,
//! everything that touches one person (`profile`), and taking a person out
//! of it all in one reviewed step (`offboard`, run by `steps`), written as
//! it goes (`journal`) once the key is known to be able to do it all
//! (`session`).
//!
//! PostHog has no endpoint for "the roles of a user": a role lists its
//! memberships. The [`RoleIndex`] reads every role's memberships, a few
//! roles at a time (`memberships`), and turns them round; a view keeps it
//! while it is open. One person's index is read from the members the roles
//! list embeds (`embedded`), in one walk of that list. `people list` keeps
//! less of each membership, only what its rows show ([`LightIndex`],
//! `light`).

mod embedded;
pub mod journal;
pub mod light;
mod memberships;
pub mod offboard;
pub mod profile;
pub mod session;
pub mod steps;

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::api::{Client, RoleMembership};
pub use light::{Keep, LightIndex};
use memberships::Gathering;
pub use memberships::read_roles;

/// Roles whose memberships are read at once.
pub const ROLES_AT_ONCE: usize = 4;

/// Memberships a page: PostHog sets no most (posthog.md 4), and at 100 a
/// page the 180,000 memberships of 90,000 members cost 1,800 requests
/// rather than 180.
pub const MEMBERSHIPS_PAGE: u64 = 1_000;

/// A role, by id and name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RoleRef {
    pub id: String,
    pub name: String,
}

/// A role a person holds, and since when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HeldRole {
    pub id: String,
    pub name: String,
    /// The membership's id: what removing them from the role deletes.
    pub membership_id: String,
    pub joined_at: Option<DateTime<Utc>>,
}

/// Every role of an organization with its members, turned round: the
/// roles of each person.
///
/// Held compactly, as one sorted array of who holds which role (48 bytes a
/// membership, UUIDs as numbers): the index of an organization of 180,000
/// memberships is 8 MiB, not the server's objects.
#[derive(Debug, Clone, Default)]
pub struct RoleIndex {
    /// By name, as people look for them.
    pub roles: Vec<RoleRef>,
    /// Sorted by person, then by role (its place in `roles`).
    held: Vec<Held>,
    /// Ids and user UUIDs that are not UUIDs as [`Compact`] writes them.
    texts: Texts,
    /// Each role's member count, by role id.
    sizes: HashMap<String, usize>,
}

/// One person in one role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Held {
    user: Compact,
    membership: Compact,
    /// Microseconds since the epoch; `i64::MIN` for none.
    joined_at: i64,
    /// Its place in [`RoleIndex::roles`].
    role: u32,
}

/// A user UUID (compared in any case) or a membership id (written back as
/// it came): a UUID as its number where its canonical text gives it back
/// exactly, else the place of its text in [`RoleIndex::texts`].
///
/// Two words rather than a `u128`, which would align the whole [`Held`]
/// to 16 bytes; a text's place is marked by a first word no UUID held as a
/// number has ([`uuid_number`] leaves those as text).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Compact([u64; 2]);

impl Compact {
    fn uuid(number: u128) -> Compact {
        Compact([(number >> 64) as u64, number as u64])
    }

    fn text(place: u32) -> Compact {
        Compact([u64::MAX, u64::from(place)])
    }

    /// The UUID's number, or the text's place.
    fn read(self) -> Result<u128, usize> {
        match self.0 {
            [u64::MAX, place] => Err(usize::try_from(place).unwrap_or(usize::MAX)),
            [high, low] => Ok(u128::from(high) << 64 | u128::from(low)),
        }
    }
}

/// Ids and user UUIDs that are not UUIDs as [`Compact`] writes them,
/// kept as text, each once.
#[derive(Debug, Clone, Default)]
struct Texts {
    texts: Vec<Box<str>>,
    /// The places of `texts`.
    places: HashMap<Box<str>, u32>,
}

impl Texts {
    /// `text` compacted: a UUID as its number where that gives the text
    /// back (or, `any_case`, always), else its place among the texts.
    fn compact(&mut self, text: &str, any_case: bool) -> Compact {
        if let Some(number) = uuid_number(text, any_case) {
            return Compact::uuid(number);
        }
        if let Some(&at) = self.places.get(text) {
            return Compact::text(at);
        }
        let at = u32::try_from(self.texts.len()).unwrap_or(u32::MAX);
        self.texts.push(text.into());
        self.places.insert(text.into(), at);
        Compact::text(at)
    }

    /// `text` compacted where it is a UUID or a text already kept.
    fn find(&self, text: &str, any_case: bool) -> Option<Compact> {
        if let Some(number) = uuid_number(text, any_case) {
            return Some(Compact::uuid(number));
        }
        self.places.get(text).map(|&at| Compact::text(at))
    }

    fn text_of(&self, compact: Compact) -> String {
        match compact.read() {
            Ok(number) => uuid::Uuid::from_u128(number).to_string(),
            Err(at) => self
                .texts
                .get(at)
                .map(|text| text.to_string())
                .unwrap_or_default(),
        }
    }
}

/// The user UUID a membership is of, whichever way the server says it.
pub fn membership_user(membership: &RoleMembership) -> Option<String> {
    membership
        .user
        .as_ref()
        .map(|user| user.uuid.clone())
        .or_else(|| {
            membership
                .organization_member
                .as_ref()
                .map(|member| member.user.uuid.clone())
        })
        .or_else(|| membership.user_uuid.clone())
        .filter(|uuid| !uuid.is_empty())
        .map(|uuid| uuid.to_lowercase())
}

impl RoleIndex {
    /// Reads the roles, then each role's memberships, `ROLES_AT_ONCE` roles
    /// at a time; `progress` hears (roles read, roles in all).
    pub async fn load(
        client: &Client,
        organization: &str,
        progress: &(dyn Fn(usize, usize) + Send + Sync),
    ) -> crate::api::error::Result<RoleIndex> {
        RoleIndex::read(client, organization, None, progress).await
    }

    /// [`RoleIndex::load`] keeping the memberships of one user alone (a
    /// person's page, an offboarding): every role's memberships are still
    /// read whole, and its size known, but what is held is theirs. They
    /// are read from the members the roles list embeds (`embedded`), in
    /// one walk of that list, or where a role comes without them, as
    /// [`RoleIndex::load`] reads them.
    pub async fn load_of(
        client: &Client,
        organization: &str,
        user_uuid: &str,
        progress: &(dyn Fn(usize, usize) + Send + Sync),
    ) -> crate::api::error::Result<RoleIndex> {
        let user = user_uuid.to_lowercase();
        RoleIndex::read(client, organization, Some(&user), progress).await
    }

    async fn read(
        client: &Client,
        organization: &str,
        only: Option<&str>,
        progress: &(dyn Fn(usize, usize) + Send + Sync),
    ) -> crate::api::error::Result<RoleIndex> {
        // One person's roles: from the members each role of the list
        // embeds, read once as they arrive, when the server embeds them.
        if let Some(user) = only
            && let Some(index) = embedded::index_of(client, organization, user, progress).await?
        {
            return Ok(index);
        }
        let roles = read_roles(client, organization).await?;
        let building = Full {
            index: RoleIndex {
                roles: roles.clone(),
                ..RoleIndex::default()
            },
            only,
        };
        let mut index = memberships::gather(client, organization, roles, None, building, progress)
            .await?
            .index;
        index.sort();
        Ok(index)
    }

    /// One membership of the role at `place`, as its page is read.
    fn push(&mut self, role: u32, user_uuid: &str, membership_id: &str, joined_at: Option<DateTime<Utc>>) {
        let held = Held {
            user: self.user_key(user_uuid),
            membership: self.compact(membership_id, false),
            joined_at: joined_at.map_or(i64::MIN, |at| at.timestamp_micros()),
            role,
        };
        self.held.push(held);
    }

    /// A role's memberships, read whole (a person missing from them would
    /// be taken for someone not in the role): `kept` of the `pushed` it
    /// added are those of its last read, and the others, of reads started
    /// again when the list changed as it was read, the role's first in
    /// the order they came, are let go; `size` is its last read's
    /// memberships, held or not. The held roles are sorted once all are in.
    fn settle(&mut self, role_id: &str, role: u32, pushed: usize, kept: usize, size: usize) {
        self.sizes.insert(role_id.to_string(), size);
        let mut stale = pushed.saturating_sub(kept);
        if stale > 0 {
            self.held.retain(|held| {
                let gone = held.role == role && stale > 0;
                stale -= usize::from(gone);
                !gone
            });
        }
    }

    /// A role's memberships, each (user UUID, membership id, when it
    /// began), as a read adds them.
    #[cfg(test)]
    fn add(&mut self, role_id: &str, memberships: &[(&str, &str, Option<DateTime<Utc>>)]) {
        let role = self.place_of(role_id, "");
        for (user, membership, joined_at) in memberships {
            self.push(role, user, membership, *joined_at);
        }
        self.settle(
            role_id,
            role,
            memberships.len(),
            memberships.len(),
            memberships.len(),
        );
    }

    /// Sorts the held roles once every role's are in.
    fn sort(&mut self) {
        self.held.sort_unstable_by_key(|held| (held.user, held.role));
        self.held.shrink_to_fit();
    }

    /// The place of the role in `roles`, added (with `name`) if it is not
    /// there.
    fn place_of(&mut self, role_id: &str, name: &str) -> u32 {
        let at = match self.roles.iter().position(|role| role.id == role_id) {
            Some(at) => at,
            None => {
                self.roles.push(RoleRef {
                    id: role_id.to_string(),
                    name: name.to_string(),
                });
                self.roles.len() - 1
            }
        };
        u32::try_from(at).unwrap_or(u32::MAX)
    }

    /// A user UUID as the index keys it (any case).
    fn user_key(&mut self, user_uuid: &str) -> Compact {
        self.compact(&user_uuid.to_lowercase(), true)
    }

    /// `text` compacted ([`Texts::compact`]).
    fn compact(&mut self, text: &str, any_case: bool) -> Compact {
        self.texts.compact(text, any_case)
    }

    /// The key of a user UUID already in the index, without adding it.
    fn find_user(&self, user_uuid: &str) -> Option<Compact> {
        self.texts.find(&user_uuid.to_lowercase(), true)
    }

    fn text_of(&self, compact: Compact) -> String {
        self.texts.text_of(compact)
    }

    /// The held roles of a user, in the array.
    fn range_of(&self, user: Compact) -> std::ops::Range<usize> {
        let start = self.held.partition_point(|held| held.user < user);
        let end = self.held.partition_point(|held| held.user <= user);
        start..end
    }

    /// The roles a person (by user UUID) holds, by name.
    pub fn of(&self, user_uuid: &str) -> Vec<HeldRole> {
        let Some(user) = self.find_user(user_uuid) else {
            return Vec::new();
        };
        let mut roles: Vec<HeldRole> = self.held[self.range_of(user)]
            .iter()
            .map(|held| {
                let role = self.roles.get(held.role as usize);
                HeldRole {
                    id: role.map(|role| role.id.clone()).unwrap_or_default(),
                    name: role.map(|role| role.name.clone()).unwrap_or_default(),
                    membership_id: self.text_of(held.membership),
                    joined_at: (held.joined_at != i64::MIN)
                        .then(|| DateTime::from_timestamp_micros(held.joined_at))
                        .flatten(),
                }
            })
            .collect();
        roles.sort_by_key(|role| role.name.to_lowercase());
        roles
    }

    /// Whether a person (by user UUID) holds any role.
    pub fn holds_any(&self, user_uuid: &str) -> bool {
        self.find_user(user_uuid)
            .is_some_and(|user| !self.range_of(user).is_empty())
    }

    /// A role by its id or its name (any case).
    pub fn role(&self, id_or_name: &str) -> Option<&RoleRef> {
        find_role(&self.roles, id_or_name)
    }

    /// How many people hold the role.
    pub fn size(&self, role_id: &str) -> usize {
        self.sizes.get(role_id).copied().unwrap_or_default()
    }

    /// A person joined a role (a membership made since the index was
    /// read): the index says so without being read again.
    pub fn joined(&mut self, user_uuid: &str, held: HeldRole) {
        let user = self.user_key(user_uuid);
        let role = self.place_of(&held.id, &held.name);
        let range = self.range_of(user);
        if self.held[range.clone()].iter().any(|known| known.role == role) {
            return;
        }
        *self.sizes.entry(held.id.clone()).or_default() += 1;
        let entry = Held {
            user,
            membership: self.compact(&held.membership_id, false),
            joined_at: held.joined_at.map_or(i64::MIN, |at| at.timestamp_micros()),
            role,
        };
        let at = range.start + self.held[range].partition_point(|known| known.role < role);
        self.held.insert(at, entry);
    }

    /// A membership (by its id) was deleted since the index was read.
    pub fn left(&mut self, membership_id: &str) {
        let Some(membership) = self.texts.find(membership_id, false) else {
            return;
        };
        let roles = &self.roles;
        let sizes = &mut self.sizes;
        self.held.retain(|held| {
            if held.membership != membership {
                return true;
            }
            if let Some(size) = roles
                .get(held.role as usize)
                .and_then(|role| sizes.get_mut(&role.id))
            {
                *size = size.saturating_sub(1);
            }
            false
        });
    }

    /// People (user UUIDs) holding at least one role.
    pub fn people_with_a_role(&self) -> usize {
        let mut people = 0;
        let mut last = None;
        for held in &self.held {
            if last != Some(held.user) {
                people += 1;
                last = Some(held.user);
            }
        }
        people
    }
}

/// What the full index keeps as the memberships are read: everyone's, or
/// those of the user `only` names (in lower case).
#[derive(Debug, Default)]
struct Full<'a> {
    index: RoleIndex,
    only: Option<&'a str>,
}

impl Gathering for Full<'_> {
    fn push(&mut self, role: u32, user: &str, membership: &RoleMembership) -> u8 {
        if self.only.is_some_and(|only| only != user) {
            return 0;
        }
        self.index.push(role, user, &membership.id, membership.joined_at);
        HELD_BYTES
    }

    fn settle(&mut self, role_id: &str, role: u32, pushed: usize, kept: usize, size: usize) {
        self.index.settle(role_id, role, pushed, kept, size);
    }
}

/// What the full index holds of a membership: its [`Held`].
const HELD_BYTES: u8 = {
    assert!(std::mem::size_of::<Held>() <= u8::MAX as usize);
    std::mem::size_of::<Held>() as u8
};

/// A role by its id or its name (any case), among `roles`.
pub fn find_role<'a>(roles: &'a [RoleRef], id_or_name: &str) -> Option<&'a RoleRef> {
    let wanted = id_or_name.trim();
    roles.iter().find(|role| role.id == wanted).or_else(|| {
        roles
            .iter()
            .find(|role| role.name.to_lowercase() == wanted.to_lowercase())
    })
}

/// The number of a UUID written as `text`: canonical text alone (lower
/// case, hyphens), or, `any_case`, in upper case too.
pub(crate) fn uuid_number(text: &str, any_case: bool) -> Option<u128> {
    if text.len() != 36 {
        return None;
    }
    let uuid = uuid::Uuid::try_parse(text).ok()?;
    let canonical = uuid.hyphenated().to_string();
    let same = if any_case {
        canonical.eq_ignore_ascii_case(text)
    } else {
        canonical == text
    };
    // A first word of all ones marks a text's place (`Compact::text`).
    (same && uuid.as_u128() >> 64 != u128::from(u64::MAX)).then(|| uuid.as_u128())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{OrganizationMember, User};

    fn membership<'a>(id: &'a str, user: &'a str) -> (&'a str, &'a str, Option<DateTime<Utc>>) {
        (user, id, None)
    }

    #[test]
    fn a_role_read_again_keeps_only_its_last_reads_memberships() {
        let mut index = RoleIndex::default();
        let (r1, r2) = (index.place_of("r1", "One"), index.place_of("r2", "Two"));
        // The first read of r1 saw the list change after two; another
        // role's pages came in between; the second read saw all three.
        index.push(r1, "u1", "m1", None);
        index.push(r2, "u1", "m9", None);
        index.push(r1, "u2", "m2", None);
        for (user, membership) in [("u3", "m3"), ("u1", "m1"), ("u2", "m2")] {
            index.push(r1, user, membership, None);
        }
        index.settle("r1", r1, 5, 3, 3);
        index.settle("r2", r2, 1, 1, 1);
        index.sort();
        assert_eq!(index.size("r1"), 3);
        assert_eq!(index.held.len(), 4);
        let names =
            |user: &str| -> Vec<String> { index.of(user).into_iter().map(|held| held.name).collect() };
        assert_eq!(names("u1"), ["One", "Two"]);
        assert_eq!(names("u2"), ["One"]);
        assert_eq!(names("u3"), ["One"]);
    }

    #[test]
    fn memberships_turn_round_into_roles_per_person() {
        let mut index = RoleIndex {
            roles: vec![
                RoleRef {
                    id: "r2".into(),
                    name: "alpha".into(),
                },
                RoleRef {
                    id: "r1".into(),
                    name: "Zeta".into(),
                },
            ],
            ..RoleIndex::default()
        };
        index.add("r1", &[membership("m1", "U1"), membership("m2", "u2")]);
        index.add("r2", &[membership("m3", "u1")]);
        index.sort();
        assert_eq!(index.of("u1").len(), 2);
        assert_eq!(index.of("U2")[0].membership_id, "m2");
        assert!(index.of("u3").is_empty());
        assert_eq!(index.size("r1"), 2);
        assert_eq!(index.people_with_a_role(), 2);
        assert_eq!(index.role("ALPHA").map(|role| role.id.as_str()), Some("r2"));
        assert_eq!(index.role("r1").map(|role| role.name.as_str()), Some("Zeta"));
        index.joined(
            "U3",
            HeldRole {
                id: "r2".into(),
                name: "alpha".into(),
                membership_id: "m4".into(),
                joined_at: None,
            },
        );
        assert_eq!((index.of("u3").len(), index.size("r2")), (1, 2));
        index.left("m4");
        index.left("m2");
        assert!(index.of("u3").is_empty() && index.of("u2").is_empty());
        assert_eq!(
            (index.size("r1"), index.size("r2"), index.people_with_a_role()),
            (1, 1, 1)
        );
    }

    #[test]
    fn uuids_are_held_as_numbers_and_come_back_as_they_came() {
        let mut index = RoleIndex {
            roles: vec![RoleRef {
                id: "r".into(),
                name: "R".into(),
            }],
            ..RoleIndex::default()
        };
        let user = "0190A5B2-1C3D-7E4F-8A9B-0C1D2E3F4A5B";
        let canonical = "0190a5b2-1c3d-7e4f-8a9b-0c1d2e3f4a5c";
        let upper = "0190A5B2-1C3D-7E4F-8A9B-0C1D2E3F4A5D";
        let at = DateTime::parse_from_rfc3339("2026-11-20T09:00:00.123456Z")
            .unwrap()
            .to_utc();
        index.add("r", &[(user, canonical, Some(at)), ("not-a-uuid", upper, None)]);
        index.sort();
        assert!(index.held[0].user.read().is_ok());
        assert_eq!(
            uuid_number("ffffffff-ffff-ffff-0000-000000000000", false),
            None,
            "held as text"
        );
        assert_eq!(std::mem::size_of::<Held>(), 48);
        let held = index.of(user);
        assert_eq!(held.len(), 1);
        assert_eq!(
            (held[0].membership_id.as_str(), held[0].joined_at),
            (canonical, Some(at))
        );
        assert!(index.holds_any(&user.to_lowercase()) && !index.holds_any("nobody"));
        assert_eq!(index.of("NOT-A-UUID")[0].membership_id, upper, "kept as it came");
        index.left(upper);
        assert!(!index.holds_any("not-a-uuid"));
        assert_eq!(index.size("r"), 1);
    }

    #[test]
    fn a_membership_names_its_user_in_any_of_three_ways() {
        let nested = RoleMembership {
            organization_member: Some(OrganizationMember {
                user: User {
                    uuid: "A".into(),
                    ..User::default()
                },
                ..OrganizationMember::default()
            }),
            ..RoleMembership::default()
        };
        assert_eq!(membership_user(&nested).as_deref(), Some("a"));
        let bare = RoleMembership {
            user_uuid: Some("b".into()),
            ..RoleMembership::default()
        };
        assert_eq!(membership_user(&bare).as_deref(), Some("b"));
        assert_eq!(membership_user(&RoleMembership::default()), None);
    }
}
