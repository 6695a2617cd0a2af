//! The members of one role, opened from Roles (Enter, or `a` to assign):
//! filtered and sorted in the console; `d` removes one, `a` assigns people.

use std::cmp::Ordering;

use ratatui::text::{Line, Span};

use crate::api::models::level;
use crate::api::{OrganizationMember, RoleMembership};
use crate::console::kit::cell::{contains, id_starts, text};
use crate::console::kit::column::{Column, Sort};
use crate::console::kit::detail::{field, heading, optional, user_lines};
use crate::console::kit::scope::Scope;
use crate::console::kit::view::ViewCx;
use crate::console::screens;
use crate::console::screens::Change;
use crate::console::screens::Screen;
use crate::console::screens::ScreenId;
use crate::console::screens::list::{List, Resource};
use crate::console::screens::members::writes::OfRole;
use crate::console::table::Table;
use crate::console::table::hooks::Hooks;
use crate::console::table::listing::Listing;

/// The role whose members are shown.
#[derive(Debug, Clone, PartialEq)]
pub struct ChosenRole {
    pub id: String,
    pub name: String,
}

#[derive(Debug, Default)]
pub struct Members {
    /// `None` until a role is opened: the tab then offers the roles.
    pub role: Option<ChosenRole>,
    /// The organization's members the picker asked for last (as it opened,
    /// or a search typed in it): only that answer is taken, not one for a
    /// picker closed or a search typed on since.
    pub people_asked: crate::console::kit::latest::Latest,
}

/// Narrow tables keep the name and the level; then the e-mail, when they
/// joined and when they changed.
const COLUMNS: [Column; 5] = [
    Column::fill("NAME", 2, 16),
    Column::fill("EMAIL", 3, 24).drops(1),
    Column::content("LEVEL"),
    Column::content("JOINED").drops(2),
    Column::content("UPDATED").drops(3),
];

const SORTS: [Sort; 4] = [
    Sort {
        label: "joined",
        column: None,
        descending: false,
        ordering: None,
    },
    Sort::local("name", "NAME", false),
    Sort::local("email", "EMAIL", false),
    Sort::local("level", "LEVEL", true),
];

fn name(membership: &RoleMembership) -> String {
    membership
        .user
        .as_ref()
        .map(|user| user.display_name().to_lowercase())
        .unwrap_or_default()
}

fn email(membership: &RoleMembership) -> String {
    membership
        .user
        .as_ref()
        .map(|user| user.email.to_lowercase())
        .unwrap_or_default()
}

fn member_level(membership: &RoleMembership) -> i64 {
    membership
        .organization_member
        .as_ref()
        .map(|member| member.level)
        .unwrap_or(0)
}

impl Listing for Members {
    type Row = RoleMembership;
    const NOUN: &'static str = "member";

    fn columns(&self) -> &'static [Column] {
        &COLUMNS
    }

    fn cells(&self, membership: &RoleMembership, view: &ViewCx) -> Vec<Span<'static>> {
        let user = membership.user.clone().unwrap_or_default();
        let member_level = membership.organization_member.as_ref().map(|member| member.level);
        vec![
            text(user.display_name()),
            text(user.email),
            text(member_level.map(level::name).unwrap_or("-")),
            text(view.when(membership.joined_at)),
            text(view.when(membership.updated_at)),
        ]
    }

    fn detail(&self, membership: &RoleMembership, view: &ViewCx) -> (String, Vec<Line<'static>>) {
        let theme = view.theme;
        let mut lines = vec![
            field("membership", membership.id.clone(), theme),
            field("role", membership.role_id.clone(), theme),
            field("joined role", view.when(membership.joined_at), theme),
            field("updated", view.when(membership.updated_at), theme),
        ];
        let name = membership
            .user
            .as_ref()
            .map(|user| user.display_name())
            .unwrap_or_default();
        if let Some(user) = &membership.user {
            lines.push(heading("user", theme));
            lines.extend(user_lines(user, theme));
        }
        if let Some(member) = &membership.organization_member {
            lines.push(heading("organization member", theme));
            lines.extend(member_lines(member, view));
        }
        (name, lines)
    }

    fn id(membership: &RoleMembership) -> String {
        membership.id.clone()
    }

    fn matches(membership: &RoleMembership, needle: &str) -> bool {
        membership.user.as_ref().is_some_and(|user| {
            contains(&user.display_name(), needle)
                || contains(&user.email, needle)
                || id_starts(&user.uuid, needle)
        }) || id_starts(&membership.id, needle)
    }

    fn sorts(&self) -> &'static [Sort] {
        &SORTS
    }

    fn compare(a: &RoleMembership, b: &RoleMembership, sort: &Sort) -> Ordering {
        match sort.label {
            "name" => name(a).cmp(&name(b)),
            "email" => email(a).cmp(&email(b)),
            "level" => member_level(b).cmp(&member_level(a)),
            _ => a.joined_at.cmp(&b.joined_at),
        }
    }
}

impl Screen for Members {
    const ID: ScreenId = ScreenId::Members;
    const TITLE: &'static str = "Members";
    const TAB: ScreenId = ScreenId::Members;
    const PARENT: Option<ScreenId> = Some(ScreenId::Roles);
    const WRITE_SCOPE: &'static str = "organization:write";
    const COMMANDS: &'static [(&'static str, &'static str)] = &[("members", "show the members of a role")];
}

impl Hooks for Members {
    type Pager = crate::console::table::pager::ByOffset;
    const MARKS: bool = true;
}

impl Resource for Members {
    type Request = screens::members::Request;

    fn heading(&self) -> String {
        self.role
            .as_ref()
            .map(|role| role.name.clone())
            .unwrap_or_else(|| Self::TITLE.into())
    }

    fn is_open(&self) -> bool {
        self.role.is_some()
    }

    fn close(&mut self) {
        self.role = None;
    }

    fn query(&self, scope: Scope) -> Option<screens::members::Request> {
        let role = self.role.as_ref()?;
        Some(screens::members::Request {
            organization: scope.organization.to_string(),
            role: role.id.clone(),
        })
    }

    fn empty(&self) -> &'static str {
        "nobody holds this role yet: a assigns people"
    }
}

fn member_lines(member: &OrganizationMember, view: &ViewCx) -> Vec<Line<'static>> {
    let theme = view.theme;
    let yes_no = |value: Option<bool>, yes: &'static str, no: &'static str| {
        optional(value.map(|value| if value { yes } else { no }))
    };
    vec![
        field("  member id", member.id.clone(), theme),
        field(
            "  level",
            format!("{} ({})", level::name(member.level), member.level),
            theme,
        ),
        field("  joined org", view.when(member.joined_at), theme),
        field("  2FA", yes_no(member.is_2fa_enabled, "on", "off"), theme),
        field(
            "  social login",
            yes_no(member.has_social_auth, "yes", "no"),
            theme,
        ),
    ]
}

impl Table<Members> {
    /// Opens another role's members (the same role keeps its rows).
    pub fn open(&mut self, role: ChosenRole) {
        if self.resource.role.as_ref() == Some(&role) {
            return;
        }
        self.resource.role = Some(role);
        self.filter.clear();
        self.sort = 0;
        self.rows.clear();
        self.marks.clear();
    }

    /// The role this list is of, as its writes name it (the shell's `d`
    /// and bulk keys ask); `None` before a role is opened.
    pub fn of_role(&self) -> Option<OfRole<'_>> {
        self.resource.role.as_ref().map(|role| OfRole {
            id: &role.id,
            name: &role.name,
        })
    }

    /// "Latest wins" for Members' messages (the shell asks before one
    /// lands): the picker's people only while they answer its latest ask
    /// (not a picker closed or a search typed on since); a role looked
    /// for always.
    pub fn wants(&self, msg: &super::Msg) -> bool {
        match msg {
            super::Msg::People { ticket, .. } => self.resource.people_asked.is_current(*ticket),
            super::Msg::RoleFound { .. } => true,
        }
    }

    /// The user UUIDs of the members loaded, for the picker to mark.
    pub fn loaded_users(&self) -> std::collections::HashSet<String> {
        self.rows
            .list
            .loaded()
            .filter_map(|(_, membership)| membership.user.as_ref().map(|user| user.uuid.clone()))
            .collect()
    }

    /// The news Members hears: its role deleted closes it (`true`: the
    /// shell then shows what is still open); a membership of its role made
    /// or deleted anywhere adds or takes away the row.
    pub fn on_change(&mut self, change: &Change, height: u64) -> bool {
        let open = |role: &str| self.resource.role.as_ref().is_some_and(|open| open.id == role);
        match change {
            Change::RoleDeleted { role } if open(role) => {
                self.close();
                self.clear();
                return true;
            }
            Change::Joined(membership)
                if open(&membership.role_id)
                    && self.rows.list.position(|row| row.id == membership.id).is_none() =>
            {
                self.rows.list.push_row((**membership).clone());
            }
            Change::Left { membership, .. } => self.removed(membership, height),
            _ => {}
        }
        false
    }

    /// A member was removed: their row goes.
    fn removed(&mut self, id: &str, height: u64) {
        if let Some(index) = self.rows.list.position(|row| row.id == id) {
            self.rows.list.remove_row(index);
        }
        let cursor = self.rows.cursor as i64;
        self.rows.move_to(cursor, height);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn membership(id: &str, role: &str) -> Box<RoleMembership> {
        Box::new(RoleMembership {
            id: id.into(),
            role_id: role.into(),
            ..RoleMembership::default()
        })
    }

    #[test]
    fn members_hear_their_roles_news_once_and_no_other_roles() {
        let mut table = Table::<Members>::default();
        table.open(ChosenRole {
            id: "r1".into(),
            name: "Data".into(),
        });
        let joined = Change::Joined(membership("m1", "r1"));
        assert!(!table.on_change(&joined, 20));
        assert!(!table.on_change(&joined, 20), "heard twice");
        assert!(!table.on_change(&Change::Joined(membership("m2", "r2")), 20));
        assert_eq!(table.loaded_ids(), ["m1"]);
        let left = Change::Left {
            role: "r1".into(),
            membership: "m1".into(),
        };
        assert!(!table.on_change(&left, 20));
        assert!(table.loaded_ids().is_empty());
        assert!(!table.on_change(&Change::RoleDeleted { role: "r2".into() }, 20));
        assert!(table.resource.role.is_some());
        assert!(table.on_change(&Change::RoleDeleted { role: "r1".into() }, 20));
        assert!(table.resource.role.is_none());
    }

    impl Table<Members> {
        fn loaded_ids(&self) -> Vec<String> {
            self.rows.list.loaded().map(|(_, row)| row.id.clone()).collect()
        }
    }
}
