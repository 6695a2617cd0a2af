//! The forms: a role (name, access) and a subscription (every field), opened
//! with `n` and `e`, and what submitting them sends.

use ratatui::crossterm::event::KeyEvent;

use super::{App, Confirm, Effect, FormPurpose, ListId, Mode, Notice, Write};
use crate::api::models::access_level;
use crate::api::{self, RoleInput};
use crate::console::form::{Field, Form, Outcome, checks};
use crate::console::subscription_form;

const ACCESS_LEVELS: [(&str, &str); 2] = [("21", "view only"), ("37", "can always edit")];

impl App {
    /// `n`: a new role, or a new subscription.
    pub(super) fn new_item(&mut self) -> Vec<Effect> {
        if self.shown() == ListId::Subscriptions {
            let form = subscription_form::form(None, self.now);
            self.mode = Mode::Form(Box::new(form), FormPurpose::NewSubscription);
            return self.load_catalog();
        }
        if self.shown() == ListId::Roles {
            let fields = vec![
                Field::text("name", "Name", "", Some(checks::role_name)),
                Field::select(
                    "feature_flags_access_level",
                    "Feature flags",
                    &ACCESS_LEVELS,
                    "37",
                ),
            ];
            self.mode = Mode::Form(Box::new(Form::new("New role", fields)), FormPurpose::NewRole);
        }
        Vec::new()
    }

    /// `e`: edit the selected role or subscription.
    pub(super) fn edit_item(&mut self) -> Vec<Effect> {
        if self.shown() == ListId::Subscriptions {
            let Some(subscription) = self.subscriptions.selected().cloned() else {
                return Vec::new();
            };
            let form = subscription_form::form(Some(&subscription), self.now);
            self.mode = Mode::Form(
                Box::new(form),
                FormPurpose::EditSubscription { id: subscription.id },
            );
            return self.load_catalog();
        }
        if self.shown() != ListId::Roles {
            return Vec::new();
        }
        let Some(role) = self.roles.selected().cloned() else {
            return Vec::new();
        };
        let level = role
            .feature_flags_access_level
            .unwrap_or(access_level::DEFAULT)
            .to_string();
        let fields = vec![
            Field::text("name", "Name", &role.name, Some(checks::role_name)),
            Field::select(
                "feature_flags_access_level",
                "Feature flags",
                &ACCESS_LEVELS,
                &level,
            ),
        ];
        let form = Form::new(format!("Edit role {}", role.name), fields);
        self.mode = Mode::Form(Box::new(form), FormPurpose::EditRole { id: role.id });
        Vec::new()
    }

    fn load_catalog(&mut self) -> Vec<Effect> {
        vec![Effect::LoadCatalog {
            ticket: self.lookups.issue(),
            project: self.context.project.clone(),
        }]
    }

    /// The project's dashboards and insights arrived for the form's
    /// "Delivers" choice; where they cannot be listed, it takes an id.
    pub(super) fn catalog(
        &mut self,
        result: Result<(Vec<crate::api::NamedItem>, Vec<crate::api::NamedItem>), api::Error>,
    ) -> Vec<Effect> {
        self.dirty = true;
        if let Mode::Form(form, purpose) = &mut self.mode
            && purpose.is_subscription()
        {
            match result {
                Ok((dashboards, insights)) => {
                    if let Some(field) = form.fields.iter_mut().find(|field| field.name == "delivers") {
                        field.set_options(subscription_form::catalog_options(&dashboards, &insights));
                    }
                }
                Err(_) => subscription_form::catalog_fallback(form),
            }
        }
        Vec::new()
    }

    pub(super) fn form_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let organization = self.context.organization.clone();
        let Mode::Form(form, purpose) = &mut self.mode else {
            return Vec::new();
        };
        let outcome = form.key(key);
        if purpose.is_subscription() {
            subscription_form::after_key(form);
        }
        match outcome {
            Outcome::Editing => Vec::new(),
            Outcome::Cancel => {
                self.mode = Mode::Normal;
                Vec::new()
            }
            Outcome::Submit if purpose.is_subscription() => {
                let project = self.context.project.clone();
                let body = match subscription_form::body(form) {
                    Ok(body) => body,
                    Err(errors) => {
                        for (name, error) in errors {
                            form.refused(error, Some(name));
                        }
                        return Vec::new();
                    }
                };
                match purpose.clone() {
                    FormPurpose::EditSubscription { id } => {
                        let (changed, lines) = subscription_form::changes(form, &body);
                        if changed.is_empty() {
                            self.mode = Mode::Normal;
                            self.notice = Some(Notice::done("nothing changed".into()));
                            return Vec::new();
                        }
                        let question =
                            format!("Save these changes to subscription #{id}?\n{}", lines.join("\n"));
                        let resumed = Box::new(((**form).clone(), purpose.clone()));
                        self.mode = Mode::Confirm(Confirm {
                            question,
                            write: Write::UpdateSubscription {
                                project,
                                id,
                                body: changed,
                            },
                            destructive: false,
                            form: Some(resumed),
                        });
                        Vec::new()
                    }
                    _ => {
                        form.saving = true;
                        form.error = None;
                        self.write(Write::CreateSubscription { project, body })
                    }
                }
            }
            Outcome::Submit => {
                let name = form.value("name").trim().to_string();
                let level = form.value("feature_flags_access_level").parse().ok();
                let write = match purpose {
                    FormPurpose::NewRole => Write::CreateRole {
                        organization,
                        input: RoleInput {
                            name: Some(name),
                            feature_flags_access_level: level,
                        },
                    },
                    FormPurpose::EditRole { id } => {
                        // Only what changed is sent.
                        let input = RoleInput {
                            name: form.field_changed("name").then_some(name),
                            feature_flags_access_level: level
                                .filter(|_| form.field_changed("feature_flags_access_level")),
                        };
                        if input == RoleInput::default() {
                            self.mode = Mode::Normal;
                            self.notice = Some(Notice::done("nothing changed".into()));
                            return Vec::new();
                        }
                        Write::UpdateRole {
                            organization,
                            id: id.clone(),
                            input,
                        }
                    }
                    // Subscription forms were handled by the arm above.
                    FormPurpose::NewSubscription | FormPurpose::EditSubscription { .. } => return Vec::new(),
                };
                form.saving = true;
                form.error = None;
                self.write(write)
            }
        }
    }
}
