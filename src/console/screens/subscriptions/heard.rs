//! What the Subscriptions screen hears, routed ([`Table::on_msg`]): its
//! form's lookups land in the form (`asked.rs`), the watch's looks and
//! reads in the watch (`watch.rs`); what only the shell can do comes back
//! as [`Heard`], in the order it is to be done.

use super::list::Subscriptions;
use super::read::Then as ReadThen;
use super::{Ask, Msg};
use crate::api::Subscription;
use crate::console::kit::latest::Ticket;
use crate::console::screens::{Change, Ctx, FormPurpose};
use crate::console::table::Table;
use crate::console::widgets::form::Form;

/// What the shell lends Subscriptions' handler beside the [`Ctx`].
pub struct Lent<'a> {
    /// The form open, if one is (the shell holds it among its overlays).
    pub form: Option<(&'a mut Form, &'a FormPurpose)>,
    /// How many insights the server lets a subscription export, once known.
    pub export_cap: Option<usize>,
    /// The subscription whose deliveries are on screen, if they are.
    pub deliveries_shown: Option<i64>,
}

/// What the shell is to do after Subscriptions heard a message.
#[derive(Debug)]
pub enum Heard {
    /// Ask this of the server.
    Ask(Ask),
    /// Look again for the delivery waited for: the `look`th look's wait,
    /// by this ticket.
    PollAfter { look: u8, ticket: Ticket },
    /// News for every screen; the list shown is viewed again after.
    Changed(Change),
    /// The deliveries on screen hold the delivery that landed: read them
    /// again, the cursor kept on its row.
    RereadDeliveries,
    /// A key (or `:sub`) waited for this subscription to be read: it acts.
    Resume(ReadThen, Box<Subscription>),
}

impl Table<Subscriptions> {
    /// One of this screen's messages (`Screens::wants` dropped those for a
    /// form since closed or a dashboard chosen away).
    pub fn on_msg(&mut self, msg: Msg, ctx: &mut Ctx, lent: Lent) -> Vec<Heard> {
        match msg {
            Msg::Catalog { result, slack, .. } => {
                *ctx.dirty = true;
                let Some(form) = lent.form else {
                    return Vec::new();
                };
                let asks = self.on_catalog(result, slack, form, ctx.scope.project);
                asks.into_iter().map(Heard::Ask).collect()
            }
            Msg::Tiles {
                dashboard, result, ..
            } => {
                *ctx.dirty = true;
                if let Some(form) = lent.form {
                    self.on_tiles(dashboard, result, form, lent.export_cap);
                }
                Vec::new()
            }
            Msg::Channels {
                integration, result, ..
            } => {
                *ctx.dirty = true;
                if let Some(form) = lent.form {
                    self.on_channels(integration, result, form);
                }
                Vec::new()
            }
            Msg::NewestDelivery { subscription, result } => {
                self.on_newest_delivery(subscription, result, ctx, lent.deliveries_shown)
            }
            Msg::Subscription(result) => self.on_subscription_read(result, ctx, lent.deliveries_shown),
        }
    }
}
