//! Who holds which role, and who is who, indexed once for a world. A
//! preview, its check and the switch ask it for every person; asking the
//! world itself scans every role's members for each person, which made
//! them quadratic in the organization's size (20,000 members: 18 s for a
//! rule on everyone, 9 s for the switch).

use std::collections::HashMap;

use super::World;
use crate::access::directory::Person;
use crate::api::access::Member;

/// A world's people by membership id and its roles by their members.
pub(super) struct Roster<'w> {
    world: &'w World,
    /// Indexes into `world.roles`, by a role member's membership id.
    by_membership: HashMap<&'w str, Vec<usize>>,
    /// Indexes into `world.roles`, by a role member's user uuid.
    by_user: HashMap<&'w str, Vec<usize>>,
    /// People by their membership id, lowercased.
    people: HashMap<String, &'w Person>,
}

impl<'w> Roster<'w> {
    pub(super) fn of(world: &'w World) -> Roster<'w> {
        let mut by_membership: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut by_user: HashMap<&str, Vec<usize>> = HashMap::new();
        for (at, role) in world.roles.iter().enumerate() {
            for member in &role.members {
                if let Some(id) = member.membership_id.as_deref() {
                    by_membership.entry(id).or_default().push(at);
                }
                if let Some(uuid) = member.user_uuid.as_deref() {
                    by_user.entry(uuid).or_default().push(at);
                }
            }
        }
        let mut people = HashMap::with_capacity(world.people.len());
        for person in &world.people {
            // The first of two rows with one id wins, as a scan would find it.
            people
                .entry(person.membership_id.to_lowercase())
                .or_insert(person);
        }
        Roster {
            world,
            by_membership,
            by_user,
            people,
        }
    }

    /// Every person of the world, in its order.
    pub(super) fn people(&self) -> &'w [Person] {
        &self.world.people
    }

    /// The member with this membership id.
    pub(super) fn person(&self, membership_id: &str) -> Option<&'w Person> {
        self.people.get(&membership_id.to_lowercase()).copied()
    }

    /// The indexes of the roles `person` holds, in the world's order
    /// (what [`crate::access::directory::RoleInfo::holds`] says, role by role).
    fn held(&self, person: &Person) -> Vec<usize> {
        let mut held: Vec<usize> = self
            .by_membership
            .get(person.membership_id.as_str())
            .into_iter()
            .chain(self.by_user.get(person.user_uuid.as_str()))
            .flatten()
            .copied()
            .collect();
        held.sort_unstable();
        held.dedup();
        held
    }

    /// The person as the resolver sees them.
    pub(super) fn member(&self, person: &Person) -> Member {
        Member {
            membership_id: person.membership_id.clone(),
            user_id: person.user_uuid.clone(),
            organization_level: person.level,
            role_ids: self
                .held(person)
                .into_iter()
                .map(|at| self.world.roles[at].id.clone())
                .collect(),
        }
    }

    /// Whether `person` holds the role at `at` in the world's roles.
    pub(super) fn holds(&self, person: &Person, at: usize) -> bool {
        [
            self.by_membership.get(person.membership_id.as_str()),
            self.by_user.get(person.user_uuid.as_str()),
        ]
        .into_iter()
        .flatten()
        .any(|roles| roles.contains(&at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::directory::{RoleInfo, RoleMember};
    use crate::api::access::Plan;

    fn person(id: &str, uuid: &str) -> Person {
        Person {
            membership_id: id.into(),
            user_uuid: uuid.into(),
            email: format!("{id}@example.com"),
            name: String::new(),
            level: 1,
            last_login: None,
        }
    }

    fn role(id: &str, members: &[(Option<&str>, Option<&str>)]) -> RoleInfo {
        RoleInfo {
            id: id.into(),
            name: id.into(),
            members: members
                .iter()
                .map(|(membership, user)| RoleMember {
                    membership_id: membership.map(str::to_string),
                    user_uuid: user.map(str::to_string),
                    email: String::new(),
                    name: String::new(),
                })
                .collect(),
        }
    }

    #[test]
    fn a_member_holds_what_a_scan_of_every_role_finds_in_the_roles_order() {
        let world = World {
            people: vec![person("m1", "u1"), person("m2", "u2"), person("m3", "u3")],
            roles: vec![
                role("r1", &[(Some("m2"), None)]),
                // By user uuid alone, and by both (counted once).
                role("r2", &[(None, Some("u1")), (Some("m2"), Some("u2"))]),
                role("r3", &[(Some("m1"), Some("u1"))]),
            ],
            projects: Vec::new(),
            plan: Plan::default(),
            mode: None,
            objects: Vec::new(),
            notes: Vec::new(),
        };
        let roster = Roster::of(&world);
        for person in &world.people {
            let scanned: Vec<String> = world
                .roles
                .iter()
                .filter(|role| role.holds(person))
                .map(|role| role.id.clone())
                .collect();
            assert_eq!(
                roster.member(person).role_ids,
                scanned,
                "{}",
                person.membership_id
            );
        }
        assert_eq!(roster.member(&world.people[0]).role_ids, ["r2", "r3"]);
        assert!(roster.member(&world.people[2]).role_ids.is_empty());
        assert!(roster.holds(&world.people[1], 0) && !roster.holds(&world.people[1], 2));
        assert_eq!(
            roster.person("M2").map(|found| found.user_uuid.as_str()),
            Some("u2")
        );
        assert!(roster.person("m9").is_none());
    }
}
