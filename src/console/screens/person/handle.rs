//! How a person's page lands: opened from People (Enter), gathered once
//! the role index is in (it waits for it, or is gathered again after a
//! new one), shown when it arrives (and the offboarding opened if `O`
//! waited for it), and Enter on its subscription lines. Methods of the
//! screens, as the page reads People's index (`people/shared.rs`) and
//! opens an offboarding (`screens/heard.rs` says why), lent a [`Ctx`].

use super::Msg;
use super::page::{Chosen, Item, Person};
use crate::console::kit::notice::Notice;
use crate::console::kit::scope::Scope;
use crate::console::screens::heard::{Heard, Step};
use crate::console::screens::members;
use crate::console::screens::members::writes::OfRole;
use crate::console::screens::people::msg::SharedIndex;
use crate::console::screens::write::Confirm;
use crate::console::screens::{Ctx, ScreenId, Screens};

impl Screens {
    /// The page's own message: the page, gathered.
    pub fn on_person_msg(&mut self, msg: Msg, ctx: &mut Ctx) -> Heard {
        match msg {
            Msg::Profile { result, .. } => self.profile_arrived(result, ctx),
            Msg::AccessRead { done, total, .. } => {
                self.person.access.reading = Some(Some((done, total)));
                self.person.relayout(ctx.height, ctx.zone);
                *ctx.dirty = true;
                Heard::default()
            }
            Msg::Access { result, .. } => {
                let page = &mut self.person;
                page.asked.access_ended();
                page.access.reading = None;
                match result {
                    Ok(access) => {
                        page.access.access = Some(access);
                        page.access.error = None;
                    }
                    Err(error) => page.access.error = Some(error),
                }
                page.relayout(ctx.height, ctx.zone);
                *ctx.dirty = true;
                Heard::default()
            }
        }
    }

    /// Their roles or level changed by a write (People's news): their
    /// access is read again.
    pub(in crate::console::screens) fn reread_access(&mut self, ctx: &Ctx) -> Heard {
        match self.person.profile.take() {
            Some(profile) => {
                let heard = self.read_access(&profile, ctx);
                self.person.profile = Some(profile);
                self.person.relayout(ctx.height, ctx.zone);
                heard
            }
            None => Heard::default(),
        }
    }

    /// Their access read (again), once their page is gathered: a member's
    /// only, through People's role index (whose roles it names).
    fn read_access(&mut self, profile: &crate::people::profile::Profile, ctx: &Ctx) -> Heard {
        let (Some(member), Some(index)) = (profile.member.clone(), self.people.role_index()) else {
            return Heard::default();
        };
        let (ticket, stop) = self.person.asked.start_access();
        self.person.access.reading = Some(None);
        self.person.access.error = None;
        Heard::ask(super::Ask::Access {
            ticket,
            organization: ctx.scope.organization.to_owned(),
            member: Box::new(member),
            index: SharedIndex(index),
            stop: super::ask::Stopper(stop),
        })
    }

    /// Enter on People: the person's page.
    pub fn open_person(&mut self, ctx: &mut Ctx) -> Heard {
        let Some(member) = self.people.selected() else {
            return Heard::default();
        };
        let chosen = Chosen {
            email: member.user.email.clone(),
            name: member.user.display_name(),
        };
        self.open_person_page(chosen, ctx)
    }

    /// A person's page, opened from the screen shown (People, `:who`'s
    /// list): back returns there.
    pub fn open_person_page(&mut self, chosen: Chosen, ctx: &mut Ctx) -> Heard {
        let mut heard = Heard::default();
        if self.person.open(chosen) {
            heard.then(self.gather(ctx));
        }
        heard.push(Step::Open(ScreenId::Person));
        heard
    }

    /// The open page, gathered again once the index being read is in.
    pub(in crate::console::screens) fn regather(&mut self) {
        self.person.gathering = true;
        self.person.asked.waits_for_index = true;
    }

    /// Gathers the open page, or waits for the index first.
    pub(in crate::console::screens) fn gather(&mut self, ctx: &Ctx) -> Heard {
        let Some(email) = self.person.chosen.as_ref().map(|chosen| chosen.email.clone()) else {
            return Heard::default();
        };
        self.person.gathering = true;
        match self.people.role_index() {
            Some(index) => Heard::ask(super::Ask::Gather {
                ticket: self.person.asked.gathers.issue(),
                organization: ctx.scope.organization.to_owned(),
                email,
                index: SharedIndex(index),
            }),
            None => {
                self.person.asked.waits_for_index = true;
                self.people_shown(ctx).into()
            }
        }
    }

    fn profile_arrived(
        &mut self,
        result: Result<Box<crate::people::profile::Profile>, String>,
        ctx: &mut Ctx,
    ) -> Heard {
        *ctx.dirty = true;
        match result {
            Ok(profile) => {
                let mut heard = self.read_access(&profile, ctx);
                self.person.show(profile, ctx.height, ctx.zone);
                if std::mem::take(&mut self.person.asked.then_offboard) && ctx.shown == ScreenId::Person {
                    heard.then(self.open_offboard(ctx));
                }
                return heard;
            }
            Err(error) => {
                self.person.asked.then_offboard = false;
                let page = &mut self.person;
                page.gathering = false;
                page.error = Some(error.clone());
                *ctx.notice = Some(Notice::error(format!(
                    "their page could not be gathered: {error}"
                )));
            }
        }
        Heard::default()
    }

    /// Enter on a person's page: a subscription of this project is shown
    /// on Subscriptions (searched for by its title, the cursor on it).
    pub fn person_enter(&mut self, ctx: &mut Ctx) -> Heard {
        let Some(Item::Subscription { found, .. }) = self.person.selected() else {
            *ctx.notice = Some(Notice::done(
                "Enter on a subscription shows it on Subscriptions; d on a role removes them from it".into(),
            ));
            return Heard::default();
        };
        if found.project.id.to_string() != ctx.scope.project {
            *ctx.notice = Some(Notice::done(format!(
                "{} is in project \"{}\": :project {} shows its subscriptions",
                found.label(),
                found.project.name,
                found.project.id
            )));
            return Heard::default();
        }
        let title = found.subscription.title.clone().unwrap_or_default();
        self.subscriptions.show_titled(title, found.subscription.id);
        Heard::step(Step::Switch(ScreenId::Subscriptions))
    }
}

impl Person {
    /// `d` on a role of the page: the question before they leave it.
    pub fn confirm_delete(&self, scope: Scope) -> Option<Confirm> {
        let Item::Role(role) = self.selected()? else {
            return None;
        };
        let who = self.heading();
        let of = OfRole {
            id: &role.id,
            name: &role.name,
        };
        let user = self.person().map(|(uuid, _, _)| uuid).unwrap_or_default();
        Some(members::writes::ask_remove(
            &who,
            of,
            &role.membership_id,
            &user,
            scope,
        ))
    }
}
