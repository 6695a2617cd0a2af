//! The file of `orgdeck export` and `plan`: its model, how it is written
//! (TOML, one value a line where review needs it, or JSON) and how it is
//! read back and checked offline, every problem with its line. TOML is
//! read a line at a time, its roles' members set aside as they are read
//! ([`read`], `scan`, [`members`]); JSON is read whole.
//!
//! Text from the server is written escaped: in TOML and JSON alike, every
//! character [`crate::text::is_unsafe`] names (controls, bidi controls,
//! line separators, invisible format characters) is written `\uXXXX`
//! (`\UXXXXXXXX` in TOML beyond U+FFFF), which reads back as the same
//! text, so the file shows no hidden characters to a reviewer.

use std::io::Write;

use serde_json::{Value, json};

pub mod access;
pub mod members;
mod node;
mod open;
mod read;
mod scan;
mod schema;
mod toml;

pub use members::RoleMembers;
pub use open::{Seen, Unread, is_json_file, read, read_text};
#[cfg(test)]
pub use read::parse;
pub use schema::schema;

/// The most bytes of an as-code file that are read: far above any real
/// organization (100,000 subscriptions take about 40 MiB), and a clear
/// refusal past it rather than memory without bound.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Where a value stands in the file: 1-based line and column (in
/// characters), and its byte offset (where an id is written back).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pos {
    pub line: usize,
    pub column: usize,
    pub offset: usize,
}

/// One thing wrong with the file, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub at: Option<Pos>,
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.at {
            Some(at) => write!(f, "line {}, column {}: {}", at.line, at.column, self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// Which connection the file was exported from.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Header {
    pub host: String,
    pub organization: String,
    pub project: i64,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct RoleEntry {
    pub id: Option<String>,
    pub name: String,
    pub default: bool,
    /// Older PostHog only (21 view only, 37 can edit): written where the
    /// server has it, compared and sent where the file and server have it.
    pub feature_flags_access_level: Option<i64>,
    pub at: Option<Pos>,
}

/// An insight named by its short id (as exported) or its numeric id.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum InsightRef {
    Short(String),
    Id(i64),
}

impl InsightRef {
    fn to_json(&self) -> Value {
        match self {
            InsightRef::Short(short) => json!(short),
            InsightRef::Id(id) => json!(id),
        }
    }
}

impl crate::api::Kept for InsightRef {
    fn heap_bytes(&self) -> u64 {
        match self {
            InsightRef::Short(short) => short.heap_bytes(),
            InsightRef::Id(_) => 0,
        }
    }
}

/// What an entry read from the server holds: its text and lists (the
/// budget of `export` and `plan`, `--max-held-mib`).
impl crate::api::Kept for SubscriptionEntry {
    fn heap_bytes(&self) -> u64 {
        [
            self.title.heap_bytes(),
            self.insight.heap_bytes(),
            self.export_insights.heap_bytes(),
            self.prompt.heap_bytes(),
            self.target_type.heap_bytes(),
            self.target_value.heap_bytes(),
            self.byweekday.heap_bytes(),
            self.start_date.heap_bytes(),
            self.until_date.heap_bytes(),
            self.invite_message.heap_bytes(),
            self.summary.heap_bytes(),
            self.next_delivery.heap_bytes(),
        ]
        .into_iter()
        .fold(0, u64::saturating_add)
    }
}

/// A subscription as the file holds it: what it delivers, to whom, when
/// (serialized only to be set aside while `export` walks, [`super::spill`]).
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct SubscriptionEntry {
    pub id: Option<i64>,
    pub title: Option<String>,
    pub insight: Option<InsightRef>,
    pub dashboard: Option<i64>,
    pub export_insights: Vec<InsightRef>,
    pub prompt: Option<String>,
    pub target_type: String,
    pub target_value: String,
    pub integration: Option<i64>,
    pub frequency: String,
    pub interval: i64,
    pub byweekday: Vec<String>,
    pub bysetpos: Option<i64>,
    pub count: Option<i64>,
    pub start_date: String,
    pub until_date: Option<String>,
    pub enabled: bool,
    pub invite_message: Option<String>,
    /// What the server computes, written as comments only.
    pub summary: Option<String>,
    pub next_delivery: Option<String>,
    #[serde(skip)]
    pub at: Option<Pos>,
}

/// Every field a subscription entry may hold, in the file's order.
pub const SUBSCRIPTION_KEYS: &[&str] = &[
    "id",
    "title",
    "insight",
    "dashboard",
    "export_insights",
    "prompt",
    "target_type",
    "target_value",
    "integration",
    "frequency",
    "interval",
    "byweekday",
    "bysetpos",
    "count",
    "start_date",
    "until_date",
    "enabled",
    "invite_message",
];
const ROLE_KEYS: &[&str] = &["id", "name", "default", "feature_flags_access_level", "members"];
const HEADER_KEYS: &[&str] = &["host", "organization", "project"];
const TOP_KEYS: &[&str] = &["orgdeck", "roles", "subscriptions", "access"];

impl SubscriptionEntry {
    /// The fields compared and written, in the file's order, id left out;
    /// absent optional fields are null.
    pub fn fields(&self) -> Vec<(&'static str, Value)> {
        let refs = |refs: &[InsightRef]| Value::Array(refs.iter().map(InsightRef::to_json).collect());
        vec![
            ("title", json!(self.title)),
            (
                "insight",
                self.insight.as_ref().map_or(Value::Null, InsightRef::to_json),
            ),
            ("dashboard", json!(self.dashboard)),
            (
                "export_insights",
                if self.dashboard.is_some() {
                    refs(&self.export_insights)
                } else {
                    Value::Null
                },
            ),
            ("prompt", json!(self.prompt)),
            ("target_type", json!(self.target_type)),
            ("target_value", json!(self.target_value)),
            ("integration", json!(self.integration)),
            ("frequency", json!(self.frequency)),
            ("interval", json!(self.interval)),
            ("byweekday", json!(self.byweekday)),
            ("bysetpos", json!(self.bysetpos)),
            ("count", json!(self.count)),
            ("start_date", json!(self.start_date)),
            ("until_date", json!(self.until_date)),
            ("enabled", json!(self.enabled)),
            ("invite_message", json!(self.invite_message)),
        ]
    }

    /// What people call it: its title, else what it delivers.
    pub fn label(&self) -> String {
        if let Some(title) = self.title.as_ref().filter(|title| !title.trim().is_empty()) {
            return title.clone();
        }
        match (&self.insight, self.dashboard) {
            (Some(InsightRef::Short(short)), _) => format!("insight {short}"),
            (Some(InsightRef::Id(id)), _) => format!("insight #{id}"),
            (None, Some(id)) => format!("dashboard #{id}"),
            (None, None) => "AI report".into(),
        }
    }
}

/// The whole file; a section left out of it (`roles`, `subscriptions`) is
/// not managed by it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CodeFile {
    pub header: Header,
    pub roles: Option<Vec<RoleEntry>>,
    pub subscriptions: Option<Vec<SubscriptionEntry>>,
    /// Each project's access rules (`[[access]]`, see [`access`]).
    pub access: Option<Vec<access::RuleEntry>>,
    /// The members the roles name, set aside as the file was read, by
    /// the role's place in `roles` (none in a file of the server's: its
    /// members are set aside where it was read, see `members_aside`).
    pub members: RoleMembers,
}

/// Names given in comments, not compared.
#[derive(Debug, Clone, Default)]
pub struct Names {
    pub organization: String,
    pub project: String,
}

/// A comment's text: one line, no control characters.
fn comment(text: &str) -> String {
    crate::text::printable(&text.replace(['\n', '\r'], " ")).into_owned()
}

/// A TOML basic string: `"` and `\` escaped, and every character a
/// terminal would act on or hide written as `\uXXXX` (`\UXXXXXXXX` beyond
/// U+FFFF), TOML's own escapes for the usual controls.
pub fn toml_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if crate::text::is_unsafe(c) => {
                let code = u32::from(c);
                if code > 0xFFFF {
                    out.push_str(&format!("\\U{code:08X}"));
                } else {
                    out.push_str(&format!("\\u{code:04X}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A TOML value as written, e.g. `"text"` with escapes, `12`, `true`.
fn toml_value(value: &Value) -> String {
    match value {
        Value::String(text) => toml_string(text),
        Value::Bool(flag) => flag.to_string(),
        Value::Number(number) => number.to_string(),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(toml_value).collect();
            format!("[{}]", items.join(", "))
        }
        // Nulls are left out before this; objects are not in the file.
        Value::Null | Value::Object(_) => String::new(),
    }
}

/// A list one value a line, for review: `[\n  "a",\n  "b",\n]`.
fn toml_list(items: &[Value]) -> String {
    if items.is_empty() {
        return "[]".into();
    }
    let mut out = String::from("[\n");
    for item in items {
        out.push_str(&format!("  {},\n", toml_value(item)));
    }
    out.push(']');
    out
}

impl CodeFile {
    /// The file as TOML, with a header comment naming where it came from
    /// (`export` writes it a piece at a time: [`CodeFile::write_toml_head`],
    /// then each subscription).
    #[cfg(test)]
    pub fn to_toml(&self, names: &Names) -> String {
        let mut out = Vec::new();
        // Writing to a `Vec` cannot fail.
        self.write_toml_head(names, None, &mut out).unwrap();
        let mut out = String::from_utf8(out).unwrap();
        for subscription in self.subscriptions.iter().flatten() {
            out.push_str(&subscription.to_toml());
        }
        out
    }

    /// Writes the TOML before the subscriptions: the header, the roles and
    /// the access rules (what `export` writes before it streams its
    /// subscriptions, each [`SubscriptionEntry::to_toml`]), a role's
    /// member at a time, never the whole text held at once. With
    /// `members` (beside the roles, in their order), each role's members
    /// are read back from where they were set aside rather than from the
    /// role's own list (a role of the server holds none itself).
    pub fn write_toml_head(
        &self,
        names: &Names,
        members: Option<&[super::sorted::Sorted]>,
        out: &mut dyn Write,
    ) -> std::io::Result<()> {
        writeln!(out, "# orgdeck export of {}", comment(&self.header.host))?;
        writeln!(
            out,
            "# organization: {} ({})",
            comment(&names.organization),
            comment(&self.header.organization)
        )?;
        writeln!(
            out,
            "# project: {} ({})",
            comment(&names.project),
            self.header.project
        )?;
        out.write_all(b"# Edit it, review with `orgdeck plan FILE`, then `orgdeck apply FILE`.\n")?;
        out.write_all(b"# An entry without an id is created; the server's id is written back.\n\n")?;
        out.write_all(b"[orgdeck]\n")?;
        writeln!(out, "host = {}", toml_string(&self.header.host))?;
        writeln!(out, "organization = {}", toml_string(&self.header.organization))?;
        writeln!(out, "project = {}", self.header.project)?;
        for (at, role) in self.roles.iter().flatten().enumerate() {
            out.write_all(b"\n[[roles]]\n")?;
            if let Some(id) = &role.id {
                writeln!(out, "id = {}", toml_string(id))?;
            }
            writeln!(out, "name = {}", toml_string(&role.name))?;
            writeln!(out, "default = {}", role.default)?;
            if let Some(level) = role.feature_flags_access_level {
                writeln!(out, "feature_flags_access_level = {level}")?;
            }
            // As `toml_list` writes a list, one member a line.
            match members.and_then(|members| members.get(at)) {
                Some(aside) if !aside.is_empty() => {
                    out.write_all(b"members = [\n")?;
                    for member in aside.read::<String>()? {
                        writeln!(out, "  {},", toml_string(&member?))?;
                    }
                    out.write_all(b"]\n")?;
                }
                Some(_) | None => out.write_all(b"members = []\n")?,
            }
        }
        for rule in self.access.iter().flatten() {
            out.write_all(rule.to_toml().as_bytes())?;
        }
        Ok(())
    }

    /// The file as JSON: the same keys as the TOML.
    pub fn to_json(&self) -> Value {
        let mut top = serde_json::Map::new();
        top.insert(
            "orgdeck".into(),
            json!({
                "host": self.header.host,
                "organization": self.header.organization,
                "project": self.header.project,
            }),
        );
        if let Some(roles) = &self.roles {
            let roles: Vec<Value> = roles
                .iter()
                .map(|role| {
                    let mut entry = serde_json::Map::new();
                    if let Some(id) = &role.id {
                        entry.insert("id".into(), json!(id));
                    }
                    entry.insert("name".into(), json!(role.name));
                    entry.insert("default".into(), json!(role.default));
                    if let Some(level) = role.feature_flags_access_level {
                        entry.insert("feature_flags_access_level".into(), json!(level));
                    }
                    // Written from where they are set aside ([`super::spill`]).
                    entry.insert("members".into(), json!([]));
                    Value::Object(entry)
                })
                .collect();
            top.insert("roles".into(), Value::Array(roles));
        }
        if let Some(rules) = &self.access {
            top.insert(
                "access".into(),
                Value::Array(rules.iter().map(access::RuleEntry::to_json).collect()),
            );
        }
        if let Some(subscriptions) = &self.subscriptions {
            let subscriptions: Vec<Value> = subscriptions.iter().map(SubscriptionEntry::to_json).collect();
            top.insert("subscriptions".into(), Value::Array(subscriptions));
        }
        Value::Object(top)
    }
}

impl SubscriptionEntry {
    /// The entry as a `[[subscriptions]]` table, with a blank line before
    /// it and its summary and next delivery as comments.
    pub fn to_toml(&self) -> String {
        let mut out = String::from("\n");
        if let Some(summary) = &self.summary {
            out.push_str(&format!("# {}\n", comment(summary)));
        }
        if let Some(next) = &self.next_delivery {
            out.push_str(&format!("# next delivery: {}\n", comment(next)));
        }
        out.push_str("[[subscriptions]]\n");
        if let Some(id) = self.id {
            out.push_str(&format!("id = {id}\n"));
        }
        for (key, value) in self.fields() {
            match &value {
                Value::Null => {}
                Value::Array(items) if key == "export_insights" => {
                    out.push_str(&format!("{key} = {}\n", toml_list(items)));
                }
                _ => out.push_str(&format!("{key} = {}\n", toml_value(&value))),
            }
        }
        out
    }

    /// The entry as the file's JSON writes it.
    pub fn to_json(&self) -> Value {
        let mut entry = serde_json::Map::new();
        if let Some(id) = self.id {
            entry.insert("id".into(), json!(id));
        }
        for (key, value) in self.fields() {
            if !value.is_null() {
                entry.insert(key.into(), value);
            }
        }
        Value::Object(entry)
    }
}

/// E-mail syntax, loosely: one `@`, something on each side, a dot in the
/// domain, no spaces.
pub fn is_email(text: &str) -> bool {
    let Some((local, domain)) = text.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && !domain.contains('@')
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !text.chars().any(|c| c.is_whitespace() || c.is_control())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_written_reads_back_the_same() {
        let file = CodeFile {
            header: Header {
                host: "http://127.0.0.1:1".into(),
                organization: "org".into(),
                project: 2,
            },
            roles: Some(vec![RoleEntry {
                id: Some("r1".into()),
                name: "Quote \" and\nnewline \\ \u{9b}31m\u{202e}\u{2066}\u{85}\u{2028}\u{200b}\u{feff}\u{e0041}\u{7f}".into(),
                default: true,
                feature_flags_access_level: Some(21),
                ..RoleEntry::default()
            }]),
            subscriptions: Some(vec![SubscriptionEntry {
                id: Some(3),
                dashboard: Some(1),
                export_insights: vec![InsightRef::Short("x1".into()), InsightRef::Id(9)],
                target_type: "email".into(),
                target_value: "a@b.c".into(),
                frequency: "weekly".into(),
                interval: 1,
                byweekday: vec!["monday".into()],
                start_date: "2026-01-05T09:00:00Z".into(),
                enabled: true,
                summary: Some("sent\nweekly".into()),
                ..SubscriptionEntry::default()
            }]),
            access: None,
            members: RoleMembers::default(),
        };
        let names = Names::default();
        let strip = |mut file: CodeFile| {
            for role in file.roles.iter_mut().flatten() {
                role.at = None;
            }
            for subscription in file.subscriptions.iter_mut().flatten() {
                subscription.at = None;
                subscription.summary = None;
            }
            file
        };
        let toml = file.to_toml(&names);
        // Nothing hidden reaches the file: each such character is escaped.
        assert!(
            !toml.chars().any(|c| c != '\n' && crate::text::is_unsafe(c)),
            "{toml}"
        );
        for escape in [
            "\\u009B",
            "\\u202E",
            "\\u2066",
            "\\u0085",
            "\\u2028",
            "\\u200B",
            "\\uFEFF",
            "\\U000E0041",
            "\\u007F",
        ] {
            assert!(toml.contains(escape), "{escape} in {toml}");
        }
        let back = parse(&toml).unwrap();
        assert_eq!(strip(back), strip(file.clone()));
        let back = parse(&file.to_json().to_string()).unwrap();
        assert_eq!(strip(back), strip(file));
    }
}
