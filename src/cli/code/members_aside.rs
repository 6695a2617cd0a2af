//! What grows with the organization's members, set aside: each role's
//! members for `export --roles`, and for `plan` and `apply` the
//! organization's members and each role's memberships ([`LiveMembers`]).
//! The roles are read without the members PostHog embeds in them, and
//! each role's memberships are walked a page at a time (a few roles at
//! once), sorted outside memory ([`super::sorted`]) and set aside in
//! order, to be read back one at a time as the file is written or as
//! the plan compares them. Memory holds a run per list being read (at
//! most [`sorted::RUN_BYTES`], counted against `--max-held-mib` while it
//! is held), whatever the number of members.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use futures_util::{StreamExt, TryStreamExt};

use super::file::RoleEntry;
use super::sorted::{self, Record, Sorted, Sorter};
use crate::api::{Client, Holding, List, ListOrText, OrganizationMember, Role, RoleMembership};

/// The organization's roles, sorted by name (then id), each beside its
/// members' addresses set aside (as the server writes them, in order,
/// each once); the entries' own `members` are empty.
pub async fn read(client: &Client, organization: &str) -> anyhow::Result<Vec<(RoleEntry, Sorted)>> {
    roles_with(client, organization, 1, email_of).await
}

/// The organization's roles, sorted by name (then id), each beside what
/// `kept` keeps of each of its memberships, set aside in order.
async fn roles_with<R: Record + Clone + Send>(
    client: &Client,
    organization: &str,
    fields: usize,
    kept: fn(&RoleMembership) -> Option<R>,
) -> anyhow::Result<Vec<(RoleEntry, Sorted)>> {
    let role_list = List::roles(organization).without("members");
    let roles = client.all(&role_list, &super::all_options()).await?;
    let mut read: Vec<(RoleEntry, Sorted)> = futures_util::stream::iter(
        roles
            .into_vec()
            .into_iter()
            .map(|role| role_members(client, organization, role, fields, kept)),
    )
    .buffer_unordered(4)
    .try_collect()
    .await?;
    read.sort_by(|(a, _), (b, _)| a.name.cmp(&b.name).then_with(|| a.id.cmp(&b.id)));
    Ok(read)
}

/// The organization's members and each role's memberships as `plan` and
/// `apply` compare them, set aside in order of address (lower case).
#[derive(Debug, Default)]
pub struct LiveMembers {
    /// (address in lower case, user UUID).
    members: Option<Sorted>,
    /// Per role id: (address in lower case, address as the server writes
    /// it, membership id).
    roles: HashMap<String, Sorted>,
}

/// A member as [`LiveMembers`] sets them aside: address in lower case,
/// user UUID.
pub type Member = (String, String);

/// A membership as [`LiveMembers`] sets them aside: its member's address
/// in lower case and as the server writes it, and its id.
pub type Membership = (String, String, String);

impl LiveMembers {
    /// Reads the organization's members and every role's memberships, the
    /// roles' entries (sorted by name, then id; their `members` empty)
    /// beside them.
    pub async fn read(client: &Client, organization: &str) -> anyhow::Result<(Vec<RoleEntry>, LiveMembers)> {
        let member_list = List::<OrganizationMember>::members(organization);
        let members = async {
            let _charged = Charged::take(client)?;
            let mut members: Sorter<Member> = Sorter::new(2);
            client
                .gather(
                    &member_list,
                    &super::all_options(),
                    |page: Vec<OrganizationMember>| {
                        for member in page {
                            members.push((member.user.email.to_lowercase(), member.user.uuid))?;
                        }
                        anyhow::Ok(Vec::<bool>::new())
                    },
                )
                .await?;
            anyhow::Ok(members.finish()?.set_aside()?)
        };
        let (members, roles) = tokio::try_join!(members, roles_with(client, organization, 3, membership_of))?;
        let mut entries = Vec::with_capacity(roles.len());
        let mut held = HashMap::with_capacity(roles.len());
        for (entry, memberships) in roles {
            held.insert(entry.id.clone().unwrap_or_default(), memberships);
            entries.push(entry);
        }
        Ok((
            entries,
            LiveMembers {
                members: Some(members),
                roles: held,
            },
        ))
    }

    /// The organization's members, in order of address.
    pub fn members(&self) -> std::io::Result<Box<dyn Iterator<Item = std::io::Result<Member>> + '_>> {
        Ok(match &self.members {
            Some(members) => Box::new(members.read::<Member>()?),
            None => Box::new(std::iter::empty()),
        })
    }

    /// The role `id`'s memberships, in order of address (none for a role
    /// not read).
    pub fn memberships(
        &self,
        id: &str,
    ) -> std::io::Result<Box<dyn Iterator<Item = std::io::Result<Membership>> + '_>> {
        Ok(match self.roles.get(id) {
            Some(memberships) => Box::new(memberships.read::<Membership>()?),
            None => Box::new(std::iter::empty()),
        })
    }

    /// The user UUIDs of those of `emails` (lower case) who are members.
    pub fn uuids(&self, emails: &BTreeSet<String>) -> std::io::Result<HashMap<String, String>> {
        let mut found = HashMap::new();
        if emails.is_empty() {
            return Ok(found);
        }
        for member in self.members()? {
            let (email, uuid) = member?;
            if emails.contains(&email) {
                found.insert(email, uuid);
            }
        }
        Ok(found)
    }

    /// The role `id`'s memberships' ids by address (lower case).
    pub fn role(&self, id: &str) -> std::io::Result<BTreeMap<String, String>> {
        self.role_of(id, |_| true)
    }

    /// As [`LiveMembers::role`], only the addresses `keep` keeps.
    pub fn role_of(
        &self,
        id: &str,
        keep: impl Fn(&str) -> bool,
    ) -> std::io::Result<BTreeMap<String, String>> {
        let mut found = BTreeMap::new();
        for membership in self.memberships(id)? {
            let (email, _, membership) = membership?;
            if keep(&email) {
                found.insert(email, membership);
            }
        }
        Ok(found)
    }
}

/// Live members for a test: `members` (address, UUID) and, per role id,
/// its memberships (address, membership id).
#[cfg(test)]
pub fn held(members: &[(&str, &str)], roles: &[(&str, &[(&str, &str)])]) -> LiveMembers {
    let mut sorter: Sorter<Member> = Sorter::new(2);
    for (email, uuid) in members {
        sorter.push((email.to_lowercase(), uuid.to_string())).unwrap();
    }
    let mut held = HashMap::new();
    for (id, memberships) in roles {
        let mut role: Sorter<Membership> = Sorter::new(3);
        for (email, membership) in *memberships {
            role.push((email.to_lowercase(), email.to_string(), membership.to_string()))
                .unwrap();
        }
        held.insert(id.to_string(), role.finish().unwrap().set_aside().unwrap());
    }
    LiveMembers {
        members: Some(sorter.finish().unwrap().set_aside().unwrap()),
        roles: held,
    }
}

/// The run a role's read holds, counted against `--max-held-mib` until
/// it is dropped.
pub(super) struct Charged {
    holding: std::sync::Arc<Holding>,
}

impl Charged {
    fn take(client: &Client) -> anyhow::Result<Charged> {
        let holding = client.holding();
        if !holding.take(sorted::RUN_BYTES as u64) {
            anyhow::bail!(
                "the lists read whole reached {} MiB, the most one command holds (--max-held-mib); orgdeck stopped before reading a role's members",
                holding.limit() / (1024 * 1024)
            );
        }
        Ok(Charged { holding })
    }
}

impl Drop for Charged {
    fn drop(&mut self) {
        self.holding.give_back(sorted::RUN_BYTES as u64);
    }
}

/// One role's entry and its members' addresses, sorted and set aside:
/// those the server embeds with the role where it does, else its
/// memberships, a page at a time.
async fn role_members<R: Record + Clone>(
    client: &Client,
    organization: &str,
    role: Role,
    fields: usize,
    kept: fn(&RoleMembership) -> Option<R>,
) -> anyhow::Result<(RoleEntry, Sorted)> {
    let _charged = Charged::take(client)?;
    let mut members: Sorter<R> = Sorter::new(fields);
    match &role.members {
        Some(ListOrText::List(memberships)) => {
            for record in memberships.iter().filter_map(kept) {
                members.push(record)?;
            }
        }
        _ => {
            let list = List::memberships(organization, &role.id);
            client
                .gather(&list, &super::all_options(), |page: Vec<RoleMembership>| {
                    for record in page.iter().filter_map(kept) {
                        members.push(record)?;
                    }
                    anyhow::Ok(Vec::<bool>::new())
                })
                .await?;
        }
    }
    let members = members.finish()?.set_aside()?;
    let entry = RoleEntry {
        id: Some(role.id.clone()),
        name: role.name.clone(),
        default: role.is_default == Some(true),
        feature_flags_access_level: role.feature_flags_access_level,
        ..RoleEntry::default()
    };
    Ok((entry, members))
}

/// A membership's member's address as the server writes it; none for a
/// membership that names no user, or an empty address.
fn email_of(membership: &RoleMembership) -> Option<String> {
    super::member_of(membership)
        .map(|(email, _)| email)
        .filter(|email| !email.is_empty())
}

/// A membership's member's address, lower case and as the server writes
/// it, and the membership's id; none for a membership that names no user.
fn membership_of(membership: &RoleMembership) -> Option<Membership> {
    super::member_of(membership).map(|(email, id)| (email.to_lowercase(), email, id))
}
