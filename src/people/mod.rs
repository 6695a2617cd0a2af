//! People, not roles: which roles each person of an organization holds,
//! everything that touches one person (`profile`), and taking a person out
//! of it all in one reviewed step (`offboard`, run by `steps`), written as
//! it goes (`journal`) once the key is known to be able to do it all
//! (`session`).
//!
//! PostHog has no endpoint for "the roles of a user": a role lists its
//! memberships. The [`RoleIndex`] reads every role's memberships, a few
//! roles at a time, and turns them round; a view keeps it while it is open.

pub mod journal;
pub mod offboard;
pub mod profile;
pub mod session;
pub mod steps;

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use futures_util::StreamExt;
use serde::Serialize;

use crate::api::{Client, FetchAll, List, Role, RoleMembership, Whole};

/// Roles whose memberships are read at once.
pub const ROLES_AT_ONCE: usize = 4;

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
#[derive(Debug, Clone, Default)]
pub struct RoleIndex {
    /// By name, as people look for them.
    pub roles: Vec<RoleRef>,
    /// Keyed by user UUID, lowercase.
    by_user: HashMap<String, Vec<HeldRole>>,
    /// Each role's member count, by role id.
    sizes: HashMap<String, usize>,
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
        let fetch = FetchAll {
            concurrency: 2,
            ..FetchAll::default()
        };
        let mut roles: Vec<Role> = client.all(&List::roles(organization), &fetch).await?.into_vec();
        roles.sort_by(|a, b| {
            a.name
                .to_lowercase()
                .cmp(&b.name.to_lowercase())
                .then(a.id.cmp(&b.id))
        });
        let total = roles.len();
        progress(0, total);
        // Each read owns its role, so that the whole load is a future a
        // task may run (a closure over borrowed roles is not, to rustc).
        let mut reads = futures_util::stream::iter(roles.clone().into_iter().map(|role| {
            let fetch = fetch.clone();
            async move {
                let list = List::memberships(organization, &role.id);
                let memberships = client.all(&list, &fetch).await;
                (role, memberships)
            }
        }))
        .buffer_unordered(ROLES_AT_ONCE);
        let mut index = RoleIndex {
            roles: roles
                .iter()
                .map(|role| RoleRef {
                    id: role.id.clone(),
                    name: role.name.clone(),
                })
                .collect(),
            ..RoleIndex::default()
        };
        let mut done = 0;
        while let Some((role, memberships)) = reads.next().await {
            index.add(&role, memberships?);
            done += 1;
            progress(done, total);
        }
        for held in index.by_user.values_mut() {
            held.sort_by_key(|role| role.name.to_lowercase());
        }
        Ok(index)
    }

    /// A role's memberships, read whole: a person missing from them would
    /// be taken for someone not in the role.
    fn add(&mut self, role: &Role, memberships: Whole<RoleMembership>) {
        self.sizes.insert(role.id.clone(), memberships.len());
        for membership in memberships {
            let Some(user) = membership_user(&membership) else {
                continue;
            };
            self.by_user.entry(user).or_default().push(HeldRole {
                id: role.id.clone(),
                name: role.name.clone(),
                membership_id: membership.id,
                joined_at: membership.joined_at,
            });
        }
    }

    /// The roles a person (by user UUID) holds, by name.
    pub fn of(&self, user_uuid: &str) -> &[HeldRole] {
        self.by_user
            .get(&user_uuid.to_lowercase())
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    /// A role by its id or its name (any case).
    pub fn role(&self, id_or_name: &str) -> Option<&RoleRef> {
        let wanted = id_or_name.trim();
        self.roles.iter().find(|role| role.id == wanted).or_else(|| {
            self.roles
                .iter()
                .find(|role| role.name.to_lowercase() == wanted.to_lowercase())
        })
    }

    /// How many people hold the role.
    pub fn size(&self, role_id: &str) -> usize {
        self.sizes.get(role_id).copied().unwrap_or_default()
    }

    /// A person joined a role (a membership made since the index was
    /// read): the index says so without being read again.
    pub fn joined(&mut self, user_uuid: &str, held: HeldRole) {
        let roles = self.by_user.entry(user_uuid.to_lowercase()).or_default();
        if roles.iter().any(|role| role.id == held.id) {
            return;
        }
        *self.sizes.entry(held.id.clone()).or_default() += 1;
        roles.push(held);
        roles.sort_by_key(|role| role.name.to_lowercase());
    }

    /// A membership (by its id) was deleted since the index was read.
    pub fn left(&mut self, membership_id: &str) {
        for roles in self.by_user.values_mut() {
            if let Some(at) = roles.iter().position(|role| role.membership_id == membership_id) {
                let gone = roles.remove(at);
                if let Some(size) = self.sizes.get_mut(&gone.id) {
                    *size = size.saturating_sub(1);
                }
            }
        }
        self.by_user.retain(|_, roles| !roles.is_empty());
    }

    /// People (user UUIDs) holding at least one role.
    pub fn people_with_a_role(&self) -> usize {
        self.by_user.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{OrganizationMember, User};

    fn membership(id: &str, user: &str) -> RoleMembership {
        RoleMembership {
            id: id.into(),
            user: Some(User {
                uuid: user.into(),
                ..User::default()
            }),
            ..RoleMembership::default()
        }
    }

    #[test]
    fn memberships_turn_round_into_roles_per_person() {
        let mut index = RoleIndex::default();
        let role = |id: &str, name: &str| Role {
            id: id.into(),
            name: name.into(),
            ..Role::default()
        };
        index.add(
            &role("r1", "Zeta"),
            Whole::assumed(vec![membership("m1", "U1"), membership("m2", "u2")]),
        );
        index.add(&role("r2", "alpha"), Whole::assumed(vec![membership("m3", "u1")]));
        index.roles = vec![
            RoleRef {
                id: "r2".into(),
                name: "alpha".into(),
            },
            RoleRef {
                id: "r1".into(),
                name: "Zeta".into(),
            },
        ];
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
