//! The preview before a change that moves access, the shell's side
//! (issue 32): a question before such a write (or a bulk run of them), or
//! a write that had no question (people assigned from the picker), waits
//! while the rules are read in the background (`screens/preview/`, Esc
//! stops it and nothing is sent); then the question is asked with who
//! gains and who loses in it. A Terraform-locked rule refuses it before
//! anything is sent; someone losing access makes Enter say no and yes
//! ask once more ("N people lose access. Go on?", `edit.rs`); nobody's
//! access moving leaves the question as it was, saying so. Rules that
//! cannot be read (an older server, a key without `access_control:read`)
//! leave the change as it was before previews, with a note. After the
//! change, the server's levels are checked against the preview and the
//! outcome said in the notice; `Change::AccessChanged` tells the screens
//! that show access to read it again.

use std::sync::Arc;

use super::{App, Confirm, Effect, Mode, Notice, Write};
use crate::access::preview::told;
use crate::console::screens::Change;
use crate::console::screens::preview::{Msg, Outcome, Pending, Previewed};

/// What a question says when the rules could not be read.
const NO_PREVIEW: &str = "No preview of who gains and who loses access: the access rules could not be read.";

impl App {
    /// A question before a write or a bulk run: asked at once, or, for a
    /// change that moves access not previewed yet, once the rules are read.
    pub(super) fn ask(&mut self, confirm: Confirm) -> Vec<Effect> {
        if confirm.previewed {
            self.mode = Mode::Confirm(confirm);
            return Vec::new();
        }
        match confirm.access_change() {
            Some(proposed) => self.start_preview(Pending::Ask(confirm), proposed),
            None => {
                self.mode = Mode::Confirm(confirm);
                Vec::new()
            }
        }
    }

    /// Reads the rules a change moves; what waits on them waits.
    pub(super) fn start_preview(
        &mut self,
        pending: Pending,
        proposed: crate::access::preview::Proposed,
    ) -> Vec<Effect> {
        let organization = self.context.organization.clone();
        let ask = self.screens.preview.start(pending, &organization, proposed);
        self.notice.shown = Some(Notice::working(
            "reading the rules to preview who gains and who loses access… (Esc stops: nothing is sent)"
                .into(),
        ));
        vec![Effect::from(ask)]
    }

    /// Esc while the rules are read: the read stops and nothing is sent.
    /// Whether one was under way.
    pub(super) fn stop_preview(&mut self) -> bool {
        if !self.screens.preview.stop() {
            return false;
        }
        if let Mode::Picker(picker) = &mut self.mode {
            picker.saving = false;
        }
        self.notice.shown = Some(Notice::done("stopped: nothing was sent".into()));
        self.window.dirty = true;
        true
    }

    /// Whether the rules are being read for a change.
    pub(super) fn previewing(&self) -> bool {
        self.screens.preview.is_reading()
    }

    /// The preview's answers: the rules read, or the check after a change.
    pub(super) fn preview_heard(&mut self, msg: Msg) -> Vec<Effect> {
        self.window.dirty = true;
        match msg {
            Msg::Read { ticket, outcome } => match self.screens.preview.arrived(ticket) {
                Some(pending) => self.previewed(pending, outcome),
                None => Vec::new(),
            },
            Msg::Checked { ticket, result } => {
                self.screens.preview.checked(ticket);
                let (text, wrong) = match result {
                    Ok(checked) => (told::checked_text(&checked), !checked.differences.is_empty()),
                    Err(error) => (
                        format!(
                            "the change is made, but the server's levels could not be read to check the preview: {}",
                            crate::text::printable(&error)
                        ),
                        true,
                    ),
                };
                // Said after what the change's own notice said, if it still shows.
                let text = match self.notice.shown.take() {
                    Some(said) if !said.text.is_empty() => format!("{} · {text}", said.text),
                    _ => text,
                };
                self.notice.shown = Some(match wrong {
                    true => Notice::error(text),
                    false => Notice::done(text),
                });
                Vec::new()
            }
        }
    }

    /// The rules read (or not): the question with the preview in it, the
    /// write sent, or the change refused.
    fn previewed(&mut self, pending: Pending, outcome: Outcome) -> Vec<Effect> {
        // The question comes only where it was asked for: over the screen
        // (or the picker that sends), not over a form, a line or a help
        // opened while the rules were read.
        let free = matches!(
            (&self.mode, &pending),
            (Mode::Normal, _) | (Mode::Picker(_), Pending::Send(_))
        );
        if !free {
            self.notice.shown = Some(Notice::error(
                "the preview came while something else was open: nothing was sent; ask again".into(),
            ));
            return Vec::new();
        }
        self.notice.shown = None;
        let previewed = match outcome {
            Outcome::Read(previewed) => previewed,
            Outcome::Stopped => {
                self.notice.shown = Some(Notice::done("stopped: nothing was sent".into()));
                return Vec::new();
            }
            Outcome::Refused(why) => return self.refuse(why, pending),
            Outcome::Unread(error) => {
                // Logged, and a short note: the change goes on as before previews.
                tracing::info!(
                    "no preview of who gains or loses access: the access rules could not be read ({error})"
                );
                return match pending {
                    Pending::Ask(confirm) => {
                        self.mode = Mode::Confirm(Confirm {
                            question: format!("{}\n\n{NO_PREVIEW}", confirm.question),
                            previewed: true,
                            ..confirm
                        });
                        Vec::new()
                    }
                    Pending::Send(write) => self.send_previewed(write),
                };
            }
        };
        let effect = &previewed.effect;
        if !effect.locked.is_empty() {
            return self.refuse(told::locked_text(&effect.locked), pending);
        }
        let mut words = match effect.lines.is_empty() {
            true => "Nobody's access changes.".to_string(),
            false => crate::console::screens::write::preview_words(effect, "Who gains and who loses access:"),
        };
        for note in &previewed.world.notes {
            words.push_str(&format!("\nNote: {}", crate::text::printable(note)));
        }
        let losing = effect.losing;
        let moves = !effect.lines.is_empty();
        self.screens.preview.ready = Some(Arc::new(*previewed));
        match pending {
            Pending::Ask(confirm) => {
                self.mode = Mode::Confirm(confirm.with_preview(&words, losing));
                Vec::new()
            }
            Pending::Send(write) if !moves => self.send_previewed(write),
            Pending::Send(write) => {
                // Someone's access moves: what had no question asks now,
                // Enter meaning no when someone loses it.
                let question = format!("{}?", write.summary());
                let confirm = Confirm::write(question, write, losing > 0).with_preview(&words, losing);
                self.mode = Mode::Confirm(confirm);
                Vec::new()
            }
        }
    }

    /// A write previewed (or that could not be) goes out as it would have.
    fn send_previewed(&mut self, write: Write) -> Vec<Effect> {
        self.screens.preview.cleared = true;
        let effects = self.write(write);
        self.screens.preview.cleared = false;
        effects
    }

    /// Nothing is sent, and why; a question asked from a form gives the
    /// form back with what was typed, as a "no" does.
    fn refuse(&mut self, why: String, pending: Pending) -> Vec<Effect> {
        self.screens.preview.ready = None;
        if let Mode::Picker(picker) = &mut self.mode {
            picker.saving = false;
            picker.error = Some(why.clone());
        }
        if let Pending::Ask(Confirm {
            form: Some(resumed), ..
        }) = pending
        {
            let (mut form, purpose) = *resumed;
            form.saving = false;
            form.error = Some(why.clone());
            self.mode = Mode::Form(Box::new(form), purpose);
        }
        self.notice.shown = Some(Notice::error(why));
        Vec::new()
    }

    /// A write that moves access answered with success: the news that
    /// access changed, and the check of its preview, if it had one.
    pub(super) fn access_moved(&mut self, write: &Write, ticket: super::Ticket) -> Vec<Effect> {
        let previewed = self.screens.preview.landed(ticket);
        match write.access_change() {
            Some(proposed) => self.after_access_change(proposed.project, previewed),
            None if write.moves_access() => self.after_access_change(None, None),
            None => Vec::new(),
        }
    }

    /// After a change to who reaches what: the check, and the news.
    pub(super) fn after_access_change(
        &mut self,
        project: Option<i64>,
        previewed: Option<Arc<Previewed>>,
    ) -> Vec<Effect> {
        let mut effects = Vec::new();
        if let Some(previewed) = previewed {
            effects.push(Effect::from(self.screens.preview.check(previewed)));
        }
        effects.extend(self.announce(Change::AccessChanged { project }));
        effects
    }

    /// A question said no to: its preview goes.
    pub(super) fn forget_preview(&mut self) {
        self.screens.preview.ready = None;
    }
}
