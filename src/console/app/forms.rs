//! The forms, opened with `n` and `e`: each list says what its form holds
//! and what submitting it sends; here they open, take keys, and send.

use ratatui::crossterm::event::KeyEvent;

use super::{App, Confirm, Effect, FormPurpose, Mode, Notice, ScreenId, Write};
use crate::api::{self, SubscriptionInput};
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

    /// The subscription being edited, if the form edits one.
    fn edited(&self) -> Option<&api::Subscription> {
        match &self.mode {
            Mode::Form(_, FormPurpose::EditSubscription { id }) => self.screens.subscriptions.find(*id),
            _ => None,
        }
    }

    /// Asks for what the subscription form now needs and has not asked
    /// for: the tiles of the dashboard it delivers, the channels of the
    /// Slack integration it posts through.
    fn form_lookups(&mut self) -> Vec<Effect> {
        let Mode::Form(form, purpose) = &mut self.mode else {
            return Vec::new();
        };
        if !purpose.is_subscription() {
            return Vec::new();
        }
        let (dashboard, integration) = choices::wants(form);
        let project = self.context.project.clone();
        let mut effects = Vec::new();
        if let Some((dashboard, ticket)) = self.screens.subscriptions.resource.asked.tiles.ask(dashboard) {
            // Another dashboard: the insights of the last one go, so that
            // they are never sent with this one.
            form.remove_field("dashboard_export_insights");
            effects.push(Effect::from(SubscriptionsAsk::Tiles {
                ticket,
                project: project.clone(),
                dashboard,
            }));
        }
        if let Some((integration, ticket)) = self
            .screens
            .subscriptions
            .resource
            .asked
            .channels
            .ask(integration)
        {
            // Another integration: its own channels, once they come; the
            // target is typed meanwhile.
            form.remove_field("channel");
            choices::visibility(form);
            effects.push(Effect::from(SubscriptionsAsk::Channels {
                ticket,
                project,
                integration,
            }));
        }
        effects
    }

    /// A dashboard's tiles arrived: its insights to choose from, if the
    /// form still delivers that dashboard. A server that shows no tiles
    /// exports the dashboard whole, as it always did.
    pub(super) fn tiles_arrived(
        &mut self,
        dashboard: i64,
        result: Result<Option<api::Dashboard>, api::Error>,
    ) -> Vec<Effect> {
        self.dirty = true;
        let exported = self
            .edited()
            .filter(|subscription| subscription.dashboard == Some(dashboard))
            .and_then(|subscription| subscription.dashboard_export_insights.clone())
            .filter(|ids| !ids.is_empty());
        let Mode::Form(form, _) = &mut self.mode else {
            return Vec::new();
        };
        if choices::wants(form).0 != Some(dashboard) {
            // Chosen away meanwhile: asked again if chosen again.
            self.screens.subscriptions.resource.asked.tiles.forget();
            return Vec::new();
        }
        match result {
            Ok(Some(found)) => {
                choices::exports(form, &found, exported.as_deref(), self.permissions.export_cap)
            }
            Ok(None) => {}
            Err(error) => {
                self.screens.subscriptions.resource.asked.tiles.forget();
                form.error = Some(format!("cannot read the dashboard's insights: {error}"));
            }
        }
        Vec::new()
    }

    /// An integration's channels arrived: a channel is chosen from them.
    pub(super) fn channels_arrived(
        &mut self,
        integration: i64,
        result: Result<Vec<api::SlackChannel>, api::Error>,
    ) -> Vec<Effect> {
        self.dirty = true;
        let target = self
            .edited()
            .and_then(|subscription| subscription.target_value.clone());
        let Mode::Form(form, _) = &mut self.mode else {
            return Vec::new();
        };
        if choices::wants(form).1 != Some(integration) {
            self.screens.subscriptions.resource.asked.channels.forget();
            return Vec::new();
        }
        match result {
            Ok(found) => {
                let typed = form.value("target_value");
                let target = target.or((!typed.trim().is_empty()).then_some(typed));
                let target = target.filter(|target| !target.contains('@'));
                choices::channels(form, &found, target.as_deref());
            }
            // The channel is typed instead, as before the list came.
            Err(error) => {
                self.screens.subscriptions.resource.asked.channels.forget();
                form.error = Some(format!("cannot list the integration's channels: {error}"));
            }
        }
        Vec::new()
    }

    /// The project's dashboards and insights arrived for the form's
    /// "Delivers" choice; where they cannot be listed, it takes an id. With
    /// them, whether the server is today's PostHog (it has Slack
    /// integrations), whose form offers more.
    pub(super) fn catalog(
        &mut self,
        result: Result<(Vec<crate::api::NamedItem>, Vec<crate::api::NamedItem>), api::Error>,
        slack: Option<Vec<api::Integration>>,
    ) -> Vec<Effect> {
        self.dirty = true;
        let existing = self.edited().cloned();
        if let Mode::Form(form, purpose) = &mut self.mode
            && purpose.is_subscription()
        {
            let editing = matches!(purpose, FormPurpose::EditSubscription { .. });
            match result {
                Ok((dashboards, insights)) if editing => {
                    choices::fixed_delivers(form, &dashboards, &insights)
                }
                Ok((dashboards, insights)) => {
                    if let Some(field) = form.fields.iter_mut().find(|field| field.name == "delivers") {
                        field.set_options(choices::catalog_options(&dashboards, &insights));
                    }
                }
                Err(_) if editing => {}
                Err(_) => choices::catalog_fallback(form),
            }
            if let Some(slack) = slack {
                choices::today(form, existing.as_ref(), editing, &slack);
            }
        }
        self.form_lookups()
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
