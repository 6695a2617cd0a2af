//! People (`4`, `:people`): every member of the organization, paged,
//! searched (`/`) and ordered (`s`: joined, newest or oldest first) by the
//! server, so that it works at 50,000 people; with the roles each holds,
//! from a [`RoleIndex`] read in the background while the view is open
//! (ROLES shows "…" until it is in). `:no-role` and `:has-role NAME`
//! narrow it: then the rows are those a narrowing found, held in memory.

use std::cmp::Ordering;
use std::sync::Arc;

use ratatui::text::{Line, Span};

use crate::api::OrganizationMember;
use crate::api::models::level;
use crate::console::kit::cell::{contains, id_starts, styled, text};
use crate::console::kit::column::{Column, Sort};
use crate::console::kit::detail::{field, heading};
use crate::console::kit::scope::Scope;
use crate::console::kit::theme::Theme;
use crate::console::kit::view::ViewCx;
use crate::console::screens;
use crate::console::screens::Screen;
use crate::console::screens::ScreenId;
use crate::console::screens::list::Resource;
use crate::console::table::Table;
use crate::console::table::hooks::Hooks;
use crate::console::table::listing::Listing;
use crate::people::{RoleIndex, RoleRef};

/// What `:no-role` and `:has-role` narrow People to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Narrowing {
    NoRole,
    /// One role, by its name as typed until the index names it.
    Role(String),
}

/// A narrowing's look through the members.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Scan {
    /// Members looked through, of how many (`:no-role` reads them all).
    pub done: u64,
    pub total: Option<u64>,
    pub running: bool,
    /// Stopped with Esc before the end.
    pub stopped: bool,
}

#[derive(Debug, Default)]
pub struct People {
    /// Who holds which role, once read.
    pub index: Option<Arc<RoleIndex>>,
    /// The index being read: roles read, of how many.
    pub reading: Option<(usize, usize)>,
    /// Why the index could not be read.
    pub index_error: Option<String>,
    /// What the server was asked to search for.
    search: String,
    /// `order=joined_at`; else `-joined_at`, newest first.
    oldest_first: bool,
    pub narrowing: Option<Narrowing>,
    pub scan: Option<Scan>,
    /// Why the narrowing failed.
    pub scan_error: Option<String>,
    /// What People and a person's page asked, each kind's latest.
    pub asked: crate::console::screens::people::asked::Asked,
}

/// On a narrow table the name stands for the person (the detail has the
/// address), so that roles and dates keep their room: the address goes
/// first, then the dates.
const COLUMNS: [Column; 6] = [
    Column::fill("NAME", 2, 14),
    Column::fill("EMAIL", 3, 20).drops(3),
    Column::content("LEVEL"),
    Column::fill("ROLES", 3, 12),
    Column::content("LAST LOGIN").drops(2),
    Column::content("JOINED").drops(1),
];

const SORTS: [Sort; 2] = [
    Sort {
        label: "joined, newest first",
        column: None,
        descending: true,
        ordering: Some("-joined_at"),
    },
    Sort {
        label: "joined, oldest first",
        column: Some("JOINED"),
        descending: false,
        ordering: Some("joined_at"),
    },
];

impl People {
    pub fn oldest_first(&self) -> bool {
        self.oldest_first
    }

    /// The role a `:has-role` names, once the index is in.
    pub fn narrowed_role(&self) -> Option<&RoleRef> {
        match (&self.narrowing, &self.index) {
            (Some(Narrowing::Role(name)), Some(index)) => index.role(name),
            _ => None,
        }
    }

    /// Whether a narrowing's look is under way.
    pub fn is_scanning(&self) -> bool {
        self.scan.is_some_and(|scan| scan.running)
    }

    /// The names of a person's roles, "none", or "…" while they are read.
    fn roles_cell(&self, member: &OrganizationMember, theme: &Theme) -> Span<'static> {
        let Some(index) = &self.index else {
            return styled("…", theme.dim);
        };
        let held = index.of(&member.user.uuid);
        if held.is_empty() {
            return styled("none", theme.warning);
        }
        text(
            held.iter()
                .map(|role| role.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        )
    }
}

impl Listing for People {
    type Row = OrganizationMember;
    const NOUN: &'static str = "person";

    fn columns(&self) -> &'static [Column] {
        &COLUMNS
    }

    fn cells(&self, member: &OrganizationMember, view: &ViewCx) -> Vec<Span<'static>> {
        let theme = view.theme;
        vec![
            text(member.user.display_name()),
            text(member.user.email.clone()),
            text(level::name(member.level)),
            self.roles_cell(member, theme),
            text(view.day(member.last_login)),
            text(view.day(member.joined_at)),
        ]
    }

    fn detail(&self, member: &OrganizationMember, view: &ViewCx) -> (String, Vec<Line<'static>>) {
        let theme = view.theme;
        let mut lines = vec![
            field("email", member.user.email.clone(), theme),
            field("level", level::name(member.level), theme),
            field("joined", view.when(member.joined_at), theme),
            field("last login", view.when(member.last_login), theme),
            field("user id", member.user.uuid.clone(), theme),
            heading("roles", theme),
        ];
        match &self.index {
            None => lines.push(Line::styled("  being read…", theme.dim)),
            Some(index) if index.of(&member.user.uuid).is_empty() => {
                lines.push(Line::styled("  none", theme.warning))
            }
            Some(index) => lines.extend(index.of(&member.user.uuid).iter().map(|role| {
                field(
                    &format!("  {}", role.name),
                    format!("since {}", view.day(role.joined_at)),
                    theme,
                )
            })),
        }
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            " Enter: their page · a: add to roles · L: level · O: offboard",
            theme.dim,
        ));
        (member.user.display_name(), lines)
    }

    fn id(member: &OrganizationMember) -> String {
        member.user.uuid.clone()
    }

    fn matches(member: &OrganizationMember, needle: &str) -> bool {
        contains(&member.user.display_name(), needle)
            || contains(&member.user.email, needle)
            || id_starts(&member.user.uuid, needle)
    }

    fn sorts(&self) -> &'static [Sort] {
        &SORTS
    }

    fn compare(_a: &OrganizationMember, _b: &OrganizationMember, _sort: &Sort) -> Ordering {
        Ordering::Equal // every order is the server's
    }
}

impl Screen for People {
    const ID: ScreenId = ScreenId::People;
    const TITLE: &'static str = "People";
    const TAB: ScreenId = ScreenId::People;
    const WRITE_SCOPE: &'static str = "organization:write";
    // Opened from another screen, or shown by a command of its own.
    const COMMANDS: &'static [(&'static str, &'static str)] = &[];
}

impl Hooks for People {
    type Pager = crate::console::table::pager::ByOffset;
    /// Marked people are added to roles together (`a`); People has no
    /// `d`, `p` or `t` to act on them.
    const MARKS: bool = true;

    /// A narrowed list is filtered among the people it holds. A user's
    /// UUID, which the server's search (names, e-mail) never finds, is
    /// looked for among everyone's rows.
    fn search_on_server(&mut self, text: &str) -> bool {
        let text = match text.trim() {
            uuid if uuid::Uuid::parse_str(uuid).is_ok() => "",
            text => text,
        };
        if self.narrowing.is_some() || self.search == text {
            return false;
        }
        self.search = text.to_string();
        true
    }

    fn order_on_server(&mut self, sort: &Sort) -> bool {
        self.oldest_first = sort.ordering == Some("joined_at");
        true
    }

    fn searched(&self) -> Option<&str> {
        self.narrowing.is_none().then_some(self.search.as_str())
    }
}

impl Resource for People {
    type Request = screens::people::Request;

    fn heading(&self) -> String {
        match &self.narrowing {
            None => Self::TITLE.into(),
            Some(Narrowing::NoRole) => format!("{} · in no role", Self::TITLE),
            Some(Narrowing::Role(name)) => {
                let name = self
                    .narrowed_role()
                    .map_or(name.as_str(), |role| role.name.as_str());
                format!("{} · in role {name}", Self::TITLE)
            }
        }
    }

    fn query(&self, scope: Scope) -> Option<screens::people::Request> {
        if self.narrowing.is_some() {
            return None; // the narrowing's rows are held, not paged
        }
        Some(screens::people::Request {
            organization: scope.organization.to_string(),
            search: (!self.search.is_empty()).then(|| self.search.clone()),
            order: if self.oldest_first {
                "joined_at"
            } else {
                "-joined_at"
            },
        })
    }

    fn empty(&self) -> &'static str {
        match (&self.narrowing, self.scan) {
            (Some(_), Some(scan)) if scan.running => "looking…",
            (Some(_), _) if self.scan_error.is_some() => "the narrowing failed: :people shows everyone",
            (Some(_), None) => "reading who holds which role…",
            (Some(Narrowing::NoRole), _) => "everyone holds a role: :people shows everyone",
            (Some(Narrowing::Role(_)), _) => "nobody holds this role: :people shows everyone",
            (None, _) => "nobody is a member of this organization",
        }
    }

    fn status(&self, view: &ViewCx) -> Option<Line<'static>> {
        let theme = view.theme;
        let mut parts: Vec<Span<'static>> = Vec::new();
        if let Some((done, total)) = self.reading {
            parts.push(Span::styled(format!(" roles {done}/{total} "), theme.accent));
        } else if let Some(error) = &self.index_error {
            parts.push(styled(
                format!(" roles could not be read: {error} · r tries again "),
                theme.error,
            ));
        }
        if let Some(scan) = self
            .scan
            .filter(|scan| self.narrowing == Some(Narrowing::NoRole) || scan.running)
        {
            let total = scan
                .total
                .map(crate::text::thousands)
                .unwrap_or_else(|| "?".into());
            let done = crate::text::thousands(scan.done);
            let text = match (scan.running, scan.stopped) {
                (true, _) => format!(" looked through {done} of {total} · Esc stops "),
                (false, true) => format!(" stopped after {done} of {total}: :no-role looks again "),
                (false, false) => format!(" looked through all {total} "),
            };
            parts.push(Span::styled(text, theme.dim));
        }
        if let Some(error) = &self.scan_error {
            parts.push(styled(format!(" {error} "), theme.error));
        }
        (!parts.is_empty()).then(|| Line::from(parts))
    }
}

impl Table<People> {
    /// The name of every role, once the index is in (loaded or not on
    /// Roles), for completion.
    pub fn role_names(&self) -> impl Iterator<Item = String> + '_ {
        self.resource
            .index
            .iter()
            .flat_map(|index| index.roles.iter().map(|role| role.name.clone()))
    }

    /// The row of a person, by user UUID, if loaded.
    pub fn position_of(&self, uuid: &str) -> Option<u64> {
        self.rows
            .list
            .position(|member| member.user.uuid.eq_ignore_ascii_case(uuid))
    }

    /// The people a narrowing found so far, and more of them.
    pub fn take(&mut self, more: Vec<OrganizationMember>, height: u64) {
        let mut rows = self.rows.list.take_all();
        rows.extend(more);
        self.rows.list.hold_all(rows);
        self.apply_view(height);
    }
}
