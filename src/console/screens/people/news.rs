//! What People and a person's page hear of other screens' writes (a
//! [`Change`]): the index of who holds which role, a member's row, the
//! page open, each kept in step so that nothing is read again for it;
//! an offboarding, which changes too much to keep in step, has both read
//! again; access changed (`Change::AccessChanged`) has the page's Access
//! section read again.

use std::sync::Arc;

use crate::console::screens::heard::Heard;
use crate::console::screens::{Change, Ctx, Screens};
use crate::people::profile::Profile;
use crate::people::{HeldRole, RoleIndex, membership_user};

impl Screens {
    /// The news People and a person's page hear, and what they read again.
    pub fn people_on_change(&mut self, change: &Change, ctx: &Ctx) -> Heard {
        if let Change::Offboarded { email } = change {
            // The roles of everyone read again, and their page.
            let heard = self.refresh_people_quietly(ctx);
            if self
                .person
                .chosen
                .as_ref()
                .is_some_and(|chosen| &chosen.email == email)
            {
                self.regather();
            }
            return heard;
        }
        // Who reaches what changed: the page open reads their access again.
        if let Change::AccessChanged { .. } = change {
            return self.reread_access(ctx);
        }
        // Their roles or level changed: kept in step here; their access
        // is read again on the `AccessChanged` every such write is followed by.
        self.keep_in_step(change, ctx);
        Heard::default()
    }

    /// A change told to the index, a member's row and the page open;
    /// whether the page open changed.
    fn keep_in_step(&mut self, change: &Change, ctx: &Ctx) -> bool {
        match change {
            Change::Joined(membership) => {
                let Some(user) = membership_user(membership) else {
                    return false;
                };
                let name = self
                    .people
                    .resource
                    .index
                    .as_ref()
                    .and_then(|index| index.role(&membership.role_id).map(|role| role.name.clone()))
                    .unwrap_or_else(|| membership.role_id.clone());
                let held = HeldRole {
                    id: membership.role_id.clone(),
                    name,
                    membership_id: membership.id.clone(),
                    joined_at: membership.joined_at,
                };
                if let Some(index) = self.index_mut() {
                    index.joined(&user, held.clone());
                }
                self.change_page(&user, ctx, |profile| {
                    if !profile.roles.iter().any(|role| role.id == held.id) {
                        profile.roles.push(held);
                        profile.roles.sort_by_key(|role| role.name.to_lowercase());
                    }
                })
            }
            Change::Left { membership, .. } => {
                if let Some(index) = self.index_mut() {
                    index.left(membership);
                }
                let uuid = self.person.person().map(|(uuid, _, _)| uuid).unwrap_or_default();
                self.change_page(&uuid, ctx, |profile| {
                    profile.roles.retain(|role| role.membership_id != *membership)
                })
            }
            Change::MemberChanged(member) => {
                let table = &mut self.people;
                if let Some(at) = table.position_of(&member.user.uuid) {
                    table.rows.list.replace_row(at, (**member).clone());
                }
                let uuid = member.user.uuid.clone();
                self.change_page(&uuid, ctx, |profile| profile.member = Some((**member).clone()))
            }
            Change::RoleMade(_)
            | Change::RoleSaved(_)
            | Change::RoleDeleted { .. }
            | Change::SubscriptionChanged(_)
            | Change::SubscriptionMade(_)
            | Change::StatesKnown(_)
            | Change::Offboarded { .. }
            | Change::AccessChanged { .. } => false,
        }
    }

    /// The index, for a change that must be told to it.
    fn index_mut(&mut self) -> Option<&mut RoleIndex> {
        self.people.resource.index.as_mut().map(Arc::make_mut)
    }

    /// Changes the open page's profile, if it is this user's (whether it was).
    fn change_page(&mut self, uuid: &str, ctx: &Ctx, change: impl FnOnce(&mut Profile)) -> bool {
        self.person.change_profile(uuid, ctx.height, ctx.zone, change)
    }
}
