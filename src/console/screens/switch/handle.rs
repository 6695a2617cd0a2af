//! How `:switch-preview` lands: shown (or `r`), every project's rules are
//! read again (another read stops the last), its progress counted; Esc
//! stops the read; its answer fills the lines; Enter (or `e`) on a line offers its fix as an
//! edit (`access/edit.rs`, Enter taken as `e` by the shell); access changed
//! reads it again. Methods of the screens, as Enter opens the
//! access edit's chooser, lent a [`Ctx`].

use super::{Ask, Msg};
use crate::console::kit::notice::Notice;
use crate::console::screens::heard::Heard;
use crate::console::screens::{Change, Ctx, Screens};

impl Screens {
    /// The screen is shown (`:switch-preview`): read unless read or
    /// reading already.
    pub fn switch_shown(&mut self, ctx: &mut Ctx) -> Heard {
        let preview = &self.switch;
        if preview.reading || preview.found.is_some() {
            return Heard::default();
        }
        self.switch_again(ctx)
    }

    /// `r`: every project's rules read again.
    pub fn switch_again(&mut self, ctx: &mut Ctx) -> Heard {
        let (ticket, stop) = self.switch.start(ctx.height);
        *ctx.dirty = true;
        Heard::ask(Ask::Read {
            ticket,
            organization: ctx.scope.organization.to_owned(),
            stop,
        })
    }

    /// News of a write that moved access (a fix made from here, a rule,
    /// a membership): what the switch would change is read again if it
    /// was read, so a line fixed goes.
    pub fn switch_on_change(&mut self, change: &Change, ctx: &mut Ctx) -> Heard {
        let read = self.switch.reading || self.switch.found.is_some();
        match change {
            Change::AccessChanged { .. } if read => self.switch_again(ctx),
            _ => Heard::default(),
        }
    }

    /// Esc: the read under way stops. Whether there was one.
    pub fn switch_stop(&mut self, ctx: &mut Ctx) -> bool {
        if !self.switch.stop() {
            return false;
        }
        *ctx.notice = Some(Notice::done(
            "stopped: nothing is shown of a part read · r reads again".into(),
        ));
        *ctx.dirty = true;
        true
    }

    /// What the switch changes, read (or why not).
    pub fn on_switch_msg(&mut self, msg: Msg, ctx: &mut Ctx) -> Heard {
        *ctx.dirty = true;
        let (result, stopped) = match msg {
            Msg::Progress { done, total, .. } => {
                self.switch.progress = Some((done, total));
                return Heard::default();
            }
            Msg::Read { result, stopped, .. } => (result, stopped),
        };
        if let Err(error) = &result
            && !stopped
        {
            *ctx.notice = Some(Notice::error(format!(
                "the switch preview could not be read: {error}"
            )));
        }
        self.switch.read(result, stopped, ctx.height);
        Heard::default()
    }
}
