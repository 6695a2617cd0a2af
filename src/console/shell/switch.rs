//! Switching what the screen is about: `:ctx` (profiles, each with its own
//! key and host) and `:org` and `:project`, with pickers fed by the config
//! file and by the API's lists of organizations and projects (the same
//! answer that names them in the header).

use ratatui::crossterm::event::KeyEvent;

use super::{App, Connected, Context, Effect, Mode, Notice, Origin, Permissions, Target, Ticket};
use crate::api::{Organization, Project};
use crate::config::CURRENT;
use crate::console::widgets::switcher::{Choice, Outcome, Scope, Switcher};

impl App {
    pub(super) fn open_switcher(&mut self, scope: Scope) -> Vec<Effect> {
        let current = match scope {
            Scope::Profile => return self.open_profiles(),
            Scope::Organization => self.context.organization.clone(),
            Scope::Project => self.context.project.clone(),
        };
        self.mode = Mode::Switcher(Box::new(Switcher::new(scope, current)));
        self.window.dirty = true;
        vec![self.load_names()]
    }

    /// The lists arrived: the open picker takes the one it shows.
    pub(super) fn fill_switcher(
        &mut self,
        organizations: Option<&[Organization]>,
        projects: Option<&[Project]>,
        cut: bool,
    ) {
        let Mode::Switcher(switcher) = &mut self.mode else {
            return;
        };
        switcher.cut = cut;
        let context = &self.context;
        // Each choice with the name the header shows for the one in use.
        let (choices, current_name) = match switcher.scope {
            Scope::Profile => return, // filled from the config file instead
            Scope::Organization => (
                organizations.map(|organizations| {
                    organizations
                        .iter()
                        .map(|organization| Choice {
                            id: organization.id.clone(),
                            name: organization.name.clone(),
                        })
                        .collect::<Vec<_>>()
                }),
                context.organization_name.as_deref(),
            ),
            // The organization's projects; `@current` leaves it to the server.
            Scope::Project => (
                projects.map(|projects| {
                    projects
                        .iter()
                        .filter(|project| {
                            context.organization == CURRENT
                                || project
                                    .organization
                                    .as_deref()
                                    .is_none_or(|organization| organization == context.organization)
                        })
                        .map(|project| Choice {
                            id: project.id.to_string(),
                            name: project.name.clone(),
                        })
                        .collect::<Vec<_>>()
                }),
                context.project_name.as_deref(),
            ),
        };
        match choices {
            Some(choices) => {
                // `@current` is marked by the name the header shows.
                if switcher.current == CURRENT
                    && let Some(found) = choices
                        .iter()
                        .find(|choice| Some(choice.name.as_str()) == current_name)
                {
                    switcher.current = found.id.clone();
                }
                switcher.fill(choices);
            }
            None => {
                switcher.choices = Some(Vec::new());
                switcher.error = Some(format!(
                    "the {}s cannot be listed with this key; type :{} ID instead",
                    switcher.scope.noun(),
                    switcher.scope.command()
                ));
            }
        }
    }

    /// After `:org`, the project must be one of the new organization's:
    /// where the one in use is not, the organization's first project takes
    /// its place, and the notice says so. Where the projects cannot be
    /// listed, the project is left as it is.
    pub(super) fn follow_organization(
        &mut self,
        projects: &[Project],
        current_organization: Option<&Organization>,
        current_project: Option<&Project>,
    ) -> Vec<Effect> {
        if !self.connection.project_follows {
            return Vec::new();
        }
        let context = &self.context;
        let organization = match context.organization.as_str() {
            CURRENT => current_organization.map(|found| found.id.clone()),
            id => Some(id.to_string()),
        };
        // Undecided until an answer names the organization and lists projects.
        let Some(organization) = organization else {
            return Vec::new();
        };
        let ours: Vec<&Project> = projects
            .iter()
            .filter(|project| {
                project
                    .organization
                    .as_deref()
                    .is_some_and(|of| of.eq_ignore_ascii_case(&organization))
            })
            .collect();
        let in_use = match context.project.as_str() {
            CURRENT => current_project.map(|project| project.id),
            id => id.parse().ok(),
        };
        let Some(first) = ours.first() else {
            return Vec::new();
        };
        self.connection.project_follows = false;
        if in_use.is_some_and(|id| ours.iter().any(|project| project.id == id)) {
            return Vec::new();
        }
        let text = format!(
            "the project is now {} ({}), this organization's first; :project picks another",
            first.name, first.id
        );
        let effects = self.switch_project(first.id.to_string());
        self.notice.shown = Some(Notice::done(text));
        effects
    }

    /// `:ctx` alone: the config file's profiles, read off the loop.
    pub(super) fn open_profiles(&mut self) -> Vec<Effect> {
        let current = self.context.profile.clone().unwrap_or_default();
        self.mode = Mode::Switcher(Box::new(Switcher::new(Scope::Profile, current)));
        self.window.dirty = true;
        vec![Effect::LoadProfiles]
    }

    /// The profiles arrived. Where the console started on something other
    /// than a profile as the file has it (flags, the environment, the demo,
    /// PostHog's CLI), that comes first, so that one can go back to it.
    pub(super) fn fill_profiles(&mut self, profiles: Result<Vec<(String, String)>, String>) {
        let Mode::Switcher(switcher) = &mut self.mode else {
            return;
        };
        if switcher.scope != Scope::Profile {
            return;
        }
        self.window.dirty = true;
        let profiles = profiles.unwrap_or_else(|error| {
            switcher.error = Some(error);
            Vec::new()
        });
        let start = &self.connection.start;
        let start_is_a_profile = start.origin == Origin::Plain
            && start
                .profile
                .as_ref()
                .is_some_and(|name| profiles.iter().any(|(profile, _)| profile == name));
        let mut choices = Vec::new();
        if !start_is_a_profile {
            choices.push(Choice {
                id: String::new(),
                name: format!("{} · {}", start.source(), start.host),
            });
            if self.connection.at_start {
                switcher.current = String::new();
            }
        }
        if profiles.is_empty() && switcher.error.is_none() {
            switcher.error = Some(
                "the config file has no profiles: `orgdeck login` writes one (see the README's config section)"
                    .into(),
            );
        }
        choices.extend(profiles.into_iter().map(|(name, summary)| Choice {
            id: name,
            name: summary,
        }));
        switcher.fill(choices);
    }

    /// `:ctx NAME`, or a pick: opens the profile off the loop (its key may
    /// come from a command). The screen stays as it is until it answers,
    /// and writes wait for it, so that none is sent to a connection the
    /// user did not mean.
    pub(super) fn connect(&mut self, target: Target) -> Vec<Effect> {
        if self.writes.sending > 0 {
            self.notice.shown = Some(Notice::error(
                "a change is still being saved; switch when it has landed".into(),
            ));
            return Vec::new();
        }
        let text = match &target {
            Target::Start => format!("going back to {}…", self.connection.start.source()),
            Target::Profile(name) => format!("opening profile {name}…"),
        };
        self.notice.shown = Some(Notice::working(text));
        self.connection.switching = Some(target.clone());
        self.window.dirty = true;
        vec![Effect::Connect {
            ticket: self.connection.connects.issue(),
            target,
        }]
    }

    /// The answer to `:ctx`: on success every list starts again on the new
    /// connection, and answers still on their way over the old one are
    /// dropped; on failure the screen stays where it was.
    pub(super) fn connected(
        &mut self,
        ticket: Ticket,
        result: Result<Box<Connected>, String>,
    ) -> Vec<Effect> {
        if !self.connection.connects.is_current(ticket) {
            return Vec::new(); // a later :ctx was asked for
        }
        self.window.dirty = true;
        let target = self.connection.switching.take();
        let connected = match result {
            Ok(connected) => connected,
            Err(error) => {
                self.notice.shown = Some(Notice::error(error));
                return Vec::new();
            }
        };
        let read_only = self.context.read_only;
        let zone_given = self.context.zone_given;
        let zone = self.context.zone;
        self.context = Context {
            read_only,
            zone_given,
            zone,
            ..connected.context
        };
        // The profile's zone, when it names one, unless --tz said one for
        // the whole run; a profile that names none keeps the zone shown.
        if !zone_given && let Some(zone) = self.context.tz.as_deref() {
            match zone.parse::<crate::display::Zone>() {
                Ok(zone) => self.context.zone = zone,
                Err(error) => self.notice.shown = Some(Notice::error(format!("the profile's tz: {error}"))),
            }
        }
        self.connection.at_start = target == Some(Target::Start);
        self.connection.project_follows = false;
        self.connection.answers.issue();
        self.permissions = Permissions {
            read_only,
            ..Permissions::default()
        };
        self.forget_the_old_connection();
        let name = match (&self.context.profile, self.connection.at_start) {
            (Some(name), false) => format!("profile {name}"),
            _ => self.context.source(),
        };
        self.notice.shown = Some(Notice::done(format!(
            "switched to {name} · {}",
            self.context.host
        )));
        let mut effects = vec![self.load_names(), self.load_scopes()];
        if self.shown() == super::ScreenId::People {
            effects.extend(self.people_shown());
        }
        if self.shown() == super::ScreenId::Access {
            effects.extend(self.lend_then_follow(|screens, ctx| screens.access_shown(ctx)));
        }
        if self.shown() == super::ScreenId::Switch {
            effects.extend(self.lend_then_follow(|screens, ctx| screens.switch_shown(ctx)));
        }
        effects.extend(self.fetch_visible());
        effects
    }

    /// Everything shown or offered about the previous connection: its rows,
    /// filters, undo, and any picker or filter left open while it switched.
    fn forget_the_old_connection(&mut self) {
        if matches!(self.mode, Mode::Switcher(_) | Mode::Filter(_)) {
            self.mode = Mode::Normal;
        }
        self.screens.subscriptions.forget_undo();
        self.writes.resume = None;
        self.requests.last = None;
        // Another server: the one that could not be reached is no longer asked.
        self.forget_the_old_server();
        for table in self.screens.all_mut() {
            table.close();
            table.clear();
        }
        self.screens.health.forget();
        self.screens.forget_the_organization();
        self.keep_shown_open();
    }

    pub(super) fn switcher_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let Mode::Switcher(switcher) = &mut self.mode else {
            return Vec::new();
        };
        let scope = switcher.scope;
        let current = switcher.current.clone();
        match switcher.key(key) {
            Outcome::Picking => Vec::new(),
            Outcome::Cancel => {
                self.mode = Mode::Normal;
                Vec::new()
            }
            Outcome::Switch(id) => {
                self.mode = Mode::Normal;
                if id == current {
                    return Vec::new();
                }
                match scope {
                    Scope::Profile if id.is_empty() => self.connect(Target::Start),
                    Scope::Profile => self.connect(Target::Profile(id)),
                    Scope::Organization => self.switch_organization(id),
                    Scope::Project => self.switch_project(id),
                }
            }
        }
    }
    /// Finds the names of the organization and project the screen is about.
    /// `@current` is named by what the server said it means; else the
    /// lists are searched, and a key that reaches one organization (or one
    /// project of it) names that one.
    pub(super) fn name_context(
        &mut self,
        organizations: Vec<Organization>,
        projects: Vec<Project>,
        current_organization: Option<Organization>,
        current_project: Option<Project>,
    ) {
        let context = &mut self.context;
        let organization = current_organization
            .as_ref()
            .filter(|_| context.organization == CURRENT)
            .or_else(|| {
                organizations
                    .iter()
                    .find(|organization| organization.id == context.organization)
            })
            .or_else(|| {
                (context.organization == CURRENT && organizations.len() == 1).then(|| &organizations[0])
            });
        context.organization_name = organization.map(|organization| organization.name.clone());
        let project = current_project
            .as_ref()
            .filter(|_| context.project == CURRENT)
            .or_else(|| {
                projects
                    .iter()
                    .find(|project| project.id.to_string() == context.project)
            })
            .or_else(|| {
                let ours: Vec<&Project> = projects
                    .iter()
                    .filter(|project| {
                        organization.is_some_and(|o| project.organization.as_deref() == Some(o.id.as_str()))
                    })
                    .collect();
                (context.project == CURRENT && ours.len() == 1).then(|| ours[0])
            });
        context.project_name = project.map(|project| project.name.clone());
        self.window.dirty = true;
    }
}
