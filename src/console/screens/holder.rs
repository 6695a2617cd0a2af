//! The screens the shell holds, one field each ([`Screens`]), and the
//! few questions the shell asks a screen by its [`ScreenId`], one arm a
//! screen: the compiler names the arm a new screen fills. The screen on
//! show is handed out as a list or a page ([`Shown`]); what only a list
//! does is asked of [`Screens::list`]. The shared keys a screen answers
//! its own way are asked here too, so that the shell only routes: what `n`
//! and `e` open ([`Opens`]), what Enter and `:deliveries` do (a
//! [`Heard`]), the subscription `t`, `p`, `e` and `u` act on, what `d`
//! asks and what a bulk key does; each arm calls the screen's own method
//! in its folder, or says the screen does nothing.

use super::access::state::Access;
use super::deliveries::list::Deliveries;
use super::health::Board;
use super::members::list::Members;
use super::offboard::page::Offboarding;
use super::people::list::People;
use super::person::page::Person;
use super::subscriptions::list::Subscriptions;
use super::switch::page::SwitchPreview;
use super::who::list::Who;
use crate::console::kit::latest::Ticket;
use crate::console::kit::notice::Notice;
use crate::console::kit::scope::Scope;
use crate::console::screens::bulk::{Bulk, Verb};
use crate::console::screens::heard::{Heard, Step};
use crate::console::screens::list::List;
use crate::console::screens::roles::grants::page::Grants;
use crate::console::screens::roles::list::Roles;
use crate::console::screens::shown::{Page, Shown, ShownMut};
use crate::console::screens::write::{Confirm, Opens};
use crate::console::screens::{
    Change, Ctx, Screen, ScreenId, ScreenMsg, ScreenPage, health, members, roles, subscriptions,
};
use crate::console::table::Table;
use chrono::{DateTime, Utc};

/// The screens, one field each: a list's table, or a page (a person's,
/// an offboarding) that holds its own lines.
#[derive(Default)]
pub struct Screens {
    pub roles: Table<Roles>,
    pub members: Table<Members>,
    pub subscriptions: Table<Subscriptions>,
    pub deliveries: Table<Deliveries>,
    pub people: Table<People>,
    pub person: Person,
    pub offboard: Offboarding,
    pub health: Table<Board>,
    pub who: Table<Who>,
    pub grants: Grants,
    pub access: Access,
    /// The preview before a change that moves access: no screen of its
    /// own (`preview/`).
    pub preview: super::preview::Preview,
    pub switch: SwitchPreview,
}

impl Screens {
    /// The screen on show, as the shell asks of any screen: a list or a
    /// page (`shown.rs`).
    pub fn shown(&self, id: ScreenId) -> Shown<'_> {
        match id {
            ScreenId::Roles => Shown::List(&self.roles),
            ScreenId::Members => Shown::List(&self.members),
            ScreenId::Subscriptions => Shown::List(&self.subscriptions),
            ScreenId::Deliveries => Shown::List(&self.deliveries),
            ScreenId::People => Shown::List(&self.people),
            ScreenId::Person => Shown::Page(&self.person),
            ScreenId::Offboard => Shown::Page(&self.offboard),
            ScreenId::Health => Shown::List(&self.health),
            ScreenId::Who => Shown::List(&self.who),
            ScreenId::Grants => Shown::Page(&self.grants),
            ScreenId::Access => Shown::Page(&self.access),
            ScreenId::Switch => Shown::Page(&self.switch),
        }
    }

    pub fn shown_mut(&mut self, id: ScreenId) -> ShownMut<'_> {
        match id {
            ScreenId::Roles => ShownMut::List(&mut self.roles),
            ScreenId::Members => ShownMut::List(&mut self.members),
            ScreenId::Subscriptions => ShownMut::List(&mut self.subscriptions),
            ScreenId::Deliveries => ShownMut::List(&mut self.deliveries),
            ScreenId::People => ShownMut::List(&mut self.people),
            ScreenId::Person => ShownMut::Page(&mut self.person),
            ScreenId::Offboard => ShownMut::Page(&mut self.offboard),
            ScreenId::Health => ShownMut::List(&mut self.health),
            ScreenId::Who => ShownMut::List(&mut self.who),
            ScreenId::Grants => ShownMut::Page(&mut self.grants),
            ScreenId::Access => ShownMut::Page(&mut self.access),
            ScreenId::Switch => ShownMut::Page(&mut self.switch),
        }
    }

    /// A list, for what only a list does (pages of rows, sorts, marks);
    /// `None` for a page.
    pub fn list(&self, id: ScreenId) -> Option<&dyn List> {
        self.shown(id).list()
    }

    pub fn list_mut(&mut self, id: ScreenId) -> Option<&mut dyn List> {
        match self.shown_mut(id) {
            ShownMut::List(table) => Some(table),
            ShownMut::Page(_) => None,
        }
    }

    /// Whether a screen is a list with a page of rows to ask for (not a
    /// page, not the members of no role, not Health, which a look fills).
    pub fn asks(&self, id: ScreenId, scope: Scope) -> bool {
        self.list(id).is_some_and(|table| table.query(scope).is_some())
    }

    /// The generation of a list's rows, which its pages' answers carry; a
    /// page, which asks for no pages, has none (the first ticket).
    pub fn generation(&self, id: ScreenId) -> Ticket {
        self.list(id).map(|table| table.generation()).unwrap_or_default()
    }

    /// A page that is not a table, drawn by itself (a person's, an
    /// offboarding); `None` for a list, which the shell draws as a table.
    pub fn page(&self, id: ScreenId) -> Option<&dyn Page> {
        self.shown(id).page()
    }

    pub fn page_mut(&mut self, id: ScreenId) -> Option<&mut dyn Page> {
        match self.shown_mut(id) {
            ShownMut::List(_) => None,
            ShownMut::Page(page) => Some(page),
        }
    }

    /// A page arrived: it lands on the table whose rows it holds (the
    /// match pairs each kind of page with its table, checked by the
    /// compiler). Whether the rows were taken (not of an older generation).
    pub fn receive(&mut self, generation: Ticket, offset: u64, page: ScreenPage, height: u64) -> bool {
        match page {
            ScreenPage::Roles(page) => self.roles.receive(generation, offset, page, height),
            ScreenPage::Members(page) => self.members.receive(generation, offset, page, height),
            ScreenPage::Subscriptions(page) => self.subscriptions.receive(generation, offset, page, height),
            ScreenPage::Deliveries(page) => self.deliveries.receive(generation, offset, page, height),
            ScreenPage::People(page) => self.people.receive(generation, offset, page, height),
        }
    }

    /// `d` on the row under the cursor of a screen: the question before
    /// deleting (or removing, or soft-deleting) it, as its screen's writes
    /// word it; `None` where `d` deletes nothing.
    pub fn confirm_delete(&self, id: ScreenId, scope: Scope) -> Option<Confirm> {
        match id {
            ScreenId::Roles => Some(roles::writes::ask_delete(self.roles.selected()?, scope)),
            ScreenId::Members => {
                let role = self.members.of_role()?;
                let membership = self.members.selected()?;
                let who = members::writes::person(membership);
                Some(members::writes::ask_remove(
                    &who,
                    role,
                    &membership.id,
                    members::writes::user_uuid(membership),
                    scope,
                ))
            }
            ScreenId::Subscriptions => crate::console::screens::subscriptions::writes::ask_soft_delete(
                self.subscriptions.selected()?,
                scope,
            ),
            // A role on a person's page: they leave it.
            ScreenId::Person => self.person.confirm_delete(scope),
            ScreenId::Deliveries
            | ScreenId::People
            | ScreenId::Offboard
            | ScreenId::Health
            | ScreenId::Who
            | ScreenId::Grants
            | ScreenId::Access
            | ScreenId::Switch => None,
        }
    }

    /// What a bulk key does to a screen's marked rows (as last seen, in
    /// the order marked), as its screen's writes say: a write each behind
    /// one question. `None`: nothing marked, or the key does not act in
    /// bulk there; `Some(Err(why))`: nothing to do.
    pub fn bulk(&self, id: ScreenId, verb: Verb, scope: Scope) -> Option<Result<Bulk, String>> {
        match id {
            ScreenId::Roles => roles::writes::bulk(verb, &self.roles.marked_if_any()?, scope),
            ScreenId::Members => {
                let rows = self.members.marked_if_any()?;
                let role = self.members.of_role();
                members::writes::bulk(verb, role, &rows, scope)
            }
            ScreenId::Subscriptions => {
                let rows = self.subscriptions.marked_if_any()?;
                let marked: Vec<_> = rows.into_iter().map(subscriptions::bulk::Marked::of).collect();
                Some(subscriptions::bulk::bulk(verb, &marked, scope))
            }
            ScreenId::Health => health::bulk::bulk(verb, &self.health.marked_if_any()?, scope),
            ScreenId::Deliveries
            | ScreenId::People
            | ScreenId::Person
            | ScreenId::Offboard
            | ScreenId::Who
            | ScreenId::Grants
            | ScreenId::Access
            | ScreenId::Switch => None,
        }
    }

    /// `n` on a screen: what it opens (a form, the picker, nothing), as
    /// the screen says.
    pub fn opens_new(&self, id: ScreenId, now: DateTime<Utc>) -> Opens {
        match id {
            ScreenId::Roles => self.roles.opens_new(),
            ScreenId::Members => Opens::Picker,
            ScreenId::Subscriptions => self.subscriptions.opens_new(now),
            ScreenId::Deliveries
            | ScreenId::People
            | ScreenId::Person
            | ScreenId::Offboard
            | ScreenId::Health
            | ScreenId::Who
            | ScreenId::Grants
            | ScreenId::Access
            | ScreenId::Switch => Opens::Nothing,
        }
    }

    /// `e` on a screen: the form of the row under the cursor (on Health
    /// and a subscription's deliveries, the subscription's; read first
    /// where it is not loaded), the access rule under it, or nothing.
    pub fn opens_edit(&self, id: ScreenId, now: DateTime<Utc>) -> Opens {
        match id {
            ScreenId::Roles => self.roles.opens_edit(),
            ScreenId::Subscriptions | ScreenId::Deliveries | ScreenId::Health => {
                self.opens_subscription(id, now)
            }
            // A rule: a cell, a line of a person's or a role's access, a fix.
            ScreenId::Person | ScreenId::Grants | ScreenId::Access | ScreenId::Switch => Opens::Rule,
            ScreenId::Members | ScreenId::People | ScreenId::Offboard | ScreenId::Who => Opens::Nothing,
        }
    }

    /// Enter on a screen, as the screen answers it: a role opens its
    /// members, a subscription (or Health's row) its deliveries, a person
    /// their page; a member or a delivery its detail over the table.
    pub fn on_enter(&mut self, id: ScreenId, ctx: &mut Ctx) -> Heard {
        match id {
            ScreenId::Roles => self.roles_enter(),
            ScreenId::Members | ScreenId::Deliveries => Heard::step(Step::ToggleDetail),
            ScreenId::Subscriptions => self.subscription_deliveries(),
            ScreenId::People => self.open_person(ctx),
            ScreenId::Person => self.person_enter(ctx),
            ScreenId::Offboard => self.confirm_offboarding(ctx),
            ScreenId::Health => self.health_deliveries(),
            ScreenId::Who => self.who_enter(ctx),
            // Nothing on a line of it opens anything yet.
            ScreenId::Grants => Heard::default(),
            ScreenId::Access => self.access_enter(ctx),
            // The shell takes Enter there as `e` (`shell/navigate.rs`).
            ScreenId::Switch => Heard::default(),
        }
    }

    /// `:deliveries` on a screen: the deliveries of its subscription
    /// (nothing on the deliveries themselves), or why there are none.
    pub fn opens_deliveries(&mut self, id: ScreenId) -> Heard {
        match id {
            ScreenId::Subscriptions => self.subscription_deliveries(),
            ScreenId::Health => self.health_deliveries(),
            ScreenId::Deliveries => Heard::default(),
            ScreenId::Roles
            | ScreenId::Members
            | ScreenId::People
            | ScreenId::Person
            | ScreenId::Offboard
            | ScreenId::Who
            | ScreenId::Grants
            | ScreenId::Access
            | ScreenId::Switch => Heard::step(Step::Say(Notice::error(
                ":deliveries shows the deliveries of the subscription under the cursor: 3 lists them".into(),
            ))),
        }
    }

    /// The id of the subscription `t`, `p`, `e` and `u` act on from a
    /// screen, loaded or not: on Subscriptions and Health, the row's; on a
    /// subscription's deliveries, theirs; elsewhere none.
    pub fn subscription_of(&self, id: ScreenId) -> Option<i64> {
        match id {
            ScreenId::Subscriptions => self.subscriptions.chosen().map(|chosen| chosen.id),
            ScreenId::Deliveries => self.deliveries.subscription(),
            ScreenId::Health => self.health.chosen().map(|chosen| chosen.id),
            ScreenId::Roles
            | ScreenId::Members
            | ScreenId::People
            | ScreenId::Person
            | ScreenId::Offboard
            | ScreenId::Who
            | ScreenId::Grants
            | ScreenId::Access
            | ScreenId::Switch => None,
        }
    }

    /// The `:name`s that show a screen and what help says of them (its
    /// `Screen::COMMANDS`).
    pub fn commands(id: ScreenId) -> &'static [(&'static str, &'static str)] {
        match id {
            ScreenId::Roles => <Roles as Screen>::COMMANDS,
            ScreenId::Members => <Members as Screen>::COMMANDS,
            ScreenId::Subscriptions => <Subscriptions as Screen>::COMMANDS,
            ScreenId::Deliveries => <Deliveries as Screen>::COMMANDS,
            ScreenId::People => <People as Screen>::COMMANDS,
            ScreenId::Person => <Person as Screen>::COMMANDS,
            ScreenId::Offboard => <Offboarding as Screen>::COMMANDS,
            ScreenId::Health => <Board as Screen>::COMMANDS,
            ScreenId::Who => <Who as Screen>::COMMANDS,
            ScreenId::Grants => <Grants as Screen>::COMMANDS,
            ScreenId::Access => <Access as Screen>::COMMANDS,
            ScreenId::Switch => <SwitchPreview as Screen>::COMMANDS,
        }
    }

    /// "Latest wins", in the screen whose request it guards: whether a
    /// screen still waits for this message, by the ticket the screen holds
    /// (the picker's people, the subscription form's catalogue, tiles and
    /// channels, Health's look, People's index and narrowing, a person's
    /// page, the offboarding's run). An answer for a picker, form, look,
    /// narrowing or page since closed or replaced is dropped. Each screen
    /// answers in its folder (its `wants`).
    pub fn wants(&self, msg: &ScreenMsg) -> bool {
        match msg {
            ScreenMsg::Members(msg) => self.members.wants(msg),
            ScreenMsg::Subscriptions(msg) => self.subscriptions.wants(msg),
            ScreenMsg::Health(msg) => self.health.wants(msg),
            ScreenMsg::People(msg) => self.people.wants(msg),
            ScreenMsg::Person(msg) => self.person.wants(msg),
            ScreenMsg::Offboard(msg) => self.offboard.wants(msg),
            ScreenMsg::Who(msg) => self.who.resource.wants(msg),
            ScreenMsg::Grants(msg) => self.grants.wants(msg),
            ScreenMsg::Access(msg) => self.access.wants(msg),
            ScreenMsg::Preview(msg) => self.preview.wants(msg),
            ScreenMsg::Switch(msg) => self.switch.wants(msg),
        }
    }

    /// News of a write, told to every screen that may show what it
    /// changed: each hears it in its own `on_change`. `true`: a screen
    /// closed on it (Members, its role deleted), and the shell shows
    /// what is still open.
    pub fn on_change(&mut self, change: &Change, ctx: &mut Ctx) -> (bool, Heard) {
        roles::list::on_change(&mut self.roles, change, ctx.height);
        let closed = self.members.on_change(change, ctx.height);
        self.subscriptions.on_change(change, ctx);
        // People and a person's page (`people/news.rs`), which may read
        // again.
        let mut heard = self.people_on_change(change, ctx);
        // A role's page (`roles/grants/`), which may read again.
        heard.then(self.grants_on_change(change, ctx));
        // The Access tab (`access/handle.rs`), which may read again.
        heard.then(self.access_on_change(change, ctx));
        // The switch preview (`switch/handle.rs`), read again likewise.
        heard.then(self.switch_on_change(change, ctx));
        (closed, heard)
    }

    /// Another organization (or connection): what was read of the old
    /// one about its people and their access is forgotten, a read of it
    /// under way stopped and its answer dropped: People and the pages
    /// opened from it, the Access tab, the switch preview, a role's page
    /// and `:who`.
    pub fn forget_the_organization(&mut self) {
        self.forget_people();
        self.access.forget();
        self.switch.forget();
        Page::close(&mut self.grants);
        self.who.resource.forget();
        self.who.clear();
        self.preview.forget();
    }

    /// Every list, for what concerns them all (a new connection; the
    /// pages are forgotten with `forget_the_organization`).
    pub fn all_mut(&mut self) -> impl Iterator<Item = &mut dyn List> {
        let Screens {
            roles,
            members,
            subscriptions,
            deliveries,
            people,
            health,
            who,
            // Pages, not lists (named, so that a new field is named here).
            person: _,
            offboard: _,
            grants: _,
            access: _,
            preview: _,
            switch: _,
        } = self;
        [
            roles as &mut dyn List,
            members as &mut dyn List,
            subscriptions as &mut dyn List,
            deliveries as &mut dyn List,
            people as &mut dyn List,
            health as &mut dyn List,
            who as &mut dyn List,
        ]
        .into_iter()
    }
}
