//! What changed since an earlier review: who joined or left, whose level,
//! roles or personal keys changed, and, project by project, who gained or
//! lost what (a level higher or lower than before) or reaches it another
//! way. The old snapshot (JSON or CSV) is read a project at a time into a
//! compact index (each address, resource and "level · source" kept once),
//! and the new review is compared with it as it is taken, each change
//! handed on as it is found.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::BufRead;

use serde::Serialize;

use super::snapshot;
use super::{AccessRow, Header, MemberRow, ProjectSnapshot, ReviewCell, Sink};
use crate::api::access::levels::{self, AccessLevel, PROJECT};

/// The kind of a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A higher level than before, or a role, or access where there was none.
    Gained,
    /// A lower level, a role lost, access gone.
    Lost,
    /// The same level reached another way, or keys changed.
    Changed,
    /// A new member of the organization.
    Joined,
    /// A member no longer in the organization.
    Left,
    /// Not compared: the server said nothing of it now, or then.
    Unknown,
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Kind::Gained => "gained",
            Kind::Lost => "lost",
            Kind::Changed => "changed",
            Kind::Joined => "joined",
            Kind::Left => "left",
            Kind::Unknown => "unknown",
        })
    }
}

/// One change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    pub change: Kind,
    /// Whose; empty for a change to a whole project.
    pub email: String,
    /// "Hedgebox Web (1)", for access in a project.
    pub project: Option<String>,
    /// `project`, a resource, `level`, `roles`, `personal keys`, `member`.
    pub what: String,
    pub from: String,
    pub to: String,
}

/// Each distinct text once, by number.
#[derive(Default)]
struct Interner {
    ids: HashMap<Box<str>, u32>,
    texts: Vec<Box<str>>,
}

impl Interner {
    fn intern(&mut self, text: &str) -> u32 {
        if let Some(&id) = self.ids.get(text) {
            return id;
        }
        let id = self.texts.len() as u32;
        self.texts.push(text.into());
        self.ids.insert(text.into(), id);
        id
    }

    fn find(&self, text: &str) -> Option<u32> {
        self.ids.get(text).copied()
    }

    fn text(&self, id: u32) -> &str {
        self.texts.get(id as usize).map_or("", |text| text)
    }
}

/// The earlier snapshot, indexed.
pub struct Old {
    pub taken_at: Option<String>,
    pub organization_id: Option<String>,
    members: BTreeMap<String, MemberRow>,
    projects: BTreeMap<i64, (String, Option<String>)>,
    emails: Interner,
    resources: Interner,
    values: Interner,
    cells: HashMap<(i64, u32, u32), u32>,
}

fn value(cell: &ReviewCell) -> String {
    format!("{} · {}", cell.level, cell.source)
}

impl Old {
    /// Reads a snapshot file written by `access review -o json|csv`.
    pub fn read(file: impl BufRead) -> Result<Old, String> {
        let mut old = Old {
            taken_at: None,
            organization_id: None,
            members: BTreeMap::new(),
            projects: BTreeMap::new(),
            emails: Interner::default(),
            resources: Interner::default(),
            values: Interner::default(),
            cells: HashMap::new(),
        };
        let mut each = |project: ProjectSnapshot| -> Result<(), String> {
            old.projects
                .insert(project.id, (project.label(), project.unknown.clone()));
            for row in &project.access {
                let email = old.emails.intern(&row.email.to_lowercase());
                for (resource, cell) in row.cells.iter() {
                    let resource = old.resources.intern(resource);
                    let value = old.values.intern(&value(cell));
                    old.cells.insert((project.id, email, resource), value);
                }
            }
            Ok(())
        };
        let read = snapshot::read(file, &mut each)?;
        old.taken_at = read.taken_at;
        old.organization_id = read.organization_id;
        old.members = read
            .members
            .into_iter()
            .map(|member| (member.email.to_lowercase(), member))
            .collect();
        Ok(old)
    }
}

/// Compares a review with an old snapshot as it is taken.
pub struct Differ<'a> {
    old: Old,
    emit: &'a mut dyn FnMut(&Change) -> std::io::Result<()>,
    joined: HashSet<String>,
    left: HashSet<String>,
    seen_projects: HashSet<i64>,
    /// The label of the project whose rows are compared as they come, if
    /// they are.
    comparing: Option<String>,
    /// Changes by kind.
    pub counts: BTreeMap<Kind, usize>,
}

impl<'a> Differ<'a> {
    pub fn new(old: Old, emit: &'a mut dyn FnMut(&Change) -> std::io::Result<()>) -> Differ<'a> {
        Differ {
            old,
            emit,
            joined: HashSet::new(),
            left: HashSet::new(),
            seen_projects: HashSet::new(),
            comparing: None,
            counts: BTreeMap::new(),
        }
    }

    /// Changes found, of any kind.
    pub fn changes(&self) -> usize {
        self.counts.values().sum()
    }

    fn tell(&mut self, change: Change) -> std::io::Result<()> {
        *self.counts.entry(change.change).or_default() += 1;
        (self.emit)(&change)
    }

    /// Compares a member of the new review with the old one's.
    fn member_now(&mut self, member: &MemberRow) -> std::io::Result<()> {
        let org_rank = |level: &str| match level {
            "member" => 1,
            "admin" => 2,
            "owner" => 3,
            _ => 0,
        };
        let email = member.email.to_lowercase();
        let Some(before) = self.old.members.remove(&email) else {
            self.joined.insert(email);
            let roles = if member.roles.is_empty() {
                "no role".to_string()
            } else {
                member.roles.join(", ")
            };
            self.tell(Change {
                change: Kind::Joined,
                email: member.email.clone(),
                project: None,
                what: "member".into(),
                from: String::new(),
                to: format!("{} · {roles}", member.level),
            })?;
            return Ok(());
        };
        if before.level != member.level {
            let change = if org_rank(&member.level) > org_rank(&before.level) {
                Kind::Gained
            } else {
                Kind::Lost
            };
            self.tell(Change {
                change,
                email: member.email.clone(),
                project: None,
                what: "level".into(),
                from: before.level.clone(),
                to: member.level.clone(),
            })?;
        }
        for role in member.roles.iter().filter(|role| !before.roles.contains(role)) {
            self.tell(Change {
                change: Kind::Gained,
                email: member.email.clone(),
                project: None,
                what: "roles".into(),
                from: String::new(),
                to: format!("role {role}"),
            })?;
        }
        for role in before.roles.iter().filter(|role| !member.roles.contains(role)) {
            self.tell(Change {
                change: Kind::Lost,
                email: member.email.clone(),
                project: None,
                what: "roles".into(),
                from: format!("role {role}"),
                to: String::new(),
            })?;
        }
        if before.personal_keys != member.personal_keys {
            self.tell(Change {
                change: Kind::Changed,
                email: member.email.clone(),
                project: None,
                what: "personal keys".into(),
                from: before.personal_keys.clone(),
                to: member.personal_keys.clone(),
            })?;
        }
        Ok(())
    }

    /// Tells of the old review's members the new one did not list.
    fn members_gone(&mut self) -> std::io::Result<()> {
        let gone: Vec<MemberRow> = std::mem::take(&mut self.old.members).into_values().collect();
        for member in gone {
            self.left.insert(member.email.to_lowercase());
            self.tell(Change {
                change: Kind::Left,
                email: member.email.clone(),
                project: None,
                what: "member".into(),
                from: member.level.clone(),
                to: String::new(),
            })?;
        }
        Ok(())
    }

    /// Drops the old cells of one person in one project.
    fn forget(&mut self, project: i64, email: u32) {
        let resources = self.old.resources.texts.len() as u32;
        for resource in 0..resources {
            self.old.cells.remove(&(project, email, resource));
        }
    }

    /// Compares one row of a project with the old review's.
    fn compare(&mut self, project: &ProjectSnapshot, label: &str, row: &AccessRow) -> std::io::Result<()> {
        {
            let lower = row.email.to_lowercase();
            let email = self.old.emails.find(&lower);
            if let Some(unknown) = &row.unknown {
                let had = email.is_some_and(|email| {
                    (0..self.old.resources.texts.len() as u32)
                        .any(|resource| self.old.cells.contains_key(&(project.id, email, resource)))
                });
                if let Some(email) = email {
                    self.forget(project.id, email);
                }
                if had {
                    self.tell(Change {
                        change: Kind::Unknown,
                        email: row.email.clone(),
                        project: Some(label.to_string()),
                        what: "project".into(),
                        from: String::new(),
                        to: unknown.clone(),
                    })?;
                }
                return Ok(());
            }
            let new_member = self.joined.contains(&lower);
            for (resource, cell) in row.cells.iter() {
                let before = email.and_then(|email| {
                    let resource = self.old.resources.find(resource)?;
                    self.old.cells.remove(&(project.id, email, resource))
                });
                let now = value(cell);
                let before = before.map(|id| self.old.values.text(id).to_string());
                if before.as_deref() == Some(now.as_str()) {
                    continue;
                }
                // A new member's access is told by the project alone.
                if before.is_none() && new_member && resource != PROJECT {
                    continue;
                }
                let change = match &before {
                    None => Kind::Gained,
                    Some(before) => {
                        let level_of = |text: &str| text.split(" · ").next().unwrap_or_default().to_string();
                        let rank = |text: &str| {
                            levels::rank(resource, &AccessLevel::from_wire(&level_of(text)))
                                .map_or(-1, |rank| rank as i64)
                        };
                        match rank(&now).cmp(&rank(before)) {
                            std::cmp::Ordering::Greater => Kind::Gained,
                            std::cmp::Ordering::Less => Kind::Lost,
                            std::cmp::Ordering::Equal => Kind::Changed,
                        }
                    }
                };
                self.tell(Change {
                    change,
                    email: row.email.clone(),
                    project: Some(label.to_string()),
                    what: resource.to_string(),
                    from: before.unwrap_or_default(),
                    to: now,
                })?;
            }
        }
        Ok(())
    }
}

impl Sink for Differ<'_> {
    fn begin(&mut self, header: &Header, _members: usize) -> std::io::Result<()> {
        if let Some(old) = &self.old.organization_id
            && !old.eq_ignore_ascii_case(&header.organization.id)
        {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "the old review is of organization {old}, this one of {}: nothing to compare",
                    header.organization.id
                ),
            ));
        }
        Ok(())
    }

    fn member(&mut self, member: &MemberRow) -> std::io::Result<()> {
        self.member_now(member)
    }

    fn members_end(&mut self) -> std::io::Result<()> {
        self.members_gone()
    }

    fn project(&mut self, project: &ProjectSnapshot) -> std::io::Result<()> {
        let label = project.label();
        self.seen_projects.insert(project.id);
        let before = self.old.projects.remove(&project.id);
        match (&before, &project.unknown) {
            (_, Some(unknown)) => {
                if before
                    .as_ref()
                    .is_some_and(|(_, was)| was.as_ref() == Some(unknown))
                {
                    return Ok(());
                }
                self.tell(Change {
                    change: Kind::Unknown,
                    email: String::new(),
                    project: Some(label),
                    what: "project".into(),
                    from: String::new(),
                    to: unknown.clone(),
                })?;
                let emails = self.old.emails.texts.len() as u32;
                for email in 0..emails {
                    self.forget(project.id, email);
                }
                Ok(())
            }
            (None, None) => {
                self.tell(Change {
                    change: Kind::Gained,
                    email: String::new(),
                    project: Some(label.clone()),
                    what: "project".into(),
                    from: "not in the old review".into(),
                    to: "reviewed".into(),
                })?;
                self.comparing = Some(label);
                Ok(())
            }
            (Some((_, Some(was))), None) => {
                self.tell(Change {
                    change: Kind::Unknown,
                    email: String::new(),
                    project: Some(label),
                    what: "project".into(),
                    from: was.clone(),
                    to: "read now; not compared".into(),
                })?;
                Ok(())
            }
            (Some(_), None) => {
                self.comparing = Some(label);
                Ok(())
            }
        }
    }

    fn row(&mut self, project: &ProjectSnapshot, row: &AccessRow) -> std::io::Result<()> {
        match self.comparing.take() {
            Some(label) => {
                let compared = self.compare(project, &label, row);
                self.comparing = Some(label);
                compared
            }
            None => Ok(()),
        }
    }

    fn project_end(&mut self, _project: &ProjectSnapshot) -> std::io::Result<()> {
        self.comparing = None;
        Ok(())
    }

    fn end(&mut self) -> std::io::Result<()> {
        let gone: Vec<(i64, (String, Option<String>))> =
            std::mem::take(&mut self.old.projects).into_iter().collect();
        let gone_ids: HashSet<i64> = gone.iter().map(|(id, _)| *id).collect();
        for (_, (label, _)) in gone {
            self.tell(Change {
                change: Kind::Lost,
                email: String::new(),
                project: Some(label),
                what: "project".into(),
                from: "reviewed".into(),
                to: "no longer listed".into(),
            })?;
        }
        // Access the new answers no longer list, of members still here.
        let mut rest: Vec<((i64, u32, u32), u32)> = self
            .old
            .cells
            .drain()
            .filter(|((project, _, _), _)| !gone_ids.contains(project))
            .collect();
        rest.sort_by(|a, b| {
            let key = |((project, email, resource), _): &((i64, u32, u32), u32)| {
                (*project, self.old.emails.text(*email).to_string(), *resource)
            };
            key(a).cmp(&key(b))
        });
        for ((project, email, resource), value) in rest {
            let email = self.old.emails.text(email).to_string();
            if self.left.contains(&email) || !self.seen_projects.contains(&project) {
                continue;
            }
            let change = Change {
                change: Kind::Lost,
                email,
                project: Some(project.to_string()),
                what: self.old.resources.text(resource).to_string(),
                from: self.old.values.text(value).to_string(),
                to: "no longer listed".into(),
            };
            self.tell(change)?;
        }
        Ok(())
    }
}
