//! What a screen hears, routed: `Msg::Screen` carries one screen's own
//! message ([`ScreenMsg`], one variant a screen), and each screen's arm
//! hands it to that screen's handling in its folder, lent a `Ctx` by
//! `lend` (Members and Subscriptions lent too the picker or form open);
//! Members, Subscriptions, People and a person's page return what the
//! shell does next, one `Heard`, followed by `follow.rs`. An answer for a
//! form, picker or look since closed or replaced is dropped first, by the
//! ticket its screen holds (`Screens::wants`).

use super::{App, Effect, Mode, ScreenId};
use crate::console::kit::scope::Scope;
use crate::console::screens::{Ctx, ScreenMsg, Screens, health, members, subscriptions};

impl App {
    /// The screens, and what a screen's handler is lent of the shell
    /// beside them.
    pub(super) fn lend(&mut self) -> (&mut Screens, Ctx<'_>) {
        let height = self.table_height();
        let shown = self.shown();
        let ctx = Ctx {
            notice: &mut self.notice.shown,
            dirty: &mut self.window.dirty,
            now: self.window.now,
            height,
            shown,
            scope: Scope {
                organization: &self.context.organization,
                project: &self.context.project,
            },
            zone: self.context.zone,
        };
        (&mut self.screens, ctx)
    }

    /// One screen's message.
    pub(super) fn screen_msg(&mut self, msg: ScreenMsg) -> Vec<Effect> {
        if !self.screens.wants(&msg) {
            return Vec::new();
        }
        match msg {
            ScreenMsg::Members(msg) => self.members_heard(msg),
            ScreenMsg::Subscriptions(msg) => self.subscriptions_heard(msg),
            ScreenMsg::People(msg) => self.lend_then_follow(|screens, ctx| screens.on_people_msg(msg, ctx)),
            ScreenMsg::Person(msg) => self.lend_then_follow(|screens, ctx| screens.on_person_msg(msg, ctx)),
            ScreenMsg::Who(msg) => self.lend_then_follow(|screens, ctx| screens.on_who_msg(msg, ctx)),
            ScreenMsg::Grants(msg) => self.lend_then_follow(|screens, ctx| screens.on_grants_msg(msg, ctx)),
            ScreenMsg::Access(msg) => self.lend_then_follow(|screens, ctx| screens.on_access_msg(msg, ctx)),
            ScreenMsg::Preview(msg) => self.preview_heard(msg),
            ScreenMsg::Switch(msg) => self.lend_then_follow(|screens, ctx| screens.on_switch_msg(msg, ctx)),
            ScreenMsg::Offboard(msg) => {
                let (screens, mut ctx) = self.lend();
                screens.on_offboard_msg(msg, &mut ctx);
                Vec::new()
            }
            ScreenMsg::Health(health::Msg::LookNews { news, .. }) => {
                let (screens, mut ctx) = self.lend();
                match screens.health.on_look_news(news, &mut ctx) {
                    Some(change) => self.announce(change),
                    None => Vec::new(),
                }
            }
            ScreenMsg::Health(health::Msg::Looked { result, .. }) => {
                let (screens, mut ctx) = self.lend();
                match screens.health.on_looked(result, &mut ctx) {
                    Some(unreachable) => self.unreachable(unreachable),
                    None => Vec::new(),
                }
            }
        }
    }

    /// Members' message lands in its screen, lent the picker if one is
    /// open; a role found by name is opened.
    fn members_heard(&mut self, msg: members::Msg) -> Vec<Effect> {
        let mut mode = std::mem::replace(&mut self.mode, Mode::Normal);
        let picker = match &mut mode {
            Mode::Picker(picker) => Some(&mut **picker),
            _ => None,
        };
        let (screens, mut ctx) = self.lend();
        let heard = screens.members.on_msg(msg, &mut ctx, picker);
        self.mode = mode;
        self.follow(heard)
    }

    /// Subscriptions' message lands in its screen, lent the form open (the
    /// shell's overlay, taken out while the screen holds it) and which
    /// deliveries are shown; what it hands back is done here, in order.
    fn subscriptions_heard(&mut self, msg: subscriptions::Msg) -> Vec<Effect> {
        let deliveries_shown = (self.shown() == ScreenId::Deliveries)
            .then(|| self.screens.deliveries.subscription())
            .flatten();
        let export_cap = self.permissions.export_cap;
        let mut mode = std::mem::replace(&mut self.mode, Mode::Normal);
        let form = match &mut mode {
            Mode::Form(form, purpose) => Some((&mut **form, &*purpose)),
            _ => None,
        };
        let lent = subscriptions::Lent {
            form,
            export_cap,
            deliveries_shown,
        };
        let (screens, mut ctx) = self.lend();
        let heard = screens.subscriptions.on_msg(msg, &mut ctx, lent);
        self.mode = mode;
        self.follow(heard)
    }
}
