//! The forms, opened with `n` and `e`: each screen says what its form
//! holds, what `n` and `e` open and what submitting it sends (Subscriptions':
//! `screens/subscriptions/form.rs`); here they open among the overlays,
//! take keys, and send.

use ratatui::crossterm::event::KeyEvent;

use super::{App, Effect, FormPurpose, Mode, Notice};
use crate::console::screens::Opens;
use crate::console::screens::roles::list as roles;
use crate::console::screens::subscriptions::form::{self as subscription_form, Submitted};
use crate::console::widgets::form::{Form, Outcome};

impl App {
    /// `n`: a new row of the list shown, where it takes new rows (the
    /// screen says what opens).
    pub(super) fn new_item(&mut self) -> Vec<Effect> {
        let opens = self.screens.opens_new(self.shown(), self.window.now);
        self.opens(opens)
    }

    /// `e`: edit the selected row (the screen says what opens).
    pub(super) fn edit_item(&mut self) -> Vec<Effect> {
        let opens = self.screens.opens_edit(self.shown(), self.window.now);
        self.opens(opens)
    }

    /// Opens what a screen said `n` or `e` opens.
    fn opens(&mut self, opens: Opens) -> Vec<Effect> {
        match opens {
            Opens::Form(form, purpose) => self.open_form(*form, purpose),
            Opens::Picker => self.open_picker(),
            Opens::ReadFirst(id, then) => self.read_then(id, then),
            Opens::Rule => self.lend_then_follow(|screens, ctx| screens.edit_rule_here(ctx)),
            Opens::Nothing => Vec::new(),
        }
    }

    /// Opens a form; Subscriptions says what a subscription's asks for
    /// and offers from the start.
    fn open_form(&mut self, mut form: Form, purpose: FormPurpose) -> Vec<Effect> {
        let project = &self.context.project;
        let asks = self
            .screens
            .subscriptions
            .form_opens(&mut form, &purpose, project);
        self.mode = Mode::Form(Box::new(form), purpose);
        asks.into_iter().map(Effect::from).collect()
    }

    /// Asks for what the subscription form now needs and has not asked
    /// for (Subscriptions says what).
    fn form_lookups(&mut self) -> Vec<Effect> {
        let Mode::Form(form, purpose) = &mut self.mode else {
            return Vec::new();
        };
        let project = &self.context.project;
        let asks = self.screens.subscriptions.form_lookups(form, purpose, project);
        asks.into_iter().map(Effect::from).collect()
    }

    pub(super) fn form_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let organization = self.context.organization.clone();
        let Mode::Form(form, purpose) = &mut self.mode else {
            return Vec::new();
        };
        let outcome = form.key(key);
        if purpose.is_subscription() {
            subscription_form::keyed(form);
        }
        match outcome {
            Outcome::Editing => return self.form_lookups(),
            Outcome::Cancel => {
                self.mode = Mode::Normal;
                return Vec::new();
            }
            Outcome::Submit => {}
        }
        let submitted = match purpose {
            FormPurpose::NewRole | FormPurpose::EditRole { .. } => {
                match roles::submitted(form, purpose, &organization) {
                    Some(write) => Submitted::Write(write),
                    None => Submitted::Unchanged,
                }
            }
            FormPurpose::NewSubscription | FormPurpose::EditSubscription { .. } => {
                subscription_form::submitted(form, purpose, &self.context.project)
            }
        };
        match submitted {
            Submitted::Write(write) => {
                form.saving = true;
                form.error = None;
                self.write(write)
            }
            Submitted::Confirm(confirm) => self.ask(confirm),
            Submitted::Refused => Vec::new(),
            Submitted::Unchanged => {
                self.mode = Mode::Normal;
                self.notice.shown = Some(Notice::done("nothing changed".into()));
                Vec::new()
            }
        }
    }
}
