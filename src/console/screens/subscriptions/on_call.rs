//! What on-call's keys do to a subscription before anything is sent: the
//! subscription they act on (the row under the cursor, the one whose
//! deliveries are shown, or that of the Health row), `t`'s and `p`'s
//! questions, and `u`'s restore (of the row, or the soft delete it may
//! still undo). The shell puts the question, sends the write or has the
//! subscription read first ([`KeyAct`]).

use super::Write;
use super::read::Then as ReadThen;
use crate::api::Subscription;
use crate::console::kit::notice::Notice;
use crate::console::screens::{ScreenId, Screens};

/// What a key on a subscription comes to, for the shell to do.
#[derive(Debug)]
pub enum KeyAct {
    /// Ask first; Enter says no where `enter_says_no`.
    Ask {
        question: String,
        write: Write,
        enter_says_no: bool,
    },
    /// Send at once.
    Send(Write),
    /// Not loaded: read it first, and the key acts once it arrives.
    ReadFirst(i64, ReadThen),
    /// Nothing to do (the notice may say why).
    Nothing,
}

impl Screens {
    /// The subscription `t`, `p`, `e` and `u` act on with `shown` on
    /// screen: the one under the cursor, the one whose deliveries are
    /// shown, or that of the Health row (as Subscriptions has it, or as it
    /// was read for the screen).
    pub fn acted_on(&self, shown: ScreenId) -> Option<&Subscription> {
        if shown == ScreenId::Subscriptions {
            return self.subscriptions.selected();
        }
        let id = self.subscription_of(shown)?;
        self.subscriptions
            .find(id)
            .or_else(|| self.subscriptions.resource.read.last(id))
    }

    /// A key (`p`, `e`, `u`) waited for subscription `id` to be read, and
    /// it was: whether it acts now (the row it was pressed on, elsewhere
    /// than Subscriptions, still stands for it); the "reading" notice goes.
    pub fn resumes(&self, shown: ScreenId, id: i64, notice: &mut Option<Notice>) -> bool {
        if shown == ScreenId::Subscriptions || self.subscription_of(shown) != Some(id) {
            return false;
        }
        if notice
            .as_ref()
            .is_some_and(|notice| notice.text.starts_with("reading #"))
        {
            *notice = None;
        }
        true
    }

    /// `t`: a test delivery, asked about first (it reaches people: Enter
    /// says no).
    pub fn test_delivery(&self, shown: ScreenId, project: &str) -> KeyAct {
        let (id, what) = match (self.acted_on(shown), shown) {
            (Some(subscription), _) => (subscription.id, describe(subscription)),
            (None, ScreenId::Deliveries) => match self.deliveries.subscription() {
                Some(id) => (id, format!("#{id}")),
                None => return KeyAct::Nothing,
            },
            (None, ScreenId::Health) => match self.health.chosen() {
                Some(row) => (row.id, format!("#{} \"{}\"", row.id, row.title)),
                None => return KeyAct::Nothing,
            },
            (None, _) => return KeyAct::Nothing,
        };
        KeyAct::Ask {
            question: format!("Send a test delivery of {what} now? It goes to every recipient."),
            write: Write::TestDelivery {
                project: project.to_string(),
                id,
            },
            enter_says_no: true,
        }
    }

    /// `p`: pause or resume, asked about first.
    pub fn pause(&self, shown: ScreenId, project: &str, notice: &mut Option<Notice>) -> KeyAct {
        let Some(subscription) = self.acted_on(shown) else {
            // Not loaded (a Health row, deliveries opened by :sub): read
            // first, then asked about.
            return match self.subscription_of(shown) {
                Some(id) => KeyAct::ReadFirst(id, ReadThen::Pause),
                None => KeyAct::Nothing,
            };
        };
        if subscription.deleted {
            *notice = Some(Notice::error(format!(
                "#{} is soft-deleted: u restores it first",
                subscription.id
            )));
            return KeyAct::Nothing;
        }
        let write = Write::SetEnabled {
            project: project.to_string(),
            id: subscription.id,
            enabled: !subscription.is_enabled(),
        };
        if !subscription.is_enabled() {
            // A resume delivers at once to every recipient: asked first,
            // and Enter says no, as for a test.
            let question = format!(
                "Resume {}? It is delivered at once to {}, then on its schedule.",
                describe(subscription),
                crate::text::counted(subscription.recipients(), "recipient")
            );
            return KeyAct::Ask {
                question,
                write,
                enter_says_no: true,
            };
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
        KeyAct::Ask {
            question,
            write,
            enter_says_no: !subscription.is_supported(),
        }
    }

    /// `u`: restore the selected soft-deleted subscription, or undo the
    /// last soft delete. On a subscription's deliveries (or a Health row),
    /// `u` is about that subscription alone: restored when it is
    /// soft-deleted.
    pub fn restore(&self, shown: ScreenId, project: &str, notice: &mut Option<Notice>) -> KeyAct {
        let project = project.to_string();
        if matches!(shown, ScreenId::Deliveries | ScreenId::Health) {
            let Some(id) = self.subscription_of(shown) else {
                return KeyAct::Nothing;
            };
            return match self.acted_on(shown).map(|subscription| subscription.deleted) {
                Some(true) => KeyAct::Send(Write::Restore { project, id }),
                Some(false) => {
                    *notice = Some(Notice::done(format!(
                        "#{id} is not soft-deleted: nothing to restore"
                    )));
                    KeyAct::Nothing
                }
                None => KeyAct::ReadFirst(id, ReadThen::Restore),
            };
        }
        let selected = match shown {
            ScreenId::Subscriptions => self.subscriptions.selected(),
            _ => None,
        };
        let id = match selected {
            Some(subscription) if subscription.deleted => Some(subscription.id),
            _ => self.subscriptions.resource.undo.offered(),
        };
        match id {
            Some(id) => KeyAct::Send(Write::Restore { project, id }),
            None => {
                *notice = Some(Notice::done(
                    "nothing to restore: u restores a soft-deleted subscription (D shows them)".into(),
                ));
                KeyAct::Nothing
            }
        }
    }
}

/// `#12 "Weekly revenue"`, for questions (which show it escaped).
fn describe(subscription: &Subscription) -> String {
    super::words::label(subscription)
}
