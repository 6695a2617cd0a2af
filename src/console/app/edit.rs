//! Changing things: confirmations before anything is deleted, soft delete
//! and restore of subscriptions with undo, sending writes, and what an answer
//! does to the tables (they change in place, no reload).

use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::{App, Confirm, Effect, ListId, Mode, Notice, Ticket, Timer, Undo, Write, Written};
use crate::api::{self};
use crate::console::rows::Tabular;

impl App {
    /// `d`: asks first, naming what goes.
    pub(super) fn delete_item(&mut self) -> Vec<Effect> {
        if self.busy() {
            return Vec::new();
        }
        let organization = self.context.organization.clone();
        let confirm = match self.shown() {
            ListId::Roles => self.roles.selected().map(|role| {
                let members = role.members.as_ref().and_then(|m| m.len()).unwrap_or(0);
                Confirm {
                    question: format!(
                        "Delete the role {} and its {members} membership{}?",
                        role.name,
                        if members == 1 { "" } else { "s" }
                    ),
                    write: Write::DeleteRole {
                        organization,
                        id: role.id.clone(),
                    },
                    destructive: true,
                    form: None,
                }
            }),
            ListId::Members => {
                let role = self.role.clone();
                self.members.selected().zip(role).map(|(membership, role)| {
                    let user = membership.user.clone().unwrap_or_default();
                    Confirm {
                        question: format!(
                            "Remove {} <{}> from the role {}?",
                            user.display_name(),
                            user.email,
                            role.name
                        ),
                        write: Write::RemoveMember {
                            organization,
                            role: role.id,
                            id: membership.id.clone(),
                        },
                        destructive: true,
                        form: None,
                    }
                })
            }
            ListId::Subscriptions => {
                self.subscriptions
                    .selected()
                    .filter(|s| !s.deleted)
                    .map(|subscription| Confirm {
                        question: format!(
                            "Soft-delete subscription #{} {}? (u restores it)",
                            subscription.id,
                            subscription
                                .title
                                .as_deref()
                                .filter(|t| !t.is_empty())
                                .unwrap_or("(untitled)")
                        ),
                        write: Write::SoftDelete {
                            project: self.context.project.clone(),
                            id: subscription.id,
                        },
                        destructive: true,
                        form: None,
                    })
            }
        };
        if let Some(confirm) = confirm {
            self.mode = Mode::Confirm(confirm);
        }
        Vec::new()
    }

    /// `u`: restore the selected soft-deleted subscription, or undo the last
    /// soft delete.
    pub(super) fn restore_item(&mut self) -> Vec<Effect> {
        if self.busy() {
            return Vec::new();
        }
        let project = self.context.project.clone();
        let id = match self.subscriptions.selected() {
            Some(subscription) if subscription.deleted => Some(subscription.id),
            _ => self.undo.as_ref().map(|undo| undo.id),
        };
        match id {
            Some(id) => self.write(Write::Restore { project, id }),
            None => {
                self.notice = Some(Notice::done(
                    "nothing to restore: u restores a soft-deleted subscription (D shows them)".into(),
                ));
                Vec::new()
            }
        }
    }

    /// Sends a write. The form or picker that is saving (or the form a
    /// confirmation came from) takes its answer; none other does.
    pub(super) fn write(&mut self, write: Write) -> Vec<Effect> {
        let ticket = self.writes.issue();
        match &mut self.mode {
            Mode::Form(form, _) if form.saving => form.pending = Some(ticket),
            Mode::Picker(picker) if picker.saving => picker.pending = Some(ticket),
            _ => {}
        }
        if let Some(resumed) = self.resume.as_mut()
            && resumed.0.pending.is_none()
        {
            resumed.0.pending = Some(ticket);
        }
        self.writing += 1;
        vec![Effect::Write { ticket, write }]
    }

    /// Refuses a second destructive change while one is on its way.
    fn busy(&mut self) -> bool {
        if self.writing > 0 {
            self.notice = Some(Notice::error(
                "a change is still on its way: try again when it is done".into(),
            ));
        }
        self.writing > 0
    }

    /// `y` says yes; Enter says yes only to a question that destroys
    /// nothing (saving an edit); every other key says no.
    pub(super) fn confirm_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let Mode::Confirm(confirm) = &self.mode else {
            return Vec::new();
        };
        let yes = match key.code {
            KeyCode::Char('y') | KeyCode::Char('Y') => true,
            KeyCode::Enter => !confirm.destructive,
            _ => false,
        };
        match yes {
            true => {
                let Mode::Confirm(confirm) = std::mem::replace(&mut self.mode, Mode::Normal) else {
                    return Vec::new();
                };
                // The form stays at hand: it comes back if the write fails.
                self.resume = confirm.form.map(|mut resumed| {
                    resumed.0.saving = true;
                    resumed.0.pending = None;
                    resumed
                });
                self.write(confirm.write)
            }
            false => {
                let Mode::Confirm(confirm) = std::mem::replace(&mut self.mode, Mode::Normal) else {
                    return Vec::new();
                };
                if let Some(resumed) = confirm.form {
                    let (mut form, purpose) = *resumed;
                    form.saving = false;
                    self.mode = Mode::Form(Box::new(form), purpose);
                }
                Vec::new()
            }
        }
    }

    /// An answer to a write.
    pub(super) fn written(
        &mut self,
        ticket: Ticket,
        write: Write,
        result: Result<Written, api::Error>,
    ) -> Vec<Effect> {
        self.writing = self.writing.saturating_sub(1);
        self.dirty = true;
        let height = self.table_height();
        // Whether the form or picker open now is the one that sent this
        // write; a form the user left, or another one, is never touched.
        let mut ours = match &self.mode {
            Mode::Form(form, _) => form.pending == Some(ticket),
            Mode::Picker(picker) => picker.pending == Some(ticket),
            _ => false,
        };
        let resumed = self.resume.take_if(|resumed| resumed.0.pending == Some(ticket));
        let written = match result {
            Ok(written) => written,
            Err(error) => {
                self.learn_from(&error);
                if let Some(resumed) = resumed
                    && matches!(self.mode, Mode::Normal)
                {
                    let (form, purpose) = *resumed;
                    self.mode = Mode::Form(Box::new(form), purpose);
                    ours = true;
                }
                if !ours {
                    self.notice = Some(Notice::error(error.to_string()));
                    return Vec::new();
                }
                match &mut self.mode {
                    // The form stays open with everything typed.
                    Mode::Form(form, _) => match &error {
                        api::Error::Api(refusal) => form.refused_by(refusal, error.to_string()),
                        _ => form.refused(error.to_string(), None),
                    },
                    Mode::Picker(picker) => {
                        picker.saving = false;
                        picker.error = Some(error.to_string());
                    }
                    _ => self.notice = Some(Notice::error(error.to_string())),
                }
                return Vec::new();
            }
        };
        let mut effects = Vec::new();
        let text = match (write, written) {
            (Write::CreateRole { .. }, Written::Role(role)) => {
                if ours {
                    self.mode = Mode::Normal;
                }
                let name = role.name.clone();
                self.roles.list.push_row(*role);
                self.roles.move_to(self.roles.len() as i64 - 1, height);
                format!("created the role {name}")
            }
            (Write::UpdateRole { id, .. }, Written::Role(role)) => {
                if ours {
                    self.mode = Mode::Normal;
                }
                let name = role.name.clone();
                if let Some(index) = self.roles.list.position(|row| row.id == id) {
                    self.roles.list.replace_row(index, *role);
                }
                format!("saved the role {name}")
            }
            (Write::DeleteRole { id, .. }, Written::Deleted) => {
                let mut name = String::new();
                if let Some(index) = self.roles.list.position(|row| row.id == id) {
                    name = self
                        .roles
                        .list
                        .get(index)
                        .map(|role| role.name.clone())
                        .unwrap_or_default();
                    self.roles.list.remove_row(index);
                }
                if self.role.as_ref().is_some_and(|role| role.id == id) {
                    self.role = None;
                }
                self.roles.move_to(self.roles.cursor as i64, height);
                format!("deleted the role {name}").trim_end().to_string()
            }
            (Write::RemoveMember { id, role, .. }, Written::Deleted) => {
                self.role_members_changed(&role, None, Some(&id));
                if let Some(index) = self.members.list.position(|row| row.id == id) {
                    self.members.list.remove_row(index);
                }
                self.members.move_to(self.members.cursor as i64, height);
                "removed from the role".to_string()
            }
            (Write::AssignMembers { role, .. }, Written::Assigned(results)) => {
                let mut added = Vec::new();
                let mut failed = Vec::new();
                for (who, result) in results {
                    match result {
                        Ok(membership) => {
                            self.role_members_changed(&role, Some(membership.clone()), None);
                            self.members.list.push_row(membership);
                            added.push(who);
                        }
                        Err(reason) => failed.push(format!("{who}: {reason}")),
                    }
                }
                if ours {
                    self.mode = Mode::Normal;
                }
                let mut text = format!("assigned {}", added.len());
                if !added.is_empty() {
                    text.push_str(&format!(" ({})", added.join(", ")));
                }
                if !failed.is_empty() {
                    text.push_str(&format!("; not assigned: {}", failed.join("; ")));
                    self.notice = Some(Notice::error(text));
                    self.apply_view();
                    return self.fetch_visible();
                }
                text
            }
            (Write::CreateSubscription { .. }, Written::Subscription(subscription)) => {
                self.refocus[2] = Some(subscription.id.to_string());
                if ours {
                    self.mode = Mode::Normal;
                }
                // Newest first: the list starts over with it at the top.
                self.subscriptions.cursor = 0;
                self.subscriptions.top = 0;
                self.subscriptions.list.restart();
                format!(
                    "created subscription #{}: {}",
                    subscription.id,
                    subscription.summary.unwrap_or_default()
                )
            }
            (Write::UpdateSubscription { id, .. }, Written::Subscription(subscription)) => {
                self.resume = None;
                self.replace_subscription(*subscription);
                format!("saved subscription #{id}")
            }
            (Write::SoftDelete { id, .. }, Written::Subscription(subscription)) => {
                self.replace_subscription(*subscription);
                let ticket = self.undos.issue();
                self.undo = Some(Undo { id, ticket });
                effects.push(Effect::Timer {
                    timer: Timer::Undo,
                    ticket,
                });
                format!("soft-deleted subscription #{id}: u to undo")
            }
            (Write::Restore { id, .. }, Written::Subscription(subscription)) => {
                self.replace_subscription(*subscription);
                self.undo = None;
                format!("restored subscription #{id}")
            }
            (write, written) => {
                tracing::warn!(?write, ?written, "an answer that does not fit its write");
                return Vec::new();
            }
        };
        self.notice = Some(Notice::done(text));
        self.apply_view();
        effects.extend(self.fetch_visible());
        effects
    }

    /// Keeps a role's row (its member count, the names in its detail) in
    /// step with memberships added or removed.
    fn role_members_changed(
        &mut self,
        role_id: &str,
        added: Option<crate::api::RoleMembership>,
        removed: Option<&str>,
    ) {
        let Some(index) = self.roles.list.position(|role| role.id == role_id) else {
            return;
        };
        let Some(mut role) = self.roles.list.get(index).cloned() else {
            return;
        };
        if let Some(crate::api::ListOrText::List(members)) = &mut role.members {
            members.extend(added);
            if let Some(id) = removed {
                members.retain(|membership| membership.id != id);
            }
        }
        self.roles.list.replace_row(index, role);
    }

    fn replace_subscription(&mut self, subscription: crate::api::Subscription) {
        let id = subscription.id();
        if let Some(index) = self.subscriptions.list.position(|row| row.id() == id) {
            self.subscriptions.list.replace_row(index, subscription);
        }
    }

    pub(super) fn undo_expired(&mut self, ticket: Ticket) {
        if self.undo.as_ref().is_some_and(|undo| undo.ticket == ticket) {
            self.undo = None;
            self.dirty = true;
        }
    }
}
