//! How the Access tab lands: shown (the grid read the first time), its
//! news as the read goes (the frame, then each project), its end, its own
//! keys, `:access [PROJECT] [RESOURCE]`, Esc (the read stops, what arrived
//! stays), `r` (read again) and Enter (a person's page, or a role's
//! members, opened from here: back returns here). Methods of the screens,
//! as Enter opens a person's page and a role's members; lent a [`Ctx`].

use super::keys::Key;
use super::state::Access;
use super::{Ask, Msg};
use crate::access::grid::{self, Kind, News};
use crate::api::access::levels::display_name;
use crate::console::kit::notice::Notice;
use crate::console::screens::heard::{Heard, Step};
use crate::console::screens::members::list::ChosenRole;
use crate::console::screens::person::page::Chosen;
use crate::console::screens::{Ctx, ScreenId, Screens};

impl Screens {
    /// The tab is shown: its grid is read the first time.
    pub fn access_shown(&mut self, ctx: &mut Ctx) -> Heard {
        if self.access.loaded().asked {
            return Heard::default();
        }
        self.access.read(ctx).into()
    }

    /// `r` on the tab: the grid shown read again.
    pub fn access_reload(&mut self, ctx: &mut Ctx) -> Heard {
        *ctx.notice = Some(Notice::working(format!(
            "reading the {} grid again…",
            self.access.kind.as_str()
        )));
        self.access.read(ctx).into()
    }

    /// Esc on the tab: the read under way stops. Whether there was one.
    pub fn access_stop(&mut self, ctx: &mut Ctx) -> bool {
        let loaded = self.access.loaded_mut();
        if !loaded.stop() {
            return false;
        }
        let (done, total) = (loaded.done, loaded.total());
        *ctx.notice = Some(Notice::done(match total {
            Some(total) => format!("stopped: {done} of {total} projects read, they stay; r reads again"),
            None => "stopped before anyone was read: r reads again".into(),
        }));
        *ctx.dirty = true;
        true
    }

    /// The tab's message: news of its read, or its end.
    pub fn on_access_msg(&mut self, msg: Msg, ctx: &mut Ctx) -> Heard {
        *ctx.dirty = true;
        let access = &mut self.access;
        match msg {
            Msg::Rule { target, result, .. } => return self.rule_read(*target, result, ctx),
            Msg::News { kind, news, .. } => {
                let loaded = access.of_kind(kind);
                match news {
                    News::Framed(frame) => {
                        loaded.projects = vec![None; frame.projects.len()];
                        loaded.frame = Some(*frame);
                        if kind == access.kind
                            && let Some((cursor, column)) = access.resume.take()
                        {
                            access.cursor = cursor;
                            access.column = column;
                        }
                    }
                    News::Project(read) => {
                        let at = read.at;
                        if let Some(slot) = loaded.projects.get_mut(at) {
                            *slot = Some(*read);
                            loaded.done += 1;
                        }
                    }
                }
                if kind == access.kind {
                    access.narrow(ctx.height);
                }
            }
            Msg::Ended {
                kind,
                result,
                requests,
                ..
            } => {
                let loaded = access.of_kind(kind);
                loaded.stop = None;
                loaded.requests = requests;
                if let Err(error) = result {
                    *ctx.notice = Some(Notice::error(format!(
                        "the {} grid could not be read: {error}",
                        kind.as_str()
                    )));
                    loaded.error = Some(error);
                }
            }
        }
        Heard::default()
    }

    /// News of a write that moved access (a rule, a membership, a level, a
    /// role deleted, an offboarding): the grid shown is read again if it
    /// was read, the cursor kept, and the other when it is next shown.
    pub fn access_on_change(&mut self, change: &crate::console::screens::Change, ctx: &mut Ctx) -> Heard {
        if !matches!(change, crate::console::screens::Change::AccessChanged { .. }) {
            return Heard::default();
        }
        let other = match self.access.kind {
            Kind::People => &mut self.access.roles,
            Kind::Roles => &mut self.access.people,
        };
        if other.asked {
            other.forget();
        }
        if self.access.loaded().asked {
            self.access.resume = Some((self.access.cursor, self.access.column));
            self.access.read(ctx).into()
        } else {
            Heard::default()
        }
    }

    /// A key of the tab's own.
    pub fn access_key(&mut self, key: Key, ctx: &mut Ctx) -> Heard {
        *ctx.dirty = true;
        let access = &mut self.access;
        let mut heard = Heard::default();
        match key {
            Key::Left => access.move_column(-1),
            Key::Right => access.move_column(1),
            Key::Kind => {
                access.kind = match access.kind {
                    Kind::People => Kind::Roles,
                    Kind::Roles => Kind::People,
                };
                access.cursor = 0;
                access.top = 0;
                if !access.loaded().asked {
                    heard = access.read(ctx).into();
                }
            }
            Key::Project => {
                let projects = access.projects();
                access.project = match access.project_place() {
                    None => projects.first().map(|project| project.id),
                    Some(at) => projects.get(at + 1).map(|project| project.id),
                };
                access.column = 0;
            }
            Key::Resource => access.toggle_resource(ctx),
            Key::Differs => access.only_differs = !access.only_differs,
            Key::Admins if access.kind == Kind::Roles => {
                *ctx.notice = Some(Notice::done(
                    "A keeps organization admins alone: R shows people".into(),
                ));
            }
            Key::Admins => access.only_admins = !access.only_admins,
        }
        access.narrow(ctx.height);
        heard
    }

    /// `:access [PROJECT] [RESOURCE]`: the tab, its columns a project's
    /// resources (or every project's, `:access` alone or `all`), one
    /// resource alone if named.
    pub fn access_command(&mut self, argument: Option<&str>, ctx: &mut Ctx) -> Heard {
        let access = &mut self.access;
        match argument.map(str::trim).filter(|argument| !argument.is_empty()) {
            None | Some("all") => {
                access.project = None;
                access.resource = None;
            }
            Some(argument) => match access.chosen(argument) {
                Ok((project, resource)) => {
                    access.project = project;
                    access.resource = resource;
                }
                Err(error) => {
                    *ctx.notice = Some(Notice::error(error));
                    return Heard::step(Step::Switch(ScreenId::Access));
                }
            },
        }
        access.column = 0;
        access.narrow(ctx.height);
        Heard::step(Step::Switch(ScreenId::Access))
    }

    /// Enter on the tab: the person's page, or the role's members; back
    /// returns here.
    pub fn access_enter(&mut self, ctx: &mut Ctx) -> Heard {
        let Some((_, subject)) = self.access.selected() else {
            return Heard::default();
        };
        match self.access.kind {
            Kind::People => {
                let chosen = Chosen {
                    email: subject.email.clone(),
                    name: subject.name.clone(),
                };
                self.open_person_page(chosen, ctx)
            }
            Kind::Roles => {
                let role = ChosenRole {
                    id: subject.id.clone(),
                    name: subject.name.clone(),
                };
                self.members.open(role);
                Heard::step(Step::Open(ScreenId::Members))
            }
        }
    }
}

impl Access {
    /// Whether the tab still waits for this message (of the latest read of
    /// its grid).
    pub fn wants(&self, msg: &Msg) -> bool {
        let (ticket, kind) = msg.of();
        match kind {
            Some(Kind::People) => self.people.reads.is_current(ticket),
            Some(Kind::Roles) => self.roles.reads.is_current(ticket),
            None => self.edits.is_current(ticket),
        }
    }

    /// Another organization or connection: both grids forgotten, a read
    /// under way stopped.
    pub fn forget(&mut self) {
        self.people.forget();
        self.roles.forget();
        // A rule read for `e` is of the old organization: its answer drops.
        self.edits.issue();
        self.shown.clear();
        self.columns.clear();
        self.cursor = 0;
        self.top = 0;
    }

    /// A read of the grid shown, the chosen project first.
    fn read(&mut self, ctx: &Ctx) -> Option<Ask> {
        let kind = self.kind;
        let first = self.project;
        let (ticket, stop) = self.of_kind(kind).start();
        self.shown.clear();
        self.columns.clear();
        Some(Ask::Read {
            ticket,
            kind,
            organization: ctx.scope.organization.to_owned(),
            first,
            stop,
        })
    }

    /// `f`: the resource under the cursor alone, or every resource again.
    fn toggle_resource(&mut self, ctx: &mut Ctx) {
        if self.resource.take().is_some() {
            return;
        }
        match self.selected_column() {
            Some(column) if self.project.is_some() && column.column != 0 => {
                self.resource = Some(column.column);
                self.column = 1;
            }
            _ => {
                *ctx.notice = Some(Notice::done(
                    "f keeps the resource under the cursor alone: P shows a project's resources first".into(),
                ));
            }
        }
    }

    /// What `:access ARGUMENT` names: a project (by id or name, any case),
    /// a resource (as PostHog names it, or in words), or a project then a
    /// resource.
    fn chosen(&self, argument: &str) -> Result<(Option<i64>, Option<usize>), String> {
        if let Some(project) = self.project_named(argument) {
            return Ok((Some(project), None));
        }
        if let Some(resource) = resource_named(argument) {
            return Ok((self.project, Some(resource)));
        }
        // A project then a resource, either of several words: each split
        // from the right ("Hedgebox Web feature flags").
        let splits = argument
            .char_indices()
            .filter(|(_, c)| c.is_whitespace())
            .map(|(at, _)| at);
        for at in splits.collect::<Vec<_>>().into_iter().rev() {
            let (project, resource) = argument.split_at(at);
            if let (Some(project), Some(resource)) = (self.project_named(project), resource_named(resource)) {
                return Ok((Some(project), Some(resource)));
            }
        }
        Err(format!(
            ":access takes a project (its id or name) and/or a resource (dashboard, feature_flag, …), not \"{}\"",
            crate::text::printable(argument)
        ))
    }

    fn project_named(&self, name: &str) -> Option<i64> {
        let name = name.trim();
        let projects = self.projects();
        if let Ok(id) = name.parse::<i64>() {
            // Before the projects are known, an id is taken at its word.
            return (projects.is_empty() || projects.iter().any(|project| project.id == id)).then_some(id);
        }
        let lower = name.to_lowercase();
        projects
            .iter()
            .find(|project| project.name.to_lowercase() == lower)
            .map(|project| project.id)
    }
}

/// The column of a resource named as PostHog names it (`feature_flag`) or
/// in words (`feature flags`); not the project.
fn resource_named(name: &str) -> Option<usize> {
    let lower = name.trim().to_lowercase();
    grid::columns()
        .enumerate()
        .skip(1)
        .find(|(_, resource)| {
            *resource == lower
                || display_name(resource).to_lowercase() == lower
                || display_name(resource).to_lowercase().trim_end_matches('s') == lower.replace('_', " ")
        })
        .map(|(at, _)| at)
}
