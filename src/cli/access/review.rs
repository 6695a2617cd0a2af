//! `orgdeck access review`: the snapshot an admin files for an access
//! review, to stdout or a file, as a readable report (the default), JSON
//! or CSV; with `--diff OLD_FILE`, who gained or lost what since then.

use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};

use super::super::connection::Connection;
use super::super::output::{self, Column, Requested, fixed, flexible};
use super::super::{Exit, UsageError};
use super::{Pace, ProgressLine, failed, resource_name};
use crate::access::review::diff::{Change, Differ, Kind, Old};
use crate::access::review::snapshot::{CsvSink, JsonSink};
use crate::access::review::{
    AccessRow, Header, MemberRow, Progress, ProjectSnapshot, ReviewError, Sink, Tee, take,
};
use crate::text::printable;

#[derive(Debug, Clone, clap::Args)]
pub struct ReviewArgs {
    /// Write the snapshot to FILE (owner-only, replaced whole once the
    /// review is complete) rather than to stdout. With --diff, it is
    /// written in OLD_FILE's format, ready for the next comparison.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Compare with a snapshot written earlier with -o json or -o csv, and
    /// print who gained or lost what (-o json: the changes as JSON); exit
    /// 0 when nothing changed, 2 when something did, 1 on an error.
    #[arg(long, value_name = "OLD_FILE")]
    diff: Option<PathBuf>,
    #[command(flatten)]
    pace: Pace,
}

/// The format of a snapshot file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kept {
    Text,
    Json,
    Csv,
}

pub async fn run(args: ReviewArgs, connection: Connection, requested: Requested) -> anyhow::Result<()> {
    let diffing = args.diff.is_some();
    review(args, connection, requested).await.map_err(|error| {
        // With --diff, 2 means changes: any error is 1.
        if diffing
            && error.downcast_ref::<Exit>().is_none()
            && error.downcast_ref::<output::ClosedOutput>().is_none()
        {
            Exit {
                code: 1,
                message: format!("{error:#}"),
            }
            .into()
        } else {
            error
        }
    })
}

async fn review(args: ReviewArgs, connection: Connection, requested: Requested) -> anyhow::Result<()> {
    let host = crate::api::secret::redacted_url(connection.client.base_url().as_str());
    let host = host.trim_end_matches('/').to_string();
    let old = match &args.diff {
        Some(path) => Some((read_old(path)?, kept_format_of(path)?)),
        None => None,
    };
    let (reader, _ctrl_c) = super::reader(&connection, &args.pace, crate::access::read::CONCURRENCY);
    let progress = ProgressLine::new();
    progress.say("reading the organization and its members…");
    let tell = |step: Progress| match step {
        Progress::Keys {
            done,
            total,
            requests,
        } => progress.say(&format!(
            "reading personal keys: {done} of {total} members · {requests} requests"
        )),
        Progress::Projects {
            done,
            total,
            requests,
        } => progress.say(&format!(
            "reading access: {done} of {total} projects · {requests} requests"
        )),
    };
    let now = crate::clock::Clock::system().now();
    let file = match &args.out {
        Some(path) => Some(Target::open(path)?),
        None => None,
    };
    let outcome = match old {
        None => {
            let format = match requested {
                Requested::Json => Kept::Json,
                Requested::Csv => Kept::Csv,
                Requested::Table => Kept::Text,
            };
            let summary = match file {
                Some(mut file) => {
                    let taken = {
                        let mut sink = sink_for(format, &mut file.file);
                        take(
                            &reader,
                            &connection.organization,
                            &host,
                            now,
                            sink.as_mut(),
                            &tell,
                        )
                        .await
                    };
                    let taken = taken.map(|summary| (summary, file.finish()));
                    match taken {
                        Ok((summary, finished)) => {
                            finished?;
                            Ok(summary)
                        }
                        Err(error) => Err(error),
                    }
                }
                None => {
                    let stdout = std::io::stdout();
                    let mut out = std::io::BufWriter::new(stdout.lock());
                    let mut sink = sink_for(format, &mut out);
                    take(
                        &reader,
                        &connection.organization,
                        &host,
                        now,
                        sink.as_mut(),
                        &tell,
                    )
                    .await
                }
            };
            progress.clear();
            let summary = summary.map_err(review_error)?;
            eprintln!(
                "orgdeck: reviewed {} in {}{} with {} requests{}",
                crate::text::counted(summary.members, "member"),
                crate::text::counted(summary.projects, "project"),
                if summary.unknown_projects > 0 {
                    format!(" ({} not readable)", summary.unknown_projects)
                } else {
                    String::new()
                },
                summary.requests,
                args.out
                    .as_ref()
                    .map(|path| format!("; written to {}", path.display()))
                    .unwrap_or_default()
            );
            None
        }
        Some((old, format)) => {
            let since = old.taken_at.clone().unwrap_or_else(|| "an undated review".into());
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            let json = requested == Requested::Json;
            let mut written = 0usize;
            let mut emit = |change: &Change| -> std::io::Result<()> {
                if json {
                    let line = crate::access::review::snapshot::json_line(change)?;
                    write!(out, "{}{line}", if written == 0 { "[\n" } else { ",\n" })?;
                } else {
                    writeln!(out, "{}", change_line(change))?;
                }
                written += 1;
                Ok(())
            };
            let mut differ = Differ::new(old, &mut emit);
            let summary = match file {
                Some(mut file) => {
                    let taken = {
                        let mut sink = sink_for(format, &mut file.file);
                        let mut both = Tee {
                            first: sink.as_mut(),
                            second: &mut differ,
                        };
                        take(&reader, &connection.organization, &host, now, &mut both, &tell).await
                    };
                    match taken {
                        Ok(summary) => file.finish().map(|()| summary).map_err(ReviewError::Write),
                        Err(error) => Err(error),
                    }
                }
                None => take(&reader, &connection.organization, &host, now, &mut differ, &tell).await,
            };
            progress.clear();
            let counts = differ.counts.clone();
            let changes = differ.changes();
            drop(differ);
            summary.map_err(review_error)?;
            if json {
                let closing = if written == 0 { "[]\n" } else { "\n]\n" };
                out.write_all(closing.as_bytes()).map_err(output::output_error)?;
            } else if written == 0 {
                writeln!(out, "No change in access since {since}.").map_err(output::output_error)?;
            }
            out.flush().map_err(output::output_error)?;
            Some((changes, counts, since))
        }
    };
    if let Some((changes, counts, since)) = outcome
        && changes > 0
    {
        let counts: Vec<String> = counts
            .iter()
            .map(|(kind, count)| format!("{count} {kind}"))
            .collect();
        return Err(Exit {
            code: 2,
            message: format!(
                "{} since {since}: {}",
                crate::text::counted(changes, "change"),
                counts.join(", ")
            ),
        }
        .into());
    }
    Ok(())
}

fn review_error(error: ReviewError) -> anyhow::Error {
    match error {
        ReviewError::Read(error) => failed(error),
        ReviewError::Write(error) if error.kind() == std::io::ErrorKind::InvalidData => {
            anyhow::anyhow!("{}", printable(&error.to_string()))
        }
        ReviewError::Write(error) => output::output_error(error),
    }
}

fn sink_for<'a, W: Write + 'a>(format: Kept, out: &'a mut W) -> Box<dyn Sink + 'a> {
    match format {
        Kept::Json => Box::new(JsonSink::new(out)),
        Kept::Csv => Box::new(CsvSink::new(out)),
        Kept::Text => Box::new(TextSink::new(out)),
    }
}

/// The old snapshot, read and indexed; a file that is not one is an error.
fn read_old(path: &Path) -> anyhow::Result<Old> {
    let file = std::fs::File::open(path)
        .map_err(|error| UsageError(format!("--diff {}: {error}", path.display())))?;
    Old::read(BufReader::new(file))
        .map_err(|error| UsageError(format!("--diff {}: {}", path.display(), printable(&error))).into())
}

/// The format a new snapshot is kept in beside an old one: the old one's.
fn kept_format_of(path: &Path) -> anyhow::Result<Kept> {
    let mut first = [0u8; 1];
    let mut file = std::fs::File::open(path)?;
    loop {
        let read = std::io::Read::read(&mut file, &mut first)?;
        if read == 0 || !first[0].is_ascii_whitespace() {
            break;
        }
    }
    Ok(if first[0] == b'{' { Kept::Json } else { Kept::Csv })
}

/// A file written whole or not at all: a private temporary file beside it,
/// renamed over it once complete.
struct Target {
    path: PathBuf,
    file: std::io::BufWriter<tempfile::NamedTempFile>,
}

impl Target {
    fn open(path: &Path) -> anyhow::Result<Target> {
        let dir = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let file = tempfile::NamedTempFile::new_in(&dir)
            .map_err(|error| UsageError(format!("--out {}: {error}", path.display())))?;
        Ok(Target {
            path: path.to_path_buf(),
            file: std::io::BufWriter::new(file),
        })
    }

    fn finish(self) -> std::io::Result<()> {
        let file = self.file.into_inner().map_err(|error| error.into_error())?;
        file.as_file().sync_all()?;
        file.persist(&self.path).map_err(|error| error.error)?;
        Ok(())
    }
}

/// One change, as a line: "gained  ivan@…  Hedgebox Web (1)  project: member · own rule → admin · role Engineering".
fn change_line(change: &Change) -> String {
    let who = if change.email.is_empty() {
        "-"
    } else {
        change.email.as_str()
    };
    let place = change.project.as_deref().unwrap_or("organization");
    let what = if change.project.is_some() {
        resource_name(&change.what)
    } else {
        change.what.clone()
    };
    let detail = match (change.from.is_empty(), change.to.is_empty()) {
        (false, false) => format!("{} → {}", change.from, change.to),
        (true, false) => change.to.clone(),
        (false, true) => change.from.clone(),
        (true, true) => String::new(),
    };
    let kind = match change.change {
        Kind::Gained => "gained ",
        Kind::Lost => "lost   ",
        Kind::Changed => "changed",
        Kind::Joined => "joined ",
        Kind::Left => "left   ",
        Kind::Unknown => "unknown",
    };
    printable(&format!("{kind}  {who}  {place}  {what}: {detail}")).into_owned()
}

/// The review as a readable report: the members, then per project its
/// defaults and each member's level with what differs from the defaults.
/// A project's table is aligned to its widest cells, so its rows are held
/// (as the words printed) until the project ends; `-o json` and `-o csv`
/// hold none.
struct TextSink<'a, W: Write> {
    out: &'a mut W,
    /// The member table's rows (aligned to its widest cells too), then a
    /// project's.
    rows: Vec<Vec<String>>,
}

impl<'a, W: Write> TextSink<'a, W> {
    fn new(out: &'a mut W) -> Self {
        TextSink {
            out,
            rows: Vec::new(),
        }
    }
}

const MEMBER_COLUMNS: [Column; 6] = [
    flexible("EMAIL"),
    flexible("NAME"),
    fixed("LEVEL"),
    flexible("ROLES"),
    fixed("LAST LOGIN"),
    flexible("PERSONAL KEYS"),
];

const ACCESS_COLUMNS: [Column; 4] = [
    flexible("EMAIL"),
    fixed("PROJECT"),
    flexible("SOURCE"),
    flexible("RESOURCES NOT AT THE PROJECT'S DEFAULT"),
];

impl<W: Write> Sink for TextSink<'_, W> {
    fn begin(&mut self, header: &Header, members: usize) -> std::io::Result<()> {
        writeln!(
            self.out,
            "Access review of {} ({})\nhost {} · taken {} · resolution {}\n{} · {}\n",
            printable(&header.organization.name),
            printable(&header.organization.id),
            printable(&header.host),
            header.taken_at.format("%Y-%m-%d %H:%M:%S UTC"),
            header.resolution(),
            crate::text::counted(members, "member"),
            crate::text::counted(header.projects.len(), "project"),
        )?;
        self.rows.clear();
        Ok(())
    }

    fn member(&mut self, member: &MemberRow) -> std::io::Result<()> {
        self.rows.push(vec![
            member.email.clone(),
            member.name.clone(),
            member.level.clone(),
            member.roles.join(", "),
            member
                .last_login
                .as_deref()
                .map(|at| at.get(..10).unwrap_or(at).to_string())
                .unwrap_or_else(|| "never".into()),
            member.personal_keys.clone(),
        ]);
        Ok(())
    }

    fn members_end(&mut self) -> std::io::Result<()> {
        let rows = std::mem::take(&mut self.rows);
        self.out
            .write_all(output::table(&MEMBER_COLUMNS, &rows, output::output_width()).as_bytes())
    }

    fn project(&mut self, project: &ProjectSnapshot) -> std::io::Result<()> {
        writeln!(self.out, "\n{}", printable(&project.label()))?;
        if let Some(unknown) = &project.unknown {
            return writeln!(self.out, "  unknown: {}", printable(unknown));
        }
        for note in &project.notes {
            writeln!(self.out, "  note: {}", printable(note))?;
        }
        let defaults: Vec<String> = project
            .defaults
            .iter()
            .filter(|(_, cell)| cell.source != "built-in default")
            .map(|(resource, cell)| format!("{} {} ({})", resource_name(resource), cell.level, cell.source))
            .collect();
        writeln!(
            self.out,
            "  defaults: {}{}the rest at their built-in default",
            printable(&defaults.join(" · ")),
            if defaults.is_empty() { "" } else { " · " }
        )?;
        self.rows.clear();
        Ok(())
    }

    fn row(&mut self, project: &ProjectSnapshot, row: &AccessRow) -> std::io::Result<()> {
        let words = {
            {
                if let Some(unknown) = &row.unknown {
                    vec![
                        row.email.clone(),
                        "unknown".into(),
                        unknown.clone(),
                        String::new(),
                    ]
                } else {
                    let project_cell = row.cells.get(crate::api::access::levels::PROJECT);
                    let mut differing = Vec::new();
                    let mut all_admin = true;
                    for (resource, cell) in row.cells.iter().filter(|(resource, _)| *resource != "project") {
                        all_admin &= cell.source == "organization admin";
                        if project.defaults.get(resource).map(|default| &default.level) != Some(&cell.level) {
                            differing.push(format!(
                                "{} {} ({})",
                                resource_name(resource),
                                cell.level,
                                cell.source
                            ));
                        }
                    }
                    let differing = if all_admin && !differing.is_empty() {
                        "every resource at its highest (organization admin)".to_string()
                    } else {
                        differing.join(", ")
                    };
                    vec![
                        row.email.clone(),
                        project_cell.map(|cell| cell.level.clone()).unwrap_or_default(),
                        project_cell.map(|cell| cell.source.clone()).unwrap_or_default(),
                        differing,
                    ]
                }
            }
        };
        self.rows.push(words);
        Ok(())
    }

    fn project_end(&mut self, project: &ProjectSnapshot) -> std::io::Result<()> {
        if project.unknown.is_some() {
            return Ok(());
        }
        let rows = std::mem::take(&mut self.rows);
        let table = output::table(&ACCESS_COLUMNS, &rows, output::output_width());
        for line in table.lines() {
            writeln!(self.out, "  {line}")?;
        }
        Ok(())
    }

    fn end(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}
