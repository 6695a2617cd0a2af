//! The subscription form's life as the screen sees it: opened (with
//! "Deliver once on save" where the server is today's PostHog, and what it
//! asks for to offer), submitted (the write, or the question before it),
//! and refused (the server's words on the field the form calls it). The
//! shell holds the open form among its overlays and lends it here.

use super::list::Subscriptions;
use super::{Ask, Write as SubscriptionWrite, choices, fields};
use crate::api::{self, SubscriptionInput};
use crate::console::screens::{Confirm, FormPurpose, Opens, Write};
use crate::console::table::Table;
use crate::console::widgets::form::Form;

/// What submitting the subscription form comes to.
#[derive(Debug)]
pub enum Submitted {
    /// Send this write; the form shows it saving.
    Write(Write),
    /// Ask this first (the form kept, to come back to on no or a failure).
    Confirm(Confirm),
    /// The form shows what is wrong; nothing is sent.
    Refused,
    /// An edit that changes nothing: the form closes, saying so.
    Unchanged,
}

impl Table<Subscriptions> {
    /// A form opens (any: answers on their way are for an earlier one). A
    /// subscription's asks for the project's dashboards and insights to
    /// offer, and what its fields need; where the subscriptions on hand
    /// already say the server is today's PostHog (they carry `enabled`),
    /// "Deliver once on save" is there from the start, so that no save
    /// goes without it.
    pub fn form_opens(&mut self, form: &mut Form, purpose: &FormPurpose, project: &str) -> Vec<Ask> {
        let today = match purpose {
            FormPurpose::EditSubscription { id } => self
                .find(*id)
                .or(self.resource.read.last(*id))
                .is_some_and(|row| row.enabled.is_some()),
            FormPurpose::NewSubscription => self.rows.list.loaded().any(|(_, row)| row.enabled.is_some()),
            _ => false,
        };
        if today {
            choices::deliver_on_save(form, matches!(purpose, FormPurpose::EditSubscription { .. }));
        }
        self.resource.asked.reset();
        if !purpose.is_subscription() {
            return Vec::new();
        }
        let mut asks = vec![Ask::Catalog {
            ticket: self.resource.asked.catalog.issue(),
            project: project.to_owned(),
        }];
        asks.extend(self.form_lookups(form, purpose, project));
        asks
    }
}

/// A key was taken by the subscription form: its fields follow what was
/// chosen, and a save its fields refused says what is checked across
/// fields too, every error at once.
pub fn keyed(form: &mut Form) {
    fields::after_key(form);
    if std::mem::take(&mut form.refused_save)
        && let Err(errors) = fields::body(form)
    {
        form.show_errors(errors);
    }
}

/// The subscription form submitted: a new one is created (asked first
/// when it delivers on save); an edit is shown as "field: old → new"
/// before it is sent, or closes when it changes nothing.
pub fn submitted(form: &mut Form, purpose: &FormPurpose, project: &str) -> Submitted {
    let body = match fields::body(form) {
        Ok(body) => body,
        Err(errors) => {
            form.show_errors(errors);
            return Submitted::Refused;
        }
    };
    let project = project.to_owned();
    let id = match purpose {
        FormPurpose::EditSubscription { id } => *id,
        _ => {
            let deliver = body.send_test_now == Some(true);
            let write = Write::Subscription(SubscriptionWrite::Create {
                project,
                body: Box::new(body),
            });
            if !deliver {
                return Submitted::Write(write);
            }
            // Delivering on save mails every recipient: asked first, and
            // Enter says no.
            let question = format!(
                "Create this subscription and deliver it once now? It goes to every recipient{}.",
                recipients(form)
            );
            return Submitted::Confirm(Confirm {
                form: Some(Box::new((form.clone(), purpose.clone()))),
                ..Confirm::write(question, write, true)
            });
        }
    };
    let (changed, lines) = fields::changes(form, &body);
    let deliver = changed.send_test_now == Some(true);
    let fields_changed = !SubscriptionInput {
        send_test_now: None,
        ..changed.clone()
    }
    .is_empty();
    if !fields_changed && !deliver {
        return Submitted::Unchanged;
    }
    // One that delivers says so, and Enter says no to it.
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
    let write = Write::Subscription(SubscriptionWrite::Update {
        project,
        id,
        body: Box::new(changed),
    });
    // Saving is harmless; delivering on save reaches people.
    Submitted::Confirm(Confirm {
        form: Some(Box::new((form.clone(), purpose.clone()))),
        ..Confirm::write(question, write, deliver)
    })
}

/// The server refused what the subscription form sent: its words on the
/// field the form calls it (the API's name may be another: "dashboard" is
/// chosen under "Delivers"); "Cannot select more than N insights." teaches
/// the form N, and it refuses a choice beyond it.
pub fn refused(form: &mut Form, refusal: &api::Refusal, text: String) {
    let mut refusal = refusal.clone();
    refusal.attr = choices::form_field(form, refusal.attr.as_deref()).map(str::to_string);
    form.refused_by(&refusal, text);
    if let Some(cap) = refusal.export_cap() {
        choices::learn_export_cap(form, cap);
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

impl Table<Subscriptions> {
    /// `n`: the form for a new subscription.
    pub fn opens_new(&self, now: chrono::DateTime<chrono::Utc>) -> Opens {
        Opens::Form(Box::new(fields::form(None, now)), FormPurpose::NewSubscription)
    }
}

impl crate::console::screens::Screens {
    /// `e` with `shown` on screen: the form of the subscription under the
    /// cursor, or of the Health row's, or of the deliveries' on screen.
    pub fn opens_subscription(
        &self,
        shown: crate::console::screens::ScreenId,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Opens {
        match self.acted_on(shown) {
            Some(subscription) => Opens::Form(
                Box::new(fields::form(Some(subscription), now)),
                FormPurpose::EditSubscription { id: subscription.id },
            ),
            None => match self.subscription_of(shown) {
                // On Subscriptions, the row under the cursor is loaded.
                Some(id) if shown != crate::console::screens::ScreenId::Subscriptions => {
                    Opens::ReadFirst(id, super::read::Then::Edit)
                }
                _ => Opens::Nothing,
            },
        }
    }
}
