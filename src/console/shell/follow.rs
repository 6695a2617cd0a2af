//! The shell follows what a screen's handler asks of it ([`Heard`],
//! `screens/heard.rs`): its requests go out as effects, news goes to
//! every screen, and the moves that are the shell's (showing a screen,
//! fetching or reading again its rows, a question, a timer) are made here,
//! in the handler's order.

use super::{App, Effect, Mode, Timer};
use crate::console::screens::heard::{Heard, Step};
use crate::console::screens::{Ctx, Screens};

impl App {
    pub(super) fn follow(&mut self, heard: Heard) -> Vec<Effect> {
        let mut effects = Vec::new();
        for step in heard.0 {
            match step {
                Step::Ask(ask) => effects.push(Effect::Ask(ask)),
                Step::Say(notice) => self.notice.shown = Some(notice),
                Step::Switch(screen) => effects.extend(self.switch(screen)),
                Step::Open(screen) => effects.extend(self.open_list(screen)),
                Step::FetchVisible => effects.extend(self.fetch_visible()),
                Step::ToggleDetail => {
                    self.overlays.detail_open = !self.overlays.detail_open;
                    self.overlays.scroll.detail = 0;
                }
                Step::Reload(screen) => effects.extend(self.reload(screen, false)),
                Step::Confirm(confirm) => effects.extend(self.ask(confirm)),
                Step::Chooser(chooser, purpose) => self.mode = Mode::Chooser(chooser, purpose),
                Step::Bulk(bulk) => effects.extend(self.ask_bulk(bulk)),
                Step::Reread(screen) => {
                    if let Some(table) = self.screens.list_mut(screen) {
                        table.remember_selected();
                    }
                    effects.extend(self.reload(screen, false));
                }
                Step::Changed(change) => {
                    effects.extend(self.announce(change));
                    self.apply_view();
                }
                Step::PollAfter { look, ticket } => effects.push(Effect::Timer {
                    timer: Timer::Poll(look),
                    ticket,
                }),
                Step::Resume(then, subscription) => effects.extend(self.resume_read(then, &subscription)),
                Step::OpenRole { id, name } => effects.extend(self.open_role(id, name)),
            }
        }
        effects
    }
}

impl App {
    /// Lends the screens and a `Ctx` to a handler of People, a person's
    /// page or an offboarding, and follows what it returns.
    pub(super) fn lend_then_follow(
        &mut self,
        handler: impl FnOnce(&mut Screens, &mut Ctx) -> Heard,
    ) -> Vec<Effect> {
        let (screens, mut ctx) = self.lend();
        let heard = handler(screens, &mut ctx);
        self.follow(heard)
    }

    /// People is shown: its index is read the first time.
    pub(super) fn people_shown(&mut self) -> Vec<Effect> {
        self.lend_then_follow(|screens, ctx| screens.people_shown(ctx).into())
    }
}
