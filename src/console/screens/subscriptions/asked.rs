//! What the subscription form asks the server for: the project's
//! dashboards and insights as it opens (the catalogue), and as it is filled
//! in the tiles of the dashboard it delivers and the channels of the Slack
//! integration it posts through; and "latest wins" for each: the ticket of
//! the catalogue asked by the form open now, and for a lookup the id last
//! asked for, so that it is asked once, and the ticket of that request, so
//! that only its answer is taken (not one for a form closed, or a
//! dashboard chosen away, since). And how those answers land in the form
//! open, lent by the shell, which holds it among its overlays.

use super::list::Subscriptions;
use super::{Ask, choices};
use crate::api;
use crate::console::kit::latest::{Latest, Ticket};
use crate::console::screens::FormPurpose;
use crate::console::table::Table;
use crate::console::widgets::form::Form;

/// One kind of lookup: what was last asked for, and its ticket.
#[derive(Debug, Default)]
pub struct Lookup {
    asked: Option<i64>,
    latest: Latest,
}

impl Lookup {
    /// The ticket to ask for `wanted` with, unless nothing is wanted or it
    /// was asked for already.
    pub fn ask(&mut self, wanted: Option<i64>) -> Option<(i64, Ticket)> {
        let id = wanted.filter(|id| self.asked != Some(*id))?;
        self.asked = Some(id);
        Some((id, self.latest.issue()))
    }

    /// Whether an answer with this ticket is of the last request.
    pub fn is_current(&self, ticket: Ticket) -> bool {
        self.latest.is_current(ticket)
    }

    /// Its answer was not taken (chosen away meanwhile, or failed): asked
    /// again when wanted again.
    pub fn forget(&mut self) {
        self.asked = None;
    }

    /// Another form: nothing asked yet, and answers on their way are for
    /// the earlier one.
    fn reset(&mut self) {
        self.asked = None;
        self.latest.issue();
    }
}

/// The subscription form's lookups.
#[derive(Debug, Default)]
pub struct Asked {
    /// The project's dashboards and insights, asked as a form opens.
    pub catalog: Latest,
    pub tiles: Lookup,
    pub channels: Lookup,
}

impl Asked {
    /// A form opens: what an earlier one asked counts no more.
    pub fn reset(&mut self) {
        self.catalog.issue();
        self.tiles.reset();
        self.channels.reset();
    }
}

impl Table<Subscriptions> {
    /// "Latest wins" for Subscriptions' messages (the shell asks before
    /// one lands): the form's catalogue, tiles and channels only while
    /// they answer its latest ask (not a form closed, or a dashboard or
    /// integration changed, since); the watch's answers always.
    pub fn wants(&self, msg: &super::Msg) -> bool {
        use super::Msg;
        let asked = &self.resource.asked;
        match msg {
            Msg::Catalog { ticket, .. } => asked.catalog.is_current(*ticket),
            Msg::Tiles { ticket, .. } => asked.tiles.is_current(*ticket),
            Msg::Channels { ticket, .. } => asked.channels.is_current(*ticket),
            Msg::NewestDelivery { .. } | Msg::Subscription(_) => true,
        }
    }

    /// The subscription a form edits, if it edits one (and it is loaded).
    fn edited(&self, purpose: &FormPurpose) -> Option<&api::Subscription> {
        match purpose {
            FormPurpose::EditSubscription { id } => self.find(*id),
            _ => None,
        }
    }

    /// Asks for what the subscription form now needs and has not asked
    /// for: the tiles of the dashboard it delivers, the channels of the
    /// Slack integration it posts through.
    pub fn form_lookups(&mut self, form: &mut Form, purpose: &FormPurpose, project: &str) -> Vec<Ask> {
        if !purpose.is_subscription() {
            return Vec::new();
        }
        let (dashboard, integration) = choices::wants(form);
        let mut asks = Vec::new();
        if let Some((dashboard, ticket)) = self.resource.asked.tiles.ask(dashboard) {
            // Another dashboard: the insights of the last one go, so that
            // they are never sent with this one.
            form.remove_field("dashboard_export_insights");
            asks.push(Ask::Tiles {
                ticket,
                project: project.to_owned(),
                dashboard,
            });
        }
        if let Some((integration, ticket)) = self.resource.asked.channels.ask(integration) {
            // Another integration: its own channels, once they come; the
            // target is typed meanwhile.
            form.remove_field("channel");
            choices::visibility(form);
            asks.push(Ask::Channels {
                ticket,
                project: project.to_owned(),
                integration,
            });
        }
        asks
    }

    /// A dashboard's tiles arrived: its insights to choose from, if the
    /// form still delivers that dashboard. A server that shows no tiles
    /// exports the dashboard whole, as it always did. `export_cap`: how
    /// many insights the server lets a subscription export, once known.
    pub fn on_tiles(
        &mut self,
        dashboard: i64,
        result: Result<Option<api::Dashboard>, api::Error>,
        (form, purpose): (&mut Form, &FormPurpose),
        export_cap: Option<usize>,
    ) {
        let exported = self
            .edited(purpose)
            .filter(|subscription| subscription.dashboard == Some(dashboard))
            .and_then(|subscription| subscription.dashboard_export_insights.clone())
            .filter(|ids| !ids.is_empty());
        if choices::wants(form).0 != Some(dashboard) {
            // Chosen away meanwhile: asked again if chosen again.
            self.resource.asked.tiles.forget();
            return;
        }
        match result {
            Ok(Some(found)) => choices::exports(form, &found, exported.as_deref(), export_cap),
            Ok(None) => {}
            Err(error) => {
                self.resource.asked.tiles.forget();
                form.error = Some(format!("cannot read the dashboard's insights: {error}"));
            }
        }
    }

    /// An integration's channels arrived: a channel is chosen from them.
    pub fn on_channels(
        &mut self,
        integration: i64,
        result: Result<Vec<api::SlackChannel>, api::Error>,
        (form, purpose): (&mut Form, &FormPurpose),
    ) {
        let target = self
            .edited(purpose)
            .and_then(|subscription| subscription.target_value.clone());
        if choices::wants(form).1 != Some(integration) {
            self.resource.asked.channels.forget();
            return;
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
                self.resource.asked.channels.forget();
                form.error = Some(format!("cannot list the integration's channels: {error}"));
            }
        }
    }

    /// The project's dashboards and insights arrived for the form's
    /// "Delivers" choice; where they cannot be listed, it takes an id. With
    /// them, whether the server is today's PostHog (it has Slack
    /// integrations), whose form offers more. Then what the form needs next.
    pub fn on_catalog(
        &mut self,
        result: Result<(Vec<api::NamedItem>, Vec<api::NamedItem>), api::Error>,
        slack: Option<Vec<api::Integration>>,
        (form, purpose): (&mut Form, &FormPurpose),
        project: &str,
    ) -> Vec<Ask> {
        let existing = self.edited(purpose).cloned();
        if purpose.is_subscription() {
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
        self.form_lookups(form, purpose, project)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lookup_is_asked_once_and_only_its_latest_answer_is_taken() {
        let mut asked = Asked::default();
        let (id, first) = asked.tiles.ask(Some(7)).unwrap();
        assert_eq!(id, 7);
        assert_eq!(asked.tiles.ask(Some(7)), None, "asked once");
        assert_eq!(asked.tiles.ask(None), None);
        let (_, second) = asked.tiles.ask(Some(8)).unwrap();
        assert!(!asked.tiles.is_current(first) && asked.tiles.is_current(second));
        asked.tiles.forget();
        assert!(asked.tiles.ask(Some(8)).is_some(), "asked again once forgotten");
        let (_, channels) = asked.channels.ask(Some(1)).unwrap();
        let catalog = asked.catalog.issue();
        asked.reset();
        assert!(
            !asked.channels.is_current(channels) && !asked.catalog.is_current(catalog),
            "a new form drops the old answers"
        );
        assert!(asked.channels.ask(Some(1)).is_some());
    }
}
