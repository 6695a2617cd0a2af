//! The forms, opened with `n` and `e`: each list says what its form holds
//! and what submitting it sends; here they open, take keys, and send.

use ratatui::crossterm::event::KeyEvent;

use super::{App, Confirm, Effect, FormPurpose, Mode, Notice, ScreenId, Write};
use crate::api::SubscriptionInput;
use crate::console::lists::roles;
use crate::console::screens::subscriptions::Ask as SubscriptionsAsk;
use crate::console::screens::subscriptions::Write as SubscriptionWrite;
use crate::console::screens::subscriptions::{choices, fields};
use crate::console::widgets::form::{Form, Outcome};

impl App {
    /// `n`: a new row of the list shown, where it takes new rows.
    pub(super) fn new_item(&mut self) -> Vec<Effect> {
        let (form, purpose) = match self.shown() {
            ScreenId::Roles => roles::new_form(self.screens.roles.resource.access_levels),
            ScreenId::Subscriptions => (fields::form(None, self.now), FormPurpose::NewSubscription),
            ScreenId::Members => return self.open_picker(),
            ScreenId::Deliveries
            | ScreenId::Health
            | ScreenId::People
            | ScreenId::Person
            | ScreenId::Offboard => {
                return Vec::new();
            }
        };
        self.open_form(form, purpose)
    }

    /// `e`: edit the selected row.
    pub(super) fn edit_item(&mut self) -> Vec<Effect> {
        let opened = match self.shown() {
            ScreenId::Roles => self.screens.roles.selected().map(roles::edit_form),
            ScreenId::Subscriptions => self.screens.subscriptions.selected().map(|subscription| {
                let form = fields::form(Some(subscription), self.now);
                (form, FormPurpose::EditSubscription { id: subscription.id })
            }),
            // The row's subscription, or that of the deliveries on screen.
            ScreenId::Health | ScreenId::Deliveries => match self.acted_on() {
                Some(subscription) => {
                    let form = fields::form(Some(subscription), self.now);
                    Some((form, FormPurpose::EditSubscription { id: subscription.id }))
                }
                None => match self.acted_on_id() {
                    Some(id) => {
                        return self.read_then(id, crate::console::screens::subscriptions::read::Then::Edit);
                    }
                    None => None,
                },
            },
            ScreenId::Members | ScreenId::People | ScreenId::Person | ScreenId::Offboard => None,
        };
        match opened {
            Some((form, purpose)) => self.open_form(form, purpose),
            None => Vec::new(),
        }
    }

    /// Opens a form; a subscription's asks for the project's dashboards
    /// and insights to offer. Where the subscriptions on hand already say
    /// the server is today's PostHog (they carry `enabled`), "Deliver once
    /// on save" is there from the start, so that no save goes without it.
    fn open_form(&mut self, mut form: Form, purpose: FormPurpose) -> Vec<Effect> {
        let subscription = purpose.is_subscription();
        let today = match &purpose {
            FormPurpose::EditSubscription { id } => self
                .screens
                .subscriptions
                .find(*id)
                .or(self.screens.subscriptions.resource.read.last(*id))
                .is_some_and(|row| row.enabled.is_some()),
            FormPurpose::NewSubscription => self
                .screens
                .subscriptions
                .rows
                .list
                .loaded()
                .any(|(_, row)| row.enabled.is_some()),
            _ => false,
        };
        if today {
            choices::deliver_on_save(&mut form, matches!(purpose, FormPurpose::EditSubscription { .. }));
        }
        self.mode = Mode::Form(Box::new(form), purpose);
        // Answers for an earlier form are not this one's.
        self.screens.subscriptions.resource.asked.reset();
        if !subscription {
            return Vec::new();
        }
        let mut effects = vec![Effect::from(SubscriptionsAsk::Catalog {
            ticket: self.screens.subscriptions.resource.asked.catalog.issue(),
            project: self.context.project.clone(),
        })];
        effects.extend(self.form_lookups());
        effects
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
        let project = self.context.project.clone();
        let Mode::Form(form, purpose) = &mut self.mode else {
            return Vec::new();
        };
        let outcome = form.key(key);
        if purpose.is_subscription() {
            fields::after_key(form);
            // A save the fields refused: what is checked across fields is
            // said too, every error at once.
            if std::mem::take(&mut form.refused_save)
                && let Err(errors) = fields::body(form)
            {
                form.show_errors(errors);
            }
        }
        match outcome {
            Outcome::Editing => return self.form_lookups(),
            Outcome::Cancel => {
                self.mode = Mode::Normal;
                return Vec::new();
            }
            Outcome::Submit => {}
        }
        let write = match purpose.clone() {
            FormPurpose::NewRole | FormPurpose::EditRole { .. } => {
                roles::submitted(form, purpose, &organization)
            }
            FormPurpose::NewSubscription => match fields::body(form) {
                // Delivering on save mails every recipient: asked first,
                // and Enter says no.
                Ok(body) if body.send_test_now == Some(true) => {
                    let question = format!(
                        "Create this subscription and deliver it once now? It goes to every recipient{}.",
                        recipients(form)
                    );
                    let resumed = Box::new(((**form).clone(), purpose.clone()));
                    let write = Write::Subscription(SubscriptionWrite::Create {
                        project,
                        body: Box::new(body),
                    });
                    self.mode = Mode::Confirm(Confirm {
                        form: Some(resumed),
                        ..Confirm::write(question, write, true)
                    });
                    return Vec::new();
                }
                Ok(body) => Some(Write::Subscription(SubscriptionWrite::Create {
                    project,
                    body: Box::new(body),
                })),
                Err(errors) => {
                    form.show_errors(errors);
                    return Vec::new();
                }
            },
            FormPurpose::EditSubscription { id } => {
                let body = match fields::body(form) {
                    Ok(body) => body,
                    Err(errors) => {
                        form.show_errors(errors);
                        return Vec::new();
                    }
                };
                let (changed, lines) = fields::changes(form, &body);
                let deliver = changed.send_test_now == Some(true);
                let fields_changed = !SubscriptionInput {
                    send_test_now: None,
                    ..changed.clone()
                }
                .is_empty();
                if fields_changed || deliver {
                    // An edit is shown as "field: old → new" before it is
                    // sent; one that delivers says so, and Enter says no to it.
                    let mut question = match fields_changed {
                        true => format!("Save these changes to subscription #{id}?\n{}", lines.join("\n")),
                        false => format!("Deliver subscription #{id} once now, changing nothing?"),
                    };
                    if deliver {
                        question.push_str(&format!(
                            "\nIt is delivered once on save, to every recipient{}.",
                            recipients(form)
                        ));
                    }
                    let resumed = Box::new(((**form).clone(), purpose.clone()));
                    let write = Write::Subscription(SubscriptionWrite::Update {
                        project,
                        id,
                        body: Box::new(changed),
                    });
                    // Saving is harmless; delivering on save reaches people.
                    self.mode = Mode::Confirm(Confirm {
                        form: Some(resumed),
                        ..Confirm::write(question, write, deliver)
                    });
                    return Vec::new();
                }
                None
            }
        };
        match write {
            Some(write) => {
                form.saving = true;
                form.error = None;
                self.write(write)
            }
            None => {
                self.mode = Mode::Normal;
                self.notice = Some(Notice::done("nothing changed".into()));
                Vec::new()
            }
        }
    }
}

/// " (a@b.co, c@d.co)" or " (#ops)": whom a delivery on save reaches.
fn recipients(form: &Form) -> String {
    let target = match form.value("channel") {
        channel if !channel.is_empty() => channel,
        _ => form.value("target_value"),
    };
    let target = target.trim();
    if target.is_empty() {
        String::new()
    } else {
        format!(" ({target})")
    }
}
