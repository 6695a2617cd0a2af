//! Offboarding in the console (`O` on a person, in the list or on their
//! page): the screen of options and plan, the confirmation (only `y` runs
//! it), the steps' outcomes as they end, and the end: a summary and where
//! the record went. A plan the key cannot finish, or whose record cannot
//! be written, does not start, and the notice says why. Leaving the screen
//! while it runs abandons nothing: the steps go on, and the notice says
//! when they have ended.

use super::{App, Confirm, Effect, Mode, Notice, ScreenId, Ticket, Write, Written};
use crate::api;
use crate::console::lists::offboard::{Phase, Screen};
use crate::console::screens::offboard::Write as OffboardWrite;
use crate::people::offboard::Step;
use crate::text::plural;

impl App {
    /// `O`: the offboarding of the person under the cursor, once their page
    /// is gathered (on People it is opened and gathered first).
    pub(super) fn offboard_here(&mut self) -> Vec<Effect> {
        match self.shown() {
            ScreenId::People => {
                let Some(member) = self.screens.people.selected() else {
                    return Vec::new();
                };
                let same = self
                    .screens
                    .person
                    .person()
                    .is_some_and(|(uuid, _, _)| uuid.eq_ignore_ascii_case(&member.user.uuid));
                let mut effects = self.open_person();
                if same && !self.screens.person.resource.gathering {
                    effects.extend(self.open_offboard());
                } else {
                    self.screens.people.resource.asked.then_offboard = true;
                }
                effects
            }
            ScreenId::Person if self.screens.person.resource.profile.is_none() => {
                self.screens.people.resource.asked.then_offboard = true;
                self.notice = Some(Notice::working(
                    "their page is being gathered: the plan follows".into(),
                ));
                Vec::new()
            }
            ScreenId::Person => self.open_offboard(),
            _ => Vec::new(),
        }
    }

    /// The offboarding screen for the page's person: a new plan, or the run
    /// under way for them.
    pub(super) fn open_offboard(&mut self) -> Vec<Effect> {
        let Some(profile) = self.screens.person.resource.profile.clone() else {
            return Vec::new();
        };
        let offboard = &mut self.screens.offboard.resource;
        if let Some(running) = offboard.screen.as_ref().filter(|_| offboard.is_running()) {
            if running.plan.person.email != profile.person.email {
                self.notice = Some(Notice::error(format!(
                    "the offboarding of {} is still running: wait until it ends",
                    running.plan.person.email
                )));
                return Vec::new();
            }
        } else {
            offboard.screen = Some(Box::new(Screen::new(profile)));
            self.screens.offboard.rows.cursor = 0;
        }
        let height = self.table_height();
        self.screens.offboard.redraw(height);
        self.open_list(ScreenId::Offboard)
    }

    /// Space: the option under the cursor, on or off; the plan follows.
    pub(super) fn toggle_option(&mut self) -> Vec<Effect> {
        let height = self.table_height();
        let table = &mut self.screens.offboard;
        let toggle = table.selected_toggle();
        let Some(screen) = table.resource.screen.as_mut() else {
            return Vec::new();
        };
        match (toggle, &screen.phase) {
            (Some(toggle), Phase::Planning) => {
                screen.toggle(toggle);
                table.redraw(height);
            }
            (_, Phase::Planning) => {
                self.notice = Some(Notice::done(
                    "Space turns an option on or off: the first lines".into(),
                ))
            }
            _ => self.notice = Some(Notice::done("the plan has run: its options are kept".into())),
        }
        Vec::new()
    }

    /// Enter: the plan, after asking (only `y` runs it).
    pub(super) fn confirm_offboarding(&mut self) -> Vec<Effect> {
        let Some(screen) = self.screens.offboard.resource.screen.as_ref() else {
            return Vec::new();
        };
        match &screen.phase {
            Phase::Running { .. } => {
                self.notice = Some(Notice::done(format!(
                    "running: {} of {} steps ended",
                    screen.ended(),
                    screen.plan.changes()
                )));
                return Vec::new();
            }
            Phase::Done { .. } => {
                self.notice = Some(Notice::done(
                    "it has run: O on them plans again with what is left".into(),
                ));
                return Vec::new();
            }
            Phase::Planning => {}
        }
        let plan = &screen.plan;
        let changes = plan.changes();
        if changes == 0 {
            self.notice = Some(Notice::done(
                "nothing to change: every step is done already".into(),
            ));
            return Vec::new();
        }
        let person = &plan.person;
        self.mode = Mode::Confirm(Confirm::write(
            format!(
                "Offboard {} <{}>: {changes} change{}, as listed.\nThe steps run 4 at a time; a record is written.",
                person.name,
                person.email,
                plural(changes)
            ),
            Write::Offboard(OffboardWrite {
                organization: self.context.organization.clone(),
                plan: Box::new(plan.clone()),
            }),
            true,
        ));
        Vec::new()
    }

    /// The offboarding's write went out with this ticket.
    pub(super) fn offboard_sent(&mut self, ticket: Ticket) {
        let height = self.table_height();
        if let Some(screen) = self.screens.offboard.resource.screen.as_mut() {
            screen.phase = Phase::Running { ticket };
            self.screens.offboard.redraw(height);
        }
    }

    /// A step ended.
    pub(super) fn offboard_step(&mut self, at: usize, step: Step) {
        let height = self.table_height();
        let Some(screen) = self.screens.offboard.resource.screen.as_mut() else {
            return;
        };
        if let Some(slot) = screen.plan.steps.get_mut(at) {
            *slot = step;
        }
        self.screens.offboard.redraw(height);
        self.dirty = true;
    }

    /// The run ended (or could not start): the summary, the record, and
    /// who holds which role read again, and the page gathered again.
    pub(super) fn offboarded(&mut self, ticket: Ticket, result: Result<Written, api::Error>) -> Vec<Effect> {
        let height = self.table_height();
        if let Err(error) = &result {
            self.learn_from(error);
        }
        let screen = self
            .screens
            .offboard
            .resource
            .screen
            .as_mut()
            .filter(|screen| screen.phase == Phase::Running { ticket });
        let refused = match result {
            Ok(Written::Offboarded(done)) => Ok(done),
            Ok(Written::NotStarted(why)) => Err(why),
            Ok(_) => return Vec::new(),
            Err(error) => Err(error.to_string()),
        };
        let done = match refused {
            Ok(done) => done,
            Err(why) => {
                if let Some(screen) = screen {
                    screen.phase = Phase::Planning;
                    self.screens.offboard.redraw(height);
                }
                self.notice = Some(Notice::error(format!("the offboarding did not start: {why}")));
                return Vec::new();
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
            self.screens.offboard.redraw(height);
        }
        let text = format!("offboarded {email}: {summary} · {record}");
        self.notice = Some(if failed > 0 {
            Notice::error(format!(
                "{text}\n{failed} step{} failed: O plans what is left",
                plural(failed)
            ))
        } else {
            Notice::done(text)
        });
        // What changed is read again: the roles of everyone, their page.
        let mut effects = self.refresh_people_quietly();
        if self
            .screens
            .person
            .resource
            .chosen
            .as_ref()
            .is_some_and(|chosen| chosen.email == email)
        {
            effects.extend(self.regather());
        }
        effects
    }
}
