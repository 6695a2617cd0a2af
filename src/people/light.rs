//! The light index: which roles each person holds and nothing more, for
//! `people list`, which prints a row of each member as the members' pages
//! come.
//!
//! Where the full [`RoleIndex`](super::RoleIndex) keeps 48 bytes a
//! membership (its id and when it began, for an offboarding), this keeps
//! 20 (the user's UUID as a number, the role's place), built straight from
//! the memberships' pages, and less where less is asked ([`Keep`]): for the
//! people in no role, who holds any, 16 bytes a person (and a membership
//! while its role is read, as the budget counts it); for the members of
//! one role, their memberships alone once that role is read (it is read
//! among the first). What the command's budget (`--max-held-mib`) counts
//! of each membership is what is kept of it as it is read, and it is not
//! given back when that is later let go (a second role of someone already
//! among the holders, a pair read before the one role was): the count is
//! an upper bound of what is held.

use super::memberships::{self, Gathering};
use super::{Compact, RoleRef, Texts};
use crate::api::{Client, RoleMembership};

/// Whose roles a [`LightIndex`] keeps.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Keep {
    /// Everyone's.
    #[default]
    Everyone,
    /// None: who holds any role, for the people in none.
    Holders,
    /// Those of the members of this role (its id).
    MembersOf(String),
}

/// A user as the light index keys them: a [`Compact`] in four words, so
/// that a (user, role) is 20 bytes, not aligned to 24. The words in order
/// sort as the [`Compact`] does.
type Key = [u32; 4];

fn key(compact: Compact) -> Key {
    let [high, low] = compact.0;
    [(high >> 32) as u32, high as u32, (low >> 32) as u32, low as u32]
}

/// One person in one role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Pair {
    user: Key,
    /// Its place in [`LightIndex::roles`].
    role: u32,
}

/// The pairs, in runs that never move once made, each twice as long as
/// the one before: growing copies nothing and leaves no array behind
/// (a vector that doubles leaves the memory of those it outgrew, which the
/// allocator may keep: twice the pairs at the peak), and a person's pairs
/// are found in a few runs, as many as the doublings.
#[derive(Debug, Default)]
struct Runs {
    runs: Vec<Vec<Pair>>,
}

/// The first run's pairs.
const FIRST_RUN: usize = 4096;

impl Runs {
    fn push(&mut self, pair: Pair) {
        match self.runs.last_mut() {
            Some(run) if run.len() < run.capacity() => run.push(pair),
            last => {
                let capacity = last.map_or(FIRST_RUN, |run| run.capacity().saturating_mul(2));
                let mut run = Vec::with_capacity(capacity);
                run.push(pair);
                self.runs.push(run);
            }
        }
    }

    /// Keeps the pairs `keep` says, in the order they were pushed.
    fn retain(&mut self, mut keep: impl FnMut(&Pair) -> bool) {
        for run in &mut self.runs {
            run.retain(&mut keep);
        }
    }

    fn iter(&self) -> impl Iterator<Item = &Pair> {
        self.runs.iter().flatten()
    }

    /// Sorts each run by person, then role, once all are in.
    fn sort(&mut self) {
        for run in &mut self.runs {
            run.sort_unstable();
        }
    }

    /// The places of the roles `user` holds, in order (as one sorted
    /// array of every pair gives them).
    fn of(&self, user: Key) -> Vec<u32> {
        let mut places: Vec<u32> = Vec::new();
        for run in &self.runs {
            let start = run.partition_point(|pair| pair.user < user);
            let end = run.partition_point(|pair| pair.user <= user);
            places.extend(run[start..end].iter().map(|pair| pair.role));
        }
        places.sort_unstable();
        places
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.runs.iter().map(Vec::len).sum()
    }

    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Whose roles are kept, by the roles' places.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Kept {
    #[default]
    Everyone,
    Holders,
    /// The members of the role at this place (none where it is no role's).
    MembersOf(Option<u32>),
}

/// The roles of each person as [`Keep`] asks, and nothing more.
#[derive(Debug, Default)]
pub struct LightIndex {
    /// By name (any case), then id, as [`memberships::read_roles`] gives them.
    roles: Vec<RoleRef>,
    kept: Kept,
    /// Who holds which role, each run sorted by person, then role, once
    /// all are in (each membership, as the full index has them); none for
    /// [`Keep::Holders`].
    pairs: Runs,
    /// Sorted, each once: for [`Keep::Holders`], who holds a role; for
    /// [`Keep::MembersOf`], the members of that role once it is read.
    people: Vec<Key>,
    /// [`Keep::MembersOf`]: that role is read, `people` are its members.
    known: bool,
    /// [`Keep::MembersOf`], by place: the roles read whole, and those
    /// with pairs of people who may not be its members (read before it
    /// was), narrowed once both are read whole.
    settled: Vec<bool>,
    wide: Vec<bool>,
    /// [`Keep::Holders`]: each role's users as its read gives them (by its
    /// place), until it is read whole.
    reading: Vec<Vec<Key>>,
    /// User ids that are not UUIDs, kept as text.
    texts: Texts,
}

impl LightIndex {
    /// The memberships of each of `roles` ([`memberships::read_roles`]'s),
    /// `ROLES_AT_ONCE` roles at a time, keeping what `keep` asks;
    /// `progress` hears (roles read, roles in all).
    pub async fn load(
        client: &Client,
        organization: &str,
        roles: Vec<RoleRef>,
        keep: Keep,
        progress: &(dyn Fn(usize, usize) + Send + Sync),
    ) -> crate::api::error::Result<LightIndex> {
        let index = LightIndex::new(roles, &keep);
        let first = match index.kept {
            Kept::MembersOf(Some(place)) => Some(place as usize),
            _ => None,
        };
        let roles = index.roles.clone();
        let mut index = memberships::gather(client, organization, roles, first, index, progress).await?;
        index.sort();
        Ok(index)
    }

    fn new(roles: Vec<RoleRef>, keep: &Keep) -> LightIndex {
        let kept = match keep {
            Keep::Everyone => Kept::Everyone,
            Keep::Holders => Kept::Holders,
            Keep::MembersOf(id) => Kept::MembersOf(
                roles
                    .iter()
                    .position(|role| &role.id == id)
                    .and_then(|place| u32::try_from(place).ok()),
            ),
        };
        LightIndex {
            reading: match kept {
                Kept::Holders => vec![Vec::new(); roles.len()],
                _ => Vec::new(),
            },
            settled: vec![false; roles.len()],
            wide: vec![false; roles.len()],
            roles,
            kept,
            // A role that is no role's has no members, known from the start.
            known: kept == Kept::MembersOf(None),
            ..LightIndex::default()
        }
    }

    /// The roles of the person with `user_uuid` (any case) as a row of
    /// theirs shows them, by name (the order of `roles`, as the full
    /// index gives them); `None` where what it keeps leaves them out: for
    /// [`Keep::Holders`], someone who holds a role, for
    /// [`Keep::MembersOf`], someone not in that role (the others have no
    /// roles to show).
    pub fn listed(&self, user_uuid: &str) -> Option<Vec<RoleRef>> {
        let user = self.texts.find(&user_uuid.to_lowercase(), true).map(key);
        let places = user.map(|user| self.pairs.of(user)).unwrap_or_default();
        let roles = || -> Vec<RoleRef> {
            places
                .iter()
                .filter_map(|&place| self.roles.get(place as usize).cloned())
                .collect()
        };
        match self.kept {
            Kept::Everyone => Some(roles()),
            Kept::Holders => (!user.is_some_and(|user| self.among(user))).then(Vec::new),
            Kept::MembersOf(role) => places.iter().any(|&place| Some(place) == role).then(roles),
        }
    }

    /// Sorts the pairs once every role's are in.
    fn sort(&mut self) {
        self.pairs.sort();
        self.people.shrink_to_fit();
        self.reading = Vec::new();
        self.settled = Vec::new();
        self.wide = Vec::new();
    }

    /// Whether `user` is among `people`.
    fn among(&self, user: Key) -> bool {
        self.people.binary_search(&user).is_ok()
    }
}

/// What is kept of a membership, in bytes.
const PAIR_BYTES: u8 = std::mem::size_of::<Pair>() as u8;
const KEY_BYTES: u8 = std::mem::size_of::<Key>() as u8;
// The casts above keep every bit: both sizes are small.
const _: () = assert!(std::mem::size_of::<Pair>() == 20 && std::mem::size_of::<Key>() == 16);

impl Gathering for LightIndex {
    fn push(&mut self, role: u32, user: &str, _membership: &RoleMembership) -> u8 {
        if self.kept == Kept::Holders {
            let user = key(self.texts.compact(user, true));
            return match self.reading.get_mut(role as usize) {
                Some(read) => {
                    read.push(user);
                    KEY_BYTES
                }
                None => 0,
            };
        }
        let user = match self.kept {
            // Once the role is read, those not in it are passed over.
            Kept::MembersOf(_) if self.known => match self.texts.find(user, true).map(key) {
                Some(user) if self.among(user) => user,
                _ => return 0,
            },
            Kept::MembersOf(_) => {
                if let Some(wide) = self.wide.get_mut(role as usize) {
                    *wide = true;
                }
                key(self.texts.compact(user, true))
            }
            _ => key(self.texts.compact(user, true)),
        };
        self.pairs.push(Pair { user, role });
        PAIR_BYTES
    }

    fn settle(&mut self, _role_id: &str, role: u32, pushed: usize, kept: usize, _size: usize) {
        let stale = pushed.saturating_sub(kept);
        if self.kept == Kept::Holders {
            let Some(read) = self.reading.get_mut(role as usize) else {
                return;
            };
            let mut read = std::mem::take(read);
            read.drain(..stale.min(read.len()));
            read.sort_unstable();
            read.dedup();
            merge(&mut self.people, &read);
            return;
        }
        // The role's first pairs are of its reads started again, let go.
        if stale > 0 {
            let mut stale = stale;
            self.pairs.retain(|pair| {
                let gone = pair.role == role && stale > 0;
                stale -= usize::from(gone);
                !gone
            });
        }
        let Kept::MembersOf(Some(wanted)) = self.kept else {
            return;
        };
        if let Some(settled) = self.settled.get_mut(role as usize) {
            *settled = true;
        }
        if role == wanted {
            let mut people: Vec<Key> = self
                .pairs
                .iter()
                .filter(|pair| pair.role == role)
                .map(|pair| pair.user)
                .collect();
            people.sort_unstable();
            people.dedup();
            self.people = people;
            self.known = true;
        }
        if !self.known {
            return;
        }
        // The roles read whole that may hold others are narrowed to its
        // members (a role still being read, once it is: its first pairs
        // may be let go then).
        let narrowed: Vec<bool> = (0..self.wide.len())
            .map(|at| {
                at != wanted as usize
                    && self.wide.get(at) == Some(&true)
                    && self.settled.get(at) == Some(&true)
            })
            .collect();
        if !narrowed.contains(&true) {
            return;
        }
        let people = &self.people;
        self.pairs.retain(|pair| {
            narrowed.get(pair.role as usize) != Some(&true) || people.binary_search(&pair.user).is_ok()
        });
        for (wide, narrowed) in self.wide.iter_mut().zip(narrowed) {
            *wide &= !narrowed;
        }
    }
}

/// Merges `more` into `set`, both sorted and each once, in place (from
/// the back, in the room `more` takes): each once still.
fn merge(set: &mut Vec<Key>, more: &[Key]) {
    let mut old = set.len();
    set.extend_from_slice(more);
    let mut next = more.len();
    let mut at = set.len();
    while next > 0 {
        at -= 1;
        if old > 0 && set[old - 1] > more[next - 1] {
            set[at] = set[old - 1];
            old -= 1;
        } else {
            set[at] = more[next - 1];
            next -= 1;
        }
    }
    set.dedup();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::people::RoleIndex;

    const ANN: &str = "0190a5b2-1c3d-7e4f-8a9b-0c1d2e3f4a5b";
    const BOB: &str = "0190A5B2-1C3D-7E4F-8A9B-0C1D2E3F4A5C";
    const CAT: &str = "0190a5b2-1c3d-7e4f-8a9b-0c1d2e3f4a5d";

    fn roles() -> Vec<RoleRef> {
        ["alpha", "Beta", "gamma"]
            .iter()
            .enumerate()
            .map(|(at, name)| RoleRef {
                id: format!("r{at}"),
                name: name.to_string(),
            })
            .collect()
    }

    /// Each role's memberships (role place, user), read whole, as the walk
    /// gives them to an index.
    fn read<G: Gathering>(index: &mut G, memberships: &[(u32, &str)]) {
        let membership = RoleMembership::default();
        for role in 0..3u32 {
            let mut pushed = 0;
            for (_, user) in memberships.iter().filter(|(of, _)| *of == role) {
                pushed += usize::from(index.push(role, &user.to_lowercase(), &membership) > 0);
            }
            index.settle(&format!("r{role}"), role, pushed, pushed, pushed);
        }
    }

    const MEMBERSHIPS: [(u32, &str); 6] = [
        (0, ANN),
        (2, ANN),
        (1, BOB),
        (2, "Not-A-UUID"),
        (0, "not-a-uuid"),
        (0, BOB),
    ];

    fn names(roles: Option<Vec<RoleRef>>) -> Option<Vec<String>> {
        roles.map(|roles| roles.into_iter().map(|role| role.name).collect())
    }

    #[test]
    fn a_person_s_roles_are_the_full_index_s_in_20_bytes_a_membership() {
        assert_eq!(std::mem::size_of::<Pair>(), 20);
        let mut light = LightIndex::new(roles(), &Keep::Everyone);
        read(&mut light, &MEMBERSHIPS);
        light.sort();
        let mut full = RoleIndex {
            roles: roles(),
            ..RoleIndex::default()
        };
        for (role, user) in MEMBERSHIPS {
            full.push(role, &user.to_lowercase(), "m", None);
        }
        full.sort();
        for user in [ANN, BOB, CAT, "NOT-A-UUID", "", "not-a-uuid"] {
            let roles: Vec<RoleRef> = full
                .of(user)
                .into_iter()
                .map(|held| RoleRef {
                    id: held.id,
                    name: held.name,
                })
                .collect();
            assert_eq!(light.listed(user), Some(roles), "{user}");
        }
        assert_eq!(
            names(light.listed(&ANN.to_uppercase())),
            Some(vec!["alpha".into(), "gamma".into()])
        );
        assert_eq!(
            names(light.listed(BOB)),
            Some(vec!["alpha".into(), "Beta".into()])
        );
        assert_eq!(light.listed(CAT), Some(Vec::new()), "in none");
        assert_eq!(
            names(light.listed("not-A-uuid")),
            Some(vec!["alpha".into(), "gamma".into()]),
            "kept as text, in any case"
        );
        assert_eq!(light.pairs.len(), 6);
    }

    #[test]
    fn pairs_in_many_runs_are_found_as_in_one_array() {
        // 30,000 memberships of 10,000 people in 3 roles, pushed role by
        // role: runs of 4,096, 8,192, 16,384 and the rest.
        let user = |at: u32| format!("00000000-0000-4000-8000-{at:012}");
        let mut light = LightIndex::new(roles(), &Keep::Everyone);
        let mut full = RoleIndex {
            roles: roles(),
            ..RoleIndex::default()
        };
        let membership = RoleMembership::default();
        for role in [2u32, 0, 1] {
            for at in 0..10_000u32 {
                let user = user((at * 7_919 + role) % 10_000);
                light.push(role, &user, &membership);
                full.push(role, &user, "m", None);
            }
            light.settle("r", role, 10_000, 10_000, 10_000);
        }
        light.sort();
        full.sort();
        assert_eq!(light.pairs.runs.len(), 4);
        for at in (0..10_000).step_by(97) {
            let user = user(at);
            let roles: Vec<String> = full.of(&user).into_iter().map(|held| held.name).collect();
            assert_eq!(roles, ["alpha", "Beta", "gamma"]);
            assert_eq!(names(light.listed(&user)), Some(roles));
        }
    }

    #[test]
    fn for_the_people_in_no_role_it_keeps_who_holds_one_each_once() {
        let mut light = LightIndex::new(roles(), &Keep::Holders);
        read(&mut light, &MEMBERSHIPS);
        light.sort();
        assert!(light.pairs.is_empty());
        assert_eq!(light.people.len(), 3, "Ann, Bob and the text, each once");
        assert_eq!(light.listed(CAT), Some(Vec::new()));
        assert_eq!(light.listed("nobody"), Some(Vec::new()));
        for user in [ANN, BOB, "NOT-A-UUID"] {
            assert_eq!(light.listed(user), None, "{user}");
        }
    }

    #[test]
    fn for_a_role_it_keeps_its_members_roles_alone() {
        // Gamma (Ann and the text) read first, as `load` reads it.
        let mut light = LightIndex::new(roles(), &Keep::MembersOf("r2".into()));
        let membership = RoleMembership::default();
        let gamma = [ANN, "not-a-uuid"];
        for user in gamma {
            light.push(2, user, &membership);
        }
        light.settle("r2", 2, 2, 2, 2);
        assert!(light.known);
        // Bob is passed over, kept nowhere.
        assert_eq!(light.push(1, &BOB.to_lowercase(), &membership), 0);
        assert_eq!(light.push(0, ANN, &membership), PAIR_BYTES);
        assert_eq!(light.push(0, &BOB.to_lowercase(), &membership), 0);
        assert_eq!(light.push(0, "not-a-uuid", &membership), PAIR_BYTES);
        light.settle("r1", 1, 0, 0, 1);
        light.settle("r0", 0, 2, 2, 3);
        light.sort();
        assert_eq!(light.pairs.len(), 4);
        assert_eq!(
            names(light.listed(ANN)),
            Some(vec!["alpha".into(), "gamma".into()])
        );
        assert_eq!(light.listed(BOB), None);
        assert_eq!(light.listed(CAT), None);
        assert!(light.listed("NOT-A-UUID").is_some());
        // A role read before it is filtered once it is read; an id that is
        // no role's keeps nobody.
        let mut early = LightIndex::new(roles(), &Keep::MembersOf("r2".into()));
        read(&mut early, &MEMBERSHIPS);
        early.sort();
        assert_eq!(early.pairs.len(), 4);
        assert_eq!(early.listed(BOB), None);
        let mut none = LightIndex::new(roles(), &Keep::MembersOf("r9".into()));
        read(&mut none, &MEMBERSHIPS);
        assert!(none.pairs.is_empty() && none.listed(ANN).is_none());
    }

    #[test]
    fn a_role_read_as_its_role_was_is_narrowed_once_read_whole() {
        let mut light = LightIndex::new(roles(), &Keep::MembersOf("r2".into()));
        let membership = RoleMembership::default();
        let bob = BOB.to_lowercase();
        // Alpha's first read, before gamma (Ann alone) is read whole.
        assert_eq!(light.push(0, ANN, &membership), PAIR_BYTES);
        assert_eq!(light.push(0, &bob, &membership), PAIR_BYTES);
        light.push(2, ANN, &membership);
        light.settle("r2", 2, 1, 1, 1);
        assert_eq!(light.pairs.len(), 3, "alpha is narrowed once read whole");
        // Alpha read again (its list changed): Ann kept, the others passed
        // over; its first read's pairs let go, then it is narrowed.
        assert_eq!(light.push(0, ANN, &membership), PAIR_BYTES);
        assert_eq!(light.push(0, &bob, &membership), 0);
        assert_eq!(light.push(0, CAT, &membership), 0);
        light.settle("r0", 0, 3, 1, 3);
        light.sort();
        assert_eq!(light.pairs.len(), 2);
        assert_eq!(
            names(light.listed(ANN)),
            Some(vec!["alpha".into(), "gamma".into()])
        );
        assert_eq!(light.listed(BOB), None);
    }

    #[test]
    fn a_role_read_again_keeps_only_its_last_read() {
        let mut light = LightIndex::new(roles(), &Keep::Holders);
        let membership = RoleMembership::default();
        // The first read saw Ann and Bob; the second, after both left, Cat.
        for user in [ANN, &BOB.to_lowercase(), CAT] {
            light.push(0, user, &membership);
        }
        light.settle("r0", 0, 3, 1, 1);
        light.sort();
        assert_eq!(light.listed(ANN), Some(Vec::new()));
        assert_eq!(light.listed(BOB), Some(Vec::new()), "left");
        assert_eq!(light.listed(CAT), None);
    }

    #[test]
    fn sets_merge_each_once() {
        let mut set = vec![[0, 0, 0, 1], [0, 0, 0, 4], [0, 0, 0, 6]];
        merge(
            &mut set,
            &[[0, 0, 0, 0], [0, 0, 0, 4], [0, 0, 0, 5], [0, 0, 0, 9]],
        );
        let last: Vec<u32> = set.iter().map(|key| key[3]).collect();
        assert_eq!(last, [0, 1, 4, 5, 6, 9]);
        merge(&mut set, &[]);
        assert_eq!(set.len(), 6);
        let mut empty = Vec::new();
        merge(&mut empty, &[[1, 0, 0, 0]]);
        assert_eq!(empty, [[1, 0, 0, 0]]);
    }
}
