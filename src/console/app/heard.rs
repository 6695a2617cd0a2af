//! What a screen hears, routed: `Msg::Screen` carries one screen's own
//! message ([`ScreenMsg`], one variant a screen), and each screen's arm
//! hands it to where that screen's handling lives until it moves into its
//! folder. An answer for a form, picker or look since closed or replaced
//! is dropped here by its ticket.

use super::{App, Effect};
use crate::console::screens::{ScreenMsg, health, members, offboard, people, person, subscriptions};

impl App {
    /// One screen's message.
    pub(super) fn screen_msg(&mut self, msg: ScreenMsg) -> Vec<Effect> {
        match msg {
            ScreenMsg::Members(msg) => self.members_heard(msg),
            ScreenMsg::Subscriptions(msg) => self.subscriptions_heard(msg),
            ScreenMsg::People(msg) => self.people_msg(msg),
            ScreenMsg::Person(person::Msg::Profile { ticket, result }) => {
                self.profile_arrived(ticket, result)
            }
            ScreenMsg::Offboard(offboard::Msg::OffboardStep { ticket, at, step }) => {
                self.offboard_step(ticket, at, *step);
                Vec::new()
            }
            ScreenMsg::Health(health::Msg::LookNews { ticket, news }) => self.look_news(ticket, news),
            ScreenMsg::Health(health::Msg::Looked { ticket, result }) => self.looked(ticket, result),
        }
    }

    fn members_heard(&mut self, msg: members::Msg) -> Vec<Effect> {
        match msg {
            members::Msg::People {
                ticket,
                people,
                in_role,
            } => {
                if !self.screens.members.resource.people_asked.is_current(ticket) {
                    return Vec::new(); // for a picker closed since
                }
                self.people(people, in_role)
            }
            members::Msg::RoleFound { name, found } => self.role_found(name, found),
        }
    }

    fn subscriptions_heard(&mut self, msg: subscriptions::Msg) -> Vec<Effect> {
        match msg {
            subscriptions::Msg::Catalog {
                ticket,
                result,
                slack,
            } => {
                if !self
                    .screens
                    .subscriptions
                    .resource
                    .asked
                    .catalog
                    .is_current(ticket)
                {
                    return Vec::new(); // for a form closed since
                }
                self.catalog(result, slack)
            }
            subscriptions::Msg::Tiles {
                ticket,
                dashboard,
                result,
            } => {
                if !self.screens.subscriptions.resource.asked.tiles.is_current(ticket) {
                    return Vec::new(); // for a form closed, or a dashboard changed, since
                }
                self.tiles_arrived(dashboard, result)
            }
            subscriptions::Msg::Channels {
                ticket,
                integration,
                result,
            } => {
                if !self
                    .screens
                    .subscriptions
                    .resource
                    .asked
                    .channels
                    .is_current(ticket)
                {
                    return Vec::new();
                }
                self.channels_arrived(integration, result)
            }
            subscriptions::Msg::NewestDelivery { subscription, result } => {
                self.newest_delivery(subscription, result)
            }
            subscriptions::Msg::Subscription(result) => self.subscription_read(result),
        }
    }

    fn people_msg(&mut self, msg: people::Msg) -> Vec<Effect> {
        match msg {
            people::Msg::RoleIndexProgress { ticket, done, total } => {
                self.role_index_progress(ticket, done, total);
                Vec::new()
            }
            people::Msg::RoleIndex { ticket, result } => self.role_index_arrived(ticket, result),
            people::Msg::PeopleNews { ticket, news } => {
                self.people_news(ticket, news);
                Vec::new()
            }
            people::Msg::PeopleNarrowed { ticket, result } => {
                self.people_narrowed(ticket, result);
                Vec::new()
            }
        }
    }
}
