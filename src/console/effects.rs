//! Runs effects on tokio tasks; their results come back as messages over
//! the channel the event loop listens to. Nothing here touches the screen.

use std::path::Path;
use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;

mod connect;
mod look;
mod people;
mod writes;

use super::app::{
    About, Connected, Context, Effect, Msg, ScreenId, ScreenRequest, Target, Ticket, Write, WriteAnswer,
};
use crate::api::{Client, List, Organization, PICKER_ROWS, Project, Role};
use crate::config::{self, CURRENT};
use crate::console::screens::health::Msg as HealthMsg;
use crate::console::screens::members::Msg as MembersMsg;
use crate::console::screens::subscriptions::Msg as SubscriptionsMsg;

/// Channels asked for at a time, and the most a form offers (a bound on
/// what a server may send; workspaces have far fewer).
const CHANNEL_PAGE: u32 = 200;
const MAX_CHANNELS: usize = 5_000;

#[derive(Clone)]
pub struct Runner {
    /// The client of the connection in use; `:ctx` replaces it.
    pub client: Client,
    messages: UnboundedSender<Msg>,
    /// The connection the console started with, for `:ctx` to go back to.
    start: Arc<Connected>,
    /// The config file `:ctx` reads its profiles from.
    pub config_file: Option<Arc<Path>>,
    /// The clock a health look judges by (the driver's).
    pub clock: crate::clock::Clock,
    /// Where a look keeps its index (the driver's).
    pub state_dir: std::path::PathBuf,
}

impl Runner {
    pub fn new(client: Client, context: Context, messages: UnboundedSender<Msg>) -> Self {
        Runner {
            start: Arc::new(Connected {
                context,
                client: client.clone(),
            }),
            client,
            messages,
            config_file: None,
            clock: crate::clock::Clock::system(),
            state_dir: crate::config::state_dir(),
        }
    }

    /// Starts an effect. Copying to the clipboard needs the terminal, so
    /// that one is handed back to the loop.
    pub fn run(&self, effect: Effect) -> Option<String> {
        match effect {
            Effect::Fetch {
                list,
                generation,
                request,
                offset,
                limit,
            } => {
                let runner = self.observed(About::Page { list, generation });
                tokio::spawn(async move {
                    let msg = runner.fetch(list, generation, request, offset, limit).await;
                    // The loop has ended when the channel is closed: nothing to tell.
                    let _ = runner.messages.send(msg);
                });
                None
            }
            Effect::Look {
                ticket,
                project,
                stop,
                max_requests,
            } => {
                let runner = self.clone();
                tokio::spawn(async move {
                    let result = runner.look(ticket, &project, stop, max_requests).await;
                    let _ = runner.messages.send(HealthMsg::Looked { ticket, result }.into());
                });
                None
            }
            Effect::Timer { timer, ticket } => {
                let messages = self.messages.clone();
                let clock = self.clock.clone();
                // When it is due is read now, not when the task first runs:
                // a clock moved meanwhile must not move it later.
                let due = chrono::TimeDelta::from_std(timer.after())
                    .ok()
                    .and_then(|wait| clock.now().checked_add_signed(wait));
                tokio::spawn(async move {
                    if timer.on_clock() {
                        // A wait too long for the calendar never ends.
                        let Some(due) = due else {
                            return;
                        };
                        clock.sleep_until(due).await;
                    } else {
                        tokio::time::sleep(timer.after()).await;
                    }
                    let _ = messages.send(Msg::Timer { timer, ticket });
                });
                None
            }
            Effect::LoadNames {
                connection,
                organization,
                project,
            } => {
                let runner = self.clone();
                tokio::spawn(async move {
                    let msg = runner.names(connection, &organization, &project).await;
                    let _ = runner.messages.send(msg);
                });
                None
            }
            Effect::LoadIntegrations { connection, project } => {
                let runner = self.clone();
                tokio::spawn(async move {
                    // Any refusal (an older server's 404, a key without
                    // `integration:read`) leaves them unknown.
                    let slack = runner
                        .client
                        .integrations(&project, "slack")
                        .await
                        .ok()
                        .map(|page| page.results);
                    let _ = runner.messages.send(Msg::Integrations { connection, slack });
                });
                None
            }
            Effect::LoadCatalog { ticket, project } => {
                let runner = self.clone();
                tokio::spawn(async move {
                    let options = crate::api::FetchAll::default();
                    let (dashboards, insights) = (List::dashboards(&project), List::insights(&project));
                    // The form offers the first ones (typing searches them).
                    let (dashboards, insights, slack) = tokio::join!(
                        runner.client.first_rows(&dashboards, PICKER_ROWS, &options),
                        runner.client.first_rows(&insights, PICKER_ROWS, &options),
                        runner.client.integrations(&project, "slack"),
                    );
                    let result = dashboards
                        .and_then(|(dashboards, _)| insights.map(|(insights, _)| (dashboards, insights)));
                    // A 404 is an older server, which has no integrations;
                    // any other answer is today's PostHog.
                    let slack = match slack {
                        Ok(page) => Some(page.results),
                        Err(error) if error.status() == Some(404) => None,
                        Err(_) => Some(Vec::new()),
                    };
                    let _ = runner.messages.send(
                        SubscriptionsMsg::Catalog {
                            ticket,
                            result,
                            slack,
                        }
                        .into(),
                    );
                });
                None
            }
            Effect::LoadNewestDelivery {
                project,
                subscription,
            } => {
                let runner = self.clone();
                tokio::spawn(async move {
                    let result = runner
                        .client
                        .deliveries(&project, subscription, None)
                        .await
                        .map(|page| page.results.into_iter().next().map(Box::new));
                    let _ = runner
                        .messages
                        .send(SubscriptionsMsg::NewestDelivery { subscription, result }.into());
                });
                None
            }
            Effect::LoadSubscription { project, id } => {
                let runner = self.clone();
                tokio::spawn(async move {
                    let result = runner
                        .client
                        .subscription(&project, id)
                        .await
                        .map(|subscription| Box::new(subscription.into_typed()));
                    let _ = runner
                        .messages
                        .send(SubscriptionsMsg::Subscription(result).into());
                });
                None
            }
            Effect::FindRole { organization, name } => {
                let runner = self.clone();
                tokio::spawn(async move {
                    let wanted = name.to_lowercase();
                    let list = List::roles(&organization);
                    let found = runner
                        .client
                        .first_rows(&list, PICKER_ROWS, &crate::api::FetchAll::default())
                        .await
                        .map(|(roles, _)| {
                            roles
                                .into_iter()
                                .find(|role: &Role| role.name.to_lowercase() == wanted)
                                .map(|role| (role.id, role.name))
                        })
                        .map_err(|error| error.to_string());
                    let _ = runner.messages.send(MembersMsg::RoleFound { name, found }.into());
                });
                None
            }
            Effect::LoadTiles {
                ticket,
                project,
                dashboard,
            } => {
                let runner = self.clone();
                tokio::spawn(async move {
                    let result = runner.client.dashboard_tiles(&project, dashboard).await;
                    let _ = runner.messages.send(
                        SubscriptionsMsg::Tiles {
                            ticket,
                            dashboard,
                            result,
                        }
                        .into(),
                    );
                });
                None
            }
            Effect::LoadChannels {
                ticket,
                project,
                integration,
            } => {
                let runner = self.clone();
                tokio::spawn(async move {
                    let result = runner.channels(&project, integration).await;
                    let _ = runner.messages.send(
                        SubscriptionsMsg::Channels {
                            ticket,
                            integration,
                            result,
                        }
                        .into(),
                    );
                });
                None
            }
            Effect::LoadPeople {
                ticket,
                organization,
                role,
                search,
            } => {
                let runner = self.clone();
                tokio::spawn(async move {
                    // The picker holds the first members alone, however
                    // many the organization has (or a server says it has).
                    let options = crate::api::FetchAll::default();
                    let people = match search.as_deref() {
                        Some(search) if !search.is_empty() => {
                            List::members(&organization).with("search", search)
                        }
                        _ => List::members(&organization),
                    };
                    let people = runner.client.first_rows(&people, PICKER_ROWS, &options);
                    let (people, in_role) = if search.is_some() {
                        (people.await, None)
                    } else {
                        let members = List::memberships(&organization, &role);
                        let (people, members) =
                            tokio::join!(people, runner.client.first_rows(&members, PICKER_ROWS, &options));
                        let in_role = members.ok().map(|(members, _)| {
                            members
                                .into_iter()
                                .filter_map(|m| m.user.map(|user| user.uuid))
                                .collect()
                        });
                        (people, in_role)
                    };
                    let _ = runner.messages.send(
                        MembersMsg::People {
                            ticket,
                            people,
                            in_role,
                        }
                        .into(),
                    );
                });
                None
            }
            Effect::LoadScopes { connection } => {
                let runner = self.clone();
                tokio::spawn(async move {
                    let scopes = runner.client.current_key().await.ok().map(|key| key.scopes);
                    let _ = runner.messages.send(Msg::Scopes { connection, scopes });
                });
                None
            }
            Effect::LoadProfiles => {
                let runner = self.clone();
                tokio::spawn(async move {
                    let profiles = match runner.config_file.clone() {
                        Some(path) => tokio::task::spawn_blocking(move || config::profile_summaries(&path))
                            .await
                            .map_err(anyhow::Error::from)
                            .and_then(|read| read)
                            .map_err(|error| format!("{error:#}")),
                        None => Err("there is no config directory on this machine".into()),
                    };
                    let _ = runner.messages.send(Msg::Profiles(profiles));
                });
                None
            }
            Effect::Connect { ticket, target } => {
                let runner = self.clone();
                tokio::spawn(async move {
                    let result = runner.connect(target).await;
                    let _ = runner.messages.send(Msg::Connected { ticket, result });
                });
                None
            }
            Effect::Write { ticket, write } => {
                let runner = self.observed(About::Write);
                tokio::spawn(async move {
                    let msg = runner.write(ticket, write).await;
                    let _ = runner.messages.send(msg);
                });
                None
            }
            Effect::LoadRoleIndex { ticket, organization } => {
                self.load_role_index(ticket, organization);
                None
            }
            Effect::NarrowPeople {
                ticket,
                organization,
                narrow,
                oldest_first,
                stop,
            } => {
                self.narrow_people(ticket, organization, narrow, oldest_first, stop);
                None
            }
            Effect::GatherProfile {
                ticket,
                organization,
                email,
                index,
            } => {
                self.gather_profile(ticket, organization, email, index);
                None
            }
            Effect::Copy(text) => Some(text),
        }
    }

    /// This runner with a client that tells the loop of each try of its
    /// requests, as being `about` what they are: the footer's record.
    fn observed(&self, about: About) -> Runner {
        let messages = self.messages.clone();
        let observer: crate::api::Observer = std::sync::Arc::new(move |exchange: &crate::api::Exchange| {
            // The loop has ended when the channel is closed: nothing to tell.
            let _ = messages.send(Msg::Exchange {
                about,
                exchange: exchange.clone(),
            });
        });
        Runner {
            client: self.client.observed(observer),
            ..self.clone()
        }
    }

    /// A page of a list's rows: its request runs itself and answers with
    /// a page of its own screen's rows (`screens::request`).
    async fn fetch(
        &self,
        list: ScreenId,
        generation: Ticket,
        request: ScreenRequest,
        offset: u64,
        limit: u64,
    ) -> Msg {
        let result = request.run(&self.client, offset, limit).await;
        Msg::Page {
            list,
            generation,
            offset,
            result,
        }
    }

    /// Every channel of a Slack integration, a page of 200 at a time, up to
    /// [`MAX_CHANNELS`].
    async fn channels(
        &self,
        project: &str,
        integration: i64,
    ) -> Result<Vec<crate::api::SlackChannel>, crate::api::Error> {
        let mut found = Vec::new();
        // A bound on pages as well as on channels: a server sending a few
        // a page is not followed for ever.
        for _ in 0..MAX_CHANNELS.div_ceil(CHANNEL_PAGE as usize) {
            let query = crate::api::ChannelQuery {
                search: None,
                limit: Some(CHANNEL_PAGE),
                offset: Some(found.len() as u32),
            };
            let page = self.client.channels(project, integration, &query).await?;
            let empty = page.channels.is_empty();
            found.extend(page.channels);
            if !page.has_more || empty || found.len() >= MAX_CHANNELS {
                break;
            }
        }
        found.truncate(MAX_CHANNELS);
        Ok(found)
    }
}
