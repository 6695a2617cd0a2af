//! People, not roles: the People view's role index (read when the view
//! opens, kept, read again with `r`), its narrowings (`:no-role`,
//! `:has-role NAME`, cleared by `:people` or Esc), and a person's page
//! (Enter). What is done to people (`a`, `L`) is in `choose.rs`,
//! offboarding (`O`) in `offboard.rs`.

use super::{App, Effect, Notice, ScreenId, Stop};
use crate::console::screens::people::Ask as PeopleAsk;
use crate::console::screens::person::Ask as PersonAsk;

use crate::console::lists::AnyTable;
use crate::console::lists::people::{Narrowing, People, Scan};
use crate::console::lists::person::Chosen;

use crate::console::screens::people::Narrow;
use crate::console::screens::people::msg::{PeopleNews, SharedIndex};

impl App {
    /// People is shown: the index is read the first time.
    pub(super) fn people_shown(&mut self) -> Vec<Effect> {
        let people = &self.screens.people.resource;
        if people.index.is_some() || people.reading.is_some() {
            return Vec::new();
        }
        vec![self.load_role_index()]
    }

    fn load_role_index(&mut self) -> Effect {
        let people = &mut self.screens.people.resource;
        people.reading = Some((0, 0));
        people.index_error = None;
        Effect::from(PeopleAsk::RoleIndex {
            ticket: self.screens.people.resource.asked.indexes.issue(),
            organization: self.context.organization.clone(),
        })
    }

    pub(super) fn role_index_progress(&mut self, done: usize, total: usize) {
        self.screens.people.resource.reading = Some((done, total));
        self.dirty = true;
    }

    /// The index is in: rows show their roles; a narrowing or a page that
    /// waited for it goes on.
    pub(super) fn role_index_arrived(&mut self, result: Result<SharedIndex, String>) -> Vec<Effect> {
        self.dirty = true;
        let people = &mut self.screens.people.resource;
        people.reading = None;
        let mut effects = Vec::new();
        match result {
            Ok(index) => {
                people.index = Some(index.0);
                if people.narrowing.is_some() && people.scan.is_none() {
                    effects.extend(self.start_narrowing());
                }
                if std::mem::take(&mut self.screens.people.resource.asked.page_waits) {
                    effects.extend(self.gather());
                }
            }
            Err(error) => {
                people.index_error = Some(error.clone());
                if std::mem::take(&mut self.screens.people.resource.asked.page_waits) {
                    let page = &mut self.screens.person.resource;
                    page.gathering = false;
                    page.error = Some(format!("who holds which role could not be read: {error}"));
                }
                self.notice = Some(Notice::error(format!(
                    "who holds which role could not be read: {error} (r tries again)"
                )));
            }
        }
        effects
    }

    /// `:people`, `:no-role`, `:has-role NAME`: People, narrowed or not.
    pub(super) fn narrow_people(&mut self, narrowing: Option<Narrowing>) -> Vec<Effect> {
        self.stop_narrowing();
        self.screens.people.resource.asked.narrowings.issue();
        let table = &mut self.screens.people;
        table.resource.narrowing = narrowing.clone();
        table.resource.scan = None;
        table.resource.scan_error = None;
        table.filter.clear();
        table.rows.clear();
        let mut effects = Vec::new();
        if self.shown() != ScreenId::People {
            effects.extend(self.switch(ScreenId::People));
        } else {
            effects.extend(self.people_shown());
        }
        self.notice = Some(Notice::done(match &narrowing {
            None => "everyone again".into(),
            Some(Narrowing::NoRole) => "only the people in no role: :people or Esc shows everyone".into(),
            Some(Narrowing::Role(name)) => {
                format!("only the people of {name}: :people or Esc shows everyone")
            }
        }));
        if narrowing.is_none() {
            effects.extend(self.fetch_visible());
        } else if self.screens.people.resource.index.is_some() {
            effects.extend(self.start_narrowing());
        }
        effects
    }

    /// Starts the look of the narrowing in force, the index being in.
    fn start_narrowing(&mut self) -> Vec<Effect> {
        let people = &self.screens.people.resource;
        let (Some(index), Some(narrowing)) = (people.index.clone(), people.narrowing.clone()) else {
            return Vec::new();
        };
        let narrow = match narrowing {
            Narrowing::NoRole => Narrow::NoRole(SharedIndex(index)),
            Narrowing::Role(name) => match index.role(&name) {
                Some(role) => Narrow::Role(role.clone()),
                None => {
                    let names: Vec<String> = index.roles.iter().map(|role| role.name.clone()).collect();
                    let text = format!("no role is named \"{name}\"; the roles are: {}", names.join(", "));
                    let mut effects = self.narrow_people(None);
                    self.notice = Some(Notice::error(text));
                    effects.extend(self.fetch_visible());
                    return effects;
                }
            },
        };
        let oldest_first = people.oldest_first();
        let table = &mut self.screens.people;
        table.rows.list.restart();
        table.rows.list.hold_all(Vec::new());
        table.rows.view = None;
        table.resource.scan = Some(Scan {
            running: true,
            ..Scan::default()
        });
        let stop = Stop::default();
        self.screens.people.resource.asked.stop = Some(stop.clone());
        vec![Effect::from(PeopleAsk::Narrow {
            ticket: self.screens.people.resource.asked.narrowings.issue(),
            organization: self.context.organization.clone(),
            narrow,
            oldest_first,
            stop,
        })]
    }

    fn stop_narrowing(&mut self) {
        if let Some(stop) = self.screens.people.resource.asked.stop.take() {
            stop.stop();
        }
    }

    pub(super) fn people_news(&mut self, news: PeopleNews) {
        self.dirty = true;
        let height = self.table_height();
        let table = &mut self.screens.people;
        match news {
            PeopleNews::Rows(rows) => table.take(rows, height),
            PeopleNews::Progress { done, total } => {
                if let Some(scan) = table.resource.scan.as_mut() {
                    scan.done = done;
                    scan.total = Some(total);
                }
            }
        }
    }

    pub(super) fn people_narrowed(&mut self, result: Result<bool, String>) {
        self.dirty = true;
        self.screens.people.resource.asked.stop = None;
        let people = &mut self.screens.people.resource;
        if let Some(scan) = people.scan.as_mut() {
            scan.running = false;
            scan.stopped = result == Ok(true);
        }
        match result {
            Ok(true) => {
                self.notice = Some(Notice::done(
                    "stopped: the people found so far are shown; :no-role looks again".into(),
                ))
            }
            Ok(false) => {
                if self
                    .notice
                    .as_ref()
                    .is_some_and(|notice| notice.text.starts_with("stopping"))
                {
                    self.notice = None;
                }
            }
            Err(error) => {
                people.scan_error = Some(format!("the narrowing failed: {error}"));
                self.notice = Some(Notice::error(format!("the narrowing failed: {error}")));
            }
        }
    }

    /// Esc on People: stops the look of a narrowing, else clears the
    /// narrowing. Esc leaving a running offboarding says it goes on.
    /// `Some` when Esc did something here.
    pub(super) fn people_back(&mut self) -> Option<Vec<Effect>> {
        match self.shown() {
            ScreenId::People if self.screens.people.resource.is_scanning() => {
                self.stop_narrowing();
                self.notice = Some(Notice::working("stopping the look…".into()));
                Some(Vec::new())
            }
            ScreenId::People if self.screens.people.resource.narrowing.is_some() => {
                Some(self.narrow_people(None))
            }
            ScreenId::Offboard if self.screens.offboard.resource.is_running() => {
                let screen = self.screens.offboard.resource.screen.as_deref()?;
                self.notice = Some(Notice::done(format!(
                    "the offboarding goes on: {} of {} steps ended, none is abandoned; the notice says when it ends (O shows it)",
                    screen.ended(),
                    screen.plan.changes()
                )));
                None
            }
            _ => None,
        }
    }

    /// `r` on People: who holds which role read again, and the rows (or
    /// the narrowing's look, once the index is in); on a person's page,
    /// the page gathered again after the index.
    pub(super) fn refresh_people(&mut self) -> Vec<Effect> {
        if self.screens.people.resource.reading.is_some() {
            self.notice = Some(Notice::done(
                "still reading who holds which role: r is not sent again".into(),
            ));
            return Vec::new();
        }
        if self.shown() == ScreenId::Person {
            self.regather();
        }
        self.refresh_people_quietly()
    }

    /// The index read again, and the rows with it (a narrowing looks again
    /// once the index is in).
    pub(super) fn refresh_people_quietly(&mut self) -> Vec<Effect> {
        let mut effects = Vec::new();
        if self.screens.people.resource.reading.is_none() {
            effects.push(self.load_role_index());
        }
        if self.screens.people.resource.narrowing.is_some() {
            self.stop_narrowing();
            self.screens.people.resource.asked.narrowings.issue();
            self.screens.people.resource.scan = None;
        } else {
            self.screens.people.remember_selected();
            effects.extend(self.reload(ScreenId::People, false));
        }
        effects
    }

    /// The open page, gathered again once the index being read is in.
    pub(super) fn regather(&mut self) -> Vec<Effect> {
        self.screens.person.resource.gathering = true;
        self.screens.people.resource.asked.page_waits = true;
        Vec::new()
    }

    /// Enter on People: the person's page.
    pub(super) fn open_person(&mut self) -> Vec<Effect> {
        let Some(member) = self.screens.people.selected() else {
            return Vec::new();
        };
        let chosen = Chosen {
            email: member.user.email.clone(),
            name: member.user.display_name(),
        };
        let mut effects = Vec::new();
        if self.screens.person.open(chosen) {
            effects.extend(self.gather());
        }
        effects.extend(self.open_list(ScreenId::Person));
        effects
    }

    /// Gathers the open page, or waits for the index first.
    fn gather(&mut self) -> Vec<Effect> {
        let Some(email) = self
            .screens
            .person
            .resource
            .chosen
            .as_ref()
            .map(|chosen| chosen.email.clone())
        else {
            return Vec::new();
        };
        self.screens.person.resource.gathering = true;
        match self.screens.people.resource.index.clone() {
            Some(index) => vec![Effect::from(PersonAsk::Gather {
                ticket: self.screens.people.resource.asked.profiles.issue(),
                organization: self.context.organization.clone(),
                email,
                index: SharedIndex(index),
            })],
            None => {
                self.screens.people.resource.asked.page_waits = true;
                self.people_shown()
            }
        }
    }

    pub(super) fn profile_arrived(
        &mut self,
        result: Result<Box<crate::people::profile::Profile>, String>,
    ) -> Vec<Effect> {
        self.dirty = true;
        let height = self.table_height();
        match result {
            Ok(profile) => {
                self.screens.person.show(profile, height, self.context.zone);
                if std::mem::take(&mut self.screens.people.resource.asked.then_offboard)
                    && self.shown() == ScreenId::Person
                {
                    return self.open_offboard();
                }
            }
            Err(error) => {
                self.screens.people.resource.asked.then_offboard = false;
                let page = &mut self.screens.person.resource;
                page.gathering = false;
                page.error = Some(error.clone());
                self.notice = Some(Notice::error(format!(
                    "their page could not be gathered: {error}"
                )));
            }
        }
        Vec::new()
    }

    /// Enter on a person's page: a subscription of this project is shown
    /// on Subscriptions (searched for by its title, the cursor on it).
    pub(super) fn person_enter(&mut self) -> Vec<Effect> {
        use crate::console::lists::person::Item;
        let Some(Item::Subscription { found, .. }) = self.screens.person.selected() else {
            self.notice = Some(Notice::done(
                "Enter on a subscription shows it on Subscriptions; d on a role removes them from it".into(),
            ));
            return Vec::new();
        };
        let found = found.clone();
        if found.project.id.to_string() != self.context.project {
            self.notice = Some(Notice::done(format!(
                "{} is in project \"{}\": :project {} shows its subscriptions",
                found.label(),
                found.project.name,
                found.project.id
            )));
            return Vec::new();
        }
        let table = &mut self.screens.subscriptions;
        table.set_filter(found.subscription.title.clone().unwrap_or_default());
        table.search();
        table.refocus = Some(found.subscription.id.to_string());
        self.switch(ScreenId::Subscriptions)
    }

    /// Another organization or connection: what People knew is of the one left.
    pub(super) fn forget_people(&mut self) {
        self.stop_narrowing();
        let mut asked = std::mem::take(&mut self.screens.people.resource.asked);
        asked.forget();
        self.screens.people.resource = People::default();
        self.screens.people.resource.asked = asked;
        self.screens.people.clear();
        self.screens.person.close();
        self.screens.person.clear();
        self.screens.offboard.resource.screen = None;
        self.screens.offboard.clear();
        self.keep_shown_open();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::lists::Resource;

    #[test]
    fn people_narrowed_shows_no_rows_until_they_arrive() {
        let mut people = People::default();
        people.narrowing = Some(Narrowing::NoRole);
        assert!(
            people
                .query(crate::console::lists::Scope {
                    organization: "o",
                    project: "1",
                })
                .is_none()
        );
        assert_eq!(people.heading(), "People · in no role");
    }
}
