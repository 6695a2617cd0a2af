//! The results of a bulk run, one line a row: done, failed (with the
//! server's words: status, code, detail), left as it was, or still on its
//! way. Failures come first, so that a long run's few failures are seen
//! without scrolling.

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph};

use super::popup::{WIDTH, centered, clear, wrap};
use crate::console::kit::theme::Theme;
use crate::text::printable;

/// How one row went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Not answered yet.
    Waiting,
    /// Done: what was done ("paused").
    Done(String),
    /// Refused or failed: the error as the client tells it.
    Failed(String),
    /// Left as it was, and why.
    Skipped(String),
}

/// A row of the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub id: String,
    pub label: String,
    pub outcome: Outcome,
}

/// A bulk run's results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// "Pause 20 subscriptions".
    pub title: String,
    pub entries: Vec<Entry>,
    pub scroll: u16,
}

/// How many rows went each way.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub done: usize,
    pub failed: usize,
    pub skipped: usize,
    pub waiting: usize,
}

impl Report {
    pub fn counts(&self) -> Counts {
        let mut counts = Counts::default();
        for entry in &self.entries {
            match entry.outcome {
                Outcome::Waiting => counts.waiting += 1,
                Outcome::Done(_) => counts.done += 1,
                Outcome::Failed(_) => counts.failed += 1,
                Outcome::Skipped(_) => counts.skipped += 1,
            }
        }
        counts
    }

    /// Records how a row went.
    pub fn set(&mut self, id: &str, outcome: Outcome) {
        if let Some(entry) = self.entries.iter_mut().find(|entry| entry.id == id) {
            entry.outcome = outcome;
        }
    }

    /// The ids of the rows that went this way.
    pub fn ids(&self, went: impl Fn(&Outcome) -> bool) -> Vec<String> {
        self.entries
            .iter()
            .filter(|entry| went(&entry.outcome))
            .map(|entry| entry.id.clone())
            .collect()
    }

    /// "19 done · 1 failed · 4 on their way".
    pub fn summary(&self) -> String {
        let counts = self.counts();
        let mut parts = vec![format!("{} done", counts.done)];
        if counts.failed > 0 {
            parts.push(format!("{} failed", counts.failed));
        }
        if counts.skipped > 0 {
            parts.push(format!("{} left as they were", counts.skipped));
        }
        if counts.waiting > 0 {
            parts.push(format!("{} on their way", counts.waiting));
        }
        parts.join(" · ")
    }

    /// A key on the results: `true` when it closes them. ↑/↓ and the page
    /// keys scroll, up to `last`.
    pub fn key(&mut self, key: KeyEvent, last: u16) -> bool {
        let scroll = &mut self.scroll;
        match key.code {
            KeyCode::Char('j') | KeyCode::Down => *scroll = scroll.saturating_add(1),
            KeyCode::Char('k') | KeyCode::Up => *scroll = scroll.saturating_sub(1),
            KeyCode::PageDown => *scroll = scroll.saturating_add(10),
            KeyCode::PageUp => *scroll = scroll.saturating_sub(10),
            KeyCode::Char('g') | KeyCode::Home => *scroll = 0,
            KeyCode::Char('G') | KeyCode::End => *scroll = last,
            KeyCode::Esc | KeyCode::Enter | KeyCode::Char('q') => return true,
            _ => {}
        }
        self.scroll = self.scroll.min(last);
        false
    }
}

/// The lines of the results, wrapped to `width`: failures first, then the
/// rest in the order they were marked.
pub fn lines(report: &Report, theme: &Theme, width: usize) -> Vec<Line<'static>> {
    let inner = width.saturating_sub(4).max(10);
    let mut lines = Vec::new();
    let failed = report
        .entries
        .iter()
        .filter(|entry| matches!(entry.outcome, Outcome::Failed(_)));
    let others = report
        .entries
        .iter()
        .filter(|entry| !matches!(entry.outcome, Outcome::Failed(_)));
    for entry in failed.chain(others) {
        let label = printable(&entry.label).into_owned();
        let (mark, style, text) = match &entry.outcome {
            Outcome::Failed(error) => ("✗", theme.error, format!("{label}: failed: {}", printable(error))),
            Outcome::Done(done) => ("✓", theme.ok, format!("{label}: {done}")),
            Outcome::Skipped(why) => ("–", theme.dim, format!("{label}: left as it was: {why}")),
            Outcome::Waiting => ("…", theme.dim, format!("{label}: on its way")),
        };
        for (at, part) in wrap(&text, inner).into_iter().enumerate() {
            let lead = if at == 0 {
                format!(" {mark} ")
            } else {
                "   ".into()
            };
            lines.push(Line::from(vec![Span::styled(lead, style), Span::raw(part)]));
        }
    }
    lines
}

/// Where the results are drawn on a screen.
fn area(screen: Rect, lines: usize) -> Rect {
    let height = u16::try_from(lines + 2)
        .unwrap_or(u16::MAX)
        .min(screen.height.saturating_sub(2).max(3));
    centered(screen, screen.width.min(WIDTH as u16 + 4), height)
}

/// How far the results scroll on a screen of this size.
pub fn scroll_limit(report: &Report, screen: Rect) -> u16 {
    let width = usize::from(screen.width.min(WIDTH as u16 + 4).saturating_sub(2));
    let count = lines(report, &Theme::plain(), width).len();
    let shown = usize::from(area(screen, count).height.saturating_sub(2));
    u16::try_from(count.saturating_sub(shown)).unwrap_or(u16::MAX)
}

pub fn draw(frame: &mut Frame, report: &Report, theme: &Theme) {
    let screen = frame.area();
    let width = usize::from(screen.width.min(WIDTH as u16 + 4).saturating_sub(2));
    let lines = lines(report, theme, width);
    let area = area(screen, lines.len());
    clear(frame, area);
    let counts = report.counts();
    let hint = if counts.waiting > 0 {
        " a few at a time · Esc hides this, the run goes on "
    } else {
        " ↑/↓ PgUp/PgDn scroll · Esc or Enter closes "
    };
    let border = if counts.failed > 0 {
        theme.error
    } else {
        theme.accent
    };
    let title = format!(" {}: {} ", printable(&report.title), report.summary());
    frame.render_widget(
        Paragraph::new(lines).scroll((report.scroll, 0)).block(
            Block::bordered()
                .border_type(BorderType::Rounded)
                .border_style(border)
                .title(title)
                .title_bottom(Line::styled(hint, theme.dim)),
        ),
        area,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> Report {
        let entry = |id: &str, outcome| Entry {
            id: id.into(),
            label: format!("#{id}"),
            outcome,
        };
        Report {
            title: "Pause 3 subscriptions".into(),
            entries: vec![
                entry("1", Outcome::Done("paused".into())),
                entry("2", Outcome::Failed("403 permission_denied: no\u{1b}[2J".into())),
                entry("3", Outcome::Waiting),
                entry("4", Outcome::Skipped("already paused".into())),
            ],
            scroll: 0,
        }
    }

    #[test]
    fn failures_come_first_escaped_and_are_counted() {
        let report = report();
        assert_eq!(
            report.summary(),
            "1 done · 1 failed · 1 left as they were · 1 on their way"
        );
        let text: Vec<String> = lines(&report, &Theme::plain(), 80)
            .iter()
            .map(|line| line.spans.iter().map(|span| span.content.to_string()).collect())
            .collect();
        assert!(
            text[0].starts_with(" ✗ #2: failed: 403 permission_denied: no"),
            "{text:?}"
        );
        assert!(!text[0].contains('\u{1b}'));
        assert_eq!(text[1], " ✓ #1: paused");
        assert_eq!(report.ids(|outcome| matches!(outcome, Outcome::Failed(_))), ["2"]);
    }

    #[test]
    fn keys_scroll_within_bounds_and_close() {
        let mut report = report();
        let key = |code| KeyEvent::new(code, ratatui::crossterm::event::KeyModifiers::NONE);
        assert!(!report.key(key(KeyCode::Down), 2));
        assert!(!report.key(key(KeyCode::PageDown), 2));
        assert_eq!(report.scroll, 2);
        assert!(report.key(key(KeyCode::Esc), 2));
    }
}
