//! The review's files: JSON and CSV, written as the review goes (a project
//! at a time) and read back for `--diff`.
//!
//! JSON is one object whose members and access rows each stand on a line
//! of their own, so that a line-by-line diff of two snapshots shows what
//! changed; characters a terminal would act on are escaped the JSON way.
//! CSV starts with `#` lines (host, organization, time, resolution), then
//! a header row and one row per member (their level, roles, last login and
//! keys), then per project a row for the project's defaults (`(everyone)`)
//! and one row per member with the project's level and source and two
//! columns (level, source) per resource. Text from a server is made safe:
//! controls are shown escaped, and a cell a spreadsheet would take for a
//! formula (`=`, `+`, `-`, `@`) is written with a leading `'`.

use std::io::{BufRead, Write};

use serde::Serialize;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::{AccessRow, Header, MemberRow, ProjectSnapshot, ReviewCell, Sink};
use crate::api::access::Ordered;
use crate::api::access::levels::{PROJECT, RESOURCES};

/// The format version the files carry.
pub const VERSION: u32 = 1;

/// The e-mail column of a project's defaults row in CSV.
pub const EVERYONE: &str = "(everyone)";

/// `value` as one line of JSON, with C1 and bidi controls and invisible
/// format characters escaped (serde escapes the C0 controls).
pub fn json_line(value: &impl Serialize) -> std::io::Result<String> {
    let text = serde_json::to_string(value).map_err(std::io::Error::other)?;
    if !text.chars().any(crate::text::is_unsafe) {
        return Ok(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if crate::text::is_unsafe(c) {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    Ok(out)
}

/// Writes the review as JSON.
pub struct JsonSink<W: Write> {
    out: W,
    projects: usize,
    /// Rows written of the project being written, or members of the
    /// members' list.
    rows: usize,
}

impl<W: Write> JsonSink<W> {
    pub fn new(out: W) -> Self {
        JsonSink {
            out,
            projects: 0,
            rows: 0,
        }
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

#[derive(Serialize)]
struct JsonHeader<'a> {
    orgdeck_access_review: u32,
    host: &'a str,
    organization: &'a crate::access::directory::Organization,
    resolution: String,
    taken_at: String,
}

impl<W: Write> Sink for JsonSink<W> {
    fn begin(&mut self, header: &Header, _members: usize) -> std::io::Result<()> {
        let head = json_line(&JsonHeader {
            orgdeck_access_review: VERSION,
            host: &header.host,
            organization: &header.organization,
            resolution: header.resolution(),
            taken_at: stamp(header),
        })?;
        // The header's fields, then the members, each on a line.
        let head = head.strip_suffix('}').unwrap_or(&head);
        writeln!(self.out, "{head},")?;
        write!(self.out, "\"members\":[")?;
        self.rows = 0;
        Ok(())
    }

    fn member(&mut self, member: &MemberRow) -> std::io::Result<()> {
        let separator = if self.rows == 0 { "\n" } else { ",\n" };
        write!(self.out, "{separator}{}", json_line(member)?)?;
        self.rows += 1;
        Ok(())
    }

    fn members_end(&mut self) -> std::io::Result<()> {
        write!(self.out, "\n],\n\"projects\":[")
    }

    fn project(&mut self, project: &ProjectSnapshot) -> std::io::Result<()> {
        #[derive(Serialize)]
        struct Head<'a> {
            id: i64,
            name: &'a str,
            unknown: &'a Option<String>,
            notes: &'a [String],
            defaults: &'a Ordered<ReviewCell>,
        }
        let head = json_line(&Head {
            id: project.id,
            name: &project.name,
            unknown: &project.unknown,
            notes: &project.notes,
            defaults: &project.defaults,
        })?;
        let separator = if self.projects == 0 { "\n" } else { ",\n" };
        write!(
            self.out,
            "{separator}{},\"access\":[",
            head.strip_suffix('}').unwrap_or(&head)
        )?;
        self.rows = 0;
        Ok(())
    }

    fn row(&mut self, _project: &ProjectSnapshot, row: &AccessRow) -> std::io::Result<()> {
        let separator = if self.rows == 0 { "\n" } else { ",\n" };
        write!(self.out, "{separator}{}", json_line(row)?)?;
        self.rows += 1;
        Ok(())
    }

    fn project_end(&mut self, _project: &ProjectSnapshot) -> std::io::Result<()> {
        write!(self.out, "\n]}}")?;
        self.projects += 1;
        Ok(())
    }

    fn end(&mut self) -> std::io::Result<()> {
        writeln!(self.out, "\n]}}")?;
        self.out.flush()
    }
}

fn stamp(header: &Header) -> String {
    header.taken_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// Writes the review as CSV.
pub struct CsvSink<W: Write> {
    out: W,
    /// The columns of a line ([`csv_columns`]), known once `begin` wrote them.
    columns: usize,
}

impl<W: Write> CsvSink<W> {
    pub fn new(out: W) -> Self {
        CsvSink { out, columns: 0 }
    }

    pub fn into_inner(self) -> W {
        self.out
    }

    fn line(&mut self, cells: &[&str]) -> std::io::Result<()> {
        let line: Vec<String> = cells.iter().map(|cell| csv_cell(cell)).collect();
        writeln!(self.out, "{}", line.join(","))
    }
}

/// The columns before the resources'.
const FIXED: [&str; 11] = [
    "email",
    "name",
    "level",
    "roles",
    "last_login",
    "personal_keys",
    "project_id",
    "project",
    "status",
    "project_access",
    "project_source",
];

/// Every column, in order: the fixed ones, a level and a source for each
/// resource, then `other` (resources this version does not know).
pub fn csv_columns() -> Vec<String> {
    let mut columns: Vec<String> = FIXED.iter().map(|column| column.to_string()).collect();
    for resource in RESOURCES {
        columns.push(resource.to_string());
        columns.push(format!("{resource}_source"));
    }
    columns.push("other".into());
    columns
}

/// One cell, escaped for a terminal and a spreadsheet, quoted when needed.
fn csv_cell(text: &str) -> String {
    let mut text = crate::text::printable(text).into_owned();
    if text.starts_with(['=', '+', '-', '@']) && text != "-" {
        text.insert(0, '\'');
    }
    if text.contains([',', '"', '\n', '\r']) || text.starts_with(' ') || text.ends_with(' ') {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

/// The project and resource cells of a row, in the CSV's columns.
fn cell_columns(cells: &Ordered<ReviewCell>) -> (Vec<String>, String) {
    let mut columns = vec![String::new(); 2 + RESOURCES.len() * 2];
    let mut other = Vec::new();
    for (resource, cell) in cells.iter() {
        let at = if resource == PROJECT {
            Some(0)
        } else {
            RESOURCES
                .iter()
                .position(|known| *known == resource)
                .map(|at| 2 + at * 2)
        };
        match at {
            Some(at) => {
                columns[at] = cell.level.clone();
                columns[at + 1] = cell.source.clone();
            }
            None => other.push(format!("{resource}={}:{}", cell.level, cell.source)),
        }
    }
    (columns, other.join(";"))
}

impl<W: Write> Sink for CsvSink<W> {
    fn begin(&mut self, header: &Header, _members: usize) -> std::io::Result<()> {
        let organization = &header.organization;
        for line in [
            "orgdeck access review".to_string(),
            format!("version: {VERSION}"),
            format!("host: {}", header.host),
            format!("organization: {} ({})", organization.name, organization.id),
            format!("taken_at: {}", stamp(header)),
            format!("resolution: {}", header.resolution()),
        ] {
            writeln!(self.out, "# {}", crate::text::printable(&line))?;
        }
        let columns = csv_columns();
        let columns: Vec<&str> = columns.iter().map(String::as_str).collect();
        self.columns = columns.len();
        self.line(&columns)
    }

    fn member(&mut self, member: &MemberRow) -> std::io::Result<()> {
        let roles = member.roles.join("; ");
        let last_login = member.last_login.clone().unwrap_or_default();
        let mut cells = vec![
            member.email.as_str(),
            member.name.as_str(),
            member.level.as_str(),
            roles.as_str(),
            last_login.as_str(),
            member.personal_keys.as_str(),
        ];
        cells.resize(self.columns, "");
        self.line(&cells)
    }

    fn members_end(&mut self) -> std::io::Result<()> {
        Ok(())
    }

    fn project(&mut self, project: &ProjectSnapshot) -> std::io::Result<()> {
        let id = project.id.to_string();
        let status = project
            .unknown
            .iter()
            .chain(project.notes.iter())
            .cloned()
            .collect::<Vec<_>>()
            .join("; ");
        let (defaults, other) = cell_columns(&project.defaults);
        let mut cells: Vec<&str> = vec![
            EVERYONE,
            "the project's default",
            "",
            "",
            "",
            "",
            &id,
            &project.name,
            &status,
        ];
        cells.extend(defaults.iter().map(String::as_str));
        cells.push(&other);
        self.line(&cells)
    }

    fn row(&mut self, project: &ProjectSnapshot, row: &AccessRow) -> std::io::Result<()> {
        let id = project.id.to_string();
        let status = row.unknown.clone().unwrap_or_default();
        let (columns, other) = cell_columns(&row.cells);
        let mut cells: Vec<&str> = vec![&row.email, &row.name, "", "", "", "", &id, &project.name, &status];
        cells.extend(columns.iter().map(String::as_str));
        cells.push(&other);
        self.line(&cells)
    }

    fn project_end(&mut self, _project: &ProjectSnapshot) -> std::io::Result<()> {
        Ok(())
    }

    fn end(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// What a snapshot file holds, as `--diff` reads it: its header, its
/// members, then its projects one at a time (handed to `each`, never all
/// held).
pub struct Read {
    pub taken_at: Option<String>,
    pub organization_id: Option<String>,
    pub members: Vec<MemberRow>,
}

/// Reads a snapshot written as JSON or CSV (told apart by its first byte).
pub fn read(
    file: impl BufRead,
    each: &mut dyn FnMut(ProjectSnapshot) -> Result<(), String>,
) -> Result<Read, String> {
    let mut file = file;
    let first = loop {
        let buffer = file.fill_buf().map_err(|error| error.to_string())?;
        match buffer.first() {
            None => return Err("the file is empty".into()),
            Some(byte) if byte.is_ascii_whitespace() => file.consume(1),
            Some(byte) => break *byte,
        }
    };
    match first {
        b'{' => read_json(file, each),
        b'#' | b'e' => read_csv(file, each),
        _ => Err("not a review written with -o json or -o csv".into()),
    }
}

fn read_json(
    file: impl BufRead,
    each: &mut dyn FnMut(ProjectSnapshot) -> Result<(), String>,
) -> Result<Read, String> {
    let mut deserializer = serde_json::Deserializer::from_reader(file);
    let mut found = Read {
        taken_at: None,
        organization_id: None,
        members: Vec::new(),
    };
    let mut failed = None;
    let outcome = deserializer.deserialize_map(Top {
        found: &mut found,
        each,
        failed: &mut failed,
    });
    if let Some(failed) = failed {
        return Err(failed);
    }
    outcome.map_err(|error| format!("not a review written with -o json: {error}"))?;
    Ok(found)
}

struct Top<'a, 'b> {
    found: &'a mut Read,
    each: &'a mut (dyn FnMut(ProjectSnapshot) -> Result<(), String> + 'b),
    failed: &'a mut Option<String>,
}

impl<'de> Visitor<'de> for Top<'_, '_> {
    type Value = ();

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("an access review")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut versioned = false;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "orgdeck_access_review" => {
                    map.next_value::<u32>()?;
                    versioned = true;
                }
                "taken_at" => self.found.taken_at = map.next_value()?,
                "organization" => {
                    let organization: serde_json::Value = map.next_value()?;
                    self.found.organization_id = organization["id"].as_str().map(str::to_string);
                }
                "members" => self.found.members = map.next_value()?,
                "projects" => map.next_value_seed(Projects {
                    each: &mut *self.each,
                    failed: &mut *self.failed,
                })?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if !versioned {
            return Err(serde::de::Error::custom("it is not marked orgdeck_access_review"));
        }
        Ok(())
    }
}

struct Projects<'a, 'b> {
    each: &'a mut (dyn FnMut(ProjectSnapshot) -> Result<(), String> + 'b),
    failed: &'a mut Option<String>,
}

impl<'de> DeserializeSeed<'de> for Projects<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Projects<'_, '_> {
    type Value = ();

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("a list of projects")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(project) = seq.next_element::<ProjectSnapshot>()? {
            if let Err(error) = (self.each)(project) {
                *self.failed = Some(error.clone());
                return Err(serde::de::Error::custom(error));
            }
        }
        Ok(())
    }
}

/// Splits CSV into rows of cells (quotes, doubled quotes and line breaks
/// within quotes as RFC 4180 has them); `#` lines before the header are
/// handed over as comments.
struct CsvRows<R: BufRead> {
    file: R,
}

impl<R: BufRead> CsvRows<R> {
    fn next_row(&mut self) -> Result<Option<Vec<String>>, String> {
        let mut cells = Vec::new();
        let mut cell = String::new();
        let mut quoted = false;
        let mut line = String::new();
        let mut started = false;
        loop {
            line.clear();
            let read = self
                .file
                .read_line(&mut line)
                .map_err(|error| error.to_string())?;
            if read == 0 {
                if quoted {
                    return Err("the file ends inside a quoted cell".into());
                }
                if !started {
                    return Ok(None);
                }
                cells.push(cell);
                return Ok(Some(cells));
            }
            started = true;
            let mut chars = line.chars().peekable();
            while let Some(c) = chars.next() {
                match (quoted, c) {
                    (true, '"') if chars.peek() == Some(&'"') => {
                        chars.next();
                        cell.push('"');
                    }
                    (true, '"') => quoted = false,
                    (true, c) => cell.push(c),
                    (false, '"') => quoted = true,
                    (false, ',') => cells.push(std::mem::take(&mut cell)),
                    (false, '\n') => {}
                    (false, '\r') if chars.peek() == Some(&'\n') => {}
                    (false, c) => cell.push(c),
                }
            }
            if !quoted {
                cells.push(cell);
                return Ok(Some(cells));
            }
        }
    }
}

/// A cell as written, its spreadsheet guard taken off.
fn unguard(cell: &str) -> String {
    match cell.strip_prefix('\'') {
        Some(rest) if rest.starts_with(['=', '+', '-', '@']) => rest.to_string(),
        _ => cell.to_string(),
    }
}

fn read_csv(
    mut file: impl BufRead,
    each: &mut dyn FnMut(ProjectSnapshot) -> Result<(), String>,
) -> Result<Read, String> {
    let mut found = Read {
        taken_at: None,
        organization_id: None,
        members: Vec::new(),
    };
    let mut versioned = false;
    let mut line = String::new();
    loop {
        let buffer = file.fill_buf().map_err(|error| error.to_string())?;
        if buffer.first() != Some(&b'#') {
            break;
        }
        line.clear();
        file.read_line(&mut line).map_err(|error| error.to_string())?;
        let comment = line.trim_start_matches('#').trim();
        if comment == "orgdeck access review" {
            versioned = true;
        } else if let Some(at) = comment.strip_prefix("taken_at: ") {
            found.taken_at = Some(at.to_string());
        } else if let Some(organization) = comment.strip_prefix("organization: ") {
            found.organization_id = organization
                .rsplit_once(" (")
                .map(|(_, id)| id.trim_end_matches(')').to_string());
        }
    }
    if !versioned {
        return Err(
            "not a review written with -o csv: it does not start with \"# orgdeck access review\"".into(),
        );
    }
    let mut rows = CsvRows { file };
    let header = rows.next_row()?.ok_or("the CSV has no header row")?;
    let column = |name: &str| header.iter().position(|known| known == name);
    let need = |name: &str| column(name).ok_or_else(|| format!("the CSV has no {name} column"));
    let (email, name, level, roles, last_login, keys) = (
        need("email")?,
        need("name")?,
        need("level")?,
        need("roles")?,
        need("last_login")?,
        need("personal_keys")?,
    );
    let (project_id, project_name, status) = (need("project_id")?, need("project")?, need("status")?);
    let resources: Vec<(String, usize, usize)> = std::iter::once(PROJECT.to_string())
        .chain(RESOURCES.iter().map(|resource| resource.to_string()))
        .filter_map(|resource| {
            let (level, source) = if resource == PROJECT {
                ("project_access".to_string(), "project_source".to_string())
            } else {
                (resource.clone(), format!("{resource}_source"))
            };
            Some((resource, column(&level)?, column(&source)?))
        })
        .collect();
    let other = column("other");
    let mut current: Option<ProjectSnapshot> = None;
    let get = |row: &[String], at: usize| row.get(at).map(|cell| unguard(cell)).unwrap_or_default();
    while let Some(row) = rows.next_row()? {
        let id = get(&row, project_id);
        if id.is_empty() {
            found.members.push(MemberRow {
                email: get(&row, email),
                name: get(&row, name),
                membership_id: String::new(),
                level: get(&row, level),
                roles: get(&row, roles)
                    .split("; ")
                    .filter(|role| !role.is_empty())
                    .map(str::to_string)
                    .collect(),
                last_login: Some(get(&row, last_login)).filter(|at| !at.is_empty()),
                personal_keys: get(&row, keys),
            });
            continue;
        }
        let id: i64 = id
            .parse()
            .map_err(|_| format!("project_id \"{id}\" is not a number"))?;
        let mut cells: Vec<(String, ReviewCell)> = resources
            .iter()
            .map(|(resource, level, source)| {
                (
                    resource.clone(),
                    ReviewCell {
                        level: get(&row, *level),
                        source: get(&row, *source),
                    },
                )
            })
            .filter(|(_, cell)| !cell.level.is_empty())
            .collect();
        if let Some(other) = other {
            for part in get(&row, other).split(';').filter(|part| !part.is_empty()) {
                if let Some((resource, rest)) = part.split_once('=') {
                    let (level, source) = rest.split_once(':').unwrap_or((rest, ""));
                    cells.push((
                        resource.to_string(),
                        ReviewCell {
                            level: level.to_string(),
                            source: source.to_string(),
                        },
                    ));
                }
            }
        }
        let who = get(&row, email);
        if who == EVERYONE {
            if let Some(done) = current.take() {
                each(done)?;
            }
            let status = get(&row, status);
            // An unknown project has no defaults; its status says why.
            let unknown = cells.is_empty() && !status.is_empty();
            current = Some(ProjectSnapshot {
                id,
                name: get(&row, project_name),
                unknown: unknown.then_some(status.clone()),
                notes: if unknown || status.is_empty() {
                    Vec::new()
                } else {
                    vec![status]
                },
                defaults: Ordered(cells),
                access: Vec::new(),
            });
            continue;
        }
        let Some(project) = current.as_mut().filter(|project| project.id == id) else {
            return Err(format!("project {id}'s rows do not follow its (everyone) row"));
        };
        let status = get(&row, status);
        project.access.push(AccessRow {
            email: who,
            name: get(&row, name),
            membership_id: String::new(),
            unknown: Some(status).filter(|status| !status.is_empty()),
            cells: Ordered(cells),
        });
    }
    if let Some(done) = current.take() {
        each(done)?;
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_safe_for_terminals_and_spreadsheets_and_read_back() {
        assert_eq!(csv_cell("plain"), "plain");
        assert_eq!(csv_cell("a, b"), "\"a, b\"");
        assert_eq!(csv_cell("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_cell("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(csv_cell("-"), "-");
        assert_eq!(csv_cell("x\u{1b}[2J"), "x\\u{1b}[2J");
        let mut rows = CsvRows {
            file: std::io::Cursor::new("a,\"b,c\",\"d\"\"e\"\n\"multi\nline\",x\n"),
        };
        assert_eq!(rows.next_row().unwrap().unwrap(), ["a", "b,c", "d\"e"]);
        assert_eq!(rows.next_row().unwrap().unwrap(), ["multi\nline", "x"]);
        assert!(rows.next_row().unwrap().is_none());
        assert_eq!(unguard("'=SUM(A1)"), "=SUM(A1)");
    }

    #[test]
    fn json_lines_escape_what_a_terminal_would_act_on() {
        assert_eq!(json_line(&"a\u{202e}b").unwrap(), "\"a\\u202eb\"");
        assert_eq!(json_line(&"😀").unwrap(), "\"😀\"");
    }
}
