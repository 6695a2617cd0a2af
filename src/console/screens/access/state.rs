//! The Access tab's state: the two grids (people, roles) as they arrive,
//! each with its read (its ticket, what stops it, how far it came), and
//! what the user narrowed them to: the rows (`/`'s text, only organization
//! admins, only what differs from the default) and the columns (every
//! project, or one project's resources; one resource alone). The rows
//! shown are a list of places, made again when a filter or a project
//! changes (a few thousand checks), never while drawing.

use std::cell::Cell as Shared;

use crate::access::grid::{self, Cell, Frame, Kind, Level, ProjectCells, Subject};
use crate::api::access::levels::display_name;
use crate::console::kit::latest::{Latest, Ticket};

use super::ask::Stopper;

/// One grid as it arrives.
#[derive(Debug, Default)]
pub struct Loaded {
    /// Its rows and columns, once known.
    pub frame: Option<Frame>,
    /// Each project's cells, by its place among the frame's projects.
    pub projects: Vec<Option<ProjectCells>>,
    /// Projects read (or refused).
    pub done: usize,
    /// The read under way: what stops it.
    pub stop: Option<Stopper>,
    /// Issues the reads' tickets: only the latest one's news is taken.
    pub reads: Latest,
    /// Whether a read was ever asked for.
    pub asked: bool,
    /// Esc stopped the read: what arrived stays.
    pub stopped: bool,
    /// Why the read failed.
    pub error: Option<String>,
    /// Requests the last read sent.
    pub requests: u64,
}

impl Loaded {
    /// Whether a read is under way.
    pub fn is_reading(&self) -> bool {
        self.stop.is_some()
    }

    /// A new read: its ticket and what stops it; the one under way stops
    /// and what it read goes.
    pub fn start(&mut self) -> (Ticket, Stopper) {
        if let Some(stop) = self.stop.take() {
            stop.stop();
        }
        let stop = Stopper::default();
        *self = Loaded {
            stop: Some(stop.clone()),
            reads: std::mem::take(&mut self.reads),
            asked: true,
            ..Loaded::default()
        };
        (self.reads.issue(), stop)
    }

    /// Esc: the read under way stops, what arrived stays. Whether there
    /// was one.
    pub fn stop(&mut self) -> bool {
        match self.stop.take() {
            Some(stop) => {
                stop.stop();
                self.stopped = true;
                true
            }
            None => false,
        }
    }

    /// Another organization or connection: nothing kept, a read on its
    /// way stopped and its news dropped.
    pub fn forget(&mut self) {
        if let Some(stop) = self.stop.take() {
            stop.stop();
        }
        let mut reads = std::mem::take(&mut self.reads);
        reads.issue();
        *self = Loaded {
            reads,
            ..Loaded::default()
        };
    }

    /// The subjects, once known.
    pub fn subjects(&self) -> &[Subject] {
        self.frame.as_ref().map_or(&[], |frame| frame.subjects.as_slice())
    }

    /// How many projects there are to read, once known.
    pub fn total(&self) -> Option<usize> {
        self.frame.as_ref().map(|frame| frame.projects.len())
    }

    /// A cell and its source in words; `None` while its project is unread.
    pub fn cell(&self, subject: usize, column: Column) -> Option<(Cell, &str)> {
        self.projects
            .get(column.project)?
            .as_ref()?
            .cell(subject, column.column)
    }

    /// The project's default on a column, once read.
    pub fn default_of(&self, column: Column) -> Option<(Cell, &str)> {
        self.projects
            .get(column.project)?
            .as_ref()?
            .default_of(column.column)
    }

    /// Whether a cell is read and differs from its project's default.
    pub fn differs(&self, subject: usize, column: Column) -> bool {
        match (self.cell(subject, column), self.default_of(column)) {
            (Some((cell, _)), Some((default, _))) => cell.level.is_said() && cell.level != default.level,
            _ => false,
        }
    }

    /// Bytes held by the cells read, for the figures.
    pub fn heap_bytes(&self) -> usize {
        self.projects.iter().flatten().map(ProjectCells::heap_bytes).sum()
    }
}

/// A column of the grid: a project's column (`0` the project itself,
/// else a resource), by the project's place among the frame's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    pub project: usize,
    pub column: usize,
}

/// The Access tab.
#[derive(Debug, Default)]
pub struct Access {
    pub kind: Kind,
    pub people: Loaded,
    pub roles: Loaded,
    /// The project whose resources are the columns (its id); `None`: one
    /// column a project.
    pub project: Option<i64>,
    /// One resource alone (its column; `0` the project level): on every
    /// project, or beside the chosen project's level.
    pub resource: Option<usize>,
    /// Only the rows (and, on a project, the columns) that differ from the
    /// project's default.
    pub only_differs: bool,
    /// Only organization admins (people).
    pub only_admins: bool,
    pub(super) filter: String,
    /// The places of the rows shown, in order.
    pub(super) shown: Vec<u32>,
    /// The columns shown, in order.
    pub(super) columns: Vec<Column>,
    /// The longest of their headings, in characters: worked out when the
    /// columns change, not on every frame.
    pub(super) longest_heading: usize,
    pub(super) cursor: u64,
    pub(super) top: u64,
    /// The column under the cursor, among those shown.
    pub(super) column: usize,
    /// The first column drawn after the frozen name column: kept by the
    /// drawing, which alone knows the width, so that the cursor's column
    /// stays in view as it moves (the way `top` follows the cursor).
    pub(super) left: Shared<usize>,
    /// Issues the tickets of the reads of a rule before it is edited
    /// (`e`): only the latest one's answer opens its chooser.
    pub edits: Latest,
    /// Where the cursor was (row, column) when a write read the grid
    /// again: it returns there once the rows are known.
    pub(super) resume: Option<(u64, usize)>,
}

impl Access {
    /// The grid shown.
    pub fn loaded(&self) -> &Loaded {
        match self.kind {
            Kind::People => &self.people,
            Kind::Roles => &self.roles,
        }
    }

    pub fn loaded_mut(&mut self) -> &mut Loaded {
        match self.kind {
            Kind::People => &mut self.people,
            Kind::Roles => &mut self.roles,
        }
    }

    /// The grid of `kind`.
    pub fn of_kind(&mut self, kind: Kind) -> &mut Loaded {
        match kind {
            Kind::People => &mut self.people,
            Kind::Roles => &mut self.roles,
        }
    }

    /// The projects of the grid shown, once known.
    pub fn projects(&self) -> &[crate::access::directory::ProjectRef] {
        self.loaded()
            .frame
            .as_ref()
            .map_or(&[], |frame| frame.projects.as_slice())
    }

    /// The chosen project's place among the grid's projects.
    pub fn project_place(&self) -> Option<usize> {
        let id = self.project?;
        self.projects().iter().position(|project| project.id == id)
    }

    /// The row shown at a position, with its place.
    pub fn row(&self, shown: u64) -> Option<(usize, &Subject)> {
        let place = *self.shown.get(usize::try_from(shown).ok()?)? as usize;
        Some((place, self.loaded().subjects().get(place)?))
    }

    /// The row under the cursor, with its place.
    pub fn selected(&self) -> Option<(usize, &Subject)> {
        self.row(self.cursor)
    }

    /// The columns shown.
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// The column under the cursor.
    pub fn selected_column(&self) -> Option<Column> {
        self.columns.get(self.column).copied()
    }

    /// The heading of a resource's column (`column` past the project's).
    pub fn resource_heading(column: usize) -> String {
        grid::columns().nth(column).map(display_name).unwrap_or_default()
    }

    /// A column's heading: a project's name, or a resource's.
    pub fn heading_of(&self, column: Column) -> String {
        if self.project.is_some() {
            return if column.column == 0 {
                "project".into()
            } else {
                Access::resource_heading(column.column)
            };
        }
        self.projects()
            .get(column.project)
            .map(|project| project.name.clone())
            .unwrap_or_default()
    }

    /// The rows and columns shown, made again from the filters; the
    /// cursors kept where they were (clamped).
    pub fn narrow(&mut self, height: u64) {
        self.columns = self.columns_wanted();
        let needle = self.filter.trim().to_lowercase();
        let loaded = self.loaded();
        let admins_only = self.only_admins && self.kind == Kind::People;
        let shown: Vec<u32> = loaded
            .subjects()
            .iter()
            .enumerate()
            .filter(|(_, subject)| needle.is_empty() || subject.matches(&needle))
            .filter(|(_, subject)| !admins_only || subject.admin)
            .filter(|(place, _)| {
                !self.only_differs || self.columns.iter().any(|column| loaded.differs(*place, *column))
            })
            .filter_map(|(place, _)| u32::try_from(place).ok())
            .collect();
        self.shown = shown;
        if self.only_differs && self.project.is_some() {
            let mut columns = std::mem::take(&mut self.columns);
            let loaded = self.loaded();
            let rows = &self.shown;
            columns.retain(|column| {
                column.column == 0 || rows.iter().any(|place| loaded.differs(*place as usize, *column))
            });
            self.columns = columns;
        }
        self.longest_heading = (self.columns.iter())
            .map(|column| self.heading_of(*column).chars().count())
            .max()
            .unwrap_or(0);
        self.column = self.column.min(self.columns.len().saturating_sub(1));
        let cursor = self.cursor as i64;
        self.move_to(cursor, height);
    }

    /// The columns the choices ask for, before "only what differs".
    fn columns_wanted(&self) -> Vec<Column> {
        match self.project_place() {
            Some(project) => match self.resource {
                Some(resource) if resource != 0 => vec![
                    Column { project, column: 0 },
                    Column {
                        project,
                        column: resource,
                    },
                ],
                _ => (0..grid::column_count())
                    .map(|column| Column { project, column })
                    .collect(),
            },
            None => (0..self.projects().len())
                .map(|project| Column {
                    project,
                    column: self.resource.unwrap_or(0),
                })
                .collect(),
        }
    }

    /// Moves the cursor (clamped to the rows) and keeps it in a window of
    /// `height` rows.
    pub fn move_to(&mut self, position: i64, height: u64) {
        let last = (self.shown.len() as i64 - 1).max(0);
        self.cursor = position.clamp(0, last) as u64;
        self.scroll(height);
    }

    pub fn scroll(&mut self, height: u64) {
        // The grid's first line is its headings.
        let height = height.saturating_sub(1).max(1);
        if self.cursor < self.top {
            self.top = self.cursor;
        } else if self.cursor >= self.top + height {
            self.top = self.cursor + 1 - height;
        }
        self.top = self.top.min((self.shown.len() as u64).saturating_sub(height));
    }

    /// Moves the column cursor by `step`, clamped.
    pub fn move_column(&mut self, step: isize) {
        let last = self.columns.len().saturating_sub(1);
        self.column = self.column.saturating_add_signed(step).min(last);
    }

    /// The level byte and source of a row's cell, "not read yet" while its
    /// project is unread.
    pub fn cell_of(&self, place: usize, column: Column) -> (Level, &str) {
        match self.loaded().cell(place, column) {
            Some((cell, source)) => (cell.level, source),
            None => (Level::UNREAD, "not read yet"),
        }
    }
}
