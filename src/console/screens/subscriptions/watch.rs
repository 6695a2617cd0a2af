//! The watch after a test delivery or a resume: the delivery the console
//! waits to see land (its newest delivery asked for a few times, further
//! apart each time; "latest wins" for those looks), and the subscription
//! read again to learn whether the server paused it, and why; and how
//! those answers land (the notice saying how the delivery went, the
//! deliveries on screen read again, a pause by the server told with why).

use chrono::{DateTime, Utc};

use super::Ask;
use super::list::Subscriptions;
use crate::api::{self, Delivery, DeliveryStatus, Subscription, TriggerType};
use crate::console::kit::latest::{Latest, Ticket};
use crate::console::kit::notice::Notice;
use crate::console::screens::heard::{Heard, Step};
use crate::console::screens::{Change, Ctx, ScreenId};
use crate::console::table::Table;

/// What is watched for now.
#[derive(Debug, Default)]
pub struct Watch {
    /// The delivery waited for, if any.
    pub poll: Option<Poll>,
    /// The looks' tickets: only the latest look's timer is taken.
    pub polls: Latest,
    /// The subscription read again, if any.
    pub recheck: Option<Recheck>,
}

/// A delivery the console waits to see land.
#[derive(Debug, Clone, PartialEq)]
pub struct Poll {
    pub subscription: i64,
    /// The trigger of the delivery waited for (manual, for a test).
    pub expect: Option<TriggerType>,
    /// The newest delivery shown when it was asked for, if any.
    pub before: Option<String>,
    /// No delivery recorded before this is the one waited for (a few
    /// minutes before it was asked for, for clocks that disagree).
    pub since: chrono::DateTime<chrono::Utc>,
    /// How many looks have been taken.
    pub looks: u8,
}

/// A subscription read again after a resume or a test.
#[derive(Debug, Clone, PartialEq)]
pub struct Recheck {
    pub id: i64,
    /// What was done: "resumed", "tested".
    pub done: &'static str,
    /// The read showed it paused; its newest delivery is to say why.
    pub paused_again: bool,
    /// Why, from the delivery that landed, once one has.
    pub why: Option<String>,
}

/// How many times the deliveries are looked at after a test or a resume:
/// 1, 2, 3, 4 and then 5 s apart, 40 s in all.
const LOOKS: u8 = 10;

impl Table<Subscriptions> {
    /// A delivery is on its way for a subscription (a test: `expect` is
    /// manual; a resume's confirmation: any trigger): look for it. `before`:
    /// the newest of its deliveries on screen, if they are. The ticket of
    /// the first look's timer.
    pub fn watch_for(
        &mut self,
        subscription: i64,
        expect: Option<TriggerType>,
        before: Option<String>,
        now: DateTime<Utc>,
    ) -> Ticket {
        let watch = &mut self.resource.watch;
        watch.poll = Some(Poll {
            subscription,
            expect,
            before,
            since: now - chrono::Duration::minutes(5),
            looks: 0,
        });
        watch.polls.issue()
    }

    /// Time for another look: the subscription's newest delivery is asked
    /// for, on its own (whatever the deliveries list shows or filters).
    pub fn look_again(&mut self, ticket: Ticket, project: &str) -> Option<Ask> {
        let watch = &mut self.resource.watch;
        if !watch.polls.is_current(ticket) {
            return None;
        }
        let poll = watch.poll.as_mut()?;
        poll.looks += 1;
        Some(Ask::NewestDelivery {
            project: project.to_owned(),
            subscription: poll.subscription,
        })
    }

    /// After a resume or a test: read the subscription again.
    pub fn read_again(&mut self, id: i64, done: &'static str, project: &str) -> Ask {
        self.resource.watch.recheck = Some(Recheck {
            id,
            done,
            paused_again: false,
            why: None,
        });
        Ask::Subscription {
            project: project.to_owned(),
            id,
        }
    }

    /// The newest delivery, looked at: once the one waited for has landed
    /// (recorded since it was asked for, of the trigger expected, no longer
    /// starting) the console says how it went, shows it in the deliveries
    /// if they are on screen (`deliveries_shown`: the subscription whose
    /// deliveries are), and reads the subscription again (a failure may
    /// have paused it); else it looks again, [`LOOKS`] times at most, and
    /// says so when it gives up.
    pub fn on_newest_delivery(
        &mut self,
        subscription: i64,
        result: Result<Option<Box<Delivery>>, api::Error>,
        ctx: &mut Ctx,
        deliveries_shown: Option<i64>,
    ) -> Heard {
        let watch = &mut self.resource.watch;
        // The read showed it paused again: its newest delivery says why.
        if let Some(recheck) = watch
            .recheck
            .clone()
            .filter(|r| r.id == subscription && r.paused_again)
            && let Ok(Some(newest)) = &result
        {
            *ctx.dirty = true;
            watch.poll = None;
            self.paused_again(&recheck, Some(why_paused(newest)), ctx, deliveries_shown);
            return Heard::default();
        }
        let Some(poll) = watch
            .poll
            .clone()
            .filter(|poll| poll.subscription == subscription)
        else {
            return Heard::default();
        };
        *ctx.dirty = true;
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
            let shown = deliveries_shown == Some(subscription);
            *ctx.notice = Some(landed_notice(subscription, &delivery, shown));
            if let Some(recheck) = watch.recheck.as_mut().filter(|r| r.id == subscription)
                && (delivery.has_failed() || delivery.recipient_counts().any_short())
            {
                recheck.why = Some(why_paused(&delivery));
            }
            watch.poll = None;
            let mut heard = Heard::ask(Ask::Subscription {
                project: ctx.scope.project.to_owned(),
                id: subscription,
            });
            if shown {
                heard.push(Step::Reread(ScreenId::Deliveries));
            }
            return heard;
        }
        if poll.looks >= LOOKS {
            watch.poll = None;
            watch.recheck = None;
            *ctx.notice = Some(Notice::done(format!(
                "no new delivery of #{subscription} has landed yet: r on its deliveries looks again"
            )));
            return Heard::default();
        }
        Heard::step(Step::PollAfter {
            look: poll.looks + 1,
            ticket: watch.polls.issue(),
        })
    }

    /// A subscription read: its row changes in place (the news goes out
    /// first, to every screen); after a resume or a test, a pause by the
    /// server is told, with why (its newest delivery is asked for when the
    /// one that paused it has not been seen); a key that waited for it
    /// (`p`, `e`, `u`, `:sub`) is handed back to act. A failure to read
    /// changes nothing, but is told to a key that waited for it.
    pub fn on_subscription_read(
        &mut self,
        result: Result<Box<Subscription>, api::Error>,
        ctx: &mut Ctx,
        deliveries_shown: Option<i64>,
    ) -> Heard {
        let subscription = match result {
            Ok(subscription) => subscription,
            Err(error) => {
                if let Some(id) = self.resource.read.failed() {
                    *ctx.notice = Some(Notice::error(format!("cannot read #{id}: {error}")));
                    *ctx.dirty = true;
                }
                return Heard::default();
            }
        };
        *ctx.dirty = true;
        let id = subscription.id;
        let enabled = subscription.is_enabled();
        let mut heard = Heard::step(Step::Changed(Change::SubscriptionChanged(subscription.clone())));
        if let Some(recheck) = self
            .resource
            .watch
            .recheck
            .clone()
            .filter(|recheck| recheck.id == id)
        {
            // Still enabled: PostHog may pause it once the delivery on its
            // way fails, so it is read again when that lands (the watch).
            let watch = &mut self.resource.watch;
            let watched = watch.poll.as_ref().is_some_and(|poll| poll.subscription == id);
            if enabled {
                if !watched {
                    watch.recheck = None;
                }
            } else if recheck.why.is_some() {
                self.paused_again(&recheck, recheck.why.clone(), ctx, deliveries_shown);
            } else {
                watch.recheck = Some(Recheck {
                    paused_again: true,
                    ..recheck.clone()
                });
                *ctx.notice = Some(Notice::working(format!(
                    "{} #{id}, but the server paused it again: reading why…",
                    recheck.done
                )));
                heard.push(Step::Ask(
                    Ask::NewestDelivery {
                        project: ctx.scope.project.to_owned(),
                        subscription: id,
                    }
                    .into(),
                ));
            }
        }
        if let Some(then) = self.resource.read.arrived(subscription.clone()) {
            heard.push(Step::Resume(then, subscription));
        }
        heard
    }

    /// Tells that the server paused a subscription after a resume or a test.
    fn paused_again(
        &mut self,
        recheck: &Recheck,
        why: Option<String>,
        ctx: &mut Ctx,
        deliveries_shown: Option<i64>,
    ) {
        self.resource.watch.recheck = None;
        let why = why.unwrap_or_else(|| {
            if deliveries_shown == Some(recheck.id) {
                "no delivery says why yet: r reads its deliveries again".into()
            } else {
                format!("no delivery says why: :sub {} shows its deliveries", recheck.id)
            }
        });
        *ctx.notice = Some(Notice::error(format!(
            "{} #{}, but the server paused it again: {why}",
            recheck.done, recheck.id
        )));
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
