//! Reading every role's memberships into an index, a page at a time: the
//! roles first (by id and name), then each role's memberships,
//! [`ROLES_AT_ONCE`] roles at a time, each page's handed to what is being
//! built ([`Gathering`]: the full [`super::RoleIndex`] or the
//! [`super::LightIndex`]) as it is read, and counted against the
//! command's budget as what that keeps of it.

use futures_util::StreamExt;

use super::{MEMBERSHIPS_PAGE, ROLES_AT_ONCE, RoleRef, membership_user};
use crate::api::{Client, FetchAll, List, RoleMembership};

/// A role as the index reads it: its id and name.
#[derive(Debug, Clone, Default, serde::Deserialize)]
struct NamedRole {
    #[serde(default, deserialize_with = "crate::api::models::null_as_default")]
    id: String,
    #[serde(default, deserialize_with = "crate::api::models::null_as_default")]
    name: String,
}

impl crate::api::Row for NamedRole {
    fn row_id(&self) -> String {
        self.id.clone()
    }
}

/// Every role of the organization by id and name, as the indexes keep
/// them: by name (any case), then by id.
///
/// Read by id and name alone: the members a server embeds in each role
/// (all of them, in PostHog's list) are cut out as the page arrives, never
/// held; [`gather`] reads them a page at a time.
pub async fn read_roles(client: &Client, organization: &str) -> crate::api::error::Result<Vec<RoleRef>> {
    let fetch = FetchAll {
        concurrency: 2,
        ..FetchAll::default()
    };
    let mut roles: Vec<NamedRole> = client
        .all(&List::roles(organization).without("members").read_as(), &fetch)
        .await?
        .into_vec();
    roles.sort_by(|a, b| {
        a.name
            .to_lowercase()
            .cmp(&b.name.to_lowercase())
            .then(a.id.cmp(&b.id))
    });
    Ok(roles
        .into_iter()
        .map(|role| RoleRef {
            id: role.id,
            name: role.name,
        })
        .collect())
}

/// What a walk of every role's memberships builds as their pages are read.
pub(super) trait Gathering: Default + Send {
    /// One membership of the role at `role` (its place among the roles),
    /// of `user` (in lower case), as its page is read: the bytes kept of
    /// it, 0 where it is passed over.
    fn push(&mut self, role: u32, user: &str, membership: &RoleMembership) -> u8;

    /// A role's memberships, read whole: `kept` of the `pushed` it was
    /// given are those of its last read, and the others, of reads started
    /// again when the list changed as it was read, the role's first in the
    /// order they came, are to be let go; `size` is its last read's
    /// memberships, kept or not.
    fn settle(&mut self, role_id: &str, role: u32, pushed: usize, kept: usize, size: usize);
}

/// A membership as its page was read: the bytes kept of it (0: passed
/// over). What the read of its role keeps besides is this byte, counted
/// against the command's budget as what is kept of it when it is kept.
struct Added(u8);

impl crate::api::Kept for Added {
    fn heap_bytes(&self) -> u64 {
        0
    }

    fn held_bytes(&self) -> u64 {
        match self.0 {
            0 => std::mem::size_of::<Added>() as u64,
            bytes => u64::from(bytes),
        }
    }
}

/// What is built, as its roles' reads add to it.
type Building<G> = std::sync::Arc<std::sync::Mutex<G>>;

/// What is being built; a read that panicked holding it left whole rows
/// (each is pushed whole), so a poisoned lock is taken as it is.
fn building<G>(index: &Building<G>) -> std::sync::MutexGuard<'_, G> {
    index.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Reads each of `roles`' memberships into `index`, `ROLES_AT_ONCE` roles
/// at a time, the one at place `first` (if any) among the first;
/// `progress` hears (roles read, roles in all). Each page's memberships go
/// into the index as the page is read: nothing of a role is held beside
/// it, however large the role.
pub(super) async fn gather<G: Gathering>(
    client: &Client,
    organization: &str,
    roles: Vec<RoleRef>,
    first: Option<usize>,
    index: G,
    progress: &(dyn Fn(usize, usize) + Send + Sync),
) -> crate::api::error::Result<G> {
    let fetch = FetchAll {
        page_size: MEMBERSHIPS_PAGE,
        concurrency: 2,
        ..FetchAll::default()
    };
    let total = roles.len();
    progress(0, total);
    let index: Building<G> = std::sync::Arc::new(std::sync::Mutex::new(index));
    let mut order: Vec<(usize, RoleRef)> = roles.into_iter().enumerate().collect();
    if let Some(first) = first.filter(|&first| first < order.len()) {
        order[..=first].rotate_right(1);
    }
    // Each read owns its role, so that the whole load is a future a task
    // may run (a closure over borrowed roles is not, to rustc).
    let mut reads = futures_util::stream::iter(order.into_iter().map(|(place, role)| {
        let fetch = fetch.clone();
        let index = index.clone();
        async move {
            let list = List::memberships(organization, &role.id);
            let place = u32::try_from(place).unwrap_or(u32::MAX);
            let mut pushed = 0;
            let read = client
                .gather(&list, &fetch, |page: Vec<RoleMembership>| {
                    let mut index = building(&index);
                    let mut added = Vec::new();
                    for membership in page {
                        let Some(user) = membership_user(&membership) else {
                            continue;
                        };
                        let bytes = index.push(place, &user, &membership);
                        pushed += usize::from(bytes > 0);
                        added.push(Added(bytes));
                    }
                    crate::api::error::Result::Ok(added)
                })
                .await;
            (role, place, pushed, read)
        }
    }))
    .buffer_unordered(ROLES_AT_ONCE);
    let mut done = 0;
    while let Some((role, place, pushed, read)) = reads.next().await {
        let read = read?;
        let kept = read.iter().filter(|added| added.0 > 0).count();
        building(&index).settle(&role.id, place, pushed, kept, read.len());
        done += 1;
        progress(done, total);
    }
    drop(reads);
    let index = std::mem::take(&mut *building(&index));
    Ok(index)
}
