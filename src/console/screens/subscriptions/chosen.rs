//! The subscription Deliveries is opened for: the one under the cursor
//! (Enter, `:deliveries`: [`Screens::subscription_deliveries`]), or the
//! one `:sub ID` read. The shell names no subscription's fields.

use super::list::Subscriptions;
use crate::api::Subscription;
use crate::console::kit::notice::Notice;
use crate::console::screens::deliveries::list::ChosenSubscription;
use crate::console::screens::heard::{Heard, Step};
use crate::console::screens::{ScreenId, Screens};
use crate::console::table::Table;

impl Screens {
    /// Enter or `:deliveries` on Subscriptions: the deliveries of the
    /// subscription under the cursor.
    pub fn subscription_deliveries(&mut self) -> Heard {
        let Some(chosen) = self.subscriptions.chosen() else {
            return Heard::step(Step::Say(Notice::error(
                "no subscription under the cursor: the list is empty".into(),
            )));
        };
        self.deliveries.open(chosen);
        Heard::step(Step::Open(ScreenId::Deliveries))
    }
}

impl Table<Subscriptions> {
    /// The subscription under the cursor, for Deliveries.
    pub fn chosen(&self) -> Option<ChosenSubscription> {
        self.selected().map(|subscription| ChosenSubscription {
            id: subscription.id,
            title: subscription.title.clone().unwrap_or_default(),
        })
    }
}

/// `:sub ID`'s subscription, as read, for Deliveries: named by its title,
/// else by what it delivers.
pub fn jumped_to(subscription: &Subscription) -> ChosenSubscription {
    let title = subscription
        .title
        .clone()
        .filter(|title| !title.trim().is_empty())
        .or_else(|| subscription.resource_name.clone())
        .unwrap_or_default();
    ChosenSubscription {
        id: subscription.id,
        title,
    }
}
