//! The Health view (`H`, `:health`): every subscription of the project
//! in one word, worst first, from a look across the project
//! (`crate::health`, the same as `subs health`). Its rows are never
//! fetched by page: a look sends them as it learns them, and they are held
//! whole in memory (at most the project's subscriptions), sorted with
//! [`HealthRow::order`] as they arrive; a row looked at again takes the
//! place of the one before. The heading counts each health; the line
//! under the table shows the look's progress, then when it looked.

use std::cmp::Ordering;
use std::collections::HashSet;

use chrono::{DateTime, Utc};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::api::health::Health;
use crate::console::kit::cell::{contains, styled, text};
use crate::console::kit::column::{Column, Sort};
use crate::console::kit::detail::{field, heading, marked};
use crate::console::kit::scope::Scope;
use crate::console::kit::theme::Theme;
use crate::console::kit::view::ViewCx;
use crate::console::screens::Screen;
use crate::console::screens::deliveries::words::who_and_why;
use crate::console::screens::list::Resource;
use crate::console::screens::subscriptions::words::channel;
use crate::console::screens::{Held, ScreenId};
use crate::console::table::Table;
use crate::console::table::hooks::Hooks;
use crate::console::table::listing::Listing;
use crate::display::relative;
use crate::health::{Coverage, HealthRow, tally};
use crate::text::thousands;

/// Cells of the progress bar.
const BAR: usize = 20;

/// A look under way: how far it has come.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    /// Pages of the list arriving: rows read, rows in all.
    pub listing: Option<(u64, u64)>,
    /// Once the list is read: how much is known, and what is left.
    pub coverage: Option<Coverage>,
}

/// How the last look ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Looked {
    pub at: DateTime<Utc>,
    /// How far it came (all zero when it failed before listing).
    pub coverage: Coverage,
    /// Every subscription's health is known.
    pub complete: bool,
    /// Why not, when it is not: "stopped before the end", "the server
    /// stopped answering (…)".
    pub short_of: Option<String>,
    /// Why it failed before it could list anything.
    pub error: Option<String>,
}

/// What the tab bar says of Health.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// No look yet.
    Nothing,
    /// A complete look found nothing failing, partial or auto-disabled: ✓.
    Clear,
    /// So many not reaching people; with the percent known when the look
    /// is not complete ("4 failing · 3 %").
    Failing { count: usize, percent: Option<u64> },
    /// The last look failed: what the rows before it say is not a look's.
    Failed { count: usize },
}

#[derive(Debug, Default)]
pub struct Board {
    /// The look under way, if any.
    pub looking: Option<Progress>,
    /// The last look that ended.
    pub looked: Option<Looked>,
    /// How many rows of each health, worst first (the pending left out).
    counts: Vec<(Health, usize)>,
    /// The ids the look under way has sent: at its end, rows it did not
    /// send (subscriptions gone since) are dropped.
    seen: HashSet<i64>,
    /// The look under way has read the list.
    listed: bool,
    /// Its looks: the latest one's ticket, its stop, and whether one cut
    /// short starts again.
    pub looks: crate::console::screens::health::Looks,
}

impl Board {
    /// How much is known now: from the look under way once it has read
    /// the list, else from the last look.
    pub fn coverage(&self) -> Option<Coverage> {
        match &self.looking {
            Some(Progress {
                coverage: Some(coverage),
                ..
            }) => Some(*coverage),
            _ => self
                .looked
                .as_ref()
                .filter(|looked| looked.error.is_none() || looked.coverage.total > 0)
                .map(|looked| looked.coverage),
        }
    }

    /// Whether every subscription's health is known: a complete look
    /// ended, or the look under way has nothing left to read.
    pub fn is_complete(&self) -> bool {
        match &self.looking {
            Some(progress) => progress.coverage.is_some_and(|coverage| coverage.is_complete()),
            None => self.looked.as_ref().is_some_and(|looked| looked.complete),
        }
    }
}

/// Narrow tables keep the mark of a row new since the previous look (a
/// column only while a row has it), the health, the id, the title and the
/// fix; then since when, who it fails for, and the streak.
const COLUMNS: [Column; 8] = [
    Column::content(""),
    Column::content("HEALTH"),
    Column::content("SINCE").drops(2),
    Column::content("STREAK").drops(6),
    Column::content("ID"),
    Column::fill("TITLE", 3, 20),
    Column::fill("FAILED FOR", 2, 24).drops(3),
    Column::fill("FIX", 3, 24).drops(1),
];

const SORTS: [Sort; 1] = [Sort {
    label: "worst first",
    column: None,
    descending: false,
    ordering: None,
}];

/// The colour of a health: not reaching people in the error colour, in
/// need of someone in the warning colour.
pub fn style(health: Health, theme: &Theme) -> Style {
    match health {
        Health::Failing | Health::Partial | Health::AutoDisabled => theme.error,
        Health::Overdue | Health::Unsupported => theme.warning,
        Health::Ok => theme.ok,
        Health::Paused | Health::Ended | Health::Unknown | Health::New => theme.dim,
    }
}

/// "3 failing · 1 partial · 112 ok": each health the rows have, worst first.
pub fn counted(counts: &[(Health, usize)]) -> String {
    counts
        .iter()
        .map(|(health, count)| format!("{count} {}", health.as_str()))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// The first recipient it fails for, and how many more.
fn first_failed(row: &HealthRow) -> String {
    let more = match row.failed_recipients.len() {
        0 | 1 => String::new(),
        many => format!(" (+{} more)", many - 1),
    };
    row.failed_recipients
        .first()
        .map(|failed| {
            let who = who_and_why(recipient(row, &failed.recipient), &failed.error);
            format!("{who}{more}")
        })
        .unwrap_or_default()
}

/// The next delivery, or why none is to come: a paused one (by a person
/// or by the server) promises none.
fn next(row: &HealthRow, at: impl Fn(Option<DateTime<Utc>>) -> String) -> String {
    match row.health {
        Health::Paused | Health::AutoDisabled => "none while paused (p resumes it)".into(),
        Health::Unsupported => "none: its channel is no longer supported".into(),
        Health::Ended => "none left".into(),
        _ => at(row.next_delivery_date),
    }
}

/// Whether the row's target is a Slack channel.
fn to_slack(row: &HealthRow) -> bool {
    row.target.starts_with("slack ")
}

/// A recipient as people name it: a Slack channel by its name.
fn recipient<'a>(row: &HealthRow, recipient: &'a str) -> &'a str {
    if to_slack(row) {
        channel(recipient)
    } else {
        recipient
    }
}

/// The target as people name it: "Slack #ops", "email a@b.co".
fn target(row: &HealthRow) -> String {
    match row.target.strip_prefix("slack ") {
        Some(value) => format!("Slack {}", channel(value)),
        None => row.target.clone(),
    }
}

impl Listing for Board {
    type Row = HealthRow;
    const NOUN: &'static str = "subscription";

    fn columns(&self) -> &'static [Column] {
        &COLUMNS
    }

    fn cells(&self, row: &HealthRow, view: &ViewCx) -> Vec<Span<'static>> {
        let theme = view.theme;
        let now = view.now;
        vec![
            if row.newly {
                styled("new", theme.accent)
            } else {
                text("")
            },
            styled(row.health.as_str(), style(row.health, theme)),
            text(row.since.map(|at| relative(at, now)).unwrap_or_default()),
            text(match row.streak {
                0 => String::new(),
                streak => streak.to_string(),
            }),
            text(row.id.to_string()),
            text(row.title.clone()),
            styled(first_failed(row), theme.error),
            text(row.fix.clone().unwrap_or_default()),
        ]
    }

    fn detail(&self, row: &HealthRow, view: &ViewCx) -> (String, Vec<Line<'static>>) {
        let theme = view.theme;
        let now = view.now;
        let at = |value: Option<DateTime<Utc>>| match value {
            Some(at) => format!(
                "{} {} · {}",
                view.when(Some(at)),
                view.zone_label(),
                relative(at, now)
            ),
            None => "-".into(),
        };
        let mut health = row.health.as_str().to_string();
        if row.newly {
            health.push_str(" (new since the previous look)");
        }
        let mut lines = vec![
            marked("health", health, style(row.health, theme), theme),
            field("since", at(row.since), theme),
            field("streak", row.streak.to_string(), theme),
            field("target", target(row), theme),
            field("last delivery", at(row.last_delivery), theme),
            field("next delivery", next(row, at), theme),
        ];
        if let Some(fix) = &row.fix {
            lines.push(marked("fix", fix.clone(), theme.warning, theme));
        }
        if !row.failed_recipients.is_empty() {
            lines.push(heading(
                &format!("failed for {}", row.failed_recipients.len()),
                theme,
            ));
            for failed in &row.failed_recipients {
                lines.push(Line::styled(
                    crate::text::printable(&format!(
                        "   ✗ {}  {}",
                        recipient(row, &failed.recipient),
                        failed.error
                    ))
                    .into_owned(),
                    theme.error,
                ));
            }
        }
        lines.push(Line::styled(
            "   Enter: its deliveries · t test · p pause/resume · e edit",
            theme.dim,
        ));
        (format!("#{} {}", row.id, row.title), lines)
    }

    fn id(row: &HealthRow) -> String {
        row.id.to_string()
    }

    fn matches(row: &HealthRow, needle: &str) -> bool {
        contains(&row.title, needle)
            || contains(row.health.as_str(), needle)
            || contains(&row.target, needle)
            || contains(&row.id.to_string(), needle)
            || row
                .failed_recipients
                .iter()
                .any(|failed| contains(&failed.recipient, needle) || contains(&failed.error, needle))
    }

    fn sorts(&self) -> &'static [Sort] {
        &SORTS
    }

    fn compare(a: &HealthRow, b: &HealthRow, _sort: &Sort) -> Ordering {
        a.order(b)
    }
}

impl Screen for Board {
    const ID: ScreenId = ScreenId::Health;
    const TITLE: &'static str = "Health";
    const TAB: ScreenId = ScreenId::Health;
    const WRITE_SCOPE: &'static str = "subscription:write";
    const COMMANDS: &'static [(&'static str, &'static str)] =
        &[("health", "the health of every subscription, worst first (a look)")];
}

impl Hooks for Board {
    type Pager = crate::console::table::pager::Whole;
    const MARKS: bool = true;
}

impl Resource for Board {
    type Request = Held<HealthRow>;

    fn heading(&self) -> String {
        let mut heading = Self::TITLE.to_string();
        if !self.counts.is_empty() {
            heading.push_str(&format!(" · {}", counted(&self.counts)));
        }
        if let Some(coverage) = self.coverage().filter(|_| !self.is_complete()) {
            heading.push_str(&format!(" · {}", coverage.looked_at()));
        }
        heading
    }

    /// Nothing to fetch by page: a look sends the rows.
    fn query(&self, _scope: Scope) -> Option<Held<HealthRow>> {
        None
    }

    fn empty(&self) -> &'static str {
        match (&self.looking, &self.looked) {
            (Some(progress), _) if progress.coverage.is_none() => "listing the subscriptions…",
            (Some(_), _) => "looking…",
            (None, Some(looked)) if looked.error.is_some() => "the look failed: r looks again",
            (None, Some(_)) => "no subscriptions in this project",
            (None, None) => "no look yet: r looks",
        }
    }

    fn shows_relative_times(&self) -> bool {
        true
    }

    fn status(&self, view: &ViewCx) -> Option<Line<'static>> {
        let theme = view.theme;
        let now = view.now;
        if let Some(progress) = &self.looking {
            let Some(coverage) = progress.coverage else {
                let text = match progress.listing {
                    Some((read, total)) => format!(
                        " listing the subscriptions: {} of {} · Esc stops ",
                        thousands(read),
                        thousands(total)
                    ),
                    None => " listing the subscriptions… Esc stops ".into(),
                };
                return Some(Line::styled(text, theme.dim));
            };
            let filled = match coverage.total {
                0 => BAR,
                total => (coverage.known.min(total) as usize * BAR) / total as usize,
            };
            return Some(Line::from(vec![
                Span::raw(" "),
                Span::styled("█".repeat(filled), theme.accent),
                Span::styled("░".repeat(BAR - filled), theme.dim),
                Span::raw(format!(
                    " {} of {} known · {} · Esc stops ",
                    thousands(coverage.known),
                    thousands(coverage.total),
                    coverage.estimate()
                )),
            ]));
        }
        let looked = self.looked.as_ref()?;
        if let Some(error) = &looked.error {
            return Some(Line::styled(
                crate::text::printable(&format!(
                    " the look failed {}: {error} · r looks again ",
                    relative(looked.at, now)
                ))
                .into_owned(),
                theme.error,
            ));
        }
        let coverage = looked.coverage;
        let counts = format!(
            "{} · {} requests",
            coverage.looked_at(),
            thousands(coverage.requests)
        );
        match &looked.short_of {
            Some(why) => {
                let text = format!(
                    " looked {}, {why}: r goes on · {counts} ",
                    relative(looked.at, now)
                );
                Some(Line::styled(
                    crate::text::printable(&text).into_owned(),
                    theme.warning,
                ))
            }
            None => Some(Line::styled(
                format!(" looked {} · {counts} · r looks again ", relative(looked.at, now)),
                theme.dim,
            )),
        }
    }
}

#[path = "board_look.rs"]
mod look;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_read_worst_first() {
        let counts = [(Health::Failing, 3), (Health::Partial, 1), (Health::Ok, 112)];
        assert_eq!(counted(&counts), "3 failing · 1 partial · 112 ok");
    }
}
