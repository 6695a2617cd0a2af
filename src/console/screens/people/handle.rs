//! How People's keys and answers land: its role index (read when the
//! screen is first shown, kept, read again with `r`), its narrowings
//! (`:no-role`, `:has-role NAME`, cleared by `:people` or Esc) and the
//! news of their looks. Each is a method of the screens (People shares
//! its index with a person's page, `person/handle.rs`, and an
//! offboarding, `offboard/handle.rs`), lent a [`Ctx`], returning what the
//! shell does next ([`Heard`]).

use super::list::{Narrowing, People, Scan};
use super::msg::{PeopleNews, SharedIndex};
use super::{Ask, Msg, Narrow};
use crate::console::kit::notice::Notice;
use crate::console::kit::stop::Stop;
use crate::console::screens::heard::{Heard, Step};
use crate::console::screens::offboard::page::Offboarding;
use crate::console::screens::{Ctx, ScreenId, Screens};

impl Screens {
    /// People's own message (`Screens::wants` dropped any stale one).
    pub fn on_people_msg(&mut self, msg: Msg, ctx: &mut Ctx) -> Heard {
        match msg {
            Msg::RoleIndexProgress { done, total, .. } => {
                self.people.resource.reading = Some((done, total));
                *ctx.dirty = true;
                Heard::default()
            }
            Msg::RoleIndex { result, .. } => self.role_index_arrived(result, ctx),
            Msg::PeopleNews { news, .. } => {
                self.people_news(news, ctx);
                Heard::default()
            }
            Msg::PeopleNarrowed { result, .. } => {
                self.people_narrowed(result, ctx);
                Heard::default()
            }
        }
    }

    /// People is shown: the index is read the first time.
    pub fn people_shown(&mut self, ctx: &Ctx) -> Option<Ask> {
        let people = &self.people.resource;
        if people.index.is_some() || people.reading.is_some() {
            return None;
        }
        Some(self.load_role_index(ctx))
    }

    fn load_role_index(&mut self, ctx: &Ctx) -> Ask {
        let people = &mut self.people.resource;
        people.reading = Some((0, 0));
        people.index_error = None;
        Ask::RoleIndex {
            ticket: people.asked.indexes.issue(),
            organization: ctx.scope.organization.to_owned(),
        }
    }

    /// The index is in: rows show their roles; a narrowing or a page that
    /// waited for it goes on.
    fn role_index_arrived(&mut self, result: Result<SharedIndex, String>, ctx: &mut Ctx) -> Heard {
        *ctx.dirty = true;
        let people = &mut self.people.resource;
        people.reading = None;
        let mut heard = Heard::default();
        match result {
            Ok(index) => {
                people.index = Some(index.0);
                if people.narrowing.is_some() && people.scan.is_none() {
                    heard.then(self.start_narrowing(ctx));
                }
                if self.person.index_arrived() {
                    heard.then(self.gather(ctx));
                }
            }
            Err(error) => {
                people.index_error = Some(error.clone());
                self.person.index_failed(&error);
                *ctx.notice = Some(Notice::error(format!(
                    "who holds which role could not be read: {error} (r tries again)"
                )));
            }
        }
        heard
    }

    /// `:people`, `:no-role`, `:has-role NAME`: People, narrowed or not.
    pub fn narrow_people(&mut self, narrowing: Option<Narrowing>, ctx: &mut Ctx) -> Heard {
        self.stop_narrowing();
        let table = &mut self.people;
        table.resource.asked.narrowings.issue();
        table.resource.narrowing = narrowing.clone();
        table.resource.scan = None;
        table.resource.scan_error = None;
        table.filter.clear();
        table.rows.clear();
        let mut heard = Heard::default();
        if ctx.shown != ScreenId::People {
            heard.push(Step::Switch(ScreenId::People));
            // What follows is handled as on People, as the shell will
            // have switched to it by then.
            ctx.shown = ScreenId::People;
        } else {
            heard.then(self.people_shown(ctx).into());
        }
        heard.push(Step::Say(Notice::done(match &narrowing {
            None => "everyone again".into(),
            Some(Narrowing::NoRole) => "only the people in no role: :people or Esc shows everyone".into(),
            Some(Narrowing::Role(name)) => {
                format!("only the people of {name}: :people or Esc shows everyone")
            }
        })));
        if narrowing.is_none() {
            heard.push(Step::FetchVisible);
        } else if self.people.resource.index.is_some() {
            heard.then(self.start_narrowing(ctx));
        }
        heard
    }

    /// Starts the look of the narrowing in force, the index being in.
    fn start_narrowing(&mut self, ctx: &mut Ctx) -> Heard {
        let people = &self.people.resource;
        let (Some(index), Some(narrowing)) = (people.index.clone(), people.narrowing.clone()) else {
            return Heard::default();
        };
        let narrow = match narrowing {
            Narrowing::NoRole => Narrow::NoRole(SharedIndex(index)),
            Narrowing::Role(name) => match index.role(&name) {
                Some(role) => Narrow::Role(role.clone()),
                None => {
                    let names: Vec<String> = index.roles.iter().map(|role| role.name.clone()).collect();
                    let text = format!("no role is named \"{name}\"; the roles are: {}", names.join(", "));
                    let mut heard = self.narrow_people(None, ctx);
                    heard.push(Step::Say(Notice::error(text)));
                    heard.push(Step::FetchVisible);
                    return heard;
                }
            },
        };
        let oldest_first = people.oldest_first();
        let table = &mut self.people;
        table.rows.list.restart();
        table.rows.list.hold_all(Vec::new());
        table.rows.view = None;
        table.resource.scan = Some(Scan {
            running: true,
            ..Scan::default()
        });
        let stop = Stop::default();
        table.resource.asked.stop = Some(stop.clone());
        Heard::ask(Ask::Narrow {
            ticket: table.resource.asked.narrowings.issue(),
            organization: ctx.scope.organization.to_owned(),
            narrow,
            oldest_first,
            stop,
        })
    }

    fn stop_narrowing(&mut self) {
        if let Some(stop) = self.people.resource.asked.stop.take() {
            stop.stop();
        }
    }

    fn people_news(&mut self, news: PeopleNews, ctx: &mut Ctx) {
        *ctx.dirty = true;
        let table = &mut self.people;
        match news {
            PeopleNews::Rows(rows) => table.take(rows, ctx.height),
            PeopleNews::Progress { done, total } => {
                if let Some(scan) = table.resource.scan.as_mut() {
                    scan.done = done;
                    scan.total = Some(total);
                }
            }
        }
    }

    fn people_narrowed(&mut self, result: Result<bool, String>, ctx: &mut Ctx) {
        *ctx.dirty = true;
        let people = &mut self.people.resource;
        people.asked.stop = None;
        if let Some(scan) = people.scan.as_mut() {
            scan.running = false;
            scan.stopped = result == Ok(true);
        }
        match result {
            Ok(true) => {
                *ctx.notice = Some(Notice::done(
                    "stopped: the people found so far are shown; :no-role looks again".into(),
                ))
            }
            Ok(false) => {
                if ctx
                    .notice
                    .as_ref()
                    .is_some_and(|notice| notice.text.starts_with("stopping"))
                {
                    *ctx.notice = None;
                }
            }
            Err(error) => {
                people.scan_error = Some(format!("the narrowing failed: {error}"));
                *ctx.notice = Some(Notice::error(format!("the narrowing failed: {error}")));
            }
        }
    }

    /// Esc on People: stops the look of a narrowing, else clears the
    /// narrowing. Esc leaving a running offboarding says it goes on.
    /// `Some` when Esc did something here.
    pub fn people_back(&mut self, ctx: &mut Ctx) -> Option<Heard> {
        match ctx.shown {
            ScreenId::People if self.people.resource.is_scanning() => {
                self.stop_narrowing();
                *ctx.notice = Some(Notice::working("stopping the look…".into()));
                Some(Heard::default())
            }
            ScreenId::People if self.people.resource.narrowing.is_some() => {
                Some(self.narrow_people(None, ctx))
            }
            ScreenId::Offboard => {
                self.offboard_left(ctx);
                None
            }
            _ => None,
        }
    }

    /// `r` on People: who holds which role read again, and the rows (or
    /// the narrowing's look, once the index is in); on a person's page,
    /// the page gathered again after the index.
    pub fn refresh_people(&mut self, ctx: &mut Ctx) -> Heard {
        if self.people.resource.reading.is_some() {
            *ctx.notice = Some(Notice::done(
                "still reading who holds which role: r is not sent again".into(),
            ));
            return Heard::default();
        }
        if ctx.shown == ScreenId::Person {
            self.regather();
        }
        self.refresh_people_quietly(ctx)
    }

    /// The index read again, and the rows with it (a narrowing looks again
    /// once the index is in).
    pub(in crate::console::screens) fn refresh_people_quietly(&mut self, ctx: &Ctx) -> Heard {
        let mut heard = Heard::default();
        if self.people.resource.reading.is_none() {
            heard = Heard::ask(self.load_role_index(ctx));
        }
        if self.people.resource.narrowing.is_some() {
            self.stop_narrowing();
            self.people.resource.asked.narrowings.issue();
            self.people.resource.scan = None;
        } else {
            self.people.remember_selected();
            heard.push(Step::Reload(ScreenId::People));
        }
        heard
    }

    /// Another organization or connection: what People knew is of the
    /// one left, and so are a person's page and an offboarding.
    pub fn forget_people(&mut self) {
        self.stop_narrowing();
        let mut asked = std::mem::take(&mut self.people.resource.asked);
        asked.forget();
        self.people.resource = People::default();
        self.people.resource.asked = asked;
        self.people.clear();
        self.person.forget();
        self.offboard = Offboarding::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::kit::scope::Scope;
    use crate::console::screens::list::Resource;

    #[test]
    fn people_narrowed_shows_no_rows_until_they_arrive() {
        let mut people = People::default();
        people.narrowing = Some(Narrowing::NoRole);
        assert!(
            people
                .query(Scope {
                    organization: "o",
                    project: "1",
                })
                .is_none()
        );
        assert_eq!(people.heading(), "People · in no role");
    }
}
