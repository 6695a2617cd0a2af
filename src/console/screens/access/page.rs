//! The Access tab as the shell asks of any screen: its place (a tab of
//! its own, `:access`), its heading with the read's progress ("12 of 20
//! projects"), its status line (the source of the cell under the cursor,
//! in words), its detail (`v`), and its rows as the shell moves over them
//! and filters them (`/`: name, address, roles).

use ratatui::Frame as Drawing;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Block;
use serde_json::json;

use super::state::Access;
use crate::access::grid::{Kind, Level};
use crate::console::kit::cell::styled;
use crate::console::kit::detail::field;
use crate::console::kit::page::PageLines;
use crate::console::kit::view::ViewCx;
use crate::console::screens::shown::{Page, Place};
use crate::console::screens::{Screen, ScreenId};

impl Screen for Access {
    const ID: ScreenId = ScreenId::Access;
    const TITLE: &'static str = "Access";
    const TAB: ScreenId = ScreenId::Access;
    const WRITE_SCOPE: &'static str = "access_control:write";
    const COMMANDS: &'static [(&'static str, &'static str)] = &[(
        "access",
        "who can reach what, and why: :access [PROJECT] [RESOURCE] (none: every project)",
    )];
}

impl Access {
    /// "Access · people · every project · 12 of 20 projects".
    pub fn heading(&self) -> String {
        let loaded = self.loaded();
        let columns = match (self.project_place(), self.resource) {
            (Some(place), _) => self
                .projects()
                .get(place)
                .map(|project| project.label())
                .unwrap_or_default(),
            (None, Some(resource)) if resource != 0 => {
                format!("every project · {}", Access::resource_heading(resource))
            }
            (None, _) => "every project".into(),
        };
        let mut parts = vec![format!("Access · {} · {columns}", self.kind.as_str())];
        if let Some(total) = loaded.total() {
            if loaded.done < total || loaded.is_reading() {
                parts.push(format!("{} of {total} projects", loaded.done));
            }
            if loaded.stopped && loaded.done < total {
                parts.push("stopped: r reads again".into());
            }
        }
        if self.only_differs {
            parts.push("only what differs from the default".into());
        }
        if self.only_admins && self.kind == Kind::People {
            parts.push("only organization admins".into());
        }
        parts.join(" · ")
    }

    /// The cell under the cursor told in words: whose, where, the level,
    /// its source, and (unless the project has a note to say instead) the
    /// project's default.
    pub fn cell_words(&self) -> Option<String> {
        let (place, subject) = self.selected()?;
        let column = self.selected_column()?;
        let (level, source) = self.cell_of(place, column);
        let project = self.projects().get(column.project)?;
        let what = match column.column {
            0 => project.name.clone(),
            _ => format!("{} · {}", project.name, Access::resource_heading(column.column)),
        };
        let mut said = format!("{} · {what}: {} · {source}", subject.name, level.name());
        if level.is_said()
            && self.project_note().is_none()
            && let Some((default, why)) = self.loaded().default_of(column)
        {
            said.push_str(&format!(" (project default: {}, {why})", default.level.name()));
        }
        Some(said)
    }

    /// What the project under the cursor's column says of itself: why the
    /// server said nothing of it, or a note of the plan.
    fn project_note(&self) -> Option<String> {
        let column = self.selected_column()?;
        let read = self.loaded().projects.get(column.project)?.as_ref()?;
        read.unknown.clone().or_else(|| read.notes.first().cloned())
    }
}

impl Page for Access {
    fn place(&self) -> Place {
        Place::of::<Self>(match self.kind {
            Kind::People => "person",
            Kind::Roles => "role",
        })
    }

    fn heading(&self) -> String {
        Access::heading(self)
    }

    fn is_open(&self) -> bool {
        true
    }

    /// A tab: nothing to leave but its filter.
    fn close(&mut self) {
        self.filter.clear();
    }

    fn lines(&self) -> &dyn PageLines {
        self
    }

    fn lines_mut(&mut self) -> &mut dyn PageLines {
        self
    }

    fn empty(&self) -> &'static str {
        let loaded = self.loaded();
        match (&loaded.frame, &loaded.error) {
            (_, Some(_)) => "the grid could not be read: r tries again",
            (None, None) if loaded.stopped => "stopped before anyone was read: r reads again",
            (None, None) => "reading the organization's people, roles and projects…",
            (Some(_), None) if self.kind == Kind::Roles => "no role matches",
            (Some(_), None) => "nobody matches",
        }
    }

    fn status(&self, view: &ViewCx) -> Option<Line<'static>> {
        let theme = view.theme;
        let loaded = self.loaded();
        if let Some(error) = &loaded.error {
            return Some(Line::from(styled(format!(" {error} "), theme.error)));
        }
        let mut spans: Vec<Span<'static>> = Vec::new();
        if let Some(words) = self.cell_words() {
            spans.push(styled(format!(" {words} "), theme.accent));
        }
        if let Some(note) = self.project_note() {
            spans.push(styled(format!(" {note} "), theme.warning));
        }
        (!spans.is_empty()).then(|| Line::from(spans))
    }

    fn detail(&self, view: &ViewCx) -> Option<(String, Vec<Line<'static>>)> {
        let theme = view.theme;
        let (place, subject) = self.selected()?;
        let mut lines = Vec::new();
        if self.kind == Kind::People {
            lines.push(field("email", subject.email.clone(), theme));
            lines.push(field("level", subject.level.clone(), theme));
            lines.push(field("roles", subject.roles.join(", "), theme));
        } else {
            lines.push(field("members", subject.members.to_string(), theme));
            lines.push(field("who", subject.roles.join(", "), theme));
        }
        lines.push(Line::raw(""));
        for column in &self.columns {
            let (level, source) = self.cell_of(place, *column);
            let what = match column.column {
                0 => self
                    .projects()
                    .get(column.project)
                    .map(|project| project.name.clone())
                    .unwrap_or_default(),
                _ => Access::resource_heading(column.column),
            };
            lines.push(field(
                &crate::console::kit::fit::fit(&crate::text::printable(&what), 14),
                format!("{} · {source}", level.name()),
                theme,
            ));
        }
        if let Some(note) = self.project_note() {
            lines.push(Line::raw(""));
            lines.push(Line::styled(
                format!(" {}", crate::text::printable(&note)),
                theme.warning,
            ));
        }
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            match self.kind {
                Kind::People => " Enter opens their page",
                Kind::Roles => " Enter opens the role's members",
            },
            theme.dim,
        ));
        Some((subject.name.clone(), lines))
    }

    fn draw(&self, frame: &mut Drawing, area: Rect, block: Block, view: &ViewCx) {
        super::draw::draw(self, frame, area, block, view);
    }
}

impl PageLines for Access {
    fn count(&self) -> Option<u64> {
        self.loaded()
            .frame
            .as_ref()
            .map(|frame| frame.subjects.len() as u64)
    }

    fn len(&self) -> u64 {
        self.shown.len() as u64
    }

    fn has_loaded_rows(&self) -> bool {
        !self.loaded().subjects().is_empty()
    }

    fn cursor(&self) -> u64 {
        self.cursor
    }

    fn top(&self) -> u64 {
        self.top
    }

    fn move_to(&mut self, position: i64, height: u64) {
        Access::move_to(self, position, height);
    }

    fn scroll(&mut self, height: u64) {
        Access::scroll(self, height);
    }

    fn filter(&self) -> &str {
        &self.filter
    }

    fn set_filter(&mut self, text: String) {
        self.filter = text;
        self.cursor = 0;
        self.top = 0;
    }

    fn apply_view(&mut self, height: u64) {
        self.narrow(height);
    }

    fn selected_id(&self) -> Option<String> {
        self.selected().map(|(_, subject)| subject.id.clone())
    }

    fn selected_json(&self) -> Option<String> {
        let (place, subject) = self.selected()?;
        let cells: Vec<serde_json::Value> = self
            .columns
            .iter()
            .map(|column| {
                let (level, source) = self.cell_of(place, *column);
                json!({
                    "project": self.projects().get(column.project).map(|project| project.id),
                    "resource": crate::access::grid::columns().nth(column.column),
                    "level": level.access().map(|level| level.as_str().to_string()),
                    "said": level != Level::UNREAD && level != Level::UNSAID,
                    "source": source,
                })
            })
            .collect();
        let value = json!({ "subject": subject, "cells": cells });
        Some(crate::console::kit::cell::pretty(&value))
    }
}
