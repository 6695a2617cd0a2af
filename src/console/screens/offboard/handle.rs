//! Offboarding in the console (`O` on a person, in the list or on their
//! page): the page of options and plan, the confirmation (only `y` runs
//! it), the steps' outcomes as they end, and the end: a summary and where
//! the record went. A plan the key cannot finish, or whose record cannot
//! be written, does not start, and the notice says why. Leaving the page
//! while it runs abandons nothing: the steps go on, and the notice says
//! when they have ended. Methods of the screens, as the offboarding plans
//! from a person's page and tells People's index what changed
//! (`screens/heard.rs` says why), lent a [`Ctx`].

use super::Msg;
use super::page::{Offboarding, Phase, Screen};
use super::writes::Write as OffboardWrite;
use crate::api;
use crate::console::kit::latest::Ticket;
use crate::console::kit::notice::Notice;
use crate::console::kit::page::PageLines;
use crate::console::screens::heard::{Heard, Step};
use crate::console::screens::write::{Confirm, Write, Written};
use crate::console::screens::{Change, Ctx, ScreenId, Screens};
use crate::text::plural;

impl Screens {
    /// The offboarding's own message: a step of its run ended.
    pub fn on_offboard_msg(&mut self, msg: Msg, ctx: &mut Ctx) {
        match msg {
            Msg::OffboardStep { at, step, .. } => {
                let Some(screen) = self.offboard.screen.as_mut() else {
                    return;
                };
                if let Some(slot) = screen.plan.steps.get_mut(at) {
                    *slot = *step;
                }
                self.offboard.redraw(ctx.height);
                *ctx.dirty = true;
            }
        }
    }

    /// `O`: the offboarding of the person under the cursor, once their page
    /// is gathered (on People it is opened and gathered first).
    pub fn offboard_here(&mut self, ctx: &mut Ctx) -> Heard {
        match ctx.shown {
            ScreenId::People => {
                let Some(member) = self.people.selected() else {
                    return Heard::default();
                };
                let same = self
                    .person
                    .person()
                    .is_some_and(|(uuid, _, _)| uuid.eq_ignore_ascii_case(&member.user.uuid));
                let mut heard = self.open_person(ctx);
                if same && !self.person.is_gathering() {
                    heard.then(self.open_offboard(ctx));
                } else {
                    self.person.offboard_once_gathered();
                }
                heard
            }
            ScreenId::Person if self.person.gathered().is_none() => {
                self.person.offboard_once_gathered();
                *ctx.notice = Some(Notice::working(
                    "their page is being gathered: the plan follows".into(),
                ));
                Heard::default()
            }
            ScreenId::Person => self.open_offboard(ctx),
            _ => Heard::default(),
        }
    }

    /// The offboarding page for the page's person: a new plan, or the run
    /// under way for them.
    pub(in crate::console::screens) fn open_offboard(&mut self, ctx: &mut Ctx) -> Heard {
        let Some(profile) = self.person.gathered().cloned().map(Box::new) else {
            return Heard::default();
        };
        let offboard = &mut self.offboard;
        if let Some(running) = offboard.screen.as_ref().filter(|_| offboard.is_running()) {
            if running.plan.person.email != profile.person.email {
                *ctx.notice = Some(Notice::error(format!(
                    "the offboarding of {} is still running: wait until it ends",
                    running.plan.person.email
                )));
                return Heard::default();
            }
        } else {
            offboard.screen = Some(Box::new(Screen::new(profile)));
            offboard.lines.move_to(0, ctx.height);
        }
        self.offboard.redraw(ctx.height);
        Heard::step(Step::Open(ScreenId::Offboard))
    }

    /// Esc leaving a running offboarding: it goes on, and the notice
    /// says so.
    pub(in crate::console::screens) fn offboard_left(&mut self, ctx: &mut Ctx) {
        let offboard = &self.offboard;
        if !offboard.is_running() {
            return;
        }
        let Some(screen) = offboard.screen.as_deref() else {
            return;
        };
        *ctx.notice = Some(Notice::done(format!(
            "the offboarding goes on: {} of {} steps ended, none is abandoned; the notice says when it ends (O shows it)",
            screen.ended(),
            screen.plan.changes()
        )));
    }

    /// Enter: the plan, after asking (only `y` runs it).
    pub fn confirm_offboarding(&mut self, ctx: &mut Ctx) -> Heard {
        let Some(screen) = self.offboard.screen.as_ref() else {
            return Heard::default();
        };
        match &screen.phase {
            Phase::Running { .. } => {
                *ctx.notice = Some(Notice::done(format!(
                    "running: {} of {} steps ended",
                    screen.ended(),
                    screen.plan.changes()
                )));
                return Heard::default();
            }
            Phase::Done { .. } => {
                *ctx.notice = Some(Notice::done(
                    "it has run: O on them plans again with what is left".into(),
                ));
                return Heard::default();
            }
            Phase::Planning => {}
        }
        let plan = &screen.plan;
        let changes = plan.changes();
        if changes == 0 {
            *ctx.notice = Some(Notice::done(
                "nothing to change: every step is done already".into(),
            ));
            return Heard::default();
        }
        let person = &plan.person;
        Heard::step(Step::Confirm(Confirm::write(
            format!(
                "Offboard {} <{}>: {changes} change{}, as listed.\nThe steps run 4 at a time; a record is written.",
                person.name,
                person.email,
                plural(changes)
            ),
            Write::Offboard(OffboardWrite {
                organization: ctx.scope.organization.to_owned(),
                plan: Box::new(plan.clone()),
            }),
            true,
        )))
    }

    /// The offboarding's write went out with this ticket.
    pub fn offboard_sent(&mut self, ticket: Ticket, ctx: &Ctx) {
        if let Some(screen) = self.offboard.screen.as_mut() {
            screen.phase = Phase::Running { ticket };
            self.offboard.redraw(ctx.height);
        }
    }

    /// The run ended (or could not start): the summary, the record, and
    /// who holds which role read again, and the page gathered again.
    pub fn offboarded(
        &mut self,
        ticket: Ticket,
        result: Result<Written, api::Error>,
        ctx: &mut Ctx,
    ) -> Heard {
        let screen = self
            .offboard
            .screen
            .as_mut()
            .filter(|screen| screen.phase == Phase::Running { ticket });
        let refused = match result {
            Ok(Written::Offboarded(done)) => Ok(done),
            Ok(Written::NotStarted(why)) => Err(why),
            Ok(_) => return Heard::default(),
            Err(error) => Err(error.to_string()),
        };
        let done = match refused {
            Ok(done) => done,
            Err(why) => {
                if let Some(screen) = screen {
                    screen.phase = Phase::Planning;
                    self.offboard.redraw(ctx.height);
                }
                *ctx.notice = Some(Notice::error(format!("the offboarding did not start: {why}")));
                return Heard::default();
            }
        };
        let failed = done.plan.failed();
        let record = match &done.record {
            Ok(path) => format!("record: {}", path.display()),
            Err(error) => format!("the record could not be written: {error}"),
        };
        let email = done.plan.person.email.clone();
        let mut summary = String::new();
        if let Some(screen) = screen {
            screen.plan = done.plan;
            screen.phase = Phase::Done { record: done.record };
            summary = screen.summary();
            self.offboard.redraw(ctx.height);
        }
        let text = format!("offboarded {email}: {summary} · {record}");
        *ctx.notice = Some(if failed > 0 {
            Notice::error(format!(
                "{text}\n{failed} step{} failed: O plans what is left",
                plural(failed)
            ))
        } else {
            Notice::done(text)
        });
        // What changed is news for every screen (People reads the roles
        // again, their page is gathered again: `people/news.rs`).
        Heard::step(Step::Changed(Change::Offboarded { email }))
    }
}

impl Offboarding {
    /// Whether the offboarding waits for this step: of the run under way,
    /// not of one stopped or left.
    pub fn wants(&self, msg: &Msg) -> bool {
        match msg {
            Msg::OffboardStep { ticket, .. } => self
                .screen
                .as_ref()
                .is_some_and(|screen| screen.phase == (Phase::Running { ticket: *ticket })),
        }
    }
}

impl Offboarding {
    /// Space: the option under the cursor, on or off; the plan follows.
    pub fn toggle_option(&mut self, ctx: &mut Ctx) {
        let toggle = self.selected_toggle();
        let Some(screen) = self.screen.as_mut() else {
            return;
        };
        match (toggle, &screen.phase) {
            (Some(toggle), Phase::Planning) => {
                screen.toggle(toggle);
                self.redraw(ctx.height);
            }
            (_, Phase::Planning) => {
                *ctx.notice = Some(Notice::done(
                    "Space turns an option on or off: the first lines".into(),
                ))
            }
            _ => *ctx.notice = Some(Notice::done("the plan has run: its options are kept".into())),
        }
    }
}
