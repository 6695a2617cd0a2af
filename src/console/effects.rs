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
use crate::api::{Client, List, Organization, PICKER_ROWS, Project};
use crate::config::{self, CURRENT};
use crate::console::screens::ScreenAsk;
use crate::console::screens::health::Ask as HealthAsk;
use crate::console::screens::health::Msg as HealthMsg;
use crate::console::screens::people::Ask as PeopleAsk;
use crate::console::screens::person::Ask as PersonAsk;

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
            Effect::Ask(ask) => {
                self.ask(ask);
                None
            }
            Effect::Copy(text) => Some(text),
        }
    }

    /// What a screen asks besides a page of its rows: the quick ones run
    /// themselves (their folder's `ask.rs`) and answer with their screen's
    /// message; a look, the role index, a narrowing and a person's page run
    /// long and tell news as they go, on the runner's own tasks (`look.rs`,
    /// `people.rs`).
    fn ask(&self, ask: ScreenAsk) {
        match ask {
            ScreenAsk::Members(ask) => {
                let runner = self.clone();
                tokio::spawn(async move {
                    let msg = ask.run(&runner.client).await;
                    // The loop has ended when the channel is closed: nothing to tell.
                    let _ = runner.messages.send(msg.into());
                });
            }
            ScreenAsk::Subscriptions(ask) => {
                let runner = self.clone();
                tokio::spawn(async move {
                    let msg = ask.run(&runner.client).await;
                    let _ = runner.messages.send(msg.into());
                });
            }
            ScreenAsk::Health(HealthAsk::Look {
                ticket,
                project,
                stop,
                max_requests,
            }) => {
                let runner = self.clone();
                tokio::spawn(async move {
                    let result = runner.look(ticket, &project, stop, max_requests).await;
                    let _ = runner.messages.send(HealthMsg::Looked { ticket, result }.into());
                });
            }
            ScreenAsk::People(PeopleAsk::RoleIndex { ticket, organization }) => {
                self.load_role_index(ticket, organization);
            }
            ScreenAsk::People(PeopleAsk::Narrow {
                ticket,
                organization,
                narrow,
                oldest_first,
                stop,
            }) => self.narrow_people(ticket, organization, narrow, oldest_first, stop),
            ScreenAsk::Person(PersonAsk::Gather {
                ticket,
                organization,
                email,
                index,
            }) => self.gather_profile(ticket, organization, email, index),
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
}
