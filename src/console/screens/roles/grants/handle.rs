//! How a role's page lands: `w` on Roles (the role under the cursor) or on
//! a role's members opens it and reads what the role grants, its progress
//! and answer land on it, and `r` reads again. Methods of the screens, as
//! the role is Roles' or Members', lent a [`Ctx`].

use super::{Ask, Msg};
use crate::console::kit::notice::Notice;
use crate::console::screens::heard::{Heard, Step};
use crate::console::screens::members::list::ChosenRole;
use crate::console::screens::{Ctx, ScreenId, Screens};

impl Screens {
    /// `w`: what the role under the cursor (on Roles) or whose members
    /// are shown grants, on its own page.
    pub fn open_grants(&mut self, ctx: &mut Ctx) -> Heard {
        let role = match ctx.shown {
            ScreenId::Roles => self.roles.chosen(),
            ScreenId::Members => self.members.of_role().map(|role| ChosenRole {
                id: role.id.to_string(),
                name: role.name.to_string(),
            }),
            _ => None,
        };
        let Some(role) = role else {
            return Heard::step(Step::Say(Notice::error(
                "w shows what a role grants: a role under the cursor on Roles, or a role's members".into(),
            )));
        };
        let mut heard = self.read_grants(role, ctx);
        heard.push(Step::Open(ScreenId::Grants));
        heard
    }

    /// `r` on a role's page: what it grants, read again.
    pub fn grants_again(&mut self, ctx: &mut Ctx) -> Heard {
        match self.grants.role.clone() {
            Some(role) => self.read_grants(role, ctx),
            None => Heard::default(),
        }
    }

    fn read_grants(&mut self, role: ChosenRole, ctx: &mut Ctx) -> Heard {
        let id = role.id.clone();
        let (ticket, stop) = self.grants.start(role, ctx.height);
        *ctx.dirty = true;
        Heard::ask(Ask::Read {
            ticket,
            organization: ctx.scope.organization.to_owned(),
            role: id,
            stop,
        })
    }

    /// News of a write: the role's members changed, or the role went, and
    /// what it grants is read again (the read says it is gone).
    pub fn grants_on_change(&mut self, change: &crate::console::screens::Change, ctx: &mut Ctx) -> Heard {
        use crate::console::screens::Change;
        let Some(mut role) = self.grants.role.clone() else {
            return Heard::default();
        };
        if let Change::RoleSaved(saved) = change
            && saved.id.eq_ignore_ascii_case(&role.id)
        {
            role.name = saved.name.clone();
        }
        let ours = match change {
            // Its members joining or leaving are followed by `AccessChanged`.
            Change::RoleDeleted { role: left } => left.eq_ignore_ascii_case(&role.id),
            Change::RoleSaved(saved) => saved.id.eq_ignore_ascii_case(&role.id),
            // A rule, a membership, a level or an offboarding may have moved
            // what it grants: it is read again.
            Change::AccessChanged { .. } => true,
            _ => false,
        };
        if ours {
            self.read_grants(role, ctx)
        } else {
            Heard::default()
        }
    }

    /// The page's own message: how far the read came, and its answer.
    pub fn on_grants_msg(&mut self, msg: Msg, ctx: &mut Ctx) -> Heard {
        match msg {
            Msg::Progress { done, total, .. } => self.grants.progress(done, total, ctx.height),
            Msg::Read { result, .. } => {
                if let Err(error) = &result {
                    *ctx.notice = Some(Notice::error(format!(
                        "what the role grants could not be read: {error}"
                    )));
                }
                self.grants.read(result, ctx.height);
            }
        }
        *ctx.dirty = true;
        Heard::default()
    }
}
