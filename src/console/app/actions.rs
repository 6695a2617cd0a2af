//! What on-call does to a subscription: a test delivery now (`t`, after
//! asking), pause and resume (`p`), and watching for the delivery either
//! starts: the subscription's newest delivery is asked for a few times,
//! further apart each time, until the new one has landed, then no more.
//! After a resume or a test the subscription is read again: when the
//! server has paused it (a delivery through a revoked Slack integration
//! does), the console says so and why. Also `--refresh`: the list on
//! screen fetched again at an interval.

use super::{App, Confirm, Effect, Mode, Notice, ScreenId, Timer, Write};
use crate::api::{self, Delivery, DeliveryStatus, Subscription, TriggerType};
use crate::console::screens::Change;
use crate::console::screens::subscriptions::Ask as SubscriptionsAsk;
use crate::console::screens::subscriptions::Write as SubscriptionWrite;
use crate::console::screens::subscriptions::read::Then as ReadThen;

/// How many times the deliveries are looked at after a test or a resume:
/// 1, 2, 3, 4 and then 5 s apart, 40 s in all.
const LOOKS: u8 = 10;

pub use crate::console::screens::subscriptions::watch::{Poll, Recheck};

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
    /// manual; a resume's confirmation: any trigger): look for it.
    pub(super) fn watch_for_delivery(&mut self, subscription: i64, expect: Option<TriggerType>) -> Effect {
        let before = match self.screens.deliveries.subscription() {
            Some(shown) if shown == subscription => self.screens.deliveries.newest().map(|d| d.id.clone()),
            _ => None,
        };
        self.screens.subscriptions.resource.watch.poll = Some(Poll {
            subscription,
            expect,
            before,
            since: self.now - chrono::Duration::minutes(5),
            looks: 0,
        });
        Effect::Timer {
            timer: Timer::Poll(1),
            ticket: self.screens.subscriptions.resource.watch.polls.issue(),
        }
    }

    /// Time for another look: the subscription's newest delivery is asked
    /// for, on its own (whatever the deliveries list shows or filters).
    pub(super) fn look_again(&mut self, ticket: super::Ticket) -> Vec<Effect> {
        if !self.screens.subscriptions.resource.watch.polls.is_current(ticket) {
            return Vec::new();
        }
        let Some(poll) = self.screens.subscriptions.resource.watch.poll.as_mut() else {
            return Vec::new();
        };
        poll.looks += 1;
        vec![Effect::from(SubscriptionsAsk::NewestDelivery {
            project: self.context.project.clone(),
            subscription: poll.subscription,
        })]
    }

    /// The newest delivery, looked at: once the one waited for has landed
    /// (recorded since it was asked for, of the trigger expected, no longer
    /// starting) the console says how it went, shows it in the deliveries
    /// if they are on screen, and reads the subscription again (a failure
    /// may have paused it); else it looks again, [`LOOKS`] times at most,
    /// and says so when it gives up.
    pub(super) fn newest_delivery(
        &mut self,
        subscription: i64,
        result: Result<Option<Box<Delivery>>, api::Error>,
    ) -> Vec<Effect> {
        // The read showed it paused again: its newest delivery says why.
        if let Some(recheck) = self
            .screens
            .subscriptions
            .resource
            .watch
            .recheck
            .clone()
            .filter(|r| r.id == subscription && r.paused_again)
            && let Ok(Some(newest)) = &result
        {
            self.dirty = true;
            self.screens.subscriptions.resource.watch.poll = None;
            self.paused_again(&recheck, Some(why_paused(newest)));
            return Vec::new();
        }
        let Some(poll) = self
            .screens
            .subscriptions
            .resource
            .watch
            .poll
            .clone()
            .filter(|poll| poll.subscription == subscription)
        else {
            return Vec::new();
        };
        self.dirty = true;
        let landed = result.ok().flatten().filter(|newest| {
            Some(&newest.id) != poll.before.as_ref()
                && newest
                    .created_at
                    .or(newest.scheduled_at)
                    .is_some_and(|at| at >= poll.since)
                && poll
                    .expect
                    .as_ref()
                    .is_none_or(|expect| newest.trigger_type.as_ref() == Some(expect))
                && newest.status != Some(DeliveryStatus::Starting)
        });
        if let Some(delivery) = landed {
            let shown = self.shown() == ScreenId::Deliveries
                && self.screens.deliveries.subscription() == Some(subscription);
            self.notice = Some(landed_notice(subscription, &delivery, shown));
            if let Some(recheck) = self
                .screens
                .subscriptions
                .resource
                .watch
                .recheck
                .as_mut()
                .filter(|r| r.id == subscription)
                && (delivery.has_failed() || delivery.recipient_counts().any_short())
            {
                recheck.why = Some(why_paused(&delivery));
            }
            self.screens.subscriptions.resource.watch.poll = None;
            let mut effects = vec![Effect::from(SubscriptionsAsk::Subscription {
                project: self.context.project.clone(),
                id: subscription,
            })];
            if self.shown() == ScreenId::Deliveries
                && self.screens.deliveries.subscription() == Some(subscription)
            {
                self.screens.get_mut(ScreenId::Deliveries).remember_selected();
                effects.extend(self.reload(ScreenId::Deliveries, false));
            }
            return effects;
        }
        if poll.looks >= LOOKS {
            self.screens.subscriptions.resource.watch.poll = None;
            self.screens.subscriptions.resource.watch.recheck = None;
            self.notice = Some(Notice::done(format!(
                "no new delivery of #{subscription} has landed yet: r on its deliveries looks again"
            )));
            return Vec::new();
        }
        vec![Effect::Timer {
            timer: Timer::Poll(poll.looks + 1),
            ticket: self.screens.subscriptions.resource.watch.polls.issue(),
        }]
    }

    /// After a resume or a test: read the subscription again.
    pub(super) fn read_again(&mut self, id: i64, done: &'static str) -> Effect {
        self.screens.subscriptions.resource.watch.recheck = Some(Recheck {
            id,
            done,
            paused_again: false,
            why: None,
        });
        Effect::from(SubscriptionsAsk::Subscription {
            project: self.context.project.clone(),
            id,
        })
    }

    /// A subscription read: its row changes in place; a Health row's `p`
    /// or `e` waiting for it acts; after a resume or a test, a pause by the
    /// server is told, with why (its newest delivery is asked for when the
    /// one that paused it has not been seen). A failure to read changes
    /// nothing, but is told to a key that waited for it.
    pub(super) fn subscription_read(&mut self, result: Result<Box<Subscription>, api::Error>) -> Vec<Effect> {
        let subscription = match result {
            Ok(subscription) => subscription,
            Err(error) => {
                if let Some(id) = self.screens.subscriptions.resource.read.failed() {
                    self.notice = Some(Notice::error(format!("cannot read #{id}: {error}")));
                    self.dirty = true;
                }
                return Vec::new();
            }
        };
        self.dirty = true;
        let id = subscription.id;
        let enabled = subscription.is_enabled();
        self.announce(Change::SubscriptionChanged(subscription.clone()));
        self.apply_view();
        let mut effects = Vec::new();
        if let Some(recheck) = self
            .screens
            .subscriptions
            .resource
            .watch
            .recheck
            .clone()
            .filter(|recheck| recheck.id == id)
        {
            // Still enabled: PostHog may pause it once the delivery on its
            // way fails, so it is read again when that lands (the watch).
            let watched = self
                .screens
                .subscriptions
                .resource
                .watch
                .poll
                .as_ref()
                .is_some_and(|poll| poll.subscription == id);
            if enabled {
                if !watched {
                    self.screens.subscriptions.resource.watch.recheck = None;
                }
            } else if recheck.why.is_some() {
                self.paused_again(&recheck, recheck.why.clone());
            } else {
                self.screens.subscriptions.resource.watch.recheck = Some(Recheck {
                    paused_again: true,
                    ..recheck.clone()
                });
                self.notice = Some(Notice::working(format!(
                    "{} #{id}, but the server paused it again: reading why…",
                    recheck.done
                )));
                effects.push(Effect::from(SubscriptionsAsk::NewestDelivery {
                    project: self.context.project.clone(),
                    subscription: id,
                }));
            }
        }
        let waiting = self
            .screens
            .subscriptions
            .resource
            .read
            .arrived(subscription.clone());
        if waiting == Some(ReadThen::Open) {
            effects.extend(self.open_jumped(&subscription));
            return effects;
        }
        if let Some(then) = waiting
            && self.shown() != ScreenId::Subscriptions
            && self.acted_on_id() == Some(id)
        {
            if self
                .notice
                .as_ref()
                .is_some_and(|notice| notice.text.starts_with("reading #"))
            {
                self.notice = None;
            }
            effects.extend(match then {
                ReadThen::Pause => self.pause(),
                ReadThen::Edit => self.edit_item(),
                ReadThen::Restore => self.restore_item(),
                ReadThen::Open => Vec::new(),
            });
        }
        effects
    }

    /// Tells that the server paused a subscription after a resume or a test.
    fn paused_again(&mut self, recheck: &Recheck, why: Option<String>) {
        self.screens.subscriptions.resource.watch.recheck = None;
        let why = why.unwrap_or_else(|| {
            if self.shown() == ScreenId::Deliveries
                && self.screens.deliveries.subscription() == Some(recheck.id)
            {
                "no delivery says why yet: r reads its deliveries again".into()
            } else {
                format!("no delivery says why: :sub {} shows its deliveries", recheck.id)
            }
        });
        self.notice = Some(Notice::error(format!(
            "{} #{}, but the server paused it again: {why}",
            recheck.done, recheck.id
        )));
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

/// How the delivery that was waited for went; `shown`: its subscription's
/// deliveries are on screen, where Enter on it shows each recipient.
fn landed_notice(subscription: i64, delivery: &Delivery, shown: bool) -> Notice {
    let counts = delivery.recipient_counts();
    let status = delivery.status.as_ref().map_or("-", |status| status.as_str());
    if delivery.has_failed() || counts.any_short() {
        let more = if shown {
            "Enter on it shows each recipient".to_string()
        } else {
            format!(":sub {subscription} shows its deliveries")
        };
        Notice::error(format!(
            "the delivery of #{subscription} landed: {status}, {} delivered, {}{} failed: {} ({more})",
            counts.ok,
            match counts.partial {
                0 => String::new(),
                partial => format!("{partial} partial, "),
            },
            counts.failed,
            delivery
                .error_text()
                .unwrap_or_else(|| "no error recorded".into())
        ))
    } else {
        Notice::done(format!(
            "the delivery of #{subscription} landed: {status}, {} delivered",
            counts.ok
        ))
    }
}

/// Why a delivery failed, as the fix for it: "Slack integration revoked:
/// e edits the target (another integration), or reconnect Slack in PostHog".
fn why_paused(delivery: &Delivery) -> String {
    crate::api::health::fix_for(delivery, delivery.target_type.as_ref())
}

/// `#12 "Weekly revenue"`, for questions (which show it escaped).
fn describe(subscription: &Subscription) -> String {
    crate::console::lists::subscriptions::label(subscription)
}
