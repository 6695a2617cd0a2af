//! A person's page (Enter on People): their level, their roles and since
//! when, the subscriptions they created and those that mail them (across
//! the organization's projects), their API keys, and what would break if
//! they left — a [`Profile`] gathered in the background, laid out as lines
//! the cursor moves over — and then their access in every project (the
//! Access section, `access.rs`), read once the page is gathered. `d` on a role removes them from it, Enter on a
//! subscription shows it on Subscriptions; `a`, `L` and `O` act on them.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Block;
use serde::Serialize;

use crate::api::KeySummary;
use crate::api::models::level;
use crate::console::kit::cell::styled;
use crate::console::kit::detail::field;
use crate::console::kit::page::{Lines, PageItem, PageLines};
use crate::console::kit::view::ViewCx;
use crate::console::screens::keys::Action;
use crate::console::screens::shown::{Page, Place};
use crate::console::screens::{Screen, ScreenId};
use crate::display::Zone;
use crate::people::HeldRole;
use crate::people::profile::{Found, Keys, Profile};

use super::access::{Said, Section};

/// Whom the page is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chosen {
    pub email: String,
    pub name: String,
}

/// A line of the page.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Item {
    Heading {
        text: String,
    },
    Field {
        name: &'static str,
        value: String,
    },
    Role(HeldRole),
    Subscription {
        found: Box<Found>,
        created: bool,
    },
    Key(KeySummary),
    Text {
        text: String,
        warning: bool,
    },
    /// A line of the Access section.
    Access(Said),
}

/// A person's page: whom it is about, what was gathered of them, and its
/// lines with the cursor over them.
#[derive(Debug, Default)]
pub struct Person {
    pub chosen: Option<Chosen>,
    pub profile: Option<Box<Profile>>,
    /// Gathering under way (or waiting for the role index to start).
    pub gathering: bool,
    pub error: Option<String>,
    pub lines: Lines<Item>,
    /// Their access, as read (the page's last section).
    pub access: Section,
    /// What the page asked and what waits on it; kept from one person to
    /// the next (`asked.rs`).
    pub(super) asked: super::asked::Asked,
}

fn heading_item(text: String) -> Item {
    Item::Heading { text }
}

fn line(text: impl Into<String>, warning: bool) -> Item {
    Item::Text {
        text: text.into(),
        warning,
    }
}

/// The page's lines, in order: what was gathered, then their access (for
/// a member of the organization).
pub fn items(profile: &Profile, access: &Section, zone: Zone) -> Vec<Item> {
    let mut items = Vec::new();
    match &profile.member {
        Some(member) => {
            items.push(Item::Field {
                name: "level",
                value: level::name(member.level).into(),
            });
            items.push(Item::Field {
                name: "joined",
                value: crate::display::day(member.joined_at, zone),
            });
            items.push(Item::Field {
                name: "last login",
                value: crate::display::day(member.last_login, zone),
            });
        }
        None => items.push(line("not a member of the organization", true)),
    }
    for warning in &profile.warnings {
        items.push(line(warning.clone(), true));
    }
    items.push(heading_item(format!("Roles ({})", profile.roles.len())));
    if profile.roles.is_empty() {
        items.push(line("none", true));
    }
    items.extend(profile.roles.iter().cloned().map(Item::Role));
    for (title, found, created) in [
        ("Created", &profile.created_subscriptions, true),
        ("Receiving", &profile.receiving_subscriptions, false),
    ] {
        items.push(heading_item(format!("{title} subscriptions ({})", found.len())));
        if found.is_empty() {
            items.push(line("none", false));
        }
        items.extend(found.iter().map(|found| Item::Subscription {
            found: Box::new(found.clone()),
            created,
        }));
    }
    match &profile.keys {
        Keys::Known(keys) => {
            let used = if !keys.has_keys {
                String::new()
            } else if keys.has_keys_active_last_week {
                " · used in the last week".into()
            } else {
                " · none used in the last week".into()
            };
            items.push(heading_item(format!("API keys ({}){used}", keys.keys.len())));
            if keys.keys.is_empty() {
                items.push(line("none", false));
            }
            items.extend(keys.keys.iter().cloned().map(Item::Key));
        }
        Keys::Unlisted { .. } => {
            items.push(heading_item("API keys".into()));
            items.push(line(crate::people::profile::UNLISTED.to_string(), true));
            items.push(line(crate::people::profile::UNLISTED_MEANS.to_string(), false));
        }
        Keys::Unknown { unknown } => {
            items.push(heading_item("API keys".into()));
            items.push(line(format!("unknown: {unknown}"), true));
        }
    }
    items.push(heading_item(format!(
        "If they left ({})",
        profile.would_break.len()
    )));
    if profile.would_break.is_empty() {
        items.push(line("nothing breaks", false));
    }
    items.extend(profile.would_break.iter().map(|text| line(text.clone(), true)));
    if profile.member.is_some() {
        items.push(heading_item(super::access::heading(access)));
        items.extend(super::access::lines(access).into_iter().map(Item::Access));
    }
    items
}

impl PageItem for Item {
    fn id(&self) -> String {
        match self {
            Item::Role(role) => role.membership_id.clone(),
            Item::Subscription { found, .. } => found.subscription.id.to_string(),
            Item::Key(key) => key.id.clone().unwrap_or_default(),
            Item::Heading { text } | Item::Text { text, .. } => text.clone(),
            Item::Access(said) => said.text.clone(),
            Item::Field { name, .. } => (*name).to_string(),
        }
    }
}

impl Screen for Person {
    const ID: ScreenId = ScreenId::Person;
    const TITLE: &'static str = "Person";
    const TAB: ScreenId = ScreenId::People;
    const PARENT: Option<ScreenId> = Some(ScreenId::People);
    const WRITE_SCOPE: &'static str = "organization:write";
    // `e` edits an access rule (its Access section's), not the person.
    const ACTION_SCOPES: &'static [(Action, &'static str)] = &[(Action::Edit, "access_control:write")];
    // Opened from another screen, or shown by a command of its own.
    const COMMANDS: &'static [(&'static str, &'static str)] = &[];
}

impl Person {
    /// Shows another person (the same one keeps their page).
    pub fn open(&mut self, chosen: Chosen) -> bool {
        if self.chosen.as_ref() == Some(&chosen) && self.profile.is_some() {
            return false;
        }
        self.asked.stop_access();
        *self = Person {
            chosen: Some(chosen),
            gathering: true,
            asked: std::mem::take(&mut self.asked),
            ..Person::default()
        };
        self.lines.open();
        true
    }

    /// Another organization or connection: no page open, and none on its
    /// way taken.
    pub fn forget(&mut self) {
        let mut asked = std::mem::take(&mut self.asked);
        asked.forget();
        *self = Person {
            asked,
            ..Person::default()
        };
    }

    /// Whether a person's page still waits for this message (not one for
    /// a person or an organization left).
    pub fn wants(&self, msg: &super::Msg) -> bool {
        match msg {
            super::Msg::Profile { ticket, .. } => self.asked.wants(*ticket),
            super::Msg::AccessRead { ticket, .. } | super::Msg::Access { ticket, .. } => {
                self.asked.access.is_current(*ticket)
            }
        }
    }

    /// `O` on someone whose page is not yet gathered: the offboarding
    /// opens once it is.
    pub fn offboard_once_gathered(&mut self) {
        self.asked.then_offboard = true;
    }

    /// Whether the page is being gathered (or waits to be).
    pub fn is_gathering(&self) -> bool {
        self.gathering
    }

    /// What was gathered of the person, once it is.
    pub fn gathered(&self) -> Option<&Profile> {
        self.profile.as_deref()
    }

    /// The open page's profile changed by another screen's write, if it
    /// is this user's: it is laid out again (People's news, `news.rs`).
    /// Whether it was theirs.
    pub fn change_profile(
        &mut self,
        uuid: &str,
        height: u64,
        zone: Zone,
        change: impl FnOnce(&mut Profile),
    ) -> bool {
        let ours = self
            .person()
            .is_some_and(|(them, _, _)| !uuid.is_empty() && them.eq_ignore_ascii_case(uuid));
        if !ours {
            return false;
        }
        let Some(mut profile) = self.profile.take() else {
            return false;
        };
        change(&mut profile);
        self.show(profile, height, zone);
        true
    }

    /// People's role index is in: whether the page waited for it (and is
    /// to be gathered now).
    pub fn index_arrived(&mut self) -> bool {
        std::mem::take(&mut self.asked.waits_for_index)
    }

    /// People's role index could not be read: a page that waited for it
    /// says why it cannot be gathered.
    pub fn index_failed(&mut self, error: &str) {
        if std::mem::take(&mut self.asked.waits_for_index) {
            self.gathering = false;
            self.error = Some(format!("who holds which role could not be read: {error}"));
        }
    }

    /// The profile arrived, or changed: its lines, the cursor kept where it was.
    pub fn show(&mut self, profile: Box<Profile>, height: u64, zone: Zone) {
        self.lines.hold(items(&profile, &self.access, zone), height);
        self.profile = Some(profile);
        self.gathering = false;
        self.error = None;
    }

    /// Laid out again (their access came further), the cursor kept.
    pub fn relayout(&mut self, height: u64, zone: Zone) {
        if let Some(profile) = &self.profile {
            self.lines.hold(items(profile, &self.access, zone), height);
        }
    }

    /// The line under the cursor.
    pub fn selected(&self) -> Option<&Item> {
        self.lines.selected()
    }

    /// The person's user UUID and how to name them, once known.
    pub fn person(&self) -> Option<(String, String, String)> {
        let profile = self.profile.as_ref()?;
        let uuid = profile
            .member
            .as_ref()
            .map(|member| member.user.uuid.clone())
            .or_else(|| profile.person.uuid.clone())?;
        Some((uuid, profile.person.name.clone(), profile.person.email.clone()))
    }

    pub fn heading(&self) -> String {
        match &self.chosen {
            Some(chosen) if chosen.name != chosen.email => format!("{} <{}>", chosen.name, chosen.email),
            Some(chosen) => chosen.email.clone(),
            None => Self::TITLE.into(),
        }
    }

    /// A line of the page told in full (`v`).
    fn detail_of(&self, item: &Item, view: &ViewCx) -> (String, Vec<Line<'static>>) {
        let theme = view.theme;
        let now = view.now;
        match item {
            Item::Role(role) => (
                role.name.clone(),
                vec![
                    field("role", role.id.clone(), theme),
                    field("membership", role.membership_id.clone(), theme),
                    field("since", view.when(role.joined_at), theme),
                    Line::raw(""),
                    Line::styled(" d removes them from this role (asks first)", theme.dim),
                ],
            ),
            Item::Subscription { found, created } => {
                let subscription = &found.subscription;
                let state = subscription.state(now).as_str().to_string();
                let mut lines = vec![
                    field(
                        "project",
                        format!("{} ({})", found.project.name, found.project.id),
                        theme,
                    ),
                    field("state", state, theme),
                    field(
                        "target",
                        format!(
                            "{} {}",
                            subscription
                                .target_type
                                .as_ref()
                                .map_or("-", |target| target.as_str()),
                            subscription.target_value.as_deref().unwrap_or("")
                        ),
                        theme,
                    ),
                    field(
                        "created by",
                        subscription
                            .created_by
                            .as_ref()
                            .map(|user| user.email.clone())
                            .unwrap_or_else(|| "-".into()),
                        theme,
                    ),
                    field("they", if *created { "created it" } else { "receive it" }, theme),
                ];
                lines.push(Line::raw(""));
                lines.push(Line::styled(" Enter shows it on Subscriptions", theme.dim));
                (found.label(), lines)
            }
            Item::Key(key) => (
                key.label.clone().unwrap_or_else(|| "unlabelled".into()),
                vec![
                    field("id", key.id.clone().unwrap_or_else(|| "-".into()), theme),
                    field("scopes", key.scopes.join(", "), theme),
                    field("last used", view.when(key.last_used_at), theme),
                ],
            ),
            Item::Access(said) => (
                Person::heading(self),
                vec![Line::raw(format!(" {}", crate::text::printable(&said.text)))],
            ),
            Item::Heading { text: said } | Item::Text { text: said, .. } => (
                Person::heading(self),
                vec![Line::raw(format!(" {}", crate::text::printable(said)))],
            ),
            Item::Field { name, value } => (Person::heading(self), vec![field(name, value.clone(), theme)]),
        }
    }
}

impl Page for Person {
    fn place(&self) -> Place {
        Place::of::<Self>("line")
    }

    fn heading(&self) -> String {
        Person::heading(self)
    }

    fn is_open(&self) -> bool {
        self.chosen.is_some()
    }

    /// Back leaves the page: whom it shows forgotten, the read of their
    /// access stopped, and any answer on its way dropped.
    fn close(&mut self) {
        self.forget();
    }

    fn lines(&self) -> &dyn PageLines {
        &self.lines
    }

    fn lines_mut(&mut self) -> &mut dyn PageLines {
        &mut self.lines
    }

    fn empty(&self) -> &'static str {
        match (self.gathering, &self.error) {
            (true, _) => "gathering their roles, subscriptions and keys…",
            (false, Some(_)) => "their page could not be gathered: r tries again",
            (false, None) => "nothing known of them",
        }
    }

    fn status(&self, view: &ViewCx) -> Option<Line<'static>> {
        let theme = view.theme;
        if self.gathering && self.profile.is_some() {
            return Some(Line::styled(" gathering again… ", theme.dim));
        }
        if self.access.reading.is_some() && self.error.is_none() {
            return Some(Line::styled(
                format!(" {} ", super::access::progress(&self.access)),
                theme.dim,
            ));
        }
        self.error
            .as_ref()
            .map(|error| Line::from(styled(format!(" {error} "), theme.error)))
    }

    fn detail(&self, view: &ViewCx) -> Option<(String, Vec<Line<'static>>)> {
        Some(self.detail_of(self.selected()?, view))
    }

    fn draw(&self, frame: &mut Frame, area: Rect, block: Block, view: &ViewCx) {
        super::draw::draw(self, frame, area, block, view);
    }
}
