//! How a look's news lands in Health's table: a look begins, its rows
//! arrive in batches and take the place of those looked at before, and
//! what it found is said when it ends.

use super::*;
use crate::console::kit::notice::Notice;
use crate::console::screens::health::Ask;
use crate::console::screens::health::msg::{LookFailure, LookNews};
use crate::console::screens::{Change, Ctx};

impl Table<Board> {
    /// Starts a look, unless one is under way (then says so). `max_requests`
    /// `Some(0)` reads the list alone.
    pub fn look(&mut self, ctx: &mut Ctx, max_requests: Option<u64>) -> Option<Ask> {
        if self.is_looking() {
            *ctx.notice = Some(Notice::done("still looking: Esc stops the look".into()));
            return None;
        }
        let (ticket, stop) = self.resource.looks.start();
        self.begin();
        Some(Ask::Look {
            ticket,
            project: ctx.scope.project.to_owned(),
            stop,
            max_requests,
        })
    }

    /// Esc on Health while a look is under way: it stops between
    /// requests, and says so when it has.
    pub fn stop_look(&mut self, ctx: &mut Ctx) -> bool {
        if ctx.shown != ScreenId::Health || !self.is_looking() {
            return false;
        }
        let stopped = self.resource.looks.stop();
        if stopped {
            *ctx.notice = Some(Notice::working("stopping the look…".into()));
        }
        stopped
    }

    /// News of the look under way (`Screens::wants` dropped any of an
    /// earlier look). The list's states are Subscriptions' news, not
    /// Health's: they go out as a [`Change`] for the shell to broadcast.
    pub fn on_look_news(&mut self, news: LookNews, ctx: &mut Ctx) -> Option<Change> {
        match news {
            LookNews::Listing { read, total } => self.listing(read, total),
            LookNews::Listed(coverage) => self.listed(coverage),
            LookNews::Rows(rows) => self.take(rows, ctx.height),
            LookNews::Progress(coverage) => self.progress(coverage),
            LookNews::States(states) => return Some(Change::StatesKnown((*states).into())),
        }
        // The tab bar counts the failing ones from any tab.
        *ctx.dirty = true;
        None
    }

    /// The look under way ended. A server that went away mid-look is the
    /// shell's to hear (offline, tried again): handed back, the look
    /// marked to start again once it answers.
    pub fn on_looked(
        &mut self,
        result: Result<crate::health::LookSummary, LookFailure>,
        ctx: &mut Ctx,
    ) -> Option<crate::api::Unreachable> {
        *ctx.dirty = true;
        self.resource.looks.ended();
        if ctx
            .notice
            .as_ref()
            .is_some_and(|notice| notice.text.starts_with("stopping"))
        {
            *ctx.notice = None;
        }
        let (looked, unreachable) = match result {
            Ok(summary) => {
                if summary.stopped {
                    *ctx.notice = Some(Notice::done(
                        "look stopped: what it learnt is kept; r goes on from there".into(),
                    ));
                }
                if summary.no_history {
                    *ctx.notice = Some(Notice::done(
                        "this server keeps no delivery history: healths are from the subscriptions' fields"
                            .into(),
                    ));
                }
                let unreachable = summary.cut.as_ref().and_then(|cut| cut.unreachable());
                let looked = Looked {
                    at: ctx.now,
                    coverage: summary.coverage,
                    complete: summary.complete(),
                    short_of: summary.short_of(),
                    error: None,
                };
                (looked, unreachable)
            }
            Err(failure) => {
                let looked = Looked {
                    at: ctx.now,
                    coverage: Default::default(),
                    complete: false,
                    short_of: None,
                    error: Some(failure.message),
                };
                (looked, failure.unreachable)
            }
        };
        if unreachable.is_some() {
            self.resource.looks.cut_short();
        }
        self.finish(looked, ctx.height);
        unreachable
    }

    /// A look starts: the rows of the last one stay until their news comes.
    pub fn begin(&mut self) {
        self.resource.looking = Some(Progress::default());
        self.resource.seen.clear();
        self.resource.listed = false;
    }

    /// Pages of the list arriving.
    pub fn listing(&mut self, read: u64, total: u64) {
        if let Some(progress) = self.resource.looking.as_mut() {
            progress.listing = Some((read, total));
        }
    }

    /// The list is read: how much it and the index tell.
    pub fn listed(&mut self, coverage: Coverage) {
        self.resource.listed = true;
        if let Some(progress) = self.resource.looking.as_mut() {
            progress.listing = None;
            progress.coverage = Some(coverage);
        }
    }

    pub fn progress(&mut self, coverage: Coverage) {
        if let Some(progress) = self.resource.looking.as_mut() {
            progress.coverage = Some(coverage);
        }
    }

    /// Rows that arrived, in any order: each takes the place of the one
    /// with its id, and all stay worst first (the arrived ones sorted and
    /// merged in, so a batch costs the length of the list, not a sort of
    /// it); a cursor moved down stays on its row, one at the top stays at
    /// the top (on the worst).
    pub fn take(&mut self, mut arrived: Vec<HealthRow>, height: u64) {
        let selected = self.selected_id_of();
        let ids: HashSet<i64> = arrived.iter().map(|row| row.id).collect();
        self.resource.seen.extend(&ids);
        let mut rows = self.rows.list.take_all();
        rows.retain(|row| !ids.contains(&row.id));
        if !rows.is_sorted_by(|a, b| a.order(b) != Ordering::Greater) {
            rows.sort_by(HealthRow::order);
        }
        arrived.sort_by(HealthRow::order);
        let mut merged = Vec::with_capacity(rows.len() + arrived.len());
        let (mut old, mut new) = (rows.into_iter().peekable(), arrived.into_iter().peekable());
        loop {
            let take_new = match (old.peek(), new.peek()) {
                (Some(a), Some(b)) => b.order(a) == Ordering::Less,
                (None, Some(_)) => true,
                (_, None) => false,
            };
            let next = if take_new { new.next() } else { old.next() };
            match next {
                Some(row) => merged.push(row),
                None => break,
            }
        }
        self.hold(merged, selected, height);
    }

    /// The look ended: a look that read the list drops the rows of
    /// subscriptions it no longer found.
    pub fn finish(&mut self, looked: Looked, height: u64) {
        self.resource.looking = None;
        let selected = self.selected_id_of();
        let mut rows = self.rows.list.take_all();
        if self.resource.listed {
            let seen = &self.resource.seen;
            rows.retain(|row| seen.contains(&row.id));
        }
        self.resource.looked = Some(looked);
        rows.sort_by(HealthRow::order);
        self.hold(rows, selected, height);
    }

    /// Forgets every row (another project or connection): the look under
    /// way stops, and its news, late, is dropped. The looks' tickets
    /// outlive the rows (as People's `Asked` does), so that a look started
    /// after never carries the ticket of one left, whose end may still be
    /// on its way.
    pub fn forget(&mut self) {
        let mut looks = std::mem::take(&mut self.resource.looks);
        looks.forget();
        self.resource = Board {
            looks,
            ..Board::default()
        };
        self.rows.clear();
        self.filter.clear();
        self.marks.clear();
    }

    pub fn is_looking(&self) -> bool {
        self.resource.looking.is_some()
    }

    /// How many are not reaching people (failing, partial, auto-disabled).
    pub fn paging(&self) -> usize {
        self.resource
            .counts
            .iter()
            .filter(|(health, _)| health.pages())
            .map(|(_, count)| count)
            .sum()
    }

    /// What the tab bar says: ✓ only once a complete look found nothing
    /// failing, partial or auto-disabled; else how many are, and how much
    /// is known while that is not everything.
    pub fn verdict(&self) -> Verdict {
        let board = &self.resource;
        let paging = self.paging();
        let Some(coverage) = board.coverage() else {
            return match &board.looked {
                Some(looked) if looked.error.is_some() => Verdict::Failed { count: paging },
                None if paging == 0 => Verdict::Nothing,
                _ => Verdict::Failing {
                    count: paging,
                    percent: Some(0),
                },
            };
        };
        if board.is_complete() {
            if paging == 0 {
                Verdict::Clear
            } else {
                Verdict::Failing {
                    count: paging,
                    percent: None,
                }
            }
        } else {
            Verdict::Failing {
                count: paging,
                percent: Some(coverage.percent()),
            }
        }
    }

    /// The row of a subscription, if the look has sent it.
    pub fn find(&self, id: i64) -> Option<&HealthRow> {
        self.rows
            .list
            .loaded()
            .map(|(_, row)| row)
            .find(|row| row.id == id)
    }

    fn selected_id_of(&self) -> Option<i64> {
        if self.rows.cursor == 0 {
            return None;
        }
        self.selected().map(|row| row.id)
    }

    /// Holds rows already worst first.
    fn hold(&mut self, rows: Vec<HealthRow>, selected: Option<i64>, height: u64) {
        self.resource.counts = tally(&rows);
        self.rows.list.hold_all(rows);
        // The filter's view is of the rows before: made again.
        self.rows.view = None;
        Table::apply_view(self, height);
        if let Some(id) = selected {
            self.rows.select_id(&id.to_string(), Board::id, height);
        }
    }
}
