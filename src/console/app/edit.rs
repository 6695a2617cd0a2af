//! Changing things: confirmations before anything is deleted, soft delete
//! and restore of subscriptions with undo, sending writes, and what an answer
//! does to the tables (they change in place, no reload).

use ratatui::crossterm::event::KeyEvent;

use super::choose::{level_word, named};
use super::{App, Confirm, Confirmed, Effect, Mode, Notice, ScreenId, Ticket, Timer, Undo, Write, Written};
use crate::api::{self};
use crate::console::lists::{roles, subscriptions::choices};
use crate::console::screens::Change;
use crate::console::screens::roles::Write as RoleWrite;
use crate::console::widgets::question::{self, Answer};

impl App {
    /// `d`: asks first, naming what goes.
    pub(super) fn delete_item(&mut self) -> Vec<Effect> {
        if self.busy() {
            return Vec::new();
        }
        let confirm = self.lists.get(self.shown()).confirm_delete(self.scope());
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
        // On a subscription's deliveries (or a Health row), `u` is about
        // that subscription alone: restored when it is soft-deleted.
        if matches!(self.shown(), ScreenId::Deliveries | ScreenId::Health) {
            let Some(id) = self.acted_on_id() else {
                return Vec::new();
            };
            return match self.acted_on().map(|subscription| subscription.deleted) {
                Some(true) => self.write(Write::Restore { project, id }),
                Some(false) => {
                    self.notice = Some(Notice::done(format!(
                        "#{id} is not soft-deleted: nothing to restore"
                    )));
                    Vec::new()
                }
                None => self.read_then(id, super::health::Then::Restore),
            };
        }
        let selected = match self.shown() {
            ScreenId::Subscriptions => self.lists.subscriptions.selected(),
            ScreenId::Roles
            | ScreenId::Members
            | ScreenId::Deliveries
            | ScreenId::Health
            | ScreenId::People
            | ScreenId::Person
            | ScreenId::Offboard => None,
        };
        let id = match selected {
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
        // On production, a write nobody has said yes to twice is asked about.
        if self.context.production && !std::mem::take(&mut self.production_yes) {
            let form = match std::mem::replace(&mut self.mode, Mode::Normal) {
                Mode::Form(form, purpose) => Some(Box::new((*form, purpose))),
                other => {
                    self.mode = other;
                    None
                }
            };
            let question = format!("{}?", write.summary());
            let confirm = Confirm {
                form,
                ..Confirm::write(question, write, true)
            };
            self.mode = Mode::Confirm(confirm.once_more_on(&self.profile_name()));
            return Vec::new();
        }
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
        if let Write::Offboard { .. } = &write {
            self.offboard_sent(ticket);
        }
        self.writing += 1;
        vec![Effect::Write { ticket, write }]
    }

    /// The profile's name, for a production question.
    fn profile_name(&self) -> String {
        self.context
            .profile
            .clone()
            .unwrap_or_else(|| "this profile".into())
    }

    /// Refuses a second destructive change while one is on its way.
    pub(super) fn busy(&mut self) -> bool {
        if self.writing > 0 {
            self.notice = Some(Notice::error(
                "a change is still on its way: try again when it is done".into(),
            ));
        }
        self.writing > 0
    }

    /// A key on a question, under the one rule: `y` yes, `n` or Esc no,
    /// Enter the highlighted answer (no for anything that deletes, removes
    /// or reaches people); any other key leaves the question open.
    pub(super) fn confirm_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let Mode::Confirm(confirm) = &self.mode else {
            return Vec::new();
        };
        let Some(answer) = question::answer(&key, confirm.highlighted) else {
            self.dirty = false;
            return Vec::new();
        };
        let Mode::Confirm(confirm) = std::mem::replace(&mut self.mode, Mode::Normal) else {
            return Vec::new();
        };
        match answer {
            Answer::Yes if self.context.production && !confirm.production => {
                // Production: asked once more, Enter meaning no.
                self.mode = Mode::Confirm(confirm.once_more_on(&self.profile_name()));
                Vec::new()
            }
            Answer::Yes => {
                self.production_yes = confirm.production;
                // The form stays at hand: it comes back if the write fails.
                self.resume = confirm.form.map(|mut resumed| {
                    resumed.0.saving = true;
                    resumed.0.pending = None;
                    resumed
                });
                let effects = match confirm.then {
                    Confirmed::Write(write) => self.write(write),
                    Confirmed::Bulk(bulk) => self.run_bulk(*bulk),
                };
                // A yes counts for the one change it was given to.
                self.production_yes = false;
                effects
            }
            Answer::No => {
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
        if let Write::Offboard { .. } = write {
            return self.offboarded(ticket, result);
        }
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
            Err(error) if let Some(text) = Self::on_call_refusal(&write, &error) => {
                self.learn_from(&error);
                self.notice = Some(Notice::error(text));
                return Vec::new();
            }
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
                    Mode::Form(form, purpose) => match &error {
                        // The API's name for a field may be another in the form
                        // ("dashboard" is chosen under "Delivers").
                        api::Error::Api(refusal) if purpose.is_subscription() => {
                            let mut refusal = (**refusal).clone();
                            refusal.attr =
                                choices::form_field(form, refusal.attr.as_deref()).map(str::to_string);
                            form.refused_by(&refusal, error.to_string());
                            // "Cannot select more than N insights.": the form
                            // learns N, and refuses a choice beyond it.
                            if let Some(cap) = refusal.export_cap() {
                                choices::learn_export_cap(form, cap);
                            }
                        }
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
        let lists = &mut self.lists;
        let text = match (write, written) {
            (Write::Role(RoleWrite::Create { .. }), Written::Role(role)) => {
                if ours {
                    self.mode = Mode::Normal;
                }
                roles::created(&mut lists.roles, *role, height)
            }
            (Write::Role(RoleWrite::Update { id, .. }), Written::Role(role)) => {
                if ours {
                    self.mode = Mode::Normal;
                }
                roles::updated(&mut lists.roles, &id, *role)
            }
            (Write::Role(write @ RoleWrite::Delete { .. }), Written::Deleted) => {
                if let Some(change) = write.change() {
                    self.announce(change);
                }
                roles::deleted(&mut self.lists.roles, write.role().unwrap_or_default(), height)
            }
            (Write::RemoveMember { id, role, .. }, Written::Deleted) => {
                self.announce(Change::Left { role, membership: id });
                "removed from the role".to_string()
            }
            (Write::AddToRoles { .. }, Written::Assigned(results)) => {
                let mut added = Vec::new();
                let mut failed = Vec::new();
                for (what, result) in results {
                    match result {
                        Ok(membership) => {
                            self.announce(Change::Joined(Box::new(membership)));
                            added.push(what);
                        }
                        Err(reason) => failed.push(format!("{what}: {reason}")),
                    }
                }
                let mut text = format!("added {}", added.len());
                if !added.is_empty() {
                    text.push_str(&format!(": {}", added.join("; ")));
                }
                if !failed.is_empty() {
                    text.push_str(&format!("; not added: {}", failed.join("; ")));
                    self.notice = Some(Notice::error(text));
                    self.apply_view();
                    return self.fetch_visible();
                }
                text
            }
            (Write::SetLevel { .. }, Written::Member(member)) => {
                let text = format!("{} is now {}", named(&member).label, level_word(member.level));
                self.announce(Change::MemberChanged(member));
                text
            }
            (Write::AssignMembers { .. }, Written::Assigned(results)) => {
                let mut added = Vec::new();
                let mut failed = Vec::new();
                for (who, result) in results {
                    match result {
                        Ok(membership) => {
                            self.announce(Change::Joined(Box::new(membership)));
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
                if ours {
                    self.mode = Mode::Normal;
                }
                lists.subscriptions.created(&subscription)
            }
            (Write::UpdateSubscription { id, .. }, Written::Subscription(subscription)) => {
                self.resume = None;
                self.announce(Change::SubscriptionChanged(subscription));
                format!("saved subscription #{id}")
            }
            (Write::SoftDelete { id, .. }, Written::Subscription(subscription)) => {
                self.announce(Change::SubscriptionChanged(subscription));
                let ticket = self.undos.issue();
                self.undo = Some(Undo { id, ticket });
                effects.push(Effect::Timer {
                    timer: Timer::Undo,
                    ticket,
                });
                format!("soft-deleted subscription #{id}: u to undo")
            }
            (Write::Restore { id, .. }, Written::Subscription(subscription)) => {
                self.undo = None;
                let held = self
                    .lists
                    .subscriptions
                    .rows
                    .list
                    .position(|row| row.id == id)
                    .is_some();
                self.announce(Change::SubscriptionChanged(subscription));
                if !held && !self.lists.subscriptions.resource.filter.deleted {
                    // Gone from the list since (a refresh): it comes back
                    // where the server puts it, the cursor on it.
                    self.lists.subscriptions.refocus = Some(id.to_string());
                    self.notice = Some(Notice::done(format!("restored subscription #{id}")));
                    return self.reload(ScreenId::Subscriptions, false);
                }
                format!("restored subscription #{id}")
            }
            (Write::TestDelivery { id, .. }, Written::Accepted) => {
                effects.push(self.watch_for_delivery(id, Some(api::TriggerType::Manual)));
                effects.push(self.read_again(id, "tested"));
                format!("test delivery of #{id} on its way: the console says how it went when it lands")
            }
            (Write::SetEnabled { id, .. }, Written::Subscription(subscription))
                if subscription.enabled.is_none() =>
            {
                // An older PostHog keeps no `enabled`: it took the body and ignored it.
                self.announce(Change::SubscriptionChanged(subscription));
                let delete = match self.shown() {
                    ScreenId::Subscriptions => "d soft-deletes it instead",
                    _ => "d on its row of Subscriptions soft-deletes it instead",
                };
                self.notice = Some(Notice::error(format!(
                    "#{id} was not paused: this server keeps no paused state (an older PostHog); {delete}"
                )));
                return Vec::new();
            }
            (Write::SetEnabled { id, enabled, .. }, Written::Subscription(subscription)) => {
                let next = subscription
                    .next_delivery_date
                    .map(|at| crate::display::next_delivery(Some(at), self.now, self.context.zone))
                    .unwrap_or_else(|| "none left".into());
                self.announce(Change::SubscriptionChanged(subscription));
                if enabled {
                    // Resuming sends a confirmation delivery (posthog.md 8.4),
                    // which may pause it again: it is read again.
                    effects.push(self.watch_for_delivery(id, None));
                    effects.push(self.read_again(id, "resumed"));
                    format!("resumed #{id}: next delivery {next}")
                } else {
                    format!("paused #{id}: nothing is delivered until p resumes it")
                }
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

    pub(super) fn undo_expired(&mut self, ticket: Ticket) {
        if self.undo.as_ref().is_some_and(|undo| undo.ticket == ticket) {
            self.undo = None;
            self.dirty = true;
        }
    }
}
