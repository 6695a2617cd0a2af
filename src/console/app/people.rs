//! People, not roles: the People view's role index (read when the view
//! opens, kept, read again with `r`), its narrowings (`:no-role`,
//! `:has-role NAME`, cleared by `:people` or Esc), a person's page (Enter),
//! and what is done to people: `a` adds them to roles, `d` on their page
//! removes them from one, `L` changes their level. Offboarding (`O`) is in
//! `offboard.rs`. Every action takes the people it acts on, so that it can
//! act on several.

use std::sync::Arc;

use ratatui::crossterm::event::KeyEvent;

use super::{
    App, Choosing, Confirm, Effect, ListId, Mode, Narrow, Notice, PeopleNews, SharedIndex, Stop, Ticket,
    Write,
};
use crate::api::models::level;
use crate::api::{OrganizationMember, RoleMembership};
use crate::console::lists::AnyTable;
use crate::console::lists::people::{Narrowing, People, Scan};
use crate::console::lists::person::Chosen;
use crate::console::widgets::chooser::{Choice, Chooser, Outcome};
use crate::console::widgets::picker::Person;
use crate::people::{HeldRole, RoleIndex, RoleRef, membership_user};

/// The People view's requests: only the latest of each kind is taken.
#[derive(Debug, Default)]
pub struct PeopleState {
    indexes: super::Latest,
    narrowings: super::Latest,
    /// What stops the narrowing under way.
    stop: Option<Stop>,
    profiles: super::Latest,
    /// The page waits for the index before it is gathered.
    page_waits: bool,
    /// The offboarding opens once the page is gathered (`O` on People).
    pub(super) then_offboard: bool,
}

/// How a person is named in questions and notices: "Ada Okafor <ada@…>".
fn named(member: &OrganizationMember) -> Person {
    let name = member.user.display_name();
    let label = if name.is_empty() || name == member.user.email {
        member.user.email.clone()
    } else {
        format!("{name} <{}>", member.user.email)
    };
    Person {
        label,
        uuid: member.user.uuid.clone(),
    }
}

/// "Data", "Data and On-call", "Data, Finance and On-call".
fn listed(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// "a member", "an admin", "an owner".
fn level_word(level: i64) -> String {
    match level::name(level) {
        name @ ("admin" | "owner" | "unknown") => format!("an {name}"),
        name => format!("a {name}"),
    }
}

impl App {
    /// People is shown: the index is read the first time.
    pub(super) fn people_shown(&mut self) -> Vec<Effect> {
        let people = &self.lists.people.resource;
        if people.index.is_some() || people.reading.is_some() {
            return Vec::new();
        }
        vec![self.load_role_index()]
    }

    fn load_role_index(&mut self) -> Effect {
        let people = &mut self.lists.people.resource;
        people.reading = Some((0, 0));
        people.index_error = None;
        Effect::LoadRoleIndex {
            ticket: self.people.indexes.issue(),
            organization: self.context.organization.clone(),
        }
    }

    pub(super) fn role_index_progress(&mut self, ticket: Ticket, done: usize, total: usize) {
        if self.people.indexes.is_current(ticket) {
            self.lists.people.resource.reading = Some((done, total));
            self.dirty = true;
        }
    }

    /// The index is in: rows show their roles; a narrowing or a page that
    /// waited for it goes on.
    pub(super) fn role_index_arrived(
        &mut self,
        ticket: Ticket,
        result: Result<SharedIndex, String>,
    ) -> Vec<Effect> {
        if !self.people.indexes.is_current(ticket) {
            return Vec::new();
        }
        self.dirty = true;
        let people = &mut self.lists.people.resource;
        people.reading = None;
        let mut effects = Vec::new();
        match result {
            Ok(index) => {
                people.index = Some(index.0);
                if people.narrowing.is_some() && people.scan.is_none() {
                    effects.extend(self.start_narrowing());
                }
                if std::mem::take(&mut self.people.page_waits) {
                    effects.extend(self.gather());
                }
            }
            Err(error) => {
                people.index_error = Some(error.clone());
                if std::mem::take(&mut self.people.page_waits) {
                    let page = &mut self.lists.person.resource;
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

    /// The index, for a change that must be told to it.
    fn index_mut(&mut self) -> Option<&mut RoleIndex> {
        self.lists.people.resource.index.as_mut().map(Arc::make_mut)
    }

    /// `:people`, `:no-role`, `:has-role NAME`: People, narrowed or not.
    pub(super) fn narrow_people(&mut self, narrowing: Option<Narrowing>) -> Vec<Effect> {
        self.stop_narrowing();
        self.people.narrowings.issue();
        let table = &mut self.lists.people;
        table.resource.narrowing = narrowing.clone();
        table.resource.scan = None;
        table.resource.scan_error = None;
        table.filter.clear();
        table.rows.clear();
        let mut effects = Vec::new();
        if self.shown() != ListId::People {
            effects.extend(self.switch(ListId::People));
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
        } else if self.lists.people.resource.index.is_some() {
            effects.extend(self.start_narrowing());
        }
        effects
    }

    /// Starts the look of the narrowing in force, the index being in.
    fn start_narrowing(&mut self) -> Vec<Effect> {
        let people = &self.lists.people.resource;
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
        let table = &mut self.lists.people;
        table.rows.list.restart();
        table.rows.list.hold_all(Vec::new());
        table.rows.view = None;
        table.resource.scan = Some(Scan {
            running: true,
            ..Scan::default()
        });
        let stop = Stop::default();
        self.people.stop = Some(stop.clone());
        vec![Effect::NarrowPeople {
            ticket: self.people.narrowings.issue(),
            organization: self.context.organization.clone(),
            narrow,
            oldest_first,
            stop,
        }]
    }

    fn stop_narrowing(&mut self) {
        if let Some(stop) = self.people.stop.take() {
            stop.stop();
        }
    }

    pub(super) fn people_news(&mut self, ticket: Ticket, news: PeopleNews) {
        if !self.people.narrowings.is_current(ticket) {
            return;
        }
        self.dirty = true;
        let height = self.table_height();
        let table = &mut self.lists.people;
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

    pub(super) fn people_narrowed(&mut self, ticket: Ticket, result: Result<bool, String>) {
        if !self.people.narrowings.is_current(ticket) {
            return;
        }
        self.dirty = true;
        self.people.stop = None;
        let people = &mut self.lists.people.resource;
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
            ListId::People if self.lists.people.resource.is_scanning() => {
                self.stop_narrowing();
                self.notice = Some(Notice::working("stopping the look…".into()));
                Some(Vec::new())
            }
            ListId::People if self.lists.people.resource.narrowing.is_some() => {
                Some(self.narrow_people(None))
            }
            ListId::Offboard if self.lists.offboard.resource.is_running() => {
                let screen = self.lists.offboard.resource.screen.as_deref()?;
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
        if self.lists.people.resource.reading.is_some() {
            self.notice = Some(Notice::done(
                "still reading who holds which role: r is not sent again".into(),
            ));
            return Vec::new();
        }
        if self.shown() == ListId::Person {
            self.regather();
        }
        self.refresh_people_quietly()
    }

    /// The index read again, and the rows with it (a narrowing looks again
    /// once the index is in).
    pub(super) fn refresh_people_quietly(&mut self) -> Vec<Effect> {
        let mut effects = Vec::new();
        if self.lists.people.resource.reading.is_none() {
            effects.push(self.load_role_index());
        }
        if self.lists.people.resource.narrowing.is_some() {
            self.stop_narrowing();
            self.people.narrowings.issue();
            self.lists.people.resource.scan = None;
        } else {
            self.lists.people.remember_selected();
            effects.extend(self.reload(ListId::People, false));
        }
        effects
    }

    /// The open page, gathered again once the index being read is in.
    pub(super) fn regather(&mut self) -> Vec<Effect> {
        self.lists.person.resource.gathering = true;
        self.people.page_waits = true;
        Vec::new()
    }

    /// Enter on People: the person's page.
    pub(super) fn open_person(&mut self) -> Vec<Effect> {
        let Some(member) = self.lists.people.selected() else {
            return Vec::new();
        };
        let chosen = Chosen {
            email: member.user.email.clone(),
            name: member.user.display_name(),
        };
        let mut effects = Vec::new();
        if self.lists.person.open(chosen) {
            effects.extend(self.gather());
        }
        effects.extend(self.open_list(ListId::Person));
        effects
    }

    /// Gathers the open page, or waits for the index first.
    fn gather(&mut self) -> Vec<Effect> {
        let Some(email) = self
            .lists
            .person
            .resource
            .chosen
            .as_ref()
            .map(|chosen| chosen.email.clone())
        else {
            return Vec::new();
        };
        self.lists.person.resource.gathering = true;
        match self.lists.people.resource.index.clone() {
            Some(index) => vec![Effect::GatherProfile {
                ticket: self.people.profiles.issue(),
                organization: self.context.organization.clone(),
                email,
                index: SharedIndex(index),
            }],
            None => {
                self.people.page_waits = true;
                self.people_shown()
            }
        }
    }

    pub(super) fn profile_arrived(
        &mut self,
        ticket: Ticket,
        result: Result<Box<crate::people::profile::Profile>, String>,
    ) -> Vec<Effect> {
        if !self.people.profiles.is_current(ticket) {
            return Vec::new();
        }
        self.dirty = true;
        let height = self.table_height();
        match result {
            Ok(profile) => {
                self.lists.person.show(profile, height);
                if std::mem::take(&mut self.people.then_offboard) && self.shown() == ListId::Person {
                    return self.open_offboard();
                }
            }
            Err(error) => {
                self.people.then_offboard = false;
                let page = &mut self.lists.person.resource;
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
        let Some(Item::Subscription { found, .. }) = self.lists.person.selected() else {
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
        let table = &mut self.lists.subscriptions;
        table.set_filter(found.subscription.title.clone().unwrap_or_default());
        table.search();
        table.refocus = Some(found.subscription.id.to_string());
        self.switch(ListId::Subscriptions)
    }

    /// The people `a`, `L` and `O` act on: the row under the cursor on
    /// People, the person on their page.
    fn acted_on_people(&self) -> Vec<(Person, Option<i64>)> {
        match self.shown() {
            ListId::People => self
                .lists
                .people
                .selected()
                .map(|member| vec![(named(member), Some(member.level))])
                .unwrap_or_default(),
            ListId::Person | ListId::Offboard => {
                let page = &self.lists.person;
                let level = page
                    .resource
                    .profile
                    .as_ref()
                    .and_then(|profile| profile.member.as_ref().map(|member| member.level));
                match (page.person(), &page.resource.profile) {
                    (Some((uuid, _, _)), Some(profile)) if let Some(member) = &profile.member => {
                        vec![(
                            Person {
                                uuid,
                                ..named(member)
                            },
                            level,
                        )]
                    }
                    (Some((uuid, name, email)), _) => vec![(
                        Person {
                            label: format!("{name} <{email}>"),
                            uuid,
                        },
                        level,
                    )],
                    (None, _) => Vec::new(),
                }
            }
            _ => Vec::new(),
        }
    }

    /// `a`: the roles to add the people under the cursor to.
    pub(super) fn choose_roles_here(&mut self) -> Vec<Effect> {
        let people: Vec<Person> = self
            .acted_on_people()
            .into_iter()
            .map(|(person, _)| person)
            .collect();
        self.choose_roles(people)
    }

    /// `a` for some people: a multi-select of the roles not all of them hold.
    pub(super) fn choose_roles(&mut self, people: Vec<Person>) -> Vec<Effect> {
        if people.is_empty() {
            return Vec::new();
        }
        let Some(index) = self.lists.people.resource.index.clone() else {
            self.notice = Some(Notice::done(
                "who holds which role is still being read: a works once it is in".into(),
            ));
            return Vec::new();
        };
        let choices: Vec<Choice> = index
            .roles
            .iter()
            .filter(|role| {
                !people
                    .iter()
                    .all(|person| index.of(&person.uuid).iter().any(|held| held.id == role.id))
            })
            .map(|role| Choice {
                id: role.id.clone(),
                label: role.name.clone(),
                note: format!(
                    "{} {}",
                    index.size(&role.id),
                    if index.size(&role.id) == 1 {
                        "person"
                    } else {
                        "people"
                    }
                ),
            })
            .collect();
        let who = match people.as_slice() {
            [one] => one.label.clone(),
            many => format!("{} people", many.len()),
        };
        if choices.is_empty() {
            self.notice = Some(Notice::done(format!("{who}: in every role already")));
            return Vec::new();
        }
        let chooser = Chooser::new(
            "add to roles".into(),
            format!("Add {who} to the roles marked:"),
            choices,
            true,
        );
        self.mode = Mode::Chooser(Box::new(chooser), Choosing::Roles { people });
        Vec::new()
    }

    /// `L`: the level of the person under the cursor.
    pub(super) fn choose_level_here(&mut self) -> Vec<Effect> {
        let Some((person, level)) = self.acted_on_people().into_iter().next() else {
            return Vec::new();
        };
        let Some(level) = level else {
            self.notice = Some(Notice::error(format!(
                "{} is not a member of the organization",
                person.label
            )));
            return Vec::new();
        };
        self.choose_level(person, level)
    }

    /// A one-of chooser of the levels, the current one said.
    pub(super) fn choose_level(&mut self, person: Person, current: i64) -> Vec<Effect> {
        let choices: Vec<Choice> = [level::MEMBER, level::ADMIN, level::OWNER]
            .into_iter()
            .map(|choice| Choice {
                id: choice.to_string(),
                label: level::name(choice).into(),
                note: if choice == current {
                    "now".into()
                } else {
                    String::new()
                },
            })
            .collect();
        let mut chooser = Chooser::new(
            "level".into(),
            format!("{}'s level in the organization:", person.label),
            choices,
            false,
        );
        chooser.cursor = [level::MEMBER, level::ADMIN, level::OWNER]
            .iter()
            .position(|choice| *choice == current)
            .unwrap_or(0);
        self.mode = Mode::Chooser(
            Box::new(chooser),
            Choosing::Level {
                person,
                level: current,
            },
        );
        Vec::new()
    }

    pub(super) fn chooser_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let Mode::Chooser(chooser, _) = &mut self.mode else {
            return Vec::new();
        };
        let chosen = match chooser.key(key) {
            Outcome::Choosing => return Vec::new(),
            Outcome::Cancel => {
                self.mode = Mode::Normal;
                return Vec::new();
            }
            Outcome::Chosen(chosen) => chosen,
        };
        let Mode::Chooser(chooser, purpose) = std::mem::replace(&mut self.mode, Mode::Normal) else {
            return Vec::new();
        };
        let picked: Vec<&Choice> = chosen.iter().filter_map(|at| chooser.choices.get(*at)).collect();
        let organization = self.context.organization.clone();
        match purpose {
            Choosing::Roles { people } => {
                let roles: Vec<RoleRef> = picked
                    .iter()
                    .map(|choice| RoleRef {
                        id: choice.id.clone(),
                        name: choice.label.clone(),
                    })
                    .collect();
                let names: Vec<String> = roles.iter().map(|role| role.name.clone()).collect();
                let who: Vec<String> = people.iter().map(|person| person.label.clone()).collect();
                let adds = people.len() * roles.len();
                self.mode = Mode::Confirm(Confirm {
                    question: format!(
                        "Add {} to {} {}?\n{adds} membership{} will be made, each reported.",
                        listed(&who),
                        if roles.len() == 1 { "the role" } else { "the roles" },
                        listed(&names),
                        if adds == 1 { "" } else { "s" }
                    ),
                    write: Write::AddToRoles {
                        organization,
                        people,
                        roles,
                    },
                    destructive: false,
                    form: None,
                });
            }
            Choosing::Level { person, level } => {
                let Some(wanted) = picked.first().and_then(|choice| choice.id.parse::<i64>().ok()) else {
                    return Vec::new();
                };
                if wanted == level {
                    self.notice = Some(Notice::done(format!(
                        "{} is {} already",
                        person.label,
                        level_word(level)
                    )));
                    return Vec::new();
                }
                self.mode = Mode::Confirm(Confirm {
                    question: format!(
                        "Make {} {}? They are {} now.",
                        person.label,
                        level_word(wanted),
                        level_word(level)
                    ),
                    write: Write::SetLevel {
                        organization,
                        person,
                        level: wanted,
                    },
                    destructive: true,
                    form: None,
                });
            }
        }
        Vec::new()
    }

    /// A membership was made: the index, the page and the Roles tab say so.
    pub(super) fn people_joined(&mut self, membership: &RoleMembership) {
        let Some(user) = membership_user(membership) else {
            return;
        };
        let name = self
            .lists
            .people
            .resource
            .index
            .as_ref()
            .and_then(|index| index.role(&membership.role_id).map(|role| role.name.clone()))
            .unwrap_or_else(|| membership.role_id.clone());
        let held = HeldRole {
            id: membership.role_id.clone(),
            name,
            membership_id: membership.id.clone(),
            joined_at: membership.joined_at,
        };
        if let Some(index) = self.index_mut() {
            index.joined(&user, held.clone());
        }
        crate::console::lists::roles::members_changed(
            &mut self.lists.roles,
            &membership.role_id,
            Some(membership.clone()),
            None,
        );
        self.change_page(&user, |profile| {
            if !profile.roles.iter().any(|role| role.id == held.id) {
                profile.roles.push(held);
                profile.roles.sort_by_key(|role| role.name.to_lowercase());
            }
        });
    }

    /// A membership (by id) was deleted: the index and the page say so.
    pub(super) fn people_left(&mut self, membership_id: &str) {
        if let Some(index) = self.index_mut() {
            index.left(membership_id);
        }
        let uuid = self
            .lists
            .person
            .person()
            .map(|(uuid, _, _)| uuid)
            .unwrap_or_default();
        self.change_page(&uuid, |profile| {
            profile.roles.retain(|role| role.membership_id != membership_id)
        });
    }

    /// A member as they are now (a level changed): their row and page.
    pub(super) fn member_changed(&mut self, member: OrganizationMember) -> String {
        let text = format!("{} is now {}", named(&member).label, level_word(member.level));
        let table = &mut self.lists.people;
        if let Some(at) = table.position_of(&member.user.uuid) {
            table.rows.list.replace_row(at, member.clone());
        }
        let uuid = member.user.uuid.clone();
        self.change_page(&uuid, |profile| profile.member = Some(member));
        text
    }

    /// Changes the open page's profile, if it is this user's, and lays it out again.
    fn change_page(&mut self, uuid: &str, change: impl FnOnce(&mut crate::people::profile::Profile)) {
        let height = self.table_height();
        let page = &mut self.lists.person;
        let ours = page
            .person()
            .is_some_and(|(them, _, _)| !uuid.is_empty() && them.eq_ignore_ascii_case(uuid));
        if !ours {
            return;
        }
        if let Some(mut profile) = page.resource.profile.take() {
            change(&mut profile);
            page.show(profile, height);
        }
    }

    /// Another organization or connection: what People knew is of the one left.
    pub(super) fn forget_people(&mut self) {
        self.stop_narrowing();
        self.people.indexes.issue();
        self.people.narrowings.issue();
        self.people.profiles.issue();
        self.people.page_waits = false;
        self.people.then_offboard = false;
        self.lists.people.resource = People::default();
        self.lists.people.clear();
        self.lists.person.close();
        self.lists.person.clear();
        self.lists.offboard.resource.screen = None;
        self.lists.offboard.clear();
        self.keep_shown_open();
    }

    /// The role names `:has-role` completes, once known.
    pub fn role_names(&self) -> Vec<String> {
        self.lists
            .people
            .resource
            .index
            .as_ref()
            .map(|index| index.roles.iter().map(|role| role.name.clone()).collect())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_levels_read_as_words() {
        assert_eq!(listed(&["Data".into()]), "Data");
        assert_eq!(listed(&["A".into(), "B".into(), "C".into()]), "A, B and C");
        assert_eq!(level_word(level::ADMIN), "an admin");
        assert_eq!(level_word(level::OWNER), "an owner");
        assert_eq!(level_word(level::MEMBER), "a member");
    }

    #[test]
    fn people_narrowed_shows_no_rows_until_they_arrive() {
        let people = People {
            narrowing: Some(Narrowing::NoRole),
            ..People::default()
        };
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
