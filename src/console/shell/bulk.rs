//! Marks and bulk actions, for any list that takes marks: Space marks the
//! row under the cursor, `*` every row the filter shows, Esc clears them
//! (before its usual meaning). With rows marked, `d`, `p` and `t` act on
//! every one of them after one question naming the count: the writes go
//! [`IN_FLIGHT`] at a time, each row's result is listed as it comes, the
//! tables change in place, and at the end the rows that failed stay marked
//! while the others are unmarked.

use std::collections::VecDeque;

use ratatui::crossterm::event::KeyEvent;

use super::{App, Effect, Mode, Notice, ScreenId, Ticket, Write, Written};
use crate::api;
use crate::console::screens::bulk::{Bulk, IN_FLIGHT, Item, Verb};
use crate::console::table::marking::MarkAll;
use crate::console::widgets::results::{self, Entry, Outcome, Report};

/// A bulk run under way.
#[derive(Debug)]
pub struct BulkRun {
    /// The list whose marked rows it acts on.
    list: ScreenId,
    /// Writes not sent yet.
    queue: VecDeque<Item>,
    /// Writes on their way, at most [`IN_FLIGHT`].
    flying: Vec<(Ticket, Item)>,
    /// What the run changes of who reaches what (the project, `None`
    /// every one), told once it ends; `None`: it moves no access.
    moves_access: Option<Option<i64>>,
}

impl App {
    /// Space: marks the row under the cursor (or unmarks it), then moves
    /// down, so that a run of rows is marked key after key.
    pub(super) fn toggle_mark(&mut self) -> Vec<Effect> {
        let Some(table) = self.screens.list_mut(self.shown()) else {
            return Vec::new();
        };
        match table.toggle_mark() {
            Ok(_) => self.move_by(1),
            Err(why) => {
                self.notice.shown = Some(Notice::error(why));
                Vec::new()
            }
        }
    }

    /// `*`: every row the filter shows; rows not loaded yet are fetched,
    /// and marked as they come.
    pub(super) fn mark_all(&mut self) -> Vec<Effect> {
        let list = self.shown();
        let Some(table) = self.screens.list_mut(list) else {
            return Vec::new();
        };
        match table.mark_all() {
            MarkAll::Marked(text) => {
                self.notice.shown = Some(Notice::done(text));
                Vec::new()
            }
            MarkAll::Refused(why) => {
                self.notice.shown = Some(Notice::error(why));
                Vec::new()
            }
            MarkAll::Fetching(offsets) => {
                self.notice.shown = Some(Notice::working(
                    "loading every row the filter shows, to mark them…".into(),
                ));
                self.fetch_offsets(list, offsets)
            }
        }
    }

    /// Esc with rows marked clears them (and does nothing else).
    pub(super) fn clear_marks(&mut self) -> bool {
        let cleared = self.screens.shown_mut(self.shown()).clear_marks();
        if cleared > 0 {
            self.notice.shown = Some(Notice::done(format!("cleared {cleared} marks")));
        }
        cleared > 0
    }

    /// `d`, `p` or `t` with rows marked on the list shown: the question
    /// before the bulk action. `None` where the key acts on the row under
    /// the cursor instead (nothing marked, or no such bulk action).
    pub(super) fn bulk_key(&mut self, verb: Verb) -> Option<Vec<Effect>> {
        let planned = self.screens.bulk(self.shown(), verb, self.scope())?;
        match planned {
            Ok(bulk) => Some(self.ask_bulk(bulk)),
            Err(why) => {
                self.notice.shown = Some(Notice::error(why));
                Some(Vec::new())
            }
        }
    }

    /// Asks the one question before a bulk action, unless another change
    /// is on its way. A bulk action that needs a choice first (which roles
    /// to add marked people to, say) is handed here once it is made.
    pub(super) fn ask_bulk(&mut self, bulk: Bulk) -> Vec<Effect> {
        if self.bulk.run.is_some() {
            self.notice.shown = Some(Notice::error(
                "a bulk action is still on its way: :bulk shows how far it is".into(),
            ));
            return Vec::new();
        }
        if self.busy() {
            return Vec::new();
        }
        // A run that moves access is previewed first, as one change.
        self.ask(bulk.confirm())
    }

    /// Yes to a bulk question: the results open, and the first writes go.
    pub(super) fn run_bulk(&mut self, bulk: Bulk) -> Vec<Effect> {
        let moves_access = bulk.access_change().map(|proposed| proposed.project);
        // Its preview, checked once the run ends.
        self.screens.preview.bulk = self.screens.preview.ready.take();
        let Bulk {
            title,
            items,
            skipped,
            ..
        } = bulk;
        let mut entries: Vec<Entry> = items
            .iter()
            .map(|item| Entry {
                id: item.id.clone(),
                label: item.label.clone(),
                outcome: Outcome::Waiting,
            })
            .collect();
        entries.extend(skipped.into_iter().map(|row| Entry {
            id: row.id,
            label: row.label,
            outcome: Outcome::Skipped(row.why),
        }));
        self.bulk.report = Some(Report {
            title,
            entries,
            scroll: 0,
        });
        self.mode = Mode::Results;
        self.bulk.run = Some(BulkRun {
            list: self.shown(),
            queue: items.into(),
            flying: Vec::new(),
            moves_access,
        });
        self.send_bulk()
    }

    /// Sends writes of the run while fewer than [`IN_FLIGHT`] are on their
    /// way; ends the run when none is left.
    fn send_bulk(&mut self) -> Vec<Effect> {
        let mut effects = Vec::new();
        loop {
            let Some(run) = self.bulk.run.as_mut() else {
                return effects;
            };
            if run.flying.len() >= IN_FLIGHT {
                return effects;
            }
            let Some(item) = run.queue.pop_front() else {
                break;
            };
            let ticket = self.writes.tickets.issue();
            self.writes.sending += 1;
            effects.push(Effect::Write {
                ticket,
                write: item.write.clone(),
            });
            run.flying.push((ticket, item));
        }
        if self.bulk.run.as_ref().is_some_and(|run| run.flying.is_empty()) {
            effects.extend(self.finish_bulk());
        }
        effects
    }

    /// Whether a write's answer is one of the bulk run's.
    pub(super) fn owns_bulk(&self, ticket: Ticket) -> bool {
        self.bulk
            .run
            .as_ref()
            .is_some_and(|run| run.flying.iter().any(|(flying, _)| *flying == ticket))
    }

    /// A write of the run answered: its row's result, its table changed in
    /// place, and the next write.
    pub(super) fn bulk_written(
        &mut self,
        ticket: Ticket,
        result: Result<Written, api::Error>,
    ) -> Vec<Effect> {
        self.writes.sending = self.writes.sending.saturating_sub(1);
        self.window.dirty = true;
        let Some(run) = self.bulk.run.as_mut() else {
            return Vec::new();
        };
        let Some(at) = run.flying.iter().position(|(flying, _)| *flying == ticket) else {
            return Vec::new();
        };
        let (_, item) = run.flying.remove(at);
        // What the screens ask on hearing a row's news.
        let mut news = Vec::new();
        let outcome = match result {
            // A write of several requests (people added to a role) fails
            // where any of them did.
            Ok(Written::Assigned(results)) if results.iter().any(|(_, result)| result.is_err()) => {
                let failed: Vec<String> = results
                    .iter()
                    .filter_map(|(who, result)| result.as_ref().err().map(|why| format!("{who}: {why}")))
                    .collect();
                news = self.apply_bulk(&item.write, Written::Assigned(results));
                Outcome::Failed(failed.join("; "))
            }
            Ok(written) => {
                news = self.apply_bulk(&item.write, written);
                Outcome::Done(item.done.to_string())
            }
            Err(error) => {
                self.learn_from(&error);
                Outcome::Failed(error.to_string())
            }
        };
        if let Some(report) = self.bulk.report.as_mut() {
            report.set(&item.id, outcome);
        }
        news.extend(self.send_bulk());
        news
    }

    /// What one row's success does to the screens: the news its write
    /// gives, as a single write's does (without its notices, undo or watch).
    fn apply_bulk(&mut self, write: &Write, written: Written) -> Vec<Effect> {
        let mut effects = Vec::new();
        for change in write.changes(&written) {
            effects.extend(self.announce(change));
        }
        effects
    }

    /// The run is over: the rows done (or left as they were) are unmarked,
    /// the failed stay marked, and the notice sums it up.
    fn finish_bulk(&mut self) -> Vec<Effect> {
        let Some(run) = self.bulk.run.take() else {
            return Vec::new();
        };
        let Some(report) = self.bulk.report.as_ref() else {
            return Vec::new();
        };
        let settled = report.ids(|outcome| !matches!(outcome, Outcome::Failed(_)));
        let counts = report.counts();
        let (failed, done) = (counts.failed, counts.done);
        let mut text = format!("{}: {}", report.title, report.summary());
        if failed > 0 {
            text.push_str("; the failed stay marked (:bulk lists why)");
        }
        // The preview was of the whole batch: with rows failed, the
        // server's levels cannot match it, so it is not checked.
        let mut previewed = self.screens.preview.bulk.take();
        if failed > 0 && previewed.take().is_some() {
            text.push_str(&format!(" · the preview not checked: {failed} failed"));
        }
        if run.list == ScreenId::Health {
            text.push_str(" · r looks again");
        }
        if let Some(table) = self.screens.list_mut(run.list) {
            table.unmark(&settled);
        }
        // With the results open, they tell it all; closed, a failure stays
        // on screen until dismissed.
        self.notice.shown = Some(match (failed, &self.mode) {
            (0, _) | (_, Mode::Results) => Notice::done(text),
            _ => Notice::error(text),
        });
        self.apply_view();
        let mut effects = self.fetch_visible();
        // Access moved only if a row went through.
        if let (Some(project), true) = (run.moves_access, done > 0) {
            effects.extend(self.after_access_change(project, previewed));
        }
        effects
    }

    /// Keys on the results: scrolling, and Esc, Enter or q to close them.
    pub(super) fn results_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let screen = ratatui::layout::Rect::new(0, 0, self.window.size.0, self.window.size.1);
        let Some(report) = self.bulk.report.as_mut() else {
            self.mode = Mode::Normal;
            return Vec::new();
        };
        let last = results::scroll_limit(report, screen);
        if report.key(key, last) {
            self.mode = Mode::Normal;
        }
        Vec::new()
    }

    /// `:bulk`: the last bulk action's results again.
    pub(super) fn show_results(&mut self) -> Vec<Effect> {
        match &self.bulk.report {
            Some(_) => self.mode = Mode::Results,
            None => {
                self.notice.shown = Some(Notice::error(
                    "no bulk action yet: mark rows (Space, *), then d, p or t".into(),
                ))
            }
        }
        Vec::new()
    }
}
