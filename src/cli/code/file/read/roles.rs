//! The roles of the file checked: each `[[roles]]` table as it is read
//! ([`Checked::check_role`]), its members' addresses (those of a list in
//! the text as the table is checked, those the scanner set aside when
//! the file is read, each problem after its role's others, in the
//! file's order), and the roles together (a name or id twice).

use super::super::members::{Named, RoleMembers};
use super::super::node::Node;
use super::super::{Pos, Problem, ROLE_KEYS, RoleEntry, is_email};
use super::{Check, Checked};
use crate::api::models::access_level;

/// The problem of members that could not be set aside (the temporary
/// file failed under the command).
pub(in crate::cli::code::file) fn cannot_set_aside(error: &std::io::Error) -> Problem {
    Problem {
        at: None,
        message: format!("cannot set aside the members of the file's roles: {error}"),
    }
}

/// The problems of the members of the role at `place` set aside by the
/// scanner, as [`Check::role`] finds them in a list in the text: an
/// address that is not one, and one listed again (in any case), each at
/// its place, in the file's order.
fn set_aside_problems(members: &RoleMembers, place: usize, name: &str) -> std::io::Result<Vec<Problem>> {
    let mut found: Vec<(usize, Problem)> = Vec::new();
    // The last address (lower case) seen valid: members come by address.
    let mut last: Option<String> = None;
    for named in members.of(place)? {
        let named = named?;
        if !is_email(&named.written) {
            found.push((
                named.place,
                Problem {
                    at: named.at(),
                    message: format!("\"{}\" is not an e-mail address", named.written),
                },
            ));
        } else if last.as_deref() == Some(named.lower.as_str()) {
            found.push((
                named.place,
                Problem {
                    at: named.at(),
                    message: format!("{} is listed twice in the role \"{name}\"", named.written),
                },
            ));
        } else {
            last = Some(named.lower);
        }
    }
    found.sort_by_key(|(place, _)| *place);
    Ok(found.into_iter().map(|(_, problem)| problem).collect())
}

impl Checked {
    /// Checks one `[[roles]]` table, and gives what stands for it in the
    /// tree.
    pub(in crate::cli::code::file) fn check_role(&mut self, node: &Node, at: Option<Pos>) -> Node {
        let mut check = Check::default();
        let entry = check.role(node, at, self.roles.len());
        self.roles.push(entry);
        self.role_problems.extend(check.problems);
        self.role_ends.push(self.role_problems.len());
        for named in check.named {
            if let Err(error) = self.members.push(named) {
                self.role_problems.push(cannot_set_aside(&error));
            }
        }
        Node::Checked
    }

    /// Every role checked, their members and their problems, in the
    /// order read: the problems of the members set aside after those of
    /// their role.
    pub(super) fn take_roles(&mut self) -> (Vec<RoleEntry>, RoleMembers, Vec<Problem>) {
        let (members, mut problems) = match std::mem::take(&mut self.members).finish() {
            Ok(members) => (members, Vec::new()),
            Err(error) => (RoleMembers::default(), vec![cannot_set_aside(&error)]),
        };
        let roles = std::mem::take(&mut self.roles);
        // The scanner and the reader count the same roles, or the members
        // set aside cannot be told apart (never seen: a refusal, not a guess).
        if !self.diverted.is_empty() && roles.len() != self.headers {
            problems.push(Problem {
                at: None,
                message: format!(
                    "orgdeck read {} [[roles]] headers and {} roles: the members cannot be matched to their roles; write each role as a [[roles]] table",
                    self.headers,
                    roles.len()
                ),
            });
        }
        let mut told = std::mem::take(&mut self.role_problems).into_iter();
        let mut from = 0;
        for (place, role) in roles.iter().enumerate() {
            let end = self.role_ends.get(place).copied().unwrap_or(from);
            problems.extend(told.by_ref().take(end - from));
            from = end;
            if let Some(role) = role.as_ref().filter(|_| self.diverted.contains(&place)) {
                match set_aside_problems(&members, place, &role.name) {
                    Ok(found) => problems.extend(found),
                    Err(error) => problems.push(cannot_set_aside(&error)),
                }
            }
        }
        problems.extend(told);
        (roles.into_iter().flatten().collect(), members, problems)
    }
}

impl Check {
    pub(super) fn unique_roles(&mut self, roles: &[RoleEntry]) {
        let mut names = std::collections::HashSet::new();
        let mut ids = std::collections::HashSet::new();
        for role in roles {
            if !names.insert(role.name.to_lowercase()) {
                self.problem(
                    role.at,
                    format!("the role \"{}\" is in the file twice", role.name),
                );
            }
            if let Some(id) = &role.id
                && !ids.insert(id.clone())
            {
                self.problem(role.at, format!("the role id {id} is in the file twice"));
            }
        }
    }

    /// A role's entry (at `place` among the file's roles), its members in
    /// [`Check::named`].
    pub(super) fn role(&mut self, node: &Node, at: Option<Pos>, place: usize) -> Option<RoleEntry> {
        let fields = self.table(node, at, "a role", ROLE_KEYS)?;
        let id = self.text(&fields, "id", "role");
        let name = self.text(&fields, "name", "role");
        let name = self.required(name, &fields, "name", at, "a role")?;
        if name.trim().is_empty() {
            self.problem(
                fields.get("name").and_then(|(_, at)| at),
                "a role's name cannot be empty",
            );
        }
        let default = self.boolean(&fields, "default", "role").unwrap_or(false);
        let level = self.integer(&fields, "feature_flags_access_level", "role");
        if let Some(level) = level
            && ![access_level::VIEW, access_level::EDIT].contains(&level)
        {
            self.problem(
                fields.get("feature_flags_access_level").and_then(|(_, at)| at),
                format!(
                    "feature_flags_access_level {level} is not {} (view only) or {} (can edit)",
                    access_level::VIEW,
                    access_level::EDIT
                ),
            );
        }
        let mut seen = std::collections::HashSet::new();
        for (member, (email, email_at)) in self.texts(&fields, "members", "role").into_iter().enumerate() {
            if !is_email(&email) {
                self.problem(email_at, format!("\"{email}\" is not an e-mail address"));
            } else if !seen.insert(email.to_lowercase()) {
                self.problem(
                    email_at,
                    format!("{email} is listed twice in the role \"{name}\""),
                );
            }
            self.named.push(Named::new(place, member, email, email_at));
        }
        Some(RoleEntry {
            id,
            name,
            default,
            feature_flags_access_level: level,
            at,
        })
    }
}

#[cfg(test)]
mod tests {
    /// The members' problems, set aside or in the text, each after its
    /// role's others, as when the file was held whole (what the release
    /// before set aside printed for this file, word for word).
    #[test]
    fn members_problems_come_in_the_files_order() {
        let file = "[orgdeck]\nhost = \"http://127.0.0.1:9\"\norganization = \"o\"\nproject = 1\n\n[[roles]]\nname = \"A\"\nmembers = [\n  \"bad one\",\n  \"x@y.io\", # fine\n  \"X@Y.io\",\n]\nfoo = 1\n\n[[roles]]\nmembers = [\"nobody\"]\n\n[[roles]]\nname = \"A\"\ndefault = \"no\"\nmembers = [\n  'z@y.io', \"z@y.io\", \"\"\"multi\nline\"\"\",\n]\nmembers2 = 3\n\n[[roles]]\nname = \"C\"\nmembers = [\"ok@y.io\", 5]\n\n[[subscriptions]]\ntitle = 3\n";
        let problems = super::super::parse(file).unwrap_err();
        let shown: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "line 13, column 1: unknown key `foo` in a role (known: id, name, default, feature_flags_access_level, members)",
                "line 9, column 3: \"bad one\" is not an e-mail address",
                "line 11, column 3: X@Y.io is listed twice in the role \"A\"",
                "line 15, column 1: a role needs `name`",
                "line 25, column 1: unknown key `members2` in a role (known: id, name, default, feature_flags_access_level, members)",
                "line 20, column 11: role.default must be true or false, not a string",
                "line 22, column 13: z@y.io is listed twice in the role \"A\"",
                "line 22, column 23: \"multi\nline\" is not an e-mail address",
                "line 29, column 23: role.members holds strings, not an integer",
                "line 18, column 1: the role \"A\" is in the file twice",
                "line 32, column 9: subscription.title must be a string, not an integer",
                "line 31, column 1: a subscription delivers one thing: give exactly one of insight, dashboard or prompt",
                "line 31, column 1: a subscription needs `target_type`",
                "line 31, column 1: a subscription needs `target_value`",
                "line 31, column 1: a subscription needs `frequency`",
                "line 31, column 1: a subscription needs `start_date`",
            ]
        );
    }
}
