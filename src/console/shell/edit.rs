//! Changing things: confirmations before anything is deleted, soft delete
//! and restore of subscriptions with undo, sending writes, and carrying out
//! what the screen whose write it was says its answer does
//! ([`crate::console::screens::Landed`]: news for every screen, the
//! notice, the form closing, the undo, a delivery watched for). A failed
//! write lands here: on the form or picker that sent it, or in the notice.
//! A write that moves access is previewed before it is asked about or
//! sent (`preview.rs`); a question whose preview has someone losing access
//! asks once more here, Enter meaning no, before production's question.

use ratatui::crossterm::event::KeyEvent;

use super::{
    App, Confirm, Confirmed, Effect, FormPurpose, Latest, Mode, Notice, ScreenId, Ticket, Timer, Write,
    Written,
};
use crate::api;
use crate::console::screens::preview::Pending;
use crate::console::screens::subscriptions;
use crate::console::screens::{Landing, Then};
use crate::console::widgets::form::Form;
use crate::console::widgets::question::{self, Answer};

/// The writes the console has sent: their tickets, how many are on their
/// way, the form to reopen if one fails, and a production yes waiting.
#[derive(Default)]
pub(super) struct Writes {
    /// Tickets of writes; each answer carries its own.
    pub(super) tickets: Latest,
    /// How many writes are on their way (a `:ctx` waits for none).
    pub(super) sending: usize,
    /// The form a confirmed write came from, to reopen if the write fails.
    pub(super) resume: Option<Box<(Form, FormPurpose)>>,
    /// A production write said yes to twice: the next `write` goes out.
    pub(super) production_yes: bool,
}

impl App {
    /// `d`: asks first, naming what goes.
    pub(super) fn delete_item(&mut self) -> Vec<Effect> {
        if self.busy() {
            return Vec::new();
        }
        let confirm = self.screens.confirm_delete(self.shown(), self.scope());
        match confirm {
            Some(confirm) => self.ask(confirm),
            None => Vec::new(),
        }
    }

    /// `u`: restore the selected soft-deleted subscription, or undo the last
    /// soft delete.
    pub(super) fn restore_item(&mut self) -> Vec<Effect> {
        if self.busy() {
            return Vec::new();
        }
        let act = self
            .screens
            .restore(self.shown(), &self.context.project, &mut self.notice.shown);
        self.key_act(act)
    }

    /// Sends a write. The form or picker that is saving (or the form a
    /// confirmation came from) takes its answer; none other does.
    pub(super) fn write(&mut self, write: Write) -> Vec<Effect> {
        // Every key that writes is refused earlier under --read-only; this
        // holds whatever path a write takes.
        if self.permissions.read_only {
            self.notice.shown = Some(Notice::error(
                "read-only: orgdeck was started with --read-only; nothing was sent".into(),
            ));
            return Vec::new();
        }
        // A change to who reaches what is previewed first (`preview.rs`).
        let previewed = std::mem::take(&mut self.screens.preview.cleared);
        if !previewed && let Some(proposed) = write.access_change() {
            return self.start_preview(Pending::Send(write), proposed);
        }
        // On production, a write nobody has said yes to twice is asked about.
        if self.context.production && !std::mem::take(&mut self.writes.production_yes) {
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
                previewed,
                ..Confirm::write(question, write, true)
            };
            self.mode = Mode::Confirm(confirm.once_more_on(&self.profile_name()));
            return Vec::new();
        }
        let ticket = self.writes.tickets.issue();
        match &mut self.mode {
            Mode::Form(form, _) if form.saving => form.pending = Some(ticket),
            Mode::Picker(picker) if picker.saving => picker.pending = Some(ticket),
            _ => {}
        }
        if let Some(resumed) = self.writes.resume.as_mut()
            && resumed.0.pending.is_none()
        {
            resumed.0.pending = Some(ticket);
        }
        if let Write::Offboard(_) = &write {
            let (screens, ctx) = self.lend();
            screens.offboard_sent(ticket, &ctx);
        }
        // Its preview is checked once it lands.
        self.screens.preview.sent(ticket);
        self.writes.sending += 1;
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
        // The rules read for a preview count as a change on its way.
        let busy = self.writes.sending > 0 || self.previewing();
        if busy {
            self.notice.shown = Some(Notice::error(
                "a change is still on its way: try again when it is done".into(),
            ));
        }
        busy
    }

    /// A key on a question, under the one rule: `y` yes, `n` or Esc no,
    /// Enter the highlighted answer (no for anything that deletes, removes
    /// or reaches people); any other key leaves the question open. A
    /// change that takes access away asks once more, naming how many
    /// lose it, Enter meaning no; then production's question, if any.
    pub(super) fn confirm_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let Mode::Confirm(confirm) = &self.mode else {
            return Vec::new();
        };
        let Some(answer) = question::answer(&key, confirm.highlighted) else {
            self.window.dirty = false;
            return Vec::new();
        };
        let Mode::Confirm(confirm) = std::mem::replace(&mut self.mode, Mode::Normal) else {
            return Vec::new();
        };
        match answer {
            Answer::Yes if confirm.losing > 0 => {
                // Someone loses access: asked once more, Enter meaning no.
                self.mode = Mode::Confirm(confirm.losing_question());
                Vec::new()
            }
            Answer::Yes if self.context.production && !confirm.production => {
                // Production: asked once more, Enter meaning no.
                self.mode = Mode::Confirm(confirm.once_more_on(&self.profile_name()));
                Vec::new()
            }
            Answer::Yes => {
                self.writes.production_yes = confirm.production;
                // The form stays at hand: it comes back if the write fails.
                self.writes.resume = confirm.form.map(|mut resumed| {
                    resumed.0.saving = true;
                    resumed.0.pending = None;
                    resumed
                });
                // Previewed already: sent without reading again.
                self.screens.preview.cleared = confirm.previewed;
                let effects = match confirm.then {
                    Confirmed::Write(write) => self.write(write),
                    Confirmed::Bulk(bulk) => self.run_bulk(*bulk),
                };
                // A yes counts for the one change it was given to.
                self.writes.production_yes = false;
                self.screens.preview.cleared = false;
                effects
            }
            Answer::No => {
                self.forget_preview();
                if let Some(resumed) = confirm.form {
                    let (mut form, purpose) = *resumed;
                    form.saving = false;
                    self.mode = Mode::Form(Box::new(form), purpose);
                }
                Vec::new()
            }
        }
    }

    /// An answer to a write: a success lands as its screen says, a
    /// failure on the form or picker that sent it, or in the notice.
    pub(super) fn written(
        &mut self,
        ticket: Ticket,
        write: Write,
        result: Result<Written, api::Error>,
    ) -> Vec<Effect> {
        self.writes.sending = self.writes.sending.saturating_sub(1);
        self.window.dirty = true;
        if let Write::Offboard(_) = write {
            if let Err(error) = &result {
                self.learn_from(error);
            }
            // Steps ran: who reaches what moved, whatever their outcome.
            let ran = matches!(result, Ok(Written::Offboarded(_)));
            let mut effects = self.lend_then_follow(|screens, ctx| screens.offboarded(ticket, result, ctx));
            match ran {
                true => effects.extend(self.access_moved(&write, ticket)),
                false => drop(self.screens.preview.landed(ticket)),
            }
            return effects;
        }
        // Whether the form or picker open now is the one that sent this
        // write; a form the user left, or another one, is never touched.
        let ours = match &self.mode {
            Mode::Form(form, _) => form.pending == Some(ticket),
            Mode::Picker(picker) => picker.pending == Some(ticket),
            _ => false,
        };
        let resumed = self
            .writes
            .resume
            .take_if(|resumed| resumed.0.pending == Some(ticket));
        match result {
            Ok(written) => {
                let mut effects = self.landed(&write, written, ours);
                effects.extend(self.access_moved(&write, ticket));
                effects
            }
            Err(error) => {
                drop(self.screens.preview.landed(ticket));
                self.write_failed(&write, error, ours, resumed);
                Vec::new()
            }
        }
    }

    /// A refused write: an on-call action's refusal in words that say what
    /// to do, else on the form (back with everything typed) or picker that
    /// sent it, else in the notice.
    fn write_failed(
        &mut self,
        write: &Write,
        error: api::Error,
        mut ours: bool,
        resumed: Option<Box<(Form, FormPurpose)>>,
    ) {
        self.learn_from(&error);
        if let Some(text) = Self::on_call_refusal(write, &error) {
            self.notice.shown = Some(Notice::error(text));
            return;
        }
        if let Some(resumed) = resumed
            && matches!(self.mode, Mode::Normal)
        {
            let (form, purpose) = *resumed;
            self.mode = Mode::Form(Box::new(form), purpose);
            ours = true;
        }
        if !ours {
            self.notice.shown = Some(Notice::error(error.to_string()));
            return;
        }
        match &mut self.mode {
            // The form stays open with everything typed.
            Mode::Form(form, purpose) => match &error {
                // In the form's own words, for a subscription's.
                api::Error::Api(refusal) if purpose.is_subscription() => {
                    subscriptions::form::refused(form, refusal, error.to_string())
                }
                api::Error::Api(refusal) => form.refused_by(refusal, error.to_string()),
                _ => form.refused(error.to_string(), None),
            },
            Mode::Picker(picker) => {
                picker.saving = false;
                picker.error = Some(error.to_string());
            }
            _ => self.notice.shown = Some(Notice::error(error.to_string())),
        }
    }

    /// A write's success, as its screen says it lands: the form that sent
    /// it closing, its news to every screen, the notice, and what only the
    /// shell starts.
    fn landed(&mut self, write: &Write, written: Written, ours: bool) -> Vec<Effect> {
        let at = Landing {
            now: self.window.now,
            zone: self.context.zone,
            shown: self.shown(),
        };
        let landed = write.land(written, &at);
        if landed.closes && ours {
            self.mode = Mode::Normal;
        }
        let mut effects = Vec::new();
        for change in landed.changes {
            effects.extend(self.announce(change));
        }
        if let Some(said) = landed.said {
            self.notice.shown = Some(match said {
                Ok(text) => Notice::done(text),
                Err(text) => Notice::error(text),
            });
        }
        for then in landed.then {
            match then {
                Then::OfferUndo(id) => {
                    let ticket = self.screens.subscriptions.offer_undo(id);
                    effects.push(Effect::Timer {
                        timer: Timer::Undo,
                        ticket,
                    });
                }
                Then::ForgetUndo => self.screens.subscriptions.forget_undo(),
                Then::ForgetResumed => self.writes.resume = None,
                Then::Watch { id, trigger } => effects.push(self.watch_for_delivery(id, trigger)),
                Then::ReadAgain { id, why } => effects.push(self.read_again(id, why)),
                Then::Restored(id) if self.screens.subscriptions.restored_elsewhere(id) => {
                    return self.reload(ScreenId::Subscriptions, false);
                }
                Then::Restored(_) => {}
                Then::Still => return effects,
            }
        }
        self.apply_view();
        effects.extend(self.fetch_visible());
        effects
    }

    pub(super) fn undo_expired(&mut self, ticket: Ticket) {
        if self.screens.subscriptions.undo_expired(ticket) {
            self.window.dirty = true;
        }
    }
}
