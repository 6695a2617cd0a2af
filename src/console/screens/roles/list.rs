//! The organization's roles: a short list, filtered and sorted in the
//! console; Enter opens a role's members. Its form (name, and the access
//! level where the server keeps one), and what a write's answer does to the
//! rows.
//!
//! Today's PostHog has no access level on roles and says which role is the
//! organization's default; older servers have an access level and no
//! default. The console never asks which it talks to: the roles it has
//! loaded say (posthog.md, "How orgdeck uses this page").

use std::cmp::Ordering;

use ratatui::text::{Line, Span};

use crate::api::models::access_level;
use crate::api::{ListOrText, Role, RoleInput, RoleMembership};
use crate::console::kit::cell::{contains, id_starts, text};
use crate::console::kit::column::{Column, Sort};
use crate::console::kit::detail::{field, heading, user_lines};
use crate::console::kit::scope::Scope;
use crate::console::kit::view::ViewCx;
use crate::console::screens;
use crate::console::screens::Change;
use crate::console::screens::list::Resource;
use crate::console::screens::roles::Write as RoleWrite;
use crate::console::screens::roles::writes::members;
use crate::console::screens::write::{FormPurpose, Opens, Write};
use crate::console::screens::{Screen, ScreenId};
use crate::console::table::Table;
use crate::console::table::hooks::Hooks;
use crate::console::table::listing::Listing;
use crate::console::table::rows::Rows;
use crate::console::widgets::form::{Field, Form, checks};

#[derive(Debug, Default)]
pub struct Roles {
    /// Whether the roles loaded have access levels (an older server):
    /// then they are shown, sorted by and edited.
    pub access_levels: bool,
}

/// Today's roles: whether each is the default, no access level. Narrow
/// tables keep the name and the members.
const COLUMNS: [Column; 5] = [
    Column::fill("NAME", 3, 12),
    Column::content("DEFAULT").drops(3),
    Column::content("MEMBERS"),
    Column::fill("CREATED BY", 2, 12).drops(2),
    Column::content("CREATED").drops(1),
];

/// An older server's roles, with their access level.
const COLUMNS_WITH_ACCESS: [Column; 5] = [
    Column::fill("NAME", 3, 12),
    Column::content("ACCESS"),
    Column::content("MEMBERS").drops(1),
    Column::fill("CREATED BY", 2, 12).drops(3),
    Column::content("CREATED").drops(2),
];

const CREATED: Sort = Sort {
    label: "created",
    column: None,
    descending: false,
    ordering: None,
};

const SORTS: [Sort; 3] = [
    CREATED,
    Sort::local("name", "NAME", false),
    Sort::local("members", "MEMBERS", true),
];

const SORTS_WITH_ACCESS: [Sort; 4] = [
    CREATED,
    Sort::local("name", "NAME", false),
    Sort::local("access", "ACCESS", false),
    Sort::local("members", "MEMBERS", true),
];

const ACCESS_LEVELS: [(&str, &str); 2] = [("21", "view only"), ("37", "can always edit")];

impl Listing for Roles {
    type Row = Role;
    const NOUN: &'static str = "role";

    fn columns(&self) -> &'static [Column] {
        if self.access_levels {
            &COLUMNS_WITH_ACCESS
        } else {
            &COLUMNS
        }
    }

    fn cells(&self, role: &Role, view: &ViewCx) -> Vec<Span<'static>> {
        let members = role
            .members
            .as_ref()
            .and_then(|m| m.len())
            .map(|n| n.to_string())
            .unwrap_or_else(|| "-".into());
        let second = if self.access_levels {
            role.feature_flags_access_level
                .map(access_level::name)
                .unwrap_or("-")
        } else if role.is_default == Some(true) {
            "default"
        } else {
            ""
        };
        vec![
            text(role.name.clone()),
            text(second),
            text(members),
            text(
                role.created_by
                    .as_ref()
                    .map(|user| user.display_name())
                    .unwrap_or_default(),
            ),
            text(view.when(role.created_at)),
        ]
    }

    fn detail(&self, role: &Role, view: &ViewCx) -> (String, Vec<Line<'static>>) {
        let theme = view.theme;
        let mut lines = vec![
            field("id", role.id.clone(), theme),
            field("name", role.name.clone(), theme),
        ];
        if let Some(level) = role.feature_flags_access_level {
            lines.push(field(
                "access level",
                format!("{} ({level})", access_level::name(level)),
                theme,
            ));
        }
        if let Some(is_default) = role.is_default {
            let shown = if is_default {
                "yes: new members get it"
            } else {
                "no"
            };
            lines.push(field("default", shown, theme));
        }
        lines.push(field("created at", view.when(role.created_at), theme));
        if let Some(user) = &role.created_by {
            lines.push(heading("created by", theme));
            lines.extend(user_lines(user, theme));
        }
        match &role.members {
            Some(ListOrText::List(members)) => {
                lines.push(heading(&format!("members ({})", members.len()), theme));
                for membership in members {
                    let user = membership.user.clone().unwrap_or_default();
                    lines.push(Line::raw(
                        crate::text::printable(&format!("   {} <{}>", user.display_name(), user.email))
                            .into_owned(),
                    ));
                }
            }
            Some(ListOrText::Text(text)) => lines.push(field("members", text.clone(), theme)),
            _ => {}
        }
        if let Some(ListOrText::List(flags)) = &role.associated_flags {
            let keys: Vec<&str> = flags.iter().map(|flag| flag.key.as_str()).collect();
            let shown = if keys.is_empty() {
                "-".into()
            } else {
                keys.join(", ")
            };
            lines.push(field("feature flags", shown, theme));
        }
        (role.name.clone(), lines)
    }

    fn id(role: &Role) -> String {
        role.id.clone()
    }

    fn matches(role: &Role, needle: &str) -> bool {
        contains(&role.name, needle)
            || id_starts(&role.id, needle)
            || role
                .created_by
                .as_ref()
                .is_some_and(|user| contains(&user.display_name(), needle))
    }

    fn sorts(&self) -> &'static [Sort] {
        if self.access_levels {
            &SORTS_WITH_ACCESS
        } else {
            &SORTS
        }
    }

    fn compare(a: &Role, b: &Role, sort: &Sort) -> Ordering {
        match sort.label {
            "name" => a.name.to_lowercase().cmp(&b.name.to_lowercase()),
            "access" => a.feature_flags_access_level.cmp(&b.feature_flags_access_level),
            "members" => members(b).cmp(&members(a)),
            _ => a.created_at.cmp(&b.created_at),
        }
    }
}

impl Screen for Roles {
    const ID: ScreenId = ScreenId::Roles;
    const TITLE: &'static str = "Roles";
    const TAB: ScreenId = ScreenId::Roles;
    const WRITE_SCOPE: &'static str = "organization:write";
    const COMMANDS: &'static [(&'static str, &'static str)] = &[("roles", "show the roles")];
}

impl Hooks for Roles {
    type Pager = crate::console::table::pager::ByOffset;
    const MARKS: bool = true;

    fn loaded(&mut self, rows: &Rows<Role>) {
        self.access_levels = rows
            .list
            .loaded()
            .any(|(_, role)| role.feature_flags_access_level.is_some());
    }
}

impl Resource for Roles {
    type Request = screens::roles::Request;

    fn query(&self, scope: Scope) -> Option<screens::roles::Request> {
        Some(screens::roles::Request {
            organization: scope.organization.to_string(),
        })
    }

    fn empty(&self) -> &'static str {
        "no roles yet: n creates one"
    }
}

/// The access level's field, where the server keeps one.
fn access_field(level: i64) -> Field {
    Field::select(
        "feature_flags_access_level",
        "Feature flags",
        &ACCESS_LEVELS,
        &level.to_string(),
    )
}

/// `n`: the form for a new role; the access level only where the server's
/// roles have one.
pub fn new_form(access_levels: bool) -> (Form, FormPurpose) {
    let mut fields = vec![Field::text("name", "Name", "", Some(checks::role_name))];
    if access_levels {
        fields.push(access_field(access_level::DEFAULT));
    }
    (Form::new("New role", fields), FormPurpose::NewRole)
}

/// `e`: the form for a role; the access level only where it has one.
pub fn edit_form(role: &Role) -> (Form, FormPurpose) {
    let mut fields = vec![Field::text("name", "Name", &role.name, Some(checks::role_name))];
    if let Some(level) = role.feature_flags_access_level {
        fields.push(access_field(level));
    }
    let form = Form::new(format!("Edit role {}", role.name), fields);
    (form, FormPurpose::EditRole { id: role.id.clone() })
}

/// The write a submitted role form asks for; `None` when an edit changed
/// nothing. Only what changed is sent.
pub fn submitted(form: &Form, purpose: &FormPurpose, organization: &str) -> Option<Write> {
    let name = form.value("name").trim().to_string();
    let level = form.value("feature_flags_access_level").parse().ok();
    let organization = organization.to_string();
    match purpose {
        FormPurpose::EditRole { id } => {
            let input = RoleInput {
                name: form.field_changed("name").then_some(name),
                feature_flags_access_level: level
                    .filter(|_| form.field_changed("feature_flags_access_level")),
            };
            (input != RoleInput::default()).then(|| {
                Write::Role(RoleWrite::Update {
                    organization,
                    id: id.clone(),
                    input,
                })
            })
        }
        _ => Some(Write::Role(RoleWrite::Create {
            organization,
            input: RoleInput {
                name: Some(name),
                feature_flags_access_level: level,
            },
        })),
    }
}

/// A role was created: at the end of the list, selected.
/// The news Roles hears: a role made, saved or deleted changes its rows;
/// a membership made or deleted anywhere changes the role's row (its
/// member count, the names in its detail).
pub fn on_change(table: &mut Table<Roles>, change: &Change, height: u64) {
    match change {
        Change::RoleMade(role) => {
            table.resource.access_levels |= role.feature_flags_access_level.is_some();
            table.rows.list.push_row((**role).clone());
            let last = table.rows.len() as i64 - 1;
            table.rows.move_to(last, height);
        }
        Change::RoleSaved(role) => {
            if let Some(index) = table.rows.list.position(|row| row.id == role.id) {
                table.rows.list.replace_row(index, (**role).clone());
            }
        }
        Change::RoleDeleted { role } => {
            if let Some(index) = table.rows.list.position(|row| row.id == *role) {
                table.rows.list.remove_row(index);
            }
            let cursor = table.rows.cursor as i64;
            table.rows.move_to(cursor, height);
        }
        Change::Joined(membership) => {
            members_changed(table, &membership.role_id, Some((**membership).clone()), None)
        }
        Change::Left { role, membership } => members_changed(table, role, None, Some(membership)),
        Change::MemberChanged(_)
        | Change::SubscriptionChanged(_)
        | Change::SubscriptionMade(_)
        | Change::StatesKnown(_)
        | Change::Offboarded { .. }
        | Change::AccessChanged { .. } => {}
    }
}

/// Keeps a role's row (its member count, the names in its detail) in step
/// with memberships added or removed.
fn members_changed(
    table: &mut Table<Roles>,
    role_id: &str,
    added: Option<RoleMembership>,
    removed: Option<&str>,
) {
    let Some(index) = table.rows.list.position(|role| role.id == role_id) else {
        return;
    };
    let Some(mut role) = table.rows.list.get(index).cloned() else {
        return;
    };
    if let Some(ListOrText::List(members)) = &mut role.members {
        // Heard twice (a bulk run and its write), a membership is kept once.
        members.extend(added.filter(|added| !members.iter().any(|held| held.id == added.id)));
        if let Some(id) = removed {
            members.retain(|membership| membership.id != id);
        }
    }
    table.rows.list.replace_row(index, role);
}

impl crate::console::table::Table<Roles> {
    /// The cursor goes to role `id` once its row is loaded (`:role NAME`).
    pub fn find_again(&mut self, id: &str) {
        self.refocus = Some(id.to_string());
    }
}

impl crate::console::table::Table<Roles> {
    /// `n`: the form for a new role (with its access level where the
    /// server has them).
    pub fn opens_new(&self) -> Opens {
        let (form, purpose) = new_form(self.resource.access_levels);
        Opens::Form(Box::new(form), purpose)
    }

    /// `e`: the form for the role under the cursor, if any.
    pub fn opens_edit(&self) -> Opens {
        match self.selected().map(edit_form) {
            Some((form, purpose)) => Opens::Form(Box::new(form), purpose),
            None => Opens::Nothing,
        }
    }
}
