//! The roles read again before a phase's steps ([`Runner::read_roles`]).

use std::collections::{BTreeMap, HashMap};

use futures_util::StreamExt;

use super::super::steps::{RoleNeeds, RoleRead, Step};
use super::{AT_ONCE, Runner};
use crate::api::{FetchAll, List, Role, RoleMembership};

impl Runner<'_> {
    /// The roles as they are now, with the memberships the steps need
    /// and no more: all of a role a step deletes or changes (compared
    /// whole, or told when it is refused), those of the addresses a step
    /// adds or removes, a page at a time; none of the others'. The members
    /// PostHog embeds in each role are cut out of the roles' page.
    pub(super) async fn read_roles(&self, steps: &[&Step]) -> anyhow::Result<HashMap<String, RoleRead>> {
        self.pace.turn().await;
        let list = List::roles(self.organization).without("members");
        let roles: Vec<Role> = self.client.all(&list, &FetchAll::default()).await?.into_vec();
        let needs = &RoleNeeds::of(steps.iter().copied());
        let reads = futures_util::stream::iter(roles.into_iter().map(|role| async move {
            // None: no memberships; Some(None): all of them.
            let keep = needs.of_role(&role.id);
            let mut found = BTreeMap::new();
            if let Some(emails) = keep {
                self.pace.turn().await;
                let list = List::memberships(self.organization, &role.id);
                self.client
                    .gather(&list, &FetchAll::default(), |page: Vec<RoleMembership>| {
                        for (email, id) in page.iter().filter_map(member) {
                            if emails.is_none_or(|emails| emails.contains(&email)) {
                                found.insert(email, id);
                            }
                        }
                        Ok::<_, crate::api::Error>(Vec::<bool>::new())
                    })
                    .await?;
            }
            anyhow::Ok((
                role.id.clone(),
                RoleRead {
                    name: role.name.clone(),
                    feature_flags_access_level: role.feature_flags_access_level,
                    members: found,
                },
            ))
        }))
        .buffer_unordered(AT_ONCE)
        .collect::<Vec<_>>()
        .await;
        reads.into_iter().collect()
    }
}

/// A membership's member's address (lower case) and the membership's id;
/// none for a membership that names no user.
fn member(membership: &RoleMembership) -> Option<(String, String)> {
    super::super::member_of(membership).map(|(email, id)| (email.to_lowercase(), id))
}
