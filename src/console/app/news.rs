//! News between lists: a write's answer lands in the list that sent it
//! (`edit.rs`, `bulk.rs`), and what it changed for the others goes out as
//! one [`Change`], told through the holder (`Screens::on_change`) to every
//! screen that may show it. The people's index and a person's page hear it
//! here, until People moves into its screen folder.

use super::App;
use crate::console::screens::Change;
use crate::people::{HeldRole, membership_user};

impl App {
    /// Tells every list what changed.
    pub(super) fn announce(&mut self, change: Change) {
        let (screens, mut ctx) = self.lend();
        if screens.on_change(&change, &mut ctx) {
            self.keep_shown_open();
        }
        self.people_heard(&change);
    }

    /// The news People and a person's page hear: the index of who holds
    /// which role, a member's row, the page open.
    fn people_heard(&mut self, change: &Change) {
        match change {
            Change::Joined(membership) => {
                let Some(user) = membership_user(membership) else {
                    return;
                };
                let name = self
                    .screens
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
                self.change_page(&user, |profile| {
                    if !profile.roles.iter().any(|role| role.id == held.id) {
                        profile.roles.push(held);
                        profile.roles.sort_by_key(|role| role.name.to_lowercase());
                    }
                });
            }
            Change::Left { membership, .. } => {
                if let Some(index) = self.index_mut() {
                    index.left(membership);
                }
                let uuid = self
                    .screens
                    .person
                    .person()
                    .map(|(uuid, _, _)| uuid)
                    .unwrap_or_default();
                self.change_page(&uuid, |profile| {
                    profile.roles.retain(|role| role.membership_id != *membership)
                });
            }
            Change::MemberChanged(member) => {
                let table = &mut self.screens.people;
                if let Some(at) = table.position_of(&member.user.uuid) {
                    table.rows.list.replace_row(at, (**member).clone());
                }
                let uuid = member.user.uuid.clone();
                self.change_page(&uuid, |profile| profile.member = Some((**member).clone()));
            }
            Change::RoleMade(_)
            | Change::RoleSaved(_)
            | Change::RoleDeleted { .. }
            | Change::SubscriptionChanged(_)
            | Change::SubscriptionMade(_)
            | Change::StatesKnown(_) => {}
        }
    }
}
