//! Reading the file back, TOML or JSON, into the model, with every
//! problem found offline at its line and column; the roles' members are
//! set aside, not held ([`super::members`], checked in `roles`).

mod roles;

pub(super) use roles::cannot_set_aside;

use std::collections::BTreeSet;

use super::members::{Gathering, Named};
use super::node::{self, Node};
use super::{
    CodeFile, HEADER_KEYS, Header, InsightRef, MAX_FILE_BYTES, Pos, Problem, RoleEntry, SUBSCRIPTION_KEYS,
    SubscriptionEntry, TOP_KEYS, is_email,
};
use crate::api::{Frequency, TargetType, Weekday};

/// Reads a file, TOML or JSON (by its first character), and checks it
/// offline; every problem is returned at once (the text held: tests).
#[cfg(test)]
pub fn parse(text: &str) -> Result<CodeFile, Vec<Problem>> {
    if text.len() as u64 > MAX_FILE_BYTES {
        return Err(vec![Problem {
            at: None,
            message: too_large(text.len() as u64),
        }]);
    }
    if is_json(text) {
        return parse_json(text);
    }
    let scanned = super::scan::scan(|| Ok(std::io::Cursor::new(text.as_bytes()))).map_err(|error| {
        vec![Problem {
            at: None,
            message: super::open::unscanned(error),
        }]
    })?;
    parse_scanned(scanned)
}

/// Whether a file's text is JSON (its first character).
#[cfg(test)]
pub(super) fn is_json(text: &str) -> bool {
    text.trim_start().starts_with('{')
}

/// Reads a JSON file, held whole.
pub(super) fn parse_json(text: &str) -> Result<CodeFile, Vec<Problem>> {
    let root = node::json(text)?;
    checked_file(&root, Checked::default())
}

/// Reads a TOML file as scanned, its roles' members set aside
/// ([`super::scan`]).
pub(super) fn parse_scanned(scanned: super::scan::Scanned) -> Result<CodeFile, Vec<Problem>> {
    let mut checked = Checked {
        members: scanned.members,
        diverted: scanned.diverted,
        headers: scanned.roles,
        ..Checked::default()
    };
    let root = super::toml::read(&scanned.text, &scanned.origin, &mut checked)?;
    drop(scanned.text);
    checked_file(&root, checked)
}

fn checked_file(root: &Node, checked: Checked) -> Result<CodeFile, Vec<Problem>> {
    let mut check = Check {
        checked,
        ..Check::default()
    };
    let file = check.file(root);
    if check.problems.is_empty() {
        Ok(file)
    } else {
        Err(check.problems)
    }
}

/// The refusal of a file past [`MAX_FILE_BYTES`].
pub fn too_large(size: u64) -> String {
    format!(
        "the file is {} MiB, more than the {} MiB orgdeck reads of an as-code file; split it (--roles, --subscriptions) or trim it",
        size.div_ceil(1024 * 1024),
        MAX_FILE_BYTES / (1024 * 1024)
    )
}

#[derive(Default)]
pub(super) struct Check {
    problems: Vec<Problem>,
    /// The subscriptions checked as they were read ([`Node::Checked`]).
    checked: Checked,
    /// The members of the roles checked, as the text names them (lists
    /// not set aside by [`super::scan`]).
    named: Vec<Named>,
}

/// Subscriptions (and roles) checked as the file was read, a table at a time, each
/// with its problems (told in their turn, as if checked with the rest):
/// what a file of 100,000 of them holds is their entries, not the tree
/// of their values.
#[derive(Default)]
pub(super) struct Checked {
    /// In the order read; `None` where a table was no entry.
    entries: Vec<Option<SubscriptionEntry>>,
    /// Their problems, in the order read.
    problems: Vec<Problem>,
    /// The `[[roles]]` tables checked as they were read, the same way:
    /// what a role of 100,000 members holds is its entry, not the tree of
    /// its members' values.
    roles: Vec<Option<RoleEntry>>,
    role_problems: Vec<Problem>,
    /// Where each role's problems end in `role_problems`.
    role_ends: Vec<usize>,
    /// Every role's members, set aside: those the scanner read, and those
    /// of the lists left in the text.
    members: Gathering,
    /// The roles (by place) whose members the scanner set aside, checked
    /// when the file is read ([`Checked::take_roles`]).
    diverted: BTreeSet<usize>,
    /// The `[[roles]]` headers the scanner read (one role each).
    headers: usize,
}

impl Checked {
    /// Room for the entries a file's `[[subscriptions]]` headers announce,
    /// so that the list is allocated once, at its size.
    pub(super) fn expect(&mut self, entries: usize) {
        self.entries.reserve_exact(entries);
    }

    /// Checks one `[[subscriptions]]` table, and gives what stands for it
    /// in the tree.
    pub(super) fn check(&mut self, node: &Node, at: Option<Pos>) -> Node {
        let mut check = Check::default();
        let entry = check.subscription(node, at);
        self.entries.push(entry);
        self.problems.extend(check.problems);
        Node::Checked
    }

    /// Every entry checked and their problems, in the order read. Checked
    /// entries are the `[[subscriptions]]` tables of a file, all of them,
    /// in order (an inline list, or JSON, is checked whole instead): the
    /// list is handed over, not copied into a second one.
    fn take_all(&mut self) -> (Vec<SubscriptionEntry>, Vec<Problem>) {
        let mut entries = std::mem::take(&mut self.entries);
        entries.retain(Option::is_some);
        let problems = std::mem::take(&mut self.problems);
        // Each is `Some` (kept above): the map reuses the list's memory.
        (
            entries.into_iter().map(Option::unwrap_or_default).collect(),
            problems,
        )
    }

    fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// The entries of a table, by key.
pub(super) struct Fields<'a> {
    entries: &'a [(String, Option<Pos>, Node, Option<Pos>)],
}

impl<'a> Fields<'a> {
    pub(super) fn get(&self, key: &str) -> Option<(&'a Node, Option<Pos>)> {
        self.entries
            .iter()
            .find(|(name, ..)| name == key)
            .map(|(_, _, node, at)| (node, *at))
    }
}

impl Check {
    pub(super) fn problem(&mut self, at: Option<Pos>, message: impl Into<String>) {
        self.problems.push(Problem {
            at,
            message: message.into(),
        });
    }

    /// The table's fields, with its unknown keys reported.
    pub(super) fn table<'a>(
        &mut self,
        node: &'a Node,
        at: Option<Pos>,
        what: &str,
        known: &[&str],
    ) -> Option<Fields<'a>> {
        let Node::Table(entries) = node else {
            self.problem(at, format!("{what} must be a table, not {}", node.kind()));
            return None;
        };
        for (key, key_at, ..) in entries {
            if !known.contains(&key.as_str()) {
                self.problem(
                    *key_at,
                    format!("unknown key `{key}` in {what} (known: {})", known.join(", ")),
                );
            }
        }
        Some(Fields { entries })
    }

    pub(super) fn text(&mut self, fields: &Fields, key: &str, what: &str) -> Option<String> {
        match fields.get(key)? {
            (Node::Text(text), _) => Some(text.clone()),
            (other, at) => {
                self.problem(at, format!("{what}.{key} must be a string, not {}", other.kind()));
                None
            }
        }
    }

    pub(super) fn integer(&mut self, fields: &Fields, key: &str, what: &str) -> Option<i64> {
        match fields.get(key)? {
            (Node::Integer(number), _) => Some(*number),
            (other, at) => {
                self.problem(
                    at,
                    format!("{what}.{key} must be an integer, not {}", other.kind()),
                );
                None
            }
        }
    }

    pub(super) fn boolean(&mut self, fields: &Fields, key: &str, what: &str) -> Option<bool> {
        match fields.get(key)? {
            (Node::Bool(flag), _) => Some(*flag),
            (other, at) => {
                self.problem(
                    at,
                    format!("{what}.{key} must be true or false, not {}", other.kind()),
                );
                None
            }
        }
    }

    fn texts(&mut self, fields: &Fields, key: &str, what: &str) -> Vec<(String, Option<Pos>)> {
        let Some((node, at)) = fields.get(key) else {
            return Vec::new();
        };
        let Node::List(items) = node else {
            self.problem(at, format!("{what}.{key} must be a list, not {}", node.kind()));
            return Vec::new();
        };
        let mut out = Vec::new();
        for (item, item_at) in items {
            match item {
                Node::Text(text) => out.push((text.clone(), item_at.or(at))),
                other => self.problem(
                    item_at.or(at),
                    format!("{what}.{key} holds strings, not {}", other.kind()),
                ),
            }
        }
        out
    }

    pub(super) fn required<T>(
        &mut self,
        value: Option<T>,
        fields: &Fields,
        key: &str,
        at: Option<Pos>,
        what: &str,
    ) -> Option<T> {
        if value.is_none() && fields.get(key).is_none() {
            self.problem(at, format!("{what} needs `{key}`"));
        }
        value
    }

    fn file(&mut self, root: &Node) -> CodeFile {
        let mut file = CodeFile::default();
        let Some(top) = self.table(root, None, "the file", TOP_KEYS) else {
            return file;
        };
        match top.get("orgdeck") {
            Some((node, at)) => {
                if let Some(fields) = self.table(node, at, "[orgdeck]", HEADER_KEYS) {
                    let host = self.text(&fields, "host", "orgdeck");
                    let organization = self.text(&fields, "organization", "orgdeck");
                    let project = self.integer(&fields, "project", "orgdeck");
                    let host = self.required(host, &fields, "host", at, "[orgdeck]");
                    let organization = self.required(organization, &fields, "organization", at, "[orgdeck]");
                    let project = self.required(project, &fields, "project", at, "[orgdeck]");
                    file.header = Header {
                        host: host.unwrap_or_default(),
                        organization: organization.unwrap_or_default(),
                        project: project.unwrap_or_default(),
                    };
                }
            }
            None => self.problem(
                None,
                "the file needs an [orgdeck] table naming host, organization and project",
            ),
        }
        if let Some((node, at)) = top.get("roles") {
            file.roles = Some(if self.checked.roles.is_empty() {
                let mut place = 0;
                let roles = self.entries(node, at, "roles", |check, node, at| {
                    place += 1;
                    check.role(node, at, place - 1)
                });
                for named in std::mem::take(&mut self.named) {
                    if let Err(error) = self.checked.members.push(named) {
                        self.problems.push(cannot_set_aside(&error));
                    }
                }
                let (_, members, problems) = self.checked.take_roles();
                self.problems.extend(problems);
                file.members = members;
                roles
            } else {
                let (roles, members, problems) = self.checked.take_roles();
                self.problems.extend(problems);
                file.members = members;
                roles
            });
            self.unique_roles(file.roles.as_deref().unwrap_or_default());
        }
        if let Some((node, at)) = top.get("access") {
            file.access =
                Some(self.entries(node, at, "access", |check, node, at| check.access_rule(node, at)));
            self.unique_rules(file.access.as_deref().unwrap_or_default());
        }
        if let Some((node, at)) = top.get("subscriptions") {
            file.subscriptions = Some(if self.checked.is_empty() {
                self.entries(node, at, "subscriptions", |check, node, at| {
                    check.subscription(node, at)
                })
            } else {
                let (entries, problems) = self.checked.take_all();
                self.problems.extend(problems);
                entries
            });
            let mut seen = std::collections::HashSet::new();
            for entry in file.subscriptions.iter().flatten() {
                if let Some(id) = entry.id
                    && !seen.insert(id)
                {
                    self.problem(entry.at, format!("subscription {id} is in the file twice"));
                }
            }
        }
        file
    }

    fn entries<T>(
        &mut self,
        node: &Node,
        at: Option<Pos>,
        what: &str,
        mut each: impl FnMut(&mut Check, &Node, Option<Pos>) -> Option<T>,
    ) -> Vec<T> {
        let Node::List(items) = node else {
            self.problem(
                at,
                format!(
                    "`{what}` must be a list of tables ([[{what}]]), not {}",
                    node.kind()
                ),
            );
            return Vec::new();
        };
        items
            .iter()
            .filter_map(|(item, item_at)| each(self, item, item_at.or(at)))
            .collect()
    }

    fn insight_ref(&mut self, node: &Node, at: Option<Pos>, key: &str) -> Option<InsightRef> {
        match node {
            Node::Text(short) if !short.trim().is_empty() => Some(InsightRef::Short(short.clone())),
            Node::Integer(id) if *id > 0 => Some(InsightRef::Id(*id)),
            other => {
                self.problem(
                    at,
                    format!(
                        "{key}: give an insight's short id (\"aBc123xY\") or its id, not {}",
                        other.kind()
                    ),
                );
                None
            }
        }
    }

    fn subscription(&mut self, node: &Node, at: Option<Pos>) -> Option<SubscriptionEntry> {
        let fields = self.table(node, at, "a subscription", SUBSCRIPTION_KEYS)?;
        let what = "subscription";
        let key_at = |key: &str| fields.get(key).and_then(|(_, at)| at).or(at);
        let mut entry = SubscriptionEntry {
            id: self.integer(&fields, "id", what),
            title: self.text(&fields, "title", what),
            dashboard: self.integer(&fields, "dashboard", what),
            prompt: self.text(&fields, "prompt", what),
            integration: self.integer(&fields, "integration", what),
            bysetpos: self.integer(&fields, "bysetpos", what),
            count: self.integer(&fields, "count", what),
            until_date: self.text(&fields, "until_date", what),
            invite_message: self.text(&fields, "invite_message", what),
            enabled: self.boolean(&fields, "enabled", what).unwrap_or(true),
            at,
            ..SubscriptionEntry::default()
        };
        if let Some((node, node_at)) = fields.get("insight") {
            entry.insight = self.insight_ref(node, node_at, "insight");
        }
        if let Some((node, node_at)) = fields.get("export_insights") {
            match node {
                Node::List(items) => {
                    for (item, item_at) in items {
                        if let Some(reference) =
                            self.insight_ref(item, item_at.or(node_at), "export_insights")
                        {
                            entry.export_insights.push(reference);
                        }
                    }
                }
                other => self.problem(
                    node_at,
                    format!("export_insights must be a list, not {}", other.kind()),
                ),
            }
            if entry.dashboard.is_none() && fields.get("dashboard").is_none() {
                self.problem(node_at, "export_insights is for a dashboard subscription");
            }
        }
        let delivers = [
            fields.get("insight").is_some(),
            fields.get("dashboard").is_some(),
            fields.get("prompt").is_some(),
        ];
        if delivers.iter().filter(|given| **given).count() != 1 {
            self.problem(
                at,
                "a subscription delivers one thing: give exactly one of insight, dashboard or prompt",
            );
        }
        let target_type = self.text(&fields, "target_type", what);
        entry.target_type = self
            .required(target_type, &fields, "target_type", at, "a subscription")
            .unwrap_or_default();
        if !entry.target_type.is_empty() && !TargetType::from_wire(&entry.target_type).is_known() {
            self.problem(
                key_at("target_type"),
                format!(
                    "target_type \"{}\" is not one of email, slack, webhook",
                    entry.target_type
                ),
            );
        }
        let target_value = self.text(&fields, "target_value", what);
        entry.target_value = self
            .required(target_value, &fields, "target_value", at, "a subscription")
            .unwrap_or_default();
        match entry.target_type.as_str() {
            "email" => {
                for address in entry.target_value.split(',').map(str::trim) {
                    if !is_email(address) {
                        self.problem(
                            key_at("target_value"),
                            format!("target_value: \"{address}\" is not an e-mail address"),
                        );
                    }
                }
            }
            // A new one needs it to be created; one the server already holds
            // may have lost it (its integration was removed), and a file
            // exported from that server must read back.
            "slack" if entry.integration.is_none() && entry.id.is_none() => {
                self.problem(
                    at,
                    "a new Slack subscription needs `integration` (the Slack integration's id)",
                );
            }
            _ => {}
        }
        let frequency = self.text(&fields, "frequency", what);
        entry.frequency = self
            .required(frequency, &fields, "frequency", at, "a subscription")
            .unwrap_or_default();
        if !entry.frequency.is_empty() && entry.frequency.parse::<Frequency>().is_err() {
            self.problem(
                key_at("frequency"),
                format!(
                    "frequency \"{}\" is not one of daily, weekly, monthly, yearly",
                    entry.frequency
                ),
            );
        }
        let interval = self.integer(&fields, "interval", what);
        entry.interval = interval.unwrap_or(1);
        if entry.interval < 1 {
            self.problem(key_at("interval"), "interval must be 1 or more");
        }
        for (day, day_at) in self.texts(&fields, "byweekday", what) {
            if day.parse::<Weekday>().is_err() {
                self.problem(
                    day_at,
                    format!("byweekday: \"{day}\" is not a day (monday … sunday)"),
                );
            }
            entry.byweekday.push(day);
        }
        if let Some(count) = entry.count
            && count < 1
        {
            self.problem(key_at("count"), "count must be 1 or more");
        }
        let start = self.text(&fields, "start_date", what);
        entry.start_date = self
            .required(start, &fields, "start_date", at, "a subscription")
            .unwrap_or_default();
        for (key, value) in [
            ("start_date", Some(&entry.start_date)),
            ("until_date", entry.until_date.as_ref()),
        ] {
            if let Some(value) = value.filter(|value| !value.is_empty())
                && chrono::DateTime::parse_from_rfc3339(value).is_err()
            {
                self.problem(
                    key_at(key),
                    format!("{key} \"{value}\" is not a date and time like 2026-01-05T09:00:00Z"),
                );
            }
        }
        Some(entry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_problem_is_reported_with_its_line() {
        let text = "[orgdeck]\nhost = \"h\"\norganization = \"o\"\nproject = 1\n\n[[roles]]\nname = \"A\"\ncolour = \"red\"\nmembers = [\n  \"not-an-address\",\n]\n\n[[subscriptions]]\ninsight = \"abc\"\ntarget_type = \"email\"\ntarget_value = \"a@b.c\"\nfrequency = \"hourly\"\nstart_date = \"2026-01-05T09:00:00Z\"\n";
        let problems = parse(text).unwrap_err();
        let lines: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert_eq!(lines.len(), 3, "{lines:#?}");
        assert!(
            lines[0].starts_with("line 8, column 1: unknown key `colour`"),
            "{lines:#?}"
        );
        assert!(
            lines[1].starts_with("line 10, column 3: \"not-an-address\""),
            "{lines:#?}"
        );
        assert!(
            lines[2].starts_with("line 17, column 13: frequency \"hourly\""),
            "{lines:#?}"
        );
    }
}
