//! How `:who` lands: the command starts a read (another one stops the
//! last), its answer fills the list, Enter opens the person's page, and
//! `r` reads again. Methods of the screens, as Enter opens a person's
//! page, lent a [`Ctx`].

use super::{Ask, Msg};
use crate::access::who::Thing;
use crate::console::kit::notice::Notice;
use crate::console::screens::heard::{Heard, Step};
use crate::console::screens::person::page::Chosen;
use crate::console::screens::{Ctx, ScreenId, Screens};
use crate::console::table::Table;

impl Screens {
    /// `:who …`: who reaches `thing` of `project` (the current one when
    /// none is named), read in the background; the list shows it.
    pub fn who(&mut self, project: Option<String>, thing: Thing, ctx: &mut Ctx) -> Heard {
        let project = project.unwrap_or_else(|| ctx.scope.project.to_owned());
        let table = &mut self.who;
        let (ticket, stop) = table.resource.start(project.clone(), thing.clone());
        table.rows.list.hold_all(Vec::new());
        table.rows.view = None;
        Table::apply_view(table, ctx.height);
        *ctx.dirty = true;
        let mut heard = Heard::ask(Ask::Read {
            ticket,
            organization: ctx.scope.organization.to_owned(),
            project,
            thing,
            stop,
        });
        if ctx.shown != ScreenId::Who {
            heard.push(Step::Open(ScreenId::Who));
        }
        heard
    }

    /// `r` on `:who`'s list: the same question read again.
    pub fn who_again(&mut self, ctx: &mut Ctx) -> Heard {
        match self.who.resource.asked.clone() {
            Some((project, thing)) => self.who(Some(project), thing, ctx),
            None => Heard::default(),
        }
    }

    /// Who reaches the thing, read (or why not).
    pub fn on_who_msg(&mut self, msg: Msg, ctx: &mut Ctx) -> Heard {
        let Msg::Read { result, .. } = msg;
        *ctx.dirty = true;
        let table = &mut self.who;
        table.resource.stop = None;
        match result {
            Ok(who) => {
                table.resource.answered(&who);
                table.rows.list.hold_all(who.users);
                table.rows.view = None;
                Table::apply_view(table, ctx.height);
            }
            Err(error) => {
                *ctx.notice = Some(Notice::error(format!(
                    "who reaches {} could not be read: {error}",
                    table.resource.asked_words()
                )));
                table.resource.error = Some(error);
            }
        }
        Heard::default()
    }

    /// Enter on `:who`'s list: the person's page.
    pub fn who_enter(&mut self, ctx: &mut Ctx) -> Heard {
        let Some(line) = self.who.selected() else {
            return Heard::default();
        };
        if line.email.is_empty() {
            return Heard::step(Step::Say(Notice::error(format!(
                "{} is not among the organization's members this key lists: no page to open",
                line.user_uuid
            ))));
        }
        let chosen = Chosen {
            email: line.email.clone(),
            name: if line.name.is_empty() {
                line.email.clone()
            } else {
                line.name.clone()
            },
        };
        self.open_person_page(chosen, ctx)
    }
}
