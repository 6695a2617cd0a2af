//! What the Subscriptions screen hears, routed ([`Table::on_msg`]): its
//! form's lookups land in the form (`asked.rs`), the watch's looks and
//! reads in the watch (`watch.rs`); what only the shell can do comes back
//! as every screen's [`Heard`], in the order it is to be done.

use super::Msg;
use super::list::Subscriptions;
use crate::console::screens::heard::{Heard, Step};
use crate::console::screens::{Ctx, FormPurpose};
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

impl Table<Subscriptions> {
    /// One of this screen's messages (`Screens::wants` dropped those for a
    /// form since closed or a dashboard chosen away).
    pub fn on_msg(&mut self, msg: Msg, ctx: &mut Ctx, lent: Lent) -> Heard {
        match msg {
            Msg::Catalog { result, slack, .. } => {
                *ctx.dirty = true;
                let Some(form) = lent.form else {
                    return Heard::default();
                };
                let asks = self.on_catalog(result, slack, form, ctx.scope.project);
                Heard(asks.into_iter().map(|ask| Step::Ask(ask.into())).collect())
            }
            Msg::Tiles {
                dashboard, result, ..
            } => {
                *ctx.dirty = true;
                if let Some(form) = lent.form {
                    self.on_tiles(dashboard, result, form, lent.export_cap);
                }
                Heard::default()
            }
            Msg::Channels {
                integration, result, ..
            } => {
                *ctx.dirty = true;
                if let Some(form) = lent.form {
                    self.on_channels(integration, result, form);
                }
                Heard::default()
            }
            Msg::NewestDelivery { subscription, result } => {
                self.on_newest_delivery(subscription, result, ctx, lent.deliveries_shown)
            }
            Msg::Subscription(result) => self.on_subscription_read(result, ctx, lent.deliveries_shown),
        }
    }
}
