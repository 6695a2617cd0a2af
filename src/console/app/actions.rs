//! What on-call does to a subscription: a test delivery now (`t`, after
//! asking), pause and resume (`p`), and the shell's side of the watch
//! either starts (its timers; the watch itself, and how its answers land,
//! are Subscriptions' own: `screens/subscriptions/watch.rs`). Also
//! `--refresh`: the list on screen fetched again at an interval.

use super::{App, Confirm, Effect, Mode, Notice, ScreenId, Timer, Write};
use crate::api::{self, Subscription, TriggerType};
use crate::console::screens::subscriptions::Write as SubscriptionWrite;
use crate::console::screens::subscriptions::read::Then as ReadThen;

impl App {
    /// The subscription `t`, `p`, `e` and `u` act on: the one under the
    /// cursor, the one whose deliveries are shown, or that of the Health
    /// row (as Subscriptions has it, or as it was read for the screen).
    pub(super) fn acted_on(&self) -> Option<&Subscription> {
        if self.shown() == ScreenId::Subscriptions {
            return self.screens.subscriptions.selected();
        }
        let id = self.acted_on_id()?;
        self.screens
            .subscriptions
            .find(id)
            .or_else(|| self.screens.subscriptions.resource.read.last(id))
    }

    /// The id of the subscription a key acts on, loaded or not: on
    /// Subscriptions, the row's; on its deliveries, theirs; on Health, the
    /// row's.
    pub(super) fn acted_on_id(&self) -> Option<i64> {
        match self.shown() {
            ScreenId::Subscriptions => self.screens.subscriptions.selected().map(|row| row.id),
            ScreenId::Deliveries => self.screens.deliveries.subscription(),
            ScreenId::Health => self.screens.health.chosen().map(|row| row.id),
            ScreenId::Roles
            | ScreenId::Members
            | ScreenId::People
            | ScreenId::Person
            | ScreenId::Offboard => None,
        }
    }

    /// `t`: a test delivery, after asking.
    pub(super) fn test_delivery(&mut self) -> Vec<Effect> {
        let (id, what) = match (self.acted_on(), self.shown()) {
            (Some(subscription), _) => (subscription.id, describe(subscription)),
            (None, ScreenId::Deliveries) => match self.screens.deliveries.subscription() {
                Some(id) => (id, format!("#{id}")),
                None => return Vec::new(),
            },
            (None, ScreenId::Health) => match self.screens.health.chosen() {
                Some(row) => (row.id, format!("#{} \"{}\"", row.id, row.title)),
                None => return Vec::new(),
            },
            (None, _) => return Vec::new(),
        };
        let question = format!("Send a test delivery of {what} now? It goes to every recipient.");
        let write = Write::Subscription(SubscriptionWrite::TestDelivery {
            project: self.context.project.clone(),
            id,
        });
        // It reaches people: Enter says no.
        self.mode = Mode::Confirm(Confirm::write(question, write, true));
        Vec::new()
    }

    /// `p`: pause or resume, after asking.
    pub(super) fn pause(&mut self) -> Vec<Effect> {
        let Some(subscription) = self.acted_on() else {
            // Not loaded (a Health row, deliveries opened by :sub): read
            // first, then asked about.
            return match self.acted_on_id() {
                Some(id) => self.read_then(id, ReadThen::Pause),
                None => Vec::new(),
            };
        };
        if subscription.deleted {
            self.notice = Some(Notice::error(format!(
                "#{} is soft-deleted: u restores it first",
                subscription.id
            )));
            return Vec::new();
        }
        let write = Write::Subscription(SubscriptionWrite::SetEnabled {
            project: self.context.project.clone(),
            id: subscription.id,
            enabled: !subscription.is_enabled(),
        });
        if !subscription.is_enabled() {
            // A resume delivers at once to every recipient: asked first,
            // and Enter says no, as for a test.
            let question = format!(
                "Resume {}? It is delivered at once to {}, then on its schedule.",
                describe(subscription),
                crate::text::counted(subscription.recipients(), "recipient")
            );
            self.mode = Mode::Confirm(Confirm::write(question, write, true));
            return Vec::new();
        }
        // One to a channel no longer supported can never be resumed: said
        // first, and only y pauses it.
        let question = match subscription.pause_warning() {
            Some(warning) => format!("{warning}.\nPause {} for good?", describe(subscription)),
            None => format!(
                "Pause {}? Nothing is delivered until p resumes it.",
                describe(subscription)
            ),
        };
        // Pausing for good is not harmless: then Enter says no.
        let for_good = !subscription.is_supported();
        self.mode = Mode::Confirm(Confirm::write(question, write, for_good));
        Vec::new()
    }

    /// A delivery is on its way for a subscription (a test: `expect` is
    /// manual; a resume's confirmation: any trigger): Subscriptions' watch
    /// looks for it, newer than the newest of its deliveries on hand.
    pub(super) fn watch_for_delivery(&mut self, subscription: i64, expect: Option<TriggerType>) -> Effect {
        let before = self.screens.deliveries.newest_of(subscription);
        let ticket = self
            .screens
            .subscriptions
            .watch_for(subscription, expect, before, self.now);
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
        if self.shown() == ScreenId::Subscriptions || self.acted_on_id() != Some(subscription.id) {
            return Vec::new();
        }
        if self
            .notice
            .as_ref()
            .is_some_and(|notice| notice.text.starts_with("reading #"))
        {
            self.notice = None;
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
        if !self.refreshes.is_current(ticket) {
            return Vec::new();
        }
        let mut effects = self.next_refresh();
        let idle = matches!(self.mode, Mode::Normal | Mode::Filter(_));
        let table = self.screens.get_mut(self.shown());
        // While the server is away its own tries read the list (`r` too).
        if idle && !table.is_loading() && self.offline.is_none() {
            table.remember_selected();
            self.last_refresh = Some(self.now);
            effects.extend(self.reload(self.shown(), false));
        }
        effects
    }

    /// The timer of the next `--refresh`, when it is on.
    pub(super) fn next_refresh(&mut self) -> Vec<Effect> {
        match self.refresh_every {
            Some(seconds) => vec![Effect::Timer {
                timer: Timer::Refresh(seconds),
                ticket: self.refreshes.issue(),
            }],
            None => Vec::new(),
        }
    }

    /// A refused test delivery, pause or resume, in words and with what to
    /// do about it; `None` for other writes.
    pub(super) fn on_call_refusal(write: &Write, error: &api::Error) -> Option<String> {
        match write {
            Write::Subscription(write) => write.refusal(error),
            Write::Role(_) | Write::Member(_) | Write::People(_) | Write::Offboard(_) => None,
        }
    }
}

/// `#12 "Weekly revenue"`, for questions (which show it escaped).
fn describe(subscription: &Subscription) -> String {
    crate::console::lists::subscriptions::label(subscription)
}
