//! What on-call does to a subscription: a test delivery now (`t`, after
//! asking), pause and resume (`p`), and restore (`u`), as Subscriptions
//! says (`screens/subscriptions/on_call.rs`: the question, the write, or
//! a read first), and the shell's side of the watch
//! either starts (its timers; the watch itself, and how its answers land,
//! are Subscriptions' own: `screens/subscriptions/watch.rs`). Also
//! `--refresh`: the list on screen fetched again at an interval.

use super::{App, Confirm, Effect, Mode, Timer, Write};
use crate::api::{self, Subscription, TriggerType};
use crate::console::screens::subscriptions::on_call::KeyAct;
use crate::console::screens::subscriptions::read::Then as ReadThen;

/// `--refresh SECONDS`: the list on screen fetched again at an interval.
pub struct Refresh {
    /// How often, in seconds; `None` when `--refresh` is off.
    pub every: Option<u32>,
    /// The timer of the next refresh: only the last one set counts.
    pub(super) timers: super::Latest,
    /// When `--refresh` last fetched the list, for the footer.
    pub last: Option<chrono::DateTime<chrono::Utc>>,
}

impl App {
    /// `t`: a test delivery, after asking.
    pub(super) fn test_delivery(&mut self) -> Vec<Effect> {
        let act = self.screens.test_delivery(self.shown(), &self.context.project);
        self.key_act(act)
    }

    /// `p`: pause or resume, after asking.
    pub(super) fn pause(&mut self) -> Vec<Effect> {
        let act = self
            .screens
            .pause(self.shown(), &self.context.project, &mut self.notice.shown);
        self.key_act(act)
    }

    /// What a key on a subscription came to: a question put, a write
    /// sent, or the subscription read first.
    pub(super) fn key_act(&mut self, act: KeyAct) -> Vec<Effect> {
        match act {
            KeyAct::Ask {
                question,
                write,
                enter_says_no,
            } => {
                let write = Write::Subscription(write);
                self.ask(Confirm::write(question, write, enter_says_no))
            }
            KeyAct::Send(write) => self.write(Write::Subscription(write)),
            KeyAct::ReadFirst(id, then) => self.read_then(id, then),
            KeyAct::Nothing => Vec::new(),
        }
    }

    /// A delivery is on its way for a subscription (a test: `expect` is
    /// manual; a resume's confirmation: any trigger): Subscriptions' watch
    /// looks for it, newer than the newest of its deliveries on hand.
    pub(super) fn watch_for_delivery(&mut self, subscription: i64, expect: Option<TriggerType>) -> Effect {
        let before = self.screens.deliveries.newest_of(subscription);
        let ticket = self
            .screens
            .subscriptions
            .watch_for(subscription, expect, before, self.window.now);
        Effect::Timer {
            timer: Timer::Poll(1),
            ticket,
        }
    }

    /// Time for another look for the delivery waited for.
    pub(super) fn look_again(&mut self, ticket: super::Ticket) -> Vec<Effect> {
        let project = &self.context.project;
        let ask = self.screens.subscriptions.look_again(ticket, project);
        ask.map(Effect::from).into_iter().collect()
    }

    /// After a resume or a test: read the subscription again.
    pub(super) fn read_again(&mut self, id: i64, done: &'static str) -> Effect {
        let project = &self.context.project;
        Effect::from(self.screens.subscriptions.read_again(id, done, project))
    }

    /// `p`, `e` or `u` on a subscription the Subscriptions tab has not
    /// loaded (a Health row, deliveries opened by `:sub`), or `:sub ID`:
    /// it is read first, and the key acts once it arrives.
    pub(super) fn read_then(&mut self, id: i64, then: ReadThen) -> Vec<Effect> {
        let (screens, mut ctx) = self.lend();
        vec![Effect::from(screens.subscriptions.read_then(id, then, &mut ctx))]
    }

    /// A key (`p`, `e`, `u`) or `:sub` waited for a subscription to be
    /// read, and it was: `:sub` shows it; a key acts, if the row it was
    /// pressed on still stands for it.
    pub(super) fn resume_read(&mut self, then: ReadThen, subscription: &Subscription) -> Vec<Effect> {
        if then == ReadThen::Open {
            return self.open_jumped(subscription);
        }
        if !self
            .screens
            .resumes(self.shown(), subscription.id, &mut self.notice.shown)
        {
            return Vec::new();
        }
        match then {
            ReadThen::Pause => self.pause(),
            ReadThen::Edit => self.edit_item(),
            ReadThen::Restore => self.restore_item(),
            ReadThen::Open => Vec::new(),
        }
    }

    /// `--refresh`: the list on screen again, the cursor kept on its row,
    /// unless a form or a question is open or the list is still loading;
    /// then the next refresh is set.
    pub(super) fn refresh_due(&mut self, ticket: super::Ticket) -> Vec<Effect> {
        if !self.refresh.timers.is_current(ticket) {
            return Vec::new();
        }
        let mut effects = self.next_refresh();
        let idle = matches!(self.mode, Mode::Normal | Mode::Filter(_));
        let loading = self.screens.shown(self.shown()).is_loading();
        // While the server is away its own tries read the list (`r` too).
        if idle && !loading && self.connection.offline.is_none() {
            if let Some(table) = self.screens.list_mut(self.shown()) {
                table.remember_selected();
            }
            self.refresh.last = Some(self.window.now);
            effects.extend(self.reload(self.shown(), false));
        }
        effects
    }

    /// The timer of the next `--refresh`, when it is on.
    pub(super) fn next_refresh(&mut self) -> Vec<Effect> {
        match self.refresh.every {
            Some(seconds) => vec![Effect::Timer {
                timer: Timer::Refresh(seconds),
                ticket: self.refresh.timers.issue(),
            }],
            None => Vec::new(),
        }
    }

    /// A refused test delivery, pause or resume, in words and with what to
    /// do about it; `None` for other writes.
    pub(super) fn on_call_refusal(write: &Write, error: &api::Error) -> Option<String> {
        match write {
            Write::Subscription(write) => write.refusal(error),
            Write::Role(_) | Write::Member(_) | Write::People(_) | Write::Offboard(_) | Write::Access(_) => {
                None
            }
        }
    }
}
