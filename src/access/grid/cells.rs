//! The grid's cells and rows as held: whom a row is ([`Subject`]), a
//! level in a byte ([`Level`]), a cell ([`Cell`]: the level and the place
//! of its source, 4 bytes), the columns of a project (the project, then
//! each resource in PostHog's order), one project's cells as read
//! ([`ProjectCells`]) and the table of its sources, each text once.

use std::collections::HashMap;

use crate::api::access::levels::{AccessLevel, PROJECT, RESOURCES};

/// Whom the grid's rows are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Kind {
    #[default]
    People,
    Roles,
}

impl Kind {
    /// "people" or "roles".
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::People => "people",
            Kind::Roles => "roles",
        }
    }
}

/// A cell's level in a byte: not read yet, not said by the server,
/// nothing resolved, or one of the access levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Level(u8);

impl Level {
    /// Not read yet.
    pub const UNREAD: Level = Level(0);
    /// The server does not say (the member is not listed, the project
    /// cannot be read).
    pub const UNSAID: Level = Level(1);
    /// The server resolved nothing (`effective_access_level` null).
    pub const NOTHING: Level = Level(2);
    /// A level this version does not know (its name is in the source).
    pub const OTHER: Level = Level(3);
    const FIRST: u8 = 4;

    /// The byte of a level the server sent.
    pub fn of(level: Option<&AccessLevel>) -> Level {
        let Some(level) = level else {
            return Level::NOTHING;
        };
        match AccessLevel::ALL.iter().position(|known| known == level) {
            Some(at) => Level(Level::FIRST + at as u8),
            None => Level::OTHER,
        }
    }

    /// The access level, if it is one.
    pub fn access(self) -> Option<&'static AccessLevel> {
        AccessLevel::ALL.get(usize::from(self.0.checked_sub(Level::FIRST)?))
    }

    /// Whether the server said something of it.
    pub fn is_said(self) -> bool {
        self != Level::UNREAD && self != Level::UNSAID
    }

    /// As a cell shows it: the level's name, `·` not read yet, `?` not
    /// said, `-` nothing resolved, `other` a level this version does not
    /// know.
    pub fn name(self) -> &'static str {
        match self {
            Level::UNREAD => "·",
            Level::UNSAID => "?",
            Level::NOTHING => "-",
            Level::OTHER => "other",
            _ => self.access().map_or("?", |level| match level {
                AccessLevel::None => "none",
                AccessLevel::Member => "member",
                AccessLevel::Admin => "admin",
                AccessLevel::Viewer => "viewer",
                AccessLevel::Editor => "editor",
                AccessLevel::Manager => "manager",
                AccessLevel::Other(_) => "other",
            }),
        }
    }
}

/// One cell: its level, and its source's place in its project's sources.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Cell {
    pub level: Level,
    pub source: u16,
}

/// A row of the grid: a person (by membership id) or a role (by id).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Subject {
    /// A person's membership id, or a role's id (lower case).
    pub id: String,
    pub name: String,
    /// A person's address; empty for a role.
    pub email: String,
    /// member, admin or owner; empty for a role.
    pub level: String,
    /// Whether they are an organization admin (or owner): they bypass
    /// every rule.
    pub admin: bool,
    /// A person's roles, or a role's members, by name: what `/` looks in
    /// besides the name and address.
    pub roles: Vec<String>,
    /// A role's members, counted.
    pub members: usize,
}

impl Subject {
    /// Whether `needle` (lower case) is in the name, the address or a
    /// role's name.
    pub fn matches(&self, needle: &str) -> bool {
        let holds = |text: &str| text.to_lowercase().contains(needle);
        holds(&self.name) || holds(&self.email) || self.roles.iter().any(|role| holds(role))
    }
}

/// The grid's columns: the project, then every resource in PostHog's order.
pub fn columns() -> impl Iterator<Item = &'static str> {
    std::iter::once(PROJECT).chain(RESOURCES.iter().copied())
}

/// How many columns a project has: the project and its resources.
pub fn column_count() -> usize {
    RESOURCES.len() + 1
}

/// The place of a column (`project` or a resource), if it is one.
pub fn column_of(resource: &str) -> Option<usize> {
    columns().position(|column| column == resource)
}

/// One project read: every row's cells (subject by subject, each
/// [`column_count`] long), the project's defaults, and its sources.
#[derive(Debug, Clone, Default)]
pub struct ProjectCells {
    /// Its place among the grid's projects.
    pub at: usize,
    /// Why the server said nothing of the project (then no cells).
    pub unknown: Option<String>,
    /// What the answers show of the plan ("a plan without access
    /// control…"), or of rules that could not be read.
    pub notes: Vec<String>,
    /// The project's default on each column: everyone's rule, else the
    /// built-in default.
    pub defaults: Vec<Cell>,
    pub cells: Vec<Cell>,
    /// Each source once, as its cells' `source` index them.
    pub sources: Vec<String>,
}

impl ProjectCells {
    /// The cell of a subject on a column, and its source in words.
    pub fn cell(&self, subject: usize, column: usize) -> Option<(Cell, &str)> {
        if let Some(unknown) = &self.unknown {
            return Some((
                Cell {
                    level: Level::UNSAID,
                    source: 0,
                },
                unknown,
            ));
        }
        let cell = *self.cells.get(subject * column_count() + column)?;
        Some((cell, self.source(cell)))
    }

    /// The project's default on a column.
    pub fn default_of(&self, column: usize) -> Option<(Cell, &str)> {
        let cell = *self.defaults.get(column)?;
        Some((cell, self.source(cell)))
    }

    fn source(&self, cell: Cell) -> &str {
        self.sources
            .get(usize::from(cell.source))
            .map_or("", String::as_str)
    }

    /// Bytes held, for the figures.
    pub fn heap_bytes(&self) -> usize {
        self.cells.capacity() * std::mem::size_of::<Cell>()
            + self.defaults.capacity() * std::mem::size_of::<Cell>()
            + self.sources.iter().map(String::capacity).sum::<usize>()
    }
}

/// The sources of one project, each text once.
#[derive(Default)]
pub(super) struct Sources {
    pub(super) texts: Vec<String>,
    places: HashMap<String, u16>,
}

impl Sources {
    pub(super) fn place(&mut self, text: String) -> u16 {
        if let Some(place) = self.places.get(&text) {
            return *place;
        }
        // More than 65,535 distinct reasons in one project cannot be told
        // apart: the last place stands for the rest.
        let place = u16::try_from(self.texts.len()).unwrap_or(u16::MAX);
        if place < u16::MAX {
            self.texts.push(text.clone());
            self.places.insert(text, place);
        }
        place
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_level_round_trips_through_its_byte() {
        for level in AccessLevel::ALL {
            let byte = Level::of(Some(level));
            assert_eq!(byte.access(), Some(level));
            assert_eq!(byte.name(), level.as_str());
            assert!(byte.is_said());
        }
        assert_eq!(Level::of(None), Level::NOTHING);
        assert_eq!(Level::of(Some(&AccessLevel::Other("owner".into()))), Level::OTHER);
        assert_eq!(Level::UNREAD.name(), "·");
        assert!(!Level::UNSAID.is_said());
        assert_eq!(std::mem::size_of::<Cell>(), 4);
    }

    #[test]
    fn each_source_is_kept_once() {
        let mut sources = Sources::default();
        let a = sources.place("role Contractors".into());
        let b = sources.place("own rule".into());
        assert_eq!(sources.place("role Contractors".into()), a);
        assert_ne!(a, b);
        assert_eq!(sources.texts.len(), 2);
    }

    #[test]
    fn a_refused_project_says_why_in_every_cell() {
        let project = ProjectCells {
            unknown: Some("not readable with this key: 403".into()),
            ..ProjectCells::default()
        };
        let (cell, why) = project.cell(7, 3).unwrap();
        assert_eq!(cell.level, Level::UNSAID);
        assert_eq!(why, "not readable with this key: 403");
    }
}
