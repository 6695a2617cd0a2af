//! A person's page (Enter on People): their level, their roles and since
//! when, the subscriptions they created and those that mail them (across
//! the organization's projects), their API keys, and what would break if
//! they left — a [`Profile`] gathered in the background, laid out as lines
//! the cursor moves over. `d` on a role removes them from it, Enter on a
//! subscription shows it on Subscriptions; `a`, `L` and `O` act on them.

use std::cmp::Ordering;

use ratatui::layout::Constraint;
use ratatui::text::{Line, Span};
use serde::Serialize;

use crate::api::KeySummary;
use crate::api::models::level;
use crate::console::kit::cell::{contains, styled};
use crate::console::kit::column::{Column, Sort};
use crate::console::kit::detail::field;
use crate::console::kit::scope::Scope;
use crate::console::kit::view::ViewCx;
use crate::console::screens::Screen;
use crate::console::screens::list::Resource;
use crate::console::screens::{Held, ScreenId};
use crate::console::table::Table;
use crate::console::table::hooks::Hooks;
use crate::console::table::listing::Listing;
use crate::display::Zone;
use crate::people::HeldRole;
use crate::people::profile::{Found, Keys, Profile};

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
    Heading { text: String },
    Field { name: &'static str, value: String },
    Role(HeldRole),
    Subscription { found: Box<Found>, created: bool },
    Key(KeySummary),
    Text { text: String, warning: bool },
}

#[derive(Debug, Default)]
pub struct Person {
    pub chosen: Option<Chosen>,
    pub profile: Option<Box<Profile>>,
    /// Gathering under way (or waiting for the role index to start).
    pub gathering: bool,
    pub error: Option<String>,
}

const COLUMNS: [Column; 1] = [Column::new("", Constraint::Fill(1), 0)];

const SORTS: [Sort; 1] = [Sort {
    label: "as laid out",
    column: None,
    descending: false,
    ordering: None,
}];

fn heading_item(text: String) -> Item {
    Item::Heading { text }
}

fn line(text: impl Into<String>, warning: bool) -> Item {
    Item::Text {
        text: text.into(),
        warning,
    }
}

/// The page's lines, in order.
pub fn items(profile: &Profile, zone: Zone) -> Vec<Item> {
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
    items
}

impl Listing for Person {
    type Row = Item;
    const NOUN: &'static str = "line";

    fn columns(&self) -> &'static [Column] {
        &COLUMNS
    }

    fn cells(&self, item: &Item, view: &ViewCx) -> Vec<Span<'static>> {
        super::draw::cells(item, view)
    }

    fn detail(&self, item: &Item, view: &ViewCx) -> (String, Vec<Line<'static>>) {
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
            Item::Heading { text: said } | Item::Text { text: said, .. } => (
                self.heading(),
                vec![Line::raw(format!(" {}", crate::text::printable(said)))],
            ),
            Item::Field { name, value } => (self.heading(), vec![field(name, value.clone(), theme)]),
        }
    }

    fn id(item: &Item) -> String {
        match item {
            Item::Role(role) => role.membership_id.clone(),
            Item::Subscription { found, .. } => found.subscription.id.to_string(),
            Item::Key(key) => key.id.clone().unwrap_or_default(),
            Item::Heading { text } | Item::Text { text, .. } => text.clone(),
            Item::Field { name, .. } => (*name).to_string(),
        }
    }

    fn matches(item: &Item, needle: &str) -> bool {
        serde_json::to_string(item).is_ok_and(|json| contains(&json, needle))
    }

    fn sorts(&self) -> &'static [Sort] {
        &SORTS
    }

    fn compare(_a: &Item, _b: &Item, _sort: &Sort) -> Ordering {
        Ordering::Equal
    }
}

impl Screen for Person {
    const ID: ScreenId = ScreenId::Person;
    const TITLE: &'static str = "Person";
    const TAB: ScreenId = ScreenId::People;
    const PARENT: Option<ScreenId> = Some(ScreenId::People);
    const WRITE_SCOPE: &'static str = "organization:write";
}

impl Hooks for Person {
    type Pager = crate::console::table::pager::Whole;
}

impl Resource for Person {
    type Request = Held<Item>;

    fn heading(&self) -> String {
        match &self.chosen {
            Some(chosen) if chosen.name != chosen.email => format!("{} <{}>", chosen.name, chosen.email),
            Some(chosen) => chosen.email.clone(),
            None => Self::TITLE.into(),
        }
    }

    fn is_open(&self) -> bool {
        self.chosen.is_some()
    }

    fn close(&mut self) {
        *self = Person::default();
    }

    fn query(&self, _scope: Scope) -> Option<Held<Item>> {
        None // gathered, then held
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
        self.error
            .as_ref()
            .map(|error| Line::from(styled(format!(" {error} "), theme.error)))
    }
}

impl Table<Person> {
    /// Shows another person (the same one keeps their page).
    pub fn open(&mut self, chosen: Chosen) -> bool {
        if self.resource.chosen.as_ref() == Some(&chosen) && self.resource.profile.is_some() {
            return false;
        }
        self.resource = Person {
            chosen: Some(chosen),
            gathering: true,
            ..Person::default()
        };
        self.filter.clear();
        self.rows.clear();
        self.rows.list.hold_all(Vec::new());
        true
    }

    /// The profile arrived, or changed: its lines, the cursor kept where it was.
    pub fn show(&mut self, profile: Box<Profile>, height: u64, zone: Zone) {
        self.rows.list.hold_all(items(&profile, zone));
        self.resource.profile = Some(profile);
        self.resource.gathering = false;
        self.resource.error = None;
        let cursor = self.rows.cursor as i64;
        self.apply_view(height);
        self.rows.move_to(cursor, height);
    }

    /// The person's user UUID and how to name them, once known.
    pub fn person(&self) -> Option<(String, String, String)> {
        let profile = self.resource.profile.as_ref()?;
        let uuid = profile
            .member
            .as_ref()
            .map(|member| member.user.uuid.clone())
            .or_else(|| profile.person.uuid.clone())?;
        Some((uuid, profile.person.name.clone(), profile.person.email.clone()))
    }
}
