//! Runs effects on tokio tasks; their results come back as messages over
//! the channel the event loop listens to. Nothing here touches the screen.
//!
//! What a screen asks runs in its folder, one arm a screen here: a page of
//! its rows (`screens::request`), a quick ask (its `ask.rs`), a long one
//! that tells its news as it goes (its `request.rs`: Health's look,
//! People's index and narrowings, a person's page) and a write (its
//! `writes.rs`; an offboarding's run too). The runner lends them the
//! client, the clock, the state directory and how to tell their news; what
//! is the console's own (`:ctx`'s profiles and names, below) runs here.

use std::path::Path;
use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;

use super::shell::{
    About, Connected, Context, Effect, Msg, ScreenId, ScreenRequest, Target, Ticket, Timer, Write,
    WriteAnswer,
};
use crate::api::{Client, List, Organization, PICKER_ROWS, Project};
use crate::config::{self, CURRENT};
use crate::console::screens::request::{Lent, Tell};
use crate::console::screens::{ScreenAsk, access, health, people, person, preview, roles, switch, who};
use crate::health::budget::{Budget, Pacer};

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
    /// The one budget every access read of the console counts against (a
    /// person's access, a role's page, `:who`, the Access tab), made on
    /// the driver's clock when the first of them starts: screens reading
    /// at once stay under PostHog Cloud's limits together.
    access_budget: Arc<std::sync::OnceLock<Arc<Pacer>>>,
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
            access_budget: Arc::default(),
        }
    }

    /// The console's access reads' one budget.
    fn access_pacer(&self) -> Arc<Pacer> {
        self.access_budget
            .get_or_init(|| Arc::new(Pacer::new(Budget::default(), self.clock.clone())))
            .clone()
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
                self.start_timer(timer, ticket);
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
                self.load_integrations(connection, project);
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
                self.load_profiles();
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

    /// Waits out a timer on its own task, then tells the loop it is due.
    fn start_timer(&self, timer: Timer, ticket: Ticket) {
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
    }

    /// Reads the project's Slack integrations on their own task.
    fn load_integrations(&self, connection: Ticket, project: String) {
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
    }

    /// Reads the config file's profiles off the async threads.
    fn load_profiles(&self) {
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
    }

    /// What a screen asks besides a page of its rows, run in its folder
    /// and answered with its screen's message: the quick ones run
    /// themselves (`ask.rs`); a look, the role index, a narrowing and a
    /// person's page run long and tell news as they go (`request.rs`).
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
            ScreenAsk::Health(ask) => {
                let health::Ask::Look { ticket, .. } = &ask;
                // Its requests are told to the footer while Health is shown.
                let runner = self.observed(About::Look(*ticket));
                tokio::spawn(async move {
                    let msg = health::request::run(ask, runner.lent()).await;
                    let _ = runner.messages.send(msg.into());
                });
            }
            ScreenAsk::People(ask) => {
                let runner = self.clone();
                tokio::spawn(async move {
                    let msg = people::request::run(ask, &runner.client, runner.tell()).await;
                    let _ = runner.messages.send(msg.into());
                });
            }
            ScreenAsk::Person(ask) => {
                let runner = self.clone();
                tokio::spawn(async move {
                    let msg =
                        person::request::run(ask, &runner.client, runner.access_pacer(), runner.tell()).await;
                    let _ = runner.messages.send(msg.into());
                });
            }
            ScreenAsk::Who(ask) => {
                let runner = self.clone();
                tokio::spawn(async move {
                    let msg = who::request::run(ask, &runner.client, runner.access_pacer()).await;
                    let _ = runner.messages.send(msg.into());
                });
            }
            ScreenAsk::Grants(ask) => {
                let runner = self.clone();
                tokio::spawn(async move {
                    let msg = roles::grants::request::run(
                        ask,
                        &runner.client,
                        runner.access_pacer(),
                        runner.tell(),
                    )
                    .await;
                    let _ = runner.messages.send(msg.into());
                });
            }
            ScreenAsk::Preview(ask) => {
                let runner = self.clone();
                tokio::spawn(async move {
                    let msg = preview::ask::run(ask, &runner.client, runner.access_pacer()).await;
                    let _ = runner.messages.send(msg.into());
                });
            }
            ScreenAsk::Switch(ask) => {
                let runner = self.clone();
                tokio::spawn(async move {
                    let msg =
                        switch::request::run(ask, &runner.client, runner.access_pacer(), runner.tell()).await;
                    let _ = runner.messages.send(msg.into());
                });
            }
            ScreenAsk::Access(ask) => {
                let runner = self.clone();
                tokio::spawn(async move {
                    let msg =
                        access::request::run(ask, &runner.client, runner.access_pacer(), runner.tell()).await;
                    let _ = runner.messages.send(msg.into());
                });
            }
        }
    }

    /// What a screen's long run that keeps state on disk is lent: the
    /// client, the clock, the state directory and how to tell its news.
    fn lent<M: Into<Msg> + 'static>(&self) -> Lent<'_, M> {
        Lent {
            client: &self.client,
            clock: self.clock.clone(),
            state_dir: &self.state_dir,
            tell: self.tell(),
        }
    }

    /// How a screen's long request tells its news: each of its messages
    /// sent to the loop as it comes.
    fn tell<M: Into<Msg> + 'static>(&self) -> Tell<M> {
        let messages = self.messages.clone();
        // The loop has ended when the channel is closed: nothing to tell.
        Arc::new(move |msg: M| {
            let _ = messages.send(msg.into());
        })
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

    /// Sends a change and says how it went; the footer's record of it comes
    /// from the client. Each screen's write sends itself over the one
    /// client (`screens/<name>/writes.rs`); an offboarding runs a few steps
    /// at a time, telling each step as it ends.
    async fn write(&self, ticket: Ticket, write: Write) -> Msg {
        let client = &self.client;
        let result = match &write {
            Write::Role(write) => write.send(client).await,
            Write::Member(write) => write.send(client).await,
            Write::Subscription(write) => write.send(client).await,
            Write::People(write) => write.send(client).await,
            Write::Offboard(write) => write.run(ticket, self.lent()).await,
            Write::Access(write) => write.send(client).await,
        };
        Msg::Written(Box::new(WriteAnswer {
            ticket,
            write,
            result,
        }))
    }
}

/// `:ctx`, `:org` and `:project`: a profile opened (its key may come from a
/// command) and the organizations and projects a key reaches.
impl Runner {
    /// A profile opened on a blocking thread (its key may come from a
    /// command), or the connection the console started with. The profile
    /// keeps the timeout the console was started with.
    async fn connect(&self, target: Target) -> Result<Box<Connected>, String> {
        let name = match target {
            Target::Start => return Ok(Box::new(Connected::clone(&self.start))),
            Target::Profile(name) => name,
        };
        let Some(path) = self.config_file.clone() else {
            return Err(format!(
                "cannot open profile {name}: there is no config directory on this machine"
            ));
        };
        let opened = {
            let (name, limits) = (name.clone(), self.client.clone());
            tokio::task::spawn_blocking(move || config::open_profile(&path, &name, &limits)).await
        };
        let opened = match opened {
            Ok(Ok(opened)) => opened,
            Ok(Err(error)) => return Err(format!("cannot open profile {name}: {error:#}")),
            Err(error) => return Err(format!("cannot open profile {name}: {error}")),
        };
        // Before leaving a working screen: does the host answer, and take the key?
        // (Any other answer, a 404 from an older server say, is left to the lists.)
        match opened.client.current_key().await {
            Err(error @ crate::api::Error::Transport { .. }) => {
                return Err(format!("cannot switch to profile {name}: {error}"));
            }
            Err(error) if error.status() == Some(401) => {
                return Err(format!("cannot switch to profile {name}: {error}"));
            }
            _ => {}
        }
        let color = match opened
            .look
            .color
            .as_deref()
            .map(crate::config::colour::profile_color)
        {
            Some(Err(error)) => return Err(format!("cannot open profile {name}: its {error}")),
            Some(Ok(color)) => Some(color),
            None => None,
        };
        Ok(Box::new(Connected {
            context: Context {
                profile: Some(opened.name),
                host: opened.host,
                organization: opened.organization,
                project: opened.project,
                color,
                production: opened.look.production,
                tz: opened.look.tz.clone(),
                ..Context::default()
            },
            client: opened.client,
        }))
    }

    /// The organizations and projects the key reaches, and what `@current`
    /// means where the context says it, all asked at once.
    async fn names(&self, connection: Ticket, organization: &str, project: &str) -> Msg {
        let options = crate::api::FetchAll::default();
        let (organization_list, project_list) =
            (List::<Organization>::organizations(), List::<Project>::projects());
        let current_organization = async {
            match organization {
                CURRENT => self.client.organization(CURRENT).await.ok(),
                _ => None,
            }
        };
        let current_project = async {
            match project {
                CURRENT => self.client.project(CURRENT).await.ok(),
                _ => None,
            }
        };
        // The switchers offer the first ones, however many a server says.
        let (organizations, projects, current_organization, current_project) = tokio::join!(
            self.client.first_rows(&organization_list, PICKER_ROWS, &options),
            self.client.first_rows(&project_list, PICKER_ROWS, &options),
            current_organization,
            current_project,
        );
        let cut = organizations.as_ref().is_ok_and(|(_, more)| *more)
            || projects.as_ref().is_ok_and(|(_, more)| *more);
        Msg::Names {
            connection,
            current_organization,
            current_project,
            organizations: organizations.ok().map(|(rows, _)| rows),
            projects: projects.ok().map(|(rows, _)| rows),
            cut,
        }
    }
}
